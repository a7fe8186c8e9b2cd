//! Margins, minimum durations and distances. The defaults are the documented values.

use chrono::{DateTime, Duration, Utc};

/// How a threshold episode starts and ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hysteresis {
    /// A "low" episode ends at `threshold + margin` or above, a "high" one at
    /// `threshold - margin` or below.
    pub margin: f64,
    /// How long the threshold must stay crossed, from the first crossing sample to the
    /// confirming one, with no sample in between back on the safe side. Zero: one sample
    /// confirms.
    pub min_duration: Duration,
}

impl Hysteresis {
    pub const fn new(margin: f64, min_duration_secs: i64) -> Self {
        Hysteresis {
            margin,
            min_duration: Duration::seconds(min_duration_secs),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// InputVoltageLow: 0.5 V, 30 s (rides out the dip while the engine cranks).
    pub input_voltage: Hysteresis,
    /// InputPowerDisconnected by voltage: an input voltage below this, in volts (1.0).
    pub power_disconnected_below: f64,
    /// ...ends at `power_disconnected_below + margin` (2.0 V, so 3.0 V); one sample starts it.
    pub power_disconnected: Hysteresis,
    /// BatteryLow by voltage: 0.1 V, 60 s.
    pub battery_voltage: Hysteresis,
    /// BatteryLow by percentage: 5 points, 60 s.
    pub battery_percentage: Hysteresis,
    /// FuelLevelLow: 5 points, 60 s (fuel sloshes).
    pub fuel_level: Hysteresis,
    /// AdBlueLevelLow: 5 points, 60 s.
    pub ad_blue_level: Hysteresis,
    /// TemperatureHigh and TemperatureLow: 1 °C, 60 s (a door opened briefly).
    pub temperature: Hysteresis,
    /// PressureHigh and PressureLow: 10 kPa, 30 s.
    pub pressure: Hysteresis,
    /// SpeedLimitExceeded: 5 km/h, 10 s.
    pub speed: Hysteresis,
    /// EngineSpeedLimitExceeded: 200 rpm, 10 s.
    pub engine_speed: Hysteresis,
    /// A speed at or above this (5 km/h) is movement.
    pub movement_start_speed: f64,
    /// A speed below this (3 km/h) is standing still. In between: no evidence either way.
    pub movement_stop_speed: f64,
    /// MovementStarted needs movement speed for this long (20 s)...
    pub movement_start_min_duration: Duration,
    /// ...or a position this far (100 m) from where the asset came to rest.
    pub movement_start_distance_m: f64,
    /// MovementStopped needs standstill for this long (180 s; a traffic light is not a stop).
    pub movement_stop_min_duration: Duration,
    /// Without a speed reading, a position within this distance (50 m) of where the standstill
    /// began counts as standing still.
    pub movement_stop_radius_m: f64,
    /// EngineIdling: ignition on and standing still for this long (300 s).
    pub idle_min_duration: Duration,
    /// Look up the country of every positioned point (CountryBorderCrossed). Default true.
    pub country_lookup: bool,
    /// For the caller: points older than `now - cutoff` are rejected (7 days).
    pub cutoff: Duration,
    /// For the caller: points newer than `now + future_skew` are rejected (5 minutes).
    pub future_skew: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            input_voltage: Hysteresis::new(0.5, 30),
            power_disconnected_below: 1.0,
            power_disconnected: Hysteresis::new(2.0, 0),
            battery_voltage: Hysteresis::new(0.1, 60),
            battery_percentage: Hysteresis::new(5.0, 60),
            fuel_level: Hysteresis::new(5.0, 60),
            ad_blue_level: Hysteresis::new(5.0, 60),
            temperature: Hysteresis::new(1.0, 60),
            pressure: Hysteresis::new(10.0, 30),
            speed: Hysteresis::new(5.0, 10),
            engine_speed: Hysteresis::new(200.0, 10),
            movement_start_speed: 5.0,
            movement_stop_speed: 3.0,
            movement_start_min_duration: Duration::seconds(20),
            movement_start_distance_m: 100.0,
            movement_stop_min_duration: Duration::seconds(180),
            movement_stop_radius_m: 50.0,
            idle_min_duration: Duration::seconds(300),
            country_lookup: true,
            cutoff: Duration::days(7),
            future_skew: Duration::minutes(5),
        }
    }
}

impl Config {
    /// Whether the caller should accept a point with this timestamp at `now`: not older than
    /// `cutoff`, not further ahead than `future_skew` (both bounds inclusive).
    pub fn accepts_timestamp(&self, timestamp: DateTime<Utc>, now: DateTime<Utc>) -> bool {
        timestamp >= now - self.cutoff && timestamp <= now + self.future_skew
    }
}
