//! Rebuilding a site: from a store of real `openssl speed` logs (the import crate's fixtures,
//! stored through the store's own import), a second build writes nothing, a new run rewrites
//! only the pages it touches and leaves the others' files alone, and every rebuild gives the same
//! pages as a full build into an empty folder. A page deleted by hand is drawn again; a manifest
//! that cannot be read means a full build.

use cryptospeed_import::file::{file_label, read_file, record};
use cryptospeed_import::ImportOptions;
use cryptospeed_site::{build, Deviations, Options, Outcome};
use cryptospeed_store::{SqliteStore, Store};
use std::collections::BTreeMap;
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../import/tests/fixtures");

fn import(store: &mut SqliteStore, name: &str) {
    let file = format!("{FIXTURES}/{name}");
    let log = read_file(&file, None, &ImportOptions::default()).unwrap();
    for run in &log.runs {
        store
            .import_run(&record(run, &file, &file_label(&file), 0))
            .unwrap();
    }
}

fn site(store: &mut SqliteStore, dir: &Path) -> Outcome {
    let options = Options {
        dir: dir.to_path_buf(),
        tool: "cryptospeed test".into(),
        deviations: Deviations::default(),
    };
    build(store, &options).unwrap()
}

/// Every file of the site, relative path → content.
fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_folder_that_is_not_a_site_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(&tmp.path().join("s.db")).unwrap();
    import(&mut store, "openssl-3.0.19-human.txt");
    let theirs = tmp.path().join("www");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("index.html"), "their page").unwrap();
    let options = Options {
        dir: theirs.clone(),
        tool: "cryptospeed test".into(),
        deviations: Deviations::default(),
    };
    let err = build(&mut store, &options).unwrap_err().to_string();
    assert!(err.contains("no manifest.json"), "{err}");
    assert_eq!(
        std::fs::read_to_string(theirs.join("index.html")).unwrap(),
        "their page"
    );
}

#[test]
fn rebuilds_write_only_what_changed_and_equal_a_full_build() {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(&tmp.path().join("s.db")).unwrap();
    import(&mut store, "openssl-3.0.19-human.txt");
    import(&mut store, "openssl-4.0.3-human-classic.txt");
    let out = tmp.path().join("site");

    let first = site(&mut store, &out);
    assert_eq!(first.written, first.pages);
    assert!(first.pages >= 10, "{first:?}");
    assert_eq!(first.runs_read, 2);
    let release = "compare/release-";
    assert!(
        files(&out).keys().any(|p| p.starts_with(release)),
        "3.0.19 → 4.0.3"
    );

    let again = site(&mut store, &out);
    assert_eq!(
        (again.written, again.runs_read, again.comparisons),
        (0, 0, 0),
        "{again:?}"
    );

    let before = files(&out);
    let stamp = |p: &str| std::fs::metadata(out.join(p)).unwrap().modified().unwrap();
    let run1 = stamp("runs/1.html");
    import(&mut store, "openssl-3.5.5-mr-pq.txt");
    let third = site(&mut store, &out);
    assert!(third.written < first.pages / 2, "{third:?}");
    assert_eq!(stamp("runs/1.html"), run1, "run 1's page was written again");
    let after = files(&out);
    assert!(after.contains_key("runs/3.html"));
    assert_eq!(before["runs/2.html"], after["runs/2.html"]);
    assert_ne!(
        before["index.html"], after["index.html"],
        "the index lists run 3"
    );
    let fresh = tmp.path().join("fresh");
    site(&mut store, &fresh);
    assert_eq!(
        after,
        files(&fresh),
        "the rebuilt site differs from a full build"
    );

    std::fs::remove_file(out.join("runs/2.html")).unwrap();
    let redrawn = site(&mut store, &out);
    assert_eq!(redrawn.written, 1, "{redrawn:?}");
    assert_eq!(files(&out), after);

    std::fs::write(out.join(cryptospeed_site::state::MANIFEST), "{").unwrap();
    let full = site(&mut store, &out);
    assert_eq!(
        full.written, full.pages,
        "an unreadable manifest means a full build"
    );
    assert_eq!(files(&out), after);
}
