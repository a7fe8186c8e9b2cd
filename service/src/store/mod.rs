//! Storage. Handlers see the [`Store`] and [`AlertStore`] traits, implemented once for
//! [`Database`] (SQLite or PostgreSQL, whichever `DATABASE_URL` names):
//!
//! - `catalog.rs` ([`Store`]: accounts, assets, geofences, rules, tokens, settings) and
//!   `alerting.rs` ([`AlertStore`]: states, events, the outbox's bookkeeping) hold every
//!   statement once;
//! - `sql.rs` is the dialect layer: placeholders, how ids, instants and lists are bound and
//!   read, the few spellings that differ; `rows.rs` has one row mapper per entity;
//! - `sqlite/` and `postgres/` keep what really differs: the connections, SQLite's group-commit
//!   writer and request-path readers, PostgreSQL's advisory locks, claims and start-up lock, and
//!   each one's bulk insert of telemetry.
//!
//! Stores speak the generated API types (`Asset`, `Geofence`, `AlertRule`, `Event`,
//! `Notification`), plus records of their own only where the stored shape is not the API's
//! ([`AccountRecord`] keeps the secret's hash; [`IngestionTokenRecord`] has no secret). A field
//! added to the spec then touches the spec, the regenerated models, and here the row mapper and
//! the statements that write it: domain types of the store's own would add the type and a
//! conversion each way to every such change, and the API layer would convert on every request.

mod alerting;
pub mod alerts;
mod catalog;
mod database;
mod encoding;
pub mod postgres;
mod rows;
pub(crate) mod sql;
pub mod sqlite;
mod telemetry;

pub use database::{Database, is_postgres, redacted};

pub use alerts::AlertStore;

use asset_alerting_models::{AlertRule, Asset, EventType, Geofence};
use chrono::{DateTime, Utc};
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A uniqueness rule of the data (e.g. one live asset per externalId) would be broken.
    #[error("{0}")]
    Conflict(String),
    /// A value the database cannot hold (PostgreSQL text cannot contain NUL characters).
    #[error("{0}")]
    Invalid(String),
    #[error("database error: {0}")]
    Database(sqlx::Error),
    /// From the SQLite connections that read on the request path (not through sqlx).
    #[error("database error: {0}")]
    Embedded(rusqlite::Error),
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
    /// A shared transaction failed (the cause is logged once, by the one that ran it).
    #[error("the transaction failed: {0}")]
    Failed(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            // character_not_in_repertoire: PostgreSQL's answer to a NUL in text.
            sqlx::Error::Database(d) if d.code().as_deref() == Some("22021") => {
                StoreError::Invalid("text must not contain NUL characters".to_owned())
            }
            _ => StoreError::Database(e),
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// An embedded migration of either backend (plain SQL, run in a transaction).
fn migration(
    version: i64,
    description: &'static str,
    sql: &'static str,
) -> sqlx::migrate::Migration {
    use sqlx::SqlSafeStr;
    sqlx::migrate::Migration::new(
        version,
        description.into(),
        sqlx::migrate::MigrationType::Simple,
        sql.into_sql_str(),
        false,
    )
}

/// Instants are stored to the microsecond; values compared with stored ones are cut to the same.
pub fn micros(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(t.timestamp_micros()).unwrap_or(t)
}

/// An account as stored, with the hash of its client secret.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountRecord {
    pub id: Uuid,
    pub parent_id: Option<Uuid>,
    pub name: String,
    pub friendly_name: Option<String>,
    pub culture: Option<String>,
    pub technical_email_address: Option<String>,
    pub callback_uri: Option<String>,
    pub secret_hash: String,
    pub created_at: DateTime<Utc>,
}

/// An ingestion token as stored, without its secret (only its hash is kept).
#[derive(Debug, Clone, PartialEq)]
pub struct IngestionTokenRecord {
    pub id: Uuid,
    pub account_id: Uuid,
    /// The account whose caller requested it: the account itself or an ancestor.
    pub issued_by: Uuid,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// What deleting a geofence did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeofenceDeletion {
    Deleted,
    NotFound,
    /// Alert rules still reference it; nothing was deleted.
    Referenced(i64),
}

/// Which assets list assets shows (each `Some` is an exact match).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AssetFilter<'a> {
    pub external_id: Option<&'a str>,
    pub device_id: Option<&'a str>,
    pub include_deleted: bool,
}

/// One page of a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    pub skip: i64,
    pub take: i64,
}

