//! Declarations tied to the library a column actually loaded (issue 45 item 2): `openssl:PATH`
//! pointing at an AWS-LC build runs AWS-LC's code (the OpenSSL family's PQ backends), so `list
//! --json` must report AWS-LC's declarations for it, named as such, and the version-2 ML-KEM
//! definitions with their norms. Uses the AWS-LC build the suite's cache holds (built once by
//! `variant build-library aws-lc`, common::build_aws_lc_and_boringssl).

mod common;

use common::{bin, build_aws_lc_and_boringssl, ok, test_cache};

/// The libcrypto of the AWS-LC build in the suite's cache.
fn aws_lc_libcrypto() -> std::path::PathBuf {
    build_aws_lc_and_boringssl();
    let variants = test_cache().join("variants");
    let mut found: Vec<_> = std::fs::read_dir(&variants)
        .unwrap()
        .map(|e| e.unwrap().path().join("libcrypto.so"))
        .filter(|p| {
            p.is_file()
                && p.parent()
                    .and_then(|d| d.file_name())
                    .is_some_and(|n| n.to_string_lossy().starts_with("aws-lc-"))
        })
        .collect();
    found.sort();
    found.pop().expect("an AWS-LC build in the suite's cache")
}

#[test]
fn an_openssl_path_that_is_aws_lc_reports_aws_lc_declarations() {
    let lib = aws_lc_libcrypto();
    let selector = format!("openssl:{}", lib.display());
    let json: serde_json::Value =
        serde_json::from_str(&ok(bin().args(["list", "--impl", &selector, "--json"]))).unwrap();
    let rows = json.as_array().unwrap();
    let row = |id: &str| rows.iter().find(|r| r["primitive"] == id).unwrap().clone();

    let kem = row("ml-kem-768");
    let d = &kem["definitions"]["decaps"];
    assert_eq!(d["version"], 2, "{d}");
    assert_eq!(d["norms"], serde_json::json!(["precomputed-in-key"]), "{d}");
    let cell = &kem["implementations"]["openssl"];
    assert_eq!(cell["available"], true, "{cell}");
    assert_eq!(cell["declared-as"], "aws-lc", "{cell}");
    let states = &cell["operations"]["decaps"]["states"];
    assert!(
        states
            .as_array()
            .is_some_and(|s| s.contains(&"parsed-per-call".into())),
        "{cell}"
    );

    // Its hybrid carries the ML-KEM half's states.
    let hybrid = row("x25519-mlkem768");
    let encaps = &hybrid["implementations"]["openssl"]["operations"]["encaps"];
    assert!(
        encaps["states"]
            .as_array()
            .is_some_and(|s| s.contains(&"parsed-per-call".into())),
        "{encaps}"
    );
}
