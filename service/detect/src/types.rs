//! The data the detector reads (points, thresholds, zones) and writes (events).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use uuid::Uuid;

/// Thresholds of one asset (its telemetry rules). `None` switches the check off.
/// Units: volts, percent, km/h, degrees Celsius, kPa, rpm.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Thresholds {
    pub input_voltage_low: Option<f64>,
    pub battery_voltage_low: Option<f64>,
    pub battery_percentage_low: Option<f64>,
    pub speed_limit: Option<f64>,
    pub fuel_level_low: Option<f64>,
    pub ad_blue_level_low: Option<f64>,
    pub temperature_low: Option<f64>,
    pub temperature_high: Option<f64>,
    pub pressure_low: Option<f64>,
    pub pressure_high: Option<f64>,
    pub engine_speed_limit: Option<f64>,
}

/// A GeoJSON polygon: positions are `[longitude, latitude]`; the first ring is the exterior,
/// the others are holes. Rings may be closed (first position repeated last) or not.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Polygon {
    pub rings: Vec<Vec<[f64; 2]>>,
}

/// A geofence. Ids must be unique within one `process` call (they are primary keys).
#[derive(Clone, Debug, PartialEq)]
pub struct Zone {
    pub id: Uuid,
    pub polygon: Polygon,
}

/// Flags the device sets because the server cannot derive them. `Some(true)` starts the
/// episode, `Some(false)` ends it, `None` leaves it as it is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Signals {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alarm: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tampering: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jamming: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accident: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hard_cornering: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lockdown_violation: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_behind: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_disconnected: Option<bool>,
}

impl Signals {
    pub fn is_empty(&self) -> bool {
        *self == Signals::default()
    }

    /// Keeps `self`'s flags where `newer` has none.
    pub(crate) fn merge(&mut self, newer: &Signals) {
        let Signals {
            alarm,
            tampering,
            jamming,
            accident,
            hard_cornering,
            lockdown_violation,
            left_behind,
            power_disconnected,
        } = newer;
        merge_flag(&mut self.alarm, *alarm);
        merge_flag(&mut self.tampering, *tampering);
        merge_flag(&mut self.jamming, *jamming);
        merge_flag(&mut self.accident, *accident);
        merge_flag(&mut self.hard_cornering, *hard_cornering);
        merge_flag(&mut self.lockdown_violation, *lockdown_violation);
        merge_flag(&mut self.left_behind, *left_behind);
        merge_flag(&mut self.power_disconnected, *power_disconnected);
    }
}

fn merge_flag(old: &mut Option<bool>, newer: Option<bool>) {
    if newer.is_some() {
        *old = newer;
    }
}

/// One telemetry sample. Speed in km/h, other units as in [`Thresholds`]. Non-finite numbers
/// count as absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Point {
    pub timestamp: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latitude: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longitude: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<f64>,
    /// Metres above sea level; kept as the last known value, used by no detection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub altitude: Option<f64>,
    /// Satellites in use; kept as the last known value, used by no detection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub satellites: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignition: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_voltage: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_voltage: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battery_percentage: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel_level: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ad_blue_level: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_speed: Option<f64>,
    #[serde(default, skip_serializing_if = "Signals::is_empty")]
    pub signals: Signals,
}

impl Point {
    /// A point with a timestamp and nothing else.
    pub fn at(timestamp: DateTime<Utc>) -> Self {
        Point {
            timestamp,
            latitude: None,
            longitude: None,
            speed: None,
            heading: None,
            altitude: None,
            satellites: None,
            ignition: None,
            input_voltage: None,
            battery_voltage: None,
            battery_percentage: None,
            fuel_level: None,
            ad_blue_level: None,
            temperature: None,
            pressure: None,
            engine_speed: None,
            signals: Signals::default(),
        }
    }

    /// Takes `newer`'s timestamp and every reading `newer` has; keeps the others. The position
    /// is replaced only by a usable one (see [`crate::geo::usable_position`]).
    pub(crate) fn merge(&mut self, newer: &Point) {
        self.timestamp = newer.timestamp;
        if let Some((lat, lon)) = crate::geo::usable_position(newer.latitude, newer.longitude) {
            self.latitude = Some(lat);
            self.longitude = Some(lon);
        }
        merge_reading(&mut self.speed, newer.speed);
        merge_reading(&mut self.heading, newer.heading);
        merge_reading(&mut self.altitude, newer.altitude);
        if newer.satellites.is_some() {
            self.satellites = newer.satellites;
        }
        if newer.ignition.is_some() {
            self.ignition = newer.ignition;
        }
        merge_reading(&mut self.input_voltage, newer.input_voltage);
        merge_reading(&mut self.battery_voltage, newer.battery_voltage);
        merge_reading(&mut self.battery_percentage, newer.battery_percentage);
        merge_reading(&mut self.fuel_level, newer.fuel_level);
        merge_reading(&mut self.ad_blue_level, newer.ad_blue_level);
        merge_reading(&mut self.temperature, newer.temperature);
        merge_reading(&mut self.pressure, newer.pressure);
        merge_reading(&mut self.engine_speed, newer.engine_speed);
        self.signals.merge(&newer.signals);
    }

