//! Running a process under valgrind with a trace going somewhere we can read it: cstrace into a
//! FIFO read concurrently (nothing touches the disk), or lackey into a file parsed afterwards
//! (the fallback when cstrace cannot be built). Shared by `profile` and `trace`; the valgrind
//! tool itself is built and found by `cryptospeed_sim::tool`. A cross-built variant, which
//! valgrind cannot run, is traced by qemu-user instead ([`super::qemu`]) into the same FIFO.

use super::qemu::{self, QemuTracer};
use anyhow::{Context, Result};
use cryptospeed_sim::decode::Decoded;
use cryptospeed_sim::isa::Isa;
use cryptospeed_sim::tool::{self, Cstrace};
use cryptospeed_sim::trace::{self, Sink, TraceTotals};
use cryptospeed_variants::Arch;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// What writes the trace: a valgrind tool, or qemu-user with our plugin.
#[derive(Debug, Clone)]
pub enum Tracer {
    Cstrace(Cstrace),
    Lackey,
    Qemu(QemuTracer),
}

impl Tracer {
    pub fn name(&self) -> &'static str {
        match self {
            Tracer::Cstrace(_) => "cstrace",
            Tracer::Lackey => "lackey",
            Tracer::Qemu(_) => "qemu",
        }
    }

    /// The instruction set of the code it traces.
    pub fn isa(&self) -> Isa {
        match self {
            Tracer::Qemu(q) => q.isa,
            _ => Isa::X86_64,
        }
    }

    /// Whether the trace arrives through a FIFO read as it is written (all but lackey's).
    pub fn streams(&self) -> bool {
        !matches!(self, Tracer::Lackey)
    }
}

/// Where cstrace is built: beside the variants, in the cache root they use.
pub fn tool_cache() -> PathBuf {
    cryptospeed_variants::cache::Cache::open(None)
        .root()
        .join("valgrind-tool")
}

/// The tracer for `profile --tracer NAME [--variant VARIANT]`: a cross-built variant is traced
/// by qemu (`auto` or `qemu`; valgrind cannot run it); otherwise `auto` builds cstrace and
/// falls back to lackey (saying why), `cstrace` and `lackey` force, and `qemu` runs this
/// machine's worker under its own qemu-user emulator. A variant with its own C worker, whose
/// markers make no valgrind request, is traced by qemu under `auto` (an i386 one by nothing:
/// the error says so) and refused by cstrace.
pub fn choose_for(name: &str, variant: Option<&str>) -> Result<Tracer> {
    let foreign = qemu::emulated_arch(variant);
    let c_worker = qemu::c_worker_arch(variant);
    match (name, foreign) {
        ("qemu", _) | ("auto", Some(_)) => Ok(Tracer::Qemu(qemu::tracer(foreign)?)),
        ("cstrace" | "lackey", Some(arch)) => anyhow::bail!(
            "--tracer {name}: the variant is built for {} and valgrind cannot run it; use --tracer qemu (or auto)",
            arch.as_str()
        ),
        ("auto", None) if c_worker.is_some() => {
            let tracer = qemu::tracer(c_worker.filter(|a| Some(*a) != Arch::host()))?;
            eprintln!("cryptospeed: the variant's C worker makes no valgrind client request; tracing it under qemu-user");
            Ok(Tracer::Qemu(tracer))
        }
        ("cstrace", None) if c_worker.is_some() => anyhow::bail!(
            "--tracer cstrace: the variant's own C worker makes no valgrind client request, so cstrace cannot find its cell; use --tracer qemu (or auto) or lackey"
        ),
        _ => choose(name),
    }
}

/// `auto` builds cstrace and falls back to lackey (saying why); `cstrace` and `lackey` force.
pub fn choose(name: &str) -> Result<Tracer> {
    if name == "qemu" {
        return Ok(Tracer::Qemu(qemu::tracer(None)?));
    }
    tool::valgrind_version().map_err(anyhow::Error::msg)?;
    match name {
        "cstrace" => Ok(Tracer::Cstrace(
            tool::ensure(&tool_cache()).map_err(anyhow::Error::msg)?,
        )),
        "lackey" => Ok(Tracer::Lackey),
        "auto" => match tool::ensure(&tool_cache()) {
            Ok(t) => Ok(Tracer::Cstrace(t)),
            Err(e) => {
                eprintln!(
                    "cryptospeed: cannot build the cstrace valgrind tool, falling back to lackey (about 100× slower): {e}"
                );
                Ok(Tracer::Lackey)
            }
        },
        other => anyhow::bail!("unknown tracer '{other}'; use auto, cstrace, lackey or qemu"),
    }
}

