//! The store the service runs on, chosen by `DATABASE_URL`: SQLite (embedded, the default) or
//! PostgreSQL (`postgres://...`, shared by several instances). Handlers see one type; each call
//! goes to the backend in use.

use super::alerts::{
    AlertStore, Claimed, Destination, EventFilter, IngestJob, Outcome, SendCheck, SendStart,
    StoredState,
};
use super::postgres::{PgSettings, PgStore, StartupLock};
use super::sqlite::SqliteStore;
use super::{AccountRecord, GeofenceDeletion, IngestionTokenRecord, Page, Store, StoreResult};
use asset_alerting_models::{AlertRule, Asset, Event, EventType, Geofence, Notification};
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(Clone)]
pub enum Database {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

/// Whether `url` names a PostgreSQL database.
pub fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// `url` without its password, for logs.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.rsplit_once('@') {
        Some((credentials, host)) => {
            let user = credentials.split(':').next().unwrap_or_default();
            let hidden = if credentials.contains(':') {
                ":***"
            } else {
                ""
            };
            format!("{scheme}://{user}{hidden}@{host}")
        }
        None => url.to_owned(),
    }
}

macro_rules! dispatch {
    ($self:ident, $method:ident ( $($arg:expr),* )) => {
        match $self {
            Database::Sqlite(store) => store.$method($($arg),*).await,
            Database::Postgres(store) => store.$method($($arg),*).await,
        }
    };
}

impl Database {
    /// Opens the database `url` names and brings its schema up to date.
    pub async fn open(url: &str, postgres: &PgSettings) -> anyhow::Result<Database> {
        Ok(if is_postgres(url) {
            Database::Postgres(PgStore::open(url, postgres).await?)
        } else {
            Database::Sqlite(SqliteStore::open(url).await?)
        })
    }

    pub async fn close(&self) {
        dispatch!(self, close())
    }

    /// Held across first-start work, so that instances starting at once do it once. SQLite has
    /// one process: nothing to hold.
    pub async fn startup_lock(&self) -> StoreResult<Option<StartupLock>> {
        match self {
            Database::Sqlite(_) => Ok(None),
            Database::Postgres(store) => store.startup_lock().await.map(Some),
        }
    }

    /// The database answers (for `/healthz`).
    pub async fn ping(&self) -> StoreResult<()> {
        match self {
            Database::Sqlite(store) => store.account_count().await.map(|_| ()),
            Database::Postgres(store) => store.ping().await,
        }
    }

    pub fn backend(&self) -> &'static str {
        match self {
            Database::Sqlite(_) => "sqlite",
            Database::Postgres(_) => "postgres",
        }
    }
}

impl Store for Database {
    async fn setting(&self, key: &str) -> StoreResult<Option<String>> {
        dispatch!(self, setting(key))
    }

    async fn setting_or_insert(&self, key: &str, value: &str) -> StoreResult<String> {
        dispatch!(self, setting_or_insert(key, value))
    }

    async fn delete_setting(&self, key: &str) -> StoreResult<()> {
        dispatch!(self, delete_setting(key))
    }

    async fn account_count(&self) -> StoreResult<i64> {
        dispatch!(self, account_count())
    }

    async fn insert_account(&self, account: &AccountRecord) -> StoreResult<()> {
        dispatch!(self, insert_account(account))
    }

    async fn account(&self, id: Uuid) -> StoreResult<Option<AccountRecord>> {
        dispatch!(self, account(id))
    }

    async fn is_within(&self, ancestor: Uuid, account: Uuid) -> StoreResult<bool> {
        dispatch!(self, is_within(ancestor, account))
    }

    async fn update_account(&self, account: &AccountRecord) -> StoreResult<bool> {
        dispatch!(self, update_account(account))
    }

    async fn child_accounts(&self, parent: Uuid, page: Page) -> StoreResult<Vec<AccountRecord>> {
        dispatch!(self, child_accounts(parent, page))
    }

    async fn delete_account_tree(&self, id: Uuid) -> StoreResult<bool> {
        dispatch!(self, delete_account_tree(id))
    }

    async fn set_secret_hash(&self, id: Uuid, secret_hash: &str) -> StoreResult<bool> {
        dispatch!(self, set_secret_hash(id, secret_hash))
    }

    async fn list_assets_within(
        &self,
        ancestor: Uuid,
        account: Uuid,
        external_id: Option<&str>,
        include_deleted: bool,
        page: Page,
    ) -> StoreResult<Vec<Asset>> {
        dispatch!(
            self,
            list_assets_within(ancestor, account, external_id, include_deleted, page)
        )
    }

