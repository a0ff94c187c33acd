//! OpenSSL's own handshake benchmark, `handshake` of openssl/perftools (source/handshake.c and
//! its perflib), as the oracle of the TLS 1.3 handshake cells of `--impl openssl:PATH`, PATH an
//! OpenSSL 3.5 variant that keeps TLS (its one library holds libssl and libcrypto). perftools is
//! cloned at a pinned commit; the program is compiled against that very library, with the
//! headers the variant's own source and Configure line generate (a variant keeps none). It
//! sets no groups or suite itself: an `OPENSSL_CONF` file's `system_default` section names the
//! cell's group, the column's suite and no tickets. One thread, 5 s of wall clock; it prints
//! microseconds per handshake (docs/tls-handshakes.md, "OpenSSL's own benchmark").

use super::openssl_build::{manifest_of, run, unpack_checked};
use crate::{Cell, Difference, Kind, Oracle, Provenance};
use anyhow::{bail, Context, Result};
use cryptospeed_model::Op;
use std::path::{Path, PathBuf};

/// Where perftools is cloned from unless `$CRYPTOSPEED_PERFTOOLS_SRC` names another copy (a
/// clone's path or a URL).
pub const REPOSITORY: &str = "https://github.com/openssl/perftools";
pub const SOURCE_ENV: &str = "CRYPTOSPEED_PERFTOOLS_SRC";
/// The commit the declared differences were measured with (2026-08-04).
pub const COMMIT: &str = "dfb5e3586f45ca84504f1731ebd4a6927e500f33";
/// The files CMakeLists.txt builds `handshake` from (its `perf` library on Linux).
const SOURCES: [&str; 5] = [
    "handshake.c",
    "perflib/perfhelper.c",
    "perflib/perfsslhelper.c",
    "perflib/threads.c",
    "perflib/time.c",
];

/// The oracle of one variant library.
pub struct Perftools {
    column: &'static str,
    library: &'static str,
}

/// The registry's entry: `--list` shows it; a run names the library (`openssl:PATH`).
pub static ANY: Perftools = Perftools {
    column: "openssl:PATH",
    library: "",
};

const LOOP: &str = "perftools handshake -t CERTS 1: per iteration a client and a server SSL \
    from two shared SSL_CTXs over a fresh pair of memory BIOs, SSL_connect/SSL_accept in turn \
    until both finish, SSL_shutdown on both ends (two close_notify alerts), both freed; the \
    client sets no SSL_VERIFY_PEER; a self-signed ECDSA P-256 server certificate; group, \
    TLS_AES_128_GCM_SHA256 and no tickets from OPENSSL_CONF; iterations counted for 5 s of \
    gettimeofday, reported as 5 s over the count";
const VERIFY: &str = "perftools' client verifies one ECDSA P-256 signature (CertificateVerify): \
    without SSL_VERIFY_PEER the chain of its self-signed, untrusted leaf ends before any \
    signature is checked; the column's client verifies the leaf by its root too (one more ECDSA \
    P-256 verify per handshake) and checks the name";

static CELLS: &[Cell] = &[
    Cell {
        primitive: "tls13-x25519-ecdsa-p256",
        op: Op::Handshake,
        bytes: None,
        args: &["X25519"],
        row: "",
        oracle_loop: LOOP,
        difference: Some(Difference {
            kind: Kind::Definition,
            what: VERIFY,
            band: (0.843, 0.896),
            measured: "docs/tls-handshakes.md, five alternating rounds 2026-11-28 \
                23:29-23:38 UTC, CPU 1: the column's client + server 449.5 µs, ECDSA P-256 \
                verify 58.6 µs in the same runs: expected ours/perftools 390.9/449.5 = 0.870; \
                the band is that ±3% (the crosscheck's agreement once the verify is taken off); \
                perftools read 379.4 µs, 0.982 (0.939-1.027) of the expected figure",
        }),
    },
    Cell {
        primitive: "tls13-x25519mlkem768-ecdsa-p256",
        op: Op::Handshake,
        bytes: None,
        args: &["X25519MLKEM768"],
        row: "",
        oracle_loop: LOOP,
        difference: Some(Difference {
            kind: Kind::Definition,
            what: VERIFY,
            band: (0.870, 0.924),
            measured: "docs/tls-handshakes.md, the same five rounds: the column's client + \
                server 569.6 µs, less one verify 511.0 µs: expected 0.897; the band is that \
                ±3%; perftools read 507.5 µs, 0.996 (0.957-1.037) of the expected figure",
        }),
    },
];

