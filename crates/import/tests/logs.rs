//! Reads real `openssl speed` 3.0.19 output captured on the development VM, real logs from
//! tests/real, and the few hand-made logs kept for formats no real log was found for; checks
//! figures against the printed digits, and the error paths (truncated, garbled) by line.

use cryptospeed_import::{parse, ImportOptions, ImportedRun};
use cryptospeed_model::Op;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A real log from tests/real (see its INDEX.toml).
fn real(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/real/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn read_real(name: &str) -> Vec<ImportedRun> {
    parse(&real(name), None, &ImportOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
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
    let r = &read_real("openssl-0.9.8zc-macos-x86_64.txt")[0];
    assert_eq!(r.field("version"), Some("OpenSSL 0.9.8zc 15 Oct 2014"));
    assert_eq!(r.field("timing"), Some("getrusage"));
    assert!(close(rate(r, "sha256", Op::Hash, Some(16)), 28698.58e3));
    assert!(close(rate(r, "rsa-1024", Op::Sign, None), 1759.1));

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

    let e = &read_real("openssl-3.4.0-oqsprovider-docker-x86_64-all-tail.txt")[0];
    assert!(close(rate(e, "ed25519", Op::Sign, None), 23567.0));
    assert!(close(rate(e, "x25519", Op::Derive, None), 19862.5));
    assert!(close(rate(e, "rsa-2048", Op::Decrypt, None), 618.0));
    assert!(close(rate(e, "rsa-2048", Op::Encrypt, None), 22322.5));
    assert!(close(rate(e, "ml-kem-768", Op::Encaps, None), 11852.0));
    let k = &read_real("openssl-3.4.0-oqsprovider-docker-x86_64-sig.txt")[0];
    assert!(close(rate(k, "ml-dsa-44", Op::Sign, None), 1332.0));
}

#[test]
fn bssl_text_and_json() {
    let t = &read_real("bssl-boringssl-aarch64-kunpeng-rsa.txt")[0];
    assert_eq!(t.implementation, "boringssl");
    assert!(close(
        rate(t, "rsa-2048", Op::Verify, None),
        202000.0 / 6010664.0 * 1e6
    ));
    assert!(close(
        rate(t, "rsa-2048", Op::VerifyFreshKey, None),
        173000.0 / 6005633.0 * 1e6
    ));
    assert!(t.unmapped_names().contains(&"RSA 2048 private key parse"));
    let g = &read_real("bssl-boringssl-fips-envoy-aead.txt")[0];
    assert!(close(
        rate(g, "aes-128-gcm", Op::Encrypt, Some(8192)),
        509000.0 / 1000655.0 * 1e6 * 8192.0
    ));
    let o = &read_real("bssl-aws-lc-zen3-aead-seal-open.txt")[0];
    assert!(close(
        rate(o, "aes-128-gcm", Op::Decrypt, Some(1350)),
        24261000.0 / 10000112.0 * 1e6 * 1350.0
    ));
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
        real("openssl-1.0.1k-raspbian-armv7.txt")
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
    assert_eq!(runs[2].field("version"), Some("OpenSSL 1.0.1k 8 Jan 2015"));
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
fn a_log_cut_in_its_progress_lines_keeps_their_figures() {
    let full = fixture("openssl-3.0.19-human.txt");
    let lines: Vec<&str> = full.lines().collect();
    let upto = |n: usize| lines[..n].join("\n") + "\n";
    // Cut inside the progress lines or the header: the figures the progress lines carry (count
    // over time) are kept, marked partial, saying where the log ends.
    let whole = cryptospeed_import::read(&full, None, &ImportOptions::default()).unwrap();
    let table_md5 = whole.runs[0].results[0].rate;
    for cut in [20, 44] {
        let log = cryptospeed_import::read(&upto(cut), None, &ImportOptions::default()).unwrap();
        let run = &log.runs[0];
        let missing = run.missing.join("\n");
        assert!(
            missing.contains(&format!("ends at line {cut}")),
            "{missing}"
        );
        assert!(
            missing.contains("taken from the progress lines"),
            "{missing}"
        );
        let md5 = &run.results[0];
        assert_eq!((md5.primitive.as_str(), md5.bytes), ("md5", Some(16)));
        assert!(
            (md5.rate / table_md5 - 1.0).abs() < 0.01,
            "{} vs {table_md5}",
            md5.rate
        );
    }
}

#[test]
fn truncated_logs_keep_their_complete_rows_and_name_what_is_missing() {
    let full = fixture("openssl-3.0.19-human.txt");
    let lines: Vec<&str> = full.lines().collect();
    let upto = |n: usize| lines[..n].join("\n") + "\n";
    // Cut inside the table: md5 and sha256 read, the rest named as missing.
    let log = cryptospeed_import::read(&upto(50), None, &ImportOptions::default()).unwrap();
    let run = &log.runs[0];
    // md5 and sha256 from the table; RSA and DSA 2048 sign and verify from their progress lines.
    assert_eq!(run.results.len(), 16);
    let from_progress: Vec<&str> = run.results[12..]
        .iter()
        .map(|r| r.primitive.as_str())
        .collect();
    assert_eq!(
        from_progress,
        ["rsa-2048", "rsa-2048", "dsa-2048", "dsa-2048"]
    );
    let missing = run.missing.join("\n");
    for name in ["hmac(md5)", "des-ede3", "aes-128-cbc"] {
        assert!(
            missing.contains(&format!("the row for '{name}'")),
            "{missing}"
        );
    }
    assert!(missing.contains("public-key results"), "{missing}");
    assert_eq!(run.field("partial"), Some(run.missing.join("; ").as_str()));
    // A last row cut mid-line: the rows above it are kept, the cut one named.
    let cut_row = format!("{}\n{}\n", lines[..49].join("\n"), &lines[49][..40]);
    let log = cryptospeed_import::read(&cut_row, None, &ImportOptions::default()).unwrap();
    assert_eq!(
        log.runs[0].results.len(),
        6 + 4,
        "md5's row, RSA/DSA from progress lines"
    );
    assert!(log
        .missing()
        .iter()
        .any(|m| m.starts_with("line 50 is cut short")));
    // Cut before the public-key tables its progress lines announced.
    let log = cryptospeed_import::read(&upto(53), None, &ImportOptions::default()).unwrap();
    assert!(log.missing().iter().any(|m| m.contains("public-key")));
}

#[test]
fn truncated_mr_logs_take_their_sizes_from_dt_lines_or_the_defaults() {
    // -mr cut inside its +F lines, and cut at the top (no +H line): sizes from +DT lines.
    let mr = fixture("openssl-3.0.19-mr.txt");
    let mr_lines: Vec<&str> = mr.lines().collect();
    let log = cryptospeed_import::read(
        &(mr_lines[..60].join("\n") + "\n"),
        None,
        &ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(log.runs[0].results.len(), 18);
    let headless: String = mr
        .lines()
        .filter(|l| !l.starts_with("+H:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let log = cryptospeed_import::read(&headless, None, &ImportOptions::default()).unwrap();
    let run = &log.runs[0];
    let whole = parse(&mr, None, &ImportOptions::default()).unwrap();
    let mut got = run.results.clone();
    got.sort_by_key(|r| r.line);
    assert_eq!(
        got,
        whole[0]
            .results
            .iter()
            .map(|r| {
                let mut r = r.clone();
                if r.line > 57 {
                    r.line -= 1;
                }
                r
            })
            .collect::<Vec<_>>()
    );
    assert!(
        run.missing[0].contains("'+DT:' progress lines"),
        "{:?}",
        run.missing
    );
    // Without progress lines either, openssl's default sizes by the count of values.
    let bare: String = headless
        .lines()
        .filter(|l| l.starts_with("+F"))
        .map(|l| format!("{l}\n"))
        .collect();
    let log = cryptospeed_import::read(&bare, None, &ImportOptions::default()).unwrap();
    assert_eq!(log.runs[0].results.len(), whole[0].results.len());
    assert!(
        log.runs[0].missing[0].contains("default sizes"),
        "{:?}",
        log.runs[0].missing
    );
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
    let text: String = real("openssl-1.0.1k-raspbian-armv7.txt")
        .lines()
        .map(|l| format!("{l}\n\n"))
        .collect();
    let single = read_real("openssl-1.0.1k-raspbian-armv7.txt");
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

#[test]
fn a_time_and_rate_rounded_from_one_pair_are_consistent() {
    // Issue 18: 1/662.9 = 0.0015085, printed 0.001508 — rounding, not garbling.
    let text = "                  sign    verify    sign/s verify/s\nrsa 3072 bits 0.001508s 0.000041s    662.9  24390.2\n";
    let runs = parse(text, None, &ImportOptions::default()).unwrap();
    assert!(close(rate(&runs[0], "rsa-3072", Op::Sign, None), 662.9));
}

#[test]
fn a_tail_without_type_line_or_children_sizes_uses_openssl_default_sizes() {
    // `openssl speed -multi 12 … | tail -3` of the real 3.6.3 log: no `Got: +H`, no `type` line.
    let full = real("openssl-3.6.3-macos-arm64-multi12-sha256-tail.txt");
    let tail: String = full.lines().skip(2).map(|l| format!("{l}\n")).collect();
    let r = &parse(&tail, None, &ImportOptions::default()).unwrap()[0];
    assert!(close(
        rate(r, "sha256", Op::Hash, Some(16384)),
        21723542.32e3
    ));
    assert!(close(rate(r, "sha256", Op::Hash, Some(16)), 1140053.82e3));
}

#[test]
fn mr_lines_out_of_order_are_read_as_in_order() {
    // -mr -multi children can print a +F line before the parent's +H.
    let text = fixture("openssl-3.0.19-mr.txt");
    let lines: Vec<&str> = text.lines().collect();
    let h = lines.iter().position(|l| l.starts_with("+H:")).unwrap();
    let f = lines.iter().position(|l| l.starts_with("+F:")).unwrap();
    let mut moved = lines.clone();
    let header = moved.remove(h);
    moved.insert(f, header);
    let moved = moved.join("\n") + "\n";
    let rates = |t: &str| {
        let mut v: Vec<(String, Op, Option<u64>, u64)> = parse(t, None, &ImportOptions::default())
            .unwrap()[0]
            .results
            .iter()
            .map(|r| (r.primitive.clone(), r.op, r.bytes, r.rate.to_bits()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(rates(&moved), rates(&text));
}

#[test]
fn a_header_line_wrapped_by_a_mail_client_is_skipped() {
    // 0.9.7c on Windows pasted with its options line wrapped: `blowfish(idx)` alone on a line.
    let text = real("openssl-0.9.8zc-macos-x86_64.txt").replacen(
        " blowfish(idx)\n",
        "\nblowfish(idx)\n",
        1,
    );
    let log = read_log(&text);
    assert_eq!(log.skipped, vec![(4, "blowfish(idx)".to_string())]);
    assert!(close(
        rate(&log.runs[0], "rsa-2048", Op::Verify, None),
        12992.7
    ));
}

fn read_log(text: &str) -> cryptospeed_import::ParsedLog {
    cryptospeed_import::read(text, None, &ImportOptions::default()).unwrap()
}

#[test]
fn openssl_3_5_mr_kem_and_signature_lines_take_their_names_from_the_r_lines() {
    // +F9/+F10 carry a run-time index (13, 15; 10, 13); the +R15/+R18 keygen lines name them in
    // the same order.
    let runs = read("openssl-3.5.5-mr-pq.txt");
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    for (primitive, op, want) in [
        ("ml-kem-768", Op::Keygen, 32926.865672),
        ("ml-kem-768", Op::Decaps, 39581.159420),
        ("x25519-mlkem768", Op::Encaps, 13983.076923),
        ("ml-dsa-65", Op::Sign, 1210.606061),
        ("slh-dsa-sha2-128f", Op::Sign, 82.812500),
        ("slh-dsa-sha2-128f", Op::Verify, 1397.468354),
    ] {
        assert!(
            close(rate(r, primitive, op, None), want),
            "{primitive} {op}"
        );
    }
    assert!(
        r.results
            .iter()
            .all(|x| !x.primitive.starts_with("kem-") && !x.primitive.starts_with("signature-")),
        "every indexed line is named: {:#?}",
        r.results
    );
}

#[test]
fn kem_and_signature_progress_lines_give_the_figures_their_tables_print() {
    // OpenSSL 4.0.3's KEM and signature run (tests/fixtures/COMMANDS), cut before its header.
    let full = fixture("openssl-4.0.3-human-pq-hybrid.txt");
    let cut: String = full
        .lines()
        .take_while(|l| !l.starts_with("version:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let whole = parse(&full, None, &ImportOptions::default()).unwrap();
    let log = cryptospeed_import::read(&cut, None, &ImportOptions::default()).unwrap();
    let run = &log.runs[0];
    assert!(run
        .field("partial")
        .unwrap()
        .contains("taken from the progress lines"));
    assert_eq!(run.results.len(), 21, "7 schemes x 3 operations");
    for r in &run.results {
        let table = whole[0]
            .results
            .iter()
            .find(|w| w.primitive == r.primitive && w.op == r.op)
            .unwrap_or_else(|| panic!("{} {:?}", r.primitive, r.op));
        // The progress line prints its seconds to 0.01 s: within 2% of the table's rate.
        assert!(
            (r.rate / table.rate - 1.0).abs() < 0.02,
            "{} {:?}",
            r.primitive,
            r.op
        );
    }
}
