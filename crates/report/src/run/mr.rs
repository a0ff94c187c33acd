//! `openssl speed -mr` output, line-compatible with OpenSSL 3.0: `+H:` sizes, `+F:` symmetric
//! rows in bytes per second, `+F2:` RSA, `+F3:` DSA, `+F4:` ECDSA, `+F5:` ECDH, `+F6:` EdDSA and
//! `+F8:` FFDH, with 3.0's indices, so scripts that parse OpenSSL 3.0's lines read these too.

use super::{by_variant, find, is_symmetric, ops, primitives_in, sizes, symmetric_op, Options};
use crate::registry::OutputFormat;
use cryptospeed_catalog::SpeedRow;
use cryptospeed_model::{Op, RunRecord};
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
        for p in prims.iter().filter(|p| measured(p.id)) {
            let z = |x: Option<f64>| x.unwrap_or(0.0);
            let inv = |x: Option<f64>| x.map(|v| 1.0 / v).unwrap_or(0.0);
            match p.speed {
                SpeedRow::Symmetric { index, name } => {
                    let op = symmetric_op(&ms, p);
                    let _ = write!(out, "+F:{index}:{name}");
                    for s in &sizes {
                        let r = find(&ms, p.id, op, Some(*s))
                            .filter(|m| m.status.has_numbers())
                            .and_then(|m| m.bytes_per_s());
                        let _ = write!(out, ":{:.2}", z(r));
                    }
                    out.push('\n');
                }
                SpeedRow::Rsa { index, bits } => {
                    let _ = writeln!(
                        out,
                        "+F2:{index}:{bits}:{:.6}:{:.6}",
                        z(ops(&ms, p.id, Op::Sign)),
                        z(ops(&ms, p.id, Op::Verify))
                    );
                }
                SpeedRow::Dsa { index, bits } => {
                    let _ = writeln!(
                        out,
                        "+F3:{index}:{bits}:{:.6}:{:.6}",
                        z(ops(&ms, p.id, Op::Sign)),
                        z(ops(&ms, p.id, Op::Verify))
                    );
                }
                SpeedRow::Ecdsa { index, bits, .. } => {
                    let _ = writeln!(
                        out,
                        "+F4:{index}:{bits}:{:.6}:{:.6}",
                        z(ops(&ms, p.id, Op::Sign)),
                        z(ops(&ms, p.id, Op::Verify))
                    );
                }
                SpeedRow::Ecdh { index, bits, .. } => {
                    let x = ops(&ms, p.id, Op::Derive);
                    let _ = writeln!(out, "+F5:{index}:{bits}:{:.6}:{:.6}", z(x), inv(x));
                }
                SpeedRow::Eddsa { index, bits, name } => {
                    let _ = writeln!(
                        out,
                        "+F6:{index}:{bits}:{name}:{:.6}:{:.6}",
                        z(ops(&ms, p.id, Op::Sign)),
                        z(ops(&ms, p.id, Op::Verify))
                    );
                }
                SpeedRow::Ffdh { index, bits } => {
                    let x = ops(&ms, p.id, Op::Derive);
                    let _ = writeln!(out, "+F8:{index}:{bits}:{:.6}:{:.6}", z(x), inv(x));
                }
                SpeedRow::Kem { name } => {
                    // OpenSSL 3.5 prints `+F9:INDEX:keygen:encaps:decaps` with the index of the
                    // KEM in its run-time list, which no other build shares; the name is
                    // written in its place so the line can be read back.
                    let _ = writeln!(
                        out,
                        "+F9:{name}:{:.6}:{:.6}:{:.6}",
                        z(ops(&ms, p.id, Op::Keygen)),
                        z(ops(&ms, p.id, Op::Encaps)),
                        z(ops(&ms, p.id, Op::Decaps))
                    );
                }
                SpeedRow::Signature { name } => {
                    // Likewise 3.5's `+F10:INDEX:keygen:sign:verify`, named.
                    let _ = writeln!(
                        out,
                        "+F10:{name}:{:.6}:{:.6}:{:.6}",
                        z(ops(&ms, p.id, Op::Keygen)),
                        z(ops(&ms, p.id, Op::Sign)),
                        z(ops(&ms, p.id, Op::Verify))
                    );
                }
            }
        }
    }
    out
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
