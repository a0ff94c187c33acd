//! Which library build a worker hosts: an implementation selector (`NAME` or `NAME:LIBRARY`), the
//! CPU-feature mask its worker runs under and, for a built variant, its label and build record;
//! how its worker is started, and the variant a started worker stands for.

use anyhow::{Context, Result};
use cryptospeed_engine::mask::FeatureMask;
use cryptospeed_engine::worker_client::{WorkerClient, WorkerSpec};
use cryptospeed_impls::MaskControl;
use std::os::unix::fs::MetadataExt;
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
    /// `NAME#TAG`: a replica, the same build as a variant of its own (label `LABEL#TAG`), for a
    /// check of a build against itself inside one run.
    pub replica: Option<String>,
    /// A worker executable of its own, started instead of `cryptospeed worker` (a 32-bit
    /// variant's C worker, which no 64-bit process could replace itself with); it takes
    /// `--pin CPU` and the same environment.
    pub program: Option<String>,
    /// Arguments before the worker's own when `program` is a launcher: a cross-built variant's
    /// worker runs as `qemu-ARCH -L /usr/TRIPLE WORKER`.
    pub program_args: Vec<String>,
}

/// One worker process's memory layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub seed: u64,
    /// Also move message buffers within the page (`run --layouts full`).
    pub buffers: bool,
}

impl Layout {
    /// The worker environment that makes this layout: `CRYPTOSPEED_LAYOUT` for the worker to
    /// read, and 0–4 KiB of `CRYPTOSPEED_PAD`, which moves the worker's stack.
    pub fn env(&self) -> Vec<(String, String)> {
        let pad = (self.seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 52) as usize;
        let full = if self.buffers { ":buffers" } else { "" };
        vec![
            ("CRYPTOSPEED_LAYOUT".into(), format!("{}{full}", self.seed)),
            ("CRYPTOSPEED_PAD".into(), "x".repeat(pad)),
        ]
    }
}

/// What a run records of a built variant.
#[derive(Debug, Clone)]
pub struct BuiltVariant {
    pub label: String,
    pub build_info: Vec<String>,
}

/// How an implementation takes a CPU-feature mask, as its registry entry declares.
fn mask_control(name: &str) -> MaskControl {
    cryptospeed_impls::registered(name).map_or(MaskControl::None, |r| r.capabilities.masks)
}

/// The implementations that take masks one way, for an error message.
fn names_with(control: MaskControl) -> String {
    let names: Vec<&str> = cryptospeed_impls::REGISTRY
        .iter()
        .filter(|r| r.capabilities.masks == control)
        .map(|r| r.name)
        .collect();
    names.join(", ")
}

