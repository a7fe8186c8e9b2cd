//! Encodings both backends share: how readings, statuses, channels and outcomes are written as text.

use super::alerts::ChannelKind;
use super::{StoreError, StoreResult};
use asset_alerting_detect::Point;
use asset_alerting_models::{DeliveryAttemptOutcome, NotificationChannel, NotificationStatus};

pub(crate) fn json<T: serde::de::DeserializeOwned>(s: &str) -> StoreResult<T> {
    serde_json::from_str(s).map_err(|e| StoreError::Corrupt(format!("json: {e}")))
}

pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("models always serialize")
}

/// A point's readings as stored in telemetry history: a JSON array in a fixed order (see
/// migration 0003; `[altitude, satellites]` came after, as a fifth element), a third of the
/// size of the named object, since every batch writes thousands.
pub(crate) fn readings(p: &Point) -> String {
    let s = &p.signals;
    let flags = [
        s.alarm,
        s.tampering,
        s.jamming,
        s.accident,
        s.hard_cornering,
        s.lockdown_violation,
        s.left_behind,
        s.power_disconnected,
    ];
    let (mut present, mut set) = (0u8, 0u8);
    for (bit, flag) in flags.iter().enumerate() {
        if let Some(on) = flag {
            present |= 1 << bit;
            set |= u8::from(*on) << bit;
        }
    }
    to_json(&(
        (p.latitude, p.longitude, p.speed, p.heading, p.ignition),
        (p.input_voltage, p.battery_voltage, p.battery_percentage),
        (
            p.fuel_level,
            p.ad_blue_level,
            p.temperature,
            p.pressure,
            p.engine_speed,
        ),
        (present, set),
        (p.altitude, p.satellites),
    ))
}

pub(crate) fn status_str(status: NotificationStatus) -> &'static str {
    match status {
        NotificationStatus::Pending => "pending",
        NotificationStatus::Sent => "sent",
        NotificationStatus::Failed => "failed",
        NotificationStatus::Skipped => "skipped",
        NotificationStatus::Coalesced => "coalesced",
        NotificationStatus::Cancelled => "cancelled",
    }
}

pub(crate) fn parse_status(s: &str) -> StoreResult<NotificationStatus> {
    [
        NotificationStatus::Pending,
        NotificationStatus::Sent,
        NotificationStatus::Failed,
        NotificationStatus::Skipped,
        NotificationStatus::Coalesced,
        NotificationStatus::Cancelled,
    ]
    .into_iter()
    .find(|v| status_str(*v) == s)
    .ok_or_else(|| StoreError::Corrupt(format!("notification status {s}")))
}

pub(crate) fn channel_model(kind: ChannelKind) -> NotificationChannel {
    match kind {
        ChannelKind::Call => NotificationChannel::Call,
        ChannelKind::Sms => NotificationChannel::Sms,
        ChannelKind::Telegram => NotificationChannel::Telegram,
        ChannelKind::Email => NotificationChannel::Email,
        ChannelKind::Webhook => NotificationChannel::Webhook,
    }
}

pub(crate) fn parse_channel(s: &str) -> StoreResult<ChannelKind> {
    ChannelKind::parse(s).ok_or_else(|| StoreError::Corrupt(format!("channel {s}")))
}

pub(crate) fn outcome_str(outcome: DeliveryAttemptOutcome) -> &'static str {
    match outcome {
        DeliveryAttemptOutcome::Delivered => "delivered",
        DeliveryAttemptOutcome::RetryableFailure => "retryableFailure",
        DeliveryAttemptOutcome::PermanentFailure => "permanentFailure",
    }
}

pub(crate) fn parse_outcome(s: &str) -> StoreResult<DeliveryAttemptOutcome> {
    [
        DeliveryAttemptOutcome::Delivered,
        DeliveryAttemptOutcome::RetryableFailure,
        DeliveryAttemptOutcome::PermanentFailure,
    ]
    .into_iter()
    .find(|v| outcome_str(*v) == s)
    .ok_or_else(|| StoreError::Corrupt(format!("attempt outcome {s}")))
}
