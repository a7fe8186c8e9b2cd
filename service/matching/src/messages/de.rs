//! German texts.

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

pub(super) static GERMAN: Language = Language {
    decimal_separator: ',',
    date_time: "%d.%m.%Y %H:%M",
    zone_names: &[("CET", "MEZ"), ("CEST", "MESZ")],
    events: [
        event(
            "Externe Stromversorgung getrennt",
            "{asset} hat die externe Stromversorgung verloren.",
        ),
        measured(
            "Versorgungsspannung niedrig",
            "Die Versorgungsspannung von {asset} ist niedrig.",
            "Spannung",
        ),
        measured(
            "Akku schwach",
            "Der Tracker-Akku von {asset} ist schwach.",
            "Akku",
        ),
        event(
            "Störsender erkannt",
            "Das Trackersignal von {asset} wird gestört.",
        ),
        event("Bewegung begonnen", "{asset} hat sich in Bewegung gesetzt."),
        event("Bewegung beendet", "{asset} ist zum Stillstand gekommen."),
        event("Zündung an", "Die Zündung von {asset} wurde eingeschaltet."),
        event(
            "Zündung aus",
            "Die Zündung von {asset} wurde ausgeschaltet.",
        ),
        event("Geofence betreten", "{asset} hat einen Geofence betreten."),
        event(
            "Geofence verlassen",
            "{asset} hat einen Geofence verlassen.",
        ),
        measured(
            "Tempolimit überschritten",
            "{asset} ist schneller als erlaubt.",
            "Geschwindigkeit",
        ),
        event("Objekt zurückgelassen", "{asset} wurde zurückgelassen."),
        measured(
            "Tankfüllstand niedrig",
            "Der Tankfüllstand von {asset} ist niedrig.",
            "Tankfüllstand",
        ),
        measured(
            "AdBlue-Füllstand niedrig",
            "Der AdBlue-Füllstand von {asset} ist niedrig.",
            "AdBlue-Füllstand",
        ),
        event("Alarm ausgelöst", "Ein Alarm von {asset} wurde ausgelöst."),
        event("Sperre verletzt", "{asset} wurde trotz Sperre bewegt."),
        event(
            "Manipulation erkannt",
            "Am Tracker von {asset} wurde manipuliert.",
        ),
        event(
            "Grenze überquert",
            "{asset} hat eine Landesgrenze überquert.",
        ),
        measured(
            "Temperatur zu hoch",
            "Die Temperatur von {asset} ist zu hoch.",
            "Temperatur",
        ),
        measured(
            "Temperatur zu niedrig",
            "Die Temperatur von {asset} ist zu niedrig.",
            "Temperatur",
        ),
        measured(
            "Druck zu hoch",
            "Der Druck von {asset} ist zu hoch.",
            "Druck",
        ),
        measured(
            "Druck zu niedrig",
            "Der Druck von {asset} ist zu niedrig.",
            "Druck",
        ),
        event(
            "Scharfe Kurvenfahrt",
            "{asset} ist zu scharf durch eine Kurve gefahren.",
        ),
        event(
            "Motor im Leerlauf",
            "Der Motor von {asset} läuft im Leerlauf.",
        ),
        measured(
            "Drehzahl zu hoch",
            "Die Motordrehzahl von {asset} liegt über dem Grenzwert.",
            "Drehzahl",
        ),
        event("Unfall", "{asset} hatte möglicherweise einen Unfall."),
    ],
    unknown_event: event("Alarm", "Es gibt einen Alarm für {asset}."),
    units: [
        UnitText {
            written: " km/h",
            spoken: ("Kilometer pro Stunde", "Kilometer pro Stunde"),
        },
        UnitText {
            written: " V",
            spoken: ("Volt", "Volt"),
        },
        UnitText {
            written: " %",
            spoken: ("Prozent", "Prozent"),
        },
        UnitText {
            written: " °C",
            spoken: ("Grad Celsius", "Grad Celsius"),
        },
        UnitText {
            written: " kPa",
            spoken: ("Kilopascal", "Kilopascal"),
        },
        UnitText {
            written: " U/min",
            spoken: ("Umdrehung pro Minute", "Umdrehungen pro Minute"),
        },
    ],
    time: "Zeit",
    position: "Position",
    compass: ["N", "S", "O", "W"],
    geofence: "Geofence",
    border: "Grenze",
    from_country: "von {country}",
    to_country: "nach {country}",
    limit: "Grenzwert",
    acknowledge: "Bestätigen",
    minus: "minus",
    months: [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ],
    spoken_date: "{day}. {month} {year}",
    spoken_when: "Es geschah am {date} um {time} Uhr.",
    spoken_at: "um {time} Uhr",
    digest_one: "1 weiterer Alarm für {asset}",
    digest_many: "{count} weitere Alarme für {asset}",
    digest_assets: "{count} weitere Alarme für {assets} Objekte",
    digest_rest: "… und {count} weitere",
};
