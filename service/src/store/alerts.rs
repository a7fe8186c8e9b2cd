//! Storage of the alerting pipeline: telemetry, detector state, events and the notification
//! outbox. One trait beside [`Store`](super::Store), so the pipeline's transaction boundaries are
//! stated in one place for every backend.

use super::StoreResult;
use asset_alerting_detect::{AssetState, Point};
pub use asset_alerting_matching::limits::RateLimit;
use asset_alerting_models::{AlertRule, Asset, Event, EventType, Notification};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The fresh points of one asset in one batch, in timestamp order (no two with one timestamp).
pub struct AssetPoints {
    pub asset: Asset,
    pub points: Vec<Point>,
}

/// What the pipeline makes of an asset's points that were not stored before. It is pure: the store
/// calls it inside the transaction that stores the points, and stores what it returns with them.
pub trait Pipeline: Send + Sync {
    fn run(
        &self,
        asset: &Asset,
        rules: &[AlertRule],
        state: &mut AssetState,
        points: &[Point],
    ) -> Vec<NewEvent>;
}

/// One ingestion request: its points per asset and the pipeline that judges them.
pub struct IngestJob {
    pub batches: Vec<AssetPoints>,
    pub received_at: DateTime<Utc>,
    pub pipeline: Box<dyn Pipeline>,
}

/// An event and the notifications it owes, written in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    pub event: Event,
    pub notifications: Vec<NewNotification>,
}

/// One outbox row.
#[derive(Debug, Clone, PartialEq)]
pub struct NewNotification {
    pub id: Uuid,
    pub rule_id: Option<Uuid>,
    pub webhook_account_id: Option<Uuid>,
    pub target: Target,
    pub due_at: DateTime<Utc>,
}

/// Where and how a notification goes, fixed when the event happens (a later rule change does not
/// redirect a message already owed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub channel: ChannelKind,
    /// E-mail address, E.164 phone number, Telegram chat id or callback URI.
    pub address: String,
    pub culture: String,
    pub time_zone: String,
    pub interactive: bool,
}

/// Where a notification goes: the channel (the provider) and the address on it (e-mail
/// address, phone number, chat id, or a webhook's receiver URL). Deliveries to one
/// destination go one at a time, in order, and a failing one is backed off as a whole.
pub type Destination = (ChannelKind, String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ChannelKind {
    Call,
    Sms,
    Telegram,
    Email,
    Webhook,
}

impl ChannelKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelKind::Call => "call",
            ChannelKind::Sms => "sms",
            ChannelKind::Telegram => "telegram",
            ChannelKind::Email => "email",
            ChannelKind::Webhook => "webhook",
        }
    }

    pub fn parse(s: &str) -> Option<ChannelKind> {
        [
            ChannelKind::Call,
            ChannelKind::Sms,
            ChannelKind::Telegram,
            ChannelKind::Email,
            ChannelKind::Webhook,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// Filters of list events.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    pub asset_id: Option<Uuid>,
    pub event_type: Option<EventType>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
}

/// A notification a dispatcher has claimed (leased) for one delivery attempt.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub id: Uuid,
    /// The claim's token: sends and records of this claim are fenced by it.
    pub lease: Uuid,
    pub account_id: Uuid,
    pub rule_id: Option<Uuid>,
    pub webhook_account_id: Option<Uuid>,
    pub target: Target,
    pub created_at: DateTime<Utc>,
    pub attempts: i64,
    /// The event, with its asset's name; for a digest, every notification it carries.
    pub events: Vec<(Event, String)>,
    pub is_digest: bool,
}

/// What one delivery attempt came to.
#[derive(Debug, Clone, PartialEq)]
pub enum AttemptResult {
    Delivered {
        provider_code: Option<String>,
    },
    /// Try again at `retry_at`.
    Retry {
        provider_code: Option<String>,
        message: String,
        retry_at: DateTime<Utc>,
    },
    /// No further attempt: the provider refused it, or it grew too old.
    Failed {
        provider_code: Option<String>,
        message: String,
    },
    /// The channel is not configured; no attempt reached a provider.
    Skipped {
        reason: String,
    },
}

/// What a dispatcher did with one claimed notification.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// An attempt (or a skip) and the notification's new status.
    Attempt {
        id: Uuid,
        /// The claim it was made under; recorded only while that claim still holds the row.
        lease: Uuid,
        at: DateTime<Utc>,
        result: AttemptResult,
    },
    /// Folded into the recipient's pending digest (created if needed, due at `digest_due`).
    Coalesced {
        claimed: Box<Claimed>,
        digest_due: DateTime<Utc>,
    },
}

/// A claimed notification about to be sent: what [`AlertStore::start_sends`] checks.
#[derive(Debug, Clone)]
pub struct SendCheck {
    pub id: Uuid,
    pub lease: Uuid,
    pub channel: ChannelKind,
    pub address: String,
    /// The recipient's rate limit, when the send counts against it (not for webhooks and digests).
    pub limit: Option<RateLimit>,
}

