//! Telemetry in, events out: ingestion, asset state, events, acknowledgement and notifications.

use super::{ApiResult, Service, found};
use crate::auth::LinkSigner;
use crate::auth::sha256_hex;
use crate::pipeline::{EventPipeline, zone};
use crate::store::alerts::{AlertStore, AssetPoints, EventFilter, IngestJob, StoredState};
use crate::store::{Page, Store, micros};
use asset_alerting_channels::UrlPolicy;
use asset_alerting_detect::{Detector, Point, Signals};
use asset_alerting_models::*;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Notify;
use uuid::Uuid;

/// How long an acknowledgement link in an interactive message stays valid.
pub const ACK_LINK_LIFETIME: chrono::Duration = chrono::Duration::hours(24);

/// What the alerting part of the service needs besides the store.
pub struct Alerting {
    pub detector: Arc<Detector>,
    /// Woken when notifications were written, so the dispatcher need not poll for them.
    pub dispatch_wake: Arc<Notify>,
    /// Derives each account's webhook signing secret.
    pub webhook_key: Vec<u8>,
    pub ack_signer: LinkSigner,
    pub callback_policy: UrlPolicy,
    /// Woken when events may have been stored, for the live event streams.
    pub live: Arc<crate::live::LiveEvents>,
}

impl Alerting {
    pub fn check_callback_uri(&self, uri: &str) -> Result<(), String> {
        asset_alerting_channels::validate_callback_uri(uri, &self.callback_policy).map(|_| ())
    }

    /// The key signing webhooks to `account`: an HMAC of the account id under the service key,
    /// so nothing secret is stored per account and every instance derives the same one.
    pub fn webhook_key(&self, account: Uuid) -> Vec<u8> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.webhook_key)
            .expect("HMAC takes keys of any length");
        mac.update(account.as_bytes());
        mac.finalize().into_bytes().to_vec()
    }

    /// The key as shown to the account: `whsec_<base64>` (Standard Webhooks).
    pub fn webhook_secret(&self, account: Uuid) -> String {
        asset_alerting_channels::format_secret(&self.webhook_key(account))
    }
}

/// A point's range problem, naming the field (the schema checks types; ranges are per point so one
/// bad point does not reject its batch).
fn range_problem(p: &TelemetryPoint) -> Option<String> {
    let checks: [(&str, Option<f64>, f64, f64); 14] = [
        ("latitude", p.latitude, -90.0, 90.0),
        ("longitude", p.longitude, -180.0, 180.0),
        ("speed", p.speed, 0.0, f64::MAX),
        ("heading", p.heading, 0.0, 360.0),
        ("altitude", p.altitude, f64::MIN, f64::MAX),
        ("satellites", p.satellites.map(|n| n as f64), 0.0, f64::MAX),
        ("inputVoltage", p.input_voltage, 0.0, f64::MAX),
        ("batteryVoltage", p.battery_voltage, 0.0, f64::MAX),
        ("batteryPercentage", p.battery_percentage, 0.0, 100.0),
        ("fuelLevel", p.fuel_level, 0.0, 100.0),
        ("adBlueLevel", p.ad_blue_level, 0.0, 100.0),
        ("temperature", p.temperature, f64::MIN, f64::MAX),
        ("pressure", p.pressure, f64::MIN, f64::MAX),
        ("engineSpeed", p.engine_speed, 0.0, f64::MAX),
    ];
    for (name, value, min, max) in checks {
        if let Some(v) = value
            && !(v.is_finite() && v >= min && v <= max)
        {
            return Some(if max == f64::MAX && min == 0.0 {
                format!("{name} must be a number of at least 0, got {v}")
            } else if min == f64::MIN {
                format!("{name} must be a finite number, got {v}")
            } else {
                format!("{name} must lie within {min}..{max}, got {v}")
            });
        }
    }
    if p.latitude.is_some() != p.longitude.is_some() {
        return Some("latitude and longitude come together or not at all".to_owned());
    }
    match (&p.asset_id, &p.external_id) {
        (None, None) => Some("name the asset by assetId or externalId".to_owned()),
        (Some(_), Some(_)) => Some("name the asset by assetId or externalId, not both".to_owned()),
        _ => None,
    }
}

