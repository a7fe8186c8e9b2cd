//! [`Store`] for both backends: accounts, assets, geofences, alert rules, ingestion tokens and
//! settings, each statement written once (see `sql.rs` for how the dialects differ). What only
//! one backend does is said where it happens: SQLite's request-path readers, PostgreSQL's row
//! locks.

use super::encoding::to_json;
use super::sql::{Conn, Sql, Tx, args, asset_conflict, external_id_conflict, retried, sql};
use super::{
    AccountRecord, AssetFilter, Database, GeofenceDeletion, IngestionTokenRecord, Page, Store,
    StoreResult, rows,
};
use asset_alerting_models::{AlertRule, Asset, EventType, Geofence};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// `sql` after the accounts from `$1` up to the root, as `chain (id, parent_id)`: an account is
/// within another when the other is on this way.
macro_rules! with_chain {
    ($($sql:expr),+) => {
        concat!(
            "WITH RECURSIVE chain (id, parent_id) AS ( \
                 SELECT id, parent_id FROM accounts WHERE id = $1 \
                 UNION ALL SELECT a.id, a.parent_id FROM accounts a JOIN chain c ON a.id = c.parent_id \
             ) ",
            $($sql),+
        )
    };
}

/// List assets: one page of an account's assets, empty unless `$1` is within `$2`.
macro_rules! list_assets_within {
    () => {
        "SELECT * FROM assets WHERE account_id = $1 AND (CAST($3 AS TEXT) IS NULL OR external_id = $3) \
         AND (CAST($7 AS TEXT) IS NULL OR device_id = $7) \
         AND ($4 OR is_deleted = false) AND EXISTS (SELECT 1 FROM chain WHERE id = $2) \
         ORDER BY external_id, id "
    };
}

/// `LIMIT $5 + 0` on SQLite: it plans a plain bound `LIMIT` with its value and so prepares the
/// statement again whenever the value is bound, which is every execution (a sixth of list
/// assets' CPU); an expression is evaluated when the statement runs. PostgreSQL keeps the plain
/// bound `LIMIT`, which its planner reads.
pub(super) const LIST_ASSETS_WITHIN: Sql = Sql {
    sqlite: with_chain!(list_assets_within!(), "LIMIT $5 + 0 OFFSET $6 + 0"),
    postgres: with_chain!(list_assets_within!(), "LIMIT $5 OFFSET $6"),
};

/// GET asset: whether `$1` is within `$2`, and asset `$3` of `$1`, in one statement (on the hot
/// path the round trips cost more than the reads).
pub(super) const ASSET_WITHIN: &str = with_chain!(
    "SELECT EXISTS (SELECT 1 FROM chain WHERE id = $2) AS within, assets.* \
     FROM (SELECT 1) AS one LEFT JOIN assets ON assets.account_id = $1 AND assets.id = $3"
);

/// The answer of [`ASSET_WITHIN`]: `None` when not within, else the asset if there is one.
pub(super) fn asset_within_row(r: &dyn super::sql::Columns) -> StoreResult<Option<Option<Asset>>> {
    if !r.flag("within")? {
        return Ok(None);
    }
    Ok(Some(r.opt_id("id")?.map(|_| rows::asset(r)).transpose()?))
}

/// Children before parents: every foreign key holds after each statement. `$1`: the doomed ids.
const DELETE_TREE: &[super::sql::Sql] = &[
    sql!("DELETE FROM notification_attempts WHERE notification_id IN (SELECT id FROM notifications \
          WHERE account_id " [any 1] " OR webhook_account_id " [any 1]
         " OR event_id IN (SELECT id FROM events WHERE account_id " [any 1] "))"),
    sql!("UPDATE notifications SET digest_id = NULL WHERE digest_id IN (SELECT id FROM notifications \
          WHERE account_id " [any 1] ")"),
    sql!("DELETE FROM notifications WHERE account_id " [any 1] " OR webhook_account_id " [any 1]
         " OR event_id IN (SELECT id FROM events WHERE account_id " [any 1] ")"),
    sql!("DELETE FROM events WHERE account_id " [any 1]),
    sql!("DELETE FROM telemetry WHERE asset_id IN (SELECT id FROM assets WHERE account_id " [any 1] ")"),
    sql!("DELETE FROM asset_state WHERE asset_id IN (SELECT id FROM assets WHERE account_id " [any 1] ")"),
    sql!("DELETE FROM alert_rules WHERE account_id " [any 1]),
    sql!("DELETE FROM geofences WHERE account_id " [any 1]),
    sql!("DELETE FROM assets WHERE account_id " [any 1]),
    sql!("DELETE FROM ingestion_tokens WHERE account_id " [any 1] " OR issued_by " [any 1]),
    sql!("DELETE FROM accounts WHERE id " [any 1]),
];

