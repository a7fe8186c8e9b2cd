//! Event detection from asset telemetry: pure, synchronous, no I/O.
//!
//! The caller keeps one [`AssetState`] per asset (persisted as JSON between calls) and passes
//! each telemetry point to [`Detector::process`] with the asset's [`Thresholds`] and the
//! geofences ([`Zone`]) to watch. `process` returns the events the point starts.
//!
//! # Episodes
//!
//! Every condition is an episode: exactly one event when it starts, none while it lasts, and a
//! new one only after it has ended. Points of an asset are processed in timestamp order.
//!
//! # Points
//!
//! - **Late and out-of-order points.** A point whose timestamp is at or before the asset's last
//!   processed timestamp raises no event and changes no state. The caller still stores it as
//!   history.
//! - **Time window (the caller's job).** The caller rejects points older than
//!   `now - 7 days` ([`Config::cutoff`]) or newer than `now + 5 minutes`
//!   ([`Config::future_skew`]); [`Config::accepts_timestamp`] applies both, bounds included.
//!   Duplicates (same asset and timestamp) never reach the detector. Processing is
//!   deterministic: the same points give the same events and state.
//! - **Absent readings.** A reading that is absent, null or not a finite number leaves its
//!   episode as it was: it neither confirms nor cancels a pending episode.
//! - **Positions.** A position is usable when both latitude and longitude are present and
//!   finite, latitude is within [-90, 90], longitude within [-180, 180], and it is not exactly
//!   (0, 0), which trackers without a fix send. Without a usable position the place state
//!   (geofences, country) is unchanged, and events carry the last known position.
//! - **Merged last point.** [`AssetState::last_point`] is the latest processed point with every
//!   reading at its last known value: a point without a position keeps the previous position,
//!   a point without fuel level keeps the previous fuel level, and so on (signals too).
//!
//! # Thresholds (hysteresis and minimum duration)
//!
//! A "low" episode starts when the reading is strictly below the threshold and ends when it is
//! at or above threshold + margin; a "high" episode starts strictly above the threshold and
//! ends at or below threshold - margin. Between the two nothing changes, so a reading
//! wobbling around the threshold raises one event.
//!
//! | Event | Reading | Starts when | Ends when | Minimum duration |
//! |---|---|---|---|---|
//! | InputVoltageLow (3) | inputVoltage | < threshold | >= threshold + 0.5 V | 30 s |
//! | BatteryLow (4) | batteryVoltage | < threshold | >= threshold + 0.1 V | 60 s |
//! | BatteryLow (4) | batteryPercentage | < threshold | >= threshold + 5 | 60 s |
//! | SpeedLimitExceeded (12) | speed | > limit | <= limit - 5 km/h | 10 s |
//! | FuelLevelLow (14) | fuelLevel | < threshold | >= threshold + 5 | 60 s |
//! | AdBlueLevelLow (15) | adBlueLevel | < threshold | >= threshold + 5 | 60 s |
//! | TemperatureHigh (20) | temperature | > threshold | <= threshold - 1 °C | 60 s |
//! | TemperatureLow (21) | temperature | < threshold | >= threshold + 1 °C | 60 s |
//! | PressureHigh (22) | pressure | > threshold | <= threshold - 10 kPa | 30 s |
//! | PressureLow (23) | pressure | < threshold | >= threshold + 10 kPa | 30 s |
//! | EngineSpeedLimitExceeded (26) | engineSpeed | > limit | <= limit - 200 rpm | 10 s |
//!
//! - **Minimum duration.** The first sample past the threshold starts a pending episode; the
//!   event comes with the first later sample that is still past the threshold and at least the
//!   minimum duration after it. A sample no longer past the threshold (even within the
//!   margin) cancels the pending episode, so a single sample never raises an event. The
//!   condition is assumed to hold between two samples that both show it, however far apart.
//! - **Details.** `occurredAt` is the confirming sample's timestamp, `episodeStartedAt` the
//!   first sample past the threshold, `value` the confirming reading, `threshold` the asset's
//!   threshold, `quantity` what they measure (for BatteryLow: `batteryVoltage` or
//!   `batteryPercentage`).
//! - **BatteryLow** has two sources, voltage and percentage, each with its own threshold and
//!   hysteresis. The episode is open while either source is; its event comes when the first
//!   opens.
//! - **InputVoltageLow** ignores readings below 1 V: those mean disconnected (below).
//! - A threshold that is removed (null) ends its episode silently; a changed threshold
//!   applies from the next point.
//!
//! # InputPowerDisconnected (2)
//!
//! Needs no threshold. Two sources: an input voltage below 1 V (one sample starts it; it ends
//! at 3 V or above), and the device flag `powerDisconnected` (`true` starts, `false` ends).
//! The episode is open while either source is; its event comes when the first opens, with
//! `value` = the voltage and `threshold` = 1 when the voltage started it.
//!
//! # Device signals
//!
//! AlarmTriggered (16) ← `alarm`, Tampering (18) ← `tampering`, Jammed (5) ← `jamming`,
//! AccidentOccurred (27) ← `accident`, HardCornering (24) ← `hardCornering`,
//! LockdownViolated (17) ← `lockdownViolation`, AssetLeftBehind (13) ← `leftBehind`.
//! `true` starts the episode (event at once), an explicit `false` ends it, an absent flag
//! leaves it unchanged. A device reporting momentary occurrences (hard cornering, accident)
//! must therefore send `false` before the next occurrence can be reported.
//!
//! # Ignition
//!
//! IgnitionTurnedOn (8) / IgnitionTurnedOff (9) when the `ignition` value differs from the
//! last known one. The first known value of an asset only sets the state, without an event.
//!
//! # Movement
//!
//! A speed of 5 km/h or more is movement, below 3 km/h is standstill; in between says nothing.
//! The first point with a speed or a usable position sets the state without an event (moving
//! if its speed is 5 km/h or more, else at rest).
//!
//! - **MovementStarted (6)**, at rest: movement speed in every sample for at least 20 s (a
//!   slower sample cancels), or a usable position 100 m or more from where the asset came to
//!   rest, unless that same sample reports a speed below 3 km/h (a GPS jump).
//!   `episodeStartedAt` is the first moving sample.
//! - **MovementStopped (7)**, moving: standstill in every sample for at least 180 s (a traffic
//!   light is not a stop; a faster sample cancels). Without a speed, a position less than
//!   50 m from where the standstill began (or from the previous position) is standstill, and
//!   one farther is movement. `episodeStartedAt` is the first standstill sample.
//!
//! # EngineIdling (25)
//!
//! Ignition on (last known value) and standstill (speed below 3 km/h; without a speed, the
//! movement state is at rest) for at least 300 s, same pending rules as thresholds. Ends when
//! the ignition goes off or the asset moves (5 km/h or more, or the movement state is moving).
//! Without any known ignition value there is no idling.
//!
//! # Geofences
//!
//! GeofenceEntered (10) / GeofenceExited (11), with `geofenceId`, when the point's position is
//! inside / outside a zone it was not / was inside before.
//!
//! - **Geometry.** Polygons are GeoJSON `[longitude, latitude]` rings in the plane; the first
//!   ring is the exterior, the others holes. A point on an edge or a vertex (within 1e-9°, about
//!   0.1 mm) of any ring, holes included, is **inside**: the boundary belongs to the polygon.
//!   Rings may be closed or not.
//! - **Antimeridian.** Polygons crossing the antimeridian are not supported: an edge from
//!   179° to -179° is read as running the long way round (through 0°).
//!   [`geo::spans_antimeridian`] detects such polygons so they can be rejected; RFC 7946
//!   asks to split them. Polygons touching ±180° work.
//! - **Changing zones.** The zones passed may change between calls. A zone no longer passed is
//!   forgotten without an event (even on a point without a position). A zone passed for the first time that already contains the
//!   asset raises GeofenceEntered on the next positioned point; the same holds for an asset's
//!   very first point. Zone ids must be unique in one call.
//!
//! # CountryBorderCrossed (19)
//!
//! The country is looked up with the `country-boundaries` crate (data (c) OpenStreetMap
//! contributors, ODbL) and reported as ISO 3166-1 alpha-2 codes, `fromCountry` and
//! `toCountry`. The first known country of an asset raises no event. A position in no country
//! (at sea) changes nothing: the next country found is compared with the last one known, so
//! a ferry from DE to DK raises DE → DK on landing. Nested areas resolve to the smallest that
//! has a country code (Puerto Rico is PR, not US); the reserved codes the data uses for parts
//! of countries (IC for the Canary Islands, ...) resolve to the country (ES). The borders are
//! simplified (settlements and major roads are on the right side) and sea borders are not
//! modelled. For speed, each 1° cell of the data is classified once by the country codes it
//! holds: none (sea) or one covering it wholly answer without geometry, one covering part of
//! it (a coast) needs one point-in-country test, several (a border) the full lookup. Every
//! answer equals the full lookup's: the cache costs no precision. [`Config::country_lookup`]
//! switches the lookup off.
//!
//! # Event order and position
//!
//! The events of one point are sorted by event code, then geofence id. `occurredAt` is the
//! point's timestamp; the position is the point's usable position, else the last known one;
//! `episodeStartedAt` is always set (equal to `occurredAt` when the event has no minimum
//! duration).

