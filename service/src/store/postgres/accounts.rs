//! [`Store`] over PostgreSQL: accounts, assets, geofences, alert rules, ingestion tokens, settings.

use super::{ATTEMPTS, PgStore, external_id_conflict, retryable, with_chain};
use crate::store::encoding::to_json;
use crate::store::{
    AccountRecord, GeofenceDeletion, IngestionTokenRecord, Page, Store, StoreResult,
};
use asset_alerting_models::{AlertRule, Asset, EventType, Geofence};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

/// Children before parents: every foreign key holds after each statement. `$1`: the doomed ids.
const DELETE_TREE: &[&str] = &[
    "DELETE FROM notification_attempts WHERE notification_id IN (SELECT id FROM notifications \
         WHERE account_id = ANY($1) OR webhook_account_id = ANY($1) \
         OR event_id IN (SELECT id FROM events WHERE account_id = ANY($1)))",
    "UPDATE notifications SET digest_id = NULL WHERE digest_id IN (SELECT id FROM notifications \
         WHERE account_id = ANY($1))",
    "DELETE FROM notifications WHERE account_id = ANY($1) OR webhook_account_id = ANY($1) \
         OR event_id IN (SELECT id FROM events WHERE account_id = ANY($1))",
    "DELETE FROM events WHERE account_id = ANY($1)",
    "DELETE FROM telemetry WHERE asset_id IN (SELECT id FROM assets WHERE account_id = ANY($1))",
    "DELETE FROM asset_state WHERE asset_id IN (SELECT id FROM assets WHERE account_id = ANY($1))",
    "DELETE FROM alert_rules WHERE account_id = ANY($1)",
    "DELETE FROM geofences WHERE account_id = ANY($1)",
    "DELETE FROM assets WHERE account_id = ANY($1)",
    "DELETE FROM ingestion_tokens WHERE account_id = ANY($1) OR issued_by = ANY($1)",
    "DELETE FROM accounts WHERE id = ANY($1)",
];

impl PgStore {
    /// Rewrites the geofence references of a rule (inside the caller's transaction).
    async fn set_rule_geofences(tx: &mut PgConnection, rule: &AlertRule) -> StoreResult<()> {
        sqlx::query("DELETE FROM alert_rule_geofences WHERE rule_id = $1")
            .bind(rule.id)
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
        sqlx::query(
            "INSERT INTO alert_rule_geofences (rule_id, geofence_id) SELECT $1, g FROM UNNEST($2::uuid[]) g",
        )
        .bind(rule.id)
        .bind(&ids)
        .execute(&mut *tx)
        .await?;
        Ok(())
    }

    /// Deletes the account `id`, its subtree and all their data, inside the caller's transaction.
    async fn delete_tree_in(tx: &mut PgConnection, id: Uuid) -> StoreResult<bool> {
        // The subtree is locked in id order, as ingestion locks accounts: they wait, not deadlock.
        let ids: Vec<Uuid> = sqlx::query_scalar(
            "WITH RECURSIVE tree (id) AS ( \
                 SELECT id FROM accounts WHERE id = $1 \
                 UNION ALL SELECT a.id FROM accounts a JOIN tree t ON a.parent_id = t.id \
             ) SELECT id FROM tree",
        )
        .bind(id)
        .fetch_all(&mut *tx)
        .await?;
        if ids.is_empty() {
            return Ok(false);
        }
        let locked: Vec<Uuid> =
            sqlx::query_scalar("SELECT id FROM accounts WHERE id = ANY($1) ORDER BY id FOR UPDATE")
                .bind(&ids)
                .fetch_all(&mut *tx)
                .await?;
        // A deletion that ran meanwhile took the root.
        if !locked.contains(&id) {
            return Ok(false);
        }
        for statement in DELETE_TREE {
            sqlx::query(*statement).bind(&ids).execute(&mut *tx).await?;
        }
        Ok(true)
    }
}

impl Store for PgStore {
    async fn setting(&self, key: &str) -> StoreResult<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT value FROM settings WHERE key = $1")
                .bind(key)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    async fn setting_or_insert(&self, key: &str, value: &str) -> StoreResult<String> {
        sqlx::query(
            "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        )
        .bind(key)
        .bind(value)
        .execute(&self.pool)
        .await?;
        Ok(self.setting(key).await?.unwrap_or_else(|| value.to_owned()))
    }

    async fn delete_setting(&self, key: &str) -> StoreResult<()> {
        sqlx::query("DELETE FROM settings WHERE key = $1")
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn account_count(&self) -> StoreResult<i64> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM accounts")
            .fetch_one(&self.pool)
            .await?)
    }

