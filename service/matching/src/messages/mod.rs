//! Notification texts in the recipient's language and time zone (decisions in the crate docs).
//! All wording lives in the language tables `en.rs` and `de.rs`.

mod de;
mod en;
mod format;
mod language;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use format::{date_time, fill, position, quantity, spoken_quantity, spoken_when};
use language::{Language, unit};
use serde::{Deserialize, Serialize};

/// At most this many events are listed in a digest; the rest are counted.
pub const DIGEST_MAX_LINES: usize = 10;

/// What a notification tells about one event. `value` and `threshold` are in the unit of the
/// event type's telemetry threshold; for `BatteryLow`, percent unless `quantity` is
/// `batteryVoltage`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MessageFacts<'a> {
    pub event_type: i32,
    pub asset_name: &'a str,
    pub occurred_at: DateTime<Utc>,
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    /// What value and threshold measure (the event's `details.quantity`), when given.
    pub quantity: Option<&'a str>,
    pub geofence_name: Option<&'a str>,
    /// ISO 3166 country codes.
    pub from_country: Option<&'a str>,
    pub to_country: Option<&'a str>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub acknowledge_url: Option<&'a str>,
}

/// A written notification. `text` is plain text, one fact per line; its first line is `subject`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub subject: String,
    pub text: String,
}

/// The notification of one event (SMS, Telegram, e-mail).
pub fn render(culture: &str, time_zone: Tz, facts: &MessageFacts) -> Message {
    let lang = language::for_culture(culture);
    let event = lang.event(facts.event_type);
    let subject = format!("{}: {}", event.title, facts.asset_name);
    let mut lines = vec![
        subject.clone(),
        fill(event.sentence, &[("asset", facts.asset_name)]),
    ];
    lines.extend(details(lang, facts, false));
    lines.push(format!(
        "{}: {}",
        lang.time,
        date_time(lang, time_zone, facts.occurred_at)
    ));
    if let (Some(latitude), Some(longitude)) = (facts.latitude, facts.longitude) {
        lines.push(format!(
            "{}: {}",
            lang.position,
            position(lang, latitude, longitude)
        ));
    }
    if let Some(url) = facts.acknowledge_url {
        lines.push(format!("{}: {url}", lang.acknowledge));
    }
    Message {
        subject,
        text: lines.join("\n"),
    }
}

/// The text read out in a phone call: sentences only, no link, no position.
pub fn render_spoken(culture: &str, time_zone: Tz, facts: &MessageFacts) -> String {
    let lang = language::for_culture(culture);
    let event = lang.event(facts.event_type);
    let mut parts = vec![
        format!("{}: {}.", event.title, facts.asset_name),
        fill(event.sentence, &[("asset", facts.asset_name)]),
    ];
    parts.extend(details(lang, facts, true).map(|detail| detail + "."));
    parts.push(spoken_when(lang, time_zone, facts.occurred_at));
    parts.join(" ")
}

/// One message for several coalesced events: a count in the subject, then one line per event in
/// time order (with its acknowledge link when given), at most [`DIGEST_MAX_LINES`] of them.
pub fn render_digest(culture: &str, time_zone: Tz, facts: &[MessageFacts]) -> Message {
    let lang = language::for_culture(culture);
    let subject = digest_subject(lang, facts);
    let mut lines = vec![subject.clone()];
    for f in listed(facts) {
        let mut line = format!(
            "{} {}: {}",
            date_time(lang, time_zone, f.occurred_at),
            lang.event(f.event_type).title,
            f.asset_name
        );
        if let (Some(unit), Some(value)) = (unit(f.event_type, f.quantity), finite(f.value)) {
            line.push_str(&format!(" ({})", quantity(lang, value, unit)));
        }
        lines.push(line);
        if let Some(url) = f.acknowledge_url {
            lines.push(format!("  {}: {url}", lang.acknowledge));
        }
    }
    lines.extend(digest_rest(lang, facts));
    Message {
        subject,
        text: lines.join("\n"),
    }
}

