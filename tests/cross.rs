//! Cross-built variants end to end: a real OpenSSL 3.5 tree built for ppc64le by Debian's cross
//! compiler (scripts/setup installs it with qemu-user), its C worker (workers/c) linked against
//! it, the known-answer tests that worker runs under `qemu-ppc64le` on the vectors the
//! orchestrator sends, the architecture in `variant list`, and `run` refusing to time it.
//!
//! The build goes to the variant cache the tests share across runs (`test_cache()`), one small
//! ppc64le build (its label holds its content key, `cs-test-ppc64le-{key}`), so only the first run
//! pays for it (several minutes on two cores); its known-answer tests run again every time.

mod common;

use common::{bin, ok, small_build_keeping, test_cache, OPENSSL_CRATE};

const LABEL: &str = "cs-test-ppc64le-{key}";

/// The small build's options, with elliptic curves, DSA, DH and OCB kept: the C worker calls
/// them.
fn small() -> Vec<&'static str> {
    small_build_keeping(&["no-ec", "no-ecx", "no-dsa", "no-dh", "no-ocb"])
}

/// The small ppc64le build (built once, then found in the cache): what `variant build` printed
/// and its manifest as `variant list --json` gives it.
fn ppc64le_build() -> (String, serde_json::Value) {
    let mut cmd = bin();
    cmd.args(["variant", "build", "--openssl", OPENSSL_CRATE])
        .args(["--arch", "ppc64le", "--cflags", "-O1", "--label", LABEL])
        .env("CRYPTOSPEED_CACHE", test_cache());
    for o in small() {
        cmd.args(["--configure-arg", o]);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key = stdout
        .lines()
        .find_map(|l| l.strip_prefix("key "))
        .expect("the key in the summary")
        .trim()
        .to_string();
    let listed = ok(bin()
        .args(["variant", "list", "--json"])
        .env("CRYPTOSPEED_CACHE", test_cache()));
    let all: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let me = all
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == key.as_str())
        .expect("listed")
        .clone();
    (stdout, me)
}

#[test]
fn a_ppc64le_variant_is_cross_built_verified_under_qemu_and_never_timed() {
    let (summary, me) = ppc64le_build();
    assert!(summary.contains("status    ready"), "{summary}");
    assert!(summary.contains("arch      ppc64le"), "{summary}");
    assert_eq!(me["arch"], "ppc64le");
    assert_eq!(me["target"], "linux-ppc64le");
    let label = me["label"].as_str().unwrap().to_string();
    let exe = test_cache()
        .join("variants")
        .join(me["key"].as_str().unwrap())
        .join(me["worker"].as_str().expect("its own worker"));
    // A real 64-bit little-endian POWER executable: ELF class 2, data 1, machine EM_PPC64 (21).
    let head = std::fs::read(&exe).unwrap();
    assert_eq!(&head[..6], b"\x7fELF\x02\x01", "{}", exe.display());
    assert_eq!(
        u16::from_le_bytes([head[18], head[19]]),
        21,
        "e_machine must be EM_PPC64"
    );
    // The known answers ran in the worker under qemu, each against its published vectors.
    let kats = me["kats"].as_array().unwrap();
    let result = |id: &str| {
        kats.iter()
            .find(|k| k["primitive"] == id)
            .map(|k| k["result"].as_str().unwrap().to_string())
    };
    for id in [
        "sha256",
        "sha512",
        "aes-128-cbc",
        "aes-256-gcm",
        "chacha20-poly1305",
        "hmac-sha256",
        "rsa-2048",
        "ecdsa-p256",
        "x25519",
        "ed25519",
    ] {
        assert_eq!(result(id).as_deref(), Some("pass"), "{id}: {kats:?}");
    }
    // `variant list` names the architecture.
    let list = ok(bin()
        .args(["variant", "list"])
        .env("CRYPTOSPEED_CACHE", test_cache()));
    let row = list
        .lines()
        .find(|l| l.contains(&label))
        .unwrap_or_else(|| panic!("{label} in:\n{list}"));
    assert!(row.contains("ppc64le"), "{row}");

    // Timing under emulation means nothing: `run` refuses, exit 2, and points at `profile`.
    let tmp = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["run", "--variant", &label, "-a", "sha256", "-b", "1024"])
        .args(["--db", tmp.path().join("r.db").to_str().unwrap()])
        .env("CRYPTOSPEED_CACHE", test_cache())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cryptospeed profile --variant"), "{stderr}");
    assert!(stderr.contains("qemu-ppc64le"), "{stderr}");
}

#[test]
fn an_unknown_architecture_is_refused_with_the_known_ones() {
    let out = bin()
        .args([
            "variant",
            "build",
            "--openssl",
            OPENSSL_CRATE,
            "--arch",
            "sparc64",
        ])
        .env("CRYPTOSPEED_CACHE", test_cache())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for known in ["ppc64le", "riscv64", "aarch64"] {
        assert!(stderr.contains(known), "{stderr}");
    }
}