    async fn insert_account(&self, a: &AccountRecord) -> StoreResult<()> {
        sqlx::query(
            "INSERT INTO accounts (id, parent_id, name, friendly_name, culture, technical_email_address, callback_uri, secret_hash, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(a.id)
        .bind(a.parent_id)
        .bind(&a.name)
        .bind(&a.friendly_name)
        .bind(&a.culture)
        .bind(&a.technical_email_address)
        .bind(&a.callback_uri)
        .bind(&a.secret_hash)
        .bind(a.created_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn account(&self, id: Uuid) -> StoreResult<Option<AccountRecord>> {
        let row = sqlx::query("SELECT * FROM accounts WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(Self::account_from).transpose()
    }

    async fn is_within(&self, ancestor: Uuid, account: Uuid) -> StoreResult<bool> {
        Ok(sqlx::query_scalar(with_chain!(
            "SELECT EXISTS (SELECT 1 FROM chain WHERE id = $2)"
        ))
        .bind(account)
        .bind(ancestor)
        .fetch_one(&self.pool)
        .await?)
    }

    async fn update_account(&self, a: &AccountRecord) -> StoreResult<bool> {
        let result = sqlx::query(
            "UPDATE accounts SET name = $1, friendly_name = $2, culture = $3, technical_email_address = $4, \
             callback_uri = $5 WHERE id = $6",
        )
        .bind(&a.name)
        .bind(&a.friendly_name)
        .bind(&a.culture)
        .bind(&a.technical_email_address)
        .bind(&a.callback_uri)
        .bind(a.id)
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected() > 0)
    }

    async fn child_accounts(&self, parent: Uuid, page: Page) -> StoreResult<Vec<AccountRecord>> {
        let rows = sqlx::query(
            "SELECT * FROM accounts WHERE parent_id = $1 ORDER BY name, id LIMIT $2 OFFSET $3",
        )
        .bind(parent)
        .bind(page.take)
        .bind(page.skip)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::account_from).collect()
    }

    async fn delete_account_tree(&self, id: Uuid) -> StoreResult<bool> {
        let mut attempt = 1;
        loop {
            let mut tx = self.pool.begin().await?;
            let deleted = match Self::delete_tree_in(&mut tx, id).await {
                Ok(deleted) => tx.commit().await.map(|()| deleted).map_err(Into::into),
                Err(e) => Err(e),
            };
            match deleted {
                Err(e) if attempt < ATTEMPTS && retryable(&e) => attempt += 1,
                other => return other,
            }
        }
    }

    async fn set_secret_hash(&self, id: Uuid, secret_hash: &str) -> StoreResult<bool> {
        let result = sqlx::query("UPDATE accounts SET secret_hash = $1 WHERE id = $2")
            .bind(secret_hash)
            .bind(id)
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
        let rows = sqlx::query(with_chain!(
            "SELECT * FROM assets WHERE account_id = $1 AND ($3::text IS NULL OR external_id = $3) \
             AND ($4 OR NOT is_deleted) AND EXISTS (SELECT 1 FROM chain WHERE id = $2) \
             ORDER BY external_id, id LIMIT $5 OFFSET $6"
        ))
        .bind(account)
        .bind(ancestor)
        .bind(external_id)
        .bind(include_deleted)
        .bind(page.take)
        .bind(page.skip)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::asset_from).collect()
    }

    async fn asset(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Asset>> {
        let row = sqlx::query("SELECT * FROM assets WHERE account_id = $1 AND id = $2")
            .bind(account)
            .bind(id)
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
        let row = sqlx::query(with_chain!(
            "SELECT EXISTS (SELECT 1 FROM chain WHERE id = $2) AS within, assets.* \
             FROM (SELECT 1) AS one LEFT JOIN assets ON assets.account_id = $1 AND assets.id = $3"
        ))
        .bind(account)
        .bind(ancestor)
        .bind(id)
        .fetch_one(&self.pool)
        .await?;
        if !row.try_get::<bool, _>("within")? {
            return Ok(None);
        }
        let found = row.try_get::<Option<Uuid>, _>("id")?.is_some();
        Ok(Some(found.then(|| Self::asset_from(&row)).transpose()?))
    }

    async fn search_assets(
        &self,
        account: Uuid,
        text: Option<&str>,
        page: Page,
    ) -> StoreResult<(Vec<Asset>, i64)> {
        // ILIKE on "C"-collated text folds ASCII case, as SQLite's LIKE; the text's own `%`, `_`
        // and `\` are escaped to match literally.
        let pattern = text.map(|t| {
            let literal = t
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            format!("%{literal}%")
        });
        // One snapshot: the count and the page see the same rows.
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        let total: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM assets WHERE account_id = $1 AND NOT is_deleted \
             AND ($2::text IS NULL OR external_id ILIKE $2 OR name ILIKE $2)",
        )
        .bind(account)
        .bind(&pattern)
        .fetch_one(&mut *tx)
        .await?;
        let rows = sqlx::query(
            "SELECT * FROM assets WHERE account_id = $1 AND NOT is_deleted \
             AND ($2::text IS NULL OR external_id ILIKE $2 OR name ILIKE $2) \
             ORDER BY external_id, id LIMIT $3 OFFSET $4",
        )
        .bind(account)
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
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(a.id)
        .bind(a.account_id)
        .bind(&a.external_id)
        .bind(&a.name)
        .bind(a.tier.value())
        .bind(to_json(&a.disabled_events))
        .bind(a.telemetry_rules.as_ref().map(to_json))
        .bind(a.is_deleted.unwrap_or(false))
        .bind(Utc::now())
        .execute(&self.pool)
        .await;
        external_id_conflict(result, "an asset", &a.external_id)?;
        Ok(())
    }

    async fn update_asset(&self, a: &Asset) -> StoreResult<bool> {
        let result = sqlx::query(
            "UPDATE assets SET external_id = $1, name = $2, tier = $3, disabled_events = $4, telemetry_rules = $5 \
             WHERE account_id = $6 AND id = $7",
        )
        .bind(&a.external_id)
        .bind(&a.name)
        .bind(a.tier.value())
        .bind(to_json(&a.disabled_events))
        .bind(a.telemetry_rules.as_ref().map(to_json))
        .bind(a.account_id)
        .bind(a.id)
        .execute(&self.pool)
        .await;
        Ok(external_id_conflict(result, "an asset", &a.external_id)?.rows_affected() > 0)
    }

    async fn soft_delete_asset(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        let result =
            sqlx::query("UPDATE assets SET is_deleted = true WHERE account_id = $1 AND id = $2")
                .bind(account)
                .bind(id)
                .execute(&self.pool)
                .await?;
        Ok(result.rows_affected() > 0)
    }

    async fn list_geofences(&self, account: Uuid) -> StoreResult<Vec<Geofence>> {
        let rows = sqlx::query("SELECT * FROM geofences WHERE account_id = $1 ORDER BY name, id")
            .bind(account)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(Self::geofence_from).collect()
    }

    async fn geofence(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Geofence>> {
        let row = sqlx::query("SELECT * FROM geofences WHERE account_id = $1 AND id = $2")
            .bind(account)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(Self::geofence_from).transpose()
    }

    async fn existing_geofences(&self, account: Uuid, ids: &[Uuid]) -> StoreResult<Vec<Uuid>> {
        let found: Vec<Uuid> =
            sqlx::query_scalar("SELECT id FROM geofences WHERE account_id = $1 AND id = ANY($2)")
                .bind(account)
                .bind(ids)
                .fetch_all(&self.pool)
                .await?;
        // In the order asked, as the SQLite store answers.
        Ok(ids
            .iter()
            .filter(|id| found.contains(id))
            .copied()
            .collect())
    }

    async fn insert_geofence(&self, g: &Geofence) -> StoreResult<()> {
        let result = sqlx::query(
            "INSERT INTO geofences (id, account_id, external_id, name, polygon) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(g.id)
        .bind(g.account_id)
        .bind(&g.external_id)
        .bind(&g.name)
        .bind(to_json(&g.polygon))
        .execute(&self.pool)
        .await;
        external_id_conflict(result, "a geofence", &g.external_id)?;
        Ok(())
    }

    async fn update_geofence(&self, g: &Geofence) -> StoreResult<bool> {
        let result = sqlx::query(
            "UPDATE geofences SET external_id = $1, name = $2, polygon = $3 WHERE account_id = $4 AND id = $5",
        )
        .bind(&g.external_id)
        .bind(&g.name)
        .bind(to_json(&g.polygon))
        .bind(g.account_id)
        .bind(g.id)
        .execute(&self.pool)
        .await;
        Ok(external_id_conflict(result, "a geofence", &g.external_id)?.rows_affected() > 0)
    }

    async fn delete_geofence(&self, account: Uuid, id: Uuid) -> StoreResult<GeofenceDeletion> {
        let mut tx = self.pool.begin().await?;
        // Locked: a rule that starts referencing it meanwhile waits (its foreign key check
        // takes a share lock on the row), so the count below stays true until the delete.
        let exists =
            sqlx::query("SELECT 1 FROM geofences WHERE account_id = $1 AND id = $2 FOR UPDATE")
                .bind(account)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        if exists.is_none() {
            return Ok(GeofenceDeletion::NotFound);
        }
        let refs: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM alert_rule_geofences WHERE geofence_id = $1")
                .bind(id)
                .fetch_one(&mut *tx)
                .await?;
        if refs > 0 {
            return Ok(GeofenceDeletion::Referenced(refs));
        }
        sqlx::query("DELETE FROM geofences WHERE id = $1")
            .bind(id)
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
            "SELECT body FROM alert_rules WHERE account_id = $1 AND asset_id = $2 AND event_type = $3 ORDER BY position, id",
        )
        .bind(account)
        .bind(asset)
        .bind(event_type.value())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::rule_from).collect()
    }

    async fn alert_rule(&self, account: Uuid, id: Uuid) -> StoreResult<Option<AlertRule>> {
        let row = sqlx::query("SELECT body FROM alert_rules WHERE account_id = $1 AND id = $2")
            .bind(account)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(Self::rule_from).transpose()
    }

    async fn insert_alert_rule(&self, rule: &AlertRule) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO alert_rules (id, account_id, asset_id, event_type, position, body) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(rule.id)
        .bind(rule.account_id)
        .bind(rule.asset_id)
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
        let result = sqlx::query(
            "UPDATE alert_rules SET event_type = $1, position = $2, body = $3 WHERE account_id = $4 AND id = $5",
        )
        .bind(rule.event_type.value())
        .bind(rule.order)
        .bind(to_json(rule))
        .bind(rule.account_id)
        .bind(rule.id)
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
        let result = sqlx::query("DELETE FROM alert_rules WHERE account_id = $1 AND id = $2")
            .bind(account)
            .bind(id)
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
             WHERE r.account_id = $1 AND r.asset_id = $2 AND r.event_type = $3 \
             ORDER BY g.name, g.id",
        )
        .bind(account)
        .bind(asset)
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
        let mut tx = self.pool.begin().await?;
        // Counting and inserting in one statement is not enough under READ COMMITTED: two
        // requests of one issuer could both count 9. The lock on the issuer's account row orders them.
        sqlx::query("SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE")
            .bind(t.issued_by)
            .execute(&mut *tx)
            .await?;
        let result = sqlx::query(
            "INSERT INTO ingestion_tokens (token_hash, account_id, expires_at, id, issued_by, created_at) \
             SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT COUNT(*) FROM ingestion_tokens \
                 WHERE account_id = $2 AND issued_by = $5 AND expires_at > $7) < $8",
        )
        .bind(token_hash)
        .bind(t.account_id)
        .bind(t.expires_at)
        .bind(t.id)
        .bind(t.issued_by)
        .bind(t.created_at)
        .bind(now)
        .bind(limit)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(result.rows_affected() > 0)
    }

    async fn ingestion_tokens(
        &self,
        account: Uuid,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<IngestionTokenRecord>> {
        let rows = sqlx::query(
            "SELECT id, account_id, issued_by, created_at, expires_at FROM ingestion_tokens \
             WHERE account_id = $1 AND expires_at > $2 ORDER BY created_at DESC, id",
        )
        .bind(account)
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(IngestionTokenRecord {
                    id: r.try_get("id")?,
                    account_id: r.try_get("account_id")?,
                    issued_by: r.try_get("issued_by")?,
                    created_at: r.try_get("created_at")?,
                    expires_at: r.try_get("expires_at")?,
                })
            })
            .collect()
    }

    async fn revoke_ingestion_token(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        let result = sqlx::query("DELETE FROM ingestion_tokens WHERE account_id = $1 AND id = $2")
            .bind(account)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(result.rows_affected() > 0)
    }
}
