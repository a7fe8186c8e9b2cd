//! What a language table holds, and which table a culture gets.

use super::{de, en};

/// Title, sentence (`{asset}` is the asset's name) and, for measured event types, the name of
/// the measured quantity.
pub(super) struct EventText {
    pub title: &'static str,
    pub sentence: &'static str,
    pub measure: Option<&'static str>,
}

/// A unit as written after a number (with its leading space, if the language puts one) and as
/// spoken (singular, plural).
pub(super) struct UnitText {
    pub written: &'static str,
    pub spoken: (&'static str, &'static str),
}

/// Every text of one language. Templates name their placeholders in braces.
pub(super) struct Language {
    pub decimal_separator: char,
    /// chrono format of a written local date and time; the zone follows it.
    pub date_time: &'static str,
    /// Zone abbreviations this language writes differently (CEST -> MESZ).
    pub zone_names: &'static [(&'static str, &'static str)],
    /// Event types 2..=27, in code order.
    pub events: [EventText; 26],
    /// For a code outside 2..=27.
    pub unknown_event: EventText,
    /// Indexed by [`Unit`].
    pub units: [UnitText; 6],
    pub time: &'static str,
    pub position: &'static str,
    /// North, south, east, west.
    pub compass: [&'static str; 4],
    pub geofence: &'static str,
    pub border: &'static str,
    /// `{country}`.
    pub from_country: &'static str,
    pub to_country: &'static str,
    /// Word before a threshold: "limit 90 km/h".
    pub limit: &'static str,
    pub acknowledge: &'static str,
    pub minus: &'static str,
    pub months: [&'static str; 12],
    /// `{day}`, `{month}`, `{year}`.
    pub spoken_date: &'static str,
    /// `{time}` (HH:mm), `{date}` (spoken_date).
    pub spoken_when: &'static str,
    /// `{time}` (HH:mm) of an event in a spoken digest.
    pub spoken_at: &'static str,
    /// `{asset}`; `{count}` too in the plural.
    pub digest_one: &'static str,
    pub digest_many: &'static str,
    /// `{count}` alerts for `{assets}` (> 1) assets.
    pub digest_assets: &'static str,
    /// `{count}` lines left out of a digest.
    pub digest_rest: &'static str,
}

/// The quantities shown with a unit; the spec's telemetry threshold units.
#[derive(Clone, Copy)]
pub(super) enum Unit {
    KilometresPerHour,
    Volt,
    Percent,
    DegreeCelsius,
    Kilopascal,
    Rpm,
}

/// The unit of an event's value and threshold; `None`: the event type has no value shown.
/// `quantity` (the event's `details.quantity`) tells BatteryLow by voltage from by percentage.
pub(super) fn unit(event_type: i32, quantity: Option<&str>) -> Option<Unit> {
    Some(match event_type {
        4 if quantity == Some("batteryVoltage") => Unit::Volt,
        3 => Unit::Volt,
        4 | 14 | 15 => Unit::Percent,
        12 => Unit::KilometresPerHour,
        20 | 21 => Unit::DegreeCelsius,
        22 | 23 => Unit::Kilopascal,
        26 => Unit::Rpm,
        _ => return None,
    })
}

/// The table of a BCP 47 tag's language subtag; English when there is none for it.
pub(super) fn for_culture(culture: &str) -> &'static Language {
    let language = culture.split(['-', '_']).next().unwrap_or_default();
    if language.eq_ignore_ascii_case("de") {
        &de::GERMAN
    } else {
        &en::ENGLISH
    }
}

impl Language {
    pub fn event(&self, event_type: i32) -> &EventText {
        usize::try_from(event_type)
            .ok()
            .and_then(|code| code.checked_sub(2))
            .and_then(|i| self.events.get(i))
            .unwrap_or(&self.unknown_event)
    }

    pub fn unit(&self, unit: Unit) -> &UnitText {
        &self.units[unit as usize]
    }
}
