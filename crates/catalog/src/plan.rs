//! Cell planning: what a user's selection (`--algorithms`, `--bytes`, `--ops`, `--cells`, a
//! sweep file, a profile's `PRIMITIVE@SIZE` arguments) means as cells. One place parses sizes and
//! `PRIMITIVE@SIZE`, so `run`, sweeps and `profile` can never disagree about a spelling.

use crate::{lookup, Primitive};
use cryptospeed_model::{CellSpec, Op};
use std::fmt;

/// The default message sizes, as `openssl speed` 3.0 uses.
pub const DEFAULT_SIZES: &[u64] = &[16, 64, 256, 1024, 8192, 16384];
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Why a selection cannot be planned; the text is written for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError(pub String);

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlanError {}

impl From<crate::UnknownName> for PlanError {
    fn from(e: crate::UnknownName) -> PlanError {
        PlanError(e.to_string())
    }
}

/// Parses one size: a number with an optional k/K/KiB/M/MiB suffix (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, PlanError> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let suffixed = |units: [&str; 3]| units.iter().find_map(|u| lower.strip_suffix(u));
    let (digits, mult) = if let Some(d) = suffixed(["kib", "kb", "k"]) {
        (d, 1024)
    } else if let Some(d) = suffixed(["mib", "mb", "m"]) {
        (d, 1024 * 1024)
    } else {
        (lower.strip_suffix('b').unwrap_or(&lower), 1)
    };
    let n: u64 = digits.trim().parse().map_err(|_| {
        PlanError(format!(
            "'{t}' is not a size (examples: 16, 8192, 1k, 16MiB)"
        ))
    })?;
    let bytes = n.saturating_mul(mult);
    if !(1..=MAX_BYTES).contains(&bytes) {
        return Err(PlanError(format!(
            "message size {t} is outside 1 B to 16 MiB"
        )));
    }
    Ok(bytes)
}

/// Comma-separated sizes, sorted, without duplicates; empty means [`DEFAULT_SIZES`].
pub fn parse_sizes(list: &[String]) -> Result<Vec<u64>, PlanError> {
    let mut out = Vec::new();
    for item in split_list(list) {
        let b = parse_size(item)?;
        if !out.contains(&b) {
            out.push(b);
        }
    }
    if out.is_empty() {
        return Ok(DEFAULT_SIZES.to_vec());
    }
    out.sort_unstable();
    Ok(out)
}

/// Expands comma-separated names, aliases and groups; empty means every primitive.
pub fn select_list(names: &[String]) -> Result<Vec<&'static Primitive>, PlanError> {
    let list: Vec<String> = split_list(names).map(str::to_string).collect();
    if list.is_empty() {
        return Ok(crate::all().iter().collect());
    }
    Ok(crate::select(&list)?)
}

/// `--ops`: comma-separated operations or `all`; empty means each primitive's defaults (`None`).
pub fn parse_ops(list: &[String]) -> Result<Option<Vec<Op>>, PlanError> {
    let items: Vec<&str> = split_list(list).collect();
    if items.is_empty() {
        return Ok(None);
    }
    if items == ["all"] {
        return Ok(Some(Op::ALL.to_vec()));
    }
    let parse = |s: &str| {
        Op::parse(s).ok_or_else(|| {
            let known: Vec<&str> = Op::ALL.iter().map(|o| o.as_str()).collect();
            PlanError(format!(
                "unknown operation '{s}' (known: {}, all)",
                known.join(", ")
            ))
        })
    };
    items
        .into_iter()
        .map(parse)
        .collect::<Result<_, _>>()
        .map(Some)
}

