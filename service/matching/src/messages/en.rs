//! English texts.

use super::language::{EventText, Language, UnitText};

const fn event(title: &'static str, sentence: &'static str) -> EventText {
    EventText {
        title,
        sentence,
        measure: None,
    }
}

const fn measured(title: &'static str, sentence: &'static str, measure: &'static str) -> EventText {
    EventText {
        title,
        sentence,
        measure: Some(measure),
    }
}

pub(super) static ENGLISH: Language = Language {
    decimal_separator: '.',
    date_time: "%Y-%m-%d %H:%M",
    zone_names: &[],
    events: [
        event(
            "External power disconnected",
            "{asset} lost its external power supply.",
        ),
        measured(
            "Supply voltage low",
            "The supply voltage of {asset} is low.",
            "Voltage",
        ),
        measured(
            "Battery low",
            "The tracker battery of {asset} is low.",
            "Battery",
        ),
        event(
            "Jamming detected",
            "The tracker signal of {asset} is being jammed.",
        ),
        event("Movement started", "{asset} started moving."),
        event("Movement stopped", "{asset} stopped moving."),
        event("Ignition on", "The ignition of {asset} was turned on."),
        event("Ignition off", "The ignition of {asset} was turned off."),
        event("Geofence entered", "{asset} entered a geofence."),
        event("Geofence left", "{asset} left a geofence."),
        measured(
            "Speed limit exceeded",
            "{asset} is faster than its speed limit.",
            "Speed",
        ),
        event("Asset left behind", "{asset} was left behind."),
        measured(
            "Fuel level low",
            "The fuel level of {asset} is low.",
            "Fuel level",
        ),
        measured(
            "AdBlue level low",
            "The AdBlue level of {asset} is low.",
            "AdBlue level",
        ),
        event("Alarm triggered", "An alarm of {asset} was triggered."),
        event("Lockdown violated", "{asset} moved while locked down."),
        event(
            "Tampering detected",
            "Someone tampered with the tracker of {asset}.",
        ),
        event("Border crossed", "{asset} crossed a country border."),
        measured(
            "Temperature high",
            "The temperature of {asset} is too high.",
            "Temperature",
        ),
        measured(
            "Temperature low",
            "The temperature of {asset} is too low.",
            "Temperature",
        ),
        measured(
            "Pressure high",
            "The pressure of {asset} is too high.",
            "Pressure",
        ),
        measured(
            "Pressure low",
            "The pressure of {asset} is too low.",
            "Pressure",
        ),
        event("Hard cornering", "{asset} took a corner too hard."),
        event("Engine idling", "The engine of {asset} is idling."),
        measured(
            "Engine speed too high",
            "The engine speed of {asset} is above its limit.",
            "Engine speed",
        ),
        event("Accident", "{asset} may have had an accident."),
    ],
    unknown_event: event("Alert", "There is an alert for {asset}."),
    units: [
        UnitText {
            written: " km/h",
            spoken: ("kilometre per hour", "kilometres per hour"),
        },
        UnitText {
            written: " V",
            spoken: ("volt", "volts"),
        },
        UnitText {
            written: "%",
            spoken: ("percent", "percent"),
        },
        UnitText {
            written: " °C",
            spoken: ("degree Celsius", "degrees Celsius"),
        },
        UnitText {
            written: " kPa",
            spoken: ("kilopascal", "kilopascals"),
        },
        UnitText {
            written: " rpm",
            spoken: ("revolution per minute", "revolutions per minute"),
        },
    ],
    time: "Time",
    position: "Position",
    compass: ["N", "S", "E", "W"],
    geofence: "Geofence",
    border: "Border",
    from_country: "from {country}",
    to_country: "to {country}",
    limit: "limit",
    acknowledge: "Acknowledge",
    minus: "minus",
    months: [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    spoken_date: "{day} {month} {year}",
    spoken_when: "It happened at {time} on {date}.",
    spoken_at: "at {time}",
    digest_one: "1 more alert for {asset}",
    digest_many: "{count} more alerts for {asset}",
    digest_assets: "{count} more alerts for {assets} assets",
    digest_rest: "… and {count} more",
};
