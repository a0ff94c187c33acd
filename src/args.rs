//! The option parsers commands share, as anyhow results: the cell planning itself lives in the
//! catalog (`cryptospeed_catalog::plan`).

use anyhow::Result;
use cryptospeed_catalog::plan;

pub fn parse_size(text: &str) -> Result<u64> {
    Ok(plan::parse_size(text)?)
}

/// The hidden `--sweep-shard K:NAME` a sweep passes to the run it starts.
pub fn parse_shard_ref(text: &str) -> Result<(String, usize)> {
    match text.split_once(':') {
        Some((k, name)) if !name.is_empty() => match k.parse() {
            Ok(k) => Ok((name.to_string(), k)),
            Err(_) => anyhow::bail!("--sweep-shard wants K:NAME, got '{text}'"),
        },
        _ => anyhow::bail!("--sweep-shard wants K:NAME, got '{text}'"),
    }
}
