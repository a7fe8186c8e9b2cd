//! Every threshold event: start after the minimum duration, no repeat, wobble, single
//! sample, end and restart, late points.

use crate::testkit::{Run, p, t};
use crate::{EventType, Point, Quantity, Thresholds};

/// One threshold event's test data.
struct Case {
    event: EventType,
    quantity: Quantity,
    threshold: f64,
    set_threshold: fn(&mut Thresholds, f64),
    set_reading: fn(&mut Point, f64),
    /// Past the threshold.
    crossed: f64,
    /// Back across the threshold but within the margin.
    wobble: f64,
    /// Past the release level.
    released: f64,
    min_secs: i64,
}

impl Case {
    fn run(&self) -> Run {
        let mut thresholds = Thresholds::default();
        (self.set_threshold)(&mut thresholds, self.threshold);
        Run::with_thresholds(thresholds)
    }

    fn point(&self, secs: i64, value: f64) -> Point {
        let mut point = p(secs);
        (self.set_reading)(&mut point, value);
        point
    }

    fn starts_once_after_min_duration(&self) {
        let mut run = self.run();
        assert_eq!(
            run.feed(self.point(0, self.crossed)),
            vec![],
            "one sample is not enough"
        );
        if self.min_secs > 1 {
            assert_eq!(
                run.feed(self.point(self.min_secs - 1, self.crossed)),
                vec![]
            );
        }
        let events = run.events(self.point(self.min_secs, self.crossed));
        assert_eq!(events.len(), 1, "{events:?}");
        let event = &events[0];
        assert_eq!(event.event_type, self.event);
        assert_eq!(event.occurred_at, t(self.min_secs));
        assert_eq!(event.details.episode_started_at, Some(t(0)));
        assert_eq!(event.details.value, Some(self.crossed));
        assert_eq!(event.details.threshold, Some(self.threshold));
        assert_eq!(event.details.quantity, Some(self.quantity));
        assert_eq!(
            run.feed(self.point(self.min_secs + 5, self.crossed)),
            vec![],
            "no repeat"
        );
        assert_eq!(
            run.feed(self.point(self.min_secs + 3600, self.crossed)),
            vec![]
        );
        assert!(run.state.open_episodes().contains(&(self.event, t(0))));
    }

    fn single_sample_raises_nothing(&self) {
        let mut run = self.run();
        let mut events = run.feed(self.point(0, self.released));
        events.extend(run.feed(self.point(10, self.crossed)));
        events.extend(run.feed(self.point(11, self.wobble)));
        events.extend(run.feed(self.point(10 + self.min_secs, self.crossed)));
        events.extend(run.feed(self.point(11 + self.min_secs, self.released)));
        assert_eq!(events, vec![], "each spike was a single sample");
        assert!(
            !run.state
                .open_episodes()
                .iter()
                .any(|(e, _)| *e == self.event)
        );
    }

    fn wobble_raises_one_event(&self) {
        let mut run = self.run();
        let mut events = Vec::new();
        for i in 0..40 {
            let value = if i % 2 == 0 {
                self.crossed
            } else {
                self.wobble
            };
            events.extend(run.feed(self.point(i * self.min_secs, value)));
        }
        // A wobble sample cancels a pending start, so the first crossing pair must be adjacent.
        let mut run2 = self.run();
        events.extend(run2.feed(self.point(0, self.crossed)));
        events.extend(run2.feed(self.point(self.min_secs, self.crossed)));
        for i in 0..40 {
            let value = if i % 2 == 0 {
                self.wobble
            } else {
                self.crossed
            };
            events.extend(run2.feed(self.point(self.min_secs + 1 + i, value)));
        }
        assert_eq!(
            events,
            vec![self.event],
            "only the second run's first crossing counts"
        );
        // Back within the margin, then past the threshold for longer than the minimum
        // duration: still the same episode.
        let m = self.min_secs;
        let events = run2.feed_all([
            self.point(1000, self.wobble),
            self.point(1001, self.crossed),
            self.point(1001 + m, self.crossed),
            self.point(1002 + 2 * m, self.crossed),
        ]);
        assert_eq!(events, vec![], "hysteresis holds the episode open");
    }

