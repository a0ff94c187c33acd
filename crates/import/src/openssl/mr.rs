//! `openssl speed -mr`: the line tags, `+H` sizes, `+F` symmetric lines and the `+DT`/`+R`
//! progress lines; the `+F2`…`+F10` public-key lines are read in `mr_public_key.rs`.

use super::*;

impl Parser<'_> {
    pub(super) fn mr_line(&mut self, n: usize, t: &str, rest: &str) -> Result<(), ImportError> {
        let (tag, body) = rest.split_once(':').ok_or_else(|| {
            ImportError::at(
                n,
                format!("expected a -mr line '+TAG:…', found '{}'", shorten(t)),
            )
        })?;
        let fields: Vec<&str> = body.split(':').collect();
        match tag {
            "DT" | "DN" | "DTP" | "DNP" => self.mr_progress(n, tag, &fields),
            r if r.starts_with('R') && r[1..].chars().all(|c| c.is_ascii_digit()) => {
                self.mr_run_line(n, r, &fields);
                Ok(())
            }
            "H" => self.mr_sizes_line(n, t, &fields),
            // `-mr -multi` (4.0 and 3.x alike) prints the summed `+F` lines with no `+H` of the
            // parent's own: the children's `Got: +H:…` give the sizes.
            "F" => match self
                .seg
                .mr_sizes
                .clone()
                .or_else(|| self.seg.multi_sizes.clone().map(|(sizes, _)| sizes))
            {
                Some(sizes) => self.mr_symmetric(n, t, &fields, &sizes),
                None => {
                    // A child's line ahead of the parent's +H (`-mr -multi`): read it at +H.
                    self.touch(n);
                    self.seg.pending_mr.push((n, t.to_string()));
                    Ok(())
                }
            },
            _ => {
                let number_tag: Option<u8> = tag
                    .strip_prefix('F')
                    .and_then(|d| d.parse().ok())
                    .filter(|d| (2..=10).contains(d));
                let Some(number_tag) = number_tag else {
                    return Err(ImportError::at(
                        n,
                        format!("unknown -mr line '+{tag}:…': {EXPECTED}"),
                    ));
                };
                self.mr_public_key(n, t, number_tag, &fields)
            }
        }
    }

    /// `+DT`/`+DN` (symmetric) and `+DTP`/`+DNP` (public key) progress lines.
    fn mr_progress(&mut self, n: usize, tag: &str, fields: &[&str]) -> Result<(), ImportError> {
        // Children of -multi interleave their progress with each other's results.
        if self.seg.multi_lines.is_none() {
            self.boundary_if_results(n)?;
        }
        self.touch(n);
        self.seg.saw_mr = true;
        if tag != "DT" && tag != "DN" {
            self.seg.progress_public_key.get_or_insert(n);
            return Ok(());
        }
        if fields.len() >= 3 {
            self.seg.progress_symmetric.get_or_insert(n);
            let first = self.seg.announced.first().map(|(a, _)| a.as_str());
            if first.is_none_or(|a| a == fields[0]) {
                if let Ok(size) = fields[fields.len() - 1].parse::<u64>() {
                    self.seg.dt_sizes.push(size);
                }
            }
            let name = fields[0].to_string();
            if !self.seg.announced.iter().any(|(a, _)| *a == name) {
                self.seg.announced.push((name, n));
            }
        }
        Ok(())
    }

    /// `+R15:COUNT:NAME:SECONDS` (KEM keygen) and `+R18:…` (signature keygen) name the schemes
    /// 3.5+'s `+F9`/`+F10` lines number; other `+R` lines are progress.
    fn mr_run_line(&mut self, n: usize, tag: &str, fields: &[&str]) {
        self.touch(n);
        let names = match tag {
            "R15" => Some(&mut self.seg.mr_kem_names),
            "R18" => Some(&mut self.seg.mr_sig_names),
            _ => None,
        };
        if let (Some(names), Some(name)) = (names, fields.get(1)) {
            if !names.iter().any(|x| x == name) {
                names.push(name.to_string());
            }
        }
    }

    /// `+H:16:64:…`: the block sizes, which also settle `+F` lines met before them.
    fn mr_sizes_line(&mut self, n: usize, t: &str, fields: &[&str]) -> Result<(), ImportError> {
        let mut sizes = Vec::new();
        for f in fields {
            match f.parse::<u64>() {
                Ok(s) if s > 0 => sizes.push(s),
                _ => {
                    return Err(ImportError::at(
                        n,
                        format!(
                            "expected '+H:16:64:…' (the block sizes), found '{}'",
                            shorten(t)
                        ),
                    ))
                }
            }
        }
        if self.seg.has_results() {
            self.close(n - 1)?;
        }
        self.touch(n);
        self.seg.saw_mr = true;
        self.seg.mr_sizes = Some(sizes.clone());
        for (at, line) in std::mem::take(&mut self.seg.pending_mr) {
            let body = line.strip_prefix("+F:").unwrap_or(&line);
            let fields: Vec<&str> = body.split(':').collect();
            self.mr_symmetric(at, &line, &fields, &sizes)?;
        }
        Ok(())
    }

    /// `+F:INDEX:NAME:v1:v2…`, one rate in bytes/s per size of the `+H` line.
    pub(super) fn mr_symmetric(
        &mut self,
        n: usize,
        t: &str,
        fields: &[&str],
        sizes: &[u64],
    ) -> Result<(), ImportError> {
        if fields.len() != sizes.len() + 2 {
            return Err(ImportError::at(
                n,
                format!("expected '+F:INDEX:NAME' and {} values (one per size in +H), found {} fields — truncated? ('{}')", sizes.len(), fields.len(), shorten(t)),
            ));
        }
        fields[0].parse::<u32>().map_err(|_| {
            ImportError::at(
                n,
                format!(
                    "expected a numeric algorithm index after '+F:', found '{}'",
                    fields[0]
                ),
            )
        })?;
        let name = fields[1];
        if name.is_empty() {
            return Err(ImportError::at(n, "empty algorithm name in '+F:' line"));
        }
        let mut values = Vec::new();
        for (f, size) in fields[2..].iter().zip(sizes) {
            let v = number(f)
                .filter(|v| *v >= 0.0)
                .ok_or_else(|| ImportError::at(n, format!("'{f}' is not a rate in bytes/s")))?;
            values.push((*size, v));
        }
        self.touch(n);
        self.seg.symmetric_rows += 1;
        let (m, op) = names::symmetric(name, self.options.decrypt);
        for (size, rate) in values {
            self.push(n, name, &m, op, Some(size), rate)?;
        }
        Ok(())
    }
}
