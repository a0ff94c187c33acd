//! What every command that measures or reads results shares: where the store is, the Ctrl-C flag,
//! and writing output to a file atomically.

use anyhow::{Context, Result};
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

/// How a measuring run keeps going when its store fails: retry for `retry_s` seconds, beat every
/// `$CRYPTOSPEED_HEARTBEAT_S` seconds (default 10), spool to `$CRYPTOSPEED_SPOOL`, else `spool/`
/// beside the default store.
pub fn recording(retry_s: f64) -> Result<cryptospeed_store::RecorderOptions> {
    if !(retry_s >= 0.0 && retry_s.is_finite()) {
        anyhow::bail!("--store-retry must be a number of seconds ≥ 0");
    }
    let spool_dir = match std::env::var("CRYPTOSPEED_SPOOL") {
        Ok(d) if !d.is_empty() => PathBuf::from(d),
        _ => dirs::data_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join("cryptospeed")
            .join("spool"),
    };
    let mut options = cryptospeed_store::RecorderOptions::new(spool_dir);
    options.retry_window = std::time::Duration::from_secs_f64(retry_s);
    if let Ok(text) = std::env::var("CRYPTOSPEED_HEARTBEAT_S") {
        let seconds: f64 = text
            .parse()
            .ok()
            .filter(|s: &f64| *s > 0.0 && s.is_finite())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "CRYPTOSPEED_HEARTBEAT_S must be a positive number of seconds, not '{text}'"
                )
            })?;
        options.heartbeat = std::time::Duration::from_secs_f64(seconds);
    }
    Ok(options)
}

/// This process's command line as it is stored with a run: a PostgreSQL URL among the arguments
/// has its password replaced by `***`.
pub fn command_line() -> String {
    cryptospeed_store::redact_command_line(std::env::args())
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
    // A device or pipe (`-o /dev/null`, `-o /dev/stdout`) is written as it is: renaming a file
    // over it would replace the device itself.
    if path.metadata().is_ok_and(|m| !m.is_file()) {
        return std::fs::write(path, bytes)
            .with_context(|| format!("cannot write {}", path.display()));
    }
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
