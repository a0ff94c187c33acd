//! Declarations tied to the library a column actually loaded (issue 45 item 2): `openssl:PATH`
//! pointing at an AWS-LC build runs AWS-LC's code (the OpenSSL family's PQ backends), so `list
//! --json` must report AWS-LC's declarations for it, named as such, and the version-2 ML-KEM
//! definitions with their norms; and over the whole `list --impl all --json`, every
//! post-quantum cell conforms or names its states, no two columns declare opposite states, and
//! the hybrid carries its ML-KEM half's. Uses the AWS-LC and BoringSSL builds the suite's cache
//! holds (built once by `variant build-library`, common::build_aws_lc_and_boringssl).

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

/// The states a row's definition of `op` takes as its norm.
fn norms(row: &serde_json::Value, op: &str) -> Vec<String> {
    row["definitions"][op]["norms"]
        .as_array()
        .map(|n| n.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// The states a column's cell declares (none for "conforms"); `None` when not offered.
fn states(cell: &serde_json::Value) -> Option<Vec<String>> {
    if cell.get("not-offered").is_some() {
        return None;
    }
    if cell == "conforms" {
        return Some(Vec::new());
    }
    let named = cell["states"]
        .as_array()
        .unwrap_or_else(|| panic!("a post-quantum deviation that names no states: {cell}"));
    assert!(!named.is_empty(), "{cell}");
    Some(
        named
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect(),
    )
}

/// Over the whole of `list --impl all --json` (every column this build carries, the AWS-LC and
/// BoringSSL builds of the suite's cache loaded): every ML-KEM, ML-DSA, SLH-DSA and
/// X25519MLKEM768 cell is under a version-2 definition and conforms, is not offered, or names
/// the states it departs in (none of them the definition's norm); no two columns declare
/// opposite states of one thing for one (kind, operation); and X25519MLKEM768's cells carry
/// their ML-KEM-768 half's states in every column that offers them.
#[test]
fn every_pq_cell_of_the_whole_list_conforms_or_names_its_states_and_the_hybrid_carries_its_half() {
    build_aws_lc_and_boringssl();
    let out = ok(bin()
        .args(["list", "--impl", "all", "--json"])
        .env("CRYPTOSPEED_CACHE", test_cache()));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = json.as_array().unwrap();
    let kind_of = |d: &serde_json::Value| {
        d["id"]
            .as_str()
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_string()
    };
    let pq = ["ml-kem", "hybrid-kem", "ml-dsa", "slh-dsa"];
    let mut seen = std::collections::HashMap::new();
    let mut cells = 0;
    for row in rows {
        for (op, def) in row["definitions"].as_object().unwrap() {
            let kind = kind_of(def);
            if !pq.contains(&kind.as_str()) {
                continue;
            }
            assert_eq!(def["version"], 2, "{} {op}", row["primitive"]);
            for (column, cell) in row["implementations"].as_object().unwrap() {
                let at = format!("{column} {} {op}", row["primitive"]);
                let Some(named) = states(&cell["operations"][op]) else {
                    continue;
                };
                cells += 1;
                for s in named {
                    assert!(!norms(row, op).contains(&s), "{at} declares the norm {s}");
                    seen.insert((kind.clone(), op.clone(), s), at.clone());
                }
            }
        }
    }
    assert!(cells > 200, "only {cells} post-quantum cells");
    let opposite = |s: &str| match s {
        "precomputed-in-key" => Some("expanded-per-call"),
        "expanded-per-call" => Some("precomputed-in-key"),
        _ => None,
    };
    for ((kind, op, s), at) in &seen {
        if let Some(o) = opposite(s) {
            let other = seen.get(&(kind.clone(), op.clone(), o.to_string()));
            assert!(other.is_none(), "{at} declares {s}, {other:?} declares {o}");
        }
    }
    let row = |id: &str| rows.iter().find(|r| r["primitive"] == id).unwrap();
    let (hybrid, half) = (row("x25519-mlkem768"), row("ml-kem-768"));
    let mut carried = 0;
    for (column, cell) in hybrid["implementations"].as_object().unwrap() {
        for (op, h) in cell["operations"].as_object().unwrap() {
            let Some(h) = states(h) else { continue };
            let m = states(&half["implementations"][column]["operations"][op]).unwrap_or_default();
            for s in m.iter().filter(|s| !norms(hybrid, op).contains(s)) {
                assert!(
                    h.contains(s),
                    "{column} x25519-mlkem768 {op}: {h:?} lacks ML-KEM-768's {s}"
                );
                carried += 1;
            }
        }
    }
    assert!(
        carried >= 5,
        "the hybrid carries only {carried} states of its half"
    );
    for column in ["aws-lc", "boringssl", "rustcrypto"] {
        assert_eq!(
            hybrid["implementations"][column]["available"], true,
            "{column}"
        );
    }
}
