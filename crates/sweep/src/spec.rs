//! The sweep file (TOML, described in docs/scale.md): what to measure, cut into how many shards,
//! with which extra options, and how Slurm should run it.

use anyhow::{anyhow, bail, Context, Result};
use cryptospeed_catalog::plan::{self, CellRef};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A sweep file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// The sweep's name in the store.
    pub name: String,
    /// `run` (timing) or `profile` (valgrind analysis of each cell).
    #[serde(default = "default_kind")]
    pub kind: String,
    /// `--impl` values (run: any number; profile: at most one).
    #[serde(default)]
    pub implementations: Vec<String>,
    /// Built variants (`--variant`).
    #[serde(default)]
    pub variants: Vec<String>,
    /// CPU-feature masks (run only), each its own variant.
    #[serde(default)]
    pub masks: Vec<String>,
    /// Primitives or groups.
    pub primitives: Vec<String>,
    /// Message sizes (numbers or `16k`-style text); default: openssl speed's sizes (run) or 256k
    /// (profile).
    #[serde(default)]
    pub sizes: Vec<SizeSpec>,
    /// How many shards at most (default: one per cell).
    #[serde(default)]
    pub shards: Option<usize>,
    /// More `run`/`profile` command-line options for every shard, e.g. ["--max-time", "0.5"].
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub slurm: SlurmSpec,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum SizeSpec {
    Bytes(u64),
    Text(String),
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlurmSpec {
    pub partition: Option<String>,
    pub time: Option<String>,
    /// Whole nodes per shard; default: yes for timing sweeps, no for profiles.
    pub exclusive: Option<bool>,
    /// The cryptospeed binary on the nodes (default: this one's absolute path).
    pub cryptospeed: Option<String>,
    /// More `#SBATCH` options, e.g. ["--constraint=zen4"].
    #[serde(default)]
    pub options: Vec<String>,
}

fn default_kind() -> String {
    "run".into()
}

/// Options a sweep sets itself for every shard.
const RESERVED: &[&str] = &["--multi", "--db", "--label", "--cells", "-o", "--output"];

impl SweepSpec {
    pub fn read(path: &Path) -> Result<SweepSpec> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read sweep file {}", path.display()))?;
        SweepSpec::parse(&text).map_err(|e| anyhow!("{}: {e:#}", path.display()))
    }

    pub fn parse(text: &str) -> Result<SweepSpec> {
        let spec: SweepSpec =
            toml::from_str(text).map_err(|e| anyhow!("{}", e.to_string().trim_end()))?;
        if spec.name.trim().is_empty() {
            bail!("the sweep needs a name");
        }
        if !["run", "profile"].contains(&spec.kind.as_str()) {
            bail!("kind '{}' is neither run nor profile", spec.kind);
        }
        if spec.kind == "profile" && !spec.masks.is_empty() {
            bail!("masks apply to timing sweeps (kind = \"run\") only");
        }
        let reserved = |o: &String| RESERVED.contains(&o.split('=').next().unwrap_or(""));
        if spec.options.iter().any(reserved) {
            bail!("options may not set --multi, --db, --label, --cells or --output: the sweep sets them");
        }
        Ok(spec)
    }

    /// Every cell of the matrix, in catalog order.
    pub fn cells(&self) -> Result<Vec<CellRef>> {
        let primitives = plan::select_list(&self.primitives)?;
        let sizes: Vec<String> = self
            .sizes
            .iter()
            .map(|s| match s {
                SizeSpec::Bytes(b) => b.to_string(),
                SizeSpec::Text(t) => t.clone(),
            })
            .collect();
        let sizes = if sizes.is_empty() && self.kind == "profile" {
            vec![262144]
        } else {
            plan::parse_sizes(&sizes)?
        };
        if self.kind == "profile" {
            if let Some(p) = primitives.iter().find(|p| !p.has_bytes()) {
                bail!(
                    "profile sweeps take bulk primitives only; {} has no message size",
                    p.id
                );
            }
        }
        Ok(plan::cell_refs(&primitives, &sizes))
    }

    /// The cells cut into shards: contiguous, as even as can be.
    pub fn shards(&self) -> Result<Vec<Vec<CellRef>>> {
        let cells = self.cells()?;
        if cells.is_empty() {
            bail!("the sweep has no cells");
        }
        let n = self.shards.unwrap_or(cells.len()).clamp(1, cells.len());
        Ok((0..n)
            .map(|k| cells[k * cells.len() / n..(k + 1) * cells.len() / n].to_vec())
            .collect())
    }

    /// The `cryptospeed` command line that runs shard `k` (its cells, every implementation,
    /// variant and mask, the file's options), labelled and linked to the sweep.
    pub fn command(&self, cells: &[CellRef], k: usize, label: &str, db: &str) -> Vec<String> {
        let mut argv = vec!["cryptospeed".to_string(), self.kind.clone()];
        let cells = cells.iter().map(CellRef::to_string);
        if self.kind == "run" {
            argv.extend(["--cells".into(), cells.collect::<Vec<_>>().join(",")]);
        } else {
            argv.extend(cells);
        }
        if !self.implementations.is_empty() {
            argv.extend(["--impl".into(), self.implementations.join(",")]);
        }
        if !self.variants.is_empty() {
            argv.extend(["--variant".into(), self.variants.join(",")]);
        }
        for m in &self.masks {
            argv.extend(["--mask".into(), m.clone()]);
        }
        argv.extend(self.options.iter().cloned());
        argv.extend(["--label".into(), label.into(), "--db".into(), db.into()]);
        argv.extend(["--sweep-shard".into(), format!("{k}:{}", self.name)]);
        argv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> SweepSpec {
        SweepSpec::parse(text).unwrap()
    }

    #[test]
    fn cells_are_cut_into_even_contiguous_shards() {
        let s = spec(
            "name = \"t\"\nprimitives = [\"md5\", \"sha256\", \"rsa2048\"]\nsizes = [64, \"1k\", 8192]\nshards = 4\n",
        );
        let cells = s.cells().unwrap();
        let text: Vec<String> = cells.iter().map(CellRef::to_string).collect();
        assert_eq!(
            text,
            [
                "md5@64",
                "md5@1024",
                "md5@8192",
                "sha256@64",
                "sha256@1024",
                "sha256@8192",
                "rsa-2048"
            ]
        );
        let shards = s.shards().unwrap();
        assert_eq!(shards.len(), 4);
        assert_eq!(shards.concat(), cells, "every cell once, in order");
        assert!(shards.iter().all(|c| (1..=2).contains(&c.len())));
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.toml");
        std::fs::write(&path, "name = \"t\"\nprimitves = [\"md5\"]\n").unwrap();
        let err = format!("{:#}", SweepSpec::read(&path).unwrap_err());
        assert!(err.contains("primitves") && err.contains("s.toml"), "{err}");
        let multi = "name = \"t\"\nprimitives = [\"md5\"]\noptions = [\"--multi\", \"2\"]\n";
        assert!(SweepSpec::parse(multi).is_err());
        let pk = "name = \"t\"\nkind = \"profile\"\nprimitives = [\"rsa2048\"]\n";
        assert!(SweepSpec::parse(pk).unwrap().cells().is_err());
    }
}
