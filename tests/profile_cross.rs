//! `cryptospeed profile` of a cross-built variant: the small ppc64le OpenSSL build of
//! tests/cross.rs (the same options, so the same cache entry), its C worker run under
//! `qemu-ppc64le` with our TCG plugin, which finds the worker's marker functions by name and
//! traces only between them. Each profiled cell names its instruction set, has no native run
//! (its timing under emulation means nothing) and the simulators' results. The count is checked
//! against the work itself: a second measured call adds one call's instructions (within 1%), and
//! the warm-up call the trace holds besides is one call too.

mod common;

use common::{bin, built_variant, ok, small_build_keeping, test_cache, OPENSSL_CRATE};
use serde_json::Value;

/// The small ppc64le build tests/cross.rs makes (built once, then found in the cache); its label.
fn ppc64le_variant() -> String {
    let mut cmd = bin();
    cmd.args(["variant", "build", "--openssl", OPENSSL_CRATE])
        .args(["--arch", "ppc64le", "--cflags", "-O1"])
        .args(["--label", "cs-test-ppc64le-{key}"])
        .env("CRYPTOSPEED_CACHE", test_cache());
    for o in small_build_keeping(&["no-ec", "no-ecx", "no-dsa", "no-dh", "no-ocb"]) {
        cmd.args(["--configure-arg", o]);
    }
    built_variant(&mut cmd)
}

/// `profile --variant LABEL PRIMITIVES --bytes B --iters N --format json`: the documents.
fn profile(label: &str, primitives: &[&str], bytes: u32, iters: u32, grid: &str) -> Vec<Value> {
    let text = ok(bin()
        .args(["profile", "--variant", label])
        .args(primitives)
        .args(["--bytes", &bytes.to_string(), "--iters", &iters.to_string()])
        .args(["--grid", grid, "--format", "json", "--no-store"])
        .env("CRYPTOSPEED_CACHE", test_cache()));
    let docs: Value = serde_json::from_str(&text).unwrap();
    docs.as_array().unwrap().clone()
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn a_ppc64le_variant_is_profiled_under_qemu_with_mix_predictors_and_miss_rate_curves() {
    let label = ppc64le_variant();
    let cells = ["aes-128-cbc", "sha256", "chacha20-poly1305"];
    let docs = profile(&label, &cells, 1024, 1, "full");
    assert_eq!(docs.len(), 3);
    for (doc, primitive) in docs.iter().zip(cells) {
        assert_eq!(doc["primitive"], primitive);
        assert_eq!(doc["architecture"], "ppc64le", "{primitive}");
        assert_eq!(doc["tracer"], "qemu", "{primitive}");
        // Never timed: no native run, and it says why.
        assert!(doc["tsc_cycles_per_byte"].is_null(), "{primitive}");
        let why = doc["native_skipped"].as_str().unwrap_or_default();
        assert!(why.contains("qemu-ppc64le"), "{primitive}: {why}");
        let n = count(&doc["instructions"]);
        assert!(n > 1000, "{primitive}: {n} instructions for 1024 bytes");
        // The mix sums to the count; the trace holds the warm-up call and the measured one.
        let by_class: u64 = doc["mix"]["by_class"]
            .as_object()
            .unwrap()
            .values()
            .map(count)
            .sum();
        assert_eq!(by_class, n, "{primitive}");
        assert_eq!(count(&doc["mix"]["instructions"]), n);
        assert!(count(&doc["mix"]["data_reads"]) > 0, "{primitive}");
        let total = count(&doc["trace_instructions_total"]);
        assert!(
            total.abs_diff(2 * n) <= n / 100,
            "{primitive}: {total} traced in all, {n} measured"
        );
        // The seven predictors and a miss-rate curve per level (the full grid's sizes).
        let predictors = doc["analysis"]["predictors"].as_array().unwrap();
        assert_eq!(predictors.len(), 7, "{primitive}");
        let caches = doc["analysis"]["caches"].as_array().unwrap();
        for level in ["I1", "D1"] {
            let sizes: std::collections::BTreeSet<u64> = caches
                .iter()
                .filter(|c| c["level"] == level)
                .map(|c| count(&c["config"]["size"]))
                .collect();
            assert!(sizes.len() >= 5, "{primitive} {level}: sizes {sizes:?}");
        }
        let d1 = caches
            .iter()
            .find(|c| c["level"] == "D1")
            .expect("a D1 configuration");
        assert_eq!(count(&d1["accesses"]), {
            let m = &doc["mix"];
            count(&m["data_reads"]) + count(&m["data_writes"])
        });
    }
}

#[test]
fn a_second_measured_call_of_a_ppc64le_cell_adds_one_calls_instructions() {
    let label = ppc64le_variant();
    let cells = ["aes-128-cbc", "sha256", "chacha20-poly1305"];
    // 8 KB calls: the markers' own few dozen instructions are well under 1% of one.
    let counts = |iters| -> Vec<u64> {
        profile(&label, &cells, 8192, iters, "single")
            .iter()
            .map(|d| count(&d["instructions"]))
            .collect()
    };
    let (one, two, three) = (counts(1), counts(2), counts(3));
    for (i, primitive) in cells.iter().enumerate() {
        let (a, b, c) = (one[i], two[i], three[i]);
        // Each further call of the same cell runs the same code: the same instructions.
        assert_eq!(b - a, c - b, "{primitive}: {a}, {b}, {c} for 1, 2, 3 calls");
        assert!(
            (b - a).abs_diff(a) <= a / 100,
            "{primitive}: one call {a}, two calls {b}"
        );
    }
    // The stored form names the architecture too, and the text says there was no native run.
    let text = ok(bin()
        .args(["profile", "--variant", &label, "sha256", "--bytes", "1024"])
        .args(["--grid", "single", "--no-store"])
        .env("CRYPTOSPEED_CACHE", test_cache()));
    assert!(text.contains("traced with qemu (ppc64le code)"), "{text}");
    assert!(text.contains("no native run"), "{text}");
}

#[test]
fn valgrind_cannot_trace_a_cross_variant_and_says_to_use_qemu() {
    let label = ppc64le_variant();
    let out = bin()
        .args([
            "profile",
            "--variant",
            &label,
            "sha256",
            "--tracer",
            "cstrace",
        ])
        .args(["--no-store"])
        .env("CRYPTOSPEED_CACHE", test_cache())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("--tracer qemu"), "{stderr}");
}

