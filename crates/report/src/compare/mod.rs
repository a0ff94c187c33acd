//! Writers for a [`Comparison`] (`compare --format`): aligned text, Markdown, CSV and JSON.
//! Each format is one file with its `FORMAT` entry and one line in [`FORMATS`]; the grids and
//! legend below are what the text and Markdown writers share (their markup is in
//! [`crate::markup`]). (Moved here from
//! cryptospeed-compare, which now only computes the comparison.)

mod csv;
mod json;
mod markdown;
mod text;

use crate::markup::Grid;
use crate::registry::{self, OutputFormat};
use cryptospeed_compare::{Comparison, Row, SideSummary, SideValue, Verdict, Versus};

/// What the candidate columns show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Candidate rate / baseline rate: `1.00x 1.28x 0.82x`.
    #[default]
    Ratio,
    /// `new/old*100-100`, as in patch reviews.
    Percent,
    /// The rates themselves (1000s of bytes/s as openssl prints them, or ops/s).
    Raw,
}

/// How the table is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// Rows are cells (primitive, size), columns are sides.
    #[default]
    Sides,
    /// Rows are primitives, columns are sizes; one table per candidate against the baseline
    /// (the `type 16 bytes 64 bytes …` shape of published percent tables).
    Sizes,
}

#[derive(Debug, Clone, Default)]
pub struct View {
    pub mode: Mode,
    pub layout: Layout,
    /// Show confidence intervals and p-values next to the figures.
    pub detail: bool,
    /// How the sides' rates were normalised (see [`Normalize`]).
    pub normalize: Normalize,
    /// The declared deviations of the shown cells, by side name (crate::footnotes).
    pub footnotes: crate::Footnotes,
}

/// Rates made comparable across machines of different clocks. Each run's rates are divided by its
/// machine's TSC frequency (the nominal clock: frequency-free only where the core runs at it, and
/// the only clock these machines let us read), so ratios compare architectures, not clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Normalize {
    #[default]
    None,
    /// Rates per GHz: bytes (or operations) per second per GHz of TSC.
    PerGhz,
    /// Raw figures as TSC cycles per byte (per operation for public key); lower is faster.
    Cycles,
}

/// Every format `compare --format` accepts.
pub const FORMATS: &[OutputFormat<Comparison, View>] =
    &[text::FORMAT, markdown::FORMAT, csv::FORMAT, json::FORMAT];

pub fn format_names() -> Vec<&'static str> {
    FORMATS.iter().map(|f| f.name).collect()
}

/// `c` as the format called `format` (or an alias); `None` for an unknown name.
pub fn render(c: &Comparison, format: &str, view: &View) -> Option<String> {
    registry::render(FORMATS, format, c, view)
}

/// A side's own figure. Under normalisation the rate is per GHz of TSC (bytes or operations per
/// 10⁹ TSC cycles).
pub(crate) fn raw(v: &SideValue, view: &View) -> String {
    match (view.normalize, v.unit == "bytes/s") {
        (Normalize::Cycles, true) => format!("{:.3} c/B", 1e9 / v.rate),
        (Normalize::Cycles, false) => format!("{:.0} c/op", 1e9 / v.rate),
        (Normalize::PerGhz, true) => format!("{:.2}k/GHz", v.rate / 1e3),
        (Normalize::PerGhz, false) => format!("{:.1}/s/GHz", v.rate),
        (Normalize::None, true) => format!("{:.2}k", v.rate / 1e3),
        (Normalize::None, false) => format!("{:.1}/s", v.rate),
    }
}

fn rel(ci: (f64, f64), center: f64) -> f64 {
    (ci.1 - ci.0) / 2.0 / center * 100.0
}

