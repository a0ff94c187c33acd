//! The concurrent schedule, `run --multi N`: what `openssl speed -multi N` gives, with error bars.
//! For every cell and variant, one worker first runs it alone (pinned to the first allowed CPU),
//! then N workers pinned to N distinct CPUs run it at once, their requests sent together. Every
//! measurement in this mode samples for exactly `--max-time` seconds (`fixed_duration`), so the
//! N concurrent windows overlap from start to end.
//!
//! Stored as one run: the lone measurements under the variant, worker i's concurrent ones under
//! the variant `LABEL [multi i/N]` (its build record says which CPU and with whom), so `compare`
//! and `report` show the per-worker slowdown directly. The aggregate (sum of the workers' rates)
//! and the scaling efficiency (aggregate / (N × alone)) come with intervals derived from the
//! workers' 95% confidence intervals.

use crate::{conclude, deadline, relay, variant_of, ImplChoice, Outcome, Plan, Progress, RunMeta};
use anyhow::{bail, Result};
use cryptospeed_engine::worker_client::{WorkerClient, WorkerError};
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Status, Variant};
use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The CPUs this process may run on, ascending.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// The N CPUs to pin to, or why not.
pub fn cpus_for(n: usize) -> Result<Vec<usize>> {
    let cpus = allowed_cpus();
    if n == 0 {
        bail!("--multi needs at least 1 worker");
    }
    if n > cpus.len() {
        bail!(
            "--multi {n} needs {n} CPUs but this process may run on {} ({}); more workers than CPUs would measure time-sharing, not scaling",
            cpus.len(),
            cpus.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    Ok(cpus[..n].to_vec())
}

/// One implementation's workers in a multi run: `alone` is worker 0 (pinned to the first CPU),
/// `workers[i]` is pinned to `cpus[i]`; worker 0 doubles as the lone one.
pub struct Team {
    pub choice: ImplChoice,
    pub variant: Variant,
    pub workers: Vec<WorkerClient>,
    /// The lone variant, then one per concurrent worker.
    pub variants: Vec<Variant>,
}

impl Team {
    pub fn start(choice: &ImplChoice, cpus: &[usize], cancel: &AtomicBool) -> Result<Team> {
        let mut workers = Vec::new();
        for &cpu in cpus {
            workers.push(choice.start(Some(cpu), cancel)?);
        }
        // Every worker of a team hosts the same build; the first one says what it is.
        let variant = variant_of(choice, &workers[0]);
        let n = cpus.len();
        let mut variants = vec![variant.clone()];
        for (i, cpu) in cpus.iter().enumerate() {
            let mut v = variant.clone();
            v.label = format!("{} [multi {}/{n}]", variant.label, i + 1);
            v.build_info.push(format!(
                "concurrent: worker {} of {n}, pinned to CPU {cpu}, each cell started together with the other {} worker(s) on CPUs {}",
                i + 1,
                n - 1,
                cpus.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")
            ));
            variants.push(v);
        }
        Ok(Team {
            choice: choice.clone(),
            variant,
            workers,
            variants,
        })
    }

    /// The cell alone on worker 0, then on every worker at once.
    pub fn measure(
        &mut self,
        cell: &CellSpec,
        config: &MeasureConfig,
        deadline: Duration,
        cancel: &AtomicBool,
    ) -> Result<(Measurement, Vec<Measurement>), WorkerError> {
        let alone = self.workers[0].measure(cell.clone(), config, deadline, cancel)?;
        if alone.status != Status::Ok && alone.status != Status::Imprecise {
            // Unavailable or failed alone: the same everywhere; say so once per worker.
            let together = self.workers.iter().map(|_| alone.clone()).collect();
            return Ok((alone, together));
        }
        let results: Vec<Result<Measurement, WorkerError>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .workers
                .iter_mut()
                .map(|w| s.spawn(|| w.measure(cell.clone(), config, deadline, cancel)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(WorkerError::Protocol("a measuring thread panicked".into()))
                    })
                })
                .collect()
        });
        let together = results.into_iter().collect::<Result<Vec<_>, _>>()?;
        Ok((alone, together))
    }

    pub fn quit(self) {
        for w in self.workers {
            w.quit();
        }
    }
}

