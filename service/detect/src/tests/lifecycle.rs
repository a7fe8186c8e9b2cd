//! Cross-cutting behaviour: late points, determinism, the persisted state, the public types.

use chrono::Duration;
use serde_json::json;

use crate::testkit::{Run, at, p, rect, t, zone};
use crate::{
    AssetState, Config, DetectedEvent, EventDetails, EventType, Point, Quantity, Signals,
    Thresholds,
};

fn all_thresholds() -> Thresholds {
    Thresholds {
        input_voltage_low: Some(11.5),
        battery_voltage_low: Some(3.6),
        battery_percentage_low: Some(20.0),
        speed_limit: Some(90.0),
        fuel_level_low: Some(15.0),
        ad_blue_level_low: Some(10.0),
        temperature_low: Some(-25.0),
        temperature_high: Some(8.0),
        pressure_low: Some(200.0),
        pressure_high: Some(900.0),
        engine_speed_limit: Some(3000.0),
    }
}

/// A point that crosses every threshold and raises every flag.
fn everything(secs: i64, lat: f64, lon: f64, ignition: bool) -> Point {
    Point {
        speed: Some(120.0),
        heading: Some(90.0),
        ignition: Some(ignition),
        input_voltage: Some(0.0),
        battery_voltage: Some(3.0),
        battery_percentage: Some(5.0),
        fuel_level: Some(5.0),
        ad_blue_level: Some(2.0),
        temperature: Some(30.0),
        pressure: Some(1000.0),
        engine_speed: Some(5000.0),
        signals: Signals {
            alarm: Some(true),
            tampering: Some(true),
            jamming: Some(true),
            accident: Some(true),
            hard_cornering: Some(true),
            lockdown_violation: Some(true),
            left_behind: Some(true),
            power_disconnected: Some(true),
        },
        ..at(secs, lat, lon)
    }
}

fn full_run() -> Run {
    let mut run = Run::with_config(Config::default());
    run.thresholds = all_thresholds();
    run.zones = vec![zone(7, rect(7.0, 48.0, 9.0, 49.0))];
    run
}

#[test]
fn a_late_point_raises_nothing_and_changes_nothing() {
    let mut run = full_run();
    run.feed(Point {
        ignition: Some(false),
        ..at(1000, 50.0, 10.0)
    });
    let before = run.state.clone();
    // At the same timestamp and earlier, a point that would raise almost every event.
    for secs in [1000, 999, 0] {
        assert_eq!(
            run.feed(everything(secs, 48.58, 7.75, true)),
            vec![],
            "at {secs}"
        );
        assert_eq!(run.state, before);
    }
    let events = run.feed(everything(1001, 48.58, 7.75, true));
    assert!(
        events.len() >= 10,
        "the same point in time order raises: {events:?}"
    );
}

#[test]
fn every_event_type_is_reachable() {
    let mut run = full_run();
    let mut seen: Vec<EventType> = Vec::new();
    let mut feed = |run: &mut Run, point: Point| seen.extend(run.feed(point));
    feed(
        &mut run,
        Point {
            ignition: Some(false),
            speed: Some(0.0),
            ..at(0, 48.5, 9.5)
        },
    );
    feed(&mut run, everything(100, 48.5, 8.0, true)); // into the zone, DE
    feed(&mut run, everything(400, 48.58, 7.75, true)); // FR, out of the zone
    feed(
        &mut run,
        Point {
            ignition: Some(false),
            speed: Some(0.0),
            ..at(500, 48.58, 7.75)
        },
    );
    feed(
        &mut run,
        Point {
            speed: Some(0.0),
            ..at(800, 48.58, 7.75)
        },
    );
    feed(
        &mut run,
        Point {
            ignition: Some(true),
            speed: Some(0.0),
            ..at(900, 48.58, 7.75)
        },
    );
    feed(
        &mut run,
        Point {
            speed: Some(0.0),
            ..at(1300, 48.58, 7.75)
        },
    );
    let low = |secs| Point {
        input_voltage: Some(11.0),
        temperature: Some(-30.0),
        pressure: Some(100.0),
        ..at(secs, 49.5, 7.75) // out of the zone, back in DE
    };
    feed(&mut run, low(1400));
    feed(&mut run, low(1500));
    seen.sort();
    seen.dedup();
    assert_eq!(seen, EventType::ALL.to_vec());
}