/// The non-empty, trimmed items of comma-separated option values.
fn split_list(list: &[String]) -> impl Iterator<Item = &str> {
    list.iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The cells of primitives × sizes × operations (`ops`: `None` for each primitive's openssl speed
/// operations). Public-key primitives have one cell per operation and no size.
pub fn cells(
    primitives: &[&'static Primitive],
    sizes: &[u64],
    ops: &Option<Vec<Op>>,
    misalign: u32,
) -> Vec<CellSpec> {
    let mut out = Vec::new();
    for p in primitives {
        let chosen: Vec<Op> = match ops {
            Some(list) => p
                .ops()
                .iter()
                .copied()
                .filter(|o| list.contains(o))
                .collect(),
            None => p.default_ops().to_vec(),
        };
        for op in chosen {
            let cell = |bytes, misalign| CellSpec {
                primitive: p.id.into(),
                op,
                bytes,
                misalign,
            };
            if p.has_bytes() {
                out.extend(sizes.iter().map(|b| cell(Some(*b), misalign)));
            } else {
                out.push(cell(None, 0));
            }
        }
    }
    out
}

/// A selection as the `run` options give it: the cells named by `cells` (`PRIMITIVE@SIZE`
/// lists) when there are any, else `algorithms` × `sizes`; each with the operations `ops` names
/// (or the primitive's default ones).
pub struct Selection<'a> {
    pub algorithms: &'a [String],
    pub sizes: &'a [String],
    pub cells: &'a [String],
    pub ops: &'a [String],
    pub misalign: u32,
}

impl Selection<'_> {
    /// The selection's cells, or why it cannot be planned.
    pub fn plan(&self) -> Result<Vec<CellSpec>, PlanError> {
        let ops = parse_ops(self.ops)?;
        if self.cells.is_empty() {
            let primitives = select_list(self.algorithms)?;
            return Ok(cells(
                &primitives,
                &parse_sizes(self.sizes)?,
                &ops,
                self.misalign,
            ));
        }
        let named =
            CellRef::parse_list(self.cells).map_err(|e| PlanError(format!("--cells: {e}")))?;
        Ok(named
            .iter()
            .flat_map(|c| c.cells(&ops, self.misalign))
            .collect())
    }
}

/// One named cell: a primitive and, for bulk primitives, a message size (`PRIMITIVE@SIZE`, or
/// `PRIMITIVE` for public-key ones). Written and read as that text, which is how sweep shards
/// store their cells.
#[derive(Debug, Clone, Copy)]
pub struct CellRef {
    pub primitive: &'static Primitive,
    pub bytes: Option<u64>,
}

impl CellRef {
    /// Parses `PRIMITIVE@SIZE` (any spelling of one primitive; `default_bytes` when a bulk
    /// primitive has no size, or an error when there is none).
    pub fn parse(text: &str, default_bytes: Option<u64>) -> Result<CellRef, PlanError> {
        let (name, bytes) = split_cell(text)?;
        let primitive = lookup(name).ok_or_else(|| {
            let near = crate::suggest(name);
            PlanError(match near.is_empty() {
                true => format!("unknown primitive '{name}'; `cryptospeed list` shows them all"),
                false => format!(
                    "unknown primitive '{name}'; did you mean {}?",
                    near.join(", ")
                ),
            })
        })?;
        CellRef::sized(primitive, bytes.or(default_bytes), text)
    }

    /// Comma-separated `PRIMITIVE@SIZE` items; a group name (`GROUP@SIZE`) stands for each of
    /// its primitives at that size.
    pub fn parse_list(list: &[String]) -> Result<Vec<CellRef>, PlanError> {
        let mut out = Vec::new();
        for item in split_list(list) {
            let (name, bytes) = split_cell(item)?;
            for primitive in crate::select(&[name.to_string()])? {
                out.push(CellRef::sized(primitive, bytes, item)?);
            }
        }
        Ok(out)
    }

    fn sized(
        primitive: &'static Primitive,
        bytes: Option<u64>,
        text: &str,
    ) -> Result<CellRef, PlanError> {
        match (primitive.has_bytes(), bytes) {
            (true, None) => Err(PlanError(format!(
                "'{}' needs a size (PRIMITIVE@SIZE)",
                text.trim()
            ))),
            (has_bytes, bytes) => Ok(CellRef {
                primitive,
                bytes: bytes.filter(|_| has_bytes),
            }),
        }
    }

    /// The cells this names: one per operation (`ops` as in [`cells`]).
    pub fn cells(&self, ops: &Option<Vec<Op>>, misalign: u32) -> Vec<CellSpec> {
        let sizes: Vec<u64> = self.bytes.into_iter().collect();
        cells(&[self.primitive], &sizes, ops, misalign)
    }
}

impl PartialEq for CellRef {
    fn eq(&self, other: &CellRef) -> bool {
        self.primitive.id == other.primitive.id && self.bytes == other.bytes
    }
}

impl Eq for CellRef {}

impl serde::Serialize for CellRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for CellRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CellRef, D::Error> {
        let text = String::deserialize(d)?;
        CellRef::parse(&text, None).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for CellRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.bytes {
            Some(b) => write!(f, "{}@{b}", self.primitive.id),
            None => f.write_str(self.primitive.id),
        }
    }
}

