//! The one Store interface, exercised identically on SQLite and on a real PostgreSQL server started
//! on loopback: what goes in comes back bit for bit, copies between the two are recognised, sweep
//! shards are claimed once, both engines hold the same tables and columns, and a password in the
//! URL never shows up in an error.

use cryptospeed_model::*;
use cryptospeed_store::{PostgresStore, RunStart, ShardClaim, SqliteStore, Store, SyncOutcome};
use cryptospeed_testkit::PgServer;
use std::collections::BTreeSet;

fn machine() -> Machine {
    Machine {
        hostname: "bench-01".into(),
        cpu_model: "Test CPU @ 2.60GHz".into(),
        cpu_flags: vec!["aes".into(), "sse2".into()],
        cores: 2,
        threads: 4,
        tsc_hz: 2.6e9,
        constant_tsc: true,
        kernel: "6.1.0".into(),
        os: "Debian 12".into(),
        arch: "x86_64".into(),
        ..Default::default()
    }
}

fn measurement(primitive: &str, bytes: Option<u64>, samples: usize) -> Measurement {
    let samples: Vec<Sample> = (0..samples as u64)
        .map(|i| Sample {
            iters: 1000 + i,
            wall_ns: 1_000_000 + 17 * i,
            cpu_ns: 999_000 + i,
            tsc: 2_600_000 + 3 * i,
            // Bouts of ten: the bout column must come back as written on both engines.
            bout: (i / 10) as u32,
        })
        .collect();
    Measurement {
        cell: CellSpec {
            primitive: primitive.into(),
            op: Op::Hash,
            bytes,
            misalign: 0,
        },
        status: Status::Ok,
        reason: None,
        summary: Some(Summary {
            n: samples.len(),
            median: 1000.123456789,
            ci_lo: 999.5,
            ci_hi: 1001.25,
            mad: 0.75,
            outliers: 2,
            min: 990.0,
            max: 1100.0,
        }),
        tsc_per_op: Some(2600.3333333333335),
        cpu_fraction: Some(0.999),
        samples,
        elapsed_s: 0.5,
        reported_rate: None,
        // What the host did to two of its bouts: must come back as written on both engines.
        disturbances: vec![
            BoutDisturbance {
                bout: 0,
                canary_ns: [512_345, 530_001],
                nivcsw: 2,
                run_delay_ns: 1_234_567,
                steal_ns: 10_000_000,
                canary_quiet_ns: 56_213,
                canary_floor_ns: 65_400,
            },
            BoutDisturbance {
                bout: 3,
                canary_ns: [511_000, 511_900],
                ..Default::default()
            },
        ],
        // A handshake cell's bytes per flight: must come back as written on both engines.
        flights: vec![193, 701, 64, 0],
    }
}

fn json<T: serde::Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).unwrap()
}

/// Writes a run with 250 samples in one cell (more than one insert batch), a cell that was not
/// timed and a profile; reads it back; returns its id.
fn write_run(store: &mut dyn Store, label: &str) -> i64 {
    let run = store
        .begin_run(&RunStart::new(
            machine(),
            Some(label),
            "cryptospeed run -p md5",
            "0.1.0",
            MeasureConfig::default(),
        ))
        .unwrap();
    let variant = Variant {
        label: "openssl-3.0.19".into(),
        implementation: "openssl".into(),
        version: "3.0.19".into(),
        build_info: vec!["compiler: gcc".into()],
        ..Default::default()
    };
    let v = store.variant_id(&variant).unwrap();
    assert_eq!(
        v,
        store.variant_id(&variant).unwrap(),
        "variants are stored once"
    );
    store
        .add_measurement(run, v, &measurement("md5", Some(8192), 250))
        .unwrap();
    store
        .add_measurement(
            run,
            v,
            &Measurement::not_timed(
                CellSpec {
                    primitive: "md2".into(),
                    op: Op::Hash,
                    bytes: Some(16),
                    misalign: 0,
                },
                Status::Unavailable,
                "not built",
            ),
        )
        .unwrap();
    store
        .add_profile(
            run,
            v,
            &ProfileRecord {
                variant: String::new(),
                primitive: "md5".into(),
                bytes: Some(4096),
                document: r#"{"mix":{"instructions":5}}"#.into(),
            },
        )
        .unwrap();
    store.finish_run(run, RunStatus::Complete).unwrap();
    run
}