#[test]
fn processing_is_deterministic() {
    let points: Vec<Point> = (0..200)
        .map(|i| {
            let mut point = everything(i * 7, 48.0 + f64::from(i as i32) * 0.01, 7.5, i % 3 == 0);
            point.speed = Some(f64::from((i * 37 % 150) as i32));
            point.temperature = Some(f64::from((i * 13 % 20) as i32));
            point.signals.alarm = Some(i % 5 == 0);
            point
        })
        .collect();
    let results: Vec<(Vec<DetectedEvent>, AssetState)> = (0..2)
        .map(|_| {
            let mut run = full_run();
            let events = points
                .iter()
                .flat_map(|point| run.events(point.clone()))
                .collect();
            (events, run.state)
        })
        .collect();
    assert!(!results[0].0.is_empty());
    assert_eq!(results[0], results[1]);
}

#[test]
fn events_of_one_point_are_sorted_by_code() {
    let mut run = full_run();
    run.feed(at(0, 48.5, 9.5));
    let events = run.feed(everything(100, 48.5, 8.0, true));
    let mut sorted = events.clone();
    sorted.sort();
    assert_eq!(events, sorted);
    assert!(events.contains(&EventType::GeofenceEntered));
}

#[test]
fn state_round_trips_through_json_and_stays_compact() {
    let mut run = full_run();
    assert_eq!(serde_json::to_string(&run.state).unwrap(), "{}");
    run.feed(everything(0, 48.5, 8.0, true));
    run.feed(everything(100, 48.5, 8.0, true));
    run.feed(Point {
        speed: Some(0.0),
        ..p(110)
    });
    let json = serde_json::to_value(&run.state).unwrap();
    assert_eq!(json["country"], "DE");
    assert_eq!(
        json["episodes"]["open"]["fuelLevelLow"],
        "2025-06-01T08:00:00Z"
    );
    assert_eq!(
        json["episodes"]["open"]["powerFlag"],
        "2025-06-01T08:00:00Z"
    );
    assert_eq!(json["ignition"]["on"], true);
    assert_eq!(json["motion"]["pendingSince"], "2025-06-01T08:01:50Z");
    assert_eq!(
        json["zones"]["00000000-0000-0000-0000-000000000007"],
        "2025-06-01T08:00:00Z"
    );
    assert_eq!(json["lastPoint"]["adBlueLevel"], 2.0);
    assert!(json["lastPoint"].get("latitude").is_some());
    let text = serde_json::to_string(&run.state).unwrap();
    // Worst case: every reading and every episode at once.
    assert!(text.len() < 1600, "{} bytes: {text}", text.len());
    let back: AssetState = serde_json::from_str(&text).unwrap();
    assert_eq!(back, run.state);
    // And it keeps working from the restored state.
    let mut restored = full_run();
    restored.state = back;
    assert_eq!(
        restored.feed(everything(120, 48.5, 8.0, true)),
        run.feed(everything(120, 48.5, 8.0, true))
    );
}

#[test]
fn a_typical_state_is_small() {
    let mut run = full_run();
    for i in 0..30 {
        run.feed(Point {
            speed: Some(60.0),
            ignition: Some(true),
            fuel_level: Some(50.0),
            temperature: Some(5.0),
            input_voltage: Some(13.9),
            ..at(i * 10, 48.5 + f64::from(i as i32) * 0.001, 8.0)
        });
    }
    let text = serde_json::to_string(&run.state).unwrap();
    assert!(text.len() < 450, "{} bytes: {text}", text.len());
}

#[test]
fn last_point_keeps_each_reading() {
    let mut run = Run::new();
    run.feed(Point {
        fuel_level: Some(40.0),
        ignition: Some(true),
        signals: Signals {
            alarm: Some(false),
            ..Signals::default()
        },
        ..at(0, 52.0, 13.0)
    });
    run.feed(Point {
        speed: Some(f64::NAN),
        temperature: Some(4.0),
        ..p(10)
    });
    run.feed(Point {
        fuel_level: Some(39.0),
        ..at(20, 0.0, 0.0)
    });
    let last = run.state.last_point().unwrap();
    assert_eq!(last.timestamp, t(20));
    assert_eq!((last.latitude, last.longitude), (Some(52.0), Some(13.0)));
    assert_eq!(last.fuel_level, Some(39.0));
    assert_eq!(last.temperature, Some(4.0));
    assert_eq!(last.ignition, Some(true));
    assert_eq!(last.speed, None, "NaN is never kept");
    assert_eq!(last.signals.alarm, Some(false));
    assert_eq!(run.state.last_timestamp(), Some(t(20)));
}

#[test]
fn events_carry_the_last_known_position() {
    let mut run = Run::new();
    run.feed(at(0, 52.0, 13.0));
    let events = run.events(Point {
        signals: Signals {
            alarm: Some(true),
            ..Signals::default()
        },
        ..p(10)
    });
    assert_eq!(
        (events[0].latitude, events[0].longitude),
        (Some(52.0), Some(13.0))
    );
    let mut fresh = Run::new();
    let events = fresh.events(Point {
        signals: Signals {
            tampering: Some(true),
            ..Signals::default()
        },
        ..p(0)
    });
    assert_eq!((events[0].latitude, events[0].longitude), (None, None));
}

