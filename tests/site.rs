//! The results site end to end, from a store filled by real commands: two measured runs of two
//! implementations (a run's variants), one of them copied under a second machine of another clock
//! (as tests/across_machines.rs makes one), two real `openssl speed` logs imported (two
//! releases, imported single figures), and a sweep of two shards. Then `cryptospeed site`, and every page is checked:
//!
//! - opened in headless Chromium (Debian's chromium, as tests/report.rs): nothing on the console,
//!   which is where a blocked fetch or a script error shows under the Content Security Policy;
//! - crawled: every link is relative, stays inside the site and resolves to a file, and every
//!   page is reachable from the index;
//! - every figure on a primitive page is the one `cryptospeed show RUN --format openssl` prints
//!   for that run, variant, cell and size;
//! - every comparison page holds exactly what its `cryptospeed compare …` command prints;
//! - built again: nothing written; after a new import: only the pages it touches, and the same
//!   pages as a full build into an empty folder.

mod common;

use common::{bin, ok, quick};
use cryptospeed_store::{SqliteStore, Store};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURES: &str = "crates/import/tests/fixtures";

/// A real store: two runs here, a copy of the first under a second machine, two imported logs.
fn store(dir: &Path) -> PathBuf {
    let db = dir.join("site.db");
    for _ in 0..2 {
        ok(bin()
            .args(["run", "-a", "md5,sha256,x25519", "-b", "64,1024,8192"])
            .args(["--impl", "openssl,rustcrypto", "--label", "here"])
            .args(quick(&db)));
    }
    let mut s = SqliteStore::open(&db).unwrap();
    let mut record = s.load_run("1").unwrap();
    record.machine.hostname = "twin-at-double-clock".into();
    record.machine.tsc_hz *= 2.0;
    record.run.label = Some("twin".into());
    s.copy_run("00000000000000000000000000000003", &record, &[])
        .unwrap();
    ok(bin()
        .arg("import")
        .arg(format!("{FIXTURES}/openssl-3.0.19-human.txt"))
        .arg(format!("{FIXTURES}/openssl-4.0.3-human-classic.txt"))
        .args(["--db", db.to_str().unwrap()]));
    // A sweep of two shards, each timing both implementations.
    let spec = dir.join("sweep.toml");
    std::fs::write(
        &spec,
        "name = \"nightly\"\nimplementations = [\"openssl\", \"rustcrypto\"]\nprimitives = [\"md5\"]\nsizes = [64, \"1k\"]\nshards = 2\noptions = [\"--max-time\", \"0.3\", \"--sample-time\", \"0.002\", \"--min-samples\", \"6\"]\n",
    )
    .unwrap();
    let dbs = db.to_str().unwrap();
    ok(bin().args(["sweep", "plan"]).arg(&spec).args(["--db", dbs]));
    ok(bin().args(["sweep", "run", "nightly", "--all", "--db", dbs]));
    db
}

/// Builds the site; returns the command's summary line.
fn site(db: &Path, out: &Path) -> String {
    let o = bin()
        .args(["site", "--db", db.to_str().unwrap(), "-o"])
        .arg(out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "site failed: {err}");
    err
}

/// Every page of the site, relative path → content.
fn pages(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    out
}

/// The values of `attr="…"` in `html`, unescaped.
fn attributes(html: &str, attr: &str) -> Vec<String> {
    let needle = format!("{attr}=\"");
    html.match_indices(&needle)
        .map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            unescape(&rest[..rest.find('"').unwrap()])
        })
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The text between `open` and the next `close`, every time.
fn between<'a>(html: &'a str, open: &str, close: &str) -> Vec<&'a str> {
    html.match_indices(open)
        .map(|(i, _)| {
            let rest = &html[i + open.len()..];
            &rest[..rest.find(close).unwrap()]
        })
        .collect()
}

#[test]
fn a_site_of_two_machines_variants_and_imported_logs() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path());
    let out = dir.path().join("site");
    let summary = site(&db, &out);
    assert!(summary.contains("0 removed"), "{summary}");
    let all = pages(&out);

    let s = SqliteStore::open(&db).unwrap();
    let machines = s.machines().unwrap();
    assert_eq!(machines.len(), 3, "here, the twin, and the logs' machine");
    for m in &machines {
        assert!(
            all.contains_key(&format!("machines/{}.html", m.key)),
            "{}",
            m.key
        );
    }
    for r in s.runs().unwrap() {
        assert!(
            all.contains_key(&format!("runs/{}.html", r.id)),
            "run {}",
            r.id
        );
    }
    for p in ["md5", "sha256", "x25519", "aes-128-cbc", "rsa-2048"] {
        assert!(all.contains_key(&format!("primitives/{p}.html")), "{p}");
    }
    assert!(all["runs/4.html"].contains("data-imported"));
    assert!(all["primitives/aes-128-cbc.html"].contains("imported single figure"));
    let compare: Vec<&String> = all.keys().filter(|p| p.starts_with("compare/")).collect();
    for kind in [
        "previous-2",
        "variants-1",
        "release-",
        "machines-",
        "sweep-nightly",
    ] {
        assert!(
            compare.iter().any(|p| p.contains(kind)),
            "{kind}: {compare:?}"
        );
    }

    crawl(&out, &all);
    tables_match_show(&db, &all);
    figures_match_show(&db, &all);
    comparisons_match_compare(&db, &all);
    open_every_page(&out, &all, &dir.path().join("chrome"));
    rebuilds(&db, &out, dir.path());
}