    fn ends_and_restarts(&self) {
        let mut run = self.run();
        let m = self.min_secs;
        let mut events = run.feed_all([self.point(0, self.crossed), self.point(m, self.crossed)]);
        assert_eq!(events, vec![self.event]);
        events = run.feed(self.point(m + 1, self.released));
        assert_eq!(events, vec![], "the end raises nothing");
        assert!(
            !run.state
                .open_episodes()
                .iter()
                .any(|(e, _)| *e == self.event)
        );
        events = run.feed_all([
            self.point(m + 2, self.crossed),
            self.point(2 * m + 2, self.crossed),
        ]);
        assert_eq!(events, vec![self.event], "a new episode");
        let open = run.state.open_episodes();
        assert!(open.contains(&(self.event, t(m + 2))), "{open:?}");
    }

    fn late_points_change_nothing(&self) {
        let mut run = self.run();
        let m = self.min_secs;
        run.feed_all([
            self.point(100, self.crossed),
            self.point(100 + m, self.crossed),
        ]);
        let before = run.state.clone();
        assert_eq!(
            run.feed(self.point(100 + m, self.released)),
            vec![],
            "same timestamp"
        );
        assert_eq!(run.feed(self.point(50, self.released)), vec![], "earlier");
        assert_eq!(run.state, before, "the episode is still open");
        // A late crossing while idle neither raises nor starts a pending episode.
        let mut run = self.run();
        run.feed(self.point(1000, self.released));
        assert_eq!(run.feed(self.point(500, self.crossed)), vec![]);
        assert_eq!(
            run.feed(self.point(1000 + m, self.crossed)),
            vec![],
            "pending starts now"
        );
        assert_eq!(
            run.feed(self.point(1000 + 2 * m, self.crossed)),
            vec![self.event]
        );
    }

    fn needs_a_threshold(&self) {
        let mut run = crate::testkit::Run::new();
        let events = run.feed_all((0..10).map(|i| self.point(i * self.min_secs, self.crossed)));
        assert_eq!(events, vec![]);
    }

    fn missing_reading_keeps_the_episode(&self) {
        let mut run = self.run();
        let m = self.min_secs;
        run.feed(self.point(0, self.crossed));
        assert_eq!(run.feed(p(1)), vec![], "no reading: still pending");
        assert_eq!(run.feed(self.point(m, self.crossed)), vec![self.event]);
        assert_eq!(run.feed(p(m + 1)), vec![]);
        assert_eq!(
            run.feed(self.point(m + 2, self.crossed)),
            vec![],
            "still open"
        );
    }
}

macro_rules! threshold_cases {
    ($($name:ident: $case:expr;)+) => {$(
        mod $name {
            use super::*;

            fn case() -> Case {
                $case
            }

            #[test]
            fn starts_once_after_min_duration() {
                case().starts_once_after_min_duration();
            }

            #[test]
            fn single_sample_raises_nothing() {
                case().single_sample_raises_nothing();
            }

            #[test]
            fn wobble_raises_one_event() {
                case().wobble_raises_one_event();
            }

            #[test]
            fn ends_and_restarts() {
                case().ends_and_restarts();
            }

            #[test]
            fn late_points_change_nothing() {
                case().late_points_change_nothing();
            }

            #[test]
            fn needs_a_threshold() {
                case().needs_a_threshold();
            }

            #[test]
            fn missing_reading_keeps_the_episode() {
                case().missing_reading_keeps_the_episode();
            }
        }
    )+};
}