#[trait_variant::make(Send)]
pub trait Store: Sync + 'static {
    /// A service-wide value such as a signing key.
    async fn setting(&self, key: &str) -> StoreResult<Option<String>>;
    /// Stores `value` under `key` unless a value is there; returns the value that is stored.
    async fn setting_or_insert(&self, key: &str, value: &str) -> StoreResult<String>;
    async fn delete_setting(&self, key: &str) -> StoreResult<()>;

    async fn account_count(&self) -> StoreResult<i64>;
    async fn insert_account(&self, account: &AccountRecord) -> StoreResult<()>;
    async fn account(&self, id: Uuid) -> StoreResult<Option<AccountRecord>>;
    /// Whether `account` is `ancestor` or one of its descendants.
    async fn is_within(&self, ancestor: Uuid, account: Uuid) -> StoreResult<bool>;
    /// Replaces the account's name, friendly name, culture, e-mail address and callback URI;
    /// `false` when it does not exist.
    async fn update_account(&self, account: &AccountRecord) -> StoreResult<bool>;
    /// One page of the account's direct children, by name, then id.
    async fn child_accounts(&self, parent: Uuid, page: Page) -> StoreResult<Vec<AccountRecord>>;
    /// Deletes the account, every descendant and all their data, in one transaction; `false`
    /// when it does not exist.
    async fn delete_account_tree(&self, id: Uuid) -> StoreResult<bool>;
    /// Replaces the hash of the account's client secret; `false` when it does not exist.
    async fn set_secret_hash(&self, id: Uuid, secret_hash: &str) -> StoreResult<bool>;

    /// A page of the account's assets in externalId order, empty unless `account` is within
    /// `ancestor` (checked in the same read).
    async fn list_assets_within(
        &self,
        ancestor: Uuid,
        account: Uuid,
        filter: AssetFilter<'_>,
        page: Page,
    ) -> StoreResult<Vec<Asset>>;
    async fn asset(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Asset>>;
    /// The live assets whose trackers report as one of `device_ids`, of any account.
    async fn assets_of_devices(&self, device_ids: &[String]) -> StoreResult<Vec<Asset>>;
    /// [`Store::is_within`] and [`Store::asset`] in one read: `None` when `account` is not within
    /// `ancestor`, else the asset if there is one.
    async fn asset_within(
        &self,
        ancestor: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> StoreResult<Option<Option<Asset>>>;
    /// One page of the account's live assets whose externalId or name contains `text` (ignoring
    /// the case of ASCII letters; every live asset when `None`), in list order, and how many
    /// match in all.
    async fn search_assets(
        &self,
        account: Uuid,
        text: Option<&str>,
        page: Page,
    ) -> StoreResult<(Vec<Asset>, i64)>;
    /// Fails with `Conflict` when a live asset of the account has the same externalId, or a live
    /// asset of any account the same deviceId.
    async fn insert_asset(&self, asset: &Asset) -> StoreResult<()>;
    /// Replaces the asset's fields (not its deleted flag); `false` when it does not exist.
    async fn update_asset(&self, asset: &Asset) -> StoreResult<bool>;
    /// Marks the asset deleted; `false` when it does not exist.
    async fn soft_delete_asset(&self, account: Uuid, id: Uuid) -> StoreResult<bool>;

    async fn list_geofences(&self, account: Uuid) -> StoreResult<Vec<Geofence>>;
    async fn geofence(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Geofence>>;
    /// Of `ids`, those that are geofences of `account`.
    async fn existing_geofences(&self, account: Uuid, ids: &[Uuid]) -> StoreResult<Vec<Uuid>>;
    async fn insert_geofence(&self, geofence: &Geofence) -> StoreResult<()>;
    async fn update_geofence(&self, geofence: &Geofence) -> StoreResult<bool>;
    async fn delete_geofence(&self, account: Uuid, id: Uuid) -> StoreResult<GeofenceDeletion>;

    async fn list_alert_rules(
        &self,
        account: Uuid,
        asset: Uuid,
        event_type: EventType,
    ) -> StoreResult<Vec<AlertRule>>;
    async fn alert_rule(&self, account: Uuid, id: Uuid) -> StoreResult<Option<AlertRule>>;
    async fn insert_alert_rule(&self, rule: &AlertRule) -> StoreResult<()>;
    async fn update_alert_rule(&self, rule: &AlertRule) -> StoreResult<bool>;
    async fn delete_alert_rule(&self, account: Uuid, id: Uuid) -> StoreResult<bool>;
    /// The distinct geofences referenced by the asset's rules of one event type, by name then id.
    async fn alert_rule_geofences(
        &self,
        account: Uuid,
        asset: Uuid,
        event_type: EventType,
    ) -> StoreResult<Vec<Geofence>>;

    /// Stores an ingestion token and its hash unless its issuer already holds `limit` unexpired
    /// tokens of the account.
    async fn insert_ingestion_token(
        &self,
        token: &IngestionTokenRecord,
        token_hash: &str,
        now: DateTime<Utc>,
        limit: i64,
    ) -> StoreResult<bool>;
    /// The account's unexpired ingestion tokens, newest first.
    async fn ingestion_tokens(
        &self,
        account: Uuid,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<IngestionTokenRecord>>;
    /// Deletes one of the account's ingestion tokens; `false` when there is no such token.
    async fn revoke_ingestion_token(&self, account: Uuid, id: Uuid) -> StoreResult<bool>;
}
