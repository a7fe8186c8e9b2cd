//! OsmAnd reports over HTTP, as Traccar's OsmAnd protocol reads them:
//!
//! - **Query parameters** ([`from_query`]), in the URL of a GET or POST, or in a form body:
//!   `id` (or `deviceid`), `timestamp` (Unix seconds, milliseconds, ISO 8601, or
//!   `yyyy-MM-dd HH:mm:ss` in UTC), `lat` and `lon` (or `location=lat,lon`), `speed` in
//!   **knots**, `bearing` or `heading`, `altitude`, `accuracy`, `batt` (percent), `ignition`,
//!   `motion`, `alarm` (any value but `false`/`0` is an alarm), `power` and `battery` (volts).
//!   Other parameters (`hdop`, `cell`, `wifi`, `driverUniqueId`...) are read by nothing here and
//!   ignored, and so is an `ignition` or `motion` that is not `true`/`false`/`1`/`0` (Traccar
//!   keeps any value there; refusing the report would have the client send it forever).
//! - **The JSON body** the current Traccar Client app posts ([`from_json`]): `device_id` and a
//!   `location` with `timestamp`, `coords` (`latitude`, `longitude`, `speed` in **m/s**,
//!   `heading`, `altitude`, `accuracy`; -1 for unknown), `is_moving`, `battery` (`level` 0..1) and
//!   `extras`.
//!
//! A report without a timestamp is left without one (the listener stamps it with the time it
//! arrived, as Traccar does); one without both coordinates carries no position.

mod endpoint;
pub use endpoint::{router, serve};

use crate::report::Report;
use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Deserialize;
use std::fmt;

/// Knots to km/h.
const KMH_PER_KNOT: f64 = 1.852;
/// m/s to km/h.
const KMH_PER_MPS: f64 = 3.6;

/// A device's report: its id (the service's `deviceId`) and what it measured.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceReport {
    pub device_id: String,
    pub report: Report,
}

/// Why a request is not an OsmAnd report (answered 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn error<T>(why: impl Into<String>) -> Result<T, Error> {
    Err(Error(why.into()))
}

/// Reads a report from query parameters (`a=1&b=2`, percent-encoded as a URL or form writes it).
pub fn from_query(query: &str) -> Result<DeviceReport, Error> {
    let mut device_id = None;
    let mut report = Report::default();
    let (mut latitude, mut longitude) = (None, None);
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        let value = value.trim();
        let number = || -> Result<f64, Error> {
            value
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .map_or_else(
                    || error(format!("`{name}` is not a number: \"{value}\"")),
                    Ok,
                )
        };
        match name.as_ref() {
            "id" | "deviceid" => device_id = Some(value.to_owned()),
            "timestamp" => report.timestamp = Some(timestamp(value)?),
            "lat" => latitude = Some(number()?),
            "lon" => longitude = Some(number()?),
            "location" => {
                let Some((lat, lon)) = value.split_once(',') else {
                    return error(format!("`location` is not lat,lon: \"{value}\""));
                };
                let parse = |text: &str| text.trim().parse::<f64>().ok().filter(|n| n.is_finite());
                let (Some(lat), Some(lon)) = (parse(lat), parse(lon)) else {
                    return error(format!("`location` is not lat,lon: \"{value}\""));
                };
                (latitude, longitude) = (Some(lat), Some(lon));
            }
            "speed" => report.speed = Some(number()? * KMH_PER_KNOT),
            "bearing" | "heading" => report.heading = Some(number()?),
            "altitude" => report.altitude = Some(number()?),
            "accuracy" => report.accuracy = Some(number()?),
            "batt" => report.battery_percentage = Some(number()?),
            "power" => report.input_voltage = Some(number()?),
            "battery" => report.battery_voltage = Some(number()?),
            "ignition" => report.ignition = flag(value),
            "motion" => report.moving = flag(value),
            "alarm" => report.signals.alarm = Some(!matches!(value, "" | "false" | "0")),
            _ => {}
        }
    }
    if let (Some(lat), Some(lon)) = (latitude, longitude) {
        report.latitude = Some(lat);
        report.longitude = Some(lon);
    }
    match device_id {
        Some(id) if !id.is_empty() => Ok(DeviceReport {
            device_id: id,
            report,
        }),
        _ => error("`id` is required"),
    }
}