/// Each measured cell keeps the catalog's definition it was taken under; an imported one (a
/// rate as another tool printed it) keeps none.
fn definitions_are_kept(store: &mut dyn Store) {
    let run = store.load_run("base").unwrap().run.id;
    let md5 = cryptospeed_catalog::lookup("md5").unwrap();
    let d = md5.definition(Op::Hash).unwrap();
    let label = format!("{} v{}", d.id, d.version);
    assert_eq!(label, "digest/hash v1");
    let stored = store.definitions(run).unwrap();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0].primitive, "md5");
    assert_eq!(stored[0].variant, "openssl-3.0.19");
    assert_eq!(stored[0].definition.as_deref(), Some(label.as_str()));
    let mut imported = store.load_run(&run.to_string()).unwrap();
    imported.run.uid = None;
    imported.run.imported = Some(ImportSource {
        file: "speed.txt".into(),
        first_line: 1,
        last_line: 9,
        format: "openssl-speed".into(),
        header: vec![],
    });
    imported.measurements.truncate(1);
    imported.measurements[0].measurement.reported_rate = Some(8.19e9);
    let copy = store.import_run(&imported).unwrap();
    let stored = store.definitions(copy).unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(
        stored[0].definition, None,
        "an imported cell times another tool's loop"
    );
}

fn exercise(store: &mut dyn Store) {
    let run = write_run(store, "base");
    let back = store.load_run("base").unwrap();
    assert_eq!(back.run.id, run);
    assert_eq!(back.run.status, RunStatus::Complete);
    assert!(back.run.uid.as_deref().is_some_and(|u| u.len() == 32));
    assert_eq!(json(&back.machine), json(&machine()));
    assert_eq!(back.measurements.len(), 2);
    assert_eq!(
        json(&back.measurements[0].measurement),
        json(&measurement("md5", Some(8192), 250)),
        "a measurement and its 250 samples come back exactly"
    );
    assert_eq!(
        back.measurements[1].measurement.reason.as_deref(),
        Some("not built")
    );
    assert_eq!(store.profiles(run).unwrap()[0].variant, "openssl-3.0.19");
    let rows = store.runs().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].measurements, 2);
    assert_eq!(rows[0].variants, "openssl-3.0.19");
    let machines = store.machines().unwrap();
    assert_eq!(machines.len(), 1);
    assert_eq!(machines[0].runs, 1);
    assert_eq!(
        store.latest_run_with_variant("openssl-3.0.19").unwrap(),
        Some(run)
    );
    assert_eq!(store.latest_run_with_variant("nope").unwrap(), None);
    assert!(store
        .load_run("nope")
        .unwrap_err()
        .to_string()
        .contains("no run"));

    // Copying a run in: once, then recognised.
    let uid = "0123456789abcdef0123456789abcdef";
    let mut record = back.clone();
    record.run.label = Some("copied".into());
    let profiles = store.profiles(run).unwrap();
    let SyncOutcome::Copied(copy) = store.copy_run(uid, &record, &profiles).unwrap() else {
        panic!("first copy must be stored")
    };
    assert_eq!(
        store.copy_run(uid, &record, &profiles).unwrap(),
        SyncOutcome::AlreadyThere(copy)
    );
    let copied = store.load_run(&copy.to_string()).unwrap();
    assert_eq!(copied.run.uid.as_deref(), Some(uid));
    assert_eq!(
        copied.run.started_at, back.run.started_at,
        "the copy keeps its time"
    );
    assert_eq!(json(&copied.measurements), json(&back.measurements));
    assert_eq!(store.profiles(copy).unwrap().len(), 1);
    assert_eq!(
        store.machines().unwrap().len(),
        1,
        "the machine is shared, not copied"
    );

    sweeps_are_stored_once_and_claimed(store, run);
    shards_of_dead_runners_are_taken_again(store);
    partial_runs_are_completed_by_a_copy(store, &back);
}

/// Sweeps: a plan is stored once; a shard is claimed until it is done (by run `run`).
fn sweeps_are_stored_once_and_claimed(store: &mut dyn Store, run: i64) {
    let shards = vec!["[1]".to_string(), "[2]".to_string()];
    assert!(store.save_sweep("s", "{\"a\":1}", &shards).unwrap());
    assert!(!store.save_sweep("s", "{\"a\":1}", &shards).unwrap());
    let err = store.save_sweep("s", "{\"a\":2}", &shards).unwrap_err();
    assert!(err.to_string().contains("different plan"), "{err}");
    assert_eq!(
        store.claim_shard("s", 1, "h").unwrap(),
        ShardClaim::Claimed("[2]".into())
    );
    store.finish_shard("s", 1, Some(run), "done").unwrap();
    assert_eq!(
        store.claim_shard("s", 1, "h").unwrap(),
        ShardClaim::AlreadyDone(run)
    );
    assert!(store.claim_shard("s", 5, "h").is_err());
    let rows = store.sweep_shards("s").unwrap();
    assert_eq!(
        (rows[0].status.as_str(), rows[1].status.as_str()),
        ("pending", "done")
    );
    assert_eq!(rows[1].attempts, 1);
    assert_eq!(store.sweeps().unwrap()[0].done, 1);
}

