//! `openssl speed -multi N`: the `Forked child N` lines and the children's `Got: … from N`
//! lines (cut apart by their stderr in large runs) that come before the summed table.

use super::*;

impl Parser<'_> {
    pub(super) fn forked_child(
        &mut self,
        n: usize,
        t: &str,
        rest: &str,
    ) -> Result<(), ImportError> {
        let child: u32 = rest.trim().parse().map_err(|_| {
            ImportError::at(
                n,
                format!("expected 'Forked child N' (openssl speed -multi), found '{t}'"),
            )
        })?;
        if child == 0 && self.seg.multi_lines.is_none() {
            self.boundary_if_results(n)?;
        }
        self.touch(n);
        let children = self
            .seg
            .run
            .field("multi")
            .and_then(|m| m.parse::<u32>().ok())
            .unwrap_or(0)
            .max(child + 1);
        self.seg.run.set("multi", children.to_string());
        self.seg.multi_lines.get_or_insert(n);
        Ok(())
    }

    /// `Got: +H:16:64:… from 0`: in 3.x the summed table that follows has no header of its own,
    /// so the children's +H line gives its sizes. The children's own figures are not kept: the
    /// summed table (or the parent's `+F` lines with `-mr`) carries the result.
    pub(super) fn got_line(&mut self, n: usize, t: &str, got: &str) -> Result<(), ImportError> {
        self.touch(n);
        self.seg.multi_lines.get_or_insert(n);
        if let Some(h) = got.strip_prefix("+H:") {
            let h = h.split(" from ").next().unwrap_or("");
            let sizes: Option<Vec<u64>> = h.split(':').map(|f| f.trim().parse().ok()).collect();
            match sizes {
                Some(sizes) if !sizes.is_empty() => self.seg.multi_sizes = Some((sizes, n)),
                _ => {
                    return Err(ImportError::at(
                        n,
                        format!("expected 'Got: +H:16:64:… from N', found '{}'", shorten(t)),
                    ))
                }
            }
        }
        Ok(())
    }
}

/// `85 from 79`, `om 156`, `.121212:123.493976 from 39`: what is left of a `Got: … from N` line
/// after another child's stderr line was written into its middle.
pub(super) fn is_got_fragment(t: &str) -> bool {
    let Some((_, child)) = t.rsplit_once(' ') else {
        return false;
    };
    let word = t[..t.len() - child.len()].split_whitespace().last();
    child.chars().all(|c| c.is_ascii_digit()) && word.is_some_and(|w| "from".ends_with(w))
}

/// `6216915 md5's in 0.99s` (the second half of a progress line split by interleaved output).
pub(super) fn is_count_line(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_digit())
        && t.contains(" in ")
        && t.trim_end().ends_with('s')
        && !t.contains(" bits ffdh")
        && !t.contains(" bits ecd")
}

/// A line a `-multi` child (or the parent relaying it) writes: `Got: …`, `+R…`, `+DT…`, `+F…`.
pub(super) fn is_child_line(raw: &str) -> bool {
    let t = raw.trim_start();
    t.starts_with("Got: ") || t.starts_with('+')
}
