//! The HTML report's definitions and deviations, end to end: a real run of two implementations,
//! one of which declares a deviation (ring signs messages: RSA hashes and wraps in DigestInfo),
//! drawn as HTML and opened in headless Chromium (Debian's chromium; `scripts/test` installs
//! it). The oracles are the tool's other outputs, which the report must repeat, not rephrase:
//! `list --json` for each operation's definition and `show` (matrix and openssl formats) for the
//! footnotes and the per-variant `# deviates` lines.

mod common;

use common::{bin, ok, quick};
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// The DOM headless Chromium builds from `page`, and the console messages it logged.
fn dump_dom(page: &Path, profile_dir: &Path) -> (String, Vec<String>) {
    let out = Command::new("timeout")
        .arg("120")
        .arg(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile_dir.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let console = stderr.lines().filter(|l| l.contains(":CONSOLE"));
    let console = console.map(str::to_string).collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), console)
}

/// Text as the DOM serialises it inside an element.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The `<tr>` of the definitions table for `primitive op`.
fn row<'a>(dom: &'a str, primitive: &str, op: &str) -> &'a str {
    let start = format!("<tr data-definition=\"{primitive} {op}\">");
    let at = dom
        .find(&start)
        .unwrap_or_else(|| panic!("no definition row for {primitive} {op}"));
    let rest = &dom[at..];
    &rest[..rest.find("</tr>").expect("the row ends")]
}

fn stdout(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_report_shows_each_definition_and_each_columns_deviation_as_the_text_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let dbs = db.to_str().unwrap();
    let mut run = bin();
    run.args(["run", "-a", "rsa-2048,sha256", "-b", "1024"])
        .args(["--impl", "openssl,ring", "--label", "defs"])
        .args(quick(&db));
    ok(&mut run);
    let html = dir.path().join("report.html");
    ok(bin()
        .args(["report", "defs", "-o"])
        .arg(&html)
        .args(["--db", dbs]));
    let (dom, console) = dump_dom(&html, &dir.path().join("chrome"));
    assert!(console.is_empty(), "console messages: {console:#?}");

    // Every operation with figures has its row, holding list --json's definition word for word.
    let list: serde_json::Value = serde_json::from_str(&stdout(&["list", "--json"])).unwrap();
    let operations = [
        ("rsa-2048", "sign"),
        ("rsa-2048", "verify"),
        ("sha256", "hash"),
    ];
    for (primitive, op) in operations {
        let entry = list.as_array().unwrap().iter();
        let entry = entry.clone().find(|p| p["primitive"] == primitive).unwrap();
        let definition = &entry["definitions"][op];
        let row = row(&dom, primitive, op);
        for field in ["id", "prepared", "timed", "lengths"] {
            let text = definition[field].as_str().unwrap();
            assert!(
                row.contains(&escaped(text)),
                "{field} {text:?} not in {row}"
            );
        }
        let version = format!(" v{}", definition["version"]);
        assert!(row.contains(&version), "{version} not in {row}");
    }
    assert_eq!(
        dom.matches("<tr data-definition=").count(),
        operations.len()
    );

    // ring deviates on RSA, openssl holds: as list --impl says, with the footnote's number.
    let sign = row(&dom, "rsa-2048", "sign");
    assert!(
        sign.contains("<b>ring</b> ¹: the API signs messages"),
        "{sign}"
    );
    assert!(sign.contains("openssl: as defined"), "{sign}");
    assert!(row(&dom, "sha256", "hash").contains("openssl, ring: as defined"));

    // The footnotes are the lines `show` prints under its matrix, in the same order.
    let matrix = stdout(&["show", "defs", "--format", "matrix", "--db", dbs]);
    let notes: Vec<&str> = matrix.lines().filter(|l| l.starts_with('¹')).collect();
    assert_eq!(notes.len(), 1, "{matrix}");
    for (i, note) in notes.iter().enumerate() {
        let p = format!(
            "<p class=\"footnote\" id=\"deviation-{}\">{}</p>",
            i + 1,
            escaped(note)
        );
        assert!(dom.contains(&p), "{p} not in the DOM");
    }
    // The run's openssl speed table carries the `# deviates` lines show prints for it.
    let table = stdout(&["show", "defs", "--format", "openssl", "--db", dbs]);
    let deviates: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("# deviates"))
        .collect();
    assert!(!deviates.is_empty(), "{table}");
    for line in deviates {
        assert!(dom.contains(&escaped(line)), "{line} not in the DOM");
    }
}