/// A worker started for one traced cell is sent only that primitive's known-answer vectors: under
/// qemu, parsing the whole catalog's was most of a profile's fixed cost. The real C worker of the
/// ppc64le variant, under its emulator, verifies the primitive it was given and knows no other.
#[test]
fn a_traced_worker_is_sent_only_its_primitives_vectors() {
    use cryptospeed_engine::protocol::{Request, Response};
    use cryptospeed_engine::worker_client::{VectorScope, WorkerClient, WorkerSpec};
    let label = ppc64le_variant();
    let shown = ok(bin()
        .args(["variant", "show", &label])
        .env("CRYPTOSPEED_CACHE", test_cache()));
    let worker = shown
        .lines()
        .find_map(|l| l.strip_prefix("worker "))
        .map(str::trim)
        .unwrap_or_else(|| panic!("the worker's path in:\n{shown}"));
    // A family the C worker does not time says so, without calling this 64-bit worker 32-bit.
    let mlkem = shown
        .lines()
        .find(|l| l.trim_start().starts_with("ml-kem-768"));
    assert!(
        mlkem.is_some_and(|l| l.contains("the C worker times") && !l.contains("32-bit")),
        "{shown}"
    );
    let spec = WorkerSpec {
        program: "qemu-ppc64le".into(),
        args: vec![
            "-L".into(),
            "/usr/powerpc64le-linux-gnu".into(),
            worker.into(),
        ],
        ..WorkerSpec::default()
    };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let mut w = WorkerClient::spawn_with(&spec, VectorScope::Only(&["sha256"]), &cancel)
        .expect("the ppc64le C worker starts under qemu");
    let mut verify = |primitive: &str| {
        let request = Request::Verify {
            primitive: primitive.into(),
        };
        match w.request(&request, std::time::Duration::from_secs(60), &cancel) {
            Ok(Response::Verify { ok, detail, .. }) => (ok, detail),
            other => panic!("{primitive}: {other:?}"),
        }
    };
    let (sha256_ok, detail) = verify("sha256");
    assert!(sha256_ok, "sha256: {detail}");
    let (md5_ok, detail) = verify("md5");
    assert!(
        !md5_ok && detail.contains("unknown primitive"),
        "md5: {detail}"
    );
}