/// A flag's value; `None` for one that says neither.
fn flag(value: &str) -> Option<bool> {
    if value == "1" || value.eq_ignore_ascii_case("true") {
        Some(true)
    } else if value == "0" || value.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// `timestamp`: Unix seconds (below 2^31) or milliseconds, ISO 8601, or `yyyy-MM-dd HH:mm:ss`
/// (taken as UTC).
fn timestamp(value: &str) -> Result<DateTime<Utc>, Error> {
    let parsed = if let Ok(number) = value.parse::<i64>() {
        if number < i64::from(i32::MAX) {
            DateTime::from_timestamp(number, 0)
        } else {
            DateTime::from_timestamp_millis(number)
        }
    } else if let Ok(seconds) = value.parse::<f64>() {
        // Fractional seconds, as some clients send.
        DateTime::from_timestamp_millis((seconds * 1000.0).round() as i64)
    } else if value.contains('T') {
        DateTime::parse_from_rfc3339(value)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    } else {
        NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S")
            .ok()
            .map(|t| t.and_utc())
    };
    parsed.map_or_else(
        || error(format!("`timestamp` is not a time: \"{value}\"")),
        Ok,
    )
}

/// The body the Traccar Client app posts.
#[derive(Deserialize)]
struct Body {
    device_id: String,
    location: Location,
}

#[derive(Deserialize)]
struct Location {
    timestamp: Option<String>,
    coords: Option<Coords>,
    is_moving: Option<bool>,
    battery: Option<Battery>,
    #[serde(default)]
    extras: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct Coords {
    latitude: f64,
    longitude: f64,
    speed: Option<f64>,
    heading: Option<f64>,
    altitude: Option<f64>,
    accuracy: Option<f64>,
}

#[derive(Deserialize)]
struct Battery {
    level: Option<f64>,
}

/// Reads a report from the JSON body of the Traccar Client app.
pub fn from_json(body: &[u8]) -> Result<DeviceReport, Error> {
    let body: Body = serde_json::from_slice(body)
        .map_err(|e| Error(format!("not a Traccar Client body: {e}")))?;
    if body.device_id.is_empty() {
        return error("`device_id` is required");
    }
    let location = body.location;
    let known = |value: Option<f64>| value.filter(|v| *v >= 0.0);
    let mut report = Report {
        timestamp: location.timestamp.as_deref().map(timestamp).transpose()?,
        moving: location.is_moving,
        battery_percentage: known(location.battery.and_then(|b| b.level)).map(|l| l * 100.0),
        ..Report::default()
    };
    if let Some(coords) = location.coords {
        report.latitude = Some(coords.latitude);
        report.longitude = Some(coords.longitude);
        report.speed = known(coords.speed).map(|s| s * KMH_PER_MPS);
        report.heading = known(coords.heading);
        report.altitude = coords.altitude;
        report.accuracy = known(coords.accuracy);
    }
    // `extras` carries what the app's user configured; the same names as the query's flags.
    report.ignition = location
        .extras
        .get("ignition")
        .and_then(serde_json::Value::as_bool);
    if let Some(alarm) = location.extras.get("alarm") {
        report.signals.alarm = Some(!matches!(
            alarm,
            serde_json::Value::Bool(false) | serde_json::Value::Null
        ));
    }
    Ok(DeviceReport {
        device_id: body.device_id,
        report,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_report_in_the_service_units() {
        let report = from_query(
            "id=123456&timestamp=1764151200&lat=54.6872&lon=25.2797&speed=10&bearing=90.5\
             &altitude=112&accuracy=4.5&batt=87&ignition=true&alarm=sos&hdop=0.9",
        )
        .unwrap();
        assert_eq!(report.device_id, "123456");
        let r = report.report;
        assert_eq!(
            r.timestamp.unwrap().to_rfc3339(),
            "2025-11-26T10:00:00+00:00"
        );
        assert_eq!((r.latitude, r.longitude), (Some(54.6872), Some(25.2797)));
        assert_eq!(r.speed, Some(18.52));
        assert_eq!(r.heading, Some(90.5));
        assert_eq!(r.altitude, Some(112.0));
        assert_eq!(r.accuracy, Some(4.5));
        assert_eq!(r.battery_percentage, Some(87.0));
        assert_eq!(r.ignition, Some(true));
        assert_eq!(r.signals.alarm, Some(true));
    }

    #[test]
    fn timestamps_in_every_spelling() {
        let at = |t: &str| {
            from_query(&format!("id=1&timestamp={t}"))
                .unwrap()
                .report
                .timestamp
                .unwrap()
                .to_rfc3339()
        };
        let expected = "2025-11-26T10:00:00+00:00";
        assert_eq!(at("1764151200"), expected);
        assert_eq!(at("1764151200000"), expected);
        assert_eq!(at("2025-11-26T10:00:00Z"), expected);
        assert_eq!(at("2025-11-26T12:00:00%2B02:00"), expected);
        assert_eq!(at("2025-11-26%2010:00:00"), expected);
        assert!(from_query("id=1&timestamp=yesterday").is_err());
    }

    #[test]
    fn location_and_what_is_absent() {
        let r = from_query("deviceid=abc&location=1.5,-2.25").unwrap();
        assert_eq!(r.device_id, "abc");
        assert_eq!(
            (r.report.latitude, r.report.longitude),
            (Some(1.5), Some(-2.25))
        );
        assert_eq!(r.report.timestamp, None);
        // One coordinate alone is no position.
        let r = from_query("id=abc&lat=1.5").unwrap();
        assert_eq!(r.report.latitude, None);
    }

    #[test]
    fn malformed_queries_are_errors() {
        for query in [
            "lat=1&lon=2",
            "id=",
            "id=1&lat=north",
            "id=1&speed=NaN",
            "id=1&location=1.5",
        ] {
            assert!(from_query(query).is_err(), "{query}");
        }
    }

    #[test]
    fn a_flag_that_says_neither_is_ignored_and_the_report_kept() {
        let r = from_query("id=1&lat=1.5&lon=2&ignition=maybe&motion=TRUE").unwrap();
        assert_eq!(r.report.ignition, None);
        assert_eq!(r.report.moving, Some(true));
        assert_eq!(
            (r.report.latitude, r.report.longitude),
            (Some(1.5), Some(2.0))
        );
        let r = from_query("id=1&ignition=False&motion=0").unwrap();
        assert_eq!(
            (r.report.ignition, r.report.moving),
            (Some(false), Some(false))
        );
    }

    #[test]
    fn the_traccar_client_body() {
        let body = br#"{
            "location": {
                "timestamp": "2025-11-26T10:00:00.000Z",
                "coords": {"latitude": 54.6872, "longitude": 25.2797, "accuracy": 5.0,
                           "speed": 10.0, "heading": -1, "altitude": 112.0},
                "is_moving": true,
                "odometer": 1200,
                "event": "motionchange",
                "battery": {"level": 0.85, "is_charging": false},
                "activity": {"type": "in_vehicle"},
                "extras": {"ignition": true}
            },
            "device_id": "123456"
        }"#;
        let r = from_json(body).unwrap();
        assert_eq!(r.device_id, "123456");
        let r = r.report;
        assert_eq!(
            r.timestamp.unwrap().to_rfc3339(),
            "2025-11-26T10:00:00+00:00"
        );
        assert_eq!(r.speed, Some(36.0));
        assert_eq!(r.heading, None);
        assert_eq!(r.accuracy, Some(5.0));
        assert_eq!(r.moving, Some(true));
        assert_eq!(r.battery_percentage, Some(85.0));
        assert_eq!(r.ignition, Some(true));
        assert!(from_json(b"{}").is_err());
        assert!(from_json(br#"{"device_id": "", "location": {}}"#).is_err());
        assert!(from_json(br#"{"device_id": "1", "location": {"timestamp": "noon"}}"#).is_err());
    }
}
