//! InputPowerDisconnected from the voltage and from the device flag.

use crate::testkit::{Run, p, t};
use crate::{EventType, Point, Quantity, Signals};

fn volts(secs: i64, v: f64) -> Point {
    Point {
        input_voltage: Some(v),
        ..p(secs)
    }
}

fn flag(secs: i64, disconnected: bool) -> Point {
    Point {
        signals: Signals {
            power_disconnected: Some(disconnected),
            ..Signals::default()
        },
        ..p(secs)
    }
}

#[test]
fn voltage_near_zero_starts_at_once_and_ends_at_three_volts() {
    let mut run = Run::new();
    assert_eq!(run.feed(volts(0, 12.6)), vec![]);
    let events = run.events(volts(10, 0.4));
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_type, EventType::InputPowerDisconnected);
    assert_eq!(events[0].details.value, Some(0.4));
    assert_eq!(events[0].details.threshold, Some(1.0));
    assert_eq!(events[0].details.quantity, Some(Quantity::InputVoltage));
    assert_eq!(events[0].details.episode_started_at, Some(t(10)));
    // Wobble between 1 V and 3 V: same episode.
    let events = run.feed_all([
        volts(20, 0.0),
        volts(30, 1.5),
        volts(40, 0.5),
        volts(50, 2.9),
    ]);
    assert_eq!(events, vec![]);
    assert_eq!(run.feed(volts(60, 12.0)), vec![], "reconnected");
    assert_eq!(run.state.open_episodes(), vec![]);
    assert_eq!(
        run.feed(volts(70, 0.0)),
        vec![EventType::InputPowerDisconnected],
        "again"
    );
}

#[test]
fn flag_starts_and_ends() {
    let mut run = Run::new();
    let events = run.events(flag(0, true));
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_type, EventType::InputPowerDisconnected);
    assert_eq!(events[0].details.value, None);
    assert_eq!(run.feed(flag(10, true)), vec![], "no repeat");
    assert_eq!(run.feed(p(20)), vec![], "absent flag: unchanged");
    assert_eq!(
        run.state.open_episodes(),
        vec![(EventType::InputPowerDisconnected, t(0))]
    );
    assert_eq!(run.feed(flag(30, false)), vec![]);
    assert_eq!(run.state.open_episodes(), vec![]);
    assert_eq!(
        run.feed(flag(40, true)),
        vec![EventType::InputPowerDisconnected]
    );
}

#[test]
fn either_source_keeps_the_episode_open() {
    let mut run = Run::new();
    assert_eq!(
        run.feed(flag(0, true)),
        vec![EventType::InputPowerDisconnected]
    );
    assert_eq!(
        run.feed(volts(10, 0.0)),
        vec![],
        "the voltage joins the open episode"
    );
    assert_eq!(
        run.feed(flag(20, false)),
        vec![],
        "the voltage still says disconnected"
    );
    assert_eq!(run.state.open_episodes().len(), 1);
    assert_eq!(run.feed(volts(30, 12.0)), vec![]);
    assert_eq!(run.state.open_episodes(), vec![]);
    assert_eq!(
        run.feed(volts(40, 0.0)),
        vec![EventType::InputPowerDisconnected]
    );
}

#[test]
fn late_points_change_nothing() {
    let mut run = Run::new();
    run.feed(volts(100, 12.0));
    assert_eq!(run.feed(volts(50, 0.0)), vec![]);
    assert_eq!(run.feed(flag(100, true)), vec![]);
    assert_eq!(run.state.open_episodes(), vec![]);
}
