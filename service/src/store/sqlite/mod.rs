//! The SQLite store: one file, WAL journal, migrations embedded in the binary.

mod outbox;
mod reads;
mod telemetry;

pub use reads::Readers;

use super::migration;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{SqliteConnection, SqlitePool};
use std::str::FromStr;
use std::time::Duration;

#[derive(Clone)]
pub struct SqliteStore {
    pub(super) pool: SqlitePool,
    /// SQLite has one writer. The pipeline's write transactions queue here, in order, instead of
    /// polling SQLite's busy handler (which sleeps in growing steps and makes the tail slow).
    /// They all run on this one connection, so its page cache stays warm: SQLite empties a
    /// connection's cache whenever another connection has written, and on the pool's connections
    /// in turn ingestion read back from the log most pages it had just written.
    pub(super) writer: std::sync::Arc<tokio::sync::Mutex<SqliteConnection>>,
    /// Ingestion jobs waiting for the writer; whoever gets it writes them all (group commit).
    queued: std::sync::Arc<std::sync::Mutex<Vec<telemetry::Queued>>>,
    /// Reads on the request path, run on the calling thread; `None` for an in-memory database,
    /// which only the pool's connections can see.
    pub(super) readers: Option<std::sync::Arc<Readers>>,
}

/// The migrations in migrations/, embedded in the binary (in version order).
fn migrator() -> Migrator {
    Migrator::with_migrations(vec![
        migration(1, "init", include_str!("../../../migrations/0001_init.sql")),
        migration(
            2,
            "covering listing index",
            include_str!("../../../migrations/0002_covering_listing_index.sql"),
        ),
        migration(
            3,
            "telemetry, events, notifications",
            include_str!("../../../migrations/0003_telemetry_events_notifications.sql"),
        ),
        migration(
            4,
            "account lifecycle",
            include_str!("../../../migrations/0004_account_lifecycle.sql"),
        ),
        migration(
            5,
            "send fencing",
            include_str!("../../../migrations/0005_send_fencing.sql"),
        ),
        migration(
            6,
            "device id",
            include_str!("../../../migrations/0006_device_id.sql"),
        ),
        migration(
            7,
            "event stream",
            include_str!("../../../migrations/0007_event_stream.sql"),
        ),
        migration(
            8,
            "outbox destinations",
            include_str!("../../../migrations/0008_outbox_destinations.sql"),
        ),
    ])
}

/// Whether the database at `path` (a `sqlite:` URL without its scheme) lives only in memory:
/// no file that another connection, or a key file beside it, could refer to.
pub fn is_in_memory(path: &str) -> bool {
    let file = path.split('?').next().unwrap_or_default();
    file.is_empty() || file == ":memory:" || path.contains("mode=memory")
}

/// Copies the WAL into the database every second, beside the writers (a passive checkpoint never
/// blocks them); ends when the pool is closed.
async fn checkpoints(pool: SqlitePool) {
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        if pool.is_closed() {
            return;
        }
        if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&pool)
            .await
        {
            if pool.is_closed() {
                return;
            }
            tracing::warn!(error = %e, "WAL checkpoint failed");
        }
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `url` (`sqlite://path` or a plain path) and migrates it.
    pub async fn open(url: &str) -> anyhow::Result<SqliteStore> {
        let path = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .unwrap_or(url);
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: a write is on disk before it is acknowledged.
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5))
            // Checkpoints run in the background (see `checkpoints`), not inside a commit that
            // happens to fill the WAL: they copy pages and sync the database file, which made
            // every few telemetry commits ten times slower.
            .pragma("wal_autocheckpoint", "0")
            // Statement journals (a statement inside a transaction that may fail half-way) in
            // memory rather than in temporary files written and synced each time.
            .pragma("temp_store", "memory");
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            // The check is a round trip to the connection's thread on every query; an embedded
            // database has no network link to go stale.
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        migrator().run(&pool).await?;
        // Ingestion appends to every reporting asset's range of telemetry at once. With the
        // default 2 MB page cache a batch spilled dirty pages to the WAL mid-transaction and read
        // them back (a quarter of ingestion's CPU). Only the writer gets the larger cache (it
        // grows as it is used): eight pool connections each filling 32 MB would not pay.
        let writer_options = options.clone().pragma("cache_size", "-32768");
        let writer = sqlx::ConnectOptions::connect(&writer_options).await?;
        let readers = if is_in_memory(path) {
            None
        } else {
            let file = options.get_filename().to_owned();
            Some(std::sync::Arc::new(Readers::open(file)?))
        };
        tokio::spawn(checkpoints(pool.clone()));
        Ok(SqliteStore {
            pool,
            writer: std::sync::Arc::new(tokio::sync::Mutex::new(writer)),
            queued: Default::default(),
            readers,
        })
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }
}