threshold_cases! {
    input_voltage_low: Case {
        event: EventType::InputVoltageLow,
        quantity: Quantity::InputVoltage,
        threshold: 11.5,
        set_threshold: |th, v| th.input_voltage_low = Some(v),
        set_reading: |p, v| p.input_voltage = Some(v),
        crossed: 11.0,
        wobble: 11.8,
        released: 12.5,
        min_secs: 30,
    };
    battery_voltage_low: Case {
        event: EventType::BatteryLow,
        quantity: Quantity::BatteryVoltage,
        threshold: 3.6,
        set_threshold: |th, v| th.battery_voltage_low = Some(v),
        set_reading: |p, v| p.battery_voltage = Some(v),
        crossed: 3.5,
        wobble: 3.65,
        released: 3.8,
        min_secs: 60,
    };
    battery_percentage_low: Case {
        event: EventType::BatteryLow,
        quantity: Quantity::BatteryPercentage,
        threshold: 20.0,
        set_threshold: |th, v| th.battery_percentage_low = Some(v),
        set_reading: |p, v| p.battery_percentage = Some(v),
        crossed: 15.0,
        wobble: 22.0,
        released: 30.0,
        min_secs: 60,
    };
    fuel_level_low: Case {
        event: EventType::FuelLevelLow,
        quantity: Quantity::FuelLevel,
        threshold: 15.0,
        set_threshold: |th, v| th.fuel_level_low = Some(v),
        set_reading: |p, v| p.fuel_level = Some(v),
        crossed: 10.0,
        wobble: 17.0,
        released: 25.0,
        min_secs: 60,
    };
    ad_blue_level_low: Case {
        event: EventType::AdBlueLevelLow,
        quantity: Quantity::AdBlueLevel,
        threshold: 10.0,
        set_threshold: |th, v| th.ad_blue_level_low = Some(v),
        set_reading: |p, v| p.ad_blue_level = Some(v),
        crossed: 5.0,
        wobble: 12.0,
        released: 20.0,
        min_secs: 60,
    };
    temperature_high: Case {
        event: EventType::TemperatureHigh,
        quantity: Quantity::Temperature,
        threshold: 8.0,
        set_threshold: |th, v| th.temperature_high = Some(v),
        set_reading: |p, v| p.temperature = Some(v),
        crossed: 9.0,
        wobble: 7.5,
        released: 6.0,
        min_secs: 60,
    };
    temperature_low: Case {
        event: EventType::TemperatureLow,
        quantity: Quantity::Temperature,
        threshold: -20.0,
        set_threshold: |th, v| th.temperature_low = Some(v),
        set_reading: |p, v| p.temperature = Some(v),
        crossed: -21.0,
        wobble: -19.5,
        released: -18.0,
        min_secs: 60,
    };
    pressure_high: Case {
        event: EventType::PressureHigh,
        quantity: Quantity::Pressure,
        threshold: 900.0,
        set_threshold: |th, v| th.pressure_high = Some(v),
        set_reading: |p, v| p.pressure = Some(v),
        crossed: 950.0,
        wobble: 895.0,
        released: 850.0,
        min_secs: 30,
    };
    pressure_low: Case {
        event: EventType::PressureLow,
        quantity: Quantity::Pressure,
        threshold: 200.0,
        set_threshold: |th, v| th.pressure_low = Some(v),
        set_reading: |p, v| p.pressure = Some(v),
        crossed: 180.0,
        wobble: 205.0,
        released: 220.0,
        min_secs: 30,
    };
    speed_limit_exceeded: Case {
        event: EventType::SpeedLimitExceeded,
        quantity: Quantity::Speed,
        threshold: 90.0,
        set_threshold: |th, v| th.speed_limit = Some(v),
        set_reading: |p, v| p.speed = Some(v),
        crossed: 100.0,
        wobble: 88.0,
        released: 80.0,
        min_secs: 10,
    };
    engine_speed_limit_exceeded: Case {
        event: EventType::EngineSpeedLimitExceeded,
        quantity: Quantity::EngineSpeed,
        threshold: 3000.0,
        set_threshold: |th, v| th.engine_speed_limit = Some(v),
        set_reading: |p, v| p.engine_speed = Some(v),
        crossed: 3500.0,
        wobble: 2900.0,
        released: 2500.0,
        min_secs: 10,
    };
}

#[test]
fn battery_low_is_one_episode_for_both_sources() {
    let mut run = Run::with_thresholds(Thresholds {
        battery_voltage_low: Some(3.6),
        battery_percentage_low: Some(20.0),
        ..Thresholds::default()
    });
    let point = |secs, volts, percent| Point {
        battery_voltage: Some(volts),
        battery_percentage: Some(percent),
        ..p(secs)
    };
    let events = run.events(point(0, 3.5, 50.0));
    assert_eq!(events, vec![]);
    let events = run.events(point(60, 3.5, 15.0));
    assert_eq!(events.len(), 1, "voltage opens the episode: {events:?}");
    assert_eq!(events[0].details.quantity, Some(Quantity::BatteryVoltage));
    assert_eq!(events[0].details.value, Some(3.5));
    // Percentage opens too, voltage recovers: still one episode, no event.
    assert_eq!(run.feed(point(120, 3.9, 15.0)), vec![]);
    assert_eq!(
        run.state.open_episodes(),
        vec![(EventType::BatteryLow, t(60))]
    );
    // Both recover: ended; then percentage alone starts a new one.
    assert_eq!(run.feed(point(180, 3.9, 30.0)), vec![]);
    assert_eq!(run.state.open_episodes(), vec![]);
    assert_eq!(run.feed(point(240, 3.9, 10.0)), vec![]);
    let events = run.events(point(300, 3.9, 10.0));
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].details.quantity,
        Some(Quantity::BatteryPercentage)
    );
    assert_eq!(events[0].details.threshold, Some(20.0));
}

