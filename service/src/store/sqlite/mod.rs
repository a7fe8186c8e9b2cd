//! The SQLite store: one file, WAL journal, migrations embedded in the binary.

mod alerts;
mod destinations;
mod reads;

use super::encoding::{json, to_json};
use super::{
    AccountRecord, GeofenceDeletion, IngestionTokenRecord, Page, Store, StoreError, StoreResult,
    migration,
};
use asset_alerting_models::{
    AlertRule, Asset, AssetTier, EventType, GeoJsonPolygon, Geofence, TelemetryRules,
};
use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteQueryResult, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{Connection, Row, SqliteConnection, SqlitePool};
use std::collections::BTreeMap;
use std::str::FromStr;
use std::time::Duration;
use uuid::Uuid;

#[derive(Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    /// SQLite has one writer. The pipeline's write transactions queue here, in order, instead of
    /// polling SQLite's busy handler (which sleeps in growing steps and makes the tail slow).
    /// They all run on this one connection, so its page cache stays warm: SQLite empties a
    /// connection's cache whenever another connection has written, and on the pool's connections
    /// in turn ingestion read back from the log most pages it had just written.
    writer: std::sync::Arc<tokio::sync::Mutex<SqliteConnection>>,
    /// Ingestion jobs waiting for the writer; whoever gets it writes them all (group commit).
    queued: std::sync::Arc<std::sync::Mutex<Vec<alerts::Queued>>>,
    /// Reads on the request path, run on the calling thread; `None` for an in-memory database,
    /// which only the pool's connections can see.
    readers: Option<std::sync::Arc<reads::Readers>>,
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
    ])
}

/// Timestamps are stored as RFC 3339 text in UTC with a fixed precision, so text order is time order.
fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn parse_ts(s: &str) -> StoreResult<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt(format!("timestamp {s}: {e}")))
}

/// `sql` after the accounts from `?1` up to the root, as `chain (id, parent_id)`: an account is
/// within another when the other is on this way.
macro_rules! with_chain {
    ($sql:literal) => {
        concat!(
            "WITH RECURSIVE chain (id, parent_id) AS ( \
                 SELECT id, parent_id FROM accounts WHERE id = ?1 \
                 UNION ALL SELECT a.id, a.parent_id FROM accounts a JOIN chain c ON a.id = c.parent_id \
             ) ",
            $sql
        )
    };
}

/// List assets: one page of an account's assets, empty unless `?1` is within `?2`.
/// `LIMIT ?5 + 0`: SQLite plans a plain `LIMIT ?5` with its bound value and so prepares the
/// statement again whenever the value is bound, which is every execution (a sixth of list assets'
/// CPU); an expression is evaluated when the statement runs.
const LIST_ASSETS_WITHIN: &str = with_chain!(
    "SELECT * FROM assets WHERE account_id = ?1 AND (?3 IS NULL OR external_id = ?3) \
     AND (?4 OR is_deleted = 0) AND EXISTS (SELECT 1 FROM chain WHERE id = ?2) \
     ORDER BY external_id, id LIMIT ?5 + 0 OFFSET ?6 + 0"
);

/// GET asset: whether `?1` is within `?2`, and asset `?3` of `?1`, in one statement (on the hot
/// path the round trips cost more than the reads).
const ASSET_WITHIN: &str = with_chain!(
    "SELECT EXISTS (SELECT 1 FROM chain WHERE id = ?2) AS within, assets.* \
     FROM (SELECT 1) LEFT JOIN assets ON assets.account_id = ?1 AND assets.id = ?3"
);

/// An asset row's columns, read by either library.
struct AssetColumns<'a> {
    id: &'a str,
    account_id: &'a str,
    external_id: &'a str,
    name: &'a str,
    tier: i64,
    disabled_events: &'a str,
    telemetry_rules: Option<&'a str>,
    is_deleted: bool,
}

