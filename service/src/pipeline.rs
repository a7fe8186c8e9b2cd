//! From fresh telemetry points to events and the notifications they owe: detection, then rule
//! matching, then escalation times and webhook receivers. Pure: the store runs it inside the
//! transaction that stores the points (see [`Pipeline`]).

use crate::store::alerts::{ChannelKind, NewEvent, NewNotification, Pipeline, Target};
use asset_alerting_detect::{
    AssetState, DetectedEvent, Detector, Point, Polygon, Quantity, Thresholds, Zone,
};
use asset_alerting_matching::{
    EventFacts, RuleFilter, is_snoozed, matching_rules, parse_time_of_day,
};
use asset_alerting_models::{
    AlertRule, Asset, ChannelType, DayOfWeek, Event, EventDetails, EventDetailsQuantity, EventType,
    GeoJsonPolygon, Geofence, Position, TelemetryRules,
};
use chrono::{DateTime, Duration, Utc, Weekday};
use std::sync::Arc;
use uuid::Uuid;

/// How long each escalation step waits for an acknowledgement before the next rule is notified.
pub const ESCALATION_STEP: Duration = Duration::minutes(5);

pub struct EventPipeline {
    pub detector: Arc<Detector>,
    pub zones: Vec<Zone>,
    /// `(account, callbackUri)` of the accounts that receive the `event` webhook.
    pub webhook_receivers: Vec<(Uuid, String)>,
    pub detected_at: DateTime<Utc>,
}

/// The detector's thresholds from an asset's telemetry rules.
pub fn thresholds(rules: Option<&TelemetryRules>) -> Thresholds {
    let Some(r) = rules else {
        return Thresholds::default();
    };
    Thresholds {
        input_voltage_low: r.input_voltage_low_threshold,
        battery_voltage_low: r.battery_voltage_low_threshold,
        battery_percentage_low: r.battery_percentage_low_threshold,
        speed_limit: r.speed_limit.map(|v| v as f64),
        fuel_level_low: r.fuel_level_low_threshold,
        ad_blue_level_low: r.ad_blue_level_low_threshold,
        temperature_low: r.temperature_low_threshold,
        temperature_high: r.temperature_high_threshold,
        pressure_low: r.pressure_low_threshold,
        pressure_high: r.pressure_high_threshold,
        engine_speed_limit: r.engine_speed_limit.map(|v| v as f64),
    }
}

fn quantity(q: Quantity) -> Option<EventDetailsQuantity> {
    use EventDetailsQuantity as Q;
    Some(match q {
        Quantity::InputVoltage => Q::InputVoltage,
        Quantity::BatteryVoltage => Q::BatteryVoltage,
        Quantity::BatteryPercentage => Q::BatteryPercentage,
        Quantity::FuelLevel => Q::FuelLevel,
        Quantity::AdBlueLevel => Q::AdBlueLevel,
        Quantity::Temperature => Q::Temperature,
        Quantity::Pressure => Q::Pressure,
        Quantity::Speed => Q::Speed,
        Quantity::EngineSpeed => Q::EngineSpeed,
    })
}

/// A GeoJSON polygon as the detector's (positions are validated as pairs when stored).
pub fn zone_polygon(polygon: &GeoJsonPolygon) -> Polygon {
    Polygon {
        rings: polygon
            .coordinates
            .iter()
            .map(|ring| {
                ring.iter()
                    .filter_map(|p| Some([*p.first()?, *p.get(1)?]))
                    .collect()
            })
            .collect(),
    }
}

/// A stored geofence as the detector's zone.
pub fn zone(geofence: &Geofence) -> Zone {
    Zone {
        id: geofence.id,
        polygon: zone_polygon(&geofence.polygon),
    }
}

fn weekday(day: DayOfWeek) -> Weekday {
    match day {
        DayOfWeek::Monday => Weekday::Mon,
        DayOfWeek::Tuesday => Weekday::Tue,
        DayOfWeek::Wednesday => Weekday::Wed,
        DayOfWeek::Thursday => Weekday::Thu,
        DayOfWeek::Friday => Weekday::Fri,
        DayOfWeek::Saturday => Weekday::Sat,
        DayOfWeek::Sunday => Weekday::Sun,
    }
}

/// The matcher's view of a rule; `None` for a rule whose stored time zone or times no longer parse
/// (the API validates them, so this is data written by another version: it notifies nobody).
fn rule_filter(rule: &AlertRule) -> Option<RuleFilter> {
    let time_of_day = match &rule.time_of_day {
        Some(t) => Some((parse_time_of_day(&t.from)?, parse_time_of_day(&t.to)?)),
        None => None,
    };
    Some(RuleFilter {
        id: rule.id,
        order: rule.order,
        event_type: rule.event_type.value(),
        is_disabled: rule.is_disabled,
        days_of_week: rule.days_of_week.iter().map(|d| weekday(*d)).collect(),
        time_of_day,
        dates: rule.dates.as_ref().map(|d| (d.from, d.to)),
        time_zone: rule.recipient.time_zone.parse().ok()?,
        inside_geofences: rule.inside_geofences.clone(),
        outside_geofences: rule.outside_geofences.clone(),
    })
}

