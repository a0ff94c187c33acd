//! What lets a run go on in another process (`run --resume`): the run's resume key, stored when
//! it begins, names everything its figures depend on (the machine, the tool, every variant's
//! build by the hash of its files, the settings and the cells); a resumed run recomputes it and
//! refuses, saying what changed, unless it is the same. Bouts from before and after the break are
//! then bouts of one measurement, taken in other processes and rounds as the design wants.

use crate::Plan;
use anyhow::{bail, Result};
use cryptospeed_model::{Machine, RunRecord, Variant};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Everything a resumed run must find unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Key {
    machine: String,
    tool_version: String,
    /// SHA-256 of the cryptospeed binary, which is also the worker of in-process libraries.
    tool_sha256: String,
    variants: Vec<Build>,
    settings: serde_json::Value,
    cells: Vec<String>,
    /// The command's arguments (passwords redacted), so `run --resume` can take the run's
    /// settings again whatever spaces they hold; not compared.
    #[serde(default)]
    argv: Vec<String>,
}

/// One variant as built: its identity and its library file's hash, when it has one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Build {
    label: String,
    fingerprint: String,
    library_sha256: Option<String>,
}

/// The stored run a resumed run continues.
#[derive(Debug, Clone)]
pub struct ResumeFrom {
    /// The run as stored, with its finished and partial cells.
    pub record: RunRecord,
    /// Its resume key (`None`: stored before runs could be resumed, or by a schedule that
    /// cannot be).
    pub key: Option<String>,
}

fn sha256_of(path: &std::path::Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).ok()?;
    Some(hex::encode(hasher.finalize()))
}

/// The resume key of a run of `plan` on `machine` with these variants, as JSON.
pub(crate) fn key(machine: &Machine, variants: &[Variant], plan: &Plan, tool: &str) -> String {
    let exe = std::env::current_exe().ok();
    let key = Key {
        machine: machine.fingerprint(),
        tool_version: tool.to_string(),
        tool_sha256: exe.and_then(|p| sha256_of(&p)).unwrap_or_default(),
        variants: variants
            .iter()
            .map(|v| Build {
                label: v.label.clone(),
                fingerprint: v.fingerprint(),
                library_sha256: sha256_of(std::path::Path::new(&v.library)),
            })
            .collect(),
        settings: serde_json::to_value(&plan.config).unwrap_or_default(),
        cells: plan.cells.iter().map(|c| format!("{c:?}")).collect(),
        argv: std::env::args()
            .map(|a| cryptospeed_store::redact_command_line([a]))
            .collect(),
    };
    serde_json::to_string(&key).unwrap_or_default()
}

/// The arguments of the command that began the run, as its resume key holds them (empty for a
/// key written before it held them).
pub fn argv_of(key: &str) -> Vec<String> {
    serde_json::from_str::<Key>(key).map_or(Vec::new(), |k| k.argv)
}

/// Refuses a resume whose key differs from the stored one, naming the first difference.
pub(crate) fn check(from: &ResumeFrom, fresh: &str) -> Result<()> {
    let run = from.record.run.id;
    let Some(stored) = &from.key else {
        bail!("run {run} cannot be resumed: it was stored without a resume key (an older cryptospeed, or --multi)");
    };
    let (Ok(then), Ok(now)) = (
        serde_json::from_str::<Key>(stored),
        serde_json::from_str::<Key>(fresh),
    ) else {
        bail!("run {run} cannot be resumed: its resume key is unreadable");
    };
    if let Some(why) = difference(&then, &now) {
        bail!("run {run} cannot be resumed: {why}; the store is unchanged");
    }
    Ok(())
}

/// What differs between the run as stored and as it would go on, in words.
fn difference(then: &Key, now: &Key) -> Option<String> {
    if then.machine != now.machine {
        return Some(format!(
            "it ran on another machine ({}), this is {}",
            then.machine, now.machine
        ));
    }
    if then.tool_version != now.tool_version || then.tool_sha256 != now.tool_sha256 {
        return Some(format!(
            "it was measured by another cryptospeed build ({} sha256 {:.12}), this is {} sha256 {:.12}",
            then.tool_version, then.tool_sha256, now.tool_version, now.tool_sha256
        ));
    }
    if then.settings != now.settings || then.cells != now.cells {
        return Some("its settings or cells differ from the ones it began with".into());
    }
    let labels = |k: &Key| {
        k.variants
            .iter()
            .map(|v| v.label.clone())
            .collect::<Vec<_>>()
    };
    if labels(then) != labels(now) {
        return Some(format!(
            "its variants were {:?}, now {:?}",
            labels(then),
            labels(now)
        ));
    }
    let changed = then
        .variants
        .iter()
        .zip(&now.variants)
        .find(|(a, b)| a != b)?;
    Some(format!(
        "the build of variant '{}' changed since (its library's files differ: sha256 {} then, {} now)",
        changed.0.label,
        changed.0.library_sha256.as_deref().unwrap_or("-"),
        changed.1.library_sha256.as_deref().unwrap_or("-")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_of(machine: &str, library: Option<&str>) -> Key {
        Key {
            machine: machine.into(),
            tool_version: "0.1.0".into(),
            tool_sha256: "ab".into(),
            variants: vec![Build {
                label: "openssl".into(),
                fingerprint: "openssl|3".into(),
                library_sha256: library.map(str::to_string),
            }],
            settings: serde_json::json!({"max_time_s": 1.0}),
            cells: vec!["md5@16".into()],
            argv: vec!["cryptospeed".into(), "run".into()],
        }
    }

    #[test]
    fn each_difference_is_named() {
        let a = key_of("host-a", Some("11"));
        assert_eq!(difference(&a, &a.clone()), None);
        let other = difference(&a, &key_of("host-b", Some("11"))).unwrap();
        assert!(other.contains("another machine"), "{other}");
        let rebuilt = difference(&a, &key_of("host-a", Some("22"))).unwrap();
        assert!(rebuilt.contains("'openssl' changed"), "{rebuilt}");
        let mut slower = a.clone();
        slower.settings = serde_json::json!({"max_time_s": 2.0});
        assert!(difference(&a, &slower).unwrap().contains("settings"));
        let mut called = a.clone();
        called.argv = vec!["--label".into(), "a b".into()];
        assert_eq!(
            difference(&a, &called),
            None,
            "the arguments are not compared"
        );
        let text = serde_json::to_string(&called).unwrap();
        assert_eq!(argv_of(&text), ["--label", "a b"]);
    }
}