/// One row of the scaling table: the variant's label, the cell, its scaling (none when the cell
/// was not timed).
pub type ScalingRow = (String, CellSpec, Option<Scaling>);

/// Aggregate and efficiency of one cell, with intervals.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Scaling {
    pub alone: f64,
    pub alone_ci: Option<(f64, f64)>,
    pub workers: Vec<f64>,
    pub aggregate: f64,
    /// Sum of the workers' interval ends (conservative).
    pub aggregate_ci: Option<(f64, f64)>,
    pub efficiency: f64,
    pub efficiency_ci: Option<(f64, f64)>,
}

/// Rates are in the cell's unit (bytes/s with a size, ops/s without).
pub fn scaling(alone: &Measurement, together: &[Measurement]) -> Option<Scaling> {
    let a = alone.rate()?;
    let rates: Vec<f64> = together.iter().map(|m| m.rate()).collect::<Option<_>>()?;
    let n = rates.len() as f64;
    let aggregate: f64 = rates.iter().sum();
    let cis: Option<Vec<(f64, f64)>> = together.iter().map(|m| m.rate_ci()).collect();
    let aggregate_ci = cis.map(|c| {
        (
            c.iter().map(|x| x.0).sum::<f64>(),
            c.iter().map(|x| x.1).sum::<f64>(),
        )
    });
    let alone_ci = alone.rate_ci();
    let efficiency_ci = match (aggregate_ci, alone_ci) {
        (Some((lo, hi)), Some((alo, ahi))) => Some((lo / (n * ahi), hi / (n * alo))),
        _ => None,
    };
    Some(Scaling {
        alone: a,
        alone_ci,
        workers: rates,
        aggregate,
        aggregate_ci,
        efficiency: aggregate / (n * a),
        efficiency_ci,
    })
}

/// The table printed after a multi run: one row per implementation and cell.
pub fn scaling_table(rows: &[ScalingRow], n: usize) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    let mut head = vec![
        "implementation".to_string(),
        "cell".to_string(),
        "alone".to_string(),
    ];
    head.extend((1..=n).map(|i| format!("worker {i}")));
    head.extend([
        format!("aggregate ({n} workers)"),
        "efficiency (95% CI)".to_string(),
    ]);
    t.set_header(head);
    for (name, cell, s) in rows {
        let unit = |v: f64| match cell.bytes {
            Some(_) => format!("{:.1} MB/s", v / 1e6),
            None => format!("{v:.1}/s"),
        };
        let label = format!(
            "{} {}{}",
            cell.primitive,
            cell.op,
            cell.bytes.map(|b| format!(" {b} B")).unwrap_or_default()
        );
        let mut row = vec![name.clone(), label];
        match s {
            None => {
                row.push("not measured".into());
                row.extend((0..n + 2).map(|_| "-".to_string()));
            }
            Some(s) => {
                row.push(unit(s.alone));
                row.extend(s.workers.iter().map(|&w| unit(w)));
                row.push(match s.aggregate_ci {
                    Some((lo, hi)) => format!(
                        "{} ({}–{})",
                        unit(s.aggregate),
                        unit(lo).trim_end_matches(" MB/s"),
                        unit(hi)
                    ),
                    None => unit(s.aggregate),
                });
                let mut e = format!("{:.1}%", 100.0 * s.efficiency);
                if let Some((lo, hi)) = s.efficiency_ci {
                    let _ = write!(e, " ({:.1}–{:.1}%)", 100.0 * lo, 100.0 * hi);
                }
                row.push(e);
            }
        }
        t.add_row(row);
    }
    format!(
        "scaling: each cell alone on one CPU, then on {n} workers pinned to distinct CPUs at once; efficiency = aggregate / ({n} × alone)\n{t}\n"
    )
}

