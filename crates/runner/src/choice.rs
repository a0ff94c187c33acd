//! Which library build a worker hosts: an implementation selector (`NAME` or `NAME:LIBRARY`), the
//! CPU-feature mask its worker runs under and, for a built variant, its label and build record;
//! how its worker is started, and the variant a started worker stands for.

use anyhow::{Context, Result};
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_engine::worker_client::{WorkerClient, WorkerSpec};
use std::sync::atomic::AtomicBool;

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

/// The variant a started worker stands for: what the library says of itself, with a built
/// variant's label and build record, and the feature mask in the label.
pub fn variant_of(choice: &ImplChoice, w: &WorkerClient) -> cryptospeed_model::Variant {
    let mut variant = w.variant.clone();
    if let Some(built) = &choice.built {
        // A built variant is known by its label; its build record (source hash, compiler,
        // flags, Configure line) joins what the library says of itself.
        variant.label = built.label.clone();
        variant.build_info.extend(built.build_info.iter().cloned());
    }
    if let Some(cap) = choice.mask.openssl_ia32cap() {
        // The openssl worker records the OPENSSL_ia32cap it ran under and the capability vector
        // the library ended up with; the label says which mask, and the mask is part of the
        // variant's identity for every implementation.
        variant.label = format!("{}+{}", variant.label, choice.mask.label());
        if variant.feature_mask.is_empty() {
            variant.feature_mask = format!("OPENSSL_ia32cap={cap}");
        }
    }
    variant
}