impl AssetColumns<'_> {
    fn asset(&self) -> StoreResult<Asset> {
        let tier = i32::try_from(self.tier)
            .map_err(|e| StoreError::Corrupt(format!("tier {}: {e}", self.tier)))?;
        Ok(Asset {
            id: parse_uuid(self.id)?,
            account_id: parse_uuid(self.account_id)?,
            external_id: self.external_id.to_owned(),
            name: self.name.to_owned(),
            tier: AssetTier::try_from(tier).map_err(StoreError::Corrupt)?,
            disabled_events: json::<BTreeMap<String, DateTime<Utc>>>(self.disabled_events)?,
            telemetry_rules: self
                .telemetry_rules
                .map(json::<TelemetryRules>)
                .transpose()?,
            is_deleted: Some(self.is_deleted),
        })
    }
}

/// Whether the database at `path` (a `sqlite:` URL without its scheme) lives only in memory:
/// no file that another connection, or a key file beside it, could refer to.
pub fn is_in_memory(path: &str) -> bool {
    let file = path.split('?').next().unwrap_or_default();
    file.is_empty() || file == ":memory:" || path.contains("mode=memory")
}

fn parse_uuid(s: &str) -> StoreResult<Uuid> {
    Uuid::parse_str(s).map_err(|e| StoreError::Corrupt(format!("uuid {s}: {e}")))
}

/// A write that breaks the one-externalId-per-account rule is a conflict, not a database failure.
fn external_id_conflict(
    result: Result<SqliteQueryResult, sqlx::Error>,
    what: &str,
    external_id: &str,
) -> StoreResult<SqliteQueryResult> {
    result.map_err(|e| match e {
        sqlx::Error::Database(d) if d.is_unique_violation() => StoreError::Conflict(format!(
            "{what} with externalId `{external_id}` already exists in this account"
        )),
        other => other.into(),
    })
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
            Some(std::sync::Arc::new(reads::Readers::open(file)?))
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

    fn asset_from(row: &SqliteRow) -> StoreResult<Asset> {
        AssetColumns {
            id: row.try_get("id")?,
            account_id: row.try_get("account_id")?,
            external_id: row.try_get("external_id")?,
            name: row.try_get("name")?,
            tier: row.try_get("tier")?,
            disabled_events: row.try_get("disabled_events")?,
            telemetry_rules: row.try_get("telemetry_rules")?,
            is_deleted: row.try_get("is_deleted")?,
        }
        .asset()
    }

    fn geofence_from(row: &SqliteRow) -> StoreResult<Geofence> {
        let polygon: String = row.try_get("polygon")?;
        Ok(Geofence {
            id: parse_uuid(row.try_get("id")?)?,
            account_id: parse_uuid(row.try_get("account_id")?)?,
            external_id: row.try_get("external_id")?,
            name: row.try_get("name")?,
            polygon: json::<GeoJsonPolygon>(&polygon)?,
        })
    }

    fn rule_from(row: &SqliteRow) -> StoreResult<AlertRule> {
        let body: String = row.try_get("body")?;
        json(&body)
    }

    fn account_from(row: &SqliteRow) -> StoreResult<AccountRecord> {
        let parent: Option<String> = row.try_get("parent_id")?;
        Ok(AccountRecord {
            id: parse_uuid(row.try_get("id")?)?,
            parent_id: parent.as_deref().map(parse_uuid).transpose()?,
            name: row.try_get("name")?,
            friendly_name: row.try_get("friendly_name")?,
            culture: row.try_get("culture")?,
            technical_email_address: row.try_get("technical_email_address")?,
            callback_uri: row.try_get("callback_uri")?,
            secret_hash: row.try_get("secret_hash")?,
            created_at: parse_ts(row.try_get("created_at")?)?,
        })
    }

    /// Rewrites the geofence references of a rule (inside the caller's transaction).
    async fn set_rule_geofences(
        tx: &mut sqlx::SqliteConnection,
        rule: &AlertRule,
    ) -> StoreResult<()> {
        sqlx::query("DELETE FROM alert_rule_geofences WHERE rule_id = ?")
            .bind(rule.id.to_string())
            .execute(&mut *tx)
            .await?;
        let mut ids: Vec<Uuid> = rule
            .inside_geofences
            .iter()
            .chain(&rule.outside_geofences)
            .copied()
            .collect();
        ids.sort();
        ids.dedup();
        for id in ids {
            sqlx::query("INSERT INTO alert_rule_geofences (rule_id, geofence_id) VALUES (?, ?)")
                .bind(rule.id.to_string())
                .bind(id.to_string())
                .execute(&mut *tx)
                .await?;
        }
        Ok(())
    }
}

