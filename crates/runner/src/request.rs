//! A run as the user asks for it, in plain data (what `run`'s options say, or a sweep shard's,
//! or a test's): turned into a [`Plan`] here, so every front end validates and expands it the
//! same way — measuring settings, implementations × built variants × CPU-feature masks, the
//! schedule — and says the same things when it ends.

use crate::{ImplChoice, Outcome, Plan, Schedule};
use anyhow::{anyhow, bail, Result};
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_model::{CellSpec, MeasureConfig};
use cryptospeed_store::{redact, Storage};

/// What to measure and how, before validation.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub cells: Vec<CellSpec>,
    /// Target half-width of the 95% interval between bouts, as a fraction.
    pub precision: f64,
    pub max_time: f64,
    pub min_samples: u32,
    pub sample_time: f64,
    pub bout_samples: u32,
    pub min_bouts: u32,
    /// Also move each message buffer within its page (`--layouts full`).
    pub vary_buffers: bool,
    pub pin: Option<usize>,
    /// Scaling on this many concurrent workers (`--multi`).
    pub multi: Option<usize>,
    /// `--impl` (default openssl, unless variants are given).
    pub implementations: Option<String>,
    /// `--variant`: built variants' labels or keys, `system`.
    pub variants: Option<String>,
    /// `--mask`, each its own variant (empty: no mask).
    pub masks: Vec<String>,
}

impl RunRequest {
    /// The plan: validated settings, every implementation under every mask.
    pub fn plan(&self) -> Result<Plan> {
        if self.cells.is_empty() {
            bail!(
                "nothing to measure: none of the selected primitives has the requested operations"
            );
        }
        Ok(Plan {
            cells: self.cells.clone(),
            variants: self.variants()?,
            config: self.config()?,
            schedule: match self.multi {
                Some(workers) => Schedule::Concurrent { workers },
                None => Schedule::Interleaved { pin: self.pin },
            },
        })
    }

    fn config(&self) -> Result<MeasureConfig> {
        if !(self.precision > 0.0 && self.precision < 1.0) {
            bail!("--precision must be between 0 and 1 (0.01 means ±1%)");
        }
        if self.max_time <= 0.0 || self.sample_time <= 0.0 {
            bail!("--max-time and --sample-time must be positive");
        }
        Ok(MeasureConfig {
            precision: self.precision,
            max_time_s: self.max_time,
            min_samples: self.min_samples.max(1),
            sample_time_s: self.sample_time,
            warmup_s: (self.sample_time * 2.0).min(0.1),
            fixed_duration: self.multi.is_some(),
            // --multi measures each cell in one stretch per worker; otherwise in bouts.
            bout_samples: match self.multi {
                Some(_) => 0,
                None => self.bout_samples.max(1),
            },
            batch_iters: 0,
            min_bouts: self.min_bouts.max(2),
            vary_buffers: self.vary_buffers,
        })
    }

    /// Every implementation and built variant under every mask: each pair is its own worker and
    /// variant.
    fn variants(&self) -> Result<Vec<ImplChoice>> {
        let masks = match self.masks.is_empty() {
            true => vec![FeatureMask::default()],
            false => self
                .masks
                .iter()
                .map(|m| FeatureMask::parse(m).map_err(|e| anyhow!("--mask: {e}")))
                .collect::<Result<Vec<_>>>()?,
        };
        let mut selected = match (&self.implementations, &self.variants) {
            (Some(list), _) => ImplChoice::parse_list(list)?,
            (None, None) => ImplChoice::parse_list("openssl")?,
            (None, Some(_)) => Vec::new(),
        };
        if let Some(list) = &self.variants {
            selected.extend(crate::variant::choices(list)?);
        }
        Ok(selected
            .into_iter()
            .flat_map(|c| {
                masks.iter().map(move |m| ImplChoice {
                    mask: m.clone(),
                    ..c.clone()
                })
            })
            .collect())
    }
}

impl Outcome {
    /// The run as measured, its cells in the order the plan asked for them (they are stored as
    /// they finish).
    pub fn record_in_plan_order(&self, plan: &Plan) -> cryptospeed_model::RunRecord {
        let mut record = self.record.clone();
        record.measurements.sort_by_key(|vm| {
            let c = &vm.measurement.cell;
            plan.cells
                .iter()
                .position(|p| p.primitive == c.primitive && p.op == c.op && p.bytes == c.bytes)
                .unwrap_or(usize::MAX)
        });
        record
    }

