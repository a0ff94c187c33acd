//! Parsing of the list-valued options (`--bytes 16,1k,16MiB`, `--algorithms`, `--ops`) and the
//! shared selection of what to measure.

use anyhow::{bail, Context, Result};
use cryptospeed_catalog::Primitive;
use cryptospeed_model::Op;

/// The default message sizes, as `openssl speed` 3.0 uses.
pub const DEFAULT_SIZES: &[u64] = &[16, 64, 256, 1024, 8192, 16384];
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Parses one size: a number with an optional k/K/KiB/M/MiB suffix (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let (digits, mult) = if let Some(d) = lower
        .strip_suffix("kib")
        .or(lower.strip_suffix("kb"))
        .or(lower.strip_suffix('k'))
    {
        (d, 1024)
    } else if let Some(d) = lower
        .strip_suffix("mib")
        .or(lower.strip_suffix("mb"))
        .or(lower.strip_suffix('m'))
    {
        (d, 1024 * 1024)
    } else {
        (lower.strip_suffix('b').unwrap_or(&lower), 1)
    };
    let n: u64 = digits
        .trim()
        .parse()
        .with_context(|| format!("'{t}' is not a size (examples: 16, 8192, 1k, 16MiB)"))?;
    let bytes = n * mult;
    if !(1..=MAX_BYTES).contains(&bytes) {
        bail!("message size {t} is outside 1 B to 16 MiB");
    }
    Ok(bytes)
}

pub fn parse_sizes(list: &[String]) -> Result<Vec<u64>> {
    if list.is_empty() {
        return Ok(DEFAULT_SIZES.to_vec());
    }
    let mut out = Vec::new();
    for item in list
        .iter()
        .flat_map(|s| s.split(','))
        .filter(|s| !s.trim().is_empty())
    {
        let b = parse_size(item)?;
        if !out.contains(&b) {
            out.push(b);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// Expands `--algorithms` (names, aliases and groups; empty means all).
pub fn select(names: &[String]) -> Result<Vec<&'static Primitive>> {
    let list: Vec<String> = names
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::to_string)
        .collect();
    if list.iter().all(|s| s.trim().is_empty()) {
        return Ok(cryptospeed_catalog::all().iter().collect());
    }
    Ok(cryptospeed_catalog::select(&list)?)
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

pub fn parse_ops(list: &[String]) -> Result<Option<Vec<Op>>> {
    let items: Vec<&str> = list
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if items.is_empty() {
        return Ok(None);
    }
    if items == ["all"] {
        return Ok(Some(Op::ALL.to_vec()));
    }
    items
        .into_iter()
        .map(|s| {
            Op::parse(s).with_context(|| {
                let known: Vec<&str> = Op::ALL.iter().map(|o| o.as_str()).collect();
                format!("unknown operation '{s}' (known: {}, all)", known.join(", "))
            })
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("16").unwrap(), 16);
        assert_eq!(parse_size("1k").unwrap(), 1024);
        assert_eq!(parse_size("16MiB").unwrap(), 16 << 20);
        assert_eq!(parse_size("64B").unwrap(), 64);
        assert!(parse_size("0").is_err());
        assert!(parse_size("17MiB").is_err());
        assert!(parse_size("lots").is_err());
        assert_eq!(parse_sizes(&["8192,16".into()]).unwrap(), vec![16, 8192]);
        assert_eq!(parse_sizes(&[]).unwrap(), DEFAULT_SIZES);
    }
}
