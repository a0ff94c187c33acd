//! The PostgreSQL backend, for a store shared by a team or a cluster: the same schema and
//! migrations as SQLite (see `schema.rs`), the version kept in a one-row table, migrations
//! serialised by an advisory lock. Connects with TLS when the server offers it (`sslmode` in the
//! URL as libpq reads it); the password comes from the URL or `$PGPASSWORD` and is never shown:
//! every message names the store by [`redact`](crate::redact)ed URL and is scrubbed of the password.

use crate::db::{Db, Row, Value};
use crate::fault::{postgres_fault, StoreError};
use crate::schema::Dialect;
use crate::sql::{migrate, SqlStore};
use anyhow::{anyhow, Result};
use bytes::BytesMut;
use postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};
use postgres::{Client, Statement};
use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error;
use std::str::FromStr;

type BoxError = Box<dyn Error + Sync + Send>;

pub struct PostgresDb {
    client: RefCell<Client>,
    statements: RefCell<HashMap<String, Statement>>,
    /// Scrubbed from every error message.
    password: Option<String>,
}

/// The store on a PostgreSQL database.
pub type PostgresStore = SqlStore<PostgresDb>;

impl ToSql for Value {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(v) => match *ty {
                Type::INT8 => v.to_sql(ty, out),
                Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
                Type::FLOAT8 => (*v as f64).to_sql(ty, out),
                Type::BOOL => (*v != 0).to_sql(ty, out),
                _ => v.to_string().as_str().to_sql(ty, out),
            },
            Value::Real(v) => match *ty {
                Type::FLOAT8 => v.to_sql(ty, out),
                Type::FLOAT4 => (*v as f32).to_sql(ty, out),
                _ => Err(format!("cannot store the number {v} in a column of type {ty}").into()),
            },
            Value::Text(v) => v.as_str().to_sql(ty, out),
        }
    }
    fn accepts(_: &Type) -> bool {
        true
    }
    to_sql_checked!();
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Value, BoxError> {
        Ok(match *ty {
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::INT4 => Value::Int(i32::from_sql(ty, raw)? as i64),
            Type::INT2 => Value::Int(i16::from_sql(ty, raw)? as i64),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)? as f64),
            Type::BOOL => Value::Int(bool::from_sql(ty, raw)? as i64),
            _ => Value::Text(String::from_sql(ty, raw)?),
        })
    }
    fn from_sql_null(_: &Type) -> Result<Value, BoxError> {
        Ok(Value::Null)
    }
    fn accepts(_: &Type) -> bool {
        true
    }
}

/// `?1` → `$1`: the store's statements are written in SQLite's numbered form.
fn numbered_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

/// The `{:#}`-style text of an error's whole chain with the password replaced by `***`, to make a
/// fresh error from: the original may carry the connection parameters.
fn scrubbed(e: &dyn Error, password: &Option<String>) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    match password {
        Some(p) if !p.is_empty() => text.replace(p.as_str(), "***"),
        _ => text,
    }
}

/// The error scrubbed of the password, keeping whether it is worth retrying (see `fault.rs`).
fn classified(e: &postgres::Error, password: &Option<String>) -> anyhow::Error {
    anyhow::Error::new(StoreError {
        fault: postgres_fault(e),
        message: scrubbed(e, password),
    })
}

impl PostgresDb {
    fn fail(&self, e: postgres::Error) -> anyhow::Error {
        classified(&e, &self.password)
    }
    fn statement(&self, sql: &str) -> Result<Statement> {
        if let Some(s) = self.statements.borrow().get(sql) {
            return Ok(s.clone());
        }
        let stmt = self
            .client
            .borrow_mut()
            .prepare(&numbered_placeholders(sql))
            .map_err(|e| self.fail(e))?;
        self.statements
            .borrow_mut()
            .insert(sql.to_string(), stmt.clone());
        Ok(stmt)
    }
}

fn refs(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

impl Db for PostgresDb {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64> {
        let stmt = self.statement(sql)?;
        self.client
            .borrow_mut()
            .execute(&stmt, &refs(params))
            .map_err(|e| self.fail(e))
    }
    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        let stmt = self.statement(sql)?;
        let rows = self
            .client
            .borrow_mut()
            .query(&stmt, &refs(params))
            .map_err(|e| self.fail(e))?;
        rows.iter()
            .map(|r| {
                Ok(Row((0..r.len())
                    .map(|i| r.try_get::<_, Value>(i))
                    .collect::<Result<_, _>>()
                    .map_err(|e| self.fail(e))?))
            })
            .collect()
    }
    fn batch(&self, sql: &str) -> Result<()> {
        self.client
            .borrow_mut()
            .batch_execute(sql)
            .map_err(|e| self.fail(e))
    }
    fn begin(&self) -> Result<()> {
        self.batch("BEGIN")
    }
    fn lock_schema(&self) -> Result<()> {
        // One advisory lock id for "cryptospeed schema", held to the end of the transaction.
        self.batch(
            "SELECT pg_advisory_xact_lock(7243100958);
             CREATE TABLE IF NOT EXISTS cryptospeed_schema (version BIGINT NOT NULL)",
        )
    }
    fn schema_version(&self) -> Result<usize> {
        let rows = self.query("SELECT version FROM cryptospeed_schema", &[])?;
        Ok(match rows.first() {
            Some(r) => r.i64(0)? as usize,
            None => 0,
        })
    }
    fn set_schema_version(&self, version: usize) -> Result<()> {
        self.batch(&format!(
            "DELETE FROM cryptospeed_schema; INSERT INTO cryptospeed_schema (version) VALUES ({version})"
        ))
    }
}

impl SqlStore<PostgresDb> {
    /// Connects to `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=…]`) and brings its
    /// schema up to date.
    pub fn connect(url: &str) -> Result<PostgresStore> {
        let shown = crate::redact(url);
        let mut config = postgres::Config::from_str(url)
            .map_err(|e| anyhow!("{shown} is not a PostgreSQL URL cryptospeed can read: {e}"))?;
        if config.get_password().is_none() {
            if let Ok(p) = std::env::var("PGPASSWORD") {
                config.password(p);
            }
        }
        if config.get_application_name().is_none() {
            config.application_name("cryptospeed");
        }
        config.connect_timeout(std::time::Duration::from_secs(10));
        let password = config
            .get_password()
            .map(|p| String::from_utf8_lossy(p).into_owned());
        let tls = native_tls::TlsConnector::new()
            .map_err(|e| anyhow!("cannot set up TLS for {shown}: {}", scrubbed(&e, &password)))?;
        let client = config
            .connect(postgres_native_tls::MakeTlsConnector::new(tls))
            .map_err(|e| classified(&e, &password).context(format!("cannot connect to {shown}")))?;
        let db = PostgresDb {
            client: RefCell::new(client),
            statements: RefCell::new(HashMap::new()),
            password,
        };
        migrate(&db)
            .map_err(|e| e.context(format!("cannot bring the schema of {shown} up to date")))?;
        Ok(SqlStore { db })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_renumbered() {
        assert_eq!(
            numbered_placeholders("SELECT ?1, ?12 WHERE x = '?'"),
            "SELECT $1, $12 WHERE x = '?'"
        );
    }
}
