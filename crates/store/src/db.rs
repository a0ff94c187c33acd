//! The little a backend must do for the store: run a statement with positional parameters, return
//! rows of plain values, open and close a transaction, and keep the schema version. The store's
//! queries and row mapping are written once, over this trait, in `sql/`.
//!
//! Written here rather than with sqlx's `Any` driver because sqlx is async-only and would bring a
//! runtime into every command, and because rusqlite (already the SQLite driver) and the `postgres`
//! crate each speak their engine fully; this adapter is the small common part.

use crate::schema::Dialect;
use anyhow::{anyhow, Result};

/// One SQL value, as both engines exchange it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<u64> for Value {
    fn from(v: u64) -> Value {
        Value::Int(v as i64)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(v as i64)
    }
}
impl From<usize> for Value {
    fn from(v: usize) -> Value {
        Value::Int(v as i64)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Int(v as i64)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<&String> for Value {
    fn from(v: &String) -> Value {
        Value::Text(v.clone())
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map(Into::into).unwrap_or(Value::Null)
    }
}

/// Builds a parameter list: `params![a, b, c]`.
#[macro_export]
macro_rules! params {
    ($($v:expr),* $(,)?) => { &[$($crate::db::Value::from($v)),*] as &[$crate::db::Value] };
}

/// One result row.
#[derive(Debug, Clone)]
pub struct Row(pub Vec<Value>);

impl Row {
    fn at(&self, i: usize) -> Result<&Value> {
        self.0.get(i).ok_or_else(|| {
            anyhow!(
                "the store returned {} columns, wanted column {i}",
                self.0.len()
            )
        })
    }
    pub fn opt_i64(&self, i: usize) -> Result<Option<i64>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(*v)),
            Value::Real(v) if v.fract() == 0.0 => Ok(Some(*v as i64)),
            other => Err(anyhow!(
                "column {i}: expected an integer, the store holds {other:?}"
            )),
        }
    }
    pub fn i64(&self, i: usize) -> Result<i64> {
        self.opt_i64(i)?
            .ok_or_else(|| anyhow!("column {i}: expected an integer, the store holds NULL"))
    }
    pub fn opt_f64(&self, i: usize) -> Result<Option<f64>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(*v as f64)),
            Value::Real(v) => Ok(Some(*v)),
            other => Err(anyhow!(
                "column {i}: expected a number, the store holds {other:?}"
            )),
        }
    }
    pub fn f64(&self, i: usize) -> Result<f64> {
        self.opt_f64(i)?
            .ok_or_else(|| anyhow!("column {i}: expected a number, the store holds NULL"))
    }
    pub fn opt_text(&self, i: usize) -> Result<Option<String>> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Text(v) => Ok(Some(v.clone())),
            other => Err(anyhow!(
                "column {i}: expected text, the store holds {other:?}"
            )),
        }
    }
    pub fn text(&self, i: usize) -> Result<String> {
        self.opt_text(i)?
            .ok_or_else(|| anyhow!("column {i}: expected text, the store holds NULL"))
    }
}

/// A connection to one database. Statements use `?1`, `?2`… placeholders; a backend rewrites them
/// to its own form.
pub trait Db {
    fn dialect(&self) -> Dialect;
    /// Runs a statement, returning the number of rows it changed.
    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64>;
    /// Runs a query (or a statement with `RETURNING`), returning its rows.
    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>>;
    /// Runs several statements without parameters.
    fn batch(&self, sql: &str) -> Result<()>;
    /// Starts a write transaction (SQLite takes the write lock at once, so two writers queue
    /// rather than fail).
    fn begin(&self) -> Result<()>;
    fn commit(&self) -> Result<()> {
        self.batch("COMMIT")
    }
    fn rollback(&self) -> Result<()> {
        self.batch("ROLLBACK")
    }
    /// Inside a transaction from `begin`: makes concurrent migrators wait for this one.
    fn lock_schema(&self) -> Result<()>;
    /// The number of migrations applied.
    fn schema_version(&self) -> Result<usize>;
    fn set_schema_version(&self, version: usize) -> Result<()>;
}
