//! CSV: the JSON format's records as rows (one per cell, the declared deviation last), for
//! spreadsheets; fields holding a comma or a quote are quoted.

use super::json::records;
use super::Options;
use crate::registry::OutputFormat;
use cryptospeed_model::RunRecord;

pub const FORMAT: OutputFormat<RunRecord, Options> = OutputFormat {
    name: "csv",
    aliases: &[],
    write,
};

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn write(record: &RunRecord, options: &Options) -> String {
    let mut out = String::from("run,impl,variant,primitive,op,bytes,unit,median,ci95_lo,ci95_hi,n,cycles_per_byte,cycles_per_op,status,reason,deviation\n");
    let num = |x: Option<f64>| x.map(|v| format!("{v}")).unwrap_or_default();
    for r in records(record, &options.footnotes) {
        let fields = [
            r.run.to_string(),
            csv_field(r.implementation),
            csv_field(r.variant),
            csv_field(r.primitive),
            r.op.to_string(),
            r.bytes.map(|b| b.to_string()).unwrap_or_default(),
            r.unit.to_string(),
            num(r.median),
            num(r.ci95.map(|c| c[0])),
            num(r.ci95.map(|c| c[1])),
            r.n.map(|n| n.to_string()).unwrap_or_default(),
            num(r.cycles_per_byte),
            num(r.cycles_per_op),
            r.status.to_string(),
            csv_field(r.reason.unwrap_or("")),
            csv_field(r.deviation.unwrap_or("")),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn csv_has_a_header_and_a_row_per_cell() {
        let text = super::write(&super::super::fixture::record(), &Default::default());
        assert_eq!(text.lines().count(), 7);
        assert!(text
            .lines()
            .nth(2)
            .unwrap()
            .starts_with("7,openssl,openssl-3.0.19,md5,hash,16,bytes/s,100000000,"));
    }
}
