//! The SQLite backend: a file, no server. WAL journal so readers never block the writer and two
//! runs can write one file at once (each waits its turn on a short transaction); the schema
//! version lives in `PRAGMA user_version`.

use crate::db::{Db, Row, Value};
use crate::schema::Dialect;
use crate::sql::{migrate, SqlStore};
use anyhow::{Context, Result};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::Connection;
use std::path::Path;

pub struct SqliteDb {
    conn: Connection,
}

/// The store on a SQLite file.
pub type SqliteStore = SqlStore<SqliteDb>;

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(v) => ValueRef::Integer(*v),
            Value::Real(v) => ValueRef::Real(*v),
            Value::Text(v) => ValueRef::Text(v.as_bytes()),
        }))
    }
}

fn value_of(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(f) => Value::Real(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Value::Text(String::from_utf8_lossy(t).into_owned())
        }
    }
}

impl Db for SqliteDb {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        Ok(stmt.execute(rusqlite::params_from_iter(params))? as u64)
    }
    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let columns = stmt.column_count();
        let mut rows = stmt.query(rusqlite::params_from_iter(params))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(Row((0..columns)
                .map(|i| r.get_ref(i).map(value_of))
                .collect::<rusqlite::Result<_>>()?));
        }
        Ok(out)
    }
    fn batch(&self, sql: &str) -> Result<()> {
        Ok(self.conn.execute_batch(sql)?)
    }
    fn begin(&self) -> Result<()> {
        self.batch("BEGIN IMMEDIATE")
    }
    fn lock_schema(&self) -> Result<()> {
        // BEGIN IMMEDIATE already holds the file's write lock.
        Ok(())
    }
    fn schema_version(&self) -> Result<usize> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as usize)
    }
    fn set_schema_version(&self, version: usize) -> Result<()> {
        Ok(self
            .conn
            .pragma_update(None, "user_version", version as i64)?)
    }
}

/// Switches the file to WAL. Two processes creating the same new file race for this switch, and
/// SQLite answers the loser "locked" at once rather than through the busy handler, so wait and
/// retry (up to the busy timeout) as the busy handler would.
fn set_wal(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

impl SqlStore<SqliteDb> {
    pub fn open(path: &Path) -> Result<SqliteStore> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open database {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(60))?;
        set_wal(&conn).map_err(|e| {
            // A full disk or an unwritable directory is said as such, not as a bad file.
            let bad_file = matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
            );
            let what = if bad_file {
                "is not a SQLite database cryptospeed can use"
            } else {
                "cannot be opened for writing"
            };
            anyhow::Error::new(e).context(format!("{} {what}", path.display()))
        })?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let db = SqliteDb { conn };
        migrate(&db)
            .with_context(|| format!("cannot bring the schema of {} up to date", path.display()))?;
        Ok(SqlStore { db })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RunStart, Store};
    use cryptospeed_model::*;

    fn measurement(primitive: &str, bytes: Option<u64>) -> Measurement {
        let samples = vec![
            Sample {
                iters: 10,
                wall_ns: 1000,
                cpu_ns: 990,
                tsc: 2600,
                bout: 0,
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
            disturbances: Vec::new(),
            flights: Vec::new(),
        }
    }

    #[test]
    fn profiles_round_trip_and_bring_their_variant() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = SqliteStore::open(&dir.path().join("r.db")).unwrap();
        let run = s
            .begin_run(&RunStart::new(
                Machine::default(),
                Some("prof"),
                "cryptospeed profile md5",
                "0.1.0",
                MeasureConfig::default(),
            ))
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
            .begin_run(&RunStart::new(
                machine.clone(),
                Some("base"),
                "cryptospeed run",
                "0.1.0",
                MeasureConfig::default(),
            ))
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