impl Store for SqliteStore {
    async fn setting(&self, key: &str) -> StoreResult<Option<String>> {
        let row = sqlx::query("SELECT value FROM settings WHERE key = ?")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get("value")).transpose()?)
    }

    async fn setting_or_insert(&self, key: &str, value: &str) -> StoreResult<String> {
        sqlx::query("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING")
            .bind(key)
            .bind(value)
            .execute(&self.pool)
            .await?;
        Ok(self.setting(key).await?.unwrap_or_else(|| value.to_owned()))
    }

    async fn delete_setting(&self, key: &str) -> StoreResult<()> {
        sqlx::query("DELETE FROM settings WHERE key = ?")
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn account_count(&self) -> StoreResult<i64> {
        Ok(sqlx::query("SELECT COUNT(*) AS n FROM accounts")
            .fetch_one(&self.pool)
            .await?
            .try_get("n")?)
    }

    async fn insert_account(&self, a: &AccountRecord) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO accounts (id, parent_id, name, friendly_name, culture, technical_email_address, callback_uri, secret_hash, created_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(a.id.to_string())
        .bind(a.parent_id.map(|p| p.to_string()))
        .bind(&a.name)
        .bind(&a.friendly_name)
        .bind(&a.culture)
        .bind(&a.technical_email_address)
        .bind(&a.callback_uri)
        .bind(&a.secret_hash)
        .bind(ts(a.created_at))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn account(&self, id: Uuid) -> StoreResult<Option<AccountRecord>> {
        let row = sqlx::query("SELECT * FROM accounts WHERE id = ?")
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(Self::account_from).transpose()
    }

    async fn is_within(&self, ancestor: Uuid, account: Uuid) -> StoreResult<bool> {
        let row = sqlx::query(with_chain!("SELECT COUNT(*) AS n FROM chain WHERE id = ?2"))
            .bind(account.to_string())
            .bind(ancestor.to_string())
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get::<i64, _>("n")? > 0)
    }

    async fn update_account(&self, a: &AccountRecord) -> StoreResult<bool> {
        let result = sqlx::query(
            "UPDATE accounts SET name = ?, friendly_name = ?, culture = ?, technical_email_address = ?, \
             callback_uri = ? WHERE id = ?",
        )
        .bind(&a.name)
        .bind(&a.friendly_name)
        .bind(&a.culture)
        .bind(&a.technical_email_address)
        .bind(&a.callback_uri)
        .bind(a.id.to_string())
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected() > 0)
    }

    async fn child_accounts(&self, parent: Uuid, page: Page) -> StoreResult<Vec<AccountRecord>> {
        let rows = sqlx::query(
            "SELECT * FROM accounts WHERE parent_id = ? ORDER BY name, id LIMIT ? OFFSET ?",
        )
        .bind(parent.to_string())
        .bind(page.take)
        .bind(page.skip)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::account_from).collect()
    }

    async fn delete_account_tree(&self, id: Uuid) -> StoreResult<bool> {
        let mut writer = self.writer.lock().await;
        let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query(
            "CREATE TEMP TABLE IF NOT EXISTS doomed_accounts (id TEXT PRIMARY KEY NOT NULL)",
        )
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM doomed_accounts")
            .execute(&mut *tx)
            .await?;
        let found = sqlx::query(
            "INSERT INTO doomed_accounts (id) WITH RECURSIVE tree (id) AS ( \
                 SELECT id FROM accounts WHERE id = ? \
                 UNION ALL SELECT a.id FROM accounts a JOIN tree t ON a.parent_id = t.id \
             ) SELECT id FROM tree",
        )
        .bind(id.to_string())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if found == 0 {
            return Ok(false);
        }
        // Children before parents: every foreign key holds after each statement.
        const DELETES: &[&str] = &[
            "DELETE FROM notification_attempts WHERE notification_id IN (SELECT id FROM notifications \
                 WHERE account_id IN doomed_accounts OR webhook_account_id IN doomed_accounts \
                 OR event_id IN (SELECT id FROM events WHERE account_id IN doomed_accounts))",
            "UPDATE notifications SET digest_id = NULL WHERE digest_id IN (SELECT id FROM notifications \
                 WHERE account_id IN doomed_accounts)",
            "DELETE FROM notifications WHERE account_id IN doomed_accounts \
                 OR webhook_account_id IN doomed_accounts \
                 OR event_id IN (SELECT id FROM events WHERE account_id IN doomed_accounts)",
            "DELETE FROM events WHERE account_id IN doomed_accounts",
            "DELETE FROM telemetry WHERE asset_id IN (SELECT id FROM assets WHERE account_id IN doomed_accounts)",
            "DELETE FROM asset_state WHERE asset_id IN (SELECT id FROM assets WHERE account_id IN doomed_accounts)",
            "DELETE FROM alert_rules WHERE account_id IN doomed_accounts",
            "DELETE FROM geofences WHERE account_id IN doomed_accounts",
            "DELETE FROM assets WHERE account_id IN doomed_accounts",
            "DELETE FROM ingestion_tokens WHERE account_id IN doomed_accounts OR issued_by IN doomed_accounts",
            "DELETE FROM accounts WHERE id IN doomed_accounts",
            "DELETE FROM doomed_accounts",
        ];
        for statement in DELETES {
            sqlx::query(*statement).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn set_secret_hash(&self, id: Uuid, secret_hash: &str) -> StoreResult<bool> {
        let result = sqlx::query("UPDATE accounts SET secret_hash = ? WHERE id = ?")
            .bind(secret_hash)
            .bind(id.to_string())
            .execute(&self.pool)
            .await?;
        Ok(result.rows_affected() > 0)
    }

    async fn list_assets_within(
        &self,
        ancestor: Uuid,
        account: Uuid,
        external_id: Option<&str>,
        include_deleted: bool,
        page: Page,
    ) -> StoreResult<Vec<Asset>> {
        if let Some(readers) = &self.readers {
            return readers.read(|c| {
                let mut statement = c.prepare_cached(LIST_ASSETS_WITHIN)?;
                let columns = reads::AssetIndexes::of(&statement)?;
                let mut rows = statement.query(rusqlite::params![
                    account.to_string(),
                    ancestor.to_string(),
                    external_id,
                    include_deleted,
                    page.take,
                    page.skip
                ])?;
                let mut assets = Vec::new();
                while let Some(row) = rows.next()? {
                    assets.push(columns.asset(row)?);
                }
                Ok(assets)
            });
        }
        let rows = sqlx::query(LIST_ASSETS_WITHIN)
            .bind(account.to_string())
            .bind(ancestor.to_string())
            .bind(external_id)
            .bind(include_deleted)
            .bind(page.take)
            .bind(page.skip)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(Self::asset_from).collect()
    }

    async fn asset(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Asset>> {
        let row = sqlx::query("SELECT * FROM assets WHERE account_id = ? AND id = ?")
            .bind(account.to_string())
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(Self::asset_from).transpose()
    }

    async fn asset_within(
        &self,
        ancestor: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> StoreResult<Option<Option<Asset>>> {
        if let Some(readers) = &self.readers {
            return readers.read(|c| {
                let mut statement = c.prepare_cached(ASSET_WITHIN)?;
                let columns = reads::AssetIndexes::of(&statement)?;
                let mut rows = statement.query(rusqlite::params![
                    account.to_string(),
                    ancestor.to_string(),
                    id.to_string()
                ])?;
                let row = rows.next()?.ok_or(rusqlite::Error::QueryReturnedNoRows)?;
                if !row.get::<_, bool>("within")? {
                    return Ok(None);
                }
                Ok(Some(
                    columns
                        .found(row)?
                        .then(|| columns.asset(row))
                        .transpose()?,
                ))
            });
        }
        let row = sqlx::query(ASSET_WITHIN)
            .bind(account.to_string())
            .bind(ancestor.to_string())
            .bind(id.to_string())
            .fetch_one(&self.pool)
            .await?;
        if !row.try_get::<bool, _>("within")? {
            return Ok(None);
        }
        let found = row.try_get::<Option<&str>, _>("id")?.is_some();
        Ok(Some(found.then(|| Self::asset_from(&row)).transpose()?))
    }

    async fn search_assets(
        &self,
        account: Uuid,
        text: Option<&str>,
        page: Page,
    ) -> StoreResult<(Vec<Asset>, i64)> {
        // LIKE folds ASCII case; the text's own `%`, `_` and `\` are escaped to match literally.
        let pattern = text.map(|t| {
            let literal = t
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            format!("%{literal}%")
        });
        // One read transaction: the count and the page see the same rows.
        let mut tx = self.pool.begin().await?;
        let total: i64 = sqlx::query(
            "SELECT COUNT(*) AS n FROM assets WHERE account_id = ?1 AND is_deleted = 0 \
             AND (?2 IS NULL OR external_id LIKE ?2 ESCAPE '\\' OR name LIKE ?2 ESCAPE '\\')",
        )
        .bind(account.to_string())
        .bind(&pattern)
        .fetch_one(&mut *tx)
        .await?
        .try_get("n")?;
        let rows = sqlx::query(
            "SELECT * FROM assets WHERE account_id = ?1 AND is_deleted = 0 \
             AND (?2 IS NULL OR external_id LIKE ?2 ESCAPE '\\' OR name LIKE ?2 ESCAPE '\\') \
             ORDER BY external_id, id LIMIT ?3 OFFSET ?4",
        )
        .bind(account.to_string())
        .bind(&pattern)
        .bind(page.take)
        .bind(page.skip)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        let assets = rows
            .iter()
            .map(Self::asset_from)
            .collect::<StoreResult<_>>()?;
        Ok((assets, total))
    }

    async fn insert_asset(&self, a: &Asset) -> StoreResult<()> {
        let result = sqlx::query(
            "INSERT INTO assets (id, account_id, external_id, name, tier, disabled_events, telemetry_rules, is_deleted, created_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(a.id.to_string())
        .bind(a.account_id.to_string())
        .bind(&a.external_id)
        .bind(&a.name)
        .bind(a.tier.value())
        .bind(to_json(&a.disabled_events))
        .bind(a.telemetry_rules.as_ref().map(to_json))
        .bind(a.is_deleted.unwrap_or(false))
        .bind(ts(Utc::now()))
        .execute(&self.pool)
        .await;
        external_id_conflict(result, "an asset", &a.external_id)?;
        Ok(())
    }

    async fn update_asset(&self, a: &Asset) -> StoreResult<bool> {
        let result = sqlx::query(
            "UPDATE assets SET external_id = ?, name = ?, tier = ?, disabled_events = ?, telemetry_rules = ? \
             WHERE account_id = ? AND id = ?",
        )
        .bind(&a.external_id)
        .bind(&a.name)
        .bind(a.tier.value())
        .bind(to_json(&a.disabled_events))
        .bind(a.telemetry_rules.as_ref().map(to_json))
        .bind(a.account_id.to_string())
        .bind(a.id.to_string())
        .execute(&self.pool)
        .await;
        Ok(external_id_conflict(result, "an asset", &a.external_id)?.rows_affected() > 0)
    }

    async fn soft_delete_asset(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        let result =
            sqlx::query("UPDATE assets SET is_deleted = 1 WHERE account_id = ? AND id = ?")
                .bind(account.to_string())
                .bind(id.to_string())
                .execute(&self.pool)
                .await?;
        Ok(result.rows_affected() > 0)
    }

    async fn list_geofences(&self, account: Uuid) -> StoreResult<Vec<Geofence>> {
        let rows = sqlx::query("SELECT * FROM geofences WHERE account_id = ? ORDER BY name, id")
            .bind(account.to_string())
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(Self::geofence_from).collect()
    }

    async fn geofence(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Geofence>> {
        let row = sqlx::query("SELECT * FROM geofences WHERE account_id = ? AND id = ?")
            .bind(account.to_string())
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(Self::geofence_from).transpose()
    }

    async fn existing_geofences(&self, account: Uuid, ids: &[Uuid]) -> StoreResult<Vec<Uuid>> {
        let mut found = Vec::new();
        for id in ids {
            if self.geofence(account, *id).await?.is_some() {
                found.push(*id);
            }
        }
        Ok(found)
    }

    async fn insert_geofence(&self, g: &Geofence) -> StoreResult<()> {
        let result = sqlx::query("INSERT INTO geofences (id, account_id, external_id, name, polygon) VALUES (?, ?, ?, ?, ?)")
            .bind(g.id.to_string())
            .bind(g.account_id.to_string())
            .bind(&g.external_id)
            .bind(&g.name)
            .bind(to_json(&g.polygon))
            .execute(&self.pool)
            .await;
        external_id_conflict(result, "a geofence", &g.external_id)?;
        Ok(())
    }

    async fn update_geofence(&self, g: &Geofence) -> StoreResult<bool> {
        let result = sqlx::query("UPDATE geofences SET external_id = ?, name = ?, polygon = ? WHERE account_id = ? AND id = ?")
            .bind(&g.external_id)
            .bind(&g.name)
            .bind(to_json(&g.polygon))
            .bind(g.account_id.to_string())
            .bind(g.id.to_string())
            .execute(&self.pool)
            .await;
        Ok(external_id_conflict(result, "a geofence", &g.external_id)?.rows_affected() > 0)
    }

    async fn delete_geofence(&self, account: Uuid, id: Uuid) -> StoreResult<GeofenceDeletion> {
        let mut tx = self.pool.begin().await?;
        let exists = sqlx::query("SELECT 1 FROM geofences WHERE account_id = ? AND id = ?")
            .bind(account.to_string())
            .bind(id.to_string())
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Ok(GeofenceDeletion::NotFound);
        }
        let refs: i64 =
            sqlx::query("SELECT COUNT(*) AS n FROM alert_rule_geofences WHERE geofence_id = ?")
                .bind(id.to_string())
                .fetch_one(&mut *tx)
                .await?
                .try_get("n")?;
        if refs > 0 {
            return Ok(GeofenceDeletion::Referenced(refs));
        }
        sqlx::query("DELETE FROM geofences WHERE id = ?")
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(GeofenceDeletion::Deleted)
    }

    async fn list_alert_rules(
        &self,
        account: Uuid,
        asset: Uuid,
        event_type: EventType,
    ) -> StoreResult<Vec<AlertRule>> {
        let rows = sqlx::query(
            "SELECT body FROM alert_rules WHERE account_id = ? AND asset_id = ? AND event_type = ? ORDER BY position, id",
        )
        .bind(account.to_string())
        .bind(asset.to_string())
        .bind(event_type.value())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::rule_from).collect()
    }

    async fn alert_rule(&self, account: Uuid, id: Uuid) -> StoreResult<Option<AlertRule>> {
        let row = sqlx::query("SELECT body FROM alert_rules WHERE account_id = ? AND id = ?")
            .bind(account.to_string())
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(Self::rule_from).transpose()
    }

    async fn insert_alert_rule(&self, rule: &AlertRule) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("INSERT INTO alert_rules (id, account_id, asset_id, event_type, position, body) VALUES (?, ?, ?, ?, ?, ?)")
            .bind(rule.id.to_string())
            .bind(rule.account_id.to_string())
            .bind(rule.asset_id.to_string())
            .bind(rule.event_type.value())
            .bind(rule.order)
            .bind(to_json(rule))
            .execute(&mut *tx)
            .await?;
        Self::set_rule_geofences(&mut tx, rule).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn update_alert_rule(&self, rule: &AlertRule) -> StoreResult<bool> {
        let mut tx = self.pool.begin().await?;
        let result = sqlx::query("UPDATE alert_rules SET event_type = ?, position = ?, body = ? WHERE account_id = ? AND id = ?")
            .bind(rule.event_type.value())
            .bind(rule.order)
            .bind(to_json(rule))
            .bind(rule.account_id.to_string())
            .bind(rule.id.to_string())
            .execute(&mut *tx)
            .await?;
        if result.rows_affected() == 0 {
            return Ok(false);
        }
        Self::set_rule_geofences(&mut tx, rule).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn delete_alert_rule(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        let result = sqlx::query("DELETE FROM alert_rules WHERE account_id = ? AND id = ?")
            .bind(account.to_string())
            .bind(id.to_string())
            .execute(&self.pool)
            .await?;
        Ok(result.rows_affected() > 0)
    }

    async fn alert_rule_geofences(
        &self,
        account: Uuid,
        asset: Uuid,
        event_type: EventType,
    ) -> StoreResult<Vec<Geofence>> {
        let rows = sqlx::query(
            "SELECT DISTINCT g.* FROM geofences g \
             JOIN alert_rule_geofences rg ON rg.geofence_id = g.id \
             JOIN alert_rules r ON r.id = rg.rule_id \
             WHERE r.account_id = ? AND r.asset_id = ? AND r.event_type = ? \
             ORDER BY g.name, g.id",
        )
        .bind(account.to_string())
        .bind(asset.to_string())
        .bind(event_type.value())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::geofence_from).collect()
    }

    async fn insert_ingestion_token(
        &self,
        t: &IngestionTokenRecord,
        token_hash: &str,
        now: DateTime<Utc>,
        limit: i64,
    ) -> StoreResult<bool> {
        // One statement: the count and the insert cannot interleave with another request's.
        let result = sqlx::query(
            "INSERT INTO ingestion_tokens (token_hash, account_id, expires_at, id, issued_by, created_at) \
             SELECT ?, ?, ?, ?, ?, ? WHERE (SELECT COUNT(*) FROM ingestion_tokens \
                 WHERE account_id = ? AND issued_by = ? AND expires_at > ?) < ?",
        )
        .bind(token_hash)
        .bind(t.account_id.to_string())
        .bind(ts(t.expires_at))
        .bind(t.id.to_string())
        .bind(t.issued_by.to_string())
        .bind(ts(t.created_at))
        .bind(t.account_id.to_string())
        .bind(t.issued_by.to_string())
        .bind(ts(now))
        .bind(limit)
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected() > 0)
    }

    async fn ingestion_tokens(
        &self,
        account: Uuid,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<IngestionTokenRecord>> {
        let rows = sqlx::query(
            "SELECT id, account_id, issued_by, created_at, expires_at FROM ingestion_tokens \
             WHERE account_id = ? AND expires_at > ? ORDER BY created_at DESC, id",
        )
        .bind(account.to_string())
        .bind(ts(now))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(IngestionTokenRecord {
                    id: parse_uuid(r.try_get("id")?)?,
                    account_id: parse_uuid(r.try_get("account_id")?)?,
                    issued_by: parse_uuid(r.try_get("issued_by")?)?,
                    created_at: parse_ts(r.try_get("created_at")?)?,
                    expires_at: parse_ts(r.try_get("expires_at")?)?,
                })
            })
            .collect()
    }

    async fn revoke_ingestion_token(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        let result = sqlx::query("DELETE FROM ingestion_tokens WHERE account_id = ? AND id = ?")
            .bind(account.to_string())
            .bind(id.to_string())
            .execute(&self.pool)
            .await?;
        Ok(result.rows_affected() > 0)
    }
}
