//! What the detector remembers about one asset between points (persisted as JSON).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::types::{EventType, Point};

/// The episodes tracked in [`Episodes`]. Battery and power have two sources each, tracked
/// apart and reported as one episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Condition {
    PowerVoltage,
    PowerFlag,
    InputVoltageLow,
    BatteryVoltageLow,
    BatteryPercentageLow,
    Jamming,
    SpeedLimitExceeded,
    LeftBehind,
    FuelLevelLow,
    AdBlueLevelLow,
    Alarm,
    LockdownViolation,
    Tampering,
    TemperatureHigh,
    TemperatureLow,
    PressureHigh,
    PressureLow,
    HardCornering,
    EngineIdling,
    EngineSpeedLimitExceeded,
    Accident,
}

impl Condition {
    const COUNT: usize = 21;
    /// In event code order, so `open_episodes` comes out sorted.
    const ALL: [Condition; Condition::COUNT] = [
        Condition::PowerVoltage,
        Condition::PowerFlag,
        Condition::InputVoltageLow,
        Condition::BatteryVoltageLow,
        Condition::BatteryPercentageLow,
        Condition::Jamming,
        Condition::SpeedLimitExceeded,
        Condition::LeftBehind,
        Condition::FuelLevelLow,
        Condition::AdBlueLevelLow,
        Condition::Alarm,
        Condition::LockdownViolation,
        Condition::Tampering,
        Condition::TemperatureHigh,
        Condition::TemperatureLow,
        Condition::PressureHigh,
        Condition::PressureLow,
        Condition::HardCornering,
        Condition::EngineIdling,
        Condition::EngineSpeedLimitExceeded,
        Condition::Accident,
    ];

    pub(crate) fn event_type(self) -> EventType {
        match self {
            Condition::PowerVoltage | Condition::PowerFlag => EventType::InputPowerDisconnected,
            Condition::InputVoltageLow => EventType::InputVoltageLow,
            Condition::BatteryVoltageLow | Condition::BatteryPercentageLow => EventType::BatteryLow,
            Condition::Jamming => EventType::Jammed,
            Condition::LeftBehind => EventType::AssetLeftBehind,
            Condition::FuelLevelLow => EventType::FuelLevelLow,
            Condition::AdBlueLevelLow => EventType::AdBlueLevelLow,
            Condition::Alarm => EventType::AlarmTriggered,
            Condition::LockdownViolation => EventType::LockdownViolated,
            Condition::Tampering => EventType::Tampering,
            Condition::SpeedLimitExceeded => EventType::SpeedLimitExceeded,
            Condition::TemperatureHigh => EventType::TemperatureHigh,
            Condition::TemperatureLow => EventType::TemperatureLow,
            Condition::PressureHigh => EventType::PressureHigh,
            Condition::PressureLow => EventType::PressureLow,
            Condition::HardCornering => EventType::HardCornering,
            Condition::EngineIdling => EventType::EngineIdling,
            Condition::EngineSpeedLimitExceeded => EventType::EngineSpeedLimitExceeded,
            Condition::Accident => EventType::AccidentOccurred,
        }
    }
}

/// Where one condition's episode stands. Each `DateTime` is the episode's first sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum Phase {
    #[default]
    Idle,
    /// Crossed, waiting for the minimum duration.
    Pending(DateTime<Utc>),
    /// Confirmed: its event was raised.
    Open(DateTime<Utc>),
}

impl Phase {
    pub(crate) fn is_open(self) -> bool {
        matches!(self, Phase::Open(_))
    }
}

/// A fixed array indexed by [`Condition`]: no allocation and no lookup cost per point.
/// Persisted as `{"open": {condition: since}, "pending": {condition: since}}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "EpisodesRepr", into = "EpisodesRepr")]
pub(crate) struct Episodes([Phase; Condition::COUNT]);

impl Episodes {
    pub(crate) fn get(&self, condition: Condition) -> Phase {
        self.0[condition as usize]
    }

    pub(crate) fn get_mut(&mut self, condition: Condition) -> &mut Phase {
        &mut self.0[condition as usize]
    }

    fn is_idle(&self) -> bool {
        self.0.iter().all(|phase| *phase == Phase::Idle)
    }
}

#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct EpisodesRepr {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    open: BTreeMap<Condition, DateTime<Utc>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pending: BTreeMap<Condition, DateTime<Utc>>,
}

impl From<EpisodesRepr> for Episodes {
    fn from(repr: EpisodesRepr) -> Self {
        let mut episodes = Episodes::default();
        for (condition, since) in repr.pending {
            *episodes.get_mut(condition) = Phase::Pending(since);
        }
        for (condition, since) in repr.open {
            *episodes.get_mut(condition) = Phase::Open(since);
        }
        episodes
    }
}