/// Deletes the account `id`, its subtree and all their data, inside the caller's transaction.
async fn delete_tree_in(tx: &mut Tx<'_>, id: Uuid) -> StoreResult<bool> {
    let mut c = tx.conn();
    let ids = c
        .all(
            "WITH RECURSIVE tree (id) AS ( \
                 SELECT id FROM accounts WHERE id = $1 \
                 UNION ALL SELECT a.id FROM accounts a JOIN tree t ON a.parent_id = t.id \
             ) SELECT id FROM tree",
            args![id],
            rows::id,
        )
        .await?;
    if ids.is_empty() {
        return Ok(false);
    }
    // On PostgreSQL the subtree is locked in id order, as ingestion locks accounts: they wait,
    // not deadlock. A deletion that ran meanwhile took the root.
    let locked = c
        .all(
            sql!("SELECT id FROM accounts WHERE id " [any 1] " ORDER BY id" [for_update]),
            args![&ids],
            rows::id,
        )
        .await?;
    if !locked.contains(&id) {
        return Ok(false);
    }
    for statement in DELETE_TREE {
        c.run(*statement, args![&ids]).await?;
    }
    Ok(true)
}

/// Rewrites the geofence references of a rule (inside the caller's transaction).
async fn set_rule_geofences(c: &mut Conn<'_>, rule: &AlertRule) -> StoreResult<()> {
    c.run(
        "DELETE FROM alert_rule_geofences WHERE rule_id = $1",
        args![rule.id],
    )
    .await?;
    let mut ids: Vec<Uuid> = rule
        .inside_geofences
        .iter()
        .chain(&rule.outside_geofences)
        .copied()
        .collect();
    ids.sort();
    ids.dedup();
    c.run(
        sql!("INSERT INTO alert_rule_geofences (rule_id, geofence_id) SELECT $1, list.value FROM " [list 2]),
        args![rule.id, &ids],
    )
    .await?;
    Ok(())
}

/// The search's LIKE pattern: the text's own `%`, `_` and `\` are escaped to match literally.
fn like_pattern(text: &str) -> String {
    let literal = text
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{literal}%")
}

impl Store for Database {
    async fn setting(&self, key: &str) -> StoreResult<Option<String>> {
        self.opt(
            "SELECT value FROM settings WHERE key = $1",
            args![key],
            |r| r.text("value"),
        )
        .await
    }

    async fn setting_or_insert(&self, key: &str, value: &str) -> StoreResult<String> {
        self.run(
            "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
            args![key, value],
        )
        .await?;
        Ok(self.setting(key).await?.unwrap_or_else(|| value.to_owned()))
    }

    async fn delete_setting(&self, key: &str) -> StoreResult<()> {
        self.run("DELETE FROM settings WHERE key = $1", args![key])
            .await?;
        Ok(())
    }

    async fn account_count(&self) -> StoreResult<i64> {
        self.one("SELECT COUNT(*) AS n FROM accounts", args![], rows::count)
            .await
    }

