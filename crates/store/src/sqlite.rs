//! The SQLite backend: WAL journal so readers never block the writer and two runs can write one
//! file at once (each waits its turn on a short transaction), schema by numbered migrations.

use crate::{MachineRow, RunRow, Store};
use anyhow::{anyhow, bail, Context, Result};
use cryptospeed_model::*;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;

const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE machine (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    hostname TEXT NOT NULL,
    cpu_model TEXT NOT NULL,
    cpu_flags TEXT NOT NULL,
    cores INTEGER NOT NULL,
    threads INTEGER NOT NULL,
    caches TEXT NOT NULL,
    tsc_hz REAL NOT NULL,
    constant_tsc INTEGER NOT NULL,
    kernel TEXT NOT NULL,
    os TEXT NOT NULL,
    arch TEXT NOT NULL
);
CREATE TABLE variant (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    implementation TEXT NOT NULL,
    version TEXT NOT NULL,
    library TEXT NOT NULL,
    build_info TEXT NOT NULL,
    capabilities TEXT NOT NULL,
    feature_mask TEXT NOT NULL
);
CREATE TABLE run (
    id INTEGER PRIMARY KEY,
    label TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    command TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    status TEXT NOT NULL,
    machine_id INTEGER NOT NULL REFERENCES machine(id),
    config TEXT NOT NULL
);
CREATE INDEX run_label ON run(label);
CREATE TABLE measurement (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES run(id),
    variant_id INTEGER NOT NULL REFERENCES variant(id),
    primitive TEXT NOT NULL,
    op TEXT NOT NULL,
    bytes INTEGER,
    misalign INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    unit TEXT NOT NULL,
    n INTEGER,
    median_ns REAL,
    ci_lo_ns REAL,
    ci_hi_ns REAL,
    mad_ns REAL,
    min_ns REAL,
    max_ns REAL,
    outliers INTEGER,
    tsc_per_op REAL,
    cpu_fraction REAL,
    elapsed_s REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX measurement_run ON measurement(run_id);
CREATE TABLE sample (
    measurement_id INTEGER NOT NULL REFERENCES measurement(id),
    idx INTEGER NOT NULL,
    iters INTEGER NOT NULL,
    wall_ns INTEGER NOT NULL,
    cpu_ns INTEGER NOT NULL,
    tsc INTEGER NOT NULL,
    PRIMARY KEY (measurement_id, idx)
);
"#,
    // 2: imported runs (`cryptospeed import`): where the run came from, the header the log
    // carried, and each cell's rate exactly as printed.
    r#"
ALTER TABLE run ADD COLUMN source TEXT;
ALTER TABLE measurement ADD COLUMN reported_rate REAL;
"#,
    // 3: profiles (`cryptospeed profile`): one row per profiled cell, the analysis as JSON.
    r#"
CREATE TABLE profile (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES run(id),
    variant_id INTEGER NOT NULL REFERENCES variant(id),
    primitive TEXT NOT NULL,
    bytes INTEGER,
    document TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX profile_run ON profile(run_id);
"#,
];

/// Applies the missing migrations under an IMMEDIATE transaction, tracking the schema version in
/// `PRAGMA user_version`. Written here rather than with rusqlite_migration because that crate reads
/// the version before taking the write lock, so two runs opening a new file at once both try to
/// create the tables; taking the lock first makes the second one see the first one's schema.
fn migrate(conn: &mut Connection) -> Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let version: usize = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > MIGRATIONS.len() {
        bail!("the database has schema version {version}, newer than this cryptospeed knows ({}); upgrade cryptospeed", MIGRATIONS.len());
    }
    for sql in &MIGRATIONS[version..] {
        tx.execute_batch(sql)?;
    }
    tx.pragma_update(None, "user_version", MIGRATIONS.len())?;
    tx.commit()?;
    Ok(())
}

