//! Which alert rules of an asset notify about an event (decisions in the crate docs).

use crate::event_type;
use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, Utc, Weekday};
use chrono_tz::Tz;
use std::collections::BTreeMap;
use uuid::Uuid;

/// The parts of an alert rule that decide whether it fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFilter {
    pub id: Uuid,
    pub order: i64,
    pub event_type: i32,
    pub is_disabled: bool,
    /// Empty: every day.
    pub days_of_week: Vec<Weekday>,
    /// (from inclusive, to exclusive), local to `time_zone`.
    pub time_of_day: Option<(NaiveTime, NaiveTime)>,
    /// (from, to), both inclusive, local to `time_zone`.
    pub dates: Option<(NaiveDate, NaiveDate)>,
    /// The recipient's time zone.
    pub time_zone: Tz,
    pub inside_geofences: Vec<Uuid>,
    pub outside_geofences: Vec<Uuid>,
}

/// What matching needs to know about an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventFacts<'a> {
    pub event_type: i32,
    /// The EventType name of `event_type` (see [`event_type::name`]), the `disabledEvents` key.
    pub event_type_name: &'a str,
    pub occurred_at: DateTime<Utc>,
    /// Ids of the geofences that contain the event position; `None` when the position is unknown.
    pub containing_geofences: Option<&'a [Uuid]>,
}

/// Whether the asset's `disabledEvents` snooze the event type at `at`: its own key or `Any`
/// holds an instant later than `at`.
pub fn is_snoozed(
    disabled_events: &BTreeMap<String, DateTime<Utc>>,
    event_type_name: &str,
    at: DateTime<Utc>,
) -> bool {
    [event_type_name, event_type::NAMES[0]]
        .iter()
        .filter_map(|key| disabled_events.get(*key))
        .any(|until| at < *until)
}

/// Indexes into `rules` of the rules that notify about the event, in notification order.
/// Does not look at snoozes; see [`rules_to_notify`].
pub fn matching_rules(rules: &[RuleFilter], event: &EventFacts) -> Vec<usize> {
    let mut hits: Vec<usize> = (0..rules.len())
        .filter(|&i| rule_matches(&rules[i], event))
        .collect();
    hits.sort_by_key(|&i| (rules[i].order, rules[i].id));
    hits
}

/// [`matching_rules`], or nothing while the asset's `disabledEvents` snooze the event type.
pub fn rules_to_notify(
    disabled_events: &BTreeMap<String, DateTime<Utc>>,
    rules: &[RuleFilter],
    event: &EventFacts,
) -> Vec<usize> {
    if is_snoozed(disabled_events, event.event_type_name, event.occurred_at) {
        return Vec::new();
    }
    matching_rules(rules, event)
}

/// Parses `HH:mm` (24-hour clock, two digits each), the spec's `TimeOfDay` pattern.
pub fn parse_time_of_day(s: &str) -> Option<NaiveTime> {
    let (h, m) = s.split_once(':')?;
    let two_digits = |part: &str| {
        (part.len() == 2 && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse::<u32>().ok())
            .flatten()
    };
    NaiveTime::from_hms_opt(two_digits(h)?, two_digits(m)?, 0)
}

fn rule_matches(rule: &RuleFilter, event: &EventFacts) -> bool {
    if rule.is_disabled
        || (rule.event_type != event.event_type && rule.event_type != event_type::ANY)
    {
        return false;
    }
    let local = event.occurred_at.with_timezone(&rule.time_zone);
    let date = local.date_naive();
    (rule.days_of_week.is_empty() || rule.days_of_week.contains(&local.weekday()))
        && rule
            .time_of_day
            .is_none_or(|(from, to)| in_window(local.time(), from, to))
        && rule
            .dates
            .is_none_or(|(from, to)| from <= date && date <= to)
        && geofences_hold(rule, event.containing_geofences)
}

/// `from` inclusive, `to` exclusive; wraps past midnight when `from` > `to`; whole day when equal.
fn in_window(t: NaiveTime, from: NaiveTime, to: NaiveTime) -> bool {
    if from <= to {
        from == to || (from <= t && t < to)
    } else {
        t >= from || t < to
    }
}

fn geofences_hold(rule: &RuleFilter, containing: Option<&[Uuid]>) -> bool {
    if rule.inside_geofences.is_empty() && rule.outside_geofences.is_empty() {
        return true;
    }
    let Some(containing) = containing else {
        return false;
    };
    (rule.inside_geofences.is_empty()
        || rule.inside_geofences.iter().any(|g| containing.contains(g)))
        && !rule
            .outside_geofences
            .iter()
            .any(|g| containing.contains(g))
}

#[cfg(test)]
mod tests;
