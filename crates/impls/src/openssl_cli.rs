//! `openssl-cli`: any `openssl` executable, given by path (`--impl openssl-cli:/opt/old/bin/openssl`),
//! measured by running `openssl speed -mr -seconds S -bytes B -evp NAME` and reading its `+F` line
//! back, so an installed or old OpenSSL build lands in the same table as everything else. Its
//! numbers are one figure per cell, with no samples and no confidence interval; the matrix marks
//! them.
//!
//! Known-answer tests run through the same executable (`openssl dgst`, `openssl enc`) before a
//! primitive is timed. Offered: digests, HMAC and the non-AEAD ciphers.

use crate::declared::{Conformance::*, Declared};
use crate::ImplOptions;
use cryptospeed_catalog::agreement::AgreementCase;
use cryptospeed_catalog::{unhex, Algorithm, Kat, Primitive};
use cryptospeed_engine::{AgreementOutput, Implementation, Timed};
use cryptospeed_model::{CellSpec, MeasureConfig, Measurement, Op, Status, Variant};
use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

pub struct OpensslCli {
    path: String,
    version: String,
    kats: HashMap<&'static str, Result<(), String>>,
}

/// Where this column's timed calls depart from the catalog's definitions (declared.rs).
pub const DECLARED: &[Declared] = &[Declared {
    kinds: &[],
    ops: crate::declared::FROM_BYTES,
    note: NotOffered("openssl speed has no from-bytes operations"),
}];

pub fn create(options: &ImplOptions) -> Result<Box<dyn Implementation>, String> {
    let path = options.library.clone().unwrap_or_else(|| "openssl".into());
    let out = Command::new(&path)
        .arg("version")
        .output()
        .map_err(|e| format!("cannot run {path}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{path} version failed"));
    }
    Ok(Box::new(OpensslCli {
        path,
        version: String::from_utf8_lossy(&out.stdout).trim().to_string(),
        kats: HashMap::new(),
    }))
}

/// The name `openssl dgst`/`enc`/`speed -evp` know the primitive by.
fn cli_name(p: &Primitive) -> Option<String> {
    Some(match p.algorithm {
        Algorithm::Digest { name } => name.to_ascii_lowercase(),
        Algorithm::Hmac { digest } => digest.to_ascii_lowercase(),
        Algorithm::Cipher { name, .. } => name.to_ascii_lowercase(),
        _ => return None,
    })
}

