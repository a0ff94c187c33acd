//! The architecture study's comparisons that follow from the instruction sets alone, checked on
//! real code: OpenSSL 3.5.5 cross-built for riscv64 (RV64GC: no rotate instruction, no memory
//! operands, no AES instructions; its C worker traced under `qemu-riscv64` with our plugin)
//! against this machine's x86-64 OpenSSL (AES-NI, MD5 in assembly with `rol` and memory
//! operands, traced under valgrind). docs/experiments/architectures.md reads the full study.
//!
//! The riscv64 build goes to the variant cache the tests share across runs (`test_cache()`), a
//! small build whose label holds its content key, so only the first run pays for it (about two
//! minutes on two cores).

mod common;

use common::{bin, built_variant, ok, small_build_keeping, test_cache, OPENSSL_CRATE};
use serde_json::Value;

/// The small riscv64 build at OpenSSL's own flags (-O3), as the study builds it, with the
/// families the C worker calls kept, and the deprecated interfaces: OpenSSL 3.5.5's
/// crypto/sha/sha_riscv.c names `SHA256_CTX`, which `no-deprecated` hides, so a riscv64 build
/// without them fails to compile. Its label.
fn riscv64_variant() -> String {
    let mut cmd = bin();
    cmd.args(["variant", "build", "--openssl", OPENSSL_CRATE])
        .args(["--arch", "riscv64", "--label", "cs-test-riscv64-{key}"])
        .env("CRYPTOSPEED_CACHE", test_cache());
    let keep = [
        "no-ec",
        "no-ecx",
        "no-dsa",
        "no-dh",
        "no-ocb",
        "no-deprecated",
    ];
    for o in small_build_keeping(&keep) {
        cmd.args(["--configure-arg", o]);
    }
    built_variant(&mut cmd)
}

/// `profile [ARGS] md5 aes-128-cbc --bytes 1024 --grid single --format json`: the documents by
/// primitive.
fn profile(args: &[&str]) -> [Value; 2] {
    let text = ok(bin()
        .arg("profile")
        .args(args)
        .args(["md5", "aes-128-cbc", "--bytes", "1024", "--grid", "single"])
        .args(["--no-native", "--no-store", "--format", "json"]));
    let docs: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(docs.len(), 2, "{text}");
    let [md5, aes] = <[Value; 2]>::try_from(docs).unwrap();
    assert_eq!(md5["primitive"], "md5");
    assert_eq!(aes["primitive"], "aes-128-cbc");
    [md5, aes]
}

fn per_byte(doc: &Value) -> f64 {
    doc["instructions_per_byte"].as_f64().unwrap()
}

fn crypto_instructions(doc: &Value) -> u64 {
    doc["mix"]["by_class"]["Crypto"].as_u64().unwrap_or(0)
}

#[test]
fn riscv64_needs_more_instructions_than_x86_64_for_md5_and_aes_without_crypto_instructions() {
    let label = riscv64_variant();
    let [rv_md5, rv_aes] = profile(&["--variant", &label]);
    let [x86_md5, x86_aes] = profile(&["--impl", "openssl"]);
    for doc in [&rv_md5, &rv_aes] {
        assert_eq!(doc["architecture"], "riscv64", "{}", doc["primitive"]);
        assert_eq!(doc["tracer"], "qemu", "{}", doc["primitive"]);
    }
    for doc in [&x86_md5, &x86_aes] {
        // x86-64 documents leave the field out (they read as x86-64).
        assert!(doc["architecture"].is_null(), "{}", doc["primitive"]);
    }
    let caps = rv_aes["capabilities_traced"].clone();
    // MD5's 64 steps each rotate and add a message word: x86-64's assembly does it with `rol`
    // and `add reg,[mem]`; RV64GC needs a load, and two shifts and an `or` for each rotate.
    let (rv, x86) = (per_byte(&rv_md5), per_byte(&x86_md5));
    assert!(
        rv > 1.2 * x86,
        "md5: {rv:.2} instructions/byte on riscv64, {x86:.2} on x86-64"
    );
    // AES-NI does a round in one instruction; without Zkn OpenSSL runs its C T-table code.
    let (rv, x86) = (per_byte(&rv_aes), per_byte(&x86_aes));
    assert!(
        rv > 5.0 * x86,
        "aes-128-cbc: {rv:.2} instructions/byte on riscv64 ({caps}), {x86:.2} on x86-64"
    );
    assert!(
        crypto_instructions(&x86_aes) > 0,
        "x86-64 aes-128-cbc: no AES-NI instruction in {}",
        x86_aes["mix"]
    );
    for doc in [&rv_md5, &rv_aes] {
        assert_eq!(
            crypto_instructions(doc),
            0,
            "riscv64 {} ({caps}): {}",
            doc["primitive"],
            doc["mix"]
        );
    }
}
