use super::language::{Language, for_culture};
use super::*;
use chrono_tz::{Asia::Kathmandu, Asia::Tokyo, Europe::Berlin};

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

/// A speeding truck in Berlin on the first day of summer time (12:05 UTC is 14:05 CEST).
fn speeding() -> MessageFacts<'static> {
    MessageFacts {
        event_type: 12,
        asset_name: "Truck 1",
        occurred_at: at("2026-03-29T12:05:00Z"),
        value: Some(97.5),
        threshold: Some(90.0),
        latitude: Some(52.52),
        longitude: Some(13.405),
        acknowledge_url: Some("https://alerts.example/ack/abc"),
        ..MessageFacts::default()
    }
}

#[test]
fn battery_low_by_voltage_is_shown_in_volts() {
    let by_voltage = MessageFacts {
        event_type: 4,
        asset_name: "Truck 1",
        occurred_at: at("2026-01-15T12:05:00Z"),
        value: Some(11.4),
        threshold: Some(11.8),
        quantity: Some("batteryVoltage"),
        ..MessageFacts::default()
    };
    let text = render("en-GB", Berlin, &by_voltage).text;
    assert!(text.contains("11.4 V") && text.contains("11.8 V"), "{text}");
    let by_percent = MessageFacts {
        quantity: Some("batteryPercentage"),
        value: Some(12.0),
        threshold: Some(20.0),
        ..by_voltage
    };
    let text = render("en-GB", Berlin, &by_percent).text;
    assert!(text.contains("12 %") || text.contains("12%"), "{text}");
}

fn freezing() -> MessageFacts<'static> {
    MessageFacts {
        event_type: 21,
        asset_name: "Reefer 7",
        occurred_at: at("2026-01-15T12:05:00Z"),
        value: Some(-3.27),
        threshold: Some(2.0),
        ..MessageFacts::default()
    }
}

#[test]
fn english_message_with_units_local_time_position_and_link() {
    let message = render("en-US", Berlin, &speeding());
    assert_eq!(message.subject, "Speed limit exceeded: Truck 1");
    assert_eq!(
        message.text,
        "Speed limit exceeded: Truck 1\n\
         Truck 1 is faster than its speed limit.\n\
         Speed: 97.5 km/h (limit 90 km/h)\n\
         Time: 2026-03-29 14:05 CEST\n\
         Position: 52.52000° N, 13.40500° E\n\
         Acknowledge: https://alerts.example/ack/abc"
    );
}

#[test]
fn german_message_with_decimal_comma_and_german_zone_name() {
    let message = render("de-DE", Berlin, &speeding());
    assert_eq!(message.subject, "Tempolimit überschritten: Truck 1");
    assert_eq!(
        message.text,
        "Tempolimit überschritten: Truck 1\n\
         Truck 1 ist schneller als erlaubt.\n\
         Geschwindigkeit: 97,5 km/h (Grenzwert 90 km/h)\n\
         Zeit: 29.03.2026 14:05 MESZ\n\
         Position: 52,52000° N, 13,40500° O\n\
         Bestätigen: https://alerts.example/ack/abc"
    );
    let winter = render("de", Berlin, &freezing());
    assert_eq!(
        winter.text,
        "Temperatur zu niedrig: Reefer 7\n\
         Die Temperatur von Reefer 7 ist zu niedrig.\n\
         Temperatur: -3,27 °C (Grenzwert 2 °C)\n\
         Zeit: 15.01.2026 13:05 MEZ"
    );
}

#[test]
fn units_and_rounding_per_event_type() {
    let line = |event_type: i32, value: f64, culture: &str| {
        let facts = MessageFacts {
            event_type,
            value: Some(value),
            ..speeding()
        };
        render(culture, Berlin, &facts)
            .text
            .lines()
            .nth(2)
            .unwrap()
            .to_string()
    };
    assert_eq!(line(3, 11.856, "en"), "Voltage: 11.86 V (limit 90 V)");
    assert_eq!(line(4, 12.5, "en"), "Battery: 12.5% (limit 90%)");
    assert_eq!(line(4, 12.5, "de"), "Akku: 12,5 % (Grenzwert 90 %)");
    assert_eq!(line(15, 8.0, "en"), "AdBlue level: 8% (limit 90%)");
    assert_eq!(
        line(22, 310.04, "en"),
        "Pressure: 310.04 kPa (limit 90 kPa)"
    );
    assert_eq!(
        line(26, 3200.0, "en"),
        "Engine speed: 3200 rpm (limit 90 rpm)"
    );
    assert_eq!(
        line(26, 3200.0, "de"),
        "Drehzahl: 3200 U/min (Grenzwert 90 U/min)"
    );
    assert_eq!(line(20, -0.001, "en"), "Temperature: 0 °C (limit 90 °C)");
}