    /// The closing lines a run prints on stderr: its id, label, status, cells, where it is
    /// stored, and when the store missed some, why and how to publish the rest.
    pub fn closing_lines(&self, plan: &Plan, label: Option<&str>, db: &str) -> Vec<String> {
        let stored = match &self.storage {
            Storage::Stored => format!("stored in {}", redact(db)),
            Storage::Incomplete { stored, total, .. } => format!(
                "but {} holds only {stored} of its {total} measurements",
                redact(db)
            ),
        };
        let cells = match plan.schedule {
            Schedule::Concurrent { workers } => {
                format!("{} cells on {workers} workers", self.scaling.len())
            }
            Schedule::Interleaved { .. } => format!(
                "{} cells, {} failed",
                self.record.measurements.len(),
                self.failed_cells
            ),
        };
        let label = label.map(|l| format!(" '{l}'")).unwrap_or_default();
        let status = self.status.as_str();
        let mut lines = vec![format!(
            "run {}{label} {status} ({cells}) {stored}",
            self.run_id
        )];
        let conditions = self.record.run.conditions.as_ref();
        lines.extend(conditions.and_then(|c| c.placement()));
        lines.extend(set_aside_line(&self.record.measurements));
        if let Storage::Incomplete { spool, error, .. } = &self.storage {
            lines.push(error.clone());
            lines.push(match spool {
                Some(path) => format!(
                    "the whole run is in the spool {p}; publish it with: cryptospeed sync --from {p} --to {db}",
                    p = path.display(),
                    db = redact(db)
                ),
                None => "the spool could not be written either: the run exists only in this command's output".into(),
            });
        }
        lines
    }
}

/// One line saying how much of the run the host disturbed and how its part was removed from the
/// figures: samples whose thread was descheduled for part of them, corrected to their thread's
/// CPU time or, descheduled for most of it, set aside (`cryptospeed_stats::host`). `None` for a
/// run without samples (imported, or `openssl speed` read through -mr).
pub fn set_aside_line(measurements: &[cryptospeed_model::VariantMeasurement]) -> Option<String> {
    let (mut all, mut cells, mut touched) = (cryptospeed_stats::HostPart::default(), 0, 0);
    let mut shifts = Vec::new();
    for vm in measurements {
        let h = cryptospeed_stats::HostPart::of_measurement(&vm.measurement);
        if h.of > 0 {
            all.set_aside += h.set_aside;
            all.corrected += h.corrected;
            all.of += h.of;
            all.slow_bouts += h.slow_bouts;
            all.canary_bouts += h.canary_bouts;
            all.shifted_bouts += h.shifted_bouts;
            cells += 1;
            touched += usize::from(h.set_aside + h.corrected > 0);
            if h.shifted_bouts > 0 {
                shifts.push(h.shift_ppm);
            }
        }
    }
    if all.of == 0 {
        return None;
    }
    let pct = |n: usize| 100.0 * n as f64 / all.of as f64;
    let canary = (all.canary_bouts > 0).then(|| {
        format!(
            "; bouts set aside as slowed while running (canary over {:.0}% slow): {} of {}",
            100.0 * cryptospeed_stats::CANARY_SLOWDOWN,
            all.slow_bouts,
            all.canary_bouts
        )
    });
    let shifted = shifted_part(measurements, &shifts, all.shifted_bouts, cells);
    let states = states_part(measurements);
    let floor = floor_part(measurements, cells);
    Some(format!(
        "disturbed by the host: {} of {} samples ({:.1}%) in {touched} of {cells} cells; corrected to their thread's CPU time: {} ({:.1}%), set aside: {} ({:.1}%) (their thread had the CPU for under {:.0}% of the sample, under {:.0}% set aside, or their bout's canary ran slow){}{}{}{}",
        all.corrected + all.set_aside,
        all.of,
        pct(all.corrected + all.set_aside),
        all.corrected,
        pct(all.corrected),
        all.set_aside,
        pct(all.set_aside),
        100.0 * cryptospeed_stats::UNDISTURBED_CPU_SHARE,
        100.0 * cryptospeed_stats::MIN_CORRECTABLE_SHARE,
        canary.unwrap_or_default(),
        shifted.unwrap_or_default(),
        states.unwrap_or_default(),
        floor.unwrap_or_default()
    ))
}

