//! Benchmark aid: replay a raw cstrace stream kept by `CRYPTOSPEED_KEEP_TRACE=DIR cryptospeed
//! profile …` through the profile's whole analysis (full grid), and say how long it took, so the
//! simulators can be tuned without tracing again.
use cryptospeed_sim::analysis::{analyse, Grid};
use cryptospeed_sim::decode::Decoded;
use cryptospeed_sim::region::Recorder;
use cryptospeed_sim::trace::read_cstrace;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: analyse TRACE [full|single]");
    let mut grid = match std::env::args().nth(2).as_deref() {
        Some("single") => Grid::single(),
        _ => Grid::full(),
    };
    // ANALYSE_ONLY=caches|models narrows the grid, to see where the time goes.
    match std::env::var("ANALYSE_ONLY").as_deref() {
        Ok("caches") => {
            grid.predictors.clear();
            grid.windows.clear();
            grid.timing.clear();
        }
        Ok("models") => grid.lines.clear(),
        Ok("timing") => {
            grid.lines.clear();
            grid.predictors.clear();
            grid.windows.clear();
        }
        Ok("timing1") => {
            grid.lines.clear();
            grid.predictors.clear();
            grid.windows.clear();
            grid.timing.truncate(1);
        }
        Ok(policy) => {
            grid.predictors.clear();
            grid.windows.clear();
            grid.timing.clear();
            grid.policies = vec![policy.to_string()];
        }
        _ => {}
    }
    let t = std::time::Instant::now();
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut d = Decoded::default();
    let mut rec = Recorder::new(false, 200_000_000);
    read_cstrace(f, &mut d, &mut rec).unwrap();
    let read = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let a = analyse(&rec.events, rec.measured_range(), &d, &grid);
    let s = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds();
    let sum: u64 = a.caches.iter().map(|c| c.misses).sum();
    println!(
        "{} measured instructions, {} events; read {read:.2} s, analyse {s:.2} s ({cpu:.2} s CPU in all); {} caches (miss sum {sum}), {} predictors, {} ILP points",
        rec.mix.instructions,
        rec.events.len(),
        a.caches.len(),
        a.predictors.len(),
        a.ilp.len()
    );
    for t in &a.timing {
        let r = &t.result;
        println!(
            "{:12} {:8} IPC {:.3} cycles {} (instr {}) cpi {:?}",
            t.sweep, t.x, r.ipc, r.cycles, r.instructions, r.cpi
        );
    }
    if let Some(out) = std::env::args().nth(3) {
        std::fs::write(out, serde_json::to_string(&a).unwrap()).unwrap();
    }
}

/// User + system CPU time of this process so far (the machine is shared: wall time lies).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let f: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / 100.0
}