impl From<Episodes> for EpisodesRepr {
    fn from(episodes: Episodes) -> Self {
        let mut repr = EpisodesRepr::default();
        for condition in Condition::ALL {
            match episodes.get(condition) {
                Phase::Idle => {}
                Phase::Pending(since) => {
                    repr.pending.insert(condition, since);
                }
                Phase::Open(since) => {
                    repr.open.insert(condition, since);
                }
            }
        }
        repr
    }
}

/// An on/off state known since a time (ignition).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Switch {
    pub on: bool,
    pub since: DateTime<Utc>,
}

/// Moving or at rest, with the debounce of the opposite transition.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Motion {
    pub moving: bool,
    /// The first sample of the current state.
    pub since: DateTime<Utc>,
    /// At rest: where the asset came to rest. Moving: where a pending standstill began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<[f64; 2]>,
    /// The first sample of a pending transition to the opposite state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_since: Option<DateTime<Utc>>,
}

/// The detector's memory of one asset. Start with `AssetState::default()`; persist it as JSON
/// (camelCase, empty parts omitted) and pass it back with the asset's next point.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AssetState {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_point: Option<Point>,
    #[serde(skip_serializing_if = "Episodes::is_idle")]
    pub(crate) episodes: Episodes,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ignition: Option<Switch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) motion: Option<Motion>,
    /// Zones the asset is inside, with the time it entered.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) zones: BTreeMap<Uuid, DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) country: Option<String>,
}

impl AssetState {
    /// The timestamp of the latest processed point.
    pub fn last_timestamp(&self) -> Option<DateTime<Utc>> {
        self.last_point.as_ref().map(|p| p.timestamp)
    }

    /// The latest processed point, merged: the latest timestamp, and each reading (position,
    /// speed, ignition, voltages, levels, signals...) at its last known value. A point without
    /// a usable position keeps the previous position; non-finite readings are never kept.
    pub fn last_point(&self) -> Option<&Point> {
        self.last_point.as_ref()
    }

    /// The zones the asset is inside, sorted by id.
    pub fn inside_zones(&self) -> Vec<Uuid> {
        self.zones.keys().copied().collect()
    }

    /// The zones the asset is inside, sorted by id, with the time it entered each.
    pub fn inside_zones_since(&self) -> Vec<(Uuid, DateTime<Utc>)> {
        self.zones.iter().map(|(id, since)| (*id, *since)).collect()
    }

    /// The ISO 3166-1 alpha-2 code of the last country the asset was seen in.
    pub fn country(&self) -> Option<&str> {
        self.country.as_deref()
    }

    /// The non-place episodes open now, with their first sample, sorted by event code: every
    /// threshold and signal episode whose event was raised, EngineIdling, the motion state
    /// (MovementStarted while moving, MovementStopped while at rest) and the ignition state
    /// (IgnitionTurnedOn or IgnitionTurnedOff) once known. Pending episodes (minimum duration
    /// not reached) are not listed. Places: see `inside_zones` and `country`.
    pub fn open_episodes(&self) -> Vec<(EventType, DateTime<Utc>)> {
        let mut open: Vec<(EventType, DateTime<Utc>)> = Vec::new();
        for condition in Condition::ALL {
            if let Phase::Open(since) = self.episodes.get(condition) {
                let event_type = condition.event_type();
                // Two sources of one episode: list it once, since the earlier start.
                match open.last_mut() {
                    Some((last, first)) if *last == event_type => *first = (*first).min(since),
                    _ => open.push((event_type, since)),
                }
            }
        }
        if let Some(motion) = self.motion {
            let event_type = if motion.moving {
                EventType::MovementStarted
            } else {
                EventType::MovementStopped
            };
            open.push((event_type, motion.since));
        }
        if let Some(ignition) = self.ignition {
            let event_type = if ignition.on {
                EventType::IgnitionTurnedOn
            } else {
                EventType::IgnitionTurnedOff
            };
            open.push((event_type, ignition.since));
        }
        open.sort_by_key(|(event_type, _)| *event_type);
        open
    }

    /// The position of the latest processed point, or the last known one.
    pub(crate) fn last_position(&self) -> Option<(f64, f64)> {
        let point = self.last_point.as_ref()?;
        Some((point.latitude?, point.longitude?))
    }

    pub(crate) fn remember(&mut self, point: &Point) {
        match &mut self.last_point {
            Some(last) => last.merge(point),
            None => self.last_point = Some(point.cleaned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_index_their_own_slot_in_code_order() {
        for (i, condition) in Condition::ALL.iter().enumerate() {
            assert_eq!(*condition as usize, i);
        }
        let codes: Vec<i32> = Condition::ALL
            .iter()
            .map(|c| c.event_type().code())
            .collect();
        assert!(codes.windows(2).all(|w| w[0] <= w[1]), "{codes:?}");
    }
}