/// The `OPENSSL_CONF` file for one group: what the column's contexts set, as configuration.
/// `system_default` applies to both contexts: the client's refuses `NumTickets` (a server
/// setting) and, without `config_diagnostics`, keeps the rest; with it, any refused setting is
/// an error (the check that the file is read).
fn conf(group: &str, diagnostics: bool) -> String {
    format!(
        "config_diagnostics = {}\nopenssl_conf = openssl_init\n[openssl_init]\nssl_conf = ssl_module\n\
         [ssl_module]\nsystem_default = tls_defaults\n[tls_defaults]\nGroups = {group}\n\
         NumTickets = 0\nMinProtocol = TLSv1.3\nCiphersuites = TLS_AES_128_GCM_SHA256\n",
        u8::from(diagnostics)
    )
}

impl Oracle for Perftools {
    fn column(&self) -> &'static str {
        self.column
    }
    fn name(&self) -> &'static str {
        "perftools handshake"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    fn setup(&self, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
        if self.library.is_empty() {
            bail!("name the variant's library: --impl openssl:PATH (`variant list` shows them)");
        }
        let library = Path::new(self.library);
        let manifest = manifest_of(library)?;
        if manifest.configure_command.iter().any(|a| a == "no-tls") {
            bail!(
                "variant {} was configured with no-tls: its library holds no libssl for \
                 perftools' handshake (docs/tls-handshakes.md, \"Builds\")",
                manifest.label
            );
        }
        let shared = dir
            .parent()
            .context("no oracles directory")?
            .join("perftools");
        let (source, origin) = perftools_source(&shared, log)?;
        let tree = dir.join(format!("openssl-{}", manifest.key));
        let mut build = headers(&manifest, &tree, log)?;
        let out = dir.join("perftools-handshake");
        std::fs::create_dir_all(out.join("certs"))?;
        let program = out.join("handshake");
        let compile = compile_argv(&program, &tree.join("include"), library);
        build.push(compile.join(" "));
        if !program.is_file() {
            log(&format!(
                "(cd {} && {})",
                source.display(),
                compile.join(" ")
            ));
            run(&compile, &source)?;
        }
        build.push(certificate(&out.join("certs"), log)?);
        for c in CELLS {
            std::fs::write(
                out.join(format!("{}.cnf", c.args[0])),
                conf(c.args[0], false),
            )?;
        }
        conf_is_read(&program, &out)?;
        Ok(Provenance {
            source: format!("openssl/perftools {origin}"),
            library: format!(
                "{} (variant {}): libssl and libcrypto in one library, which the column loads; \
                 headers generated from the variant's source with its Configure line",
                self.library, manifest.label
            ),
            programs: vec![program],
            build,
        })
    }
    fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
        let program = &built.programs[0];
        let out = program.parent().unwrap_or(Path::new("."));
        let conf = out.join(format!("{}.cnf", cell.args[0]));
        vec![
            "env".into(),
            format!("OPENSSL_CONF={}", conf.display()),
            program.display().to_string(),
            "-t".into(),
            out.join("certs").display().to_string(),
            "1".into(),
        ]
    }
    fn parse(&self, _cell: &Cell, output: &str) -> Result<f64> {
        let us: f64 = output
            .lines()
            .find_map(|l| l.trim().parse().ok())
            .with_context(|| format!("no microseconds per handshake in `{}`", output.trim()))?;
        if us <= 0.0 {
            bail!("perftools printed {us} µs per handshake");
        }
        Ok(1e6 / us)
    }
    fn bind(&self, column: &str) -> Option<&'static dyn Oracle> {
        column.strip_prefix("openssl:")?;
        let column: &'static str = Box::leak(column.to_string().into_boxed_str());
        let library = &column["openssl:".len()..];
        Some(Box::leak(Box::new(Perftools { column, library })))
    }
}

/// Checks that the program applies `OPENSSL_CONF`'s settings (it sets no group itself): with a
/// group no library has and `config_diagnostics`, it must stop at once, naming the setting.
fn conf_is_read(program: &Path, out: &Path) -> Result<()> {
    let probe = out.join("probe.cnf");
    std::fs::write(&probe, conf("NoSuchGroup", true))?;
    let run = std::process::Command::new(program)
        .env("OPENSSL_CONF", &probe)
        .arg("-t")
        .arg(out.join("certs"))
        .arg("1")
        .output()
        .with_context(|| format!("starting {}", program.display()))?;
    let err = String::from_utf8_lossy(&run.stderr);
    if run.status.success() || !err.contains("Groups") {
        bail!(
            "{} did not apply OPENSSL_CONF (a group named NoSuchGroup was not refused): the \
             cells' groups cannot be set; stderr: {}",
            program.display(),
            err.trim()
        );
    }
    Ok(())
}

