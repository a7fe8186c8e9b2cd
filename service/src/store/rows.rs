//! One row mapper per entity, for the rows of either backend (and of SQLite's request-path
//! readers): each reads its columns by name through [`Columns`].

use super::encoding::{channel_model, json, parse_channel, parse_outcome, parse_status};
use super::sql::Columns;
use super::{AccountRecord, IngestionTokenRecord, StoreError, StoreResult};
use asset_alerting_models::{
    AlertRule, Asset, AssetTier, DeliveryAttempt, Event, EventType, Geofence, Notification,
    Position,
};
use uuid::Uuid;

fn small(r: &dyn Columns, column: &'static str) -> StoreResult<i32> {
    let v = r.int(column)?;
    i32::try_from(v).map_err(|e| StoreError::Corrupt(format!("{column} {v}: {e}")))
}

pub fn account(r: &dyn Columns) -> StoreResult<AccountRecord> {
    Ok(AccountRecord {
        id: r.id("id")?,
        parent_id: r.opt_id("parent_id")?,
        name: r.text("name")?,
        friendly_name: r.opt_text("friendly_name")?,
        culture: r.opt_text("culture")?,
        technical_email_address: r.opt_text("technical_email_address")?,
        callback_uri: r.opt_text("callback_uri")?,
        secret_hash: r.text("secret_hash")?,
        created_at: r.time("created_at")?,
    })
}

pub fn asset(r: &dyn Columns) -> StoreResult<Asset> {
    Ok(Asset {
        id: r.id("id")?,
        account_id: r.id("account_id")?,
        external_id: r.text("external_id")?,
        device_id: r.opt_text("device_id")?,
        name: r.text("name")?,
        tier: AssetTier::try_from(small(r, "tier")?).map_err(StoreError::Corrupt)?,
        disabled_events: json(r.str("disabled_events")?)?,
        telemetry_rules: r.opt_str("telemetry_rules")?.map(json).transpose()?,
        is_deleted: Some(r.flag("is_deleted")?),
    })
}

pub fn geofence(r: &dyn Columns) -> StoreResult<Geofence> {
    Ok(Geofence {
        id: r.id("id")?,
        account_id: r.id("account_id")?,
        external_id: r.text("external_id")?,
        name: r.text("name")?,
        polygon: json(r.str("polygon")?)?,
    })
}

/// A rule is stored whole, as its JSON `body`.
pub fn rule(r: &dyn Columns) -> StoreResult<AlertRule> {
    json(r.str("body")?)
}

pub fn token(r: &dyn Columns) -> StoreResult<IngestionTokenRecord> {
    Ok(IngestionTokenRecord {
        id: r.id("id")?,
        account_id: r.id("account_id")?,
        issued_by: r.id("issued_by")?,
        created_at: r.time("created_at")?,
        expires_at: r.time("expires_at")?,
    })
}

pub fn event(r: &dyn Columns) -> StoreResult<Event> {
    let (latitude, longitude) = (r.opt_float("latitude")?, r.opt_float("longitude")?);
    Ok(Event {
        id: r.id("id")?,
        account_id: r.id("account_id")?,
        asset_id: r.id("asset_id")?,
        event_type: EventType::try_from(small(r, "event_type")?).map_err(StoreError::Corrupt)?,
        occurred_at: r.time("occurred_at")?,
        detected_at: r.time("detected_at")?,
        position: latitude
            .zip(longitude)
            .map(|(latitude, longitude)| Position {
                latitude,
                longitude,
            }),
        details: json(r.str("details")?)?,
        notifications_suppressed: r.flag("notifications_suppressed")?,
        acknowledged_at: r.opt_time("acknowledged_at")?,
        acknowledged_by: r.opt_text("acknowledged_by")?,
    })
}

/// A notification, without its attempts (read apart).
pub fn notification(r: &dyn Columns) -> StoreResult<Notification> {
    Ok(Notification {
        id: r.id("id")?,
        event_id: r.id("event_id")?,
        alert_rule_id: r.opt_id("rule_id")?,
        webhook_account_id: r.opt_id("webhook_account_id")?,
        channel: channel_model(parse_channel(r.str("channel")?)?),
        recipient: r.text("recipient")?,
        status: parse_status(r.str("status")?)?,
        reason: r.opt_text("reason")?,
        created_at: r.time("created_at")?,
        due_at: r.time("due_at")?,
        sent_at: r.opt_time("sent_at")?,
        digest_id: r.opt_id("digest_id")?,
        attempts: Vec::new(),
    })
}

/// A delivery attempt and the notification it belongs to.
pub fn attempt(r: &dyn Columns) -> StoreResult<(Uuid, DeliveryAttempt)> {
    Ok((
        r.id("notification_id")?,
        DeliveryAttempt {
            at: r.time("at")?,
            outcome: parse_outcome(r.str("outcome")?)?,
            provider_code: r.opt_text("provider_code")?,
            message: r.opt_text("message")?,
        },
    ))
}

pub fn id(r: &dyn Columns) -> StoreResult<Uuid> {
    r.id("id")
}

pub fn count(r: &dyn Columns) -> StoreResult<i64> {
    r.int("n")
}
