//! `openssl speed` of the installed OpenSSL as the oracle of the `openssl` column: the Debian
//! package's `openssl` app, linked against the same `libcrypto.so.3` the column loads, run with
//! `-mr -seconds 1` on one cell; its `-mr` lines (`+F`, `+F2`, `+F4`, `+F9`, `+F10`) are read by
//! [`speed_figure`], which `openssl-cli` and `openssl:PATH` share. Its clock is the process's
//! user CPU time (`times()`, without `-elapsed`): beside other work a wall-clock figure of a
//! window that holds sign and verify cannot be corrected for the share each half had.

use super::program;
use crate::{expand_args, Cell, Clock, Oracle, Provenance};
use anyhow::{Context, Result};
use cryptospeed_model::Op;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct OpenSsl;

/// The command line both installed-app oracles run, the cell's arguments after it.
pub const SPEED: &[&str] = &["openssl", "speed", "-mr", "-seconds", "1"];
const HASH: &str = "EVP_Digest of the buffer with the digest fetched once (one-shot), counted \
    until a 1 s alarm, over user CPU time";
const CBC: &str = "EVP_Cipher on one EVP_CIPHER_CTX (key and IV set once, the IV chained on), \
    the buffer in place, counted until a 1 s alarm, over user CPU time";

static CELLS: &[Cell] = &[
    Cell {
        primitive: "sha256",
        op: Op::Hash,
        bytes: Some(16),
        args: &["-bytes", "{bytes}", "sha256"],
        row: "+F:",
        oracle_loop: HASH,
        difference: None,
    },
    Cell {
        primitive: "sha256",
        op: Op::Hash,
        bytes: Some(8192),
        args: &["-bytes", "{bytes}", "sha256"],
        row: "+F:",
        oracle_loop: HASH,
        difference: None,
    },
    Cell {
        primitive: "aes-128-cbc",
        op: Op::Encrypt,
        bytes: Some(16),
        args: &["-bytes", "{bytes}", "aes-128-cbc"],
        row: "+F:",
        oracle_loop: CBC,
        difference: None,
    },
    Cell {
        primitive: "aes-128-cbc",
        op: Op::Encrypt,
        bytes: Some(8192),
        args: &["-bytes", "{bytes}", "aes-128-cbc"],
        row: "+F:",
        oracle_loop: CBC,
        difference: None,
    },
    Cell {
        primitive: "rsa-2048",
        op: Op::Sign,
        bytes: None,
        args: &["rsa2048"],
        row: "+F2:",
        oracle_loop: "EVP_PKEY_sign (PKCS#1 v1.5) of a 36-byte buffer on a context made once, \
            blinded, for 1 s; then verify for 1 s",
        difference: None,
    },
    Cell {
        primitive: "ecdsa-p256",
        op: Op::Sign,
        bytes: None,
        args: &["ecdsap256"],
        row: "+F4:",
        oracle_loop: "EVP_PKEY_sign of a 20-byte buffer on a context made once (random k, DER \
            signature), for 1 s; then verify for 1 s",
        difference: None,
    },
];

/// Expands, inside an `impl Oracle`, to the methods the installed app's two oracles share
/// (`openssl` and `openssl-cli`): the app on PATH, [`SPEED`] with the cell's arguments, the
/// `-mr` figure, and the process's user CPU time as the clock.
macro_rules! installed_speed_methods {
    () => {
        fn setup(&self, _dir: &Path, log: &mut dyn FnMut(&str)) -> Result<Provenance> {
            super::openssl::installed_app(log)
        }
        fn command(&self, built: &Provenance, cell: &Cell) -> Vec<String> {
            super::openssl::speed_command(built, super::openssl::SPEED, cell)
        }
        fn parse(&self, cell: &Cell, output: &str) -> Result<f64> {
            super::openssl::speed_figure(cell, output)
        }
        fn clock(&self) -> Clock {
            Clock::Undisturbed // without -elapsed: the process's user time (times())
        }
    };
}
pub(crate) use installed_speed_methods;

impl Oracle for OpenSsl {
    fn column(&self) -> &'static str {
        "openssl"
    }
    fn name(&self) -> &'static str {
        "openssl speed"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    installed_speed_methods!();
}

/// The `openssl` app on PATH, with the Debian packages it and its libcrypto come from and the
/// libcrypto it loads (`ldd`); nothing is built.
pub fn installed_app(log: &mut dyn FnMut(&str)) -> Result<Provenance> {
    let app = on_path("openssl").context("no `openssl` on PATH (apt-get install openssl)")?;
    let version = first_line(Command::new(&app).arg("version"))?;
    let package = |p: &str| {
        crate::debsrc::installed_version(p)
            .map(|v| format!("{p}={v}"))
            .unwrap_or_else(|_| format!("{p} (not a Debian package)"))
    };
    let ldd = Command::new("ldd").arg(&app).output().ok();
    let libcrypto = ldd
        .as_ref()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .find(|l| l.contains("libcrypto"))
                .map(|l| l.split(" (0x").next().unwrap_or(l).trim().to_string())
        })
        .unwrap_or_else(|| "libcrypto: not found by ldd (a static app)".into());
    log(&format!("using {} ({version}); {libcrypto}", app.display()));
    Ok(Provenance {
        source: format!("{} ({version}), the installed app", package("openssl")),
        library: format!("{}: {libcrypto}", package("libssl3")),
        programs: vec![app],
        build: vec!["nothing built: the installed openssl app".into()],
    })
}

/// The `speed` command line for a cell: `base` (the app's name first), then the cell's args.
pub fn speed_command(built: &Provenance, base: &[&str], cell: &Cell) -> Vec<String> {
    let mut argv: Vec<String> = base.iter().map(|s| s.to_string()).collect();
    argv[0] = program(built, "openssl");
    argv.extend(expand_args(cell));
    argv
}

/// The figure of `cell` from `openssl speed -mr` output: bytes/s of the one size of a `+F:` line,
/// or per second of an operation of a `+F2:` (RSA), `+F4:` (ECDSA), `+F9:` (KEM: keygen, encaps,
/// decaps) or `+F10:` (signature scheme: keygen, sign, verify) line.
pub fn speed_figure(cell: &Cell, output: &str) -> Result<f64> {
    let line = output
        .lines()
        .find(|l| l.starts_with(cell.row))
        .with_context(|| format!("no {} line in the output", cell.row))?;
    let f: Vec<&str> = line.split(':').collect();
    let index = match (cell.row, cell.op) {
        ("+F:", _) => f.len() - 1,
        ("+F2:" | "+F4:", _) => 3,
        (_, Op::Keygen) => 2,
        (_, Op::Encaps | Op::Sign) => 3,
        _ => 4,
    };
    f.get(index)
        .and_then(|x| x.trim().parse::<f64>().ok())
        .filter(|x| *x > 0.0)
        .with_context(|| format!("no figure at field {index} of `{line}`"))
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn first_line(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().context("running openssl version")?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mr_lines() {
        let out = "+DT:sha256:1:16\n+F:6:sha256:135000000.00\n";
        assert_eq!(speed_figure(&CELLS[0], out).unwrap(), 135e6);
        let rsa = "+F2:0:2048:4122.5:140000.0\n";
        assert_eq!(speed_figure(&CELLS[4], rsa).unwrap(), 4122.5);
        assert!(speed_figure(&CELLS[5], rsa).is_err());
    }
}
