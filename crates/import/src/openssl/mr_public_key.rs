//! `openssl speed -mr`'s `+F2`…`+F10` public-key lines (times per operation before 1.1.0, rates
//! since, 4.0's shapes, 3.5+'s run-time indices named by the `+R` lines), kept until the whole
//! output is read and then settled.

use super::*;

impl Parser<'_> {
    pub(super) fn mr_public_key(
        &mut self,
        n: usize,
        t: &str,
        tag: u8,
        fields: &[&str],
    ) -> Result<(), ImportError> {
        // +F2/+F3/+F4/+F5/+F8: INDEX:BITS:v…   +F6/+F7: INDEX:BITS:NAME:v:v   +F9/+F10: INDEX:v:v:v
        // 4.0: +F7 is FFDH (INDEX:BITS:v:v), +F8 KEMs and +F9 signatures (INDEX:v:v:v).
        let four_ffdh = tag == 7 && fields.len() == 4;
        let four_kem = tag == 8 && fields.get(1).is_some_and(|f| f.contains('.'));
        let (bits_at, name_at, first_value, counts): (
            Option<usize>,
            Option<usize>,
            usize,
            &[usize],
        ) = match tag {
            2 => (Some(1), None, 2, &[2, 4]),
            8 if four_kem => (None, None, 1, &[3]),
            7 if four_ffdh => (Some(1), None, 2, &[2]),
            3 | 4 | 5 | 8 => (Some(1), None, 2, &[2]),
            6 | 7 => (Some(1), Some(2), 3, &[2]),
            _ => (None, None, 1, &[3]),
        };
        let bad = |what: &str| {
            ImportError::at(
                n,
                format!("'+F{tag}:' line: {what}, found '{}'", shorten(t)),
            )
        };
        // cryptospeed's own `show --format mr` names its KEM and signature rows in the index's
        // place (`+F9:ML-KEM-768:v:v:v`): no other build shares 3.5's run-time indices.
        let named = matches!(tag, 9 | 10)
            && fields
                .first()
                .is_some_and(|f| f.starts_with(|c: char| c.is_ascii_alphabetic()));
        let index: u32 = match named {
            true => 0,
            false => fields
                .first()
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| bad("expected a numeric index first"))?,
        };
        let bits: u32 = match bits_at {
            Some(i) => fields
                .get(i)
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| bad("expected the key size in bits second"))?,
            None => 0,
        };
        let name = name_at
            .or(named.then_some(0))
            .and_then(|i| fields.get(i))
            .map(|s| s.to_string())
            .unwrap_or_default();
        let values_raw = fields.get(first_value..).unwrap_or(&[]);
        if !counts.contains(&values_raw.len()) {
            return Err(bad(&format!(
                "expected {} value(s) — truncated?",
                counts
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(" or ")
            )));
        }
        let mut values = Vec::new();
        for f in values_raw {
            values.push(
                number(f)
                    .filter(|v| *v >= 0.0)
                    .ok_or_else(|| bad(&format!("'{f}' is not a number")))?,
            );
        }
        self.touch(n);
        self.seg.saw_mr = true;
        self.seg.mr_public_key.push(MrPublicKey {
            tag,
            four: four_ffdh || four_kem,
            index,
            bits,
            name,
            values,
            line: n,
        });
        Ok(())
    }

    /// Converts the deferred `-mr` public-key lines into results.
    pub(super) fn settle_mr_public_key(&mut self) -> Result<(), ImportError> {
        let lines = std::mem::take(&mut self.seg.mr_public_key);
        if lines.is_empty() {
            return Ok(());
        }
        let rates = mr_figures_are_rates(&lines);
        let four = mr_layout_is_4(&lines, &self.seg.mr_kem_names, &self.seg.mr_sig_names);
        if four {
            self.seg.run.set(
                "-mr layout",
                "OpenSSL 4.0 (+F4 one signature-curve table, +F7 FFDH, +F8 KEMs, +F9 signatures)",
            );
        }
        if !rates {
            self.seg.run.set(
                "-mr public-key figures",
                "seconds per operation (OpenSSL before 1.1.0), converted to rates",
            );
        }
        let mut schemes = MrSchemeNames {
            kems: std::mem::take(&mut self.seg.mr_kem_names),
            signatures: std::mem::take(&mut self.seg.mr_sig_names),
            kems_seen: 0,
            signatures_seen: 0,
        };
        for l in lines {
            let row = match four {
                true => mr_public_key_row_4(&l, &mut schemes),
                false => mr_public_key_row(&l, rates, &mut schemes),
            };
            self.push_mr_public_key(&l, row)?;
        }
        Ok(())
    }

    /// Records one `-mr` public-key line's results, refusing a second figure for a cell.
    pub(super) fn push_mr_public_key(
        &mut self,
        l: &MrPublicKey,
        row: MrRow,
    ) -> Result<(), ImportError> {
        let (m, printed, ops, values) = row;
        self.seg.public_key_rows += 1;
        for (op, rate) in ops.into_iter().zip(values) {
            let key = (m.primitive.clone(), op, None, l.tag.saturating_sub(8));
            if self.seg.keys.contains(&key) {
                return Err(ImportError::at(
                    l.line,
                    format!("'{printed}' {op} appears twice in one -mr output"),
                ));
            }
            self.seg.keys.insert(key);
            self.seg.run.results.push(ImportedResult {
                primitive: m.primitive.clone(),
                op,
                bytes: None,
                rate,
                printed_name: printed.clone(),
                mapped: m.mapped,
                line: l.line,
                samples: Vec::new(),
                cycles: None,
            });
        }
        Ok(())
    }
}

