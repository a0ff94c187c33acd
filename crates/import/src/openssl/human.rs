//! The human tables of `openssl speed`: the version header, the `type 16 bytes …` table in
//! 1000s of bytes per second, and the public-key tables (`sign verify sign/s verify/s`, `op op/s`,
//! 3.2's RSA table, 3.4's KEM and signature tables), row by row.

use super::*;

impl Parser<'_> {
    /// Sizes for a symmetric row met outside any table: the `-multi` children's `+H` (3.x prints
    /// the summed table without a header), or, for the tail of a log cut above its `type` line,
    /// openssl's default sizes when the row names a sized primitive and has their count of
    /// `k`-suffixed values.
    pub(super) fn headerless_sizes(&self, t: &str) -> Option<(Vec<u64>, usize)> {
        if self.table != Table::None || is_noise(t) || !looks_like_row(t) {
            return None;
        }
        if let Some(found) = self.seg.multi_sizes.clone() {
            return Some(found);
        }
        let tokens: Vec<&str> = t.split_whitespace().collect();
        let values = tokens.iter().rev().take_while(|v| v.ends_with('k')).count();
        let name = tokens[..tokens.len() - values].join(" ");
        let known = cryptospeed_catalog::resolve(&name).is_some_and(|k| k.has_bytes());
        match values {
            6 if known => Some((vec![16, 64, 256, 1024, 8192, 16384], 0)),
            5 if known => Some((vec![16, 64, 256, 1024, 8192], 0)),
            _ => None,
        }
    }

    /// Header lines; `Some(Ok(()))` when the line was one.
    pub(super) fn header_line(
        &mut self,
        n: usize,
        t: &str,
    ) -> Result<Option<Result<(), ImportError>>, ImportError> {
        let version = if let Some(v) = t.strip_prefix("version:") {
            Some(v.trim().to_string())
        } else if (t.starts_with("OpenSSL ")
            || t.starts_with("LibreSSL ")
            || t.starts_with("SSLeay "))
            && t.split_whitespace()
                .nth(1)
                .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        {
            Some(t.to_string())
        } else {
            None
        };
        if let Some(v) = version {
            let progress = self
                .seg
                .progress_symmetric
                .or(self.seg.progress_public_key)
                .is_some();
            if self.seg.has_results() || (self.seg.version_line.is_some() && progress) {
                self.close(n - 1)?;
            } else if self.seg.version_line.is_some() {
                // A header with no figures before this one (`openssl version` pasted above the
                // speed output): nothing to keep, start over.
                self.drop_segment();
            }
            self.touch(n);
            self.seg.header_lines.push((n, t.to_string()));
            self.seg.version_line = Some(n);
            if t.starts_with("LibreSSL") {
                self.seg.run.implementation = "libressl".into();
            }
            self.seg.run.set("version", v);
            self.table = Table::None;
            return Ok(Some(Ok(())));
        }
        const FIELDS: &[(&str, &str)] = &[
            ("built on:", "built on"),
            ("options:", "options"),
            ("compiler:", "compiler"),
            ("platform:", "platform"),
            ("CPUINFO:", "CPUINFO"),
            ("available timing options:", "timing options"),
            ("timing function used:", "timing"),
            // `openssl version -a`, often pasted above the speed output.
            ("OPENSSLDIR:", "OPENSSLDIR"),
            ("ENGINESDIR:", "ENGINESDIR"),
            ("MODULESDIR:", "MODULESDIR"),
            ("Seeding source:", "seeding source"),
        ];
        for (prefix, field) in FIELDS {
            if let Some(v) = t.strip_prefix(prefix) {
                self.touch(n);
                self.seg.header_lines.push((n, t.to_string()));
                self.seg.run.set(field, v.trim());
                return Ok(Some(Ok(())));
            }
        }
        Ok(None)
    }

    pub(super) fn symmetric_header(&mut self, n: usize, t: &str) -> Result<(), ImportError> {
        let words: Vec<&str> = t.split_whitespace().skip(1).collect();
        if words.is_empty() || !words.len().is_multiple_of(2) {
            return Err(ImportError::at(
                n,
                format!(
                    "expected the table header 'type  16 bytes  64 bytes …', found '{}'",
                    shorten(t)
                ),
            ));
        }
        let mut sizes = Vec::new();
        for pair in words.chunks(2) {
            match (pair[0].parse::<u64>(), pair[1]) {
                (Ok(size), "bytes") if size > 0 => sizes.push(size),
                _ => {
                    return Err(ImportError::at(
                        n,
                        format!(
                            "expected 'N bytes' in the table header, found '{} {}'",
                            pair[0], pair[1]
                        ),
                    ))
                }
            }
        }
        if self.seg.symmetric_rows > 0 {
            self.close(n - 1)?;
        }
        self.touch(n);
        self.seg.saw_human = true;
        self.table = Table::Symmetric(sizes, n);
        Ok(())
    }

    pub(super) fn symmetric_row(
        &mut self,
        n: usize,
        t: &str,
        sizes: &[u64],
        header: usize,
    ) -> Result<(), ImportError> {
        let tokens: Vec<&str> = t.split_whitespace().collect();
        let want = sizes.len();
        let shape = || {
            format!(
                "expected a row of the table whose header is line {header}: a name and {want} value(s) in 1000s of bytes/s (one per size {}), found '{}'",
                sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
                shorten(t)
            )
        };
        if tokens.len() < want + 1 {
            return Err(ImportError::at(
                n,
                format!("too few values — truncated? {}", shape()),
            ));
        }
        let (name_tokens, value_tokens) = tokens.split_at(tokens.len() - want);
        let mut values = Vec::with_capacity(want);
        for (i, tok) in value_tokens.iter().enumerate() {
            let rate = if let Some(k) = tok.strip_suffix('k') {
                let v = number(k).ok_or_else(|| {
                    ImportError::at(n, format!("'{tok}' is not a number. {}", shape()))
                })?;
                if v <= 10.0 {
                    return Err(ImportError::at(n, format!("'{tok}': openssl prints the 'k' form only above 10000 bytes/s, so this value is garbled")));
                }
                v * 1000.0
            } else {
                let v = number(tok).ok_or_else(|| {
                    ImportError::at(n, format!("'{tok}' is not a number. {}", shape()))
                })?;
                if v > 10000.0 {
                    return Err(ImportError::at(n, format!("'{tok}': openssl prints values above 10000 bytes/s as 1000s with a 'k', so this value is truncated or garbled")));
                }
                v
            };
            if rate < 0.0 {
                return Err(ImportError::at(n, format!("'{tok}' is negative")));
            }
            values.push((sizes[i], rate));
        }
        let name = name_tokens.join(" ");
        if name.is_empty() || number(name_tokens[0].trim_end_matches('k')).is_some() {
            return Err(ImportError::at(
                n,
                format!("too many values or no name. {}", shape()),
            ));
        }
        self.seg.symmetric_rows += 1;
        self.touch(n);
        let (m, op) = names::symmetric(&name, self.options.decrypt);
        for (size, rate) in values {
            self.push(n, &name, &m, op, Some(size), rate)?;
        }
        Ok(())
    }

    /// Human public-key rows; `Some(Ok(()))` when the line was one.
    pub(super) fn public_key_row(
        &mut self,
        n: usize,
        t: &str,
    ) -> Result<Option<Result<(), ImportError>>, ImportError> {
        let tokens: Vec<&str> = t.split_whitespace().collect();
        let handled = self.rsa_dsa_row(n, t, &tokens)?
            || self.curve_row(n, t, &tokens)?
            || self.scheme_table_row(n, &tokens)?;
        if handled {
            return Ok(Some(Ok(())));
        }
        let in_table = matches!(
            self.table,
            Table::PublicKey | Table::RsaFull | Table::Kem | Table::Signature
        );
        if in_table && tokens.iter().any(|w| is_time_token(w)) {
            return Err(ImportError::at(
                n,
                format!("expected a row of the public-key table above (algorithm, times in s, then rates per second), found '{}'", shorten(t)),
            ));
        }
        Ok(None)
    }

    /// `rsa 2048 bits 0.000241s 0.000016s 4152.0 62365.7` (and the 8-column 3.2+ form), or
    /// DSA's; true when the line was one.
    pub(super) fn rsa_dsa_row(
        &mut self,
        n: usize,
        t: &str,
        tokens: &[&str],
    ) -> Result<bool, ImportError> {
        if tokens.len() < 3 || !(tokens[0] == "rsa" || tokens[0] == "dsa") || tokens[2] != "bits" {
            return Ok(false);
        }
        let bits: u32 = tokens[1].parse().map_err(|_| {
            ImportError::at(
                n,
                format!(
                    "expected '{} BITS bits …', found '{}'",
                    tokens[0],
                    shorten(t)
                ),
            )
        })?;
        let figures = &tokens[3..];
        let ops: &[Op] = match figures.len() {
            4 => &[Op::Sign, Op::Verify],
            8 if tokens[0] == "rsa" => &[Op::Sign, Op::Verify, Op::Encrypt, Op::Decrypt],
            _ => {
                return Err(ImportError::at(
                    n,
                    format!("expected '{} {bits} bits' then times and rates (sign verify sign/s verify/s{}), found {} values — truncated?", tokens[0], if tokens[0] == "rsa" { ", or 3.2's 8-column form" } else { "" }, figures.len()),
                ))
            }
        };
        let rates = times_and_rates(n, figures, ops.len())?;
        let m = names::sized(tokens[0], bits);
        let printed = format!("{} {bits} bits", tokens[0]);
        self.public_key_results(n, &printed, &m, ops, &rates)?;
        Ok(true)
    }

    /// `256 bits ecdsa (nistp256) 0.0000s 0.0001s 51956.6 16892.0` (0.9.8/1.0: "256 bit
    /// ecdsa"), `253 bits EdDSA (Ed25519) …`, `256 bits SM2 (CurveSM2) …`, `256 bits ecdh
    /// (nistp256) 0.0000s 22368.7`, `2048 bits ffdh 0.0021s 476.2`; true when the line was one.
    pub(super) fn curve_row(
        &mut self,
        n: usize,
        t: &str,
        tokens: &[&str],
    ) -> Result<bool, ImportError> {
        if tokens.len() < 4
            || !(tokens[1] == "bits" || tokens[1] == "bit")
            || tokens[0].parse::<u32>().is_err()
        {
            return Ok(false);
        }
        let bits: u32 = tokens[0].parse().unwrap_or(0);
        let kind = tokens[2].to_ascii_lowercase();
        if kind == "ffdh" {
            let rates = times_and_rates(n, &tokens[3..], 1)?;
            let m = names::sized("ffdh", bits);
            let printed = format!("{bits} bits ffdh");
            self.public_key_results(n, &printed, &m, &[Op::Derive], &rates)?;
            return Ok(true);
        }
        if !matches!(kind.as_str(), "ecdsa" | "ecdh" | "eddsa" | "sm2" | "ec") {
            return Ok(false);
        }
        let expected = || {
            ImportError::at(
                n,
                format!(
                    "expected '{bits} bits {kind} (CURVE) …', found '{}'",
                    shorten(t)
                ),
            )
        };
        let close = t.find(')').ok_or_else(expected)?;
        let open = t.find('(').filter(|&o| o < close).ok_or_else(expected)?;
        let curve = t[open + 1..close].trim();
        let figures: Vec<&str> = t[close + 1..].split_whitespace().collect();
        let (m, ops): (Mapped, &[Op]) = match kind.as_str() {
            "ecdsa" => (names::curve("ecdsa", curve), &[Op::Sign, Op::Verify]),
            // 4.0: ECDSA, EdDSA and SM2 share one table, `256 bits EC (prime256v1)`.
            "ec" => (names::signature_curve(curve), &[Op::Sign, Op::Verify]),
            "ecdh" => (names::curve("ecdh", curve), &[Op::Derive]),
            _ => (names::named_scheme(curve), &[Op::Sign, Op::Verify]),
        };
        let rates = times_and_rates(n, &figures, ops.len())?;
        let printed = t[..close + 1].to_string();
        self.public_key_results(n, &printed, &m, ops, &rates)?;
        Ok(true)
    }

    /// A row of 3.4+'s KEM or signature table: `NAME 0.000012s 0.000013s 0.000014s 83333.3
    /// 76923.1 71428.6`; true when the line was one.
    pub(super) fn scheme_table_row(
        &mut self,
        n: usize,
        tokens: &[&str],
    ) -> Result<bool, ImportError> {
        if !matches!(self.table, Table::Kem | Table::Signature) || tokens.len() != 7 {
            return Ok(false);
        }
        let ops: &[Op] = if self.table == Table::Kem {
            &[Op::Keygen, Op::Encaps, Op::Decaps]
        } else {
            &[Op::Keygen, Op::Sign, Op::Verify]
        };
        let rates = times_and_rates(n, &tokens[1..], 3)?;
        let m = names::table_scheme(tokens[0], self.table == Table::Kem);
        self.public_key_results(n, tokens[0], &m, ops, &rates)?;
        Ok(true)
    }

    pub(super) fn public_key_results(
        &mut self,
        n: usize,
        printed: &str,
        m: &Mapped,
        ops: &[Op],
        rates: &[f64],
    ) -> Result<(), ImportError> {
        self.seg.public_key_rows += 1;
        self.seg.saw_human = true;
        self.touch(n);
        for (op, rate) in ops.iter().zip(rates) {
            self.push(n, printed, m, *op, None, *rate)?;
        }
        Ok(())
    }
}
