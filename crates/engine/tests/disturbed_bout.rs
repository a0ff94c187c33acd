//! A real disturbance, seen and removed: a bout measured while a busy process shares its CPU
//! (both pinned to it) has every sample judged descheduled, corrected to its thread's CPU time
//! or set aside, and the kernel's counters of the bout say why. This is the case the rules in
//! `cryptospeed_stats::host` exist for, produced by the kernel rather than written down.

use cryptospeed_engine::{clock, sampler, Timed};
use cryptospeed_model::{CellSpec, MeasureConfig, Op};
use cryptospeed_stats::host::{judge, HostPart, Judged};
use std::process::{Child, Command};

/// A fixed amount of integer work per call.
struct Spin;
impl Timed for Spin {
    fn run(&mut self, iters: u64) -> Result<(), String> {
        let mut x = 1u64;
        for i in 0..iters * 1000 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        Ok(())
    }
}

/// A shell spinning forever, on the CPU this thread is pinned to (it inherits the affinity).
fn competitor() -> Child {
    Command::new("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .expect("sh starts")
}

#[test]
fn a_bout_sharing_its_cpu_with_a_busy_process_is_judged_descheduled_and_corrected() {
    let cpu = clock::pin_to_cpu(0).map(|()| 0);
    if let Err(e) = cpu {
        println!("skipped: {e}");
        return;
    }
    let cell = CellSpec {
        primitive: "spin".into(),
        op: Op::Hash,
        bytes: Some(16),
        misalign: 0,
    };
    let config = MeasureConfig {
        sample_time_s: 0.03,
        warmup_s: 0.0,
        bout_samples: 4,
        batch_iters: 3000,
        ..Default::default()
    };
    let mut busy = competitor();
    // Let the competitor get going before the bout starts.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let m = sampler::measure(&mut Spin, cell, &config);
    busy.kill().ok();
    busy.wait().ok();
    assert_eq!(m.samples.len(), 4, "{m:?}");
    // CFS shares the CPU between the two: no sample ran through.
    for s in &m.samples {
        assert_ne!(judge(s), Judged::Undisturbed, "{s:?}");
    }
    let h = HostPart::of_measurement(&m);
    assert_eq!(h.corrected + h.set_aside, 4, "{h:?}");
    // The kernel's counters of the bout say the thread waited for the CPU: involuntary
    // switches, and a run-queue wait of a good part of the samples' wall time.
    let d = m.disturbances.first().expect("the worker probes its bouts");
    let wall: u64 = m.samples.iter().map(|s| s.wall_ns).sum();
    assert!(d.nivcsw > 0, "{d:?}");
    assert!(d.run_delay_ns * 5 > wall, "{d:?} of {wall} ns");
    // The canary is timed by thread CPU time: a preemption is not the hardware running slow.
    assert!(d.canary_ns.iter().all(|c| *c > 0), "{d:?}");
}
