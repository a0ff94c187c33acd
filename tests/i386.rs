//! 32-bit (i386) variants end to end: a real OpenSSL 3.5 tree built with `--arch i386`, its own
//! 32-bit C worker (workers/c) linked against it, the known-answer tests that worker runs on the
//! vectors the orchestrator sends, a run beside the 64-bit system libcrypto with the percent
//! table, a binary-patched copy of the build that fails its tests (though its manifest says
//! `ready`) and is never timed, and a compiler without the 32-bit C library refused with the
//! package to install.
//!
//! The build needs Debian's gcc-multilib: those tests are `#[ignore]`d and scripts/test runs them
//! when `gcc -m32` builds a program. The build goes to the variant cache the tests share across
//! runs (`test_cache()`), one small i386 build (the same key for every test here), so only the
//! first run pays for it (about two minutes on two cores); its label holds its content key
//! (`cs-test-i386-{key}`), so a new compiler, worker or options make a new build beside the old.

mod common;

use common::{bin, ok, quick, small_build_keeping, test_cache, OPENSSL_CRATE};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// The label the i386 build is given: `{key}` is its content key.
const LABEL: &str = "cs-test-i386-{key}";

/// The small build's options, with elliptic curves, DSA, DH and OCB kept: the C worker times
/// them too.
fn small() -> Vec<&'static str> {
    small_build_keeping(&["no-ec", "no-ecx", "no-dsa", "no-dh", "no-ocb"])
}

/// The small i386 build with assembly (built once, then found in the cache; its known-answer
/// tests run again every time): its manifest, as `variant list` prints it.
fn i386_build() -> serde_json::Value {
    let mut cmd = bin();
    cmd.args([
        "variant",
        "build",
        "--openssl",
        OPENSSL_CRATE,
        "--arch",
        "i386",
    ])
    .args(["--cflags", "-O1", "--label", LABEL])
    .env("CRYPTOSPEED_CACHE", test_cache());
    for o in small() {
        cmd.args(["--configure-arg", o]);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("status    ready"), "{stdout}");
    assert!(stdout.contains("arch      i386"), "{stdout}");
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
        .find(|m| m["key"] == key.as_str());
    let me = me.expect("listed").clone();
    assert_eq!(me["label"], LABEL.replace("{key}", &key));
    me
}

/// The build's label, as `i386_build` returned it.
fn label(me: &serde_json::Value) -> &str {
    me["label"].as_str().unwrap()
}

fn variant_dir(manifest: &serde_json::Value) -> PathBuf {
    test_cache()
        .join("variants")
        .join(manifest["key"].as_str().unwrap())
}

#[test]
#[ignore = "needs a 32-bit C toolchain (Debian's gcc-multilib; scripts/setup installs it)"]
fn an_i386_variant_is_built_verified_and_timed_beside_the_64_bit_library() {
    let me = i386_build();
    assert_eq!(me["arch"], "i386");
    assert_eq!(me["target"], "linux-x86");
    assert_a_32_bit_worker_passing_its_known_answers(&me);
    the_other_spelling_builds_nothing();
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let system = timed_beside_the_system_library(&me, &db);
    let conn = Connection::open(&db).unwrap();
    let info: String = conn
        .query_row(
            "SELECT build_info FROM variant WHERE label = ?1",
            [label(&me)],
            |r| r.get(0),
        )
        .unwrap();
    assert!(info.contains("arch: i386"), "{info}");
    assert!(info.contains("platform: linux-x86"), "{info}");
    assert!(info.contains("32-bit C worker"), "{info}");

    // The report shows the architecture with the variant's build.
    let html = tmp.path().join("r.html");
    ok(bin()
        .args(["report", "bits", "--db", db.to_str().unwrap(), "-o"])
        .arg(&html));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("arch: i386"),
        "the report names the architecture"
    );

    // The AMD64 vs i386 percent table.
    let table = ok(bin()
        .args(["compare", "bits", "--percent", "--baseline", &system])
        .args(["--db", db.to_str().unwrap()]));
    assert!(table.contains(label(&me)), "{table}");
    assert!(
        table.contains("rsa-2048") && table.contains("aes-128-cbc"),
        "{table}"
    );
}