#[test]
fn input_voltage_low_ignores_a_disconnected_input() {
    let mut run = Run::with_thresholds(Thresholds {
        input_voltage_low: Some(11.5),
        ..Thresholds::default()
    });
    let volts = |secs, v| Point {
        input_voltage: Some(v),
        ..p(secs)
    };
    let events = run.feed_all([volts(0, 0.2), volts(60, 0.1), volts(120, 0.0)]);
    assert_eq!(
        events,
        vec![EventType::InputPowerDisconnected],
        "not InputVoltageLow"
    );
    let events = run.feed_all([volts(180, 11.0), volts(240, 11.0)]);
    assert_eq!(events, vec![EventType::InputVoltageLow], "reconnected low");
}

#[test]
fn threshold_removed_or_changed() {
    let mut run = Run::with_thresholds(Thresholds {
        speed_limit: Some(90.0),
        ..Thresholds::default()
    });
    let speed = |secs, v| Point {
        speed: Some(v),
        ..p(secs)
    };
    assert_eq!(
        run.feed_all([speed(0, 100.0), speed(10, 100.0)]),
        vec![EventType::SpeedLimitExceeded]
    );
    run.thresholds.speed_limit = None;
    assert_eq!(run.feed(speed(20, 100.0)), vec![]);
    let open = run.state.open_episodes();
    assert!(
        !open.iter().any(|e| e.0 == EventType::SpeedLimitExceeded),
        "reset silently"
    );
    run.thresholds.speed_limit = Some(120.0);
    assert_eq!(run.feed_all([speed(30, 100.0), speed(40, 100.0)]), vec![]);
    assert_eq!(
        run.feed_all([speed(50, 130.0), speed(60, 125.0)]),
        vec![EventType::SpeedLimitExceeded]
    );
}

#[test]
fn temperature_high_and_low_share_the_reading() {
    let mut run = Run::with_thresholds(Thresholds {
        temperature_low: Some(2.0),
        temperature_high: Some(8.0),
        ..Thresholds::default()
    });
    let temp = |secs, v| Point {
        temperature: Some(v),
        ..p(secs)
    };
    let events = run.feed_all([temp(0, 9.0), temp(60, 9.0), temp(120, 1.0), temp(180, 1.0)]);
    assert_eq!(
        events,
        vec![EventType::TemperatureHigh, EventType::TemperatureLow]
    );
    let open: Vec<_> = run
        .state
        .open_episodes()
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(
        open,
        vec![EventType::TemperatureLow],
        "the high episode ended at 1 °C"
    );
}

/// A threshold written as a decimal, and the release level the spec names, both as written.
struct DecimalCase {
    event: EventType,
    set_threshold: fn(&mut Thresholds, f64),
    set_reading: fn(&mut Point, f64),
    threshold: f64,
    crossed: f64,
    /// Within the margin: the episode stays open.
    inside: f64,
    /// Exactly threshold ± margin, in decimal.
    release: f64,
    min_secs: i64,
}