/// Every link relative, inside the site, to a file that is there; every page reachable.
fn crawl(root: &Path, all: &BTreeMap<String, String>) {
    let mut reached = BTreeSet::from(["index.html".to_string()]);
    let mut todo = vec!["index.html".to_string()];
    while let Some(page) = todo.pop() {
        let html = &all[&page];
        assert!(attributes(html, "src").is_empty(), "{page} loads something");
        let base = Path::new(&page).parent().unwrap().to_path_buf();
        for href in attributes(html, "href") {
            assert!(
                !href.contains("://") && !href.starts_with('/') && !href.starts_with('#'),
                "{page}: {href}"
            );
            let target = href.split('#').next().unwrap();
            let mut path = base.clone();
            for part in target.split('/') {
                match part {
                    ".." => assert!(path.pop(), "{page}: {href} leaves the site"),
                    p => path.push(p),
                }
            }
            let rel = path.to_string_lossy().into_owned();
            assert!(root.join(&rel).is_file(), "{page}: {href} does not resolve");
            if reached.insert(rel.clone()) {
                todo.push(rel);
            }
        }
    }
    let unreached: Vec<&String> = all.keys().filter(|p| !reached.contains(*p)).collect();
    assert!(unreached.is_empty(), "pages no link reaches: {unreached:?}");
}

/// `show RUN --format openssl`, split by variant: label → its lines.
fn show(db: &Path, run: &str) -> BTreeMap<String, Vec<String>> {
    let text = ok(bin().args([
        "show",
        run,
        "--format",
        "openssl",
        "--db",
        db.to_str().unwrap(),
    ]));
    let mut sections: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("version: ") {
            current = rest.split(" (").next().unwrap().to_string();
        }
        sections
            .entry(current.clone())
            .or_default()
            .push(line.to_string());
    }
    sections
}

/// `show RUN --format csv`: (variant, primitive, op, bytes) → the first figure printed.
fn show_csv(db: &Path, run: &str) -> BTreeMap<(String, String, String, String), f64> {
    let text = ok(bin().args(["show", run, "--format", "csv", "--db", db.to_str().unwrap()]));
    let mut figures = BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let key = (
            f[2].to_string(),
            f[3].to_string(),
            f[4].to_string(),
            f[5].to_string(),
        );
        if let Ok(rate) = f[7].parse() {
            figures.entry(key).or_insert(rate);
        }
    }
    figures
}

/// The bulk figure `show`'s openssl table prints for a primitive at a size.
fn table_figure(lines: &[String], primitive: &str, bytes: &str) -> String {
    let name = match cryptospeed_catalog::lookup(primitive).unwrap().speed {
        cryptospeed_catalog::SpeedRow::Symmetric { name, .. } => name,
        _ => primitive,
    };
    let header = lines.iter().find(|l| l.starts_with("type ")).unwrap();
    let column = header
        .split("bytes")
        .map(str::trim)
        .position(|s| s.split_whitespace().last() == Some(bytes))
        .unwrap();
    let row = lines
        .iter()
        .find(|l| l.get(..13).is_some_and(|h| h.trim_end() == name))
        .unwrap_or_else(|| panic!("no row {name} in show's table"));
    row[13..]
        .split_whitespace()
        .nth(column)
        .unwrap()
        .to_string()
}

