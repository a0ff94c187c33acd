//! Reads real `openssl speed` 3.0.19 output captured on this machine and hand-made logs in the
//! formats of older versions, and checks every figure against the printed digits.

use cryptospeed_import::{parse, ImportOptions, ImportedRun};
use cryptospeed_model::Op;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn read(name: &str) -> Vec<ImportedRun> {
    parse(&fixture(name), None, &ImportOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn rate(run: &ImportedRun, primitive: &str, op: Op, bytes: Option<u64>) -> f64 {
    run.results
        .iter()
        .find(|r| r.primitive == primitive && r.op == op && r.bytes == bytes)
        .unwrap_or_else(|| panic!("no {primitive} {op} {bytes:?} in {:#?}", run.results))
        .rate
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn openssl_3_0_human_output_is_read_to_the_printed_digits() {
    let runs = read("openssl-3.0.19-human.txt");
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    assert_eq!(r.format, "openssl-speed");
    assert_eq!(r.field("version"), Some("3.0.19"));
    assert_eq!(
        r.field("CPUINFO"),
        Some("OPENSSL_ia32cap=0xfffa3203078bffff:0x405fc6f1bf07ab")
    );
    assert!(r.field("compiler").unwrap().starts_with("gcc -fPIC"));
    assert!(close(rate(r, "md5", Op::Hash, Some(16)), 100475.39e3));
    assert!(close(
        rate(r, "sha256", Op::Hash, Some(16384)),
        1795211.26e3
    ));
    assert!(close(rate(r, "hmac-md5", Op::Mac, Some(8192)), 748060.67e3));
    assert!(close(
        rate(r, "des-ede3-cbc", Op::Encrypt, Some(64)),
        31074.11e3
    ));
    assert!(close(rate(r, "rsa-2048", Op::Sign, None), 4152.0));
    assert!(close(rate(r, "rsa-2048", Op::Verify, None), 62365.7));
    assert!(close(rate(r, "dsa-2048", Op::Verify, None), 4818.0));
    assert!(close(rate(r, "ecdsa-p256", Op::Sign, None), 51956.6));
    assert!(close(rate(r, "ecdh-p256", Op::Derive, None), 22368.7));
    assert!(close(rate(r, "x25519", Op::Derive, None), 31498.0));
    assert!(close(rate(r, "ed25519", Op::Verify, None), 9919.0));
    assert!(close(rate(r, "ffdh-2048", Op::Derive, None), 3690.0));
    assert_eq!(r.results.len(), 5 * 6 + 2 + 2 + 2 + 1 + 1 + 2 + 1);
    assert!(r.unmapped_names().is_empty(), "{:?}", r.unmapped_names());
}

#[test]
fn openssl_3_0_mr_output_is_read() {
    let r = &read("openssl-3.0.19-mr.txt")[0];
    assert_eq!(r.format, "openssl-speed-mr");
    assert!(close(rate(r, "md5", Op::Hash, Some(16)), 100364848.48));
    assert!(close(
        rate(r, "aes-128-cbc", Op::Encrypt, Some(16384)),
        1427023323.94
    ));
    assert!(close(rate(r, "rsa-2048", Op::Sign, None), 4201.612903));
    assert!(close(rate(r, "dsa-2048", Op::Sign, None), 4244.594595));
    assert!(close(rate(r, "ecdsa-p256", Op::Verify, None), 17019.444444));
    assert!(close(rate(r, "ecdh-p256", Op::Derive, None), 22019.753086));
    assert!(close(rate(r, "ed25519", Op::Sign, None), 27329.0));
    assert!(close(rate(r, "ffdh-2048", Op::Derive, None), 3692.0));
    let stdout_only = &read("openssl-3.0.19-mr-stdout.txt")[0];
    assert!(close(
        rate(stdout_only, "rsa-2048", Op::Verify, None),
        62590.909091
    ));
}

#[test]
fn multi_output_sums_equal_the_children_openssl_reported() {
    // The oracle is openssl itself: the summed table must equal the children's `Got:` figures.
    let r = &read("openssl-3.0.19-multi2.txt")[0];
    assert_eq!(r.field("multi"), Some("2"));
    let sha = rate(r, "sha256", Op::Hash, Some(16));
    assert!((sha - (127768496.00 + 123775568.00)).abs() < 10.0, "{sha}");
    assert!(close(rate(r, "rsa-2048", Op::Sign, None), 8265.0));
    assert!(close(rate(r, "rsa-2048", Op::Verify, None), 121541.0));
}

#[test]
fn evp_aead_hmac_bytes_and_decrypt_tables() {
    let gcm = &read("openssl-3.0.19-evp-aes-128-gcm.txt")[0];
    assert!(close(
        rate(gcm, "aes-128-gcm", Op::Encrypt, Some(8192)),
        4062658.56e3
    ));
    let aead = &read("openssl-3.0.19-aead-aes-128-gcm.txt")[0];
    assert!(close(
        rate(aead, "aes-128-gcm", Op::Encrypt, Some(31)),
        85167.17e3
    ));
    let hmac = &read("openssl-3.0.19-hmac-sha256.txt")[0];
    assert!(close(
        rate(hmac, "hmac-sha256", Op::Mac, Some(16)),
        79767.26e3
    ));
    let one = &read("openssl-3.0.19-bytes-8192-sha256.txt")[0];
    assert_eq!(one.results.len(), 1);
    assert!(close(
        rate(one, "sha256", Op::Hash, Some(8192)),
        1761452.03e3
    ));
    let text = fixture("openssl-3.0.19-decrypt-aes-128-cbc.txt");
    let dec = &parse(&text, None, &ImportOptions { decrypt: true }).unwrap()[0];
    assert!(dec
        .results
        .iter()
        .all(|r| r.op == Op::Decrypt && r.primitive == "aes-128-cbc"));
}

#[test]
fn old_versions_and_windows_builds() {
    let r = &read("openssl-0.9.8k-linux.txt")[0];
    assert_eq!(r.field("version"), Some("OpenSSL 0.9.8k 25 Mar 2009"));
    assert_eq!(r.field("timing"), Some("times"));
    assert!(close(
        rate(r, "des-ede3-cbc", Op::Encrypt, Some(8192)),
        20853.42e3
    ));
    assert!(close(
        rate(r, "aes-128-cbc", Op::Encrypt, Some(16)),
        98123.53e3
    ));
    assert!(close(rate(r, "rsa-1024", Op::Sign, None), 1720.5));
    assert!(close(rate(r, "ecdsa-p256", Op::Verify, None), 1272.3));
    assert!(close(rate(r, "ecdh-p256", Op::Derive, None), 1563.1));

    let w = &read("openssl-0.9.8h-windows-ftime.txt")[0];
    assert_eq!(w.field("timing"), Some("ftime"));
    assert!(w.field("compiler").unwrap().starts_with("cl "));
    assert!(close(rate(w, "md2", Op::Hash, Some(8192)), 5993.09e3));
    assert!(close(rate(w, "idea-cbc", Op::Encrypt, Some(16)), 5334.40e3));
    assert!(close(rate(w, "rsa-512", Op::Verify, None), 13268.8));

    let s = &read("openssl-0.9.6-slow.txt")[0];
    assert!(
        close(rate(s, "md2", Op::Hash, Some(8)), 812.40),
        "values without k are bytes/s"
    );
    assert!(close(rate(s, "rc4", Op::Encrypt, Some(8)), 9876.54));
    assert!(close(rate(s, "rc4", Op::Encrypt, Some(64)), 10230.67e3));
    assert!(close(rate(s, "rsa-4096", Op::Sign, None), 0.5));

    let t = &read("openssl-1.0.2k-mr-times.txt")[0];
    assert!(
        close(rate(t, "rsa-1024", Op::Sign, None), 1.0 / 0.000158),
        "1.0.x -mr carries seconds per op"
    );
    assert!(close(
        rate(t, "ecdsa-p256", Op::Verify, None),
        1.0 / 0.000110
    ));
    assert!(close(rate(t, "ecdh-p256", Op::Derive, None), 13157.894737));
    assert!(close(
        rate(t, "aes-128-cbc", Op::Encrypt, Some(64)),
        680123456.00
    ));

    let e = &read("openssl-1.1.1w-human.txt")[0];
    assert!(close(rate(e, "ed25519", Op::Sign, None), 25431.7));
    assert!(close(rate(e, "x25519", Op::Derive, None), 29453.0));

    let k = &read("openssl-3.5.4-kem-sig.txt")[0];
    assert!(close(rate(k, "rsa-2048", Op::Decrypt, None), 1968.5));
    assert!(close(rate(k, "rsa-2048", Op::Encrypt, None), 62500.0));
    assert!(close(rate(k, "ml-kem-512", Op::Encaps, None), 83333.3));
    assert!(close(rate(k, "ml-dsa-44", Op::Sign, None), 8000.0));
}

#[test]
fn bssl_text_and_json() {
    let t = &read("bssl-speed.txt")[0];
    assert_eq!(t.implementation, "boringssl");
    assert!(close(
        rate(t, "aes-128-gcm", Op::Encrypt, Some(8192)),
        180000.0 / 1002345.0 * 1e6 * 8192.0
    ));
    assert!(close(
        rate(t, "aes-128-gcm", Op::Decrypt, Some(8192)),
        176000.0 / 1001000.0 * 1e6 * 8192.0
    ));
    assert!(close(
        rate(t, "rsa-2048", Op::Verify, None),
        60000.0 / 1000456.0 * 1e6
    ));
    assert!(t.unmapped_names().contains(&"HRSS generate"));
    let j = &read("bssl-speed.json")[0];
    assert_eq!(j.format, "bssl-speed-json");
    assert!(close(rate(j, "ed25519", Op::Sign, None), 24000.0));
    assert_eq!(j.results[2].line, 4);
}

#[test]
fn concatenated_outputs_become_several_runs() {
    let text = format!(
        "$ openssl speed -bytes 8192 -evp sha256\n{}\n$ openssl speed md5 sha256 …\n{}{}",
        fixture("openssl-3.0.19-bytes-8192-sha256.txt"),
        fixture("openssl-3.0.19-human.txt"),
        fixture("openssl-1.1.1w-human.txt")
    );
    let runs = parse(&text, None, &ImportOptions::default()).unwrap();
    assert_eq!(
        runs.len(),
        3,
        "{:#?}",
        runs.iter()
            .map(|r| (r.first_line, r.last_line))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        runs[0].field("command"),
        Some("openssl speed -bytes 8192 -evp sha256")
    );
    assert_eq!(runs[0].results.len(), 1);
    assert_eq!(runs[1].field("version"), Some("3.0.19"));
    assert_eq!(
        runs[2].field("version"),
        Some("OpenSSL 1.1.1w  11 Sep 2023")
    );
    assert!(runs[1].first_line > runs[0].last_line && runs[2].first_line > runs[1].last_line);
    // Two -mr outputs back to back, stdout only: split where a cell repeats.
    let mr = format!(
        "{}{}",
        fixture("openssl-3.0.19-mr-stdout.txt"),
        fixture("openssl-3.0.19-mr-stdout.txt")
    );
    assert_eq!(
        parse(&mr, None, &ImportOptions::default()).unwrap().len(),
        2
    );
}

fn error_line(text: &str) -> (usize, String) {
    let e = parse(text, None, &ImportOptions::default()).expect_err("should fail");
    (e.line, e.message)
}

#[test]
fn truncated_logs_are_errors_naming_the_line() {
    let full = fixture("openssl-3.0.19-human.txt");
    let lines: Vec<&str> = full.lines().collect();
    let upto = |n: usize| lines[..n].join("\n") + "\n";
    // Cut inside the progress lines, in the header, inside the table, inside a row.
    let (line, msg) = error_line(&upto(20));
    assert_eq!(line, 20, "{msg}");
    assert!(msg.contains("truncated"), "{msg}");
    let (line, msg) = error_line(&upto(44));
    assert_eq!(line, 44, "{msg}");
    assert!(msg.contains("truncated"), "{msg}");
    let (line, msg) = error_line(&upto(50));
    assert!(msg.contains("truncated"), "{msg}");
    assert_eq!(line, 50, "{msg}");
    let cut_row = format!("{}\n{}\n", lines[..49].join("\n"), &lines[49][..40]);
    let (line, msg) = error_line(&cut_row);
    assert_eq!(line, 50, "{msg}");
    // Cut before the public-key tables its progress lines announced.
    let (line, msg) = error_line(&upto(53));
    assert!(msg.contains("public-key"), "{msg}");
    assert_eq!(line, 53);
    let mr = fixture("openssl-3.0.19-mr.txt");
    let mr_lines: Vec<&str> = mr.lines().collect();
    let (line, msg) = error_line(&(mr_lines[..60].join("\n") + "\n"));
    assert!(msg.contains("truncated"), "{msg}");
    assert_eq!(line, 60);
}

#[test]
fn garbled_logs_are_errors_naming_the_line() {
    let full = fixture("openssl-3.0.19-human.txt");
    let garble = |from: &str, to: &str| full.replacen(from, to, 1);
    let (line, msg) = error_line(&garble("262854.33k", "262854.3Xk"));
    assert_eq!(line, 49, "{msg}");
    let (line, msg) = error_line(&garble("  4152.0  62365.7", "  4152.0  92365.7"));
    assert_eq!(line, 55, "{msg}");
    assert!(msg.contains("disagree"), "{msg}");
    let (line, msg) = error_line(&garble("762806.27k", "762806.27"));
    assert_eq!(line, 49, "{msg}");
    let (line, _) = error_line(&garble("CPUINFO:", "CPU\u{1}INFO:"));
    assert_eq!(line, 46);
    let (line, msg) = error_line(&garble(
        "sha256          131873.50k",
        "lorem ipsum dolor sit amet",
    ));
    assert_eq!(line, 50, "{msg}");
    let (line, _) = error_line("+H:16:64\n+F:3:md5:1.00\n");
    assert_eq!(line, 2);
    let (line, _) = error_line("[{\"description\": \"x\", \"numCalls\": 1,\n \"microseconds\": }]");
    assert_eq!(line, 2);
    // Nothing in the file is a speed output: refused as a whole, not at a line.
    let (line, msg) = error_line("hello world\n");
    assert_eq!(line, 0, "{msg}");
    assert!(msg.contains("no results"), "{msg}");
}

#[test]
fn openssl_version_output_pasted_above_is_accepted() {
    let text = format!(
        "$ openssl version -a\nOpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)\nbuilt on: Fri Apr  3 12:29:32 2026 UTC\nplatform: debian-amd64\noptions:  bn(64,64)\nOPENSSLDIR: \"/usr/lib/ssl\"\nMODULESDIR: \"/usr/lib/x86_64-linux-gnu/ossl-modules\"\nSeeding source: os-specific\nCPUINFO: OPENSSL_ia32cap=0xfffa3203078bffff:0x405fc6f1bf07ab\n$ openssl speed -bytes 8192 -evp sha256\n{}",
        fixture("openssl-3.0.19-bytes-8192-sha256.txt")
    );
    let runs = parse(&text, None, &ImportOptions::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].field("version"), Some("3.0.19"));
    assert_eq!(
        runs[0].field("command"),
        Some("openssl speed -bytes 8192 -evp sha256")
    );
    // Without prompts: the `openssl version` header is replaced by the speed output's own.
    let bare: String = text
        .lines()
        .filter(|l| !l.starts_with('$'))
        .map(|l| format!("{l}\n"))
        .collect();
    let runs = parse(&bare, None, &ImportOptions::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].field("version"), Some("3.0.19"));
}

#[test]
fn double_spaced_pastes_are_read() {
    let text: String = fixture("openssl-1.1.1w-human.txt")
        .lines()
        .map(|l| format!("{l}\n\n"))
        .collect();
    let single = read("openssl-1.1.1w-human.txt");
    let double = parse(&text, None, &ImportOptions::default()).unwrap();
    assert_eq!(double.len(), 1);
    let rates = |r: &ImportedRun| {
        r.results
            .iter()
            .map(|x| (x.primitive.clone(), x.op, x.bytes, x.rate))
            .collect::<Vec<_>>()
    };
    assert_eq!(rates(&double[0]), rates(&single[0]));
}
