//! Ignition, movement and engine idling.

use crate::testkit::{Run, at, p, t};
use crate::{EventType, Point};

const LAT: f64 = 52.5;
const LON: f64 = 13.4;
/// About 11 m of latitude.
const STEP: f64 = 0.0001;

fn ignition(secs: i64, on: bool) -> Point {
    Point {
        ignition: Some(on),
        ..p(secs)
    }
}

fn speed(secs: i64, kmh: f64) -> Point {
    Point {
        speed: Some(kmh),
        ..p(secs)
    }
}

/// Position `steps` * 11 m north of the start, with a speed.
fn drive(secs: i64, steps: f64, kmh: f64) -> Point {
    Point {
        speed: Some(kmh),
        ..at(secs, LAT + steps * STEP, LON)
    }
}

mod ignition {
    use super::*;

    #[test]
    fn first_value_sets_the_state_without_an_event() {
        let mut run = Run::new();
        assert_eq!(run.feed(ignition(0, true)), vec![]);
        assert_eq!(
            run.state.open_episodes(),
            vec![(EventType::IgnitionTurnedOn, t(0))]
        );
        let mut run = Run::new();
        assert_eq!(run.feed(ignition(0, false)), vec![]);
        assert_eq!(
            run.state.open_episodes(),
            vec![(EventType::IgnitionTurnedOff, t(0))]
        );
    }

    #[test]
    fn changes_raise_events_once() {
        let mut run = Run::new();
        let events = run.feed_all([
            ignition(0, false),
            ignition(10, true),
            ignition(20, true),
            p(30),
            ignition(40, false),
            ignition(50, false),
            ignition(60, true),
        ]);
        assert_eq!(
            events,
            vec![
                EventType::IgnitionTurnedOn,
                EventType::IgnitionTurnedOff,
                EventType::IgnitionTurnedOn
            ]
        );
        assert_eq!(
            run.state.open_episodes(),
            vec![(EventType::IgnitionTurnedOn, t(60))]
        );
    }

    #[test]
    fn late_points_change_nothing() {
        let mut run = Run::new();
        run.feed(ignition(100, false));
        assert_eq!(run.feed(ignition(50, true)), vec![]);
        assert_eq!(run.feed(ignition(100, true)), vec![]);
        assert_eq!(run.feed(ignition(110, false)), vec![], "still off");
        assert_eq!(
            run.feed(ignition(120, true)),
            vec![EventType::IgnitionTurnedOn]
        );
    }
}

mod movement {
    use super::*;

    #[test]
    fn first_point_sets_the_state_without_an_event() {
        let mut run = Run::new();
        assert_eq!(run.feed(drive(0, 0.0, 80.0)), vec![]);
        assert_eq!(
            run.state.open_episodes(),
            vec![(EventType::MovementStarted, t(0))]
        );
        let mut run = Run::new();
        assert_eq!(run.feed(drive(0, 0.0, 0.0)), vec![]);
        assert_eq!(
            run.state.open_episodes(),
            vec![(EventType::MovementStopped, t(0))]
        );
    }

