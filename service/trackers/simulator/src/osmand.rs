//! OsmAnd reports: the query string the OsmAnd app and Traccar Client's classic mode send
//! (`?id=...&timestamp=...&lat=...&lon=...&speed=...`), speed in knots.

/// One report; `None` readings are left out of the query.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub id: String,
    /// Unix seconds.
    pub timestamp: Option<i64>,
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    /// Knots.
    pub speed: Option<f64>,
    pub bearing: Option<f64>,
    pub altitude: Option<f64>,
    /// Percent.
    pub batt: Option<f64>,
    pub ignition: Option<bool>,
    pub alarm: Option<&'static str>,
}

impl Report {
    /// The query string, without the `?`.
    pub fn query(&self) -> String {
        let mut parts = vec![format!("id={}", encode(&self.id))];
        let mut number = |name: &str, value: Option<f64>| {
            if let Some(v) = value {
                parts.push(format!("{name}={v}"));
            }
        };
        number("lat", self.lat);
        number("lon", self.lon);
        number("speed", self.speed);
        number("bearing", self.bearing);
        number("altitude", self.altitude);
        number("batt", self.batt);
        if let Some(t) = self.timestamp {
            parts.push(format!("timestamp={t}"));
        }
        if let Some(on) = self.ignition {
            parts.push(format!("ignition={on}"));
        }
        if let Some(alarm) = self.alarm {
            parts.push(format!("alarm={}", encode(alarm)));
        }
        parts.join("&")
    }
}

/// Percent-encodes all but unreserved characters (RFC 3986).
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