/// Why a point's timestamp is refused when it arrives at `received_at`: older than the detector's
/// cutoff, or further in the future than its allowed skew; the message names the setting's value.
fn timestamp_problem(
    timestamp: DateTime<Utc>,
    received_at: DateTime<Utc>,
    config: &asset_alerting_detect::Config,
) -> Option<(PointResultReason, String)> {
    if timestamp < received_at - config.cutoff {
        Some((
            PointResultReason::TooOld,
            format!(
                "timestamp {timestamp} is older than the cutoff of {}",
                span(config.cutoff)
            ),
        ))
    } else if timestamp > received_at + config.future_skew {
        Some((
            PointResultReason::InFuture,
            format!(
                "timestamp {timestamp} is more than {} in the future",
                span(config.future_skew)
            ),
        ))
    } else {
        None
    }
}

/// A span of time as a message says it: in the largest unit that measures it exactly ("7 days",
/// "5 minutes", "90 seconds").
fn span(d: chrono::Duration) -> String {
    let seconds = d.num_seconds();
    let units = [
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ];
    let (size, unit) = units
        .into_iter()
        .find(|(size, _)| seconds % size == 0)
        .unwrap_or((1, "second"));
    let n = seconds / size;
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

fn detector_point(p: &TelemetryPoint) -> Point {
    let flag = |f: fn(&DeviceSignals) -> Option<bool>| p.signals.as_ref().and_then(f);
    Point {
        timestamp: micros(p.timestamp),
        latitude: p.latitude,
        longitude: p.longitude,
        speed: p.speed,
        heading: p.heading,
        altitude: p.altitude,
        // Checked at least 0 before.
        satellites: p.satellites.and_then(|n| u32::try_from(n).ok()),
        ignition: p.ignition,
        input_voltage: p.input_voltage,
        battery_voltage: p.battery_voltage,
        battery_percentage: p.battery_percentage,
        fuel_level: p.fuel_level,
        ad_blue_level: p.ad_blue_level,
        temperature: p.temperature,
        pressure: p.pressure,
        engine_speed: p.engine_speed,
        signals: Signals {
            alarm: flag(|s| s.alarm),
            tampering: flag(|s| s.tampering),
            jamming: flag(|s| s.jamming),
            accident: flag(|s| s.accident),
            hard_cornering: flag(|s| s.hard_cornering),
            lockdown_violation: flag(|s| s.lockdown_violation),
            left_behind: flag(|s| s.left_behind),
            power_disconnected: flag(|s| s.power_disconnected),
        },
    }
}

fn rejected(index: usize, reason: PointResultReason, message: String) -> PointResult {
    PointResult {
        index: index as i64,
        status: PointResultStatus::Rejected,
        asset_id: None,
        reason: Some(reason),
        message: Some(message),
    }
}

/// How a point names its asset.
#[derive(Clone, PartialEq, Eq, Hash)]
enum AssetKey {
    Id(Uuid),
    External(String),
}

/// The state endpoint's view of the detector's state.
pub fn state_view(asset: Uuid, stored: Option<&StoredState>) -> AssetState {
    let Some(stored) = stored else {
        return AssetState {
            asset_id: asset,
            last_report_at: None,
            position: None,
            speed: None,
            heading: None,
            altitude: None,
            satellites: None,
            ignition: None,
            input_voltage: None,
            battery_voltage: None,
            battery_percentage: None,
            fuel_level: None,
            ad_blue_level: None,
            temperature: None,
            pressure: None,
            engine_speed: None,
            country: None,
            inside_geofences: Vec::new(),
            open_episodes: Vec::new(),
        };
    };
    let s = &stored.state;
    let last = s.last_point();
    let reading = |f: fn(&Point) -> Option<f64>| last.and_then(f);
    AssetState {
        asset_id: asset,
        last_report_at: s.last_timestamp(),
        position: last.and_then(|p| {
            p.latitude
                .zip(p.longitude)
                .map(|(latitude, longitude)| Position {
                    latitude,
                    longitude,
                })
        }),
        speed: reading(|p| p.speed),
        heading: reading(|p| p.heading),
        altitude: reading(|p| p.altitude),
        satellites: last.and_then(|p| p.satellites).map(i64::from),
        ignition: last.and_then(|p| p.ignition),
        input_voltage: reading(|p| p.input_voltage),
        battery_voltage: reading(|p| p.battery_voltage),
        battery_percentage: reading(|p| p.battery_percentage),
        fuel_level: reading(|p| p.fuel_level),
        ad_blue_level: reading(|p| p.ad_blue_level),
        temperature: reading(|p| p.temperature),
        pressure: reading(|p| p.pressure),
        engine_speed: reading(|p| p.engine_speed),
        country: s.country().map(str::to_owned),
        inside_geofences: s.inside_zones(),
        open_episodes: s
            .open_episodes()
            .into_iter()
            .filter_map(|(t, since)| {
                Some(OpenEpisode {
                    event_type: EventType::try_from(t.code()).ok()?,
                    since,
                })
            })
            .collect(),
    }
}

impl<S: Store + AlertStore> Service<S> {
    /// The account an ingestion token ingests for; 401 for anything else (an access token too).
    pub async fn ingestion_account(&self, token: &str) -> ApiResult<Option<Uuid>> {
        Ok(self
            .store
            .ingestion_token_account(&sha256_hex(token), Utc::now())
            .await?)
    }

    /// Resolves every asset the batch names, in one read. An externalId names the live asset
    /// that has it (externalIds are unique among live assets), else a deleted one.
    async fn resolve_assets(
        &self,
        account: Uuid,
        keys: impl Iterator<Item = AssetKey>,
    ) -> ApiResult<HashMap<AssetKey, Asset>> {
        let (mut ids, mut externals) = (Vec::new(), Vec::new());
        for key in keys {
            match key {
                AssetKey::Id(id) => ids.push(id),
                AssetKey::External(external) => externals.push(external),
            }
        }
        ids.sort_unstable();
        ids.dedup();
        externals.sort_unstable();
        externals.dedup();
        let assets = self.store.assets_by_keys(account, &ids, &externals).await?;
        let mut found = HashMap::with_capacity(assets.len() * 2);
        for asset in assets {
            let live = asset.is_deleted != Some(true);
            let by_external = AssetKey::External(asset.external_id.clone());
            if externals.binary_search(&asset.external_id).is_ok()
                && (live || !found.contains_key(&by_external))
            {
                found.insert(by_external, asset.clone());
            }
            if ids.binary_search(&asset.id).is_ok() {
                found.insert(AssetKey::Id(asset.id), asset);
            }
        }
        Ok(found)
    }

    pub async fn ingest_telemetry(
        &self,
        account: Uuid,
        batch: TelemetryBatch,
    ) -> ApiResult<TelemetryBatchResult> {
        let received_at = Utc::now();
        let config = &self.alerting.detector.config;
        let mut results: Vec<Option<PointResult>> = vec![None; batch.points.len()];
        let key = |p: &TelemetryPoint| match (&p.asset_id, &p.external_id) {
            (Some(id), _) => AssetKey::Id(*id),
            (None, external) => AssetKey::External(external.clone().unwrap_or_default()),
        };
        let mut valid: Vec<usize> = Vec::new();
        let mut batch = batch;
        for p in &mut batch.points {
            p.timestamp = micros(p.timestamp);
        }
        for (i, p) in batch.points.iter().enumerate() {
            results[i] = if let Some(problem) = range_problem(p) {
                Some(rejected(i, PointResultReason::InvalidValue, problem))
            } else if let Some((reason, problem)) =
                timestamp_problem(p.timestamp, received_at, config)
            {
                Some(rejected(i, reason, problem))
            } else {
                valid.push(i);
                None
            };
        }
        let assets = self
            .resolve_assets(account, valid.iter().map(|i| key(&batch.points[*i])))
            .await?;
        // Group the valid points by asset, each group in timestamp order; a timestamp repeated
        // within the batch is a duplicate of its first occurrence.
        let mut groups: Vec<(Asset, Vec<usize>)> = Vec::new();
        let mut group_of: HashMap<Uuid, usize> = HashMap::new();
        for i in valid {
            let point = &batch.points[i];
            match assets.get(&key(point)).cloned() {
                None => {
                    results[i] = Some(rejected(
                        i,
                        PointResultReason::UnknownAsset,
                        "no asset of this account has this assetId or externalId".to_owned(),
                    ))
                }
                Some(asset) if asset.is_deleted == Some(true) => {
                    results[i] = Some(rejected(
                        i,
                        PointResultReason::AssetDeleted,
                        format!("asset {} is deleted", asset.id),
                    ))
                }
                Some(asset) => {
                    let g = *group_of.entry(asset.id).or_insert_with(|| {
                        groups.push((asset, Vec::new()));
                        groups.len() - 1
                    });
                    groups[g].1.push(i);
                }
            }
        }
        let mut batches = Vec::with_capacity(groups.len());
        let mut indexes = Vec::with_capacity(groups.len());
        for (asset, mut members) in groups {
            members.sort_by_key(|i| (batch.points[*i].timestamp, *i));
            let mut kept = Vec::with_capacity(members.len());
            for i in members {
                let t = batch.points[i].timestamp;
                if kept
                    .last()
                    .is_some_and(|k: &usize| batch.points[*k].timestamp == t)
                {
                    results[i] = Some(duplicate(i, asset.id));
                } else {
                    kept.push(i);
                }
            }
            batches.push(AssetPoints {
                points: kept
                    .iter()
                    .map(|i| detector_point(&batch.points[*i]))
                    .collect(),
                asset,
            });
            indexes.push(kept);
        }
        if !batches.is_empty() {
            let zones: Vec<_> = self
                .store
                .list_geofences(account)
                .await?
                .iter()
                .map(zone)
                .collect();
            let pipeline = EventPipeline {
                detector: self.alerting.detector.clone(),
                zones,
                webhook_receivers: self.store.webhook_receivers(account).await?,
                detected_at: received_at,
            };
            let assets: Vec<Uuid> = batches.iter().map(|b| b.asset.id).collect();
            let mut accounts: Vec<Uuid> = batches.iter().map(|b| b.asset.account_id).collect();
            accounts.sort();
            accounts.dedup();
            let job = IngestJob {
                batches,
                received_at,
                pipeline: Box::new(pipeline),
            };
            let fresh = self.store.ingest(job).await?;
            for account in accounts {
                self.alerting.live.stored(account);
            }
            for ((asset, kept), fresh) in assets.iter().zip(&indexes).zip(fresh) {
                for (i, new) in kept.iter().zip(fresh) {
                    results[*i] = Some(if new {
                        PointResult {
                            index: *i as i64,
                            status: PointResultStatus::Accepted,
                            asset_id: Some(*asset),
                            reason: None,
                            message: None,
                        }
                    } else {
                        duplicate(*i, *asset)
                    });
                }
            }
            self.alerting.dispatch_wake.notify_one();
        }
        let results: Vec<PointResult> = results.into_iter().flatten().collect();
        let count = |s: PointResultStatus| results.iter().filter(|r| r.status == s).count() as i64;
        let result = TelemetryBatchResult {
            accepted: count(PointResultStatus::Accepted),
            duplicates: count(PointResultStatus::Duplicate),
            rejected: count(PointResultStatus::Rejected),
            results,
        };
        crate::monitoring::telemetry_points(result.accepted, result.duplicates, result.rejected);
        Ok(result)
    }

    pub async fn get_asset_state(
        &self,
        principal: Uuid,
        account: Uuid,
        asset: Uuid,
    ) -> ApiResult<AssetState> {
        self.asset_of(principal, account, asset).await?;
        let states = self.store.asset_states(&[asset]).await?;
        Ok(state_view(asset, states.first()))
    }

    pub async fn list_events(
        &self,
        principal: Uuid,
        account: Uuid,
        filter: EventFilter,
        page: Page,
    ) -> ApiResult<Vec<Event>> {
        self.visible(principal, account).await?;
        // An empty range (`from` at or after `to`) is a valid question with an empty answer.
        if let (Some(from), Some(to)) = (filter.from, filter.to)
            && from >= to
        {
            return Ok(Vec::new());
        }
        Ok(self.store.list_events(account, &filter, page).await?)
    }

    pub async fn get_event(&self, principal: Uuid, account: Uuid, id: Uuid) -> ApiResult<Event> {
        self.in_visible(
            principal,
            account,
            ("event", id),
            self.store.event(account, id),
        )
        .await
    }

    pub async fn acknowledge_event(
        &self,
        principal: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> ApiResult<Event> {
        let by = format!("account:{principal}");
        self.in_visible(
            principal,
            account,
            ("event", id),
            self.store.acknowledge_event(account, id, &by, Utc::now()),
        )
        .await
    }

    pub async fn list_event_notifications(
        &self,
        principal: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> ApiResult<Vec<Notification>> {
        self.get_event(principal, account, id).await?;
        Ok(self.store.event_notifications(id).await?)
    }

    pub async fn get_webhook_secret(
        &self,
        principal: Uuid,
        account: Uuid,
    ) -> ApiResult<WebhookSecret> {
        self.visible(principal, account).await?;
        Ok(WebhookSecret {
            secret: self.alerting.webhook_secret(account),
        })
    }

    /// The acknowledgement link of a notification, for its message.
    pub fn acknowledge_link(&self, notification: Uuid, now: DateTime<Utc>) -> String {
        self.alerting
            .ack_signer
            .link(&self.public_base_url, notification, now + ACK_LINK_LIFETIME)
    }

    /// The event an acknowledgement link points at, if the link is authentic and unexpired.
    pub async fn acknowledge_link_event(
        &self,
        notification: Uuid,
        expires: i64,
        signature: &str,
    ) -> Result<(Event, Option<Uuid>), String> {
        self.alerting
            .ack_signer
            .check(notification, expires, signature, Utc::now())
            .map_err(str::to_owned)?;
        match self.store.notification_event(notification).await {
            Ok(Some(found)) => Ok(found),
            Ok(None) => Err("this link does not belong to any alert".to_owned()),
            Err(e) => {
                tracing::error!(error = %e, "acknowledgement link");
                Err("the alert could not be loaded; try again".to_owned())
            }
        }
    }

    /// Acknowledges through a verified link, as the rule's recipient.
    pub async fn acknowledge_by_link(&self, event: &Event, rule: Option<Uuid>) -> ApiResult<Event> {
        let by = match rule {
            Some(rule) => format!("rule:{rule}"),
            None => "link".to_owned(),
        };
        let acknowledged = self
            .store
            .acknowledge_event(event.account_id, event.id, &by, Utc::now())
            .await?;
        found(acknowledged, "event", event.id)
    }
}

fn duplicate(index: usize, asset: Uuid) -> PointResult {
    PointResult {
        index: index as i64,
        status: PointResultStatus::Duplicate,
        asset_id: Some(asset),
        reason: None,
        message: None,
    }
}

#[cfg(test)]
mod tests {
    use super::{span, timestamp_problem};
    use asset_alerting_models::PointResultReason;
    use chrono::{Duration, Utc};

    #[test]
    fn spans_are_said_in_their_largest_exact_unit() {
        assert_eq!(span(Duration::days(7)), "7 days");
        assert_eq!(span(Duration::minutes(5)), "5 minutes");
        assert_eq!(span(Duration::hours(1)), "1 hour");
        assert_eq!(span(Duration::minutes(90)), "90 minutes");
        assert_eq!(span(Duration::seconds(61)), "61 seconds");
    }

    #[test]
    fn timestamp_messages_name_the_configured_limits() {
        let now = Utc::now();
        let defaults = asset_alerting_detect::Config::default();
        let (reason, message) = timestamp_problem(now - Duration::days(8), now, &defaults).unwrap();
        assert_eq!(reason, PointResultReason::TooOld);
        assert!(
            message.ends_with("older than the cutoff of 7 days"),
            "{message}"
        );
        let (reason, message) =
            timestamp_problem(now + Duration::minutes(6), now, &defaults).unwrap();
        assert_eq!(reason, PointResultReason::InFuture);
        assert!(
            message.ends_with("more than 5 minutes in the future"),
            "{message}"
        );

        let config = asset_alerting_detect::Config {
            cutoff: Duration::hours(2),
            future_skew: Duration::seconds(30),
            ..defaults
        };
        let (_, message) = timestamp_problem(now - Duration::hours(3), now, &config).unwrap();
        assert!(
            message.ends_with("older than the cutoff of 2 hours"),
            "{message}"
        );
        let (_, message) = timestamp_problem(now + Duration::minutes(1), now, &config).unwrap();
        assert!(
            message.ends_with("more than 30 seconds in the future"),
            "{message}"
        );
        assert_eq!(
            timestamp_problem(now - Duration::hours(1), now, &config),
            None
        );
    }
}
