//! A tracker's report, whichever protocol carried it.

use chrono::{DateTime, Utc};

/// One report of a device, in the service's units. Every reading is optional: a protocol sends
/// what the device measured, and an absent reading keeps its last known value for detection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// When the device measured the values.
    pub timestamp: Option<DateTime<Utc>>,
    /// WGS84 degrees; absent without a valid fix.
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    /// Ground speed in km/h.
    pub speed: Option<f64>,
    /// Course over ground, degrees clockwise from north.
    pub heading: Option<f64>,
    /// Metres above sea level.
    pub altitude: Option<f64>,
    /// Satellites in use (Teltonika).
    pub satellites: Option<u8>,
    /// Horizontal accuracy in metres (OsmAnd).
    pub accuracy: Option<f64>,
    pub ignition: Option<bool>,
    /// Whether the device senses movement (Teltonika's movement sensor, OsmAnd's `is_moving`).
    pub moving: Option<bool>,
    /// External (vehicle) power input in volts.
    pub input_voltage: Option<f64>,
    /// The device's backup battery in volts.
    pub battery_voltage: Option<f64>,
    /// The device's backup battery charge in percent.
    pub battery_percentage: Option<f64>,
    pub signals: Signals,
}

/// Conditions the device reports (the service's `DeviceSignals`): `Some(true)` when the condition
/// is present, `Some(false)` when the device says it ended, `None` when the report says nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Signals {
    pub alarm: Option<bool>,
    pub jamming: Option<bool>,
    pub accident: Option<bool>,
    pub hard_cornering: Option<bool>,
    pub power_disconnected: Option<bool>,
}
