//! Threshold episodes with hysteresis and a minimum duration.

use chrono::{DateTime, Utc};

use super::Emitter;
use crate::config::{Config, Hysteresis};
use crate::exact;
use crate::state::{Condition, Episodes, Phase};
use crate::types::{EventDetails, Point, Quantity, Thresholds, finite};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Crossed strictly below the threshold; released at `threshold + margin` or above.
    Below,
    /// Crossed strictly above the threshold; released at `threshold - margin` or below.
    Above,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Limit {
    pub threshold: f64,
    pub direction: Direction,
    pub hysteresis: Hysteresis,
}

impl Limit {
    fn crossed(&self, value: f64) -> bool {
        match self.direction {
            Direction::Below => exact::compare(value, self.threshold, 0.0).is_lt(),
            Direction::Above => exact::compare(value, self.threshold, 0.0).is_gt(),
        }
    }

    fn released(&self, value: f64) -> bool {
        let margin = self.hysteresis.margin;
        match self.direction {
            Direction::Below => exact::compare(value, self.threshold, margin).is_ge(),
            Direction::Above => exact::compare(value, self.threshold, -margin).is_le(),
        }
    }
}

/// Advances one condition by one sample. Returns the episode's first sample when this sample
/// confirms a new episode. Without a limit the condition is reset silently; without a value
/// nothing changes.
pub(crate) fn step(
    phase: &mut Phase,
    limit: Option<Limit>,
    value: Option<f64>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let Some(limit) = limit else {
        *phase = Phase::Idle;
        return None;
    };
    let value = value?;
    match *phase {
        Phase::Open(_) => {
            if limit.released(value) {
                *phase = Phase::Idle;
            }
            None
        }
        _ if !limit.crossed(value) => {
            *phase = Phase::Idle;
            None
        }
        Phase::Pending(since) => confirm(phase, since, now, limit.hysteresis),
        Phase::Idle => confirm(phase, now, now, limit.hysteresis),
    }
}

fn confirm(
    phase: &mut Phase,
    since: DateTime<Utc>,
    now: DateTime<Utc>,
    hysteresis: Hysteresis,
) -> Option<DateTime<Utc>> {
    if now - since >= hysteresis.min_duration {
        *phase = Phase::Open(since);
        Some(since)
    } else {
        *phase = Phase::Pending(since);
        None
    }
}

fn limit(threshold: Option<f64>, direction: Direction, hysteresis: Hysteresis) -> Option<Limit> {
    finite(threshold).map(|threshold| Limit {
        threshold,
        direction,
        hysteresis,
    })
}

/// A threshold check: the condition, its limit and the sample's reading.
pub(crate) struct Check {
    pub condition: Condition,
    pub quantity: Quantity,
    pub limit: Option<Limit>,
    pub value: Option<f64>,
}

impl Check {
    /// Steps the condition; the event's start and details if this sample confirmed one.
    pub(crate) fn run(
        &self,
        episodes: &mut Episodes,
        now: DateTime<Utc>,
    ) -> Option<(DateTime<Utc>, EventDetails)> {
        let since = step(
            episodes.get_mut(self.condition),
            self.limit,
            self.value,
            now,
        )?;
        let details = EventDetails {
            value: self.value,
            threshold: self.limit.map(|l| l.threshold),
            quantity: Some(self.quantity),
            ..EventDetails::default()
        };
        Some((since, details))
    }
}