#[test]
fn open_episodes_are_sorted_and_listed_once() {
    let mut run = full_run();
    run.feed(everything(0, 48.5, 8.0, true));
    run.feed(everything(100, 48.5, 8.0, true));
    let open = run.state.open_episodes();
    let types: Vec<EventType> = open.iter().map(|e| e.0).collect();
    let mut sorted = types.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(types, sorted, "sorted, each once: {open:?}");
    assert!(open.contains(&(EventType::InputPowerDisconnected, t(0))));
    assert!(open.contains(&(EventType::BatteryLow, t(0))));
    assert!(open.contains(&(EventType::MovementStarted, t(0))));
    assert!(open.contains(&(EventType::IgnitionTurnedOn, t(0))));
    assert!(
        !types.contains(&EventType::GeofenceEntered),
        "places are listed apart"
    );
}

#[test]
fn event_types_match_the_spec() {
    assert_eq!(EventType::ALL.len(), 26);
    for (i, event) in EventType::ALL.iter().enumerate() {
        assert_eq!(event.code(), i as i32 + 2);
        assert_eq!(EventType::from_code(event.code()), Some(*event));
    }
    assert_eq!(EventType::from_code(1), None, "Any is not detected");
    assert_eq!(EventType::from_code(28), None);
    assert_eq!(
        EventType::InputPowerDisconnected.name(),
        "InputPowerDisconnected"
    );
    assert_eq!(EventType::SpeedLimitExceeded.code(), 12);
    assert_eq!(EventType::AdBlueLevelLow.name(), "AdBlueLevelLow");
    assert_eq!(EventType::CountryBorderCrossed.code(), 19);
    assert_eq!(EventType::AccidentOccurred.code(), 27);
    assert_eq!(
        serde_json::to_value(EventType::EngineIdling).unwrap(),
        json!(25)
    );
    assert_eq!(
        serde_json::from_value::<EventType>(json!(10)).unwrap(),
        EventType::GeofenceEntered
    );
    assert!(serde_json::from_value::<EventType>(json!(1)).is_err());
}

#[test]
fn events_serialize_in_camel_case_without_nulls() {
    let event = DetectedEvent {
        event_type: EventType::SpeedLimitExceeded,
        occurred_at: t(10),
        latitude: Some(52.0),
        longitude: None,
        details: EventDetails {
            value: Some(101.0),
            threshold: Some(90.0),
            quantity: Some(Quantity::Speed),
            episode_started_at: Some(t(0)),
            ..EventDetails::default()
        },
    };
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({
            "eventType": 12,
            "occurredAt": "2025-06-01T08:00:10Z",
            "latitude": 52.0,
            "details": {
                "value": 101.0,
                "threshold": 90.0,
                "quantity": "speed",
                "episodeStartedAt": "2025-06-01T08:00:00Z"
            }
        })
    );
    assert_eq!(Quantity::Speed.unit(), "km/h");
}

#[test]
fn points_deserialize_from_camel_case() {
    let point: Point = serde_json::from_value(json!({
        "timestamp": "2025-06-01T08:00:00Z",
        "latitude": 52.0,
        "longitude": 13.0,
        "adBlueLevel": 30.5,
        "engineSpeed": 1200,
        "signals": {"hardCornering": true, "powerDisconnected": false}
    }))
    .unwrap();
    assert_eq!(point.ad_blue_level, Some(30.5));
    assert_eq!(point.engine_speed, Some(1200.0));
    assert_eq!(point.signals.hard_cornering, Some(true));
    assert_eq!(point.signals.power_disconnected, Some(false));
    assert_eq!(point.speed, None);
    let back: Point = serde_json::from_value(serde_json::to_value(&point).unwrap()).unwrap();
    assert_eq!(back, point);
    let thresholds: Thresholds = serde_json::from_value(json!({"speedLimit": 90})).unwrap();
    assert_eq!(thresholds.speed_limit, Some(90.0));
}

#[test]
fn config_time_window() {
    let config = Config::default();
    assert_eq!(config.cutoff, Duration::days(7));
    assert_eq!(config.future_skew, Duration::minutes(5));
    let now = t(1_000_000);
    assert!(config.accepts_timestamp(now, now));
    assert!(config.accepts_timestamp(now - Duration::days(7), now));
    assert!(!config.accepts_timestamp(now - Duration::days(7) - Duration::seconds(1), now));
    assert!(config.accepts_timestamp(now + Duration::minutes(5), now));
    assert!(!config.accepts_timestamp(now + Duration::minutes(5) + Duration::seconds(1), now));
}
