//! The PostgreSQL store, for several service instances sharing one database. Migrations are
//! embedded and run at start; sqlx's migrator holds `pg_advisory_lock` while it runs them, so two
//! instances starting at once apply each migration once.

pub mod live;
mod outbox;
pub mod statistics;
mod telemetry;

pub(crate) use outbox::lock_recipient;
pub(crate) use telemetry::lock_accounts;

use super::StoreResult;
use super::migration;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{PgPool, Postgres, Transaction};
use std::str::FromStr;
use std::time::Duration;

/// Connection settings of the PostgreSQL pool.
#[derive(Debug, Clone)]
pub struct PgSettings {
    /// Connections per instance; all instances together must stay under the server's
    /// `max_connections`.
    pub max_connections: u32,
    /// A statement running longer is cancelled by the server (0: no limit).
    pub statement_timeout: Duration,
}

impl Default for PgSettings {
    fn default() -> Self {
        PgSettings {
            max_connections: 10,
            statement_timeout: Duration::from_secs(30),
        }
    }
}

#[derive(Clone)]
pub struct PgStore {
    pub(super) pool: PgPool,
    /// For connections outside the pool (the listener's).
    options: std::sync::Arc<PgConnectOptions>,
    /// Told of writes, it keeps the planner's statistics up with them.
    statistics: statistics::Statistics,
}

/// Held while one instance does its first-start work (root account, keys); released on drop.
pub struct StartupLock(Transaction<'static, Postgres>);

impl StartupLock {
    pub async fn release(self) -> StoreResult<()> {
        Ok(self.0.commit().await?)
    }
}

/// Any constant: it names the first-start lock among the database's advisory locks.
const STARTUP_LOCK_KEY: i64 = 0x6173_7365_7421;

/// The migrations in migrations/postgres/, embedded in the binary (in version order).
fn migrator() -> Migrator {
    Migrator::with_migrations(vec![
        migration(
            1,
            "init",
            include_str!("../../../migrations/postgres/0001_init.sql"),
        ),
        migration(
            2,
            "send fencing",
            include_str!("../../../migrations/postgres/0002_send_fencing.sql"),
        ),
        migration(
            3,
            "device id",
            include_str!("../../../migrations/postgres/0003_device_id.sql"),
        ),
        migration(
            4,
            "event stream",
            include_str!("../../../migrations/postgres/0004_event_stream.sql"),
        ),
        migration(
            5,
            "live wake-ups",
            include_str!("../../../migrations/postgres/0005_live_wakeups.sql"),
        ),
        migration(
            6,
            "outbox destinations",
            include_str!("../../../migrations/postgres/0006_outbox_destinations.sql"),
        ),
    ])
}

impl PgStore {
    /// Connects to `url` (`postgres://...`) and migrates the database.
    pub async fn open(url: &str, settings: &PgSettings) -> anyhow::Result<PgStore> {
        let timeout_ms = settings.statement_timeout.as_millis().to_string();
        let options =
            PgConnectOptions::from_str(url)?.options([("statement_timeout", timeout_ms.as_str())]);
        let pool = PgPoolOptions::new()
            .max_connections(settings.max_connections.max(1))
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.clone())
            .await?;
        migrator().run(&pool).await?;
        Ok(PgStore {
            statistics: statistics::Statistics::start(pool.clone()),
            pool,
            options: options.into(),
        })
    }

    pub async fn close(&self) {
        self.pool.close().await;
        // Its task sees the pool closed and ends.
        self.statistics.wrote();
    }

    /// Rows were written: the tables they changed are analysed soon if they changed a lot.
    pub(crate) fn wrote(&self) {
        self.statistics.wrote();
    }

    /// Serialises first-start work across instances: the second waits until the first is done.
    pub async fn startup_lock(&self) -> StoreResult<StartupLock> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(STARTUP_LOCK_KEY)
            .execute(&mut *tx)
            .await?;
        Ok(StartupLock(tx))
    }
}
