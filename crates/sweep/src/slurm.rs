//! The sbatch script that runs a sweep's shards as a Slurm job array: one array task per shard,
//! each `cryptospeed sweep run NAME --shard $SLURM_ARRAY_TASK_ID/N`. No password is written into
//! it: tasks take `$CRYPTOSPEED_DB` from the environment sbatch passes on. Also submitting it.

use crate::SweepSpec;
use anyhow::Result;
use std::fmt::Write;
use std::path::Path;

/// Where and how the script's tasks run.
pub struct ScriptOptions<'a> {
    /// The sweep file the script was written from (named in its header).
    pub spec_path: &'a Path,
    /// The store (its password is never written).
    pub db: &'a str,
    /// The cryptospeed binary on the nodes.
    pub exe: &'a str,
    /// Where the tasks' output files go.
    pub out_dir: &'a Path,
    /// Overrides of the file's `[slurm]` partition and time.
    pub partition: Option<&'a str>,
    pub time: Option<&'a str>,
}

/// Whether each task takes whole nodes: the file's choice, else yes for timing sweeps.
pub fn exclusive(spec: &SweepSpec) -> bool {
    spec.slurm.exclusive.unwrap_or(spec.kind == "run")
}

/// The script for `spec` cut into `shards` shards holding `cells` cells in all.
pub fn script(spec: &SweepSpec, shards: usize, cells: usize, o: &ScriptOptions) -> String {
    let safe_name: String = spec
        .name
        .chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() || c == '-' || c == '_' => c,
            _ => '_',
        })
        .collect();
    let mut s = String::from("#!/bin/bash\n");
    let _ = writeln!(
        s,
        "# Written by `cryptospeed sweep slurm {}`: sweep '{}', {cells} cells in {shards} shards, one array task",
        o.spec_path.display(),
        spec.name.replace('\n', " ")
    );
    s.push_str("# per shard. A shard that is done exits at once, so submitting this again runs only what is\n");
    let _ = writeln!(
        s,
        "# missing. Store: {} — no password in this file: the tasks take $CRYPTOSPEED_DB from",
        cryptospeed_store::redact(o.db)
    );
    s.push_str("# the environment sbatch passes on, else the URL below with $PGPASSWORD.\n");
    let _ = writeln!(s, "#SBATCH --job-name=cryptospeed-{safe_name}");
    let _ = writeln!(s, "#SBATCH --array=0-{}", shards - 1);
    // A pre-empted task gets SIGTERM: its run stores its bouts and exits 143; requeued, the task
    // goes on with that run.
    s.push_str("#SBATCH --requeue\n");
    if exclusive(spec) {
        s.push_str("#SBATCH --exclusive\n");
    }
    if let Some(p) = o.partition.or(spec.slurm.partition.as_deref()) {
        let _ = writeln!(s, "#SBATCH --partition={p}");
    }
    if let Some(t) = o.time.or(spec.slurm.time.as_deref()) {
        let _ = writeln!(s, "#SBATCH --time={t}");
    }
    for option in &spec.slurm.options {
        let _ = writeln!(s, "#SBATCH {option}");
    }
    let out = o.out_dir.display();
    let _ = writeln!(
        s,
        "#SBATCH --output={out}/cryptospeed-{safe_name}-%A_%a.out"
    );
    s.push_str("set -euo pipefail\n");
    let url = cryptospeed_store::without_password(o.db)
        .replace('"', "\\\"")
        .replace('$', "\\$");
    let _ = writeln!(s, "export CRYPTOSPEED_DB=\"${{CRYPTOSPEED_DB:-{url}}}\"");
    let _ = writeln!(
        s,
        "exec {} sweep run {} --shard \"${{SLURM_ARRAY_TASK_ID}}/{shards}\"",
        shell_quote(o.exe),
        shell_quote(&spec.name)
    );
    s
}

/// Single-quotes a word for bash.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The cryptospeed program a job array runs: the sweep file's `[slurm] cryptospeed`, else this
/// very executable.
pub fn program(spec: &SweepSpec) -> Result<String> {
    Ok(match &spec.slurm.cryptospeed {
        Some(p) => p.clone(),
        None => std::env::current_exe()?
            .canonicalize()?
            .to_string_lossy()
            .into_owned(),
    })
}

/// `sbatch --parsable SCRIPT`; the job id.
pub fn submit(script: &std::path::Path) -> Result<String> {
    let out = std::process::Command::new("sbatch")
        .arg("--parsable")
        .arg(script)
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run sbatch ({e}); is Slurm installed here?"))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        anyhow::bail!("sbatch refused {}: {}", script.display(), why.trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_runs_one_task_per_shard_and_holds_no_password() {
        let spec = SweepSpec::parse("name = \"it's\"\nprimitives = [\"md5\"]\n").unwrap();
        let o = ScriptOptions {
            spec_path: Path::new("s.toml"),
            db: "postgres://u:secret@h/db",
            exe: "/opt/cs/cryptospeed",
            out_dir: Path::new("/tmp"),
            partition: Some("fast"),
            time: None,
        };
        let text = script(&spec, 4, 24, &o);
        assert!(text.contains("#SBATCH --array=0-3\n"), "{text}");
        assert!(text.contains("#SBATCH --requeue\n"), "{text}");
        assert!(text.contains("#SBATCH --exclusive\n"));
        assert!(text.contains("#SBATCH --partition=fast\n"));
        assert!(!text.contains("secret"), "{text}");
        assert!(text.contains(r"'it'\''s' --shard"), "{text}");
    }
}