/// A running shard whose run beats is busy; once the beats stop it reads as abandoned and may be
/// claimed again. A run begun twice under one uid (a lost reply) is one run.
fn shards_of_dead_runners_are_taken_again(store: &mut dyn Store) {
    let start = RunStart {
        heartbeat_s: Some(0.2),
        ..RunStart::new(
            machine(),
            Some("shard 0"),
            "cryptospeed run",
            "0.1.0",
            MeasureConfig::default(),
        )
    };
    let live = store.begin_run(&start).unwrap();
    assert_eq!(
        store.begin_run(&start).unwrap(),
        live,
        "the same uid is the same run"
    );
    assert_eq!(
        store.claim_shard("s", 0, "h").unwrap(),
        ShardClaim::Claimed("[1]".into())
    );
    assert_eq!(
        store.claim_shard("s", 0, "other").unwrap(),
        ShardClaim::Busy {
            host: Some("h".into()),
            run: None
        },
        "a fresh claim without a run is busy"
    );
    store.link_shard("s", 0, live).unwrap();
    store.heartbeat(live).unwrap();
    assert_eq!(
        store.claim_shard("s", 0, "other").unwrap(),
        ShardClaim::Busy {
            host: Some("h".into()),
            run: Some(live)
        }
    );
    // No beat for longer than 3 × 0.2 s + 1 s.
    std::thread::sleep(std::time::Duration::from_millis(1800));
    assert_eq!(
        store.load_run(&live.to_string()).unwrap().run.status,
        RunStatus::Abandoned
    );
    let row = store
        .runs()
        .unwrap()
        .into_iter()
        .find(|r| r.id == live)
        .unwrap();
    assert_eq!(row.status, RunStatus::Abandoned);
    assert_eq!(store.sweep_shards("s").unwrap()[0].status, "abandoned");
    assert_eq!(
        store.claim_shard("s", 0, "other").unwrap(),
        ShardClaim::Claimed("[1]".into())
    );
    assert_eq!(store.sweep_shards("s").unwrap()[0].attempts, 2);
}

/// A copy of a run this store holds only the beginning of (its store failed mid-run) adds the
/// rest, once; a copy that disagrees with what is stored is refused.
fn partial_runs_are_completed_by_a_copy(store: &mut dyn Store, full: &RunRecord) {
    let start = RunStart::new(
        machine(),
        Some("partial"),
        "cryptospeed run",
        "0.1.0",
        MeasureConfig::default(),
    );
    let id = store.begin_run(&start).unwrap();
    let v = store.variant_id(&full.variants[0]).unwrap();
    store
        .add_measurement(id, v, &full.measurements[0].measurement)
        .unwrap();
    let mut rest = full.clone();
    rest.run.label = Some("partial".into());
    assert_eq!(
        store.copy_run(&start.uid, &rest, &[]).unwrap(),
        SyncOutcome::Completed {
            id,
            added: full.measurements.len() - 1
        }
    );
    let back = store.load_run(&id.to_string()).unwrap();
    assert_eq!(back.run.status, RunStatus::Complete);
    assert_eq!(json(&back.measurements), json(&full.measurements));
    assert_eq!(
        store.copy_run(&start.uid, &rest, &[]).unwrap(),
        SyncOutcome::AlreadyThere(id)
    );

    let other = RunStart::new(
        machine(),
        None,
        "cryptospeed run",
        "0.1.0",
        MeasureConfig::default(),
    );
    let id = store.begin_run(&other).unwrap();
    store
        .add_measurement(id, v, &full.measurements[1].measurement)
        .unwrap();
    let err = store.copy_run(&other.uid, &rest, &[]).unwrap_err();
    assert!(
        format!("{err:#}").contains("differ at measurement 1"),
        "{err:#}"
    );
}

