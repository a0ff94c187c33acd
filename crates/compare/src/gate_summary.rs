//! What the gate tells people: a short markdown summary fit for a pull-request comment
//! (regressions, improvements, undecided cells and why, the rest counted) and the JSON the
//! same report serialises to (`gate --json`).

use super::{GateCell, GateConfig, GateOutcome, GateVerdict};
use serde::Serialize;
use std::fmt::Write;

/// A gate's whole report.
#[derive(Debug, Clone, Serialize)]
pub struct GateReport {
    /// The two sides as the user named them, and the variant labels they ran as.
    pub base: String,
    pub new: String,
    pub config: GateConfig,
    pub outcome: GateOutcome,
    /// The stored runs that measured it (the confirming run last, when there was one).
    pub runs: Vec<i64>,
    pub passes: usize,
    pub confirmed_cells: usize,
    /// Wall-clock seconds of the whole gate.
    pub seconds: f64,
    pub cells: Vec<GateCell>,
}

fn pct(ratio: f64) -> String {
    format!("{:+.1}%", (ratio - 1.0) * 100.0)
}

fn size(c: &GateCell) -> String {
    c.key.bytes.map_or("-".into(), |b| b.to_string())
}

fn interval(c: &GateCell) -> String {
    c.ci90
        .map_or("-".into(), |(lo, hi)| format!("{} to {}", pct(lo), pct(hi)))
}

impl GateReport {
    fn count(&self, v: GateVerdict) -> usize {
        self.cells.iter().filter(|c| c.verdict == v).count()
    }

    fn headline(&self) -> String {
        let word = match self.outcome {
            GateOutcome::Pass => "PASS",
            GateOutcome::Regression => "FAIL: regression",
            GateOutcome::Undecided => "UNDECIDED",
        };
        format!(
            "### cryptospeed gate: {word}\n\n`{}` → `{}`, threshold {:.1}%, false discovery rate {:.0}%: {} cells, {} regressions, {} improvements, {} undecided; {} pass(es), {} cell(s) re-measured to confirm; runs {}; {:.0} s.\n",
            self.base,
            self.new,
            self.config.threshold * 100.0,
            self.config.fdr * 100.0,
            self.cells.len(),
            self.count(GateVerdict::Regression) + self.count(GateVerdict::Flagged),
            self.count(GateVerdict::Improvement),
            self.count(GateVerdict::Undecided),
            self.passes,
            self.confirmed_cells,
            self.runs.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", "),
            self.seconds
        )
    }

    /// The pull-request comment: headline, then a table per kind that needs reading.
    pub fn markdown(&self) -> String {
        let mut out = self.headline();
        let of = |vs: &[GateVerdict]| -> Vec<&GateCell> {
            self.cells
                .iter()
                .filter(|c| vs.contains(&c.verdict))
                .collect()
        };
        let regressions = of(&[GateVerdict::Regression, GateVerdict::Flagged]);
        if !regressions.is_empty() {
            let _ = write!(
                out,
                "\n**Regressions** (slower by more than {:.1}%)\n\n| cell | size | change | 90% interval | confirming run |\n| --- | --- | --- | --- | --- |\n",
                self.config.threshold * 100.0
            );
            for c in regressions {
                let again = c.confirmation.map_or("not re-measured".into(), |(r, p)| {
                    format!("{} (p={p:.3})", pct(r))
                });
                let change = c.ratio.map_or("-".into(), pct);
                let _ = writeln!(
                    out,
                    "| {} | {} | {change} | {} | {again} |",
                    c.label,
                    size(c),
                    interval(c)
                );
            }
        }
        self.table(
            &mut out,
            "Improvements",
            &of(&[GateVerdict::Improvement]),
            false,
        );
        self.table(&mut out, "Undecided", &of(&[GateVerdict::Undecided]), true);
        let cleared: Vec<&GateCell> = self
            .cells
            .iter()
            .filter(|c| c.confirmation.is_some() && c.verdict != GateVerdict::Regression)
            .collect();
        self.table(&mut out, "Flagged, not confirmed", &cleared, true);
        let _ = write!(
            out,
            "\n{} cells show no change larger than {:.1}%; {} more are not slower by that much.\n",
            self.count(GateVerdict::Same),
            self.config.threshold * 100.0,
            self.count(GateVerdict::NotSlower)
        );
        out
    }

    fn table(&self, out: &mut String, title: &str, cells: &[&GateCell], why: bool) {
        if cells.is_empty() {
            return;
        }
        let extra = if why { " why |" } else { "" };
        let rule = if why { " --- |" } else { "" };
        let _ = write!(
            out,
            "\n**{title}**\n\n| cell | size | change | 90% interval |{extra}\n| --- | --- | --- | --- |{rule}\n"
        );
        for c in cells {
            let change = c.ratio.map_or("-".into(), pct);
            let reason = match why {
                true => format!(" {} |", c.why.as_deref().unwrap_or("")),
                false => String::new(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {change} | {} |{reason}",
                c.label,
                size(c),
                interval(c)
            );
        }
    }
}