/// A private directory for the FIFO or the lackey log, removed on drop.
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub fn new() -> Result<Scratch> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cryptospeed-trace-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Scratch { dir })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The command prefix (program, arguments, environment) that traces into `out`: valgrind's, or
/// qemu's (the emulator with the plugin, to which a cross worker's own `-L` arguments are
/// added by [`qemu::worker_spec`]).
pub fn valgrind_prefix(
    tracer: &Tracer,
    out: &Path,
) -> (String, Vec<String>, Vec<(String, String)>) {
    match tracer {
        Tracer::Qemu(q) => (q.emulator.clone(), qemu::plugin_args(q, out), vec![]),
        Tracer::Cstrace(t) => (
            "valgrind".into(),
            vec![
                "--tool=cstrace".into(),
                // Chasing lets VEX if-convert small branch diamonds, after which a skipped
                // instruction would look executed; without it the trace is the real path.
                "--vex-guest-chase=no".into(),
                format!("--out={}", out.display()),
            ],
            vec![(
                "VALGRIND_LIB".into(),
                t.lib_dir.to_string_lossy().into_owned(),
            )],
        ),
        Tracer::Lackey => (
            "valgrind".into(),
            vec![
                "--tool=lackey".into(),
                "--vex-guest-chase=no".into(),
                "--trace-mem=yes".into(),
                format!("--log-file={}", out.display()),
            ],
            vec![],
        ),
    }
}

pub fn make_fifo(path: &Path) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: c is a valid NUL-terminated path.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        anyhow::bail!(
            "cannot create the trace FIFO {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        );
    }
    Ok(())
}

pub type ReaderResult<S> = std::result::Result<(Decoded, S, TraceTotals), String>;

/// Reads a cstrace FIFO of `isa` code on its own thread, feeding `sink`.
pub fn spawn_reader<S: Sink + Send + 'static>(
    fifo: PathBuf,
    isa: Isa,
    mut sink: S,
) -> JoinHandle<ReaderResult<S>> {
    std::thread::spawn(move || {
        let f = std::fs::File::open(&fifo)
            .map_err(|e| format!("cannot open the trace FIFO {}: {e}", fifo.display()))?;
        grow_pipe(&f);
        let mut decoded = Decoded::new(isa);
        // CRYPTOSPEED_KEEP_TRACE=DIR keeps a copy of each raw stream (for `examples/analyse`).
        let totals = match std::env::var_os("CRYPTOSPEED_KEEP_TRACE") {
            Some(dir) => {
                let name = fifo
                    .parent()
                    .and_then(|p| p.file_name())
                    .unwrap_or_default();
                let copy = PathBuf::from(dir).join(name).with_extension("cstrace");
                let copy = std::fs::File::create(&copy)
                    .map_err(|e| format!("cannot create {}: {e}", copy.display()))?;
                let tee = Tee(f, std::io::BufWriter::with_capacity(1 << 20, copy));
                trace::read_cstrace(tee, &mut decoded, &mut sink)?
            }
            None => trace::read_cstrace(f, &mut decoded, &mut sink)?,
        };
        Ok((decoded, sink, totals))
    })
}

/// A reader that writes what it reads to a copy.
struct Tee<R, W>(R, W);

impl<R: std::io::Read, W: std::io::Write> std::io::Read for Tee<R, W> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        self.1.write_all(&buf[..n])?;
        Ok(n)
    }
}

/// A bigger pipe buffer means far fewer wake-ups of writer and reader (64 KB by default): as
/// large as the system allows, up to 16 MB. Failure only costs speed.
fn grow_pipe(f: &std::fs::File) {
    use std::os::fd::AsRawFd;
    let max = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
        .unwrap_or(1 << 20)
        .min(16 << 20);
    // SAFETY: fcntl on a descriptor we own; F_SETPIPE_SZ only resizes the pipe.
    unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETPIPE_SZ, max) };
}

