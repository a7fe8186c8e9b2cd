//! Reads on the request path (GET and list assets), run on the calling thread.
//!
//! sqlx gives every SQLite connection a thread of its own and hands each statement and each row
//! across to it and back: two thread wake-ups per query and one per row. For a read that takes
//! tens of microseconds those hand-offs were most of the cost (a third of GET asset's CPU, most
//! of list assets'). WAL lets readers run beside the writer without waiting, so these reads run
//! where they are asked for, on connections of their own that only read. Writes stay on sqlx.

use crate::store::sql::{Arg, ColumnNames, EmbeddedRow, Map, bind_numbered};
use crate::store::{StoreError, StoreResult};
use rusqlite::{Connection, OpenFlags};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// Connections kept open between reads; more are opened while more threads read at once.
const IDLE: usize = 8;

pub struct Readers {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl Readers {
    /// Readers of the (already migrated) database file at `path`.
    pub(super) fn open(path: PathBuf) -> StoreResult<Readers> {
        let readers = Readers {
            path,
            idle: Mutex::new(Vec::new()),
        };
        let first = readers.connect()?;
        readers.put_back(first);
        Ok(readers)
    }

    fn connect(&self) -> StoreResult<Connection> {
        let connection = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        // Read-write only so that WAL's shared index can be used; nothing here writes.
        connection.pragma_update(None, "query_only", true)?;
        connection.busy_timeout(Duration::from_secs(5))?;
        Ok(connection)
    }

    fn put_back(&self, connection: Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < IDLE {
            idle.push(connection);
        }
    }

    /// The rows of a statement (spelled for SQLite), each through `map`.
    pub fn all<T>(&self, sql: &str, args: &[Arg<'_>], map: Map<T>) -> StoreResult<Vec<T>> {
        self.read(|c| {
            let mut statement = c.prepare_cached(sql)?;
            bind_numbered(&mut statement, args)?;
            let columns = ColumnNames::of(&statement);
            let mut rows = statement.raw_query();
            let mut found = Vec::new();
            while let Some(row) = rows.next()? {
                found.push(map(&EmbeddedRow {
                    row,
                    columns: &columns,
                    asked: Default::default(),
                })?);
            }
            Ok(found)
        })
    }

    /// The one row of a statement that always answers one.
    pub fn one<T>(&self, sql: &str, args: &[Arg<'_>], map: Map<T>) -> StoreResult<T> {
        self.all(sql, args, map)?
            .pop()
            .ok_or_else(|| StoreError::Corrupt("a statement returned no row".to_owned()))
    }

    /// Runs `read` on an idle connection (or a new one), then keeps the connection for the next.
    fn read<T>(&self, read: impl FnOnce(&Connection) -> StoreResult<T>) -> StoreResult<T> {
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let connection = match taken {
            Some(connection) => connection,
            None => self.connect()?,
        };
        let result = read(&connection);
        self.put_back(connection);
        result
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Embedded(e)
    }
}