pub struct SqliteStore {
    conn: Connection,
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl SqliteStore {
    pub fn open(path: &Path) -> Result<SqliteStore> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let mut conn = Connection::open(path)
            .with_context(|| format!("cannot open database {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(60))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .with_context(|| {
                format!(
                    "{} is not a SQLite database cryptospeed can use",
                    path.display()
                )
            })?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrate(&mut conn)
            .with_context(|| format!("cannot bring the schema of {} up to date", path.display()))?;
        Ok(SqliteStore { conn })
    }

    fn resolve(&self, selector: &str) -> Result<i64> {
        if let Ok(id) = selector.parse::<i64>() {
            if self
                .conn
                .query_row("SELECT 1 FROM run WHERE id = ?1", [id], |_| Ok(()))
                .optional()?
                .is_some()
            {
                return Ok(id);
            }
        }
        self.conn
            .query_row(
                "SELECT id FROM run WHERE label = ?1 ORDER BY id DESC LIMIT 1",
                [selector],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| {
                anyhow!("no run with id or label '{selector}' ('cryptospeed runs' lists them)")
            })
    }
}

/// The id of a machine row, inserting it on first sight.
fn machine_id(conn: &Connection, m: &Machine) -> Result<i64> {
    let fp = m.fingerprint();
    conn.execute(
        "INSERT OR IGNORE INTO machine (fingerprint, hostname, cpu_model, cpu_flags, cores, threads, caches, tsc_hz, constant_tsc, kernel, os, arch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![fp, m.hostname, m.cpu_model, m.cpu_flags.join(" "), m.cores, m.threads, serde_json::to_string(&m.caches)?, m.tsc_hz, m.constant_tsc, m.kernel, m.os, m.arch],
    )?;
    Ok(
        conn.query_row("SELECT id FROM machine WHERE fingerprint = ?1", [fp], |r| {
            r.get(0)
        })?,
    )
}

/// The id of a variant row, inserting it on first sight.
fn variant_id(conn: &Connection, v: &Variant) -> Result<i64> {
    let fp = v.fingerprint();
    conn.execute(
        "INSERT OR IGNORE INTO variant (fingerprint, label, implementation, version, library, build_info, capabilities, feature_mask)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![fp, v.label, v.implementation, v.version, v.library, serde_json::to_string(&v.build_info)?, v.capabilities, v.feature_mask],
    )?;
    Ok(
        conn.query_row("SELECT id FROM variant WHERE fingerprint = ?1", [fp], |r| {
            r.get(0)
        })?,
    )
}

/// Inserts one measurement and its samples; the caller owns the transaction.
fn insert_measurement(conn: &Connection, run: i64, variant: i64, m: &Measurement) -> Result<()> {
    let s = m.summary;
    conn.execute(
        "INSERT INTO measurement (run_id, variant_id, primitive, op, bytes, misalign, status, reason, unit, n, median_ns, ci_lo_ns, ci_hi_ns, mad_ns, min_ns, max_ns, outliers, tsc_per_op, cpu_fraction, elapsed_s, created_at, reported_rate)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
        params![
            run, variant, m.cell.primitive, m.cell.op.as_str(), m.cell.bytes.map(|b| b as i64), m.cell.misalign,
            m.status.as_str(), m.reason, unit(m), s.map(|s| s.n as i64), s.map(|s| s.median), s.map(|s| s.ci_lo),
            s.map(|s| s.ci_hi), s.map(|s| s.mad), s.map(|s| s.min), s.map(|s| s.max), s.map(|s| s.outliers as i64),
            m.tsc_per_op, m.cpu_fraction, m.elapsed_s, now(), m.reported_rate
        ],
    )?;
    let id = conn.last_insert_rowid();
    let mut stmt = conn.prepare_cached("INSERT INTO sample (measurement_id, idx, iters, wall_ns, cpu_ns, tsc) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
    for (i, smp) in m.samples.iter().enumerate() {
        stmt.execute(params![
            id,
            i as i64,
            smp.iters as i64,
            smp.wall_ns as i64,
            smp.cpu_ns as i64,
            smp.tsc as i64
        ])?;
    }
    Ok(())
}

fn unit(m: &Measurement) -> &'static str {
    if m.cell.bytes.is_some() {
        "bytes/s"
    } else {
        "ops/s"
    }
}