/// The text of one candidate cell.
pub(crate) fn candidate(value: Option<&SideValue>, vs: Option<&Versus>, view: &View) -> String {
    let (Some(v), Some(vs)) = (value, vs) else {
        return "n/a".into();
    };
    let mut s = String::new();
    match vs.verdict {
        Verdict::Same => s.push_str("~ "),
        Verdict::Unknown if vs.significant.is_some() => s.push_str("? "),
        _ => {}
    }
    match view.mode {
        Mode::Ratio => s.push_str(&format!("{:.2}x", vs.ratio)),
        Mode::Percent => s.push_str(&format!("{:+.2}%", (vs.ratio - 1.0) * 100.0)),
        Mode::Raw => s.push_str(&raw(v, view)),
    }
    if view.detail {
        match (view.mode, vs.ratio_ci, v.ci, v.spread) {
            (Mode::Raw, _, Some(ci), _) => s.push_str(&interval_text(v, ci)),
            (_, Some(ci), _, _) => s.push_str(&format!(" ±{:.1}%", rel(ci, vs.ratio))),
            (_, _, _, Some((lo, hi))) => {
                s.push_str(&format!(" [{:.1}%]", (hi - lo) / v.rate * 100.0))
            }
            _ => {}
        }
        if let Some(p) = vs.p {
            s.push_str(&format!(" p={p:.3}"));
        }
        if let Some(d) = vs.detectable {
            s.push_str(&format!(" sees≥{}", percent(d)));
        }
    }
    s
}

/// A detectable change as a percentage, `∞` where there was no spread to judge by.
fn percent(fraction: f64) -> String {
    if fraction.is_finite() {
        format!("{:.1}%", fraction * 100.0)
    } else {
        "∞".into()
    }
}

/// ` ±x%`, and for a figure from bouts ` ±x% (within ±y%)`: the interval between bouts beside
/// the one the pooled samples alone would claim.
fn interval_text(v: &SideValue, ci: (f64, f64)) -> String {
    let mut s = format!(" ±{:.1}%", rel(ci, v.rate));
    if let (cryptospeed_compare::Basis::Bouts, Some(w)) = (v.basis, v.within_ci) {
        s.push_str(&format!(" (within ±{:.1}%)", rel(w, v.rate)));
    }
    s
}

/// What each side's figures rest on, from the rows it has.
fn bases(c: &Comparison) -> Vec<String> {
    c.sides
        .iter()
        .enumerate()
        .map(|(i, side)| {
            let mut names: Vec<&str> = c
                .rows
                .iter()
                .filter_map(|r| r.values[i].as_ref())
                .map(|v| match v.basis {
                    cryptospeed_compare::Basis::Bouts => {
                        "bouts (worker processes spread over the run)"
                    }
                    cryptospeed_compare::Basis::Samples => {
                        "pooled samples of one process (runs from before bouts)"
                    }
                    cryptospeed_compare::Basis::Averaged => "single figures (imported)",
                })
                .collect();
            names.sort_unstable();
            names.dedup();
            format!("basis {}: {}", side.name, names.join("; "))
        })
        .collect()
}

/// The text of the baseline cell.
pub(crate) fn baseline(value: Option<&SideValue>, view: &View) -> String {
    let Some(v) = value else {
        return "n/a".into();
    };
    let mut s = match view.mode {
        Mode::Ratio => "1.00x".to_string(),
        Mode::Percent => "+0.00%".to_string(),
        Mode::Raw => raw(v, view),
    };
    if view.detail {
        if view.mode != Mode::Ratio && view.mode != Mode::Percent {
            if let Some(ci) = v.ci {
                s.push_str(&interval_text(v, ci));
            }
        } else {
            s = format!("{} ({})", s, raw(v, view));
        }
    }
    s
}

fn geomean_text(g: Option<f64>, view: &View) -> String {
    match (g, view.mode) {
        (None, _) => "n/a".into(),
        (Some(g), Mode::Percent) => format!("{:+.2}%", (g - 1.0) * 100.0),
        (Some(g), _) => format!("{g:.2}x"),
    }
}

/// The footnote marker of side `i`'s figure in row `r` (none where the side has no figure).
fn mark(c: &Comparison, r: &Row, i: usize, view: &View) -> String {
    match r.values[i] {
        Some(_) => view
            .footnotes
            .aligned_marker(&c.sides[i].name, &r.key.primitive, r.key.op),
        None => String::new(),
    }
}

fn size(bytes: Option<u64>) -> String {
    bytes.map(|b| b.to_string()).unwrap_or_default()
}