/// A digest read out in a phone call: the count, then each listed event's title, asset and local
/// time; no links.
pub fn render_digest_spoken(culture: &str, time_zone: Tz, facts: &[MessageFacts]) -> String {
    let lang = language::for_culture(culture);
    let mut parts = vec![digest_subject(lang, facts)];
    parts.extend(listed(facts).map(|f| {
        let time = f
            .occurred_at
            .with_timezone(&time_zone)
            .format("%H:%M")
            .to_string();
        let at = fill(lang.spoken_at, &[("time", &time)]);
        format!("{}: {}, {at}", lang.event(f.event_type).title, f.asset_name)
    }));
    parts.extend(digest_rest(lang, facts));
    parts.join(". ") + "."
}

/// `3 more alerts for Truck 1`, or `for 2 assets`.
fn digest_subject(lang: &Language, facts: &[MessageFacts]) -> String {
    let mut assets: Vec<&str> = facts.iter().map(|f| f.asset_name).collect();
    assets.sort_unstable();
    assets.dedup();
    let count = facts.len().to_string();
    match (facts.len(), assets.as_slice()) {
        (1, [asset]) => fill(lang.digest_one, &[("asset", asset)]),
        (_, [asset]) => fill(lang.digest_many, &[("count", &count), ("asset", asset)]),
        _ => fill(
            lang.digest_assets,
            &[("count", &count), ("assets", &assets.len().to_string())],
        ),
    }
}

/// The events a digest lists: the earliest [`DIGEST_MAX_LINES`], in time order.
fn listed<'f, 'a>(facts: &'f [MessageFacts<'a>]) -> impl Iterator<Item = &'f MessageFacts<'a>> {
    let mut ordered: Vec<&MessageFacts> = facts.iter().collect();
    ordered.sort_by_key(|f| f.occurred_at);
    ordered.into_iter().take(DIGEST_MAX_LINES)
}

/// `… and 2 more` when events were left out.
fn digest_rest(lang: &Language, facts: &[MessageFacts]) -> Option<String> {
    let rest = facts
        .len()
        .checked_sub(DIGEST_MAX_LINES)
        .filter(|r| *r > 0)?;
    Some(fill(lang.digest_rest, &[("count", &rest.to_string())]))
}

/// The measured value, geofence and border lines that the facts give, written or spoken.
fn details<'a>(
    lang: &'a Language,
    facts: &'a MessageFacts,
    spoken: bool,
) -> impl Iterator<Item = String> + 'a {
    let countries: Vec<String> = [
        (lang.from_country, facts.from_country),
        (lang.to_country, facts.to_country),
    ]
    .into_iter()
    .filter_map(|(template, country)| country.map(|c| fill(template, &[("country", c)])))
    .collect();
    let border =
        (!countries.is_empty()).then(|| format!("{}: {}", lang.border, countries.join(" ")));
    let geofence = facts
        .geofence_name
        .map(|name| format!("{}: {name}", lang.geofence));
    [measure(lang, facts, spoken), geofence, border]
        .into_iter()
        .flatten()
}

/// `Speed: 97.5 km/h (limit 90 km/h)`; only for event types with a unit.
fn measure(lang: &Language, facts: &MessageFacts, spoken: bool) -> Option<String> {
    let unit = unit(facts.event_type, facts.quantity)?;
    let name = lang.event(facts.event_type).measure?;
    let show = |v: f64| {
        if spoken {
            spoken_quantity(lang, v, unit)
        } else {
            quantity(lang, v, unit)
        }
    };
    let value = finite(facts.value).map(show);
    let limit = finite(facts.threshold).map(|t| format!("{} {}", lang.limit, show(t)));
    Some(match (value, limit) {
        (Some(value), Some(limit)) if spoken => format!("{name}: {value}, {limit}"),
        (Some(value), Some(limit)) => format!("{name}: {value} ({limit})"),
        (Some(only), None) | (None, Some(only)) => format!("{name}: {only}"),
        (None, None) => return None,
    })
}

fn finite(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests;
