//! The PostgreSQL store, for several service instances sharing one database. Migrations are
//! embedded and run at start; sqlx's migrator holds `pg_advisory_lock` while it runs them, so two
//! instances starting at once apply each migration once.

mod accounts;
mod alerts;
mod ingest;
mod outbox;

use super::encoding::json;
use super::migration;
use super::{AccountRecord, StoreError, StoreResult};
use asset_alerting_models::{
    AlertRule, Asset, AssetTier, GeoJsonPolygon, Geofence, TelemetryRules,
};
use chrono::{DateTime, Utc};
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgQueryResult, PgRow};
use sqlx::{PgPool, Postgres, Row, Transaction};
use std::collections::BTreeMap;
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
    pool: PgPool,
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
    ])
}

/// Attempts of a transaction the server aborted to break a deadlock or a serialization conflict
/// (it can be run again as it is).
const ATTEMPTS: usize = 3;

fn retryable(e: &StoreError) -> bool {
    match e {
        StoreError::Database(sqlx::Error::Database(d)) => {
            matches!(d.code().as_deref(), Some("40P01" | "40001"))
        }
        _ => false,
    }
}

/// A write that breaks a uniqueness rule of externalIds is a conflict, not a database failure.
fn external_id_conflict(
    result: Result<PgQueryResult, sqlx::Error>,
    what: &str,
    external_id: &str,
) -> StoreResult<PgQueryResult> {
    result.map_err(|e| match e {
        sqlx::Error::Database(d) if d.is_unique_violation() => StoreError::Conflict(format!(
            "{what} with externalId `{external_id}` already exists in this account"
        )),
        other => other.into(),
    })
}

/// `sql` after the accounts from `$1` up to the root, as `chain (id, parent_id)`.
macro_rules! with_chain {
    ($sql:literal) => {
        concat!(
            "WITH RECURSIVE chain (id, parent_id) AS ( \
                 SELECT id, parent_id FROM accounts WHERE id = $1 \
                 UNION ALL SELECT a.id, a.parent_id FROM accounts a JOIN chain c ON a.id = c.parent_id \
             ) ",
            $sql
        )
    };
}
use with_chain;

impl PgStore {
    /// Connects to `url` (`postgres://...`) and migrates the database.
    pub async fn open(url: &str, settings: &PgSettings) -> anyhow::Result<PgStore> {
        let timeout_ms = settings.statement_timeout.as_millis().to_string();
        let options =
            PgConnectOptions::from_str(url)?.options([("statement_timeout", timeout_ms.as_str())]);
        let pool = PgPoolOptions::new()
            .max_connections(settings.max_connections.max(1))
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await?;
        migrator().run(&pool).await?;
        Ok(PgStore { pool })
    }

    pub async fn close(&self) {
        self.pool.close().await;
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

    /// The server answers a trivial query (for `/healthz`).
    pub async fn ping(&self) -> StoreResult<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    fn asset_from(row: &PgRow) -> StoreResult<Asset> {
        let tier: i32 = row.try_get("tier")?;
        let telemetry: Option<String> = row.try_get("telemetry_rules")?;
        let disabled: String = row.try_get("disabled_events")?;
        Ok(Asset {
            id: row.try_get("id")?,
            account_id: row.try_get("account_id")?,
            external_id: row.try_get("external_id")?,
            name: row.try_get("name")?,
            tier: AssetTier::try_from(tier).map_err(StoreError::Corrupt)?,
            disabled_events: json::<BTreeMap<String, DateTime<Utc>>>(&disabled)?,
            telemetry_rules: telemetry
                .as_deref()
                .map(json::<TelemetryRules>)
                .transpose()?,
            is_deleted: Some(row.try_get::<bool, _>("is_deleted")?),
        })
    }

    fn geofence_from(row: &PgRow) -> StoreResult<Geofence> {
        let polygon: String = row.try_get("polygon")?;
        Ok(Geofence {
            id: row.try_get("id")?,
            account_id: row.try_get("account_id")?,
            external_id: row.try_get("external_id")?,
            name: row.try_get("name")?,
            polygon: json::<GeoJsonPolygon>(&polygon)?,
        })
    }

    fn rule_from(row: &PgRow) -> StoreResult<AlertRule> {
        json(row.try_get("body")?)
    }

    fn account_from(row: &PgRow) -> StoreResult<AccountRecord> {
        Ok(AccountRecord {
            id: row.try_get("id")?,
            parent_id: row.try_get("parent_id")?,
            name: row.try_get("name")?,
            friendly_name: row.try_get("friendly_name")?,
            culture: row.try_get("culture")?,
            technical_email_address: row.try_get("technical_email_address")?,
            callback_uri: row.try_get("callback_uri")?,
            secret_hash: row.try_get("secret_hash")?,
            created_at: row.try_get("created_at")?,
        })
    }
}