/// The part of the closing line on cells whose canaries ran at two speeds
/// (`cryptospeed_stats::canary_floor`): how many kept only their bouts at the floor, and which
/// never reached it, so their figures are the slowed host's.
fn floor_part(
    measurements: &[cryptospeed_model::VariantMeasurement],
    cells: usize,
) -> Option<String> {
    use cryptospeed_stats::canary_floor::{cell_floor, FLOOR_BAND};
    let floors: Vec<_> = measurements
        .iter()
        .filter_map(|vm| Some((vm, cell_floor(&vm.measurement.disturbances)?)))
        .collect();
    let lowest = floors.iter().map(|(_, f)| f.floor_ns).min()?;
    let (reached, short): (Vec<_>, Vec<_>) = floors.iter().partition(|(_, f)| f.reached());
    let short_names: Vec<String> = short
        .iter()
        .map(|(vm, _)| {
            let c = &vm.measurement.cell;
            let size = c.bytes.map_or(String::new(), |b| format!("@{b}"));
            format!("{} {} {}{size}", vm.variant, c.primitive, c.op)
        })
        .collect();
    Some(format!(
        "; {} of {} cells kept only their bouts within {:.0}% of the canary's floor ({lowest} ns){}",
        reached.len(),
        cells,
        100.0 * FLOOR_BAND,
        if short_names.is_empty() {
            String::new()
        } else {
            format!(
                ", {} never ran at it and are the slowed host's figures: {}",
                short_names.len(),
                short_names.join(", ")
            )
        }
    ))
}

/// The part of the closing line on a host that ran the canary at more than one speed
/// (`cryptospeed_stats::host_states`): how many bouts ran fast, and from which state the cells'
/// kept bouts came.
fn states_part(measurements: &[cryptospeed_model::VariantMeasurement]) -> Option<String> {
    use cryptospeed_stats::host_states::{host_states, FAST_STATE_BAND};
    let states = host_states(
        measurements
            .iter()
            .flat_map(|vm| &vm.measurement.disturbances),
    )?;
    let shares: Vec<f64> = measurements
        .iter()
        .filter_map(|vm| states.fast_share_kept(&vm.measurement))
        .collect();
    let lo = shares.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = shares.iter().copied().fold(0.0, f64::max);
    Some(format!(
        "; the host ran the canary at more than one speed: {} of {} bouts within {:.0}% of the run's fastest ({} ns), the median bout {:.2}x it; the cells' kept bouts were {:.0}% to {:.0}% in the fast state, so each figure is of the state its cell kept",
        states.fast_bouts,
        states.bouts,
        100.0 * FAST_STATE_BAND,
        states.floor_ns,
        states.median_ratio,
        100.0 * lo.min(hi),
        100.0 * hi
    ))
}

/// The part of the closing line on the machine's quiet canary reference, where the run had one:
/// how many bouts were divided by their canary's slowdown over it, in how many cells, by how much
/// (`cryptospeed_stats::host::canary_shift`).
fn shifted_part(
    measurements: &[cryptospeed_model::VariantMeasurement],
    shifts_ppm: &[i64],
    bouts: usize,
    cells: usize,
) -> Option<String> {
    let reference = measurements
        .iter()
        .flat_map(|vm| &vm.measurement.disturbances)
        .map(|d| d.canary_quiet_ns)
        .find(|r| *r > 0)?;
    let floor = 100.0 * cryptospeed_stats::CANARY_SHIFT_FLOOR;
    let (Some(lo), Some(hi)) = (shifts_ppm.iter().min(), shifts_ppm.iter().max()) else {
        return Some(format!(
            "; canary against the machine's quiet reference ({reference} ns): no cell over {floor:.1}% above it"
        ));
    };
    Some(format!(
        "; bouts divided by their canary's slowdown over the machine's quiet reference ({reference} ns), in cells whose canaries sat over {floor:.1}% above it: {bouts} bouts in {} of {cells} cells (shift +{:.2}% to +{:.2}%)",
        shifts_ppm.len(),
        *lo as f64 / 1e4,
        *hi as f64 / 1e4
    ))
}

#[cfg(test)]
mod tests {
    use super::set_aside_line;
    use cryptospeed_model::{CellSpec, Measurement, Op, Sample, Status, VariantMeasurement};

    fn cell_with(cpu_ns: &[u64]) -> VariantMeasurement {
        let cell = CellSpec {
            primitive: "md5".into(),
            op: Op::Hash,
            bytes: Some(16),
            misalign: 0,
        };
        let mut measurement = Measurement::not_timed(cell, Status::Ok, "");
        measurement.samples = cpu_ns
            .iter()
            .map(|c| Sample {
                iters: 1,
                wall_ns: 1000,
                cpu_ns: *c,
                tsc: 0,
                bout: 0,
            })
            .collect();
        VariantMeasurement {
            variant: "v".into(),
            implementation: "openssl".into(),
            measurement,
            definition: None,
        }
    }