    /// A copy holding only usable readings: the first merged point of an asset.
    pub(crate) fn cleaned(&self) -> Point {
        let mut clean = Point::at(self.timestamp);
        clean.merge(self);
        clean
    }
}

fn merge_reading(old: &mut Option<f64>, newer: Option<f64>) {
    if let Some(value) = finite(newer) {
        *old = Some(value);
    }
}

/// The reading if it is a finite number.
pub(crate) fn finite(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite())
}

macro_rules! event_types {
    ($($name:ident = $code:literal),+ $(,)?) => {
        /// The event types the detector raises (the spec's EventType without Any = 1).
        /// Serialized as the integer code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i32)]
        pub enum EventType {
            $($name = $code),+
        }

        impl EventType {
            /// Every type, in code order.
            pub const ALL: [EventType; 26] = [$(EventType::$name),+];

            pub fn code(self) -> i32 {
                self as i32
            }

            pub fn from_code(code: i32) -> Option<Self> {
                match code {
                    $($code => Some(EventType::$name),)+
                    _ => None,
                }
            }

            /// The spec's name, for example `"SpeedLimitExceeded"`.
            pub fn name(self) -> &'static str {
                match self {
                    $(EventType::$name => stringify!($name),)+
                }
            }
        }
    };
}

event_types! {
    InputPowerDisconnected = 2,
    InputVoltageLow = 3,
    BatteryLow = 4,
    Jammed = 5,
    MovementStarted = 6,
    MovementStopped = 7,
    IgnitionTurnedOn = 8,
    IgnitionTurnedOff = 9,
    GeofenceEntered = 10,
    GeofenceExited = 11,
    SpeedLimitExceeded = 12,
    AssetLeftBehind = 13,
    FuelLevelLow = 14,
    AdBlueLevelLow = 15,
    AlarmTriggered = 16,
    LockdownViolated = 17,
    Tampering = 18,
    CountryBorderCrossed = 19,
    TemperatureHigh = 20,
    TemperatureLow = 21,
    PressureHigh = 22,
    PressureLow = 23,
    HardCornering = 24,
    EngineIdling = 25,
    EngineSpeedLimitExceeded = 26,
    AccidentOccurred = 27,
}

impl Serialize for EventType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i32(self.code())
    }
}

impl<'de> Deserialize<'de> for EventType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = i32::deserialize(deserializer)?;
        EventType::from_code(code)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown event type {code}")))
    }
}

/// What a `value`/`threshold` pair measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Quantity {
    InputVoltage,
    BatteryVoltage,
    BatteryPercentage,
    FuelLevel,
    AdBlueLevel,
    Temperature,
    Pressure,
    Speed,
    EngineSpeed,
}

impl Quantity {
    pub fn unit(self) -> &'static str {
        match self {
            Quantity::InputVoltage | Quantity::BatteryVoltage => "V",
            Quantity::BatteryPercentage | Quantity::FuelLevel | Quantity::AdBlueLevel => "%",
            Quantity::Temperature => "°C",
            Quantity::Pressure => "kPa",
            Quantity::Speed => "km/h",
            Quantity::EngineSpeed => "rpm",
        }
    }
}

/// One event the detector raised.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DetectedEvent {
    pub event_type: EventType,
    /// The timestamp of the point that confirmed the event.
    pub occurred_at: DateTime<Utc>,
    /// The point's position, or the last known one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latitude: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longitude: Option<f64>,
    pub details: EventDetails,
}

/// Facts about an event; absent fields do not apply to its type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EventDetails {
    /// The reading that confirmed the event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// The limit it crossed (the asset's threshold, not the release level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// What `value` and `threshold` measure; tells BatteryLow by voltage from by percentage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantity: Option<Quantity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geofence_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_country: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_country: Option<String>,
    /// The first sample of the episode; equals `occurredAt` when no minimum duration applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub episode_started_at: Option<DateTime<Utc>>,
}