/// Every implementation name `--impl all` expands to.
pub fn all_implementations() -> Vec<String> {
    cryptospeed_impls::REGISTRY
        .iter()
        .map(|r| r.name.to_string())
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
                    .any(|o| o.name == c.name && o.library == c.library && o.replica == c.replica)
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
        let tag = self
            .replica
            .as_ref()
            .map(|t| format!("#{t}"))
            .unwrap_or_default();
        if self.mask.is_empty() {
            format!("{base}{tag}")
        } else {
            format!("{base}+{}{tag}", self.mask.label())
        }
    }

    /// `NAME`, `NAME:LIBRARY`, either with `#TAG` (a replica).
    pub fn parse(text: &str) -> ImplChoice {
        let (text, replica) = match text.split_once('#') {
            Some((t, tag)) => (t, Some(tag.to_string())),
            None => (text, None),
        };
        let (name, library) = match text.split_once(':') {
            Some((n, lib)) => (n, Some(lib.to_string())),
            None => (text, None),
        };
        ImplChoice {
            name: name.to_string(),
            library,
            mask: FeatureMask::default(),
            built: None,
            replica,
            program: None,
            program_args: Vec::new(),
        }
    }

    pub fn spec(&self, pin: Option<usize>) -> Result<WorkerSpec> {
        let mut args = if self.program.is_some() {
            self.program_args.clone()
        } else {
            vec![
                "worker".to_string(),
                "--impl".to_string(),
                self.name.clone(),
            ]
        };
        if let (Some(lib), None) = (&self.library, &self.program) {
            args.extend(["--lib".to_string(), lib.clone()]);
        }
        if let Some(cpu) = pin {
            args.extend(["--pin".to_string(), cpu.to_string()]);
        }
        let mut env = Vec::new();
        let control = mask_control(&self.name);
        let godebug = self
            .mask
            .godebug()
            .filter(|_| control == MaskControl::GoDebug);
        if let Some(setting) = godebug {
            env.push(("GODEBUG".to_string(), setting));
        } else if let Some(cap) = self.mask.openssl_ia32cap() {
            if control != MaskControl::OpensslIa32cap {
                anyhow::bail!(
                    "implementation '{}' cannot honour the CPU-feature mask {} (only {} read OPENSSL_ia32cap and {} GODEBUG; the others choose their code paths without a way to override them)",
                    self.name,
                    self.mask,
                    names_with(MaskControl::OpensslIa32cap),
                    names_with(MaskControl::GoDebug)
                );
            }
            env.push(("OPENSSL_ia32cap".to_string(), cap));
        }
        if let Some(tag) = &self.replica {
            env.push(("CRYPTOSPEED_REPLICA".to_string(), tag.clone()));
        }
        Ok(WorkerSpec {
            program: match &self.program {
                Some(program) => program.into(),
                None => own_exe()?,
            },
            args,
            env,
            env_clear: false,
        })
    }

    pub fn start(&self, pin: Option<usize>, cancel: &AtomicBool) -> Result<WorkerClient> {
        self.start_in_layout(pin, None, cancel)
    }

    /// Starts a worker whose memory layout is chosen by `layout`: the size of its environment,
    /// which moves its stack (0–4 KiB of padding), its heap, and with `buffers` its message
    /// buffers' place in the page (see `cryptospeed_impls::buffer::vary_layout`).
    pub fn start_in_layout(
        &self,
        pin: Option<usize>,
        layout: Option<Layout>,
        cancel: &AtomicBool,
    ) -> Result<WorkerClient> {
        let mut spec = self.spec(pin)?;
        if let Some(layout) = layout {
            spec.env.extend(layout.env());
        }
        let mut worker = WorkerClient::spawn(&spec, cancel)
            .map_err(|e| anyhow::anyhow!("implementation '{}': {e}", self.name))?;
        if let Some(r) = cryptospeed_impls::registered(&self.name) {
            // The Go and C workers are not cryptospeed: the orchestrator holds them to the
            // column's declarations (a Rust worker also holds itself).
            worker.hold_to(r.name, r.declared);
        }
        Ok(worker)
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
    let go = mask_control(&choice.name) == MaskControl::GoDebug;
    if let Some(cap) = choice.mask.openssl_ia32cap().filter(|_| !go) {
        // The openssl worker records the OPENSSL_ia32cap it ran under and the capability vector
        // the library ended up with; the label says which mask, and the mask is part of the
        // variant's identity for every implementation.
        variant.label = format!("{}+{}", variant.label, choice.mask.label());
        if variant.feature_mask.is_empty() {
            variant.feature_mask = format!("OPENSSL_ia32cap={cap}");
        }
    }
    if let Some(tag) = &choice.replica {
        variant.label = format!("{}#{tag}", variant.label);
        variant.build_info.push(format!(
            "replica #{tag}: the same build as a variant of its own"
        ));
    }
    variant
}