#[test]
fn missing_or_meaningless_values_are_left_out() {
    let only_value = MessageFacts {
        threshold: None,
        ..speeding()
    };
    assert!(
        render("en", Berlin, &only_value)
            .text
            .contains("\nSpeed: 97.5 km/h\n")
    );
    let only_limit = MessageFacts {
        value: Some(f64::NAN),
        ..speeding()
    };
    assert!(
        render("en", Berlin, &only_limit)
            .text
            .contains("\nSpeed: limit 90 km/h\n")
    );
    // Hard cornering has no unit: a value is not shown.
    let cornering = MessageFacts {
        event_type: 24,
        latitude: None,
        acknowledge_url: None,
        ..speeding()
    };
    assert_eq!(
        render("en", Berlin, &cornering).text,
        "Hard cornering: Truck 1\nTruck 1 took a corner too hard.\nTime: 2026-03-29 14:05 CEST"
    );
}

#[test]
fn geofence_and_border_lines() {
    let entered = MessageFacts {
        event_type: 10,
        geofence_name: Some("Depot"),
        ..MessageFacts::default()
    };
    assert!(
        render("en", Berlin, &entered)
            .text
            .contains("\nGeofence: Depot\n")
    );
    let border = MessageFacts {
        event_type: 19,
        from_country: Some("DE"),
        to_country: Some("PL"),
        ..MessageFacts::default()
    };
    assert!(
        render("en", Berlin, &border)
            .text
            .contains("\nBorder: from DE to PL\n")
    );
    assert!(
        render("de", Berlin, &border)
            .text
            .contains("\nGrenze: von DE nach PL\n")
    );
    let arrived = MessageFacts {
        from_country: None,
        ..border
    };
    assert!(
        render("en", Berlin, &arrived)
            .text
            .contains("\nBorder: to PL\n")
    );
}

#[test]
fn cultures_fall_back_by_language_then_to_english() {
    let subject = |culture: &str| render(culture, Berlin, &speeding()).subject;
    for german in ["de", "de-DE", "de-AT", "DE-ch", "de_CH"] {
        assert_eq!(
            subject(german),
            "Tempolimit überschritten: Truck 1",
            "{german}"
        );
    }
    for english in ["en", "en-GB", "fr-FR", "zh-Hant-TW", "", "deu", "d"] {
        assert_eq!(
            subject(english),
            "Speed limit exceeded: Truck 1",
            "{english}"
        );
    }
}

#[test]
fn zones_without_an_abbreviation_show_the_offset() {
    let time_line = |zone: Tz| {
        render("en", zone, &speeding())
            .text
            .lines()
            .nth(3)
            .unwrap()
            .to_string()
    };
    assert_eq!(time_line(Tokyo), "Time: 2026-03-29 21:05 JST");
    assert_eq!(time_line(Kathmandu), "Time: 2026-03-29 17:50 UTC+5:45");
    assert_eq!(
        time_line(chrono_tz::America::Sao_Paulo),
        "Time: 2026-03-29 09:05 UTC-3"
    );
    assert_eq!(time_line(chrono_tz::UTC), "Time: 2026-03-29 12:05 UTC");
}

#[test]
fn unknown_event_types_get_a_generic_text() {
    let odd = MessageFacts {
        event_type: 99,
        ..speeding()
    };
    let message = render("en", Berlin, &odd);
    assert_eq!(message.subject, "Alert: Truck 1");
    assert!(!message.text.contains("Speed"));
    assert_eq!(
        render(
            "de",
            Berlin,
            &MessageFacts {
                event_type: 1,
                ..odd
            }
        )
        .subject,
        "Alarm: Truck 1"
    );
}

#[test]
fn spoken_text_has_words_for_units_and_signs_and_no_link() {
    assert_eq!(
        render_spoken("en-GB", Berlin, &freezing()),
        "Temperature low: Reefer 7. The temperature of Reefer 7 is too low. \
         Temperature: minus 3.3 degrees Celsius, limit 2 degrees Celsius. \
         It happened at 13:05 on 15 January 2026."
    );
    let spoken = render_spoken("de-DE", Berlin, &speeding());
    assert_eq!(
        spoken,
        "Tempolimit überschritten: Truck 1. Truck 1 ist schneller als erlaubt. \
         Geschwindigkeit: 97,5 Kilometer pro Stunde, Grenzwert 90 Kilometer pro Stunde. \
         Es geschah am 29. März 2026 um 14:05 Uhr."
    );
    assert!(!spoken.contains("http") && !spoken.contains('°'));
    let one_volt = MessageFacts {
        event_type: 3,
        value: Some(1.0),
        threshold: None,
        ..speeding()
    };
    assert!(render_spoken("en", Berlin, &one_volt).contains("Voltage: 1 volt."));
}