/// Every threshold episode except InputPowerDisconnected (see `power`).
pub(crate) fn detect(
    config: &Config,
    thresholds: &Thresholds,
    point: &Point,
    episodes: &mut Episodes,
    emitter: &mut Emitter,
) {
    use Direction::{Above, Below};
    let check = |condition, quantity, threshold, direction, hysteresis, value| Check {
        condition,
        quantity,
        limit: limit(threshold, direction, hysteresis),
        value: finite(value),
    };
    // A disconnected input (near 0 V) is InputPowerDisconnected, not a low voltage.
    let input_voltage = point
        .input_voltage
        .filter(|v| *v >= config.power_disconnected_below);
    let single = [
        check(
            Condition::InputVoltageLow,
            Quantity::InputVoltage,
            thresholds.input_voltage_low,
            Below,
            config.input_voltage,
            input_voltage,
        ),
        check(
            Condition::SpeedLimitExceeded,
            Quantity::Speed,
            thresholds.speed_limit,
            Above,
            config.speed,
            point.speed,
        ),
        check(
            Condition::FuelLevelLow,
            Quantity::FuelLevel,
            thresholds.fuel_level_low,
            Below,
            config.fuel_level,
            point.fuel_level,
        ),
        check(
            Condition::AdBlueLevelLow,
            Quantity::AdBlueLevel,
            thresholds.ad_blue_level_low,
            Below,
            config.ad_blue_level,
            point.ad_blue_level,
        ),
        check(
            Condition::TemperatureHigh,
            Quantity::Temperature,
            thresholds.temperature_high,
            Above,
            config.temperature,
            point.temperature,
        ),
        check(
            Condition::TemperatureLow,
            Quantity::Temperature,
            thresholds.temperature_low,
            Below,
            config.temperature,
            point.temperature,
        ),
        check(
            Condition::PressureHigh,
            Quantity::Pressure,
            thresholds.pressure_high,
            Above,
            config.pressure,
            point.pressure,
        ),
        check(
            Condition::PressureLow,
            Quantity::Pressure,
            thresholds.pressure_low,
            Below,
            config.pressure,
            point.pressure,
        ),
        check(
            Condition::EngineSpeedLimitExceeded,
            Quantity::EngineSpeed,
            thresholds.engine_speed_limit,
            Above,
            config.engine_speed,
            point.engine_speed,
        ),
    ];
    for check in &single {
        if let Some((since, details)) = check.run(episodes, emitter.timestamp) {
            emitter.emit(check.condition.event_type(), since, details);
        }
    }
    // BatteryLow has two sources: open while either is open, one event when the first opens.
    let battery = [
        check(
            Condition::BatteryVoltageLow,
            Quantity::BatteryVoltage,
            thresholds.battery_voltage_low,
            Below,
            config.battery_voltage,
            point.battery_voltage,
        ),
        check(
            Condition::BatteryPercentageLow,
            Quantity::BatteryPercentage,
            thresholds.battery_percentage_low,
            Below,
            config.battery_percentage,
            point.battery_percentage,
        ),
    ];
    let was_open = battery.iter().any(|c| episodes.get(c.condition).is_open());
    let mut first = None;
    for check in &battery {
        let confirmed = check.run(episodes, emitter.timestamp);
        first = first.or(confirmed);
    }
    if let (false, Some((since, details))) = (was_open, first) {
        emitter.emit(crate::types::EventType::BatteryLow, since, details);
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;
    use crate::testkit::t;

    fn below(threshold: f64, margin: f64, min_secs: i64) -> Option<Limit> {
        Some(Limit {
            threshold,
            direction: Direction::Below,
            hysteresis: Hysteresis::new(margin, min_secs),
        })
    }

    #[test]
    fn step_walks_idle_pending_open_idle() {
        let mut phase = Phase::Idle;
        let limit = below(10.0, 1.0, 30);
        assert_eq!(step(&mut phase, limit, Some(9.0), t(0)), None);
        assert_eq!(phase, Phase::Pending(t(0)));
        assert_eq!(
            step(&mut phase, limit, None, t(10)),
            None,
            "no reading: unchanged"
        );
        assert_eq!(phase, Phase::Pending(t(0)));
        assert_eq!(step(&mut phase, limit, Some(9.5), t(30)), Some(t(0)));
        assert_eq!(phase, Phase::Open(t(0)));
        assert_eq!(
            step(&mut phase, limit, Some(10.9), t(40)),
            None,
            "inside the margin"
        );
        assert_eq!(phase, Phase::Open(t(0)));
        assert_eq!(step(&mut phase, limit, Some(11.0), t(50)), None, "released");
        assert_eq!(phase, Phase::Idle);
    }

    #[test]
    fn threshold_itself_is_not_crossed() {
        let mut phase = Phase::Idle;
        assert_eq!(
            step(&mut phase, below(10.0, 1.0, 0), Some(10.0), t(0)),
            None
        );
        assert_eq!(phase, Phase::Idle);
        assert_eq!(
            step(&mut phase, below(10.0, 1.0, 0), Some(9.99), t(1)),
            Some(t(1))
        );
    }

    #[test]
    fn pending_is_cancelled_by_a_safe_sample() {
        let mut phase = Phase::Idle;
        let limit = below(10.0, 1.0, 30);
        step(&mut phase, limit, Some(9.0), t(0));
        step(&mut phase, limit, Some(10.0), t(20));
        assert_eq!(phase, Phase::Idle);
        assert_eq!(
            step(&mut phase, limit, Some(9.0), t(40)),
            None,
            "restarts the wait"
        );
        assert_eq!(phase, Phase::Pending(t(40)));
    }

    #[test]
    fn removed_threshold_resets_silently() {
        let mut phase = Phase::Open(t(0));
        assert_eq!(step(&mut phase, None, Some(1.0), t(10)), None);
        assert_eq!(phase, Phase::Idle);
    }

    #[test]
    fn high_limits_mirror_low_ones() {
        let limit = Some(Limit {
            threshold: 90.0,
            direction: Direction::Above,
            hysteresis: Hysteresis {
                margin: 5.0,
                min_duration: Duration::zero(),
            },
        });
        let mut phase = Phase::Idle;
        assert_eq!(step(&mut phase, limit, Some(90.0), t(0)), None);
        assert_eq!(step(&mut phase, limit, Some(90.5), t(1)), Some(t(1)));
        assert_eq!(step(&mut phase, limit, Some(85.1), t(2)), None);
        assert!(phase.is_open());
        step(&mut phase, limit, Some(85.0), t(3));
        assert_eq!(phase, Phase::Idle);
    }
}
