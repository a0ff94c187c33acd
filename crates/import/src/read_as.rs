//! `import --as FROM=TO`: store a log's cells of one primitive under another's name, at the
//! user's word, so that `compare` puts them in one row with a measured run. Made for tables of
//! round-3 Kyber (SUPERCOP's and eBACS's `kyber768`, `bssl speed`'s Kyber rows), which the
//! importers keep as `kyber-768`, read beside ML-KEM-768 (the two differ in a few hashes; see
//! docs/import-and-compare.md). The run keeps what was done in its header (`read as`), with the
//! name each cell's log printed; a FROM that matches no cell, or a TO the catalog does not
//! know, is an error, never a silent no-op.

use crate::ParsedLog;
use cryptospeed_catalog as catalog;

/// `kyber-768=ml-kem-768` split at its `=`, TO resolved to its catalog id.
pub fn parse(spec: &str) -> Result<(String, String), String> {
    let (from, to) = spec
        .split_once('=')
        .filter(|(f, t)| !f.trim().is_empty() && !t.trim().is_empty())
        .ok_or_else(|| format!("--as {spec}: write it FROM=TO, e.g. kyber-768=ml-kem-768"))?;
    let to = catalog::resolve(to.trim())
        .map(|k| k.id().to_string())
        .ok_or_else(|| format!("--as {spec}: '{}' is not a catalog primitive", to.trim()))?;
    Ok((from.trim().to_ascii_lowercase(), to))
}

/// Renames every cell of `from` to `to` in every output of `log`; the number of cells renamed.
pub fn apply(log: &mut ParsedLog, from: &str, to: &str) -> usize {
    let mut renamed = 0;
    for run in &mut log.runs {
        let mut printed: Vec<String> = Vec::new();
        for r in run.results.iter_mut().filter(|r| r.primitive == from) {
            r.primitive = to.to_string();
            r.mapped = true;
            printed.push(r.printed_name.clone());
            renamed += 1;
        }
        if !printed.is_empty() {
            printed.sort();
            printed.dedup();
            let note = format!(
                "{from} (printed {}) stored as {to} at the user's word (import --as): another \
                 primitive's figures",
                printed.join(", ")
            );
            run.set("read as", note);
        }
    }
    renamed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{read, ImportOptions};

    const RECORDS: &str = "\
20221122 h amd64 20230112 crypto_kem kyber768 cpucycles_persecond 2500000000
20221122 h amd64 20230112 crypto_kem kyber768 keypair_cycles - 41742
20221122 h amd64 20230112 crypto_kem kyber768 enc_cycles - 57372
";

    #[test]
    fn kyber_cells_take_the_catalog_name_and_the_run_says_so() {
        let mut log = read(RECORDS, None, &ImportOptions::default()).unwrap();
        let (from, to) = parse("kyber-768=ML-KEM-768").unwrap();
        assert_eq!((from.as_str(), to.as_str()), ("kyber-768", "ml-kem-768"));
        assert_eq!(apply(&mut log, &from, &to), 2);
        let run = &log.runs[0];
        assert!(run
            .results
            .iter()
            .all(|r| r.primitive == "ml-kem-768" && r.mapped));
        assert!(run.field("read as").unwrap().contains("printed kyber768"));
        assert_eq!(
            apply(&mut log, "kyber-768", &to),
            0,
            "nothing left to rename"
        );
    }

    #[test]
    fn a_bad_spec_or_an_unknown_target_is_an_error() {
        assert!(parse("kyber-768").is_err());
        assert!(parse("=ml-kem-768").is_err());
        assert!(parse("kyber-768=no-such-kem").is_err());
    }
}