/// The explanation printed above the tables.
pub(crate) fn legend(c: &Comparison, view: &View) -> Vec<String> {
    let mut lines = Vec::new();
    for (i, s) in c.sides.iter().enumerate() {
        let role = if i == c.baseline {
            "baseline"
        } else {
            "candidate"
        };
        lines.push(format!("{role} {}: {}", s.name, s.description));
    }
    lines.push(match view.mode {
        Mode::Ratio => "figures: rate / baseline rate (above 1.00x is faster)".to_string(),
        Mode::Percent => "figures: new/old*100-100 of the rates (positive is faster)".to_string(),
        Mode::Raw => match view.normalize {
            Normalize::Cycles => {
                "figures: TSC cycles per byte (c/B) or per operation (c/op); lower is faster"
                    .to_string()
            }
            Normalize::PerGhz => {
                "figures: rates per GHz of TSC, in 1000s of bytes/s (k) or operations/s".to_string()
            }
            Normalize::None => {
                "figures: rates, in 1000s of bytes/s (k, as openssl speed prints) or operations/s"
                    .to_string()
            }
        },
    });
    if view.normalize != Normalize::None {
        lines.push("normalised: each run's rates divided by its machine's TSC frequency (nominal clock; a core that turbos above it looks faster per GHz)".to_string());
    }
    lines.extend(bases(c));
    lines.push(format!(
        "~ : no significant difference (p >= {}: paired t on the bouts of one run; across runs, Welch t on bouts plus the run-to-run noise the store has seen for the cell on this machine; Mann-Whitney U on pooled samples or on several runs' figures; or a change under {}%), and a change of {}% would have been seen (80% power); ? : no significant difference, but a {}% change could have gone unseen (can't tell); cells with none of ~ ? p had nothing to test{}",
        c.alpha,
        c.min_effect * 100.0,
        c.resolution * 100.0,
        c.resolution * 100.0,
        if view.detail { "; ± : 95% CI; [x%]: spread of averaged runs; sees≥x%: the smallest change this cell would have found 80% of the time" } else { "" }
    ));
    lines.extend(across_runs(c));
    lines
}

/// What the cells compared run against run hold of the drift between runs (none when no cell
/// was: paired sides, or several runs pooled per side).
fn across_runs(c: &Comparison) -> Vec<String> {
    let a = &c.across_runs;
    let mut lines = Vec::new();
    if let Some(sd) = a.drift_sd {
        lines.push(format!(
            "across runs ±{:.1}%: the drift between runs on this machine (95%, root mean square over {} cells, learnt from the store's runs of it, or the prior drift where it holds too few) is in these cells' intervals; a run's own ± covers its own processes only",
            196.0 * sd,
            a.with_drift
        ));
    }
    if a.without_drift > 0 {
        lines.push(format!(
            "across runs, {} cells without the drift between runs (--within-runs-only, or cells no stored run of this machine measured in bouts): their intervals hold each run's own spread only, and call the same build different more often than the {} level",
            a.without_drift, c.alpha
        ));
    }
    lines
}

pub(crate) fn grids(c: &Comparison, view: &View) -> Vec<Grid> {
    match view.layout {
        Layout::Sides => vec![sides_grid(c, view)],
        Layout::Sizes => (0..c.sides.len())
            .filter(|&i| i != c.baseline)
            .flat_map(|i| sizes_grids(c, view, i))
            .collect(),
    }
}

fn sides_grid(c: &Comparison, view: &View) -> Grid {
    let mut header = vec!["algorithm".to_string(), "size".to_string()];
    header.extend(c.sides.iter().map(|s| s.name.clone()));
    let mut rows: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|r: &Row| {
            let mut line = vec![r.label.clone(), size(r.key.bytes)];
            for i in 0..c.sides.len() {
                let figure = if i == c.baseline {
                    baseline(r.values[i].as_ref(), view)
                } else {
                    candidate(r.values[i].as_ref(), r.versus[i].as_ref(), view)
                };
                line.push(figure + &mark(c, r, i, view));
            }
            line
        })
        .collect();
    if view.mode != Mode::Raw {
        let mut g = vec!["geomean".to_string(), String::new()];
        let blank = |s: &SideSummary| view.footnotes.blank(&s.name);
        g.extend(
            c.sides
                .iter()
                .map(|s| geomean_text(s.geomean, view) + &blank(s)),
        );
        rows.push(g);
    }
    Grid {
        title: format!("against {}", c.sides[c.baseline].name),
        header,
        rows,
    }
}

