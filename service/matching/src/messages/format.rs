//! Numbers, times, positions and templates, as a language writes or speaks them.

use super::language::{Language, Unit};
use chrono::{DateTime, Datelike, Offset, Utc};
use chrono_tz::{OffsetName, Tz};

/// Replaces each `{name}` in `template` with its value, in one pass (a value that contains
/// braces, such as an asset name, is not expanded again).
pub(super) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v, close))
        });
        match value {
            Some((value, close)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// At most `decimals` decimals, trailing zeros dropped, no grouping, the language's separator.
pub(super) fn number(lang: &Language, value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    let text = if text == "-0" { "0" } else { text };
    with_separator(lang, text)
}

fn with_separator(lang: &Language, text: &str) -> String {
    text.replace('.', lang.decimal_separator.encode_utf8(&mut [0; 4]))
}

/// `97.5 km/h`.
pub(super) fn quantity(lang: &Language, value: f64, unit: Unit) -> String {
    format!("{}{}", number(lang, value, 2), lang.unit(unit).written)
}

/// `minus 3.2 degrees Celsius`: one decimal, sign and unit in words.
pub(super) fn spoken_quantity(lang: &Language, value: f64, unit: Unit) -> String {
    let magnitude = number(lang, value.abs(), 1);
    let (one, many) = lang.unit(unit).spoken;
    let unit = if magnitude == "1" { one } else { many };
    if magnitude != "0" && value < 0.0 {
        format!("{} {magnitude} {unit}", lang.minus)
    } else {
        format!("{magnitude} {unit}")
    }
}

/// `2026-03-29 14:05 CEST`, local to `zone`.
pub(super) fn date_time(lang: &Language, zone: Tz, at: DateTime<Utc>) -> String {
    let local = at.with_timezone(&zone);
    format!(
        "{} {}",
        local.format(lang.date_time),
        zone_label(lang, &local)
    )
}

/// The zone's abbreviation, or `UTC+3` / `UTC-9:30` where the zone has none.
fn zone_label(lang: &Language, local: &DateTime<Tz>) -> String {
    if let Some(abbreviation) = local.offset().abbreviation() {
        let renamed = lang
            .zone_names
            .iter()
            .find(|(from, _)| *from == abbreviation);
        return renamed.map_or(abbreviation, |(_, to)| to).to_string();
    }
    let seconds = local.offset().fix().local_minus_utc();
    let sign = if seconds < 0 { '-' } else { '+' };
    let (hours, minutes) = (seconds.abs() / 3600, seconds.abs() % 3600 / 60);
    if minutes == 0 {
        format!("UTC{sign}{hours}")
    } else {
        format!("UTC{sign}{hours}:{minutes:02}")
    }
}

/// `It happened at 14:05 on 29 March 2026.`, local to `zone` (the recipient's own, so unnamed).
pub(super) fn spoken_when(lang: &Language, zone: Tz, at: DateTime<Utc>) -> String {
    let local = at.with_timezone(&zone);
    let date = fill(
        lang.spoken_date,
        &[
            ("day", &local.day().to_string()),
            ("month", lang.months[local.month0() as usize]),
            ("year", &local.year().to_string()),
        ],
    );
    let time = local.format("%H:%M").to_string();
    fill(lang.spoken_when, &[("time", &time), ("date", &date)])
}

/// `52.52000° N, 13.40500° E`: five decimals (about a metre).
pub(super) fn position(lang: &Language, latitude: f64, longitude: f64) -> String {
    let [north, south, east, west] = lang.compass;
    let latitude_side = if latitude < 0.0 { south } else { north };
    let longitude_side = if longitude < 0.0 { west } else { east };
    let degrees = |v: f64| with_separator(lang, &format!("{v:.5}"));
    format!(
        "{}° {latitude_side}, {}° {longitude_side}",
        degrees(latitude.abs()),
        degrees(longitude.abs())
    )
}