/// An `-mr` public-key line read: the primitive, its printed name, the operations and a rate
/// for each.
pub(super) type MrRow = (Mapped, String, Vec<Op>, Vec<f64>);

/// The KEM and signature names the `+R` lines of 3.5+ gave, in order; the n-th `+F9` (`+F10`)
/// line is the n-th KEM (signature).
pub(super) struct MrSchemeNames {
    kems: Vec<String>,
    signatures: Vec<String>,
    kems_seen: usize,
    signatures_seen: usize,
}

impl MrSchemeNames {
    fn next(&mut self, kem: bool, index: u32) -> Mapped {
        let (names, seen, fallback) = match kem {
            true => (&self.kems, &mut self.kems_seen, "kem"),
            false => (&self.signatures, &mut self.signatures_seen, "signature"),
        };
        *seen += 1;
        names
            .get(*seen - 1)
            .map(|n| names::table_scheme(n, kem))
            .unwrap_or(Mapped {
                primitive: format!("{fallback}-{index}"),
                mapped: false,
            })
    }
}

/// Whether an output's `-mr` public-key figures are rates. Before 1.1.0, +F2/+F3/+F4 carried
/// seconds per operation; since, operations per second. 1.1.0 also added +F6…; 3.2 gave +F2 four
/// values. Without those, RSA verify is faster than sign (so a larger second value means rates),
/// and times are all below one second.
pub(super) fn mr_figures_are_rates(lines: &[MrPublicKey]) -> bool {
    let modern = lines
        .iter()
        .any(|l| l.tag >= 6 || (l.tag == 2 && l.values.len() == 4));
    modern
        || match lines.iter().find(|l| l.tag == 2) {
            Some(rsa) => rsa.values[1] > rsa.values[0],
            None => !lines
                .iter()
                .filter(|l| (2..=4).contains(&l.tag))
                .all(|l| l.values.iter().all(|v| *v < 1.0)),
        }
}

/// Whether an output's `-mr` public-key lines follow OpenSSL 4.0's numbering: a line only 4.0
/// prints (a nameless `+F7`, a bitless `+F8`, EdDSA's 253 or 456 bits under `+F4`), none only
/// 3.x prints (`+F6`, `+F10`, a named `+F7`, a sized `+F8`), or, with `+F9` lines alone, the
/// `+R18` (signature keygen) progress lines that name them.
pub(super) fn mr_layout_is_4(
    lines: &[MrPublicKey],
    kem_names: &[String],
    sig_names: &[String],
) -> bool {
    let three = lines.iter().any(|l| {
        matches!(l.tag, 6 | 10)
            || (matches!(l.tag, 7 | 8) && !l.four)
            || (l.tag == 9 && !l.name.is_empty())
    });
    if three {
        return false;
    }
    let four = lines
        .iter()
        .any(|l| l.four || (l.tag == 4 && matches!(l.bits, 253 | 456)));
    four || (lines.iter().any(|l| l.tag == 9) && kem_names.is_empty() && !sig_names.is_empty())
}

