//! What every command that measures or reads results shares: where the store is, how a worker
//! for an implementation is started, the Ctrl-C flag, and writing output to a file atomically.

use anyhow::{Context, Result};
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

/// An implementation selector: `NAME` or `NAME:LIBRARY_PATH`.
#[derive(Debug, Clone)]
pub struct ImplChoice {
    pub name: String,
    pub library: Option<String>,
}

impl ImplChoice {
    pub fn parse(text: &str) -> ImplChoice {
        match text.split_once(':') {
            Some((n, lib)) => ImplChoice {
                name: n.to_string(),
                library: Some(lib.to_string()),
            },
            None => ImplChoice {
                name: text.to_string(),
                library: None,
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
        Ok(WorkerSpec {
            program: std::env::current_exe()
                .context("cannot find the cryptospeed executable to start a worker")?,
            args,
            env: Vec::new(),
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
        Some(path) => {
            let tmp = path.with_extension("tmp-cryptospeed");
            std::fs::write(&tmp, text)
                .with_context(|| format!("cannot write {}", tmp.display()))?;
            std::fs::rename(&tmp, path)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}