/// Each primitive page's figures against `show`: every figure is the run's figure for that
/// variant, cell and size in `show --format csv` (to the page's rounding), and a bulk figure is
/// the very text in its size's column of `show`'s openssl table.
fn figures_match_show(db: &Path, all: &BTreeMap<String, String>) {
    let mut tables: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    let mut csvs = BTreeMap::new();
    let mut checked = 0;
    for (page, html) in all.iter().filter(|(p, _)| p.starts_with("primitives/")) {
        let primitive = page
            .trim_start_matches("primitives/")
            .trim_end_matches(".html");
        for cell in between(html, "<td class=\"n\" data-figure ", "</a>") {
            let [run, variant, op, bytes] = ["data-run", "data-variant", "data-op", "data-bytes"]
                .map(|a| attributes(cell, a)[0].clone());
            let figure = cell.rsplit('>').next().unwrap();
            let csv = csvs
                .entry(run.clone())
                .or_insert_with(|| show_csv(db, &run));
            let key = (
                variant.clone(),
                primitive.to_string(),
                op.clone(),
                bytes.clone(),
            );
            let printed = csv[&key];
            let (value, unit) = match figure.strip_suffix('k') {
                Some(k) => (k.parse::<f64>().unwrap() * 1e3, 10.0),
                None => (
                    figure.parse::<f64>().unwrap(),
                    if bytes.is_empty() { 0.1 } else { 0.01 },
                ),
            };
            assert!(
                (value - printed).abs() <= unit / 2.0 + 1e-6,
                "{page}: {figure} against show's {printed} (run {run} {variant} {op} {bytes})"
            );
            if !bytes.is_empty() {
                let lines = &tables.entry(run.clone()).or_insert_with(|| show(db, &run))[&variant];
                assert_eq!(
                    table_figure(lines, primitive, &bytes),
                    figure,
                    "{page}: run {run} {variant} at {bytes}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} figures checked");
}

/// Each run page's tables are what `show ID --ci --cycles --format openssl` prints.
fn tables_match_show(db: &Path, all: &BTreeMap<String, String>) {
    for (page, html) in all.iter().filter(|(p, _)| p.starts_with("runs/")) {
        let id = page.trim_start_matches("runs/").trim_end_matches(".html");
        let printed = ok(bin()
            .args(["show", id, "--ci", "--cycles", "--format", "openssl"])
            .args(["--db", db.to_str().unwrap()]));
        let shown = unescape(between(html, "<pre data-show>", "</pre>")[0]);
        assert_eq!(shown, printed, "{page}");
    }
}

/// Each comparison page's table is what its command prints.
fn comparisons_match_compare(db: &Path, all: &BTreeMap<String, String>) {
    for (page, html) in all.iter().filter(|(p, _)| p.starts_with("compare/")) {
        let command = unescape(between(html, "<code data-command>", "</code>")[0]);
        let table = unescape(between(html, "<pre data-compare>", "</pre>")[0]);
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let printed = ok(bin().args(&args).args(["--db", db.to_str().unwrap()]));
        assert_eq!(table, printed, "{page}: {command}");
        assert!(table.contains("geomean"), "{page}");
    }
}

fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = Command::new("which").arg(name).output() {
            if out.status.success() {
                return PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            }
        }
    }
    panic!("the site test needs Chromium: run scripts/test (it installs Debian's chromium package) or apt install chromium");
}

/// Every page in headless Chromium: it must log nothing to its console.
fn open_every_page(root: &Path, all: &BTreeMap<String, String>, profile: &Path) {
    let chromium = chromium();
    for page in all.keys() {
        let out = Command::new("timeout")
            .arg("120")
            .arg(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
            ])
            .args(["--enable-logging=stderr", "--v=0", "--dump-dom"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("file://{}", root.join(page).display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "chromium failed on {page}");
        let console: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_string)
            .collect();
        assert!(console.is_empty(), "{page}: {console:#?}");
        let dom = String::from_utf8_lossy(&out.stdout);
        assert!(dom.contains("</h1>") && !dom.contains("<script"), "{page}");
    }
}

/// Built again: nothing written. A new imported run: a few pages written, no run page before it
/// touched, and the same site as a full build.
fn rebuilds(db: &Path, out: &Path, tmp: &Path) {
    let again = site(db, out);
    assert!(again.contains(", 0 written"), "{again}");
    let before = pages(out);
    let stamp = |p: &str| std::fs::metadata(out.join(p)).unwrap().modified().unwrap();
    let run1 = stamp("runs/1.html");
    ok(bin()
        .arg("import")
        .arg(format!("{FIXTURES}/openssl-3.5.5-mr-pq.txt"))
        .args(["--db", db.to_str().unwrap()]));
    let after = site(db, out);
    let read: usize = after
        .split(" run(s) read")
        .next()
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (1..6).contains(&read),
        "the new run and the releases beside it: {after}"
    );
    assert_eq!(
        stamp("runs/1.html"),
        run1,
        "an old run's page was written again"
    );
    let now = pages(out);
    let changed = now
        .iter()
        .filter(|(p, h)| before.get(*p) != Some(*h))
        .count();
    assert!(
        changed < before.len() / 2,
        "{changed} of {} pages changed",
        before.len()
    );
    let fresh = tmp.join("fresh");
    site(db, &fresh);
    assert_eq!(
        now,
        pages(&fresh),
        "an incremental build differs from a full one"
    );
}