/// This executable, to start workers from. When the file was replaced while this process runs
/// (a `cargo build` of the same target in the shared tree, mid-gate), the path names the new
/// build or nothing ("… (deleted)"); Linux's /proc/self/exe still runs this process's own
/// binary, so a long run's later workers are the build its first ones were.
fn own_exe() -> Result<std::path::PathBuf> {
    let exe = std::env::current_exe()
        .context("cannot find the cryptospeed executable to start a worker")?;
    let proc_exe = std::path::Path::new("/proc/self/exe");
    let same = |p: &std::path::Path| std::fs::metadata(p).map(|m| (m.dev(), m.ino())).ok();
    match (same(&exe), same(proc_exe)) {
        (a, Some(b)) if a != Some(b) => Ok(proc_exe.to_path_buf()),
        _ => Ok(exe),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_parse_into_name_library_and_replica() {
        let c = ImplChoice::parse("openssl:/opt/lib/libcrypto.so.3#b");
        assert_eq!(c.name, "openssl");
        assert_eq!(c.library.as_deref(), Some("/opt/lib/libcrypto.so.3"));
        assert_eq!(c.replica.as_deref(), Some("b"));
        assert_eq!(c.display(), "openssl:/opt/lib/libcrypto.so.3#b");
        let list = ImplChoice::parse_list("openssl,openssl#2,openssl").unwrap();
        assert_eq!(
            list.len(),
            2,
            "a replica is its own variant; a repeat is not"
        );
        let spec = list[1].spec(None).unwrap();
        assert!(spec
            .env
            .contains(&("CRYPTOSPEED_REPLICA".to_string(), "2".to_string())));
    }

    #[test]
    fn layouts_become_the_worker_environment() {
        let natural = Layout {
            seed: 42,
            buffers: false,
        }
        .env();
        assert_eq!(natural[0], ("CRYPTOSPEED_LAYOUT".into(), "42".into()));
        let full = Layout {
            seed: 42,
            buffers: true,
        }
        .env();
        assert_eq!(full[0].1, "42:buffers");
        // Padding differs between seeds and stays under a page.
        let pads: Vec<usize> = (0..64)
            .map(|seed| {
                Layout {
                    seed,
                    buffers: false,
                }
                .env()[1]
                    .1
                    .len()
            })
            .collect();
        assert!(pads.iter().all(|p| *p < 4096));
        assert!(pads.iter().collect::<std::collections::BTreeSet<_>>().len() > 32);
    }

    /// A worker of its own (the C worker of a 32-bit variant) that answers hello and fails
    /// every other request: what reaches it fails, what the column declares not offered does not.
    #[test]
    fn a_worker_program_of_its_own_is_held_to_its_columns_declarations() {
        let stub = std::env::temp_dir().join(format!("cryptospeed-stub-{}", std::process::id()));
        let hello = r#"{"reply":"hello","protocol":2,"variant":{"label":"stub","implementation":"boringssl","version":"0","library":"stub","build_info":[],"capabilities":"","feature_mask":""}}"#;
        let script = format!(
            "#!/bin/sh\nwhile read -r line; do case \"$line\" in\n*hello*) echo '{hello}' ;;\n*) echo '{{\"reply\":\"error\",\"message\":\"asked\"}}' ;;\nesac; done\n"
        );
        std::fs::write(&stub, script).unwrap();
        std::fs::set_permissions(&stub, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let mut choice = ImplChoice::parse("boringssl");
        choice.program = Some(stub.display().to_string());
        let never = AtomicBool::new(false);
        let mut w = choice.start(None, &never).unwrap();
        let config = cryptospeed_model::MeasureConfig::default();
        let mut measure = |op| {
            let cell = cryptospeed_model::CellSpec {
                primitive: "ml-dsa-65".into(),
                op,
                bytes: None,
                misalign: 0,
            };
            w.measure(cell, &config, std::time::Duration::from_secs(10), &never)
                .unwrap()
        };
        let asked = measure(cryptospeed_model::Op::Sign);
        let declined = measure(cryptospeed_model::Op::KeygenEncode);
        let _ = std::fs::remove_file(&stub);
        assert_eq!(asked.status, cryptospeed_model::Status::Failed);
        assert_eq!(declined.status, cryptospeed_model::Status::Unavailable);
        let why = declined.reason.unwrap_or_default();
        assert!(
            why.starts_with("boringssl does not time keygen+encode: no timed"),
            "{why}"
        );
    }
}