/// A cell's bouts so far are one partial row, replaced as bouts come and dropped when the
/// cell finishes; a stopped run is reopened for `run --resume` with its resume key kept.
fn partial_cells_are_replaced_and_runs_reopened(store: &mut dyn Store) {
    let start = RunStart {
        resume_key: Some("{\"machine\":\"m\"}".into()),
        ..RunStart::new(
            machine(),
            Some("cut"),
            "cryptospeed run",
            "0.1.0",
            MeasureConfig::default(),
        )
    };
    let run = store.begin_run(&start).unwrap();
    let v = store
        .variant_id(&Variant {
            label: "openssl".into(),
            ..Default::default()
        })
        .unwrap();
    let partial = |samples| Measurement {
        status: Status::Partial,
        ..measurement("sha256", None, samples)
    };
    store.add_measurement(run, v, &partial(10)).unwrap();
    store.add_measurement(run, v, &partial(20)).unwrap();
    let back = store.load_run("cut").unwrap();
    assert_eq!(back.measurements.len(), 1, "one row per partial cell");
    assert_eq!(back.measurements[0].measurement.status, Status::Partial);
    assert_eq!(back.measurements[0].measurement.bout_count(), 2);
    assert_eq!(
        store.measurement_count(run).unwrap(),
        0,
        "partial cells are not finished"
    );
    store.finish_run(run, RunStatus::Interrupted).unwrap();
    assert_eq!(store.resume_key(run).unwrap(), start.resume_key);
    store.reopen_run(run, &start).unwrap();
    assert_eq!(
        store.load_run("cut").unwrap().run.status,
        RunStatus::Running
    );
    store
        .add_measurement(run, v, &measurement("sha256", None, 30))
        .unwrap();
    let done = store.load_run("cut").unwrap();
    assert_eq!(done.measurements.len(), 1);
    assert_eq!(done.measurements[0].measurement.status, Status::Ok);
    assert_eq!(done.measurements[0].measurement.samples.len(), 30);
    assert_eq!(store.measurement_count(run).unwrap(), 1);
}

#[test]
fn sqlite_backend() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SqliteStore::open(&dir.path().join("r.db")).unwrap();
    exercise(&mut s);
    definitions_are_kept(&mut s);
    partial_cells_are_replaced_and_runs_reopened(&mut s);
}

#[test]
fn runs_stored_before_identities_are_recognised_by_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let mut s = SqliteStore::open(&path).unwrap();
    let run = write_run(&mut s, "old");
    // As a schema-3 store left it: no identity.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE run SET uid = NULL", [])
        .unwrap();
    let derived = s.run_identities().unwrap()[0].uid.clone();
    assert_eq!(derived.len(), 32);
    assert_eq!(derived, s.run_identities().unwrap()[0].uid, "stable");
    let record = s.load_run("old").unwrap();
    let profiles = s.profiles(run).unwrap();
    assert_eq!(
        s.copy_run(&derived, &record, &profiles).unwrap(),
        SyncOutcome::AlreadyThere(run),
        "a copy coming back is the same run"
    );
    // Into another store it goes once, under the derived identity.
    let mut other = SqliteStore::open(&dir.path().join("new.db")).unwrap();
    assert!(matches!(
        other.copy_run(&derived, &record, &profiles).unwrap(),
        SyncOutcome::Copied(_)
    ));
    assert!(matches!(
        other.copy_run(&derived, &record, &profiles).unwrap(),
        SyncOutcome::AlreadyThere(_)
    ));
}

#[test]
fn postgres_backend_behaves_like_sqlite_and_keeps_its_password() {
    let server = PgServer::start().unwrap();
    let url = server.database("results").unwrap();
    {
        let mut s = PostgresStore::connect(&url).unwrap();
        exercise(&mut s);
        definitions_are_kept(&mut s);
        partial_cells_are_replaced_and_runs_reopened(&mut s);
    }

    // The same tables and columns as SQLite, by the engines' own catalogues.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.db");
    drop(SqliteStore::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mut sqlite_columns = BTreeSet::new();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for t in &tables {
        let cols: Vec<String> = conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{t}')"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for c in cols {
            sqlite_columns.insert(format!("{t}.{c}"));
        }
    }
    let pg_columns: BTreeSet<String> = server
        .psql(
            "results",
            "SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'cryptospeed_schema'",
        )
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(sqlite_columns, pg_columns);
    assert_eq!(
        cryptospeed_store::schema::MIGRATIONS.len().to_string(),
        server
            .psql("results", "SELECT version FROM cryptospeed_schema")
            .unwrap()
            .trim(),
        "PostgreSQL reached the last migration"
    );

    // Four processes' worth of connections migrating a new database at once: one schema.
    let url2 = server.database("fresh").unwrap();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| PostgresStore::connect(&url2).unwrap());
        }
    });
    assert_eq!(
        server
            .psql("fresh", "SELECT count(*) FROM cryptospeed_schema")
            .unwrap()
            .trim(),
        "1"
    );

    // A wrong password and a missing database: clear errors that name the store without any
    // password in them.
    let wrong = url.replace(&server.password, "Wrong-Secret-9");
    let err = format!("{:#}", PostgresStore::connect(&wrong).err().unwrap());
    assert!(err.contains("password authentication failed"), "{err}");
    assert!(err.contains("127.0.0.1"), "{err}");
    assert!(
        !err.contains("Wrong-Secret-9") && !err.contains(&server.password),
        "{err}"
    );
    let err = format!(
        "{:#}",
        PostgresStore::connect(&server.url("absent")).err().unwrap()
    );
    assert!(
        err.contains("absent") && !err.contains(&server.password),
        "{err}"
    );
}