/// Unblocks a reader still waiting for a writer that never came (valgrind failed to start) and
/// returns once the reader thread is done. Opening the write end without blocking succeeds only
/// while the reader is in (or past) its own open, so one attempt is not enough: a reader thread
/// that had not reached open() when the writer failed would then wait forever. Call it after the
/// writer has exited.
pub fn release_reader<T>(fifo: &Path, reader: &JoinHandle<T>) {
    use std::os::unix::fs::OpenOptionsExt;
    while !reader.is_finished() {
        // Opened and closed at once: the reader sees end of file.
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(fifo);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Code bytes for lackey's trace, from the files the worker had mapped (its /proc/self/maps).
pub struct MappedFiles {
    maps: Vec<(u64, u64, u64, String)>,
    files: std::collections::HashMap<String, Vec<u8>>,
}

impl MappedFiles {
    pub fn parse(maps: &str) -> MappedFiles {
        Self::parse_with(maps, 'x')
    }

    /// Under qemu-user the guest's code is mapped readable, not executable (qemu runs its own
    /// translation): every readable file mapping is a source of code bytes.
    pub fn parse_readable(maps: &str) -> MappedFiles {
        Self::parse_with(maps, 'r')
    }

    fn parse_with(maps: &str, permission: char) -> MappedFiles {
        let mut out = Vec::new();
        for line in maps.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 6 || !f[1].contains(permission) || !f[5].starts_with('/') {
                continue;
            }
            let Some((a, b)) = f[0].split_once('-') else {
                continue;
            };
            let (Ok(a), Ok(b), Ok(off)) = (
                u64::from_str_radix(a, 16),
                u64::from_str_radix(b, 16),
                u64::from_str_radix(f[2], 16),
            ) else {
                continue;
            };
            out.push((a, b, off, f[5..].join(" ")));
        }
        MappedFiles {
            maps: out,
            files: Default::default(),
        }
    }
}

impl trace::CodeSource for MappedFiles {
    fn bytes_at(&mut self, addr: u64, len: usize) -> Option<Vec<u8>> {
        let (start, _, off, path) = self
            .maps
            .iter()
            .find(|(a, b, _, _)| *a <= addr && addr < *b)?
            .clone();
        if !self.files.contains_key(&path) {
            self.files
                .insert(path.clone(), std::fs::read(&path).unwrap_or_default());
        }
        let data = &self.files[&path];
        let at = (addr - start + off) as usize;
        data.get(at..at + len).map(|b| b.to_vec())
    }
}

/// What [`trace_program`] returns: the sink after the whole trace, the trace's totals, the
/// program's exit status, and the VALGRIND_LIB it ran with (where cstrace came from).
pub struct TracedProgram<S> {
    pub sink: S,
    pub totals: TraceTotals,
    pub status: std::process::ExitStatus,
    pub valgrind_lib: Option<String>,
}

/// Runs `command` (a program and its arguments) under cstrace, its whole execution read into
/// `sink` through a FIFO as it runs.
pub fn trace_program<S: Sink + Send + 'static>(
    command: &[String],
    sink: S,
) -> Result<TracedProgram<S>> {
    let tracer = choose("cstrace")?;
    let scratch = Scratch::new()?;
    let fifo = scratch.dir.join("trace.fifo");
    make_fifo(&fifo)?;
    let reader = spawn_reader(fifo.clone(), tracer.isa(), sink);
    let (program, mut vargs, env) = valgrind_prefix(&tracer, &fifo);
    vargs.push("--log-file=/dev/null".into());
    vargs.extend(command.iter().cloned());
    let status = std::process::Command::new(&program)
        .args(&vargs)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .status();
    release_reader(&fifo, &reader);
    let (_, sink, totals) = match reader.join() {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => anyhow::bail!("reading the trace of {}: {e}", command[0]),
        Err(_) => anyhow::bail!("the trace reader panicked"),
    };
    let status = status.map_err(|e| anyhow::anyhow!("cannot run valgrind: {e}"))?;
    let valgrind_lib = env
        .into_iter()
        .find(|(k, _)| k == "VALGRIND_LIB")
        .map(|(_, v)| v);
    Ok(TracedProgram {
        sink,
        totals,
        status,
        valgrind_lib,
    })
}
