//! The detectors. Each reads one point, updates its part of the state and emits events.

pub(crate) mod motion;
pub(crate) mod places;
pub(crate) mod power;
pub(crate) mod signals;
pub(crate) mod thresholds;

use chrono::{DateTime, Utc};

use crate::types::{DetectedEvent, EventDetails, EventType};

/// Collects the events of one point, all at its timestamp and position.
pub(crate) struct Emitter {
    pub timestamp: DateTime<Utc>,
    /// `(latitude, longitude)`: the point's usable position, or the last known one.
    pub position: Option<(f64, f64)>,
    events: Vec<DetectedEvent>,
}

impl Emitter {
    pub(crate) fn new(timestamp: DateTime<Utc>, position: Option<(f64, f64)>) -> Self {
        Emitter {
            timestamp,
            position,
            events: Vec::new(),
        }
    }

    /// Emits an event whose episode began at `episode_started_at`.
    pub(crate) fn emit(
        &mut self,
        event_type: EventType,
        episode_started_at: DateTime<Utc>,
        details: EventDetails,
    ) {
        self.events.push(DetectedEvent {
            event_type,
            occurred_at: self.timestamp,
            latitude: self.position.map(|p| p.0),
            longitude: self.position.map(|p| p.1),
            details: EventDetails {
                episode_started_at: Some(episode_started_at),
                ..details
            },
        });
    }

    /// Emits an event that starts at this point.
    pub(crate) fn emit_now(&mut self, event_type: EventType, details: EventDetails) {
        self.emit(event_type, self.timestamp, details);
    }

    /// The events in a deterministic order: by event code, then geofence id.
    pub(crate) fn finish(mut self) -> Vec<DetectedEvent> {
        self.events
            .sort_by_key(|e| (e.event_type, e.details.geofence_id));
        self.events
    }
}
