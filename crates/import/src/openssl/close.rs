//! Closing an output: the run it becomes, checked complete, and for a log cut short, exactly
//! which table or lines are missing (the run is kept, marked partial with that list).

use super::*;

impl Parser<'_> {
    /// Ends the current output at line `last`, checking it is complete.
    pub(super) fn close(&mut self, last: usize) -> Result<(), ImportError> {
        self.settle_mr_public_key()?;
        let mut seg = std::mem::take(&mut self.seg);
        self.table = Table::None;
        if !seg.started {
            return Ok(());
        }
        let mut missing = Vec::new();
        if let Some((at, _)) = seg.pending_mr.first() {
            let at = *at;
            let pending = std::mem::take(&mut seg.pending_mr);
            let sizes = self.sizes_without_h(&seg, &pending);
            missing.push(format!(
                "no '+H:' line gives the block sizes of the '+F:' lines from line {at} (cut off at the top?): {}",
                match &sizes {
                    Some((sizes, why)) => format!("sizes {} taken from {why}", join(sizes)),
                    None => "their figures are not kept".to_string(),
                }
            ));
            if let Some((sizes, _)) = sizes {
                self.seg = seg;
                for (n, line) in pending {
                    let fields: Vec<&str> = line["+F:".len()..].split(':').collect();
                    self.mr_symmetric(n, &line, &fields, &sizes)?;
                }
                seg = std::mem::take(&mut self.seg);
            }
        }
        let no_figures = !seg.has_results()
            && seg.progress_symmetric.is_none()
            && seg.progress_public_key.is_none()
            && seg.mr_sizes.is_none()
            && seg.multi_lines.is_none();
        if no_figures
            && missing.is_empty()
            && (seg.foreign_command || !seg.run.header.iter().any(|(k, _)| k == "command"))
        {
            // Header lines only (`openssl version -a` pasted next to the output): nothing is
            // lost, list them as skipped.
            self.skipped.append(&mut seg.header_lines);
            return Ok(());
        }
        let end = last.max(seg.run.first_line);
        missing.extend(self.missing_parts(&seg, end));
        if !missing.is_empty() {
            missing.extend(self.results_from_progress(&mut seg));
        }
        if seg.run.results.is_empty() {
            // Nothing readable: a command line or noise, or an output cut before its figures.
            let first = seg.run.first_line;
            self.warnings.extend(
                missing
                    .into_iter()
                    .map(|m| format!("lines {first}–{end}: {m}; nothing of it is kept")),
            );
            return Ok(());
        }
        if !missing.is_empty() {
            seg.run.set("partial", missing.join("; "));
        }
        let mut run = seg.run;
        run.format = if seg.saw_mr && !seg.saw_human {
            "openssl-speed-mr".into()
        } else {
            "openssl-speed".into()
        };
        if run.implementation.is_empty() {
            run.implementation = "openssl".into();
        }
        run.last_line = end;
        run.missing = missing;
        self.runs.push(run);
        Ok(())
    }

    /// What an output's progress lines, header or `+H` announced and its results lack.
    fn missing_parts(&self, seg: &Segment, end: usize) -> Vec<String> {
        let cut = |from: usize, what: &str| {
            format!(
                "the output that starts at line {} ends at line {end}, before {what} (announced at line {from})",
                seg.run.first_line
            )
        };
        let mut missing = Vec::new();
        if let Some(from) = seg.progress_symmetric {
            if seg.symmetric_rows == 0 {
                missing.push(cut(from, "the results table its progress lines announce"));
            } else {
                for (name, at) in &seg.announced {
                    let (m, _) = names::symmetric(name, self.options.decrypt);
                    if !seg.run.results.iter().any(|r| {
                        r.primitive == m.primitive || r.printed_name.eq_ignore_ascii_case(name)
                    }) {
                        missing.push(cut(*at, &format!("the row for '{name}'")));
                    }
                }
            }
        }
        if let Some(from) = seg.progress_public_key {
            if seg.public_key_rows == 0 {
                missing.push(cut(
                    from,
                    "the public-key results its progress lines announce",
                ));
            }
        }
        if let Some(from) = seg.version_line {
            if seg.run.results.is_empty() {
                missing.push(cut(from, "any results table after the version header"));
            }
        }
        if let Some(from) = seg.multi_lines {
            if seg.run.results.is_empty() {
                missing.push(cut(from, "the summed table of the -multi children"));
            }
        }
        if seg.mr_sizes.is_some() && seg.symmetric_rows == 0 && seg.public_key_rows == 0 {
            missing.push(cut(seg.run.first_line, "any '+F:' line after '+H:'"));
        }
        missing
    }

    /// Block sizes for `+F:` lines whose `+H:` is missing: the `+DT:NAME:SECONDS:SIZE`
    /// progress lines of their algorithm, else openssl's default sizes when the count fits.
    fn sizes_without_h(
        &self,
        seg: &Segment,
        pending: &[(usize, String)],
    ) -> Option<(Vec<u64>, String)> {
        let values = pending[0].1.split(':').count().checked_sub(3)?;
        if !seg.dt_sizes.is_empty() && seg.dt_sizes.len() == values {
            return Some((seg.dt_sizes.clone(), "its '+DT:' progress lines".into()));
        }
        let default: &[u64] = match values {
            5 => &[16, 64, 256, 1024, 8192],
            6 => &[16, 64, 256, 1024, 8192, 16384],
            _ => return None,
        };
        let same = pending
            .iter()
            .all(|(_, l)| l.split(':').count() == values + 3);
        same.then(|| {
            (
                default.to_vec(),
                format!("openssl's default sizes ({values} values a line)"),
            )
        })
    }
}
