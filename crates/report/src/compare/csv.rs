//! Long-format CSV, one line per cell and side, every figure at full precision, for
//! spreadsheets and plotting scripts; the side's declared deviation for the cell comes last.

use super::View;
use crate::registry::OutputFormat;
use cryptospeed_compare::Comparison;

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(|v| format!("{v}")).unwrap_or_default()
}

pub const FORMAT: OutputFormat<Comparison, View> = OutputFormat {
    name: "csv",
    aliases: &[],
    write,
};

pub fn write(c: &Comparison, view: &View) -> String {
    let mut out = String::from("primitive,op,bytes,side,baseline,rate,unit,basis,ci_lo,ci_hi,runs,samples,ratio,percent,ratio_ci_lo,ratio_ci_hi,p,significant,detectable,verdict,deviation\n");
    for r in &c.rows {
        for (i, side) in c.sides.iter().enumerate() {
            let v = r.values[i].as_ref();
            let vs = r.versus[i].as_ref();
            let ratio = if i == c.baseline {
                v.map(|_| 1.0)
            } else {
                vs.map(|x| x.ratio)
            };
            let cols = [
                field(&r.key.primitive),
                r.key.op.to_string(),
                r.key.bytes.map(|b| b.to_string()).unwrap_or_default(),
                field(&side.name),
                (i == c.baseline).to_string(),
                opt(v.map(|v| v.rate)),
                v.map(|v| v.unit.to_string())
                    .unwrap_or_else(|| "n/a".into()),
                v.map(|v| format!("{:?}", v.basis).to_lowercase())
                    .unwrap_or_default(),
                opt(v.and_then(|v| v.ci).map(|c| c.0)),
                opt(v.and_then(|v| v.ci).map(|c| c.1)),
                v.map(|v| v.runs.to_string()).unwrap_or_default(),
                v.map(|v| v.samples.to_string()).unwrap_or_default(),
                opt(ratio),
                opt(ratio.map(|r| r * 100.0 - 100.0)),
                opt(vs.and_then(|x| x.ratio_ci).map(|c| c.0)),
                opt(vs.and_then(|x| x.ratio_ci).map(|c| c.1)),
                opt(vs.and_then(|x| x.p)),
                vs.and_then(|x| x.significant)
                    .map(|s| s.to_string())
                    .unwrap_or_default(),
                opt(vs.and_then(|x| x.detectable)),
                vs.map(|x| format!("{:?}", x.verdict).to_lowercase())
                    .unwrap_or_default(),
                field(
                    view.footnotes
                        .text(&side.name, &r.key.primitive, r.key.op)
                        .unwrap_or(""),
                ),
            ];
            out.push_str(&cols.join(","));
            out.push('\n');
        }
    }
    for (i, side) in c.sides.iter().enumerate() {
        out.push_str(&format!(
            "geomean,,,{},{},,,,,,,,{},{},,,,,,,\n",
            field(&side.name),
            i == c.baseline,
            opt(side.geomean),
            opt(side.geomean.map(|g| g * 100.0 - 100.0))
        ));
    }
    out
}
