//! Helpers for the unit tests.

use chrono::{DateTime, TimeZone, Utc};
use uuid::Uuid;

use crate::{
    AssetState, Config, DetectedEvent, Detector, EventType, Point, Polygon, Thresholds, Zone,
};

/// `secs` seconds after a fixed instant.
pub(crate) fn t(secs: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 6, 1, 8, 0, 0).unwrap() + chrono::Duration::seconds(secs)
}

/// A bare point at `t(secs)`.
pub(crate) fn p(secs: i64) -> Point {
    Point::at(t(secs))
}

/// A point at `t(secs)` and a position.
pub(crate) fn at(secs: i64, lat: f64, lon: f64) -> Point {
    Point {
        latitude: Some(lat),
        longitude: Some(lon),
        ..p(secs)
    }
}

/// An axis-aligned rectangle, closed ring.
pub(crate) fn rect(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> Polygon {
    Polygon {
        rings: vec![vec![
            [lon1, lat1],
            [lon2, lat1],
            [lon2, lat2],
            [lon1, lat2],
            [lon1, lat1],
        ]],
    }
}

pub(crate) fn zone(n: u128, polygon: Polygon) -> Zone {
    Zone {
        id: Uuid::from_u128(n),
        polygon,
    }
}

/// One asset fed point by point.
pub(crate) struct Run {
    pub detector: Detector,
    pub state: AssetState,
    pub thresholds: Thresholds,
    pub zones: Vec<Zone>,
}

impl Run {
    /// No country lookup: most tests are about something else.
    pub(crate) fn new() -> Self {
        Run::with_config(Config {
            country_lookup: false,
            ..Config::default()
        })
    }

    pub(crate) fn with_config(config: Config) -> Self {
        Run {
            detector: Detector::new(config),
            state: AssetState::default(),
            thresholds: Thresholds::default(),
            zones: Vec::new(),
        }
    }

    pub(crate) fn with_thresholds(thresholds: Thresholds) -> Self {
        Run {
            thresholds,
            ..Run::new()
        }
    }

    pub(crate) fn events(&mut self, point: Point) -> Vec<DetectedEvent> {
        self.detector
            .process(&mut self.state, &self.thresholds, &self.zones, &point)
    }

    /// The types of the events the point raises.
    pub(crate) fn feed(&mut self, point: Point) -> Vec<EventType> {
        self.events(point).iter().map(|e| e.event_type).collect()
    }

    /// Feeds the points; the types of all events, in order.
    pub(crate) fn feed_all(&mut self, points: impl IntoIterator<Item = Point>) -> Vec<EventType> {
        points
            .into_iter()
            .flat_map(|point| self.feed(point))
            .collect()
    }
}