    async fn asset(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Asset>> {
        dispatch!(self, asset(account, id))
    }

    async fn asset_within(
        &self,
        ancestor: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> StoreResult<Option<Option<Asset>>> {
        dispatch!(self, asset_within(ancestor, account, id))
    }

    async fn search_assets(
        &self,
        account: Uuid,
        text: Option<&str>,
        page: Page,
    ) -> StoreResult<(Vec<Asset>, i64)> {
        dispatch!(self, search_assets(account, text, page))
    }

    async fn insert_asset(&self, asset: &Asset) -> StoreResult<()> {
        dispatch!(self, insert_asset(asset))
    }

    async fn update_asset(&self, asset: &Asset) -> StoreResult<bool> {
        dispatch!(self, update_asset(asset))
    }

    async fn soft_delete_asset(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        dispatch!(self, soft_delete_asset(account, id))
    }

    async fn list_geofences(&self, account: Uuid) -> StoreResult<Vec<Geofence>> {
        dispatch!(self, list_geofences(account))
    }

    async fn geofence(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Geofence>> {
        dispatch!(self, geofence(account, id))
    }

    async fn existing_geofences(&self, account: Uuid, ids: &[Uuid]) -> StoreResult<Vec<Uuid>> {
        dispatch!(self, existing_geofences(account, ids))
    }

    async fn insert_geofence(&self, geofence: &Geofence) -> StoreResult<()> {
        dispatch!(self, insert_geofence(geofence))
    }

    async fn update_geofence(&self, geofence: &Geofence) -> StoreResult<bool> {
        dispatch!(self, update_geofence(geofence))
    }

    async fn delete_geofence(&self, account: Uuid, id: Uuid) -> StoreResult<GeofenceDeletion> {
        dispatch!(self, delete_geofence(account, id))
    }

    async fn list_alert_rules(
        &self,
        account: Uuid,
        asset: Uuid,
        event_type: EventType,
    ) -> StoreResult<Vec<AlertRule>> {
        dispatch!(self, list_alert_rules(account, asset, event_type))
    }

    async fn alert_rule(&self, account: Uuid, id: Uuid) -> StoreResult<Option<AlertRule>> {
        dispatch!(self, alert_rule(account, id))
    }

    async fn insert_alert_rule(&self, rule: &AlertRule) -> StoreResult<()> {
        dispatch!(self, insert_alert_rule(rule))
    }

    async fn update_alert_rule(&self, rule: &AlertRule) -> StoreResult<bool> {
        dispatch!(self, update_alert_rule(rule))
    }

    async fn delete_alert_rule(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        dispatch!(self, delete_alert_rule(account, id))
    }

    async fn alert_rule_geofences(
        &self,
        account: Uuid,
        asset: Uuid,
        event_type: EventType,
    ) -> StoreResult<Vec<Geofence>> {
        dispatch!(self, alert_rule_geofences(account, asset, event_type))
    }

    async fn insert_ingestion_token(
        &self,
        token: &IngestionTokenRecord,
        token_hash: &str,
        now: DateTime<Utc>,
        limit: i64,
    ) -> StoreResult<bool> {
        dispatch!(self, insert_ingestion_token(token, token_hash, now, limit))
    }

    async fn ingestion_tokens(
        &self,
        account: Uuid,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<IngestionTokenRecord>> {
        dispatch!(self, ingestion_tokens(account, now))
    }

    async fn revoke_ingestion_token(&self, account: Uuid, id: Uuid) -> StoreResult<bool> {
        dispatch!(self, revoke_ingestion_token(account, id))
    }
}

impl AlertStore for Database {
    async fn ingestion_token_account(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Uuid>> {
        dispatch!(self, ingestion_token_account(token_hash, now))
    }

    async fn assets_by_keys(
        &self,
        account: Uuid,
        ids: &[Uuid],
        external_ids: &[String],
    ) -> StoreResult<Vec<Asset>> {
        dispatch!(self, assets_by_keys(account, ids, external_ids))
    }

    async fn webhook_receivers(&self, account: Uuid) -> StoreResult<Vec<(Uuid, String)>> {
        dispatch!(self, webhook_receivers(account))
    }

    async fn ingest(&self, job: IngestJob) -> StoreResult<Vec<Vec<bool>>> {
        dispatch!(self, ingest(job))
    }

    async fn asset_states(&self, assets: &[Uuid]) -> StoreResult<Vec<StoredState>> {
        dispatch!(self, asset_states(assets))
    }

    async fn list_events(
        &self,
        account: Uuid,
        filter: &EventFilter,
        page: super::Page,
    ) -> StoreResult<Vec<Event>> {
        dispatch!(self, list_events(account, filter, page))
    }

    async fn event(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Event>> {
        dispatch!(self, event(account, id))
    }

    async fn acknowledge_event(
        &self,
        account: Uuid,
        id: Uuid,
        by: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Event>> {
        dispatch!(self, acknowledge_event(account, id, by, now))
    }

    async fn event_notifications(&self, event: Uuid) -> StoreResult<Vec<Notification>> {
        dispatch!(self, event_notifications(event))
    }

    async fn notification_event(
        &self,
        notification: Uuid,
    ) -> StoreResult<Option<(Event, Option<Uuid>)>> {
        dispatch!(self, notification_event(notification))
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        per_destination: i64,
        limit: i64,
    ) -> StoreResult<Vec<Claimed>> {
        dispatch!(self, claim_due(now, lease_until, per_destination, limit))
    }

    async fn postpone_destination(
        &self,
        destination: &Destination,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        released: (Uuid, &[Uuid]),
    ) -> StoreResult<()> {
        dispatch!(
            self,
            postpone_destination(destination, until, now, released)
        )
    }

    async fn start_sends(
        &self,
        checks: &[SendCheck],
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> StoreResult<Vec<SendStart>> {
        dispatch!(self, start_sends(checks, now, lease_until))
    }

    async fn record_round(&self, outcomes: &[Outcome], now: DateTime<Utc>) -> StoreResult<()> {
        dispatch!(self, record_round(outcomes, now))
    }

    async fn next_due(&self) -> StoreResult<Option<DateTime<Utc>>> {
        dispatch!(self, next_due())
    }
}

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn passwords_stay_out_of_logs() {
        assert_eq!(
            redacted("postgres://alert:s3cr@t@db:5432/alerting"),
            "postgres://alert:***@db:5432/alerting"
        );
        assert_eq!(
            redacted("postgres://alert@db/alerting"),
            "postgres://alert@db/alerting"
        );
        assert_eq!(redacted("sqlite://data/a.db"), "sqlite://data/a.db");
    }
}