/// `PRIMITIVE@SIZE` split into the name and the parsed size.
fn split_cell(text: &str) -> Result<(&str, Option<u64>), PlanError> {
    let item = text.trim();
    match item.split_once('@') {
        Some((n, s)) => Ok((n.trim(), Some(parse_size(s)?))),
        None => Ok((item, None)),
    }
}

/// Every named cell of primitives × sizes: bulk primitives at each size, public-key ones once.
pub fn cell_refs(primitives: &[&'static Primitive], sizes: &[u64]) -> Vec<CellRef> {
    let mut out = Vec::new();
    for &primitive in primitives {
        if primitive.has_bytes() {
            out.extend(sizes.iter().map(|b| CellRef {
                primitive,
                bytes: Some(*b),
            }));
        } else {
            out.push(CellRef {
                primitive,
                bytes: None,
            });
        }
    }
    out
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
        assert!(parse_size("99999999999999999999k").is_err());
        assert_eq!(parse_sizes(&["8192,16".into()]).unwrap(), vec![16, 8192]);
        assert_eq!(parse_sizes(&[]).unwrap(), DEFAULT_SIZES);
    }

    #[test]
    fn cell_refs_round_trip_through_their_text() {
        let r = CellRef::parse("SHA256@1k", None).unwrap();
        assert_eq!(r.to_string(), "sha256@1024");
        assert_eq!(CellRef::parse(&r.to_string(), None).unwrap(), r);
        assert_eq!(
            CellRef::parse("rsa2048", None).unwrap().to_string(),
            "rsa-2048"
        );
        assert!(CellRef::parse("md5", None).is_err());
        assert_eq!(CellRef::parse("md5", Some(64)).unwrap().bytes, Some(64));
        assert!(CellRef::parse("nosuch@16", None).is_err());
        let json = serde_json::to_string(&vec![r]).unwrap();
        assert_eq!(json, r#"["sha256@1024"]"#);
        assert_eq!(
            serde_json::from_str::<Vec<CellRef>>(&json).unwrap(),
            vec![r]
        );
    }

    #[test]
    fn cells_follow_operations_and_sizes() {
        let p = select_list(&["sha256,rsa2048".into()]).unwrap();
        let c = cells(&p, &[16, 64], &None, 3);
        assert_eq!(c.iter().filter(|c| c.primitive == "sha256").count(), 2);
        assert!(c
            .iter()
            .any(|c| c.primitive == "rsa-2048" && c.bytes.is_none()));
        assert!(c.iter().all(|c| c.bytes.is_some() == (c.misalign == 3)));
        let only_verify = parse_ops(&["verify".into()]).unwrap();
        assert!(cells(&p, &[16], &only_verify, 0)
            .iter()
            .all(|c| c.op == Op::Verify));
    }
}