impl OpensslCli {
    /// Runs the executable with arguments (never a shell) and stdin; returns stdout.
    fn run(&self, args: &[&str], input: &[u8]) -> Result<Vec<u8>, String> {
        let mut child = Command::new(&self.path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", self.path))?;
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(input)
            .map_err(|e| e.to_string())?;
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "{} {} failed: {}",
                self.path,
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(out.stdout)
    }

    /// Computes the primitive through the executable: `dgst` for digests and HMAC, `enc` for
    /// ciphers (no padding, hex key and IV).
    fn compute(&self, p: &Primitive, key: &[u8], iv: &[u8], msg: &[u8]) -> Result<Vec<u8>, String> {
        let name = cli_name(p).ok_or_else(|| format!("openssl-cli does not offer {}", p.id))?;
        let flag = format!("-{name}");
        let (key, iv) = (hex::encode(key), hex::encode(iv));
        match p.algorithm {
            Algorithm::Digest { .. } => self.run(&["dgst", &flag, "-binary"], msg),
            Algorithm::Hmac { .. } => {
                let opt = format!("hexkey:{key}");
                self.run(
                    &["dgst", &flag, "-binary", "-mac", "HMAC", "-macopt", &opt],
                    msg,
                )
            }
            Algorithm::Cipher { .. } => {
                let mut args = vec!["enc", &flag, "-e", "-nopad", "-nosalt", "-K", &key];
                if !iv.is_empty() {
                    args.extend(["-iv", &iv]);
                }
                self.run(&args, msg)
            }
            _ => Err(format!("openssl-cli does not offer {}", p.id)),
        }
    }

    fn kat(&self, p: &Primitive, kat: &Kat) -> Result<(), String> {
        let (got, want) = match *kat {
            Kat::Digest { msg, out, .. } => (self.compute(p, &[], &[], &unhex(msg))?, unhex(out)),
            Kat::Mac { key, msg, out, .. } => {
                (self.compute(p, &unhex(key), &[], &unhex(msg))?, unhex(out))
            }
            Kat::Cipher {
                key, iv, pt, ct, ..
            } => (
                self.compute(p, &unhex(key), &unhex(iv), &unhex(pt))?,
                unhex(ct),
            ),
            k => return Err(format!("no CLI check for {k:?}")),
        };
        if got == want {
            Ok(())
        } else {
            Err(format!(
                "got {}, expected {}",
                hex::encode(got),
                hex::encode(want)
            ))
        }
    }
}

impl Implementation for OpensslCli {
    fn name(&self) -> &'static str {
        "openssl-cli"
    }
    fn describe(&self) -> Variant {
        Variant {
            label: format!(
                "cli-{}",
                self.version
                    .split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join("-")
            )
            .to_ascii_lowercase(),
            implementation: "openssl-cli".into(),
            version: self.version.clone(),
            library: self.path.clone(),
            build_info: vec![
                "numbers from `openssl speed -mr -seconds S -bytes B -evp NAME`: one figure per \
                 cell, no samples"
                    .into(),
            ],
            ..Default::default()
        }
    }
    fn availability(&mut self, p: &Primitive) -> Result<(), String> {
        if cli_name(p).is_none() {
            return Err(format!(
                "openssl-cli times digests, HMAC and ciphers only, not {}",
                p.id
            ));
        }
        self.known_answer_test(p)
    }
    fn known_answer_test(&mut self, p: &Primitive) -> Result<(), String> {
        if let Some(r) = self.kats.get(p.id) {
            return r.clone();
        }
        let r = p
            .kats
            .iter()
            .try_for_each(|k| self.kat(p, k).map_err(|e| format!("{e} ({})", k.source())));
        self.kats.insert(p.id, r.clone());
        r
    }
    fn agree(&mut self, p: &Primitive, case: &AgreementCase) -> Result<AgreementOutput, String> {
        Ok(AgreementOutput {
            output: self.compute(p, &case.key, &case.iv, &case.msg)?,
            public: Vec::new(),
        })
    }
    fn prepare(&mut self, p: &Primitive, _: &CellSpec) -> Result<Box<dyn Timed + '_>, String> {
        Err(format!("{} is measured by openssl speed as a whole", p.id))
    }
    fn measure_whole(
        &mut self,
        p: &Primitive,
        cell: &CellSpec,
        config: &MeasureConfig,
    ) -> Option<Measurement> {
        let failed = |why: String| Some(Measurement::not_timed(cell.clone(), Status::Failed, why));
        let (Some(name), Some(bytes)) = (cli_name(p), cell.bytes) else {
            return failed("openssl-cli times sized cells only".into());
        };
        if cell.op != Op::Hash && cell.op != Op::Mac && cell.op != Op::Encrypt {
            return Some(Measurement::not_timed(
                cell.clone(),
                Status::Unavailable,
                "openssl speed times encryption only",
            ));
        }
        let seconds = (config.max_time_s.ceil() as u64).max(1).to_string();
        let size = bytes.to_string();
        let mut args = vec!["speed", "-mr", "-seconds", &seconds, "-bytes", &size];
        let hmac;
        match p.algorithm {
            Algorithm::Hmac { .. } => {
                hmac = name.clone();
                args.extend(["-hmac", &hmac]);
            }
            _ => args.extend(["-evp", &name]),
        }
        let started = std::time::Instant::now();
        let out = match self.run(&args, b"") {
            Ok(o) => String::from_utf8_lossy(&o).into_owned(),
            Err(e) => return failed(e),
        };
        let rate = out
            .lines()
            .filter(|l| l.starts_with("+F:"))
            .filter_map(|l| l.rsplit(':').next()?.parse::<f64>().ok())
            .next();
        let Some(bytes_per_s) = rate.filter(|r| *r > 0.0) else {
            return failed(format!(
                "no +F line in the output of openssl {}",
                args.join(" ")
            ));
        };
        // One figure, as `openssl speed` printed it: no samples, no confidence interval.
        let mut m = Measurement::imported(cell.clone(), bytes_per_s);
        m.reason = Some(format!(
            "one figure from `openssl {}`: no samples, no confidence interval",
            args.join(" ")
        ));
        m.elapsed_s = started.elapsed().as_secs_f64();
        Some(m)
    }
}