/// Where a rule's channel delivers, with the recipient's language and zone.
pub fn rule_target(rule: &AlertRule) -> Option<Target> {
    let c = &rule.channel;
    let phone = || rule.recipient.phone_number.clone();
    let (channel, address, interactive) = match c.r#type {
        ChannelType::Call => (ChannelKind::Call, phone()?, false),
        ChannelType::Sms => (ChannelKind::Sms, phone()?, c.sms.as_ref()?.is_interactive),
        ChannelType::Telegram => {
            let t = c.telegram.as_ref()?;
            (
                ChannelKind::Telegram,
                t.chat_id.to_string(),
                t.is_interactive,
            )
        }
        ChannelType::Email => {
            let e = c.email.as_ref()?;
            (
                ChannelKind::Email,
                e.email_address.clone(),
                e.is_interactive,
            )
        }
    };
    Some(Target {
        channel,
        address,
        culture: rule.recipient.culture.clone(),
        time_zone: rule.recipient.time_zone.clone(),
        interactive,
    })
}

impl EventPipeline {
    fn event(&self, asset: &Asset, detected: &DetectedEvent, suppressed: bool) -> Event {
        let d = &detected.details;
        Event {
            id: Uuid::new_v4(),
            account_id: asset.account_id,
            asset_id: asset.id,
            event_type: EventType::try_from(detected.event_type.code())
                .expect("the detector raises only event types of the spec's enum"),
            occurred_at: detected.occurred_at,
            detected_at: self.detected_at,
            position: detected
                .latitude
                .zip(detected.longitude)
                .map(|(latitude, longitude)| Position {
                    latitude,
                    longitude,
                }),
            details: EventDetails {
                value: d.value,
                threshold: d.threshold,
                quantity: d.quantity.and_then(quantity),
                geofence_id: d.geofence_id,
                from_country: d.from_country.clone(),
                to_country: d.to_country.clone(),
                episode_started_at: d.episode_started_at,
            },
            notifications_suppressed: suppressed,
            acknowledged_at: None,
            acknowledged_by: None,
        }
    }

    /// One notification per matching rule, in rule order; the rules after an interactive one
    /// wait one escalation step each.
    fn rule_notifications(
        &self,
        rules: &[AlertRule],
        filters: &[RuleFilter],
        filter_rules: &[usize],
        event: &Event,
        containing: &[Uuid],
    ) -> Vec<NewNotification> {
        let name = event.event_type.name();
        let facts = EventFacts {
            event_type: event.event_type.value(),
            event_type_name: name,
            occurred_at: event.occurred_at,
            containing_geofences: event.position.as_ref().map(|_| containing),
        };
        let mut due = self.detected_at;
        let mut out = Vec::new();
        for index in matching_rules(filters, &facts) {
            let rule = &rules[filter_rules[index]];
            let Some(target) = rule_target(rule) else {
                continue;
            };
            let interactive = target.interactive;
            out.push(NewNotification {
                id: Uuid::new_v4(),
                rule_id: Some(rule.id),
                webhook_account_id: None,
                target,
                due_at: due,
            });
            if interactive {
                due += ESCALATION_STEP;
            }
        }
        out
    }

    fn webhook_notifications(&self) -> impl Iterator<Item = NewNotification> + '_ {
        self.webhook_receivers
            .iter()
            .map(|(account, uri)| NewNotification {
                id: Uuid::new_v4(),
                rule_id: None,
                webhook_account_id: Some(*account),
                target: Target {
                    channel: ChannelKind::Webhook,
                    address: uri.clone(),
                    culture: String::new(),
                    time_zone: String::new(),
                    interactive: false,
                },
                due_at: self.detected_at,
            })
    }
}

impl Pipeline for EventPipeline {
    fn run(
        &self,
        asset: &Asset,
        rules: &[AlertRule],
        state: &mut AssetState,
        points: &[Point],
    ) -> Vec<NewEvent> {
        let thresholds = thresholds(asset.telemetry_rules.as_ref());
        // The matcher's view of each usable rule, and which rule each one is.
        let (filter_rules, filters): (Vec<usize>, Vec<RuleFilter>) = rules
            .iter()
            .enumerate()
            .filter_map(|(i, r)| rule_filter(r).map(|f| (i, f)))
            .unzip();
        let mut events = Vec::new();
        for point in points {
            let detected = self
                .detector
                .process(state, &thresholds, &self.zones, point);
            if detected.is_empty() {
                continue;
            }
            let containing = state.inside_zones();
            for d in &detected {
                let snoozed =
                    is_snoozed(&asset.disabled_events, d.event_type.name(), d.occurred_at);
                let event = self.event(asset, d, snoozed);
                let mut notifications = if snoozed || asset.is_deleted == Some(true) {
                    Vec::new()
                } else {
                    self.rule_notifications(rules, &filters, &filter_rules, &event, &containing)
                };
                notifications.extend(self.webhook_notifications());
                events.push(NewEvent {
                    event,
                    notifications,
                });
            }
        }
        events
    }
}
