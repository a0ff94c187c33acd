//! Building and finding cstrace, our valgrind tool. valgrind tools are static executables
//! linked against valgrind's own libcoregrind/libvex at a fixed load address; Debian's valgrind
//! package ships those archives and the headers. We compile the tool on first use into the
//! cache (keyed by its source and valgrind's version) and run it through a private
//! `VALGRIND_LIB` directory that also links to the stock tools' support files.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const SOURCE: &str = include_str!("../valgrind/cstrace_main.c");
const TOOL_FILE: &str = "cstrace-amd64-linux";

/// A ready cstrace: run valgrind with `VALGRIND_LIB=lib_dir --tool=cstrace`.
#[derive(Debug, Clone)]
pub struct Cstrace {
    pub lib_dir: PathBuf,
    pub valgrind_version: String,
}

fn first_existing(candidates: &[PathBuf], file: &str) -> Option<PathBuf> {
    candidates.iter().find(|d| d.join(file).exists()).cloned()
}

/// valgrind's version line, or why valgrind cannot be run.
pub fn valgrind_version() -> Result<String, String> {
    match Command::new("valgrind").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        Ok(o) => Err(format!(
            "valgrind --version failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!(
            "valgrind is not installed ({e}); Debian's package valgrind provides it: apt-get install valgrind"
        )),
    }
}

/// The directory holding the stock tools (valgrind's own `VALGRIND_LIB`).
pub fn stock_lib_dir() -> Result<PathBuf, String> {
    let mut c: Vec<PathBuf> = Vec::new();
    if let Ok(v) = std::env::var("VALGRIND_LIB") {
        c.push(v.into());
    }
    for d in [
        "/usr/libexec/valgrind",
        "/usr/lib/x86_64-linux-gnu/valgrind",
        "/usr/lib/valgrind",
        "/usr/local/libexec/valgrind",
        "/usr/local/lib/valgrind",
    ] {
        c.push(d.into());
    }
    first_existing(&c, "none-amd64-linux").ok_or_else(|| {
        "cannot find valgrind's tool directory (none-amd64-linux) in /usr/libexec/valgrind or /usr/lib/valgrind".to_string()
    })
}

/// Builds cstrace into `cache_root` if it is not there yet.
pub fn ensure(cache_root: &Path) -> Result<Cstrace, String> {
    let version = valgrind_version()?;
    let stock = stock_lib_dir()?;
    let mut h = Sha256::new();
    h.update(SOURCE.as_bytes());
    h.update(version.as_bytes());
    let key = hex::encode(&h.finalize()[..8]);
    let dir = cache_root.join(format!("cstrace-{key}"));
    let lib_dir = dir.join("lib");
    if lib_dir.join(TOOL_FILE).exists() {
        return Ok(Cstrace {
            lib_dir,
            valgrind_version: version,
        });
    }
    let archives = static_archives()?;
    let staging = cache_root.join(format!("cstrace-{key}.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(staging.join("lib"))
        .map_err(|e| format!("cannot create {}: {e}", staging.display()))?;
    compile_and_link(&staging, &archives)?;
    link_stock_files(&staging, &stock)?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&staging, &dir)
        .map_err(|e| format!("cannot move the built tool into {}: {e}", dir.display()))?;
    Ok(Cstrace {
        lib_dir,
        valgrind_version: version,
    })
}

/// Where valgrind's static libraries are (Debian's valgrind package ships them with the headers
/// a tool is compiled against).
fn static_archives() -> Result<std::path::PathBuf, String> {
    let archives = first_existing(
        &[
            "/usr/lib/x86_64-linux-gnu/valgrind".into(),
            "/usr/lib/valgrind".into(),
            "/usr/local/lib/valgrind".into(),
            "/usr/libexec/valgrind".into(),
        ],
        "libcoregrind-amd64-linux.a",
    )
    .ok_or("valgrind's static libraries (libcoregrind-amd64-linux.a) are missing; Debian's valgrind package ships them")?;
    let include = Path::new("/usr/include/valgrind");
    if !include.join("pub_tool_basics.h").exists() {
        return Err(
            "valgrind's tool headers (/usr/include/valgrind/pub_tool_basics.h) are missing; Debian's valgrind package ships them"
                .into(),
        );
    }
    Ok(archives)
}

/// Compiles cstrace's one source file and links it, statically, against valgrind's core into
/// `staging/lib`.
fn compile_and_link(staging: &Path, archives: &Path) -> Result<(), String> {
    let include = Path::new("/usr/include/valgrind");
    let src = staging.join("cstrace_main.c");
    std::fs::write(&src, SOURCE).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let obj = staging.join("cstrace.o");
    let cc = std::env::var("CC").unwrap_or_else(|_| "gcc".into());
    let run = |args: Vec<String>, what: &str| -> Result<(), String> {
        let out = Command::new(&cc)
            .args(&args)
            .output()
            .map_err(|e| format!("cannot run {cc} to {what}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{what} failed ({cc} {}):\n{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(())
    };
    let s = |p: &Path| p.to_string_lossy().into_owned();
    let mut compile: Vec<String> = [
        "-c",
        "-O2",
        "-g",
        "-m64",
        "-fno-strict-aliasing",
        "-fno-builtin",
        "-fno-stack-protector",
        "-fno-pie",
        "-DVGA_amd64=1",
        "-DVGO_linux=1",
        "-DVGP_amd64_linux=1",
        "-DVGPV_amd64_linux_vanilla=1",
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    compile.extend([
        format!("-I{}", include.display()),
        s(&src),
        "-o".into(),
        s(&obj),
    ]);
    run(compile, "compiling cstrace")?;
    let tool = staging.join("lib").join(TOOL_FILE);
    let link: Vec<String> = vec![
        "-o".into(),
        s(&tool),
        s(&obj),
        "-static".into(),
        "-nodefaultlibs".into(),
        "-nostartfiles".into(),
        "-no-pie".into(),
        "-u".into(),
        "_start".into(),
        "-Wl,--build-id=none".into(),
        // valgrind loads the client at the usual address; its tools live at 0x58000000.
        "-Wl,-Ttext-segment=0x58000000".into(),
        s(&archives.join("libcoregrind-amd64-linux.a")),
        s(&archives.join("libvex-amd64-linux.a")),
        "-lgcc".into(),
    ];
    run(link, "linking cstrace")?;
    Ok(())
}

/// The private VALGRIND_LIB: our tool plus links to everything valgrind's core loads.
fn link_stock_files(staging: &Path, stock: &Path) -> Result<(), String> {
    let entries =
        std::fs::read_dir(stock).map_err(|e| format!("cannot list {}: {e}", stock.display()))?;
    for e in entries.flatten() {
        let target = staging.join("lib").join(e.file_name());
        if !target.exists() {
            std::os::unix::fs::symlink(e.path(), &target)
                .map_err(|err| format!("cannot link {}: {err}", target.display()))?;
        }
    }
    Ok(())
}