#[test]
fn decimal_thresholds_end_exactly_at_threshold_plus_or_minus_margin() {
    let cases = [
        // 1.506 + 0.5 is 2.0060000000000002 in binary.
        DecimalCase {
            event: EventType::InputVoltageLow,
            set_threshold: |th, v| th.input_voltage_low = Some(v),
            set_reading: |p, v| p.input_voltage = Some(v),
            threshold: 1.506,
            crossed: 1.2,
            inside: 2.005,
            release: 2.006,
            min_secs: 30,
        },
        // The audit's case: 3.2 + 0.1 is 3.3000000000000003.
        DecimalCase {
            event: EventType::BatteryLow,
            set_threshold: |th, v| th.battery_voltage_low = Some(v),
            set_reading: |p, v| p.battery_voltage = Some(v),
            threshold: 3.2,
            crossed: 3.1,
            inside: 3.29,
            release: 3.3,
            min_secs: 60,
        },
        // "4.1" as a string decodes to the same double as 4.1; 4.1 + 0.1 is 4.199999999999999.
        DecimalCase {
            event: EventType::BatteryLow,
            set_threshold: |th, v| th.battery_voltage_low = Some(v),
            set_reading: |p, v| p.battery_voltage = Some(v),
            threshold: "4.1".parse().unwrap(),
            crossed: 4.0,
            inside: 4.19,
            release: 4.2,
            min_secs: 60,
        },
        DecimalCase {
            event: EventType::BatteryLow,
            set_threshold: |th, v| th.battery_percentage_low = Some(v),
            set_reading: |p, v| p.battery_percentage = Some(v),
            threshold: 15.01,
            crossed: 15.0,
            inside: 20.0,
            release: 20.01,
            min_secs: 60,
        },
        DecimalCase {
            event: EventType::FuelLevelLow,
            set_threshold: |th, v| th.fuel_level_low = Some(v),
            set_reading: |p, v| p.fuel_level = Some(v),
            threshold: 11.01,
            crossed: 11.0,
            inside: 16.0,
            release: 16.01,
            min_secs: 60,
        },
        DecimalCase {
            event: EventType::AdBlueLevelLow,
            set_threshold: |th, v| th.ad_blue_level_low = Some(v),
            set_reading: |p, v| p.ad_blue_level = Some(v),
            threshold: 5.03,
            crossed: 5.0,
            inside: 10.0,
            release: 10.03,
            min_secs: 60,
        },
        // The audit's case: 8.2 - 1 is 7.199999999999999.
        DecimalCase {
            event: EventType::TemperatureHigh,
            set_threshold: |th, v| th.temperature_high = Some(v),
            set_reading: |p, v| p.temperature = Some(v),
            threshold: 8.2,
            crossed: 8.3,
            inside: 7.21,
            release: 7.2,
            min_secs: 60,
        },
        DecimalCase {
            event: EventType::TemperatureLow,
            set_threshold: |th, v| th.temperature_low = Some(v),
            set_reading: |p, v| p.temperature = Some(v),
            threshold: -16.9,
            crossed: -17.0,
            inside: -15.91,
            release: -15.9,
            min_secs: 60,
        },
        DecimalCase {
            event: EventType::PressureHigh,
            set_threshold: |th, v| th.pressure_high = Some(v),
            set_reading: |p, v| p.pressure = Some(v),
            threshold: 128.2,
            crossed: 130.0,
            inside: 118.21,
            release: 118.2,
            min_secs: 30,
        },
        DecimalCase {
            event: EventType::PressureLow,
            set_threshold: |th, v| th.pressure_low = Some(v),
            set_reading: |p, v| p.pressure = Some(v),
            threshold: 246.04,
            crossed: 246.0,
            inside: 256.03,
            release: 256.04,
            min_secs: 30,
        },
        // Integer limits (uint32) against decimal readings.
        DecimalCase {
            event: EventType::SpeedLimitExceeded,
            set_threshold: |th, v| th.speed_limit = Some(v),
            set_reading: |p, v| p.speed = Some(v),
            threshold: 90.0,
            crossed: 90.1,
            inside: 85.1,
            release: 85.0,
            min_secs: 10,
        },
        DecimalCase {
            event: EventType::EngineSpeedLimitExceeded,
            set_threshold: |th, v| th.engine_speed_limit = Some(v),
            set_reading: |p, v| p.engine_speed = Some(v),
            threshold: 3000.0,
            crossed: 3000.5,
            inside: 2800.1,
            release: 2800.0,
            min_secs: 10,
        },
    ];
    for case in &cases {
        let mut thresholds = Thresholds::default();
        (case.set_threshold)(&mut thresholds, case.threshold);
        let mut run = Run::with_thresholds(thresholds);
        let point = |secs, value| {
            let mut point = p(secs);
            (case.set_reading)(&mut point, value);
            point
        };
        let m = case.min_secs;
        let what = format!("{:?} at {}", case.event, case.threshold);
        assert_eq!(
            run.feed_all([point(0, case.crossed), point(m, case.crossed)]),
            vec![case.event],
            "{what}: starts"
        );
        run.feed(point(m + 1, case.inside));
        let open = |run: &Run| run.state.open_episodes().iter().any(|e| e.0 == case.event);
        assert!(open(&run), "{what}: {} is within the margin", case.inside);
        run.feed(point(m + 2, case.release));
        assert!(!open(&run), "{what}: {} ends the episode", case.release);
        assert_eq!(
            run.feed_all([point(m + 3, case.crossed), point(2 * m + 3, case.crossed)]),
            vec![case.event],
            "{what}: a new episode after the end"
        );
    }
}
