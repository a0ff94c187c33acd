//! What every command that measures or reads results shares: where the store is, the Ctrl-C flag,
//! and writing output to a file atomically.

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where the results are: `--db`, flattened into every command that reads or writes them.
#[derive(Args)]
pub struct StoreArgs {
    /// Results store: a SQLite file, or a postgres://USER@HOST/DB URL (password from $PGPASSWORD or the URL, never printed). Default: $CRYPTOSPEED_DB, else ~/.local/share/cryptospeed/results.db.
    #[arg(long)]
    pub db: Option<String>,
}

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

/// How a measuring run keeps going when its store fails (`RecorderOptions::from_env`): spools
/// beside the default store unless `$CRYPTOSPEED_SPOOL` says where.
pub fn recording(retry_s: f64) -> Result<cryptospeed_store::RecorderOptions> {
    let default_spool = dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("cryptospeed")
        .join("spool");
    cryptospeed_store::RecorderOptions::from_env(retry_s, default_spool).map_err(anyhow::Error::msg)
}

/// This process's command line as it is stored with a run: a PostgreSQL URL among the arguments
/// has its password replaced by `***`.
pub fn command_line() -> String {
    cryptospeed_store::redact_command_line(std::env::args())
}

/// Set by the SIGTERM handler (all a signal handler may safely do).
static TERMINATED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigterm(_: libc::c_int) {
    TERMINATED.store(true, Ordering::SeqCst);
}

/// Whether this process received SIGTERM (a scheduler pre-empting the job, `kill`).
pub fn terminated() -> bool {
    TERMINATED.load(Ordering::SeqCst)
}

/// Installs the Ctrl-C and SIGTERM handlers; the flag turns true on the first SIGINT or SIGTERM
/// (a SIGTERM is seen within 50 ms), and [`terminated`] tells which.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let _ = ctrlc::set_handler(move || f.store(true, Ordering::SeqCst));
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe { libc::signal(libc::SIGTERM, on_sigterm as *const () as libc::sighandler_t) };
    let f = flag.clone();
    std::thread::spawn(move || loop {
        if terminated() {
            f.store(true, Ordering::SeqCst);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    });
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
