//! Whether a failed store operation may succeed if tried again. A run that loses its store
//! mid-way keeps measuring and retries a transient failure (the connection dropped, the server is
//! restarting, a lock is held) for a while, but gives up at once on a permanent one (the disk is
//! full, the password is wrong, the schema is newer than this tool): retrying those only delays
//! the message the user needs.

use std::fmt;

/// How a store operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Worth retrying: the store may answer in a moment.
    Transient,
    /// Retrying will not help until someone acts.
    Permanent,
}

/// A store error whose text was rewritten (a PostgreSQL error scrubbed of its password) and so
/// lost its original type: it carries the classification made while the type was known.
#[derive(Debug)]
pub struct StoreError {
    pub fault: Fault,
    pub message: String,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

/// The fault of an error from any store operation: the first cause in its chain that says.
/// Anything unrecognised is permanent, so an unexpected error is reported rather than retried.
pub fn fault_of(error: &anyhow::Error) -> Fault {
    for cause in error.chain() {
        if let Some(e) = cause.downcast_ref::<StoreError>() {
            return e.fault;
        }
        if let Some(e) = cause.downcast_ref::<rusqlite::Error>() {
            return sqlite_fault(e);
        }
        if let Some(e) = cause.downcast_ref::<postgres::Error>() {
            return postgres_fault(e);
        }
        if let Some(e) = cause.downcast_ref::<std::io::Error>() {
            return io_fault(e);
        }
    }
    Fault::Permanent
}

/// SQLite: another writer holding the lock past the busy timeout is transient; a full disk, an
/// I/O error, a read-only or corrupt file are not.
pub fn sqlite_fault(e: &rusqlite::Error) -> Fault {
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
    match e.sqlite_error_code() {
        Some(DatabaseBusy | DatabaseLocked) => Fault::Transient,
        _ => Fault::Permanent,
    }
}

/// PostgreSQL: a lost connection, a server shutting down or starting up, too many connections,
/// a serialisation failure or deadlock, a lock not available are transient (SQLSTATE classes 08,
/// 40, 57P01–57P03, 53300, 55P03); any other error the server reports is permanent. An error with
/// no server report (connect refused, connection closed, timeout) is transient.
pub fn postgres_fault(e: &postgres::Error) -> Fault {
    if e.is_closed() {
        return Fault::Transient;
    }
    match e.code() {
        Some(code) => {
            let code = code.code();
            let transient = code.starts_with("08")
                || code.starts_with("40")
                || matches!(code, "57P01" | "57P02" | "57P03" | "53300" | "55P03");
            if transient {
                Fault::Transient
            } else {
                Fault::Permanent
            }
        }
        None => {
            let text = e.to_string();
            let io = std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>());
            if io || text.contains("connect") || text.contains("timeout") {
                Fault::Transient
            } else {
                Fault::Permanent
            }
        }
    }
}

fn io_fault(e: &std::io::Error) -> Fault {
    use std::io::ErrorKind::*;
    match e.kind() {
        ConnectionRefused | ConnectionReset | ConnectionAborted | NotConnected | BrokenPipe
        | TimedOut | Interrupted | WouldBlock | UnexpectedEof => Fault::Transient,
        _ => Fault::Permanent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewritten_error_keeps_its_fault_through_context() {
        let e = anyhow::Error::new(StoreError {
            fault: Fault::Transient,
            message: "connection closed".into(),
        })
        .context("storing a measurement");
        assert_eq!(fault_of(&e), Fault::Transient);
        assert_eq!(
            fault_of(&anyhow::anyhow!("something else")),
            Fault::Permanent
        );
    }

    #[test]
    fn sqlite_full_is_permanent_and_busy_transient() {
        let full = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            None,
        );
        let busy = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            None,
        );
        assert_eq!(fault_of(&anyhow::Error::new(full)), Fault::Permanent);
        assert_eq!(fault_of(&anyhow::Error::new(busy)), Fault::Transient);
    }

    #[test]
    fn refused_connections_are_transient() {
        let e = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(fault_of(&anyhow::Error::new(e)), Fault::Transient);
        let e = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert_eq!(fault_of(&anyhow::Error::new(e)), Fault::Permanent);
    }
}
