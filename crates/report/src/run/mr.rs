//! `openssl speed -mr` output, line-compatible with OpenSSL 3.0: `+H:` sizes, `+F:` symmetric
//! rows in bytes per second, `+F2:` RSA, `+F3:` DSA, `+F4:` ECDSA, `+F5:` ECDH, `+F6:` EdDSA and
//! `+F8:` FFDH, with 3.0's indices, so scripts that parse OpenSSL 3.0's lines read these too.

use super::{by_variant, find, is_symmetric, ops, primitives_in, sizes, symmetric_op, Options};
use crate::registry::OutputFormat;
use cryptospeed_catalog::{Primitive, SpeedRow};
use cryptospeed_model::{Op, RunRecord, VariantMeasurement};
use std::fmt::Write;

pub const FORMAT: OutputFormat<RunRecord, Options> = OutputFormat {
    name: "mr",
    aliases: &[],
    write,
};

pub fn write(record: &RunRecord, _: &Options) -> String {
    let mut out = String::new();
    for (_, ms) in by_variant(record) {
        let prims = primitives_in(&ms);
        let sizes = sizes(&ms);
        let measured = |id: &str| {
            ms.iter()
                .any(|m| m.measurement.cell.primitive == id && m.measurement.status.has_numbers())
        };
        if prims.iter().any(|p| is_symmetric(p) && measured(p.id)) && !sizes.is_empty() {
            out.push_str("+H");
            for s in &sizes {
                let _ = write!(out, ":{s}");
            }
            out.push('\n');
        }
        for p in prims
            .iter()
            .filter(|p| measured(p.id) && p.speed != SpeedRow::Handshake)
        {
            let _ = writeln!(out, "{}", line(&ms, p, &sizes));
        }
    }
    out
}

/// One primitive's `+F…` line (0 for an operation without figures, as openssl speed prints).
fn line(ms: &[&VariantMeasurement], p: &Primitive, sizes: &[u64]) -> String {
    let rate = |op| ops(ms, p.id, op).unwrap_or(0.0);
    let sign_verify = || format!("{:.6}:{:.6}", rate(Op::Sign), rate(Op::Verify));
    // Derivations per second and seconds per derivation.
    let derive = || {
        let x = ops(ms, p.id, Op::Derive);
        let inv = x.map(|v| 1.0 / v).unwrap_or(0.0);
        format!("{:.6}:{inv:.6}", x.unwrap_or(0.0))
    };
    match p.speed {
        SpeedRow::Symmetric { index, name } => {
            let op = symmetric_op(ms, p);
            let mut line = format!("+F:{index}:{name}");
            for s in sizes {
                let r = find(ms, p.id, op, Some(*s))
                    .filter(|m| m.status.has_numbers())
                    .and_then(|m| m.bytes_per_s());
                let _ = write!(line, ":{:.2}", r.unwrap_or(0.0));
            }
            line
        }
        SpeedRow::Rsa { index, bits } => format!("+F2:{index}:{bits}:{}", sign_verify()),
        SpeedRow::Dsa { index, bits } => format!("+F3:{index}:{bits}:{}", sign_verify()),
        SpeedRow::Ecdsa { index, bits, .. } => format!("+F4:{index}:{bits}:{}", sign_verify()),
        SpeedRow::Ecdh { index, bits, .. } => format!("+F5:{index}:{bits}:{}", derive()),
        SpeedRow::Eddsa { index, bits, name } => {
            format!("+F6:{index}:{bits}:{name}:{}", sign_verify())
        }
        SpeedRow::Ffdh { index, bits } => format!("+F8:{index}:{bits}:{}", derive()),
        // OpenSSL 3.5 prints `+F9:INDEX:keygen:encaps:decaps` with the index of the KEM in its
        // run-time list, which no other build shares; the name is written in its place so the
        // line can be read back.
        SpeedRow::Kem { name } => format!(
            "+F9:{name}:{:.6}:{:.6}:{:.6}",
            rate(Op::Keygen),
            rate(Op::Encaps),
            rate(Op::Decaps)
        ),
        // Likewise 3.5's `+F10:INDEX:keygen:sign:verify`, named.
        SpeedRow::Signature { name } => format!(
            "+F10:{name}:{:.6}:{:.6}:{:.6}",
            rate(Op::Keygen),
            rate(Op::Sign),
            rate(Op::Verify)
        ),
        // No openssl speed line: `write` leaves handshakes out.
        SpeedRow::Handshake => String::new(),
    }
}

#[cfg(test)]
mod tests {
    /// Parses `+F` lines the way OpenSSL 3.0's do_multi does: split on ':', atoi/atof fields.
    fn parse_like_openssl(text: &str) -> Vec<(String, Vec<f64>)> {
        text.lines()
            .map(|l| {
                let mut f = l.split(':');
                let tag = f.next().unwrap().to_string();
                (tag, f.filter_map(|x| x.parse::<f64>().ok()).collect())
            })
            .collect()
    }

    #[test]
    fn lines_follow_openssl_3_0() {
        let text = super::write(&super::super::fixture::record(), &Default::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "+H:16:8192");
        assert_eq!(lines[1], "+F:3:md5:100000000.00:500000000.00");
        assert_eq!(lines[2], "+F2:2:2048:4000.000000:62500.000000");
        assert_eq!(lines[3], "+F5:22:253:31250.000000:0.000032");
        assert!(
            !text.contains("md2"),
            "unavailable rows are left out, as openssl speed does"
        );
        let parsed = parse_like_openssl(&text);
        assert_eq!(parsed[1].1, vec![3.0, 100000000.0, 500000000.0]);
    }
}
