//! The site over a shared PostgreSQL store (a real server, crates/testkit) is the site over a
//! SQLite file holding the same runs: the same pages, and the same primitive and comparison
//! pages byte for byte (run and index pages carry each store's own import times). The runs are
//! real `openssl speed` logs, imported through the store's own import.

use cryptospeed_import::file::{file_label, read_file, record};
use cryptospeed_import::ImportOptions;
use cryptospeed_site::{build, Deviations, Options};
use cryptospeed_store::Store;
use cryptospeed_testkit::PgServer;
use std::collections::BTreeMap;
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../import/tests/fixtures");
const LOGS: [&str; 3] = [
    "openssl-3.0.19-human.txt",
    "openssl-4.0.3-human-classic.txt",
    "openssl-3.5.5-mr-pq.txt",
];

fn site_of(store: &mut dyn Store, dir: &Path) -> BTreeMap<String, String> {
    for name in LOGS {
        let file = format!("{FIXTURES}/{name}");
        let log = read_file(&file, None, &ImportOptions::default()).unwrap();
        for run in &log.runs {
            store
                .import_run(&record(run, name, &file_label(name), 0))
                .unwrap();
        }
    }
    let options = Options {
        dir: dir.to_path_buf(),
        tool: "cryptospeed test".into(),
        deviations: Deviations::default(),
    };
    let outcome = build(store, &options).unwrap();
    assert_eq!(outcome.written, outcome.pages);
    let mut pages = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                pages.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    pages
}

#[test]
fn a_postgresql_store_gives_the_site_a_sqlite_file_gives() {
    let tmp = tempfile::tempdir().unwrap();
    let server = PgServer::start().unwrap();
    let url = server.database("site").unwrap();
    let mut pg = cryptospeed_store::open(&url).unwrap();
    let from_pg = site_of(pg.as_mut(), &tmp.path().join("pg"));
    let mut lite = cryptospeed_store::open(tmp.path().join("s.db").to_str().unwrap()).unwrap();
    let from_lite = site_of(lite.as_mut(), &tmp.path().join("lite"));
    assert_eq!(
        from_pg.keys().collect::<Vec<_>>(),
        from_lite.keys().collect::<Vec<_>>()
    );
    let same = |p: &&String| p.starts_with("primitives/") || p.starts_with("compare/");
    let compared: Vec<&String> = from_pg.keys().filter(same).collect();
    assert!(compared.len() > 15, "{compared:?}");
    assert!(
        compared.iter().any(|p| p.starts_with("compare/release-")),
        "{compared:?}"
    );
    for page in compared {
        assert_eq!(from_pg[page], from_lite[page], "{page}");
    }
}