/// The whole `run --multi N`: start a team per variant, measure every cell alone then together,
/// store everything as it comes.
pub(crate) fn run(
    plan: &Plan,
    n: usize,
    meta: &RunMeta,
    cancel: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Outcome> {
    use cryptospeed_model::RunStatus;
    let cpus = cpus_for(n)?;
    let config = &plan.config;
    // Every worker samples for the whole --max-time, so the N windows overlap end to end.
    debug_assert!(config.fixed_duration);
    // Workers start before the run is stored: an implementation that cannot start is an error
    // and leaves nothing behind.
    let mut teams = Vec::new();
    for choice in &plan.variants {
        teams.push(Team::start(choice, &cpus, cancel)?);
    }
    let mut recorder = meta.begin(config)?;
    let ids: Vec<Vec<usize>> = teams
        .iter()
        .map(|t| t.variants.iter().map(|v| recorder.variant(v)).collect())
        .collect();
    progress.note(&format!(
        "--multi {n}: workers pinned to CPUs {}; each cell runs {} s alone, then {} s on all {n} at once",
        cpus.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(","),
        config.max_time_s,
        config.max_time_s
    ));
    let mut status = RunStatus::Complete;
    let mut failed_cells = 0;
    let mut rows = Vec::new();
    'cells: for cell in &plan.cells {
        for (team, ids) in teams.iter_mut().zip(&ids) {
            progress.note(&format!(
                "{} {} {}{}",
                team.choice.display(),
                cell.primitive,
                cell.op,
                cell.bytes.map(|b| format!(" {b} B")).unwrap_or_default()
            ));
            let (alone, together) = match team.measure(cell, config, deadline(config), cancel) {
                Ok(r) => r,
                Err(WorkerError::Interrupted) => {
                    status = RunStatus::Interrupted;
                    break 'cells;
                }
                Err(e) => {
                    // A crashed or hung worker ends the run: a team with a fresh member would not
                    // be measuring the same thing. Everything finished so far is stored.
                    progress.note(&format!(
                        "{} {}: {e}; stopping the multi run",
                        team.choice.display(),
                        cell.primitive
                    ));
                    status = RunStatus::Failed;
                    failed_cells += 1;
                    break 'cells;
                }
            };
            if alone.status == Status::Failed {
                failed_cells += 1;
            }
            rows.push((
                team.variant.label.clone(),
                cell.clone(),
                scaling(&alone, &together),
            ));
            recorder.add(ids[0], alone);
            for (m, id) in together.into_iter().zip(&ids[1..]) {
                recorder.add(*id, m);
            }
            relay(&recorder, progress);
        }
    }
    for t in teams {
        t.quit();
    }
    Ok(conclude(
        recorder,
        status,
        None,
        failed_cells,
        rows,
        progress,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptospeed_model::{Op, Summary};

    fn m(ns: f64) -> Measurement {
        let mut m = Measurement::not_timed(
            CellSpec {
                primitive: "md5".into(),
                op: Op::Hash,
                bytes: Some(1000),
                misalign: 0,
            },
            Status::Ok,
            "",
        );
        m.reason = None;
        m.summary = Some(Summary {
            n: 20,
            median: ns,
            ci_lo: ns * 0.99,
            ci_hi: ns * 1.01,
            mad: 0.0,
            outliers: 0,
            min: ns,
            max: ns,
        });
        m
    }

    #[test]
    fn perfect_scaling_is_one_and_half_speed_is_a_half() {
        // 1000 B in 1000 ns = 1e9 B/s alone.
        let s = scaling(&m(1000.0), &[m(1000.0), m(1000.0)]).unwrap();
        assert!((s.aggregate - 2e9).abs() < 1.0);
        assert!((s.efficiency - 1.0).abs() < 1e-12);
        let (lo, hi) = s.efficiency_ci.unwrap();
        assert!(lo < 1.0 && hi > 1.0);
        let s = scaling(&m(1000.0), &[m(2000.0), m(2000.0)]).unwrap();
        assert!((s.efficiency - 0.5).abs() < 1e-12);
    }

    #[test]
    fn more_workers_than_cpus_is_refused() {
        let n = allowed_cpus().len();
        assert!(n >= 1);
        let err = cpus_for(n + 1).unwrap_err().to_string();
        assert!(err.contains("needs"), "{err}");
        assert_eq!(cpus_for(n).unwrap().len(), n);
        assert!(cpus_for(0).is_err());
    }
}