mod config;
mod country;
mod episodes;
mod exact;
pub mod geo;
mod state;
mod types;

#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;

pub use config::{Config, Hysteresis};
pub use country::country_at;
pub use state::AssetState;
pub use types::{
    DetectedEvent, EventDetails, EventType, Point, Polygon, Quantity, Signals, Thresholds, Zone,
};

use episodes::{Emitter, motion, places, power, signals, thresholds};

/// Detects events; holds only configuration, so one instance serves every asset and thread.
#[derive(Clone, Debug, Default)]
pub struct Detector {
    pub config: Config,
}

impl Detector {
    /// Also loads the country boundaries when the lookup is on, so the first point is fast.
    pub fn new(config: Config) -> Self {
        if config.country_lookup {
            country::preload();
        }
        Detector { config }
    }

    /// Processes one point; returns the events it starts, in a deterministic order.
    pub fn process(
        &self,
        state: &mut AssetState,
        thresholds: &Thresholds,
        zones: &[Zone],
        point: &Point,
    ) -> Vec<DetectedEvent> {
        if state
            .last_timestamp()
            .is_some_and(|last| point.timestamp <= last)
        {
            return Vec::new();
        }
        let config = &self.config;
        let own_position = geo::usable_position(point.latitude, point.longitude);
        let previous_position = state.last_position();
        let mut emitter = Emitter::new(point.timestamp, own_position.or(previous_position));

        power::detect(config, point, &mut state.episodes, &mut emitter);
        thresholds::detect(config, thresholds, point, &mut state.episodes, &mut emitter);
        signals::detect(&point.signals, &mut state.episodes, &mut emitter);
        motion::detect_ignition(point, &mut state.ignition, &mut emitter);
        motion::detect_movement(
            config,
            point,
            own_position,
            previous_position,
            &mut state.motion,
            &mut emitter,
        );
        motion::detect_idling(
            config,
            point,
            state.ignition,
            state.motion,
            &mut state.episodes,
            &mut emitter,
        );
        places::detect_geofences(zones, own_position, &mut state.zones, &mut emitter);
        if config.country_lookup {
            places::detect_country(own_position, &mut state.country, &mut emitter);
        }

        state.remember(point);
        emitter.finish()
    }
}