    #[test]
    fn starts_after_sustained_speed() {
        let mut run = Run::new();
        run.feed(drive(0, 0.0, 0.0));
        assert_eq!(run.feed(speed(10, 20.0)), vec![], "debounce");
        assert_eq!(run.feed(speed(20, 20.0)), vec![]);
        let events = run.events(speed(30, 20.0));
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type, EventType::MovementStarted);
        assert_eq!(events[0].details.episode_started_at, Some(t(10)));
        assert_eq!(events[0].latitude, Some(LAT), "last known position");
        assert_eq!(run.feed(speed(40, 60.0)), vec![], "no repeat");
    }

    #[test]
    fn a_speed_spike_at_rest_raises_nothing() {
        let mut run = Run::new();
        let events = run.feed_all([
            drive(0, 0.0, 0.0),
            drive(10, 0.0, 7.0),
            drive(20, 0.0, 4.0),
            drive(30, 0.0, 7.0),
            drive(40, 0.0, 1.0),
            drive(60, 0.0, 6.0),
            drive(70, 0.0, 0.0),
        ]);
        assert_eq!(events, vec![]);
    }

    #[test]
    fn starts_on_distance_from_the_rest_position() {
        let mut run = Run::new();
        run.feed(at(0, LAT, LON));
        assert_eq!(
            run.feed(at(60, LAT + 5.0 * STEP, LON)),
            vec![],
            "55 m: drift"
        );
        assert_eq!(
            run.feed(at(120, LAT - 5.0 * STEP, LON)),
            vec![],
            "55 m the other way"
        );
        let events = run.events(at(180, LAT + 10.0 * STEP, LON));
        assert_eq!(events.len(), 1, "111 m from the rest position");
        assert_eq!(events[0].event_type, EventType::MovementStarted);
        assert_eq!(events[0].details.episode_started_at, Some(t(180)));
    }

    #[test]
    fn a_gps_jump_with_zero_speed_is_not_movement() {
        let mut run = Run::new();
        run.feed(drive(0, 0.0, 0.0));
        assert_eq!(
            run.feed(drive(60, 50.0, 0.0)),
            vec![],
            "550 m jump, speed 0"
        );
        assert_eq!(run.feed(drive(120, 0.0, 0.0)), vec![]);
        assert_eq!(
            run.state.open_episodes(),
            vec![(EventType::MovementStopped, t(0))]
        );
    }

    #[test]
    fn stops_after_three_minutes_of_standstill() {
        let mut run = Run::new();
        run.feed(drive(0, 0.0, 50.0));
        let mut events = Vec::new();
        // A traffic light: 90 s of standstill.
        events.extend(run.feed(drive(30, 40.0, 0.0)));
        events.extend(run.feed(drive(120, 40.0, 0.0)));
        events.extend(run.feed(drive(150, 80.0, 40.0)));
        assert_eq!(events, vec![], "a traffic light is not a stop");
        // Parked.
        assert_eq!(run.feed(drive(200, 120.0, 1.0)), vec![]);
        assert_eq!(run.feed(drive(300, 120.0, 0.0)), vec![]);
        let events = run.events(drive(380, 120.0, 0.0));
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type, EventType::MovementStopped);
        assert_eq!(events[0].details.episode_started_at, Some(t(200)));
        assert_eq!(run.feed(drive(600, 120.0, 0.0)), vec![], "no repeat");
        assert_eq!(
            run.state.open_episodes(),
            vec![(EventType::MovementStopped, t(200))]
        );
    }

    #[test]
    fn full_trip_starts_and_stops_each_time() {
        let mut run = Run::new();
        let mut points = vec![drive(0, 0.0, 0.0)];
        let mut secs = 0;
        let mut steps = 0.0;
        for _trip in 0..3 {
            for _ in 0..10 {
                secs += 10;
                steps += 25.0;
                points.push(drive(secs, steps, 90.0));
            }
            for _ in 0..30 {
                secs += 10;
                points.push(drive(secs, steps, 0.0));
            }
        }
        let events = run.feed_all(points);
        use EventType::{MovementStarted as S, MovementStopped as E};
        assert_eq!(events, vec![S, E, S, E, S, E]);
    }

    #[test]
    fn without_speed_a_position_within_fifty_metres_is_standstill() {
        let mut run = Run::new();
        run.feed(at(0, LAT, LON));
        assert_eq!(
            run.feed(at(60, LAT + 100.0 * STEP, LON)),
            vec![EventType::MovementStarted]
        );
        assert_eq!(run.feed(at(120, LAT + 200.0 * STEP, LON)), vec![]);
        assert_eq!(
            run.feed(at(180, LAT + 203.0 * STEP, LON)),
            vec![],
            "33 m: pending stop"
        );
        assert_eq!(run.feed(at(300, LAT + 201.0 * STEP, LON)), vec![]);
        assert_eq!(
            run.feed(at(360, LAT + 204.0 * STEP, LON)),
            vec![EventType::MovementStopped]
        );
        assert_eq!(
            run.feed(at(420, LAT + 300.0 * STEP, LON)),
            vec![EventType::MovementStarted]
        );
    }

    #[test]
    fn late_points_change_nothing() {
        let mut run = Run::new();
        run.feed(drive(100, 0.0, 0.0));
        run.feed(drive(110, 0.0, 20.0));
        let before = run.state.clone();
        assert_eq!(run.feed(drive(50, 500.0, 90.0)), vec![]);
        assert_eq!(run.feed(drive(110, 500.0, 90.0)), vec![]);
        assert_eq!(run.state, before);
        assert_eq!(
            run.feed(drive(130, 0.0, 20.0)),
            vec![EventType::MovementStarted]
        );
    }
}