fn sizes_grids(c: &Comparison, view: &View, cand: usize) -> Vec<Grid> {
    let mut sizes: Vec<u64> = c.rows.iter().filter_map(|r| r.key.bytes).collect();
    sizes.sort();
    sizes.dedup();
    let title = format!(
        "{} against {}",
        c.sides[cand].name, c.sides[c.baseline].name
    );
    let mut out = Vec::new();
    if !sizes.is_empty() {
        let mut header = vec!["type".to_string()];
        header.extend(sizes.iter().map(|s| format!("{s} bytes")));
        let mut labels: Vec<(usize, String)> = Vec::new();
        for r in c.rows.iter().filter(|r| r.key.bytes.is_some()) {
            if !labels.iter().any(|(_, l)| *l == r.label) {
                labels.push((r.key.order, r.label.clone()));
            }
        }
        let rows = labels
            .iter()
            .map(|(_, label)| {
                let mut line = vec![label.clone()];
                for s in &sizes {
                    let row = c
                        .rows
                        .iter()
                        .find(|r| r.label == *label && r.key.bytes == Some(*s));
                    line.push(match row {
                        Some(r) => {
                            candidate(r.values[cand].as_ref(), r.versus[cand].as_ref(), view)
                                + &mark(c, r, cand, view)
                        }
                        None => "n/a".into(),
                    });
                }
                line
            })
            .collect();
        out.push(Grid {
            title: title.clone(),
            header,
            rows,
        });
    }
    let pkey: Vec<&Row> = c.rows.iter().filter(|r| r.key.bytes.is_none()).collect();
    if !pkey.is_empty() {
        let rows = pkey
            .iter()
            .map(|r| {
                vec![
                    r.label.clone(),
                    candidate(r.values[cand].as_ref(), r.versus[cand].as_ref(), view)
                        + &mark(c, r, cand, view),
                ]
            })
            .collect();
        out.push(Grid {
            title: format!("{title}, public key"),
            header: vec!["algorithm".into(), c.sides[cand].name.clone()],
            rows,
        });
    }
    out
}

#[cfg(test)]
pub(crate) mod fixture {
    use cryptospeed_compare::{compare, Comparison, Filter, SideInput};

    /// The run fixture against itself made 25% faster: md5 at two sizes and three public-key
    /// rows, every cell with a ratio.
    pub fn comparison() -> Comparison {
        let base = crate::run::fixture::record();
        let mut fast = base.clone();
        for m in &mut fast.measurements {
            if let Some(s) = &mut m.measurement.summary {
                for v in [&mut s.median, &mut s.ci_lo, &mut s.ci_hi] {
                    *v *= 0.8;
                }
            }
        }
        let side = |name: &str, rec| {
            let mut s = SideInput {
                name: name.into(),
                description: format!("the {name} fixture"),
                ..Default::default()
            };
            s.add_run(rec, None);
            s
        };
        let sides = [side("base", &base), side("fast", &fast)];
        compare(&sides, 0, 0.05, 0.01, &Filter::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every format in every mode and layout, with and without detail, as one snapshot (taken
    /// with the writers as they were before the shared markup).
    #[test]
    fn every_format_mode_and_layout() {
        let c = fixture::comparison();
        let mut all = String::new();
        for f in FORMATS {
            for mode in [Mode::Ratio, Mode::Percent, Mode::Raw] {
                for layout in [Layout::Sides, Layout::Sizes] {
                    for detail in [false, true] {
                        // JSON and CSV carry every figure whatever the view but the mode.
                        let tabular = f.name == "text" || f.name == "markdown";
                        if !tabular && (detail || layout == Layout::Sizes) {
                            continue;
                        }
                        let view = View {
                            mode,
                            layout,
                            detail,
                            normalize: Normalize::None,
                            footnotes: crate::footnotes::tests::sample(["base", "fast"]),
                        };
                        all += &format!("==== {} {mode:?} {layout:?} {detail}\n", f.name);
                        all += &render(&c, f.name, &view).unwrap();
                    }
                }
            }
        }
        insta::assert_snapshot!("compare_every_format", all);
    }
}
