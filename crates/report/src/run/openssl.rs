//! The table `openssl speed` prints (OpenSSL 3.0 layout): the version header, the symmetric table
//! in 1000s of bytes per second with the `k` suffix, and the sign/verify and op tables for public
//! key. Optional columns add the confidence interval and TSC cycles. The layout has no room for
//! footnote marks: a variant's declared deviations follow its tables as `#` lines, cell by cell.

use super::{by_variant, find, is_symmetric, ops, primitives_in, sizes, symmetric_op, Options};
use crate::registry::OutputFormat;
use cryptospeed_catalog::{Primitive, SpeedRow};
use cryptospeed_model::{Measurement, Op, RunRecord, Status, VariantMeasurement};
use std::fmt::Write;

fn speed_name(row: SpeedRow, id: &str) -> String {
    match row {
        SpeedRow::Symmetric { name, .. } => name.to_string(),
        _ => id.to_string(),
    }
}

fn ci_pct(m: &Measurement) -> String {
    // A single figure (an imported one) has no interval to show.
    match m.summary.filter(|s| s.n > 1 && m.honest_interval()) {
        Some(s) => format!("±{:.1}%", s.rel_ci() * 100.0),
        None => "".into(),
    }
}

pub const FORMAT: OutputFormat<RunRecord, Options> = OutputFormat {
    name: "openssl",
    aliases: &["text"],
    write,
};