mod idling {
    use super::*;

    fn idle(secs: i64) -> Point {
        Point {
            ignition: Some(true),
            ..drive(secs, 0.0, 0.0)
        }
    }

    #[test]
    fn five_minutes_with_ignition_on_and_no_movement() {
        let mut run = Run::new();
        run.feed(idle(0));
        let mut events = Vec::new();
        for secs in (60..300).step_by(60) {
            events.extend(run.feed(idle(secs)));
        }
        assert_eq!(events, vec![], "not yet five minutes");
        let events = run.events(idle(300));
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type, EventType::EngineIdling);
        assert_eq!(events[0].details.episode_started_at, Some(t(0)));
        assert_eq!(run.feed(idle(600)), vec![], "no repeat");
        assert!(
            run.state
                .open_episodes()
                .contains(&(EventType::EngineIdling, t(0)))
        );
    }

    #[test]
    fn ends_with_ignition_off_or_movement_and_restarts() {
        let mut run = Run::new();
        assert_eq!(
            run.feed_all([idle(0), idle(300)]),
            vec![EventType::EngineIdling]
        );
        assert_eq!(
            run.feed(ignition(310, false)),
            vec![EventType::IgnitionTurnedOff]
        );
        assert!(
            !run.state
                .open_episodes()
                .iter()
                .any(|e| e.0 == EventType::EngineIdling)
        );
        assert_eq!(
            run.feed_all([idle(400), idle(700)]),
            vec![EventType::IgnitionTurnedOn, EventType::EngineIdling]
        );
        // Moving ends it; a short stop does not restart it.
        assert_eq!(run.feed(speed(710, 30.0)), vec![]);
        assert!(
            !run.state
                .open_episodes()
                .iter()
                .any(|e| e.0 == EventType::EngineIdling)
        );
        assert_eq!(
            run.feed_all([idle(720), idle(900), drive(910, 0.0, 30.0)]),
            vec![]
        );
    }

    #[test]
    fn a_speed_in_the_dead_band_changes_nothing() {
        let mut run = Run::new();
        let crawl = |secs| Point {
            speed: Some(4.0),
            ..idle(secs)
        };
        assert_eq!(
            run.feed_all([idle(0), crawl(100), idle(300)]),
            vec![EventType::EngineIdling]
        );
    }

    #[test]
    fn needs_a_known_ignition() {
        let mut run = Run::new();
        let events = run.feed_all((0..20).map(|i| drive(i * 60, 0.0, 0.0)));
        assert_eq!(events, vec![]);
    }

    #[test]
    fn ignition_from_an_earlier_point_counts() {
        let mut run = Run::new();
        run.feed(ignition(0, true));
        let events = run.feed_all([
            drive(10, 0.0, 0.0),
            drive(200, 0.0, 0.0),
            drive(310, 0.0, 0.0),
        ]);
        assert_eq!(events, vec![EventType::EngineIdling]);
    }

    #[test]
    fn late_points_change_nothing() {
        let mut run = Run::new();
        run.feed(idle(400));
        assert_eq!(run.feed(idle(0)), vec![]);
        assert_eq!(run.feed(idle(600)), vec![], "pending since 400, not 0");
        assert_eq!(run.feed(idle(700)), vec![EventType::EngineIdling]);
    }
}