/// What one `-mr` public-key line of OpenSSL 4.0 holds; RSA and DSA as before.
pub(super) fn mr_public_key_row_4(l: &MrPublicKey, schemes: &mut MrSchemeNames) -> MrRow {
    let printed = format!("+F{}:{}:{}", l.tag, l.index, l.bits);
    let larger = || vec![l.values[0].max(l.values[1])];
    match l.tag {
        4 => (
            names::curve_by_index_4("ecdsa", l.index, l.bits),
            printed,
            vec![Op::Sign, Op::Verify],
            l.values.clone(),
        ),
        5 => (
            names::curve_by_index_4("ecdh", l.index, l.bits),
            printed,
            vec![Op::Derive],
            larger(),
        ),
        7 => (
            names::sized("ffdh", l.bits),
            format!("{} bits ffdh", l.bits),
            vec![Op::Derive],
            larger(),
        ),
        8 => (
            schemes.next(true, l.index),
            format!("+F8:{}", l.index),
            vec![Op::Keygen, Op::Encaps, Op::Decaps],
            l.values.clone(),
        ),
        9 => (
            schemes.next(false, l.index),
            format!("+F9:{}", l.index),
            vec![Op::Keygen, Op::Sign, Op::Verify],
            l.values.clone(),
        ),
        _ => mr_public_key_row(l, true, schemes),
    }
}

/// What one `-mr` public-key line (`+F2` … `+F10`) holds.
pub(super) fn mr_public_key_row(
    l: &MrPublicKey,
    rates: bool,
    schemes: &mut MrSchemeNames,
) -> MrRow {
    let to_rates = || -> Vec<f64> {
        l.values
            .iter()
            .map(|&v| if rates || v == 0.0 { v } else { 1.0 / v })
            .collect()
    };
    // ECDH and FFDH: time and rate, in an order that changed between versions; the rate is
    // the larger.
    let larger = || vec![l.values[0].max(l.values[1])];
    let sign_verify = vec![Op::Sign, Op::Verify];
    match l.tag {
        2 => {
            let mut ops = sign_verify;
            if l.values.len() == 4 {
                ops.extend([Op::Encrypt, Op::Decrypt]);
            }
            let printed = format!("rsa {} bits", l.bits);
            (names::sized("rsa", l.bits), printed, ops, to_rates())
        }
        3 => {
            let printed = format!("dsa {} bits", l.bits);
            (
                names::sized("dsa", l.bits),
                printed,
                sign_verify,
                to_rates(),
            )
        }
        4 => {
            let m = names::curve_by_index("ecdsa", l.index, l.bits);
            (
                m,
                format!("+F4:{}:{}", l.index, l.bits),
                sign_verify,
                to_rates(),
            )
        }
        5 => {
            let m = names::curve_by_index("ecdh", l.index, l.bits);
            (
                m,
                format!("+F5:{}:{}", l.index, l.bits),
                vec![Op::Derive],
                larger(),
            )
        }
        8 => {
            let printed = format!("{} bits ffdh", l.bits);
            (
                names::sized("ffdh", l.bits),
                printed,
                vec![Op::Derive],
                larger(),
            )
        }
        6 | 7 => (
            names::named_scheme(&l.name),
            l.name.clone(),
            sign_verify,
            l.values.clone(),
        ),
        _ => pq_row(l, schemes),
    }
}

/// 3.5's `+F9` (KEM: keygen, encaps, decaps) and `+F10` (signature: keygen, sign, verify) lines,
/// named by the `+R` lines in order, or by the name cryptospeed's own export writes in them.
fn pq_row(l: &MrPublicKey, schemes: &mut MrSchemeNames) -> MrRow {
    let kem = l.tag == 9;
    let ops = match kem {
        true => vec![Op::Keygen, Op::Encaps, Op::Decaps],
        false => vec![Op::Keygen, Op::Sign, Op::Verify],
    };
    if !l.name.is_empty() {
        return (
            names::table_scheme(&l.name, kem),
            l.name.clone(),
            ops,
            l.values.clone(),
        );
    }
    let printed = format!("+F{}:{}", l.tag, l.index);
    (schemes.next(kem, l.index), printed, ops, l.values.clone())
}