/// The variant's worker is a real 32-bit executable and passes its known answers.
fn assert_a_32_bit_worker_passing_its_known_answers(me: &serde_json::Value) {
    let exe = variant_dir(me).join(me["worker"].as_str().expect("its own worker"));
    // A real 32-bit executable: ELF class 1, machine EM_386 (3).
    let head = std::fs::read(&exe).unwrap();
    assert_eq!(&head[..5], b"\x7fELF\x01", "{}", exe.display());
    assert_eq!(head[18], 3, "e_machine must be EM_386");
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
        "hmac-sha256",
        "aes-128-ccm",
        "aes-256-ocb",
        "aes-128-gcm-siv",
        "rsa-2048",
        "dsa-2048",
        "ecdsa-p256",
        "ecdsa-p384",
        "ecdh-p256",
        "x25519",
        "x448",
        "ed25519",
        "ed448",
        "ffdh-2048",
    ] {
        assert_eq!(result(id).as_deref(), Some("pass"), "{id}: {kats:?}");
    }
    // The post-quantum families are the 64-bit columns' only.
    assert_eq!(result("ml-kem-768").as_deref(), Some("unavailable"));
}

/// The other spelling of the target is the same variant: nothing to build.
fn the_other_spelling_builds_nothing() {
    let mut again = bin();
    again
        .args([
            "variant",
            "build",
            "--openssl",
            OPENSSL_CRATE,
            "--target",
            "linux-elf",
        ])
        .args(["--cflags", "-O1", "--label", LABEL])
        .env("CRYPTOSPEED_CACHE", test_cache());
    for o in small() {
        again.args(["--configure-arg", o]);
    }
    let again = again.output().unwrap();
    assert!(again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("nothing to build"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

/// Timed beside the 64-bit system libcrypto, sampled through the 32-bit worker, into `db`;
/// returns the system variant's label.
fn timed_beside_the_system_library(me: &serde_json::Value, db: &Path) -> String {
    let out = ok(bin()
        .args(["run", "--variant", &format!("{},system", label(me))])
        .args([
            "-a",
            "sha256,aes-128-cbc,rsa2048,ecdsap256,ed25519,x25519",
            "-b",
            "1024",
        ])
        .args(["--format", "json", "--label", "bits"])
        .args(quick(db))
        .env("CRYPTOSPEED_CACHE", test_cache()));
    let rows: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = rows.as_array().unwrap();
    let mine: Vec<_> = rows.iter().filter(|r| r["variant"] == label(me)).collect();
    assert_eq!(
        mine.len(),
        9,
        "sha256, aes-128-cbc, rsa-2048, ecdsa-p256 and ed25519 sign and verify, x25519: {rows:?}"
    );
    for r in &mine {
        assert!(r["status"] == "ok" || r["status"] == "imprecise", "{r}");
        assert!(r["median"].as_f64().unwrap() > 0.0, "{r}");
    }
    // RSA-2048 signing with 32-bit code is far slower than with 64-bit code (about 10x here).
    let per_second = |mine: bool| {
        rows.iter()
            .find(|r| {
                r["primitive"] == "rsa-2048"
                    && r["op"] == "sign"
                    && (r["variant"] == label(me)) == mine
            })
            .map(|r| r["median"].as_f64().unwrap())
            .unwrap()
    };
    assert!(
        per_second(false) > 2.0 * per_second(true),
        "signatures per second: {rows:?}"
    );
    rows.iter().find(|r| r["variant"] != label(me)).unwrap()["variant"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Flips every copy of SHA-256's first round constant (0x428a2f98, little-endian) in `path`.
fn patch_sha256_constant(path: &Path) -> usize {
    let mut bytes = std::fs::read(path).unwrap();
    let needle = 0x428a_2f98u32.to_le_bytes();
    let mut hits = 0;
    for i in 0..bytes.len().saturating_sub(4) {
        if bytes[i..i + 4] == needle {
            bytes[i] ^= 0x01;
            hits += 1;
        }
    }
    std::fs::write(path, bytes).unwrap();
    hits
}

fn sha256_hex(path: &Path) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(std::fs::read(path).unwrap()))
}

#[test]
#[ignore = "needs a 32-bit C toolchain (Debian's gcc-multilib; scripts/setup installs it)"]
fn a_patched_i386_build_fails_its_known_answer_tests_and_is_never_timed() {
    let me = i386_build();
    // A copy of the build with one constant changed in its code: it runs and computes the wrong
    // SHA-256, like a miscompiled or badly patched tree (without paying for a second build).
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let dir = cache.join("variants").join(me["key"].as_str().unwrap());
    std::fs::create_dir_all(&dir).unwrap();
    let worker = me["worker"].as_str().unwrap();
    std::fs::copy(variant_dir(&me).join(worker), dir.join(worker)).unwrap();
    assert!(patch_sha256_constant(&dir.join(worker)) >= 1);
    // Cached as such (its recorded hash is the patched worker's, so the cache's file check
    // passes), and its manifest still says `ready`, every test passed: nothing but the
    // known-answer tests, run again, can refuse it.
    let mut manifest = me.clone();
    assert_eq!(manifest["status"], "ready");
    manifest["files"] = serde_json::json!({ worker: sha256_hex(&dir.join(worker)) });
    std::fs::write(dir.join("variant.json"), manifest.to_string()).unwrap();

    let db = tmp.path().join("r.db");
    let refused = bin()
        .args(["run", "--variant", label(&me), "-a", "sha256,aes-128-cbc"])
        .args(quick(&db))
        .env("CRYPTOSPEED_CACHE", &cache)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is broken and is never timed"), "{stderr}");
    assert!(stderr.contains("sha256:"), "{stderr}");
    assert!(!db.exists(), "nothing is stored for a refused run");
    let shown = ok(bin()
        .args(["variant", "show", label(&me)])
        .env("CRYPTOSPEED_CACHE", &cache));
    assert!(shown.contains("status    broken"), "{shown}");
    // Only what the constant feeds fails: SHA-256 and what is built on it (and SHA-512, whose
    // first constant begins with the same 32 bits), not MD5 or AES.
    let failed = |id: &str| {
        shown
            .lines()
            .any(|l| l.split_whitespace().take(2).eq([id, "fail"]))
    };
    assert!(failed("sha256") && failed("hmac-sha256"), "{shown}");
    assert!(!failed("aes-128-cbc") && !failed("md5"), "{shown}");
}

#[test]
fn a_compiler_without_the_32_bit_c_library_is_refused_with_the_package_to_install() {
    // A gcc that behaves as it does without gcc-multilib: 64-bit builds work, -m32 cannot find
    // the 32-bit C library's headers.
    let tmp = tempfile::tempdir().unwrap();
    let cc = tmp.path().join("gcc-no32");
    std::fs::write(
        &cc,
        "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = -m32 ] && { echo '/usr/include/stdio.h:27:10: fatal error: bits/libc-header-start.h: No such file or directory' >&2; exit 1; }; done\nexec gcc \"$@\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cache = tmp.path().join("cache");
    let out = bin()
        .args([
            "variant",
            "build",
            "--openssl",
            OPENSSL_CRATE,
            "--arch",
            "i386",
        ])
        .arg("--cc")
        .arg(&cc)
        .env("CRYPTOSPEED_CACHE", &cache)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no 32-bit toolchain"), "{stderr}");
    assert!(stderr.contains("bits/libc-header-start.h"), "{stderr}");
    assert!(
        stderr.contains("apt-get install gcc-12-multilib"),
        "{stderr}"
    );
    assert!(!cache.join("variants").exists(), "nothing is built or kept");

    // --arch and --target that disagree are refused before anything runs.
    let out = bin()
        .args(["variant", "build", "--openssl", OPENSSL_CRATE])
        .args(["--arch", "i386", "--target", "linux-x86_64"])
        .env("CRYPTOSPEED_CACHE", &cache)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("disagree"));
}