pub fn write(record: &RunRecord, options: &Options) -> String {
    let mut out = String::new();
    let tsc_ghz = record.machine.tsc_hz / 1e9;
    for (label, ms) in by_variant(record) {
        let variant = record.variants.iter().find(|v| v.label == label);
        let origin = match &record.run.imported {
            Some(src) => format!(
                "imported from {} lines {}-{}",
                src.file, src.first_line, src.last_line
            ),
            None => format!("measured by cryptospeed {}", record.run.tool_version),
        };
        let _ = writeln!(out, "version: {label} ({origin})");
        if let Some(v) = variant {
            for line in v.build_info.iter().filter(|l| !l.starts_with("provider ")) {
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(out, "CPUINFO: {}", v.capabilities);
        }
        let _ = writeln!(
            out,
            "CPU: {} (TSC {:.2} GHz)",
            record.machine.cpu_model, tsc_ghz
        );
        let prims = primitives_in(&ms);
        symmetric_table(&mut out, &ms, &prims, options, tsc_ghz);
        pkey_tables(&mut out, &ms, &prims, options);
        if options.percentiles {
            out.push_str(&percentile_table(&ms, tsc_ghz));
        }
        deviations(&mut out, options, &ms[0].implementation);
        partial_note(&mut out, &ms);
        out.push('\n');
    }
    out.trim_end().to_string() + "\n"
}

/// Says which figures are a cut-short cell's bouts so far (status partial).
fn partial_note(out: &mut String, ms: &[&VariantMeasurement]) {
    let partial: Vec<String> = ms
        .iter()
        .map(|vm| &vm.measurement)
        .filter(|m| m.status == cryptospeed_model::Status::Partial)
        .map(|m| {
            let size = m.cell.bytes.map(|b| format!("@{b}")).unwrap_or_default();
            format!("{}{size} ({} bouts)", m.cell.primitive, m.bout_count())
        })
        .collect();
    if !partial.is_empty() {
        let _ = writeln!(
            out,
            "# partial (the run stopped before these cells finished; figures from their bouts so far): {}",
            partial.join(", ")
        );
    }
}

/// The bulk primitives' table (1000s of bytes per second at each size, `openssl speed`'s
/// layout), with TSC cycles per byte below it when asked.
fn symmetric_table(
    out: &mut String,
    ms: &[&VariantMeasurement],
    prims: &[&'static Primitive],
    options: &Options,
    tsc_ghz: f64,
) {
    let sym: Vec<&Primitive> = prims.iter().copied().filter(|p| is_symmetric(p)).collect();
    let sizes = sizes(ms);
    if sym.is_empty() || sizes.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "The 'numbers' are in 1000s of bytes per second processed."
    );
    let mut header = String::from("type        ");
    for s in &sizes {
        let _ = write!(header, "{s:7} bytes");
        if options.ci {
            header.push_str("       ");
        }
    }
    let _ = writeln!(out, "{}", header.trim_end());
    let mut not_measured = Vec::new();
    for p in &sym {
        let op = symmetric_op(ms, p);
        let cells: Vec<_> = sizes.iter().map(|b| find(ms, p.id, op, Some(*b))).collect();
        if !cells.iter().flatten().any(|m| m.status.has_numbers()) {
            if let Some(m) = cells.iter().flatten().next() {
                let why = m.reason.as_deref().unwrap_or("");
                not_measured.push(format!("{}: {} ({why})", p.id, m.status.as_str()));
            }
            continue;
        }
        let _ = writeln!(out, "{}", rate_line(p, &cells, options).trim_end());
    }
    if options.cycles {
        cycles_table(out, ms, &sym, &sizes, tsc_ghz);
    }
    for n in not_measured {
        let _ = writeln!(out, "# not measured: {n}");
    }
}

/// One row of the symmetric table: the rate at each size (`k` above 10000), `n/a` where the
/// cell has no figures, each with its interval when asked.
fn rate_line(p: &Primitive, cells: &[Option<&Measurement>], options: &Options) -> String {
    let mut line = format!("{:<13}", speed_name(p.speed, p.id));
    for c in cells {
        let rated = c.filter(|m| m.status.has_numbers());
        match rated.and_then(|m| m.bytes_per_s().map(|r| (r, m))) {
            Some((r, m)) => {
                if r > 10000.0 {
                    let _ = write!(line, " {:11.2}k", r / 1e3);
                } else {
                    let _ = write!(line, " {r:11.2} ");
                }
                if options.ci {
                    let _ = write!(line, " {:>6}", ci_pct(m));
                }
            }
            None => {
                let _ = write!(line, " {:>11} ", "n/a");
                if options.ci {
                    line.push_str("       ");
                }
            }
        }
    }
    line
}

/// TSC reference cycles per byte of the symmetric rows, at each size.
fn cycles_table(
    out: &mut String,
    ms: &[&VariantMeasurement],
    sym: &[&Primitive],
    sizes: &[u64],
    tsc_ghz: f64,
) {
    let _ = writeln!(out, "TSC reference cycles per byte ({tsc_ghz:.2} GHz):");
    for p in sym {
        let op = symmetric_op(ms, p);
        let vals: Vec<Option<f64>> = sizes
            .iter()
            .map(|b| find(ms, p.id, op, Some(*b)).and_then(|m| m.cycles_per_byte()))
            .collect();
        if vals.iter().all(Option::is_none) {
            continue;
        }
        let mut line = format!("{:<13}", speed_name(p.speed, p.id));
        for v in vals {
            match v {
                Some(c) => write!(line, " {c:11.2} ").unwrap(),
                None => write!(line, " {:>11} ", "n/a").unwrap(),
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// Percentiles of TSC cycles per call of the public-key and KEM cells with samples.
fn percentile_table(ms: &[&VariantMeasurement], tsc_ghz: f64) -> String {
    use crate::percentiles::{table, CyclePercentiles, Row, Source};
    let rows: Vec<Row<'_>> = ms
        .iter()
        .filter_map(|vm| {
            let m = &vm.measurement;
            let label = format!("{} {}", m.cell.primitive, m.cell.op);
            CyclePercentiles::of(m).map(|c| Row {
                label,
                source: Source::Samples(c),
            })
        })
        .collect();
    table(&rows, tsc_ghz)
}

/// `# deviates: rsa-2048 sign, rsa-2048 verify: TEXT`, one line per text `implementation`
/// declares for the run's cells.
fn deviations(out: &mut String, options: &Options, implementation: &str) {
    let mine: Vec<_> = options
        .footnotes
        .list
        .iter()
        .filter(|d| d.column == implementation)
        .collect();
    let mut texts: Vec<&str> = Vec::new();
    for d in &mine {
        if !texts.contains(&d.text.as_str()) {
            texts.push(&d.text);
        }
    }
    for text in texts {
        let mut cells: Vec<String> = mine
            .iter()
            .filter(|d| d.text == text)
            .map(|d| format!("{} {}", d.primitive, d.op))
            .collect();
        cells.dedup();
        let _ = writeln!(out, "# deviates: {}: {text}", cells.join(", "));
    }
}

fn extra(
    ms: &[&cryptospeed_model::VariantMeasurement],
    id: &str,
    ops_list: &[Op],
    options: &Options,
) -> String {
    let mut s = String::new();
    for op in ops_list {
        if let Some(m) = find(ms, id, *op, None).filter(|m| m.status.has_numbers()) {
            if options.ci {
                let _ = write!(s, " {op} {}", ci_pct(m));
            }
            if options.cycles {
                if let Some(c) = m.cycles_per_op() {
                    let _ = write!(s, " {op} {c:.0} cycles");
                }
            }
        }
    }
    s
}

fn pkey_tables(
    out: &mut String,
    ms: &[&cryptospeed_model::VariantMeasurement],
    prims: &[&'static cryptospeed_catalog::Primitive],
    options: &Options,
) {
    let mut headed = [false; 8];
    let mut not_measured = Vec::new();
    let mut no_column = Vec::new();
    for p in prims.iter().filter(|p| !is_symmetric(p)) {
        if !p.ops().iter().any(|op| ops(ms, p.id, *op).is_some()) {
            let failed = ms
                .iter()
                .map(|m| &m.measurement)
                .find(|m| m.cell.primitive == p.id && m.status != Status::Ok);
            if let Some(m) = failed {
                let why = m.reason.as_deref().unwrap_or("");
                not_measured.push(format!("{}: {} ({why})", p.id, m.status.as_str()));
            }
            continue;
        }
        let (columns, from_bytes): (Vec<Op>, Vec<Op>) =
            p.ops().iter().partition(|op| !NO_COLUMN.contains(op));
        no_column.extend(
            from_bytes
                .iter()
                .filter_map(|op| no_column_line(ms, p.id, *op, options)),
        );
        if !columns.iter().any(|op| ops(ms, p.id, *op).is_some()) {
            continue;
        }
        let tail = extra(ms, p.id, &columns, options);
        let rate = |op| ops(ms, p.id, op);
        if let Some((slot, header, lines)) = pkey_row(p.speed, &rate) {
            if !headed[slot] {
                let _ = writeln!(out, "{header}");
                headed[slot] = true;
            }
            for (i, line) in lines.iter().enumerate() {
                let tail = if i == 0 { tail.as_str() } else { "" };
                let _ = writeln!(out, "{line}{tail}");
            }
        }
    }
    if !no_column.is_empty() {
        let _ = writeln!(out, "# from bytes (no column in openssl speed's tables):");
        for line in no_column {
            let _ = writeln!(out, "{line}");
        }
    }
    for n in not_measured {
        let _ = writeln!(out, "# not measured: {n}");
    }
}

/// Operations `openssl speed` has no column for (the from-bytes ones, a fresh key per verify):
/// printed in a section of their own rather than as a `0.000000s` in the keygen/encaps/decaps or
/// sign/verify columns of the operation they are not.
const NO_COLUMN: [Op; 5] = [
    Op::KeygenEncode,
    Op::EncapsParse,
    Op::DecapsParse,
    Op::VerifyParse,
    Op::VerifyFreshKey,
];

/// `#   ml-kem-768 encaps+parse 0.000021s  47619.0/s`, or None when the cell has no figure.
fn no_column_line(
    ms: &[&cryptospeed_model::VariantMeasurement],
    id: &str,
    op: Op,
    options: &Options,
) -> Option<String> {
    let r = ops(ms, id, op)?;
    let tail = extra(ms, id, &[op], options);
    Some(format!(
        "# {id:>27} {:<16} {:8.6}s {:9.1}/s{tail}",
        op.to_string(),
        1.0 / r,
        r
    ))
}

/// One public-key primitive's lines as `openssl speed` prints them, the table's header and the
/// table it belongs to (a slot: each header is printed once). `rate` gives an operation's rate.
fn pkey_row(
    speed: SpeedRow,
    rate: &dyn Fn(Op) -> Option<f64>,
) -> Option<(usize, String, Vec<String>)> {
    let inv = |x: Option<f64>| x.map(|v| 1.0 / v).unwrap_or(0.0);
    let or0 = |x: Option<f64>| x.unwrap_or(0.0);
    let (s, v, x) = (rate(Op::Sign), rate(Op::Verify), rate(Op::Derive));
    let sign_verify = |width: usize| format!("{:width$}sign    verify    sign/s verify/s", " ");
    Some(match speed {
        SpeedRow::Rsa { bits, .. } | SpeedRow::Dsa { bits, .. } => {
            let rsa = matches!(speed, SpeedRow::Rsa { .. });
            let family = if rsa { "rsa" } else { "dsa" };
            let mut lines = vec![format!(
                "{family} {bits:4} bits {:8.6}s {:8.6}s {:8.1} {:8.1}",
                inv(s),
                inv(v),
                or0(s),
                or0(v)
            )];
            let (e, d) = (rate(Op::Encrypt), rate(Op::Decrypt));
            if e.is_some() || d.is_some() {
                lines.push(format!(
                    "{family} {bits:4} bits encrypt {:8.6}s decrypt {:8.6}s {:8.1} {:8.1}",
                    inv(e),
                    inv(d),
                    or0(e),
                    or0(d)
                ));
            }
            (usize::from(!rsa), sign_verify(18), lines)
        }
        SpeedRow::Ecdsa { bits, name, .. } | SpeedRow::Eddsa { bits, name, .. } => {
            let ecdsa = matches!(speed, SpeedRow::Ecdsa { .. });
            let (slot, kind) = if ecdsa { (2, "ecdsa") } else { (4, "EdDSA") };
            let line = format!(
                "{bits:4} bits {kind} ({name}) {:8.4}s {:8.4}s {:8.1} {:8.1}",
                inv(s),
                inv(v),
                or0(s),
                or0(v)
            );
            (slot, sign_verify(30), vec![line])
        }
        SpeedRow::Ecdh { bits, name, .. } => {
            let line = format!("{bits:4} bits ecdh ({name}) {:8.4}s {:8.1}", inv(x), or0(x));
            (3, format!("{:30}op      op/s", " "), vec![line])
        }
        SpeedRow::Ffdh { bits, .. } => {
            let line = format!("{bits:4} bits ffdh {:8.4}s {:8.1}", inv(x), or0(x));
            (5, format!("{:23}op     op/s", " "), vec![line])
        }
        // OpenSSL 3.5's KEM and signature tables.
        SpeedRow::Kem { name } => {
            let ops = [rate(Op::Keygen), rate(Op::Encaps), rate(Op::Decaps)];
            let header = "keygen    encaps    decaps keygens/s  encaps/s  decaps/s";
            (6, format!("{:31}{header}", " "), vec![three_ops(name, ops)])
        }
        SpeedRow::Signature { name } => {
            let header = "keygen     signs    verify keygens/s    sign/s  verify/s";
            let line = three_ops(name, [rate(Op::Keygen), s, v]);
            (7, format!("{:31}{header}", " "), vec![line])
        }
        SpeedRow::Symmetric { .. } | SpeedRow::Handshake => return None,
    })
}

/// A line of 3.5's KEM or signature table: three times per operation, then three rates.
fn three_ops(name: &str, [a, b, c]: [Option<f64>; 3]) -> String {
    let inv = |x: Option<f64>| x.map(|v| 1.0 / v).unwrap_or(0.0);
    let or0 = |x: Option<f64>| x.unwrap_or(0.0);
    format!(
        "{name:>27} {:8.6}s {:8.6}s {:8.6}s {:9.1} {:9.1} {:9.1}",
        inv(a),
        inv(b),
        inv(c),
        or0(a),
        or0(b),
        or0(c)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_like_openssl_speed() {
        let text = write(&super::super::fixture::record(), &Options::default());
        assert!(text.contains("The 'numbers' are in 1000s of bytes per second processed.\n"));
        assert!(
            text.contains("type             16 bytes   8192 bytes\n"),
            "{text}"
        );
        // 16 bytes / 160 ns = 100,000,000 B/s = 100000.00k; 8192 B / 16384 ns = 500000.00k.
        assert!(
            text.contains("md5             100000.00k   500000.00k\n"),
            "{text}"
        );
        assert!(text.contains("                  sign    verify    sign/s verify/s\n"));
        assert!(
            text.contains("rsa 2048 bits 0.000250s 0.000016s   4000.0  62500.0\n"),
            "{text}"
        );
        assert!(
            text.contains(" 253 bits ecdh (X25519)   0.0000s  31250.0\n"),
            "{text}"
        );
        assert!(
            text.contains("# not measured: md2: unavailable (not built)"),
            "{text}"
        );
        assert!(text.contains("CPUINFO: OPENSSL_ia32cap=0xfffa3203078bffff:0x405fc6f1bf07ab"));
    }

    /// An ML-KEM-768 cell as an imported mlkem-native log gives it: from-bytes operations only.
    fn with_kem_ops(ops_ns: &[(Op, f64)]) -> RunRecord {
        let mut record = super::super::fixture::record();
        let template = record
            .measurements
            .iter()
            .find(|m| m.measurement.summary.is_some())
            .unwrap()
            .clone();
        for (op, ns) in ops_ns {
            let mut m = template.clone();
            m.measurement.cell.primitive = "ml-kem-768".into();
            m.measurement.cell.op = *op;
            m.measurement.cell.bytes = None;
            let s = m.measurement.summary.as_mut().unwrap();
            (s.median, s.ci_lo, s.ci_hi, s.min, s.max) = (*ns, *ns, *ns, *ns, *ns);
            record.measurements.push(m);
        }
        record
    }

    #[test]
    fn from_bytes_operations_get_a_section_not_a_zero_column() {
        let only = with_kem_ops(&[(Op::KeygenEncode, 20_000.0), (Op::EncapsParse, 25_000.0)]);
        let text = write(&only, &Options::default());
        assert!(!text.contains("0.000000s"), "{text}");
        assert!(!text.contains("keygens/s"), "{text}");
        assert!(
            text.contains("# from bytes (no column in openssl speed's tables):\n"),
            "{text}"
        );
        // 20 us per call = 50000 ops/s.
        assert!(
            text.contains("#                  ml-kem-768 keygen+encode    0.000020s   50000.0/s\n"),
            "{text}"
        );
        assert!(
            text.contains("ml-kem-768 encaps+parse     0.000025s   40000.0/s\n"),
            "{text}"
        );
        // Beside a measured keygen, the row keeps its columns and the from-bytes cell its line.
        let both = with_kem_ops(&[(Op::Keygen, 10_000.0), (Op::KeygenEncode, 20_000.0)]);
        let text = write(&both, &Options::default());
        assert!(text.contains("keygens/s"), "{text}");
        assert!(text.contains(" ML-KEM-768 0.000010s"), "{text}");
        assert!(text.contains("ml-kem-768 keygen+encode"), "{text}");
    }

    #[test]
    fn optional_columns() {
        let text = write(
            &super::super::fixture::record(),
            &Options {
                ci: true,
                cycles: true,
                ..Default::default()
            },
        );
        assert!(text.contains("±1.0%"), "{text}");
        assert!(
            text.contains("TSC reference cycles per byte (2.60 GHz):"),
            "{text}"
        );
        // 160 ns * 2.6 = 416 cycles over 16 bytes = 26.00 cycles/byte.
        assert!(
            text.contains("md5                 26.00         5.20\n"),
            "{text}"
        );
        assert_eq!(text.matches("# not measured: md2").count(), 1);
    }

    #[test]
    fn percentiles_of_public_key_samples() {
        let record = super::super::fixture::record_with_sign_percentiles();
        // rsa-2048 sign: 400 samples of 4 calls, cycles per call 1000..1399 (each once).
        let text = write(
            &record,
            &Options {
                percentiles: true,
                ..Default::default()
            },
        );
        assert!(text.contains("cycles per call"), "{text}");
        // Type-7 quantiles of 1000..=1399: p1 = 1003.99, p50 = 1199.5, p99 = 1395.01; the
        // median's 95% interval is [x(180), x(221)] of 400 (scipy.stats.binom; see
        // tests/percentiles_scipy.rs).
        let words: Vec<String> = text
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert!(
            words.contains(&"rsa-2048 sign 4 400 1004 1040 1100 1200 1299 1359 1395".to_string()),
            "{text}"
        );
        assert!(
            words.contains(
                &"95% interval 1000-1008 1028-1052 1082-1117 1179-1220 1282-1317 1347-1371 1391-1399"
                    .to_string()
            ),
            "{text}"
        );
        assert!(text.contains("percentiles of batch means"), "{text}");
        // md5 (a symmetric cell) and cells without samples get no row.
        assert!(!text.contains("md5 hash"), "{text}");
        assert_eq!(text.matches("95% interval").count(), 2, "{text}");
    }
}
