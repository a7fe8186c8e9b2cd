//! Reads on the request path (GET and list assets), run on the calling thread.
//!
//! sqlx gives every SQLite connection a thread of its own and hands each statement and each row
//! across to it and back: two thread wake-ups per query and one per row. For a read that takes
//! tens of microseconds those hand-offs were most of the cost (a third of GET asset's CPU, most
//! of list assets'). WAL lets readers run beside the writer without waiting, so these reads run
//! where they are asked for, on connections of their own that only read. Writes stay on sqlx.

use super::{AssetColumns, StoreError, StoreResult};
use asset_alerting_models::Asset;
use rusqlite::{Connection, OpenFlags, Row, Statement};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// Connections kept open between reads; more are opened while more threads read at once.
const IDLE: usize = 8;

pub(super) struct Readers {
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

    /// Runs `read` on an idle connection (or a new one), then keeps the connection for the next.
    pub(super) fn read<T>(
        &self,
        read: impl FnOnce(&Connection) -> StoreResult<T>,
    ) -> StoreResult<T> {
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

/// Where a statement of `assets.*` has each column an asset is made of, looked up once per
/// statement rather than by name on every row.
pub(super) struct AssetIndexes([usize; 8]);

const NAMES: [&str; 8] = [
    "id",
    "account_id",
    "external_id",
    "name",
    "tier",
    "disabled_events",
    "telemetry_rules",
    "is_deleted",
];

impl AssetIndexes {
    pub(super) fn of(statement: &Statement<'_>) -> StoreResult<AssetIndexes> {
        let mut indexes = [0; 8];
        for (index, name) in indexes.iter_mut().zip(NAMES) {
            *index = statement.column_index(name)?;
        }
        Ok(AssetIndexes(indexes))
    }

    /// The asset of `row`.
    pub(super) fn asset(&self, row: &Row<'_>) -> StoreResult<Asset> {
        let [
            id,
            account_id,
            external_id,
            name,
            tier,
            disabled_events,
            telemetry_rules,
            is_deleted,
        ] = self.0;
        let text = |i: usize| -> StoreResult<Option<&str>> {
            row.get_ref(i)?
                .as_str_or_null()
                .map_err(|e| StoreError::Corrupt(format!("assets column {i}: {e}")))
        };
        let required = |i: usize| -> StoreResult<&str> {
            text(i)?.ok_or_else(|| StoreError::Corrupt(format!("assets column {i} is null")))
        };
        AssetColumns {
            id: required(id)?,
            account_id: required(account_id)?,
            external_id: required(external_id)?,
            name: required(name)?,
            tier: row.get(tier)?,
            disabled_events: required(disabled_events)?,
            telemetry_rules: text(telemetry_rules)?,
            is_deleted: row.get(is_deleted)?,
        }
        .asset()
    }

    /// Whether `row` has an asset (the columns of a LEFT JOIN that found none are null).
    pub(super) fn found(&self, row: &Row<'_>) -> StoreResult<bool> {
        Ok(row.get_ref(self.0[0])?.data_type() != rusqlite::types::Type::Null)
    }
}