/// perftools' source/ at [`COMMIT`], cloned once into `shared` (kept for every variant); its
/// directory and where it came from (kept in `shared/SOURCE`).
fn perftools_source(shared: &Path, log: &mut dyn FnMut(&str)) -> Result<(PathBuf, String)> {
    let repo = shared.join("repo");
    let stamp = shared.join("SOURCE");
    let source = repo.join("source");
    if let Ok(s) = std::fs::read_to_string(&stamp) {
        if source.join("handshake.c").is_file() {
            return Ok((source, s.trim().to_string()));
        }
    }
    let from = std::env::var(SOURCE_ENV).unwrap_or_else(|_| REPOSITORY.to_string());
    log(&format!(
        "fetching openssl/perftools commit {COMMIT} from {from} into {}",
        repo.display()
    ));
    let _ = std::fs::remove_dir_all(&repo);
    std::fs::create_dir_all(shared)?;
    let mut git = |args: &[&str], cwd: &Path| -> Result<()> {
        let mut argv = vec!["git".to_string()];
        argv.extend(args.iter().map(|a| a.to_string()));
        log(&format!("(cd {} && {})", cwd.display(), argv.join(" ")));
        run(&argv, cwd)
    };
    let repo_arg = repo.display().to_string();
    git(
        &["clone", "--quiet", "--no-checkout", &from, &repo_arg],
        shared,
    )
    .with_context(|| {
        format!(
            "cloning perftools from {from}: where github.com cannot be reached, set \
             {SOURCE_ENV} to a clone of openssl/perftools that holds commit {COMMIT}"
        )
    })?;
    git(&["checkout", "--quiet", COMMIT], &repo)
        .with_context(|| format!("{from} does not hold perftools commit {COMMIT}"))?;
    let origin = format!("commit {COMMIT} (cloned from {from})");
    std::fs::write(&stamp, &origin)?;
    Ok((source, origin))
}

/// The variant's headers: its recorded source (hash checked) configured with its recorded
/// Configure line and `make build_generated` (shared with the `openssl speed` oracle's tree,
/// which runs the same steps); the steps, as run or as found done.
fn headers(
    m: &cryptospeed_variants::Manifest,
    tree: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<String>> {
    let steps = [
        m.configure_command.clone(),
        vec!["make".into(), "build_generated".into()],
    ];
    if !tree.join("include/openssl/configuration.h").is_file() {
        unpack_checked(m, tree, log)?;
        for argv in &steps {
            log(&format!("(cd {} && {})", tree.display(), argv.join(" ")));
            run(argv, tree)?;
        }
    }
    Ok(steps.iter().map(|a| a.join(" ")).collect())
}

/// gcc as perftools' CMakeLists.txt builds `handshake` (its sources, `-O2`, pthreads), against
/// the variant's headers and linked to its library by path, found again through the run path.
fn compile_argv(program: &Path, include: &Path, library: &Path) -> Vec<String> {
    let libdir = library.parent().unwrap_or(Path::new("."));
    let mut argv: Vec<String> = ["gcc", "-O2", "-I."].map(String::from).to_vec();
    argv.push(format!("-I{}", include.display()));
    argv.push("-o".into());
    argv.push(program.display().to_string());
    argv.extend(SOURCES.map(String::from));
    argv.push(library.display().to_string());
    argv.push(format!("-Wl,-rpath,{}", libdir.display()));
    argv.push("-pthread".into());
    argv
}

/// A self-signed ECDSA P-256 server certificate and key for `localhost` in `certs` (made once
/// with the system's `openssl req`): the command.
fn certificate(certs: &Path, log: &mut dyn FnMut(&str)) -> Result<String> {
    let argv: Vec<String> = [
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-sha256",
        "-days",
        "3650",
        "-subj",
        "/CN=localhost",
        "-keyout",
        "serverkey.pem",
        "-out",
        "servercert.pem",
    ]
    .map(String::from)
    .to_vec();
    if !certs.join("servercert.pem").is_file() || !certs.join("serverkey.pem").is_file() {
        log(&format!("(cd {} && {})", certs.display(), argv.join(" ")));
        run(&argv, certs)?;
    }
    Ok(format!("(cd {} && {})", certs.display(), argv.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_terse_microseconds_and_binds_a_variant() {
        let rate = ANY.parse(&CELLS[0], "379.400000\n").unwrap();
        assert!((rate - 1e6 / 379.4).abs() < 1e-6, "{rate}");
        assert!(ANY.parse(&CELLS[0], "Failed to run the test\n").is_err());
        let bound = ANY.bind("openssl:/v/lib.so").unwrap();
        assert_eq!(bound.column(), "openssl:/v/lib.so");
        assert!(ANY.bind("openssl").is_none());
        let conf = conf("X25519MLKEM768", false);
        assert!(
            conf.contains("Groups = X25519MLKEM768\nNumTickets = 0\n"),
            "{conf}"
        );
    }
}
