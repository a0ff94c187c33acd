//! The report end to end: a real multi-implementation run and a real profile, stored, drawn as
//! HTML, then opened in headless Chromium (Debian's chromium; `scripts/test` installs it), which
//! must log nothing to its console (the page has no script, so any message is an error or a
//! blocked fetch), must show every chart kind, and must show a `<script>` label as text. A
//! screenshot is saved under target/ for people to look at. `chart` writes single SVG/PNG files.

mod common;

use common::{bin, ok, quick};
use std::path::{Path, PathBuf};
use std::process::Command;

const EVIL: &str = "cmp <script>alert(1)</script> & \"q\"";

fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = Command::new("which").arg(name).output() {
            if out.status.success() {
                return PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            }
        }
    }
    panic!("the report test needs Chromium: run scripts/test (it installs Debian's chromium package) or apt install chromium");
}

/// Runs headless Chromium on `page` with `mode` (`--dump-dom` or `--screenshot=…`); returns its
/// stdout and the console messages it logged.
fn open_in_chromium(page: &Path, mode: &str, profile_dir: &Path) -> (String, Vec<String>) {
    let out = Command::new("timeout")
        .arg("120")
        .arg(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1400,9000",
        ])
        .arg(format!("--user-data-dir={}", profile_dir.display()))
        .arg(mode)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), console)
}

fn count(dom: &str, needle: &str) -> usize {
    dom.matches(needle).count()
}

#[test]
fn the_console_check_catches_errors_and_blocked_fetches() {
    // The oracle of the next test, tested: a page with a failing script and a network fetch under
    // the report's policy must produce console messages.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("bad.html");
    std::fs::write(
        &page,
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"></head><body><img src="https://example.invalid/x.png"></body></html>"#,
    )
    .unwrap();
    let (_, console) = open_in_chromium(&page, "--dump-dom", &dir.path().join("chrome"));
    assert!(
        console.iter().any(|l| l.contains("example.invalid")),
        "a blocked fetch was not seen: {console:?}"
    );
    let page = dir.path().join("bad2.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><p>x</p><script>undefined_function()</script>",
    )
    .unwrap();
    let (_, console) = open_in_chromium(&page, "--dump-dom", &dir.path().join("chrome"));
    assert!(
        console.iter().any(|l| l.contains("undefined_function")),
        "a script error was not seen: {console:?}"
    );
}

#[test]
fn report_of_a_real_run_and_profile_opens_cleanly_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let dbs = db.to_str().unwrap();
    // Two real implementations, three primitives, three sizes.
    let mut run = bin();
    run.args([
        "run",
        "-a",
        "md5,sha256,aes-128-cbc",
        "-b",
        "64,1024,8192",
        "--impl",
        "openssl,rustcrypto",
        "--label",
        EVIL,
    ])
    .args(quick(&db));
    ok(&mut run);
    // A real profile with the full cache grid (md5 at 4 KB is quick to simulate).
    ok(bin().args([
        "profile", "md5", "--bytes", "4096", "--label", "prof", "--db", dbs,
    ]));
    let html = dir.path().join("report.html");
    ok(bin()
        .args(["report", EVIL, "prof", "-o"])
        .arg(&html)
        .args(["--db", dbs]));
    let page = std::fs::read_to_string(&html).unwrap();

    assert_self_contained(&page);
    assert_clean_in_chromium(&html, &dir.path().join("chrome"));
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshot.png");
    let _ = std::fs::remove_file(&shot);
    let (_, console) = open_in_chromium(
        &html,
        &format!("--screenshot={}", shot.display()),
        &dir.path().join("chrome"),
    );
    assert!(console.is_empty(), "console messages: {console:#?}");
    let png = std::fs::read(&shot).expect("screenshot written");
    assert_eq!(&png[1..4], b"PNG");
    assert!(png.len() > 50_000, "screenshot suspiciously small");
    eprintln!("report screenshot: {}", shot.display());

    single_charts(dir.path(), dbs);
}

/// Self-contained: no script, no fetch but in-page anchors, the label only escaped.
fn assert_self_contained(page: &str) {
    assert!(!page.contains("<script"), "raw <script> in the report");
    assert!(page.contains("cmp &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;"));
    assert!(page.contains("Content-Security-Policy"));
    for attr in ["src=", "href="] {
        for (i, _) in page.match_indices(attr) {
            let value = &page[i + attr.len()..];
            assert!(
                value.starts_with("\"#"),
                "{attr} pointing outside the page: {}",
                &value[..value.len().min(60)]
            );
        }
    }
    let without_ns = page.replace("http://www.w3.org/2000/svg", "");
    assert!(!without_ns.contains("http://") && !without_ns.contains("https://"));
}

/// Opened in a real browser: nothing on the console, every chart kind in the DOM.
fn assert_clean_in_chromium(html: &Path, profile: &Path) {
    let (dom, console) = open_in_chromium(html, "--dump-dom", profile);
    assert!(console.is_empty(), "console messages: {console:#?}");
    assert_eq!(
        count(&dom, "data-chart=\"throughput\""),
        3,
        "md5, sha256, aes-128-cbc"
    );
    assert_eq!(count(&dom, "data-chart=\"speedup\""), 1);
    assert_eq!(count(&dom, "data-chart=\"cycles\""), 1);
    assert_eq!(count(&dom, "data-chart=\"mix\""), 1);
    assert_eq!(count(&dom, "data-chart=\"predictors\""), 1);
    // D1, I1, L2 × by line, by ways, by policy.
    assert_eq!(count(&dom, "data-chart=\"misses\""), 9);
    // The browser parsed the label as text: no script element exists.
    assert!(!dom.contains("<script"), "the DOM has a script element");
    assert!(dom.contains("cmp &lt;script&gt;alert(1)&lt;/script&gt;"));
    // Both implementations are series of the throughput charts.
    assert!(dom.contains("data-series=\"rustcrypto\""));
    assert!(
        dom.contains("data-series=\"openssl-3."),
        "the system libcrypto is a series"
    );
}

/// Single charts for papers: SVG and PNG, and a clear error where a kind has several.
fn single_charts(dir: &Path, dbs: &str) {
    let svg = dir.join("aes.svg");
    ok(bin()
        .args(["chart", "throughput", EVIL, "--pick", "aes-128-cbc", "-o"])
        .arg(&svg)
        .args(["--db", dbs]));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(text.contains("aes-128-cbc"));
    let png = dir.join("speedup.png");
    ok(bin()
        .args(["chart", "speedup", EVIL, "-o"])
        .arg(&png)
        .args(["--db", dbs]));
    assert_eq!(&std::fs::read(&png).unwrap()[1..4], b"PNG");
    let out = bin()
        .args(["chart", "misses", "prof", "-o", "x.svg", "--db", dbs])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--pick") && err.contains("-d1-ways"), "{err}");
    let out = bin()
        .args(["chart", "mix", "prof", "-o", "x.pdf", "--db", dbs])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains(".svg or .png"));
}

#[test]
fn report_errors_name_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let out = bin()
        .args(["report", "no-such-run", "-o"])
        .arg(dir.path().join("r.html"))
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither a run id nor a run label"));
    assert!(!dir.path().join("r.html").exists(), "no report on error");
}