    async fn insert_account(&self, a: &AccountRecord) -> StoreResult<()> {
        self.run(
            "INSERT INTO accounts (id, parent_id, name, friendly_name, culture, technical_email_address, \
             callback_uri, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            args![
                a.id,
                a.parent_id,
                &a.name,
                &a.friendly_name,
                &a.culture,
                &a.technical_email_address,
                &a.callback_uri,
                &a.secret_hash,
                a.created_at
            ],
        )
        .await?;
        Ok(())
    }

    async fn account(&self, id: Uuid) -> StoreResult<Option<AccountRecord>> {
        self.opt(
            "SELECT * FROM accounts WHERE id = $1",
            args![id],
            rows::account,
        )
        .await
    }

    async fn is_within(&self, ancestor: Uuid, account: Uuid) -> StoreResult<bool> {
        self.one(
            with_chain!("SELECT EXISTS (SELECT 1 FROM chain WHERE id = $2) AS within"),
            args![account, ancestor],
            |r| r.flag("within"),
        )
        .await
    }

    async fn update_account(&self, a: &AccountRecord) -> StoreResult<bool> {
        let changed = self
            .run(
                "UPDATE accounts SET name = $1, friendly_name = $2, culture = $3, \
                 technical_email_address = $4, callback_uri = $5 WHERE id = $6",
                args![
                    &a.name,
                    &a.friendly_name,
                    &a.culture,
                    &a.technical_email_address,
                    &a.callback_uri,
                    a.id
                ],
            )
            .await?;
        Ok(changed > 0)
    }

    async fn child_accounts(&self, parent: Uuid, page: Page) -> StoreResult<Vec<AccountRecord>> {
        self.all(
            "SELECT * FROM accounts WHERE parent_id = $1 ORDER BY name, id LIMIT $2 OFFSET $3",
            args![parent, page.take, page.skip],
            rows::account,
        )
        .await
    }

    async fn delete_account_tree(&self, id: Uuid) -> StoreResult<bool> {
        retried(|| async move {
            let mut writer = self.writer().await?;
            let mut tx = writer.begin().await?;
            let deleted = delete_tree_in(&mut tx, id).await?;
            tx.commit().await?;
            Ok(deleted)
        })
        .await
    }

    async fn set_secret_hash(&self, id: Uuid, secret_hash: &str) -> StoreResult<bool> {
        let changed = self
            .run(
                "UPDATE accounts SET secret_hash = $1 WHERE id = $2",
                args![secret_hash, id],
            )
            .await?;
        Ok(changed > 0)
    }

    async fn list_assets_within(
        &self,
        ancestor: Uuid,
        account: Uuid,
        filter: AssetFilter<'_>,
        page: Page,
    ) -> StoreResult<Vec<Asset>> {
        let args = args![
            account,
            ancestor,
            filter.external_id,
            filter.include_deleted,
            page.take,
            page.skip,
            filter.device_id
        ];
        if let Some(readers) = self.readers() {
            return readers.all(LIST_ASSETS_WITHIN.sqlite, args, rows::asset);
        }
        self.all(LIST_ASSETS_WITHIN, args, rows::asset).await
    }

    async fn asset(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Asset>> {
        self.opt(
            "SELECT * FROM assets WHERE account_id = $1 AND id = $2",
            args![account, id],
            rows::asset,
        )
        .await
    }

    async fn assets_of_devices(&self, device_ids: &[String]) -> StoreResult<Vec<Asset>> {
        if device_ids.is_empty() {
            return Ok(Vec::new());
        }
        let args = args![device_ids];
        let sql = sql!("SELECT * FROM assets WHERE device_id " [any 1] " AND is_deleted = false");
        if let Some(readers) = self.readers() {
            return readers.all(sql.sqlite, args, rows::asset);
        }
        self.all(sql, args, rows::asset).await
    }

    async fn asset_within(
        &self,
        ancestor: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> StoreResult<Option<Option<Asset>>> {
        let args = args![account, ancestor, id];
        if let Some(readers) = self.readers() {
            return readers.one(ASSET_WITHIN, args, asset_within_row);
        }
        self.one(ASSET_WITHIN, args, asset_within_row).await
    }

    async fn search_assets(
        &self,
        account: Uuid,
        text: Option<&str>,
        page: Page,
    ) -> StoreResult<(Vec<Asset>, i64)> {
        let pattern = text.map(like_pattern);
        // One snapshot: the count and the page see the same rows.
        let mut held = self.held().await?;
        let mut tx = held.begin().await?;
        tx.snapshot().await?;
        let mut c = tx.conn();
        let total = c
            .one(
                sql!("SELECT COUNT(*) AS n FROM assets WHERE account_id = $1 AND is_deleted = false \
                      AND (CAST($2 AS TEXT) IS NULL OR external_id " [ilike] " $2 ESCAPE '\\' \
                      OR name " [ilike] " $2 ESCAPE '\\')"),
                args![account, &pattern],
                rows::count,
            )
            .await?;
        let assets = c
            .all(
                sql!("SELECT * FROM assets WHERE account_id = $1 AND is_deleted = false \
                      AND (CAST($2 AS TEXT) IS NULL OR external_id " [ilike] " $2 ESCAPE '\\' \
                      OR name " [ilike] " $2 ESCAPE '\\') \
                      ORDER BY external_id, id LIMIT $3 OFFSET $4"),
                args![account, &pattern, page.take, page.skip],
                rows::asset,
            )
            .await?;
        tx.commit().await?;
        Ok((assets, total))
    }

    async fn insert_asset(&self, a: &Asset) -> StoreResult<()> {
        let inserted = self
            .run(
                "INSERT INTO assets (id, account_id, external_id, name, tier, disabled_events, \
                 telemetry_rules, is_deleted, created_at, device_id) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                args![
                    a.id,
                    a.account_id,
                    &a.external_id,
                    &a.name,
                    a.tier.value(),
                    to_json(&a.disabled_events),
                    a.telemetry_rules.as_ref().map(to_json),
                    a.is_deleted.unwrap_or(false),
                    Utc::now(),
                    &a.device_id
                ],
            )
            .await;
        asset_conflict(inserted, a)?;
        Ok(())
    }

    async fn update_asset(&self, a: &Asset) -> StoreResult<bool> {
        let updated = self
            .run(
                "UPDATE assets SET external_id = $1, name = $2, tier = $3, disabled_events = $4, \
                 telemetry_rules = $5, device_id = $8 WHERE account_id = $6 AND id = $7",
                args![
                    &a.external_id,
                    &a.name,
                    a.tier.value(),
                    to_json(&a.disabled_events),
                    a.telemetry_rules.as_ref().map(to_json),
                    a.account_id,
                    a.id,
                    &a.device_id
                ],
            )
            .await;
        Ok(asset_conflict(updated, a)? > 0)
    }

    async fn soft_delete_asset(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        let changed = self
            .run(
                "UPDATE assets SET is_deleted = true WHERE account_id = $1 AND id = $2",
                args![account, id],
            )
            .await?;
        Ok(changed > 0)
    }

    async fn list_geofences(&self, account: Uuid) -> StoreResult<Vec<Geofence>> {
        self.all(
            "SELECT * FROM geofences WHERE account_id = $1 ORDER BY name, id",
            args![account],
            rows::geofence,
        )
        .await
    }

    async fn geofence(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Geofence>> {
        self.opt(
            "SELECT * FROM geofences WHERE account_id = $1 AND id = $2",
            args![account, id],
            rows::geofence,
        )
        .await
    }

    async fn existing_geofences(&self, account: Uuid, ids: &[Uuid]) -> StoreResult<Vec<Uuid>> {
        let found = self
            .all(
                sql!("SELECT id FROM geofences WHERE account_id = $1 AND id " [any 2]),
                args![account, ids],
                rows::id,
            )
            .await?;
        // In the order asked.
        Ok(ids
            .iter()
            .filter(|id| found.contains(id))
            .copied()
            .collect())
    }

    async fn insert_geofence(&self, g: &Geofence) -> StoreResult<()> {
        let inserted = self
            .run(
                "INSERT INTO geofences (id, account_id, external_id, name, polygon) \
                 VALUES ($1, $2, $3, $4, $5)",
                args![
                    g.id,
                    g.account_id,
                    &g.external_id,
                    &g.name,
                    to_json(&g.polygon)
                ],
            )
            .await;
        external_id_conflict(inserted, "a geofence", &g.external_id)?;
        Ok(())
    }

    async fn update_geofence(&self, g: &Geofence) -> StoreResult<bool> {
        let updated = self
            .run(
                "UPDATE geofences SET external_id = $1, name = $2, polygon = $3 \
                 WHERE account_id = $4 AND id = $5",
                args![
                    &g.external_id,
                    &g.name,
                    to_json(&g.polygon),
                    g.account_id,
                    g.id
                ],
            )
            .await;
        Ok(external_id_conflict(updated, "a geofence", &g.external_id)? > 0)
    }

    async fn delete_geofence(&self, account: Uuid, id: Uuid) -> StoreResult<GeofenceDeletion> {
        let mut held = self.held().await?;
        let mut tx = held.begin().await?;
        let mut c = tx.conn();
        // Locked on PostgreSQL: a rule that starts referencing it meanwhile waits (its foreign
        // key check takes a share lock on the row), so the count below stays true until the
        // delete.
        let exists = c
            .opt(
                sql!("SELECT id FROM geofences WHERE account_id = $1 AND id = $2"[for_update]),
                args![account, id],
                rows::id,
            )
            .await?;
        if exists.is_none() {
            return Ok(GeofenceDeletion::NotFound);
        }
        let refs = c
            .one(
                "SELECT COUNT(*) AS n FROM alert_rule_geofences WHERE geofence_id = $1",
                args![id],
                rows::count,
            )
            .await?;
        if refs > 0 {
            return Ok(GeofenceDeletion::Referenced(refs));
        }
        c.run("DELETE FROM geofences WHERE id = $1", args![id])
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
        self.all(
            "SELECT body FROM alert_rules WHERE account_id = $1 AND asset_id = $2 AND event_type = $3 \
             ORDER BY position, id",
            args![account, asset, event_type.value()],
            rows::rule,
        )
        .await
    }

    async fn alert_rule(&self, account: Uuid, id: Uuid) -> StoreResult<Option<AlertRule>> {
        self.opt(
            "SELECT body FROM alert_rules WHERE account_id = $1 AND id = $2",
            args![account, id],
            rows::rule,
        )
        .await
    }

    async fn insert_alert_rule(&self, rule: &AlertRule) -> StoreResult<()> {
        let mut held = self.held().await?;
        let mut tx = held.begin().await?;
        let mut c = tx.conn();
        c.run(
            "INSERT INTO alert_rules (id, account_id, asset_id, event_type, position, body) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            args![
                rule.id,
                rule.account_id,
                rule.asset_id,
                rule.event_type.value(),
                rule.order,
                to_json(rule)
            ],
        )
        .await?;
        set_rule_geofences(&mut c, rule).await?;
        tx.commit().await
    }

    async fn update_alert_rule(&self, rule: &AlertRule) -> StoreResult<bool> {
        let mut held = self.held().await?;
        let mut tx = held.begin().await?;
        let mut c = tx.conn();
        let changed = c
            .run(
                "UPDATE alert_rules SET event_type = $1, position = $2, body = $3 \
                 WHERE account_id = $4 AND id = $5",
                args![
                    rule.event_type.value(),
                    rule.order,
                    to_json(rule),
                    rule.account_id,
                    rule.id
                ],
            )
            .await?;
        if changed == 0 {
            return Ok(false);
        }
        set_rule_geofences(&mut c, rule).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn delete_alert_rule(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        let changed = self
            .run(
                "DELETE FROM alert_rules WHERE account_id = $1 AND id = $2",
                args![account, id],
            )
            .await?;
        Ok(changed > 0)
    }

    async fn alert_rule_geofences(
        &self,
        account: Uuid,
        asset: Uuid,
        event_type: EventType,
    ) -> StoreResult<Vec<Geofence>> {
        self.all(
            "SELECT DISTINCT g.* FROM geofences g \
             JOIN alert_rule_geofences rg ON rg.geofence_id = g.id \
             JOIN alert_rules r ON r.id = rg.rule_id \
             WHERE r.account_id = $1 AND r.asset_id = $2 AND r.event_type = $3 \
             ORDER BY g.name, g.id",
            args![account, asset, event_type.value()],
            rows::geofence,
        )
        .await
    }

    async fn insert_ingestion_token(
        &self,
        t: &IngestionTokenRecord,
        token_hash: &str,
        now: DateTime<Utc>,
        limit: i64,
    ) -> StoreResult<bool> {
        // Counting and inserting in one statement is not enough under PostgreSQL's READ
        // COMMITTED: two requests of one issuer could both count 9. The lock on the issuer's
        // account row orders them (SQLite's writer does it by running one at a time).
        let mut writer = self.writer().await?;
        let mut tx = writer.begin().await?;
        let mut c = tx.conn();
        c.opt(
            sql!("SELECT id FROM accounts WHERE id = $1"[for_update]),
            args![t.issued_by],
            rows::id,
        )
        .await?;
        let inserted = c
            .run(
                "INSERT INTO ingestion_tokens (token_hash, account_id, expires_at, id, issued_by, created_at) \
                 SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT COUNT(*) FROM ingestion_tokens \
                     WHERE account_id = $2 AND issued_by = $5 AND expires_at > $7) < $8",
                args![
                    token_hash,
                    t.account_id,
                    t.expires_at,
                    t.id,
                    t.issued_by,
                    t.created_at,
                    now,
                    limit
                ],
            )
            .await?;
        tx.commit().await?;
        Ok(inserted > 0)
    }

    async fn ingestion_tokens(
        &self,
        account: Uuid,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<IngestionTokenRecord>> {
        self.all(
            "SELECT id, account_id, issued_by, created_at, expires_at FROM ingestion_tokens \
             WHERE account_id = $1 AND expires_at > $2 ORDER BY created_at DESC, id",
            args![account, now],
            rows::token,
        )
        .await
    }

    async fn revoke_ingestion_token(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        let changed = self
            .run(
                "DELETE FROM ingestion_tokens WHERE account_id = $1 AND id = $2",
                args![account, id],
            )
            .await?;
        Ok(changed > 0)
    }
}