impl SendCheck {
    pub fn of(claimed: &Claimed, limit: Option<RateLimit>) -> SendCheck {
        SendCheck {
            id: claimed.id,
            lease: claimed.lease,
            channel: claimed.target.channel,
            address: claimed.target.address.clone(),
            limit,
        }
    }
}

/// What a dispatcher may do with a claimed notification right before sending it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendStart {
    /// The lease is confirmed and extended, and the send is counted for the recipient: send now.
    Send,
    /// The recipient's rate limit is reached: fold it into the digest due at `send_at`.
    Coalesce { send_at: DateTime<Utc> },
    /// Another dispatcher holds the notification now, or it is no longer pending
    /// (acknowledged, deleted): leave it alone.
    LeaseLost,
}

/// The newest state of an asset, as the state endpoint and the portal show it.
#[derive(Debug, Clone)]
pub struct StoredState {
    pub asset_id: Uuid,
    pub state: AssetState,
}

#[trait_variant::make(Send)]
pub trait AlertStore: Sync + 'static {
    /// The account an unexpired ingestion token (by its SHA-256) belongs to.
    async fn ingestion_token_account(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Uuid>>;

    /// The assets of `account` with one of `ids` or `external_ids` (deleted ones too).
    async fn assets_by_keys(
        &self,
        account: Uuid,
        ids: &[Uuid],
        external_ids: &[String],
    ) -> StoreResult<Vec<Asset>>;

    /// `(account, callbackUri)` of the account and each ancestor that has a callbackUri.
    async fn webhook_receivers(&self, account: Uuid) -> StoreResult<Vec<(Uuid, String)>>;

    /// Stores the job's points with the events and notifications its pipeline derives from them,
    /// atomically (all of the job or nothing), one job at a time, so two batches of one asset
    /// never interleave. Returns, per asset and point, whether it was new (`false`: a duplicate of
    /// a stored point, which the pipeline does not see).
    async fn ingest(&self, job: IngestJob) -> StoreResult<Vec<Vec<bool>>>;

    async fn asset_states(&self, assets: &[Uuid]) -> StoreResult<Vec<StoredState>>;

    /// Events of the account, newest first.
    async fn list_events(
        &self,
        account: Uuid,
        filter: &EventFilter,
        page: super::Page,
    ) -> StoreResult<Vec<Event>>;
    async fn event(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Event>>;
    /// The newest stream position: a live stream that starts now begins after it.
    async fn event_stream_head(&self) -> StoreResult<i64>;
    /// Up to `limit` events of the account after stream position `after`, in position order,
    /// each with its position (live streams read through this, resumed or not).
    async fn events_after(
        &self,
        account: Uuid,
        filter: &EventFilter,
        after: i64,
        limit: i64,
    ) -> StoreResult<Vec<(i64, Event)>>;
    /// Marks the event acknowledged (unless it is already) and cancels its unsent notifications.
    async fn acknowledge_event(
        &self,
        account: Uuid,
        id: Uuid,
        by: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Event>>;
    async fn event_notifications(&self, event: Uuid) -> StoreResult<Vec<Notification>>;
    /// The event and rule a notification was sent for (for acknowledgement links).
    async fn notification_event(
        &self,
        notification: Uuid,
    ) -> StoreResult<Option<(Event, Option<Uuid>)>>;

    /// Leases up to `limit` due notifications until `lease_until`, at most `per_destination`
    /// of one destination (channel and recipient address), and none of a destination that
    /// has a notification leased now (by any dispatcher): one destination's deliveries go one
    /// at a time, in order. Destinations take turns: every destination's first notification
    /// comes before any destination's second. Returned in delivery order: due first, then as
    /// their events were detected, then as they occurred.
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        per_destination: i64,
        limit: i64,
    ) -> StoreResult<Vec<Claimed>>;
    /// Defers the pending notifications of a destination whose circuit breaker opened to
    /// `until`: those nobody holds, and `released` (the unsent rest of the caller's claim,
    /// leased under `lease`), whose lease it ends.
    async fn postpone_destination(
        &self,
        destination: &Destination,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        released: (Uuid, &[Uuid]),
    ) -> StoreResult<()>;
    /// Right before sends, in one transaction, atomically for all dispatchers, each check in
    /// order: confirms that its notification is still pending under its lease and extends the
    /// lease to `lease_until`; with a limit, decides against the recipient's recorded and
    /// in-flight sends (those started earlier in `checks` included); and marks the send as in
    /// flight. Answers one [`SendStart`] per check, in order.
    async fn start_sends(
        &self,
        checks: &[SendCheck],
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> StoreResult<Vec<SendStart>>;
    /// Records what became of the notifications of one dispatch round, in one transaction, and
    /// releases their leases.
    async fn record_round(&self, outcomes: &[Outcome], now: DateTime<Utc>) -> StoreResult<()>;
    /// When the next pending notification is due (the dispatcher sleeps until then).
    async fn next_due(&self) -> StoreResult<Option<DateTime<Utc>>>;
}