    #[test]
    fn the_closing_summary_says_how_much_the_host_disturbed() {
        let run = [
            cell_with(&[1000, 200, 1000, 899]),
            cell_with(&[1000, 1000]),
            cell_with(&[]),
        ];
        assert_eq!(
            set_aside_line(&run).unwrap(),
            "disturbed by the host: 2 of 6 samples (33.3%) in 1 of 2 cells; corrected to their thread's CPU time: 1 (16.7%), set aside: 1 (16.7%) (their thread had the CPU for under 90% of the sample, under 25% set aside, or their bout's canary ran slow)"
        );
        assert_eq!(set_aside_line(&run[2..]), None);
        // A second bout whose canary ran 10% slow: its samples are set aside with it.
        let mut slowed = cell_with(&[1000, 1000, 1000, 1000]);
        let m = &mut slowed.measurement;
        m.samples[2].bout = 1;
        m.samples[3].bout = 1;
        m.disturbances = [(0, 1000), (1, 1100)]
            .map(|(bout, c)| cryptospeed_model::BoutDisturbance {
                bout,
                canary_ns: [c, c],
                ..Default::default()
            })
            .to_vec();
        assert_eq!(
            set_aside_line(&[slowed]).unwrap(),
            "disturbed by the host: 2 of 4 samples (50.0%) in 1 of 1 cells; corrected to their thread's CPU time: 0 (0.0%), set aside: 2 (50.0%) (their thread had the CPU for under 90% of the sample, under 25% set aside, or their bout's canary ran slow); bouts set aside as slowed while running (canary over 5% slow): 1 of 2"
        );
    }

    #[test]
    fn the_closing_summary_says_what_the_quiet_canary_reference_divided_out() {
        // Two bouts whose canaries both read 2% over the machine's quiet reference (a slowdown
        // the whole run shared), in one of two cells; the other cell's sat at the reference.
        let with = |canary: u64| {
            let mut c = cell_with(&[1000, 1000, 1000, 1000]);
            let m = &mut c.measurement;
            m.samples[2].bout = 1;
            m.samples[3].bout = 1;
            m.disturbances = (0..2)
                .map(|bout| cryptospeed_model::BoutDisturbance {
                    bout,
                    canary_ns: [canary, canary],
                    canary_quiet_ns: 1000,
                    canary_floor_ns: 0,
                    ..Default::default()
                })
                .collect();
            c
        };
        let line = set_aside_line(&[with(1020), with(1000)]).unwrap();
        assert!(
            line.ends_with("; bouts divided by their canary's slowdown over the machine's quiet reference (1000 ns), in cells whose canaries sat over 0.2% above it: 2 bouts in 1 of 2 cells (shift +2.00% to +2.00%)"),
            "{line}"
        );
        let line = set_aside_line(&[with(1001)]).unwrap();
        assert!(
            line.ends_with("; canary against the machine's quiet reference (1000 ns): no cell over 0.2% above it"),
            "{line}"
        );
    }

    #[test]
    fn the_closing_summary_says_when_the_host_ran_at_two_speeds() {
        // Two cells of 20 bouts each, one sample a bout: the first's bouts 1 in 4 fast (66 us
        // canaries, the rest 95 us), so it keeps only the fast bouts (five at the floor); the
        // second's 1 in 10 fast, two bouts, too few to be a state, so it keeps them all.
        let cell = |fast_every: u32, learnt_floor: u64| {
            let mut c = cell_with(&[1000; 20]);
            let m = &mut c.measurement;
            for (i, s) in m.samples.iter_mut().enumerate() {
                s.bout = i as u32;
            }
            m.disturbances = (0..20)
                .map(|bout| {
                    let c = if bout % fast_every == 0 {
                        66_000
                    } else {
                        95_000
                    };
                    cryptospeed_model::BoutDisturbance {
                        bout,
                        canary_ns: [c, c],
                        canary_floor_ns: learnt_floor,
                        ..Default::default()
                    }
                })
                .collect();
            c
        };
        let line = set_aside_line(&[cell(4, 0), cell(10, 0)]).unwrap();
        assert!(
            line.contains("; the host ran the canary at more than one speed: 7 of 40 bouts within 5% of the run's fastest (66000 ns), the median bout 1.44x it; the cells' kept bouts were 10% to 100% in the fast state, so each figure is of the state its cell kept"),
            "{line}"
        );
        assert!(
            line.ends_with(
                "; 1 of 2 cells kept only their bouts within 5% of the canary's floor (66000 ns)"
            ),
            "{line}"
        );
        // With the machine's floor learnt, the second cell is known to have kept the slow state.
        let line = set_aside_line(&[cell(4, 66_000), cell(10, 66_000)]).unwrap();
        assert!(
            line.ends_with("; 1 of 2 cells kept only their bouts within 5% of the canary's floor (66000 ns), 1 never ran at it and are the slowed host's figures: v md5 hash@16"),
            "{line}"
        );
        // One speed: nothing said.
        let line = set_aside_line(&[cell(100, 0), cell(100, 0)]).unwrap();
        assert!(!line.contains("more than one speed"), "{line}");
        assert!(!line.contains("floor"), "{line}");
    }
}
