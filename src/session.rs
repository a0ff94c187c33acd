//! What every command that measures or reads results shares: where the store is, how a worker
//! for an implementation is started, the Ctrl-C flag, and writing output to a file atomically.

use anyhow::{Context, Result};
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_engine::worker_client::{WorkerClient, WorkerSpec};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The store a command uses: `--db`, else `$CRYPTOSPEED_DB`, else the user's data directory.
pub fn db_location(db: &Option<String>) -> String {
    if let Some(d) = db {
        return d.clone();
    }
    if let Ok(d) = std::env::var("CRYPTOSPEED_DB") {
        if !d.is_empty() {
            return d;
        }
    }
    let base = dirs::data_dir().unwrap_or_else(|| PathBuf::from("."));
    base.join("cryptospeed")
        .join("results.db")
        .to_string_lossy()
        .into_owned()
}

/// This process's command line as it is stored with a run: a PostgreSQL URL among the arguments
/// has its password replaced by `***`.
pub fn command_line() -> String {
    cryptospeed_store::redact_command_line(std::env::args())
}

/// An implementation selector: `NAME` or `NAME:LIBRARY_PATH`, with the CPU-feature mask its
/// worker runs under.
#[derive(Debug, Clone)]
pub struct ImplChoice {
    pub name: String,
    pub library: Option<String>,
    pub mask: FeatureMask,
    /// A variant built by `cryptospeed variant build`: its label and build record replace what
    /// the library says of itself.
    pub built: Option<BuiltVariant>,
}

/// What a run records of a built variant.
#[derive(Debug, Clone)]
pub struct BuiltVariant {
    pub label: String,
    pub build_info: Vec<String>,
}

/// Implementations that read `OPENSSL_ia32cap` at start-up (the worker or the `openssl speed` it
/// runs inherits the environment).
const HONOURS_OPENSSL_IA32CAP: &[&str] = &["openssl", "openssl-cli"];

/// Every implementation name `--impl all` expands to.
pub fn all_implementations() -> Vec<String> {
    cryptospeed_impls::REGISTRY
        .iter()
        .map(|(n, _, _)| n.to_string())
        .collect()
}

impl ImplChoice {
    /// A comma-separated list of selectors; `all` is every implementation.
    pub fn parse_list(text: &str) -> Result<Vec<ImplChoice>> {
        let mut out: Vec<ImplChoice> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let choices = if part == "all" {
                all_implementations()
                    .iter()
                    .map(|n| ImplChoice::parse(n))
                    .collect()
            } else {
                vec![ImplChoice::parse(part)]
            };
            for c in choices {
                if !all_implementations().contains(&c.name) {
                    anyhow::bail!(
                        "unknown implementation '{}'; known: {}",
                        c.name,
                        all_implementations().join(", ")
                    );
                }
                if !out
                    .iter()
                    .any(|o| o.name == c.name && o.library == c.library)
                {
                    out.push(c);
                }
            }
        }
        if out.is_empty() {
            anyhow::bail!("--impl names no implementation");
        }
        Ok(out)
    }

    /// How the selector is shown to the user.
    pub fn display(&self) -> String {
        let base = match (&self.built, &self.library) {
            (Some(b), _) => b.label.clone(),
            (None, Some(l)) => format!("{}:{l}", self.name),
            (None, None) => self.name.clone(),
        };
        if self.mask.is_empty() {
            base
        } else {
            format!("{base}+{}", self.mask.label())
        }
    }

    pub fn parse(text: &str) -> ImplChoice {
        match text.split_once(':') {
            Some((n, lib)) => ImplChoice {
                name: n.to_string(),
                library: Some(lib.to_string()),
                mask: FeatureMask::default(),
                built: None,
            },
            None => ImplChoice {
                name: text.to_string(),
                library: None,
                mask: FeatureMask::default(),
                built: None,
            },
        }
    }

    pub fn spec(&self, pin: Option<usize>) -> Result<WorkerSpec> {
        let mut args = vec![
            "worker".to_string(),
            "--impl".to_string(),
            self.name.clone(),
        ];
        if let Some(lib) = &self.library {
            args.extend(["--lib".to_string(), lib.clone()]);
        }
        if let Some(cpu) = pin {
            args.extend(["--pin".to_string(), cpu.to_string()]);
        }
        let mut env = Vec::new();
        if let Some(cap) = self.mask.openssl_ia32cap() {
            if !HONOURS_OPENSSL_IA32CAP.contains(&self.name.as_str()) {
                anyhow::bail!(
                    "implementation '{}' cannot honour the CPU-feature mask {} (only {} read OPENSSL_ia32cap; the others choose their code paths without a way to override them)",
                    self.name,
                    self.mask,
                    HONOURS_OPENSSL_IA32CAP.join(", ")
                );
            }
            env.push(("OPENSSL_ia32cap".to_string(), cap));
        }
        Ok(WorkerSpec {
            program: std::env::current_exe()
                .context("cannot find the cryptospeed executable to start a worker")?,
            args,
            env,
        })
    }

    pub fn start(&self, pin: Option<usize>, cancel: &AtomicBool) -> Result<WorkerClient> {
        let spec = self.spec(pin)?;
        WorkerClient::spawn(&spec, cancel)
            .map_err(|e| anyhow::anyhow!("implementation '{}': {e}", self.name))
    }
}

/// Installs the Ctrl-C handler; the flag turns true on the first SIGINT/SIGTERM.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let _ = ctrlc::set_handler(move || f.store(true, Ordering::SeqCst));
    flag
}

/// Writes text to `--output FILE` (through a temporary file and a rename, so a reader never sees
/// half a file) or to stdout.
pub fn emit(text: &str, output: &Option<PathBuf>) -> Result<()> {
    match output {
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
        Some(path) => write_atomically(path, text.as_bytes())?,
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so an interrupted
/// or failed write never leaves half a file.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp-cryptospeed");
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// A plain text table with this header, as the listing commands print them.
pub fn table(header: &[&str]) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::NOTHING);
    t.set_header(header.to_vec());
    t
}