impl Store for SqliteStore {
    fn begin_run(
        &mut self,
        machine: &Machine,
        label: Option<&str>,
        command: &str,
        tool_version: &str,
        config: &MeasureConfig,
    ) -> Result<i64> {
        let machine_id = machine_id(&self.conn, machine)?;
        self.conn.execute(
            "INSERT INTO run (label, started_at, command, tool_version, status, machine_id, config) VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6)",
            params![label, now(), command, tool_version, machine_id, serde_json::to_string(config)?],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    fn variant_id(&mut self, v: &Variant) -> Result<i64> {
        variant_id(&self.conn, v)
    }

    fn add_measurement(&mut self, run: i64, variant: i64, m: &Measurement) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        insert_measurement(&tx, run, variant, m)?;
        tx.commit()?;
        Ok(())
    }

    fn import_run(&mut self, record: &RunRecord) -> Result<i64> {
        let source = record
            .run
            .imported
            .as_ref()
            .ok_or_else(|| anyhow!("import_run needs a run with an import source"))?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let machine = machine_id(&tx, &record.machine)?;
        tx.execute(
            "INSERT INTO run (label, started_at, finished_at, command, tool_version, status, machine_id, config, source)
             VALUES (?1, ?2, ?2, ?3, ?4, 'complete', ?5, ?6, ?7)",
            params![
                record.run.label,
                now(),
                record.run.command,
                record.run.tool_version,
                machine,
                serde_json::to_string(&record.run.config)?,
                serde_json::to_string(source)?
            ],
        )?;
        let run = tx.last_insert_rowid();
        let mut ids = Vec::new();
        for v in &record.variants {
            ids.push((v.label.clone(), variant_id(&tx, v)?));
        }
        for vm in &record.measurements {
            let Some((_, vid)) = ids.iter().find(|(l, _)| *l == vm.variant) else {
                bail!(
                    "measurement of {} names variant '{}', which the run does not carry",
                    vm.measurement.cell.primitive,
                    vm.variant
                );
            };
            insert_measurement(&tx, run, *vid, &vm.measurement)?;
        }
        tx.commit()?;
        Ok(run)
    }

    fn add_profile(&mut self, run: i64, variant: i64, p: &ProfileRecord) -> Result<()> {
        self.conn.execute(
            "INSERT INTO profile (run_id, variant_id, primitive, bytes, document, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run, variant, p.primitive, p.bytes.map(|b| b as i64), p.document, now()],
        )?;
        Ok(())
    }

    fn profiles(&self, run: i64) -> Result<Vec<ProfileRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT v.label, p.primitive, p.bytes, p.document FROM profile p JOIN variant v ON v.id = p.variant_id WHERE p.run_id = ?1 ORDER BY p.id",
        )?;
        let rows = stmt
            .query_map([run], |r| {
                Ok(ProfileRecord {
                    variant: r.get(0)?,
                    primitive: r.get(1)?,
                    bytes: r.get::<_, Option<i64>>(2)?.map(|b| b as u64),
                    document: r.get(3)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows)
    }

    fn finish_run(&mut self, run: i64, status: RunStatus) -> Result<()> {
        self.conn.execute(
            "UPDATE run SET status = ?1, finished_at = ?2 WHERE id = ?3",
            params![status.as_str(), now(), run],
        )?;
        Ok(())
    }

    fn runs(&self) -> Result<Vec<RunRow>> {
        let mut stmt = self.conn.prepare(
            "SELECT r.id, r.label, r.started_at, r.status, r.command, m.cpu_model, r.source,
                    (SELECT COUNT(*) FROM measurement x WHERE x.run_id = r.id),
                    (SELECT GROUP_CONCAT(DISTINCT v.label) FROM measurement x JOIN variant v ON v.id = x.variant_id WHERE x.run_id = r.id)
             FROM run r JOIN machine m ON m.id = r.machine_id ORDER BY r.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(RunRow {
                id: r.get(0)?,
                label: r.get(1)?,
                started_at: r.get(2)?,
                status: RunStatus::parse(&r.get::<_, String>(3)?).unwrap_or(RunStatus::Failed),
                command: r.get(4)?,
                cpu_model: r.get(5)?,
                source: r
                    .get::<_, Option<String>>(6)?
                    .and_then(|s| serde_json::from_str::<ImportSource>(&s).ok())
                    .map(|s| format!("import:{}", s.file))
                    .unwrap_or_default(),
                measurements: r.get(7)?,
                variants: r.get::<_, Option<String>>(8)?.unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn machines(&self) -> Result<Vec<MachineRow>> {
        let mut stmt = self.conn.prepare(
            "SELECT m.id, m.fingerprint, m.hostname, m.cpu_model, m.cores, m.threads, m.tsc_hz, m.arch, m.os, m.kernel,
                    COUNT(r.id), MIN(r.started_at), MAX(r.started_at)
             FROM machine m LEFT JOIN run r ON r.machine_id = m.id GROUP BY m.id ORDER BY m.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(MachineRow {
                id: r.get(0)?,
                fingerprint: r.get(1)?,
                hostname: r.get(2)?,
                cpu_model: r.get(3)?,
                cores: r.get(4)?,
                threads: r.get(5)?,
                tsc_hz: r.get(6)?,
                arch: r.get(7)?,
                os: r.get(8)?,
                kernel: r.get(9)?,
                runs: r.get(10)?,
                first_run: r.get(11)?,
                last_run: r.get(12)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn latest_run_with_variant(&self, label: &str) -> Result<Option<i64>> {
        Ok(self.conn.query_row(
            "SELECT MAX(m.run_id) FROM measurement m JOIN variant v ON v.id = m.variant_id WHERE v.label = ?1",
            [label],
            |r| r.get(0),
        )?)
    }

    fn load_run(&self, selector: &str) -> Result<RunRecord> {
        let id = self.resolve(selector)?;
        let (run, machine_id) = self.conn.query_row(
            "SELECT id, label, started_at, finished_at, command, tool_version, status, config, machine_id, source FROM run WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    RunInfo {
                        id: r.get(0)?,
                        label: r.get(1)?,
                        started_at: r.get(2)?,
                        finished_at: r.get(3)?,
                        command: r.get(4)?,
                        tool_version: r.get(5)?,
                        status: RunStatus::parse(&r.get::<_, String>(6)?).unwrap_or(RunStatus::Failed),
                        config: serde_json::from_str(&r.get::<_, String>(7)?).unwrap_or_default(),
                        imported: r
                            .get::<_, Option<String>>(9)?
                            .and_then(|s| serde_json::from_str(&s).ok()),
                    },
                    r.get::<_, i64>(8)?,
                ))
            },
        )?;
        let machine = self.conn.query_row(
            "SELECT hostname, cpu_model, cpu_flags, cores, threads, caches, tsc_hz, constant_tsc, kernel, os, arch FROM machine WHERE id = ?1",
            [machine_id],
            |r| {
                Ok(Machine {
                    hostname: r.get(0)?,
                    cpu_model: r.get(1)?,
                    cpu_flags: r.get::<_, String>(2)?.split_whitespace().map(str::to_string).collect(),
                    cores: r.get(3)?,
                    threads: r.get(4)?,
                    caches: serde_json::from_str(&r.get::<_, String>(5)?).unwrap_or_default(),
                    tsc_hz: r.get(6)?,
                    constant_tsc: r.get(7)?,
                    kernel: r.get(8)?,
                    os: r.get(9)?,
                    arch: r.get(10)?,
                })
            },
        )?;
        let mut variants: Vec<(i64, Variant)> = Vec::new();
        let mut stmt = self.conn.prepare(
            "SELECT DISTINCT v.id, v.label, v.implementation, v.version, v.library, v.build_info, v.capabilities, v.feature_mask
             FROM variant v WHERE v.id IN (SELECT variant_id FROM measurement WHERE run_id = ?1 UNION SELECT variant_id FROM profile WHERE run_id = ?1) ORDER BY v.id",
        )?;
        for row in stmt.query_map([id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                Variant {
                    label: r.get(1)?,
                    implementation: r.get(2)?,
                    version: r.get(3)?,
                    library: r.get(4)?,
                    build_info: serde_json::from_str(&r.get::<_, String>(5)?).unwrap_or_default(),
                    capabilities: r.get(6)?,
                    feature_mask: r.get(7)?,
                },
            ))
        })? {
            variants.push(row?);
        }
        let mut measurements = Vec::new();
        let mut stmt = self.conn.prepare(
            "SELECT id, variant_id, primitive, op, bytes, misalign, status, reason, n, median_ns, ci_lo_ns, ci_hi_ns, mad_ns, min_ns, max_ns, outliers, tsc_per_op, cpu_fraction, elapsed_s, reported_rate
             FROM measurement WHERE run_id = ?1 ORDER BY id",
        )?;
        let mut samples_stmt = self.conn.prepare(
            "SELECT iters, wall_ns, cpu_ns, tsc FROM sample WHERE measurement_id = ?1 ORDER BY idx",
        )?;
        let rows: Vec<(i64, i64, Measurement)> = stmt
            .query_map([id], |r| {
                let op: String = r.get(3)?;
                let status: String = r.get(6)?;
                let n: Option<i64> = r.get(8)?;
                let summary = match n {
                    Some(n) => Some(Summary {
                        n: n as usize,
                        median: r.get(9)?,
                        ci_lo: r.get(10)?,
                        ci_hi: r.get(11)?,
                        mad: r.get(12)?,
                        min: r.get(13)?,
                        max: r.get(14)?,
                        outliers: r.get::<_, i64>(15)? as usize,
                    }),
                    None => None,
                };
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    Measurement {
                        cell: CellSpec {
                            primitive: r.get(2)?,
                            op: Op::parse(&op).unwrap_or(Op::Hash),
                            bytes: r.get::<_, Option<i64>>(4)?.map(|b| b as u64),
                            misalign: r.get(5)?,
                        },
                        status: Status::parse(&status).unwrap_or(Status::Failed),
                        reason: r.get(7)?,
                        summary,
                        tsc_per_op: r.get(16)?,
                        cpu_fraction: r.get(17)?,
                        samples: Vec::new(),
                        elapsed_s: r.get(18)?,
                        reported_rate: r.get(19)?,
                    },
                ))
            })?
            .collect::<Result<_, _>>()?;
        for (mid, vid, mut m) in rows {
            m.samples = samples_stmt
                .query_map([mid], |r| {
                    Ok(Sample {
                        iters: r.get::<_, i64>(0)? as u64,
                        wall_ns: r.get::<_, i64>(1)? as u64,
                        cpu_ns: r.get::<_, i64>(2)? as u64,
                        tsc: r.get::<_, i64>(3)? as u64,
                    })
                })?
                .collect::<Result<_, _>>()?;
            let Some((_, v)) = variants.iter().find(|(i, _)| *i == vid) else {
                bail!("measurement {mid} names a variant that is not stored");
            };
            measurements.push(VariantMeasurement {
                variant: v.label.clone(),
                implementation: v.implementation.clone(),
                measurement: m,
            });
        }
        Ok(RunRecord {
            run,
            machine,
            variants: variants.into_iter().map(|(_, v)| v).collect(),
            measurements,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measurement(primitive: &str, bytes: Option<u64>) -> Measurement {
        let samples = vec![
            Sample {
                iters: 10,
                wall_ns: 1000,
                cpu_ns: 990,
                tsc: 2600
            };
            12
        ];
        cryptospeed_model_summarize(
            CellSpec {
                primitive: primitive.into(),
                op: Op::Hash,
                bytes,
                misalign: 0,
            },
            samples,
        )
    }

    fn cryptospeed_model_summarize(cell: CellSpec, samples: Vec<Sample>) -> Measurement {
        Measurement {
            cell,
            status: Status::Ok,
            reason: None,
            summary: Some(Summary {
                n: samples.len(),
                median: 100.0,
                ci_lo: 99.0,
                ci_hi: 101.0,
                mad: 0.5,
                outliers: 0,
                min: 98.0,
                max: 103.0,
            }),
            tsc_per_op: Some(260.0),
            cpu_fraction: Some(0.99),
            samples,
            elapsed_s: 0.1,
            reported_rate: None,
        }
    }

    #[test]
    fn profiles_round_trip_and_bring_their_variant() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = SqliteStore::open(&dir.path().join("r.db")).unwrap();
        let run = s
            .begin_run(
                &Machine::default(),
                Some("prof"),
                "cryptospeed profile md5",
                "0.1.0",
                &MeasureConfig::default(),
            )
            .unwrap();
        let v = s
            .variant_id(&Variant {
                label: "nettle-3.8".into(),
                implementation: "nettle".into(),
                ..Default::default()
            })
            .unwrap();
        let doc = r#"{"primitive":"md5","mix":{"instructions":5}}"#;
        for primitive in ["md5", "sha1"] {
            s.add_profile(
                run,
                v,
                &ProfileRecord {
                    variant: String::new(),
                    primitive: primitive.into(),
                    bytes: Some(4096),
                    document: doc.into(),
                },
            )
            .unwrap();
        }
        s.finish_run(run, RunStatus::Complete).unwrap();
        let got = s.profiles(run).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].primitive, "md5");
        assert_eq!(got[1].primitive, "sha1");
        assert_eq!(
            got[0].variant, "nettle-3.8",
            "the label comes from the variant row"
        );
        assert_eq!(got[0].bytes, Some(4096));
        assert_eq!(got[0].document, doc);
        // A run holding only profiles still lists its variant.
        let record = s.load_run(&run.to_string()).unwrap();
        assert_eq!(record.variants.len(), 1);
        assert_eq!(record.variants[0].label, "nettle-3.8");
        assert!(s.profiles(run + 1).unwrap().is_empty());
    }

    #[test]
    fn a_run_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/results.db");
        let mut s = SqliteStore::open(&path).unwrap();
        let machine = Machine {
            cpu_model: "Test CPU".into(),
            tsc_hz: 2.6e9,
            ..Default::default()
        };
        let run = s
            .begin_run(
                &machine,
                Some("base"),
                "cryptospeed run",
                "0.1.0",
                &MeasureConfig::default(),
            )
            .unwrap();
        let v = s
            .variant_id(&Variant {
                label: "openssl-3.0.19".into(),
                implementation: "openssl".into(),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(
            v,
            s.variant_id(&Variant {
                label: "openssl-3.0.19".into(),
                implementation: "openssl".into(),
                ..Default::default()
            })
            .unwrap()
        );
        s.add_measurement(run, v, &measurement("md5", Some(16)))
            .unwrap();
        s.add_measurement(
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
        s.finish_run(run, RunStatus::Complete).unwrap();

        let back = s.load_run("base").unwrap();
        assert_eq!(back.run.id, run);
        assert_eq!(back.run.status, RunStatus::Complete);
        assert_eq!(back.machine.cpu_model, "Test CPU");
        assert_eq!(back.measurements.len(), 2);
        assert_eq!(back.measurements[0].measurement.samples.len(), 12);
        assert_eq!(
            back.measurements[0].measurement.summary.unwrap().median,
            100.0
        );
        assert_eq!(
            back.measurements[1].measurement.reason.as_deref(),
            Some("not built")
        );
        assert_eq!(s.runs().unwrap().len(), 1);
        assert!(s
            .load_run("nope")
            .unwrap_err()
            .to_string()
            .contains("no run"));
        // Reopening applies no migration twice.
        drop(s);
        let s = SqliteStore::open(&path).unwrap();
        assert_eq!(s.load_run(&run.to_string()).unwrap().measurements.len(), 2);
    }

    #[test]
    fn garbage_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("not.db");
        std::fs::write(&path, b"this is not sqlite, just text that goes on for a while....................................................").unwrap();
        let err = SqliteStore::open(&path).err().unwrap();
        assert!(format!("{err:#}").contains("not.db"), "{err:#}");
    }
}