#[test]
fn digest_of_one_asset_lists_events_in_time_order() {
    let first = MessageFacts {
        acknowledge_url: None,
        ..speeding()
    };
    let later = MessageFacts {
        occurred_at: at("2026-03-29T12:06:30Z"),
        value: Some(101.0),
        ..first
    };
    let ignition = MessageFacts {
        event_type: 9,
        occurred_at: at("2026-03-29T12:10:00Z"),
        ..first
    };
    let digest = render_digest("en-US", Berlin, &[ignition, later, first]);
    assert_eq!(digest.subject, "3 more alerts for Truck 1");
    assert_eq!(
        digest.text,
        "3 more alerts for Truck 1\n\
         2026-03-29 14:05 CEST Speed limit exceeded: Truck 1 (97.5 km/h)\n\
         2026-03-29 14:06 CEST Speed limit exceeded: Truck 1 (101 km/h)\n\
         2026-03-29 14:10 CEST Ignition off: Truck 1"
    );
    let spoken = render_digest_spoken("en", Berlin, &[speeding()]);
    assert_eq!(
        spoken,
        "1 more alert for Truck 1. Speed limit exceeded: Truck 1, at 14:05."
    );
    let single = render_digest("de", Berlin, &[speeding()]);
    assert_eq!(
        single.text,
        "1 weiterer Alarm für Truck 1\n\
         29.03.2026 14:05 MESZ Tempolimit überschritten: Truck 1 (97,5 km/h)\n  \
         Bestätigen: https://alerts.example/ack/abc"
    );
}

#[test]
fn digest_of_many_assets_is_capped() {
    let mut facts: Vec<MessageFacts> = (0..12)
        .map(|i| MessageFacts {
            occurred_at: at("2026-03-29T12:00:00Z") + chrono::Duration::seconds(i),
            acknowledge_url: None,
            ..speeding()
        })
        .collect();
    facts[11].asset_name = "Truck 2";
    let digest = render_digest("en", Berlin, &facts);
    assert_eq!(digest.subject, "12 more alerts for 2 assets");
    let lines: Vec<&str> = digest.text.lines().collect();
    assert_eq!(lines.len(), 1 + DIGEST_MAX_LINES + 1);
    assert_eq!(lines[11], "… and 2 more");
    assert!(
        !digest.text.contains("Truck 2"),
        "the latest events are the ones left out"
    );
    let german = render_digest("de", Berlin, &facts);
    assert_eq!(german.subject, "12 weitere Alarme für 2 Objekte");
    assert!(german.text.ends_with("\n… und 2 weitere"));
    assert_eq!(
        render_digest_spoken("de", Berlin, &facts[..2]),
        "2 weitere Alarme für Truck 1. Tempolimit überschritten: Truck 1, um 14:00 Uhr. \
         Tempolimit überschritten: Truck 1, um 14:00 Uhr."
    );
    let spoken = render_digest_spoken("en", Berlin, &facts);
    assert!(
        spoken
            .starts_with("12 more alerts for 2 assets. Speed limit exceeded: Truck 1, at 14:00. ")
    );
    assert!(spoken.ends_with(". … and 2 more."));
    // Never sent, but must not panic.
    assert_eq!(
        render_digest("en", Berlin, &[]).text,
        "0 more alerts for 0 assets"
    );
}

#[test]
fn every_event_type_has_texts_in_every_language() {
    for lang in [&en::ENGLISH, &de::GERMAN] as [&Language; 2] {
        let mut titles = std::collections::BTreeSet::new();
        for code in 2..=27 {
            let text = lang.event(code);
            assert!(!std::ptr::eq(text, &lang.unknown_event), "{code}");
            assert!(titles.insert(text.title), "duplicate title {}", text.title);
            assert!(text.sentence.contains("{asset}"), "{code}");
            assert_eq!(text.measure.is_some(), unit(code, None).is_some(), "{code}");
        }
    }
    assert!(std::ptr::eq(for_culture("de-LU"), &de::GERMAN));
}

#[test]
fn templates_fill_once() {
    assert_eq!(
        fill(
            "{asset} at {time}",
            &[("asset", "{time}"), ("time", "12:00")]
        ),
        "{time} at 12:00"
    );
    assert_eq!(fill("{unknown} {", &[]), "{unknown} {");
}
