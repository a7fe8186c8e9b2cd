//! Ignition, movement and engine idling.

use chrono::{DateTime, Duration, Utc};

use super::Emitter;
use crate::config::Config;
use crate::geo::distance_m;
use crate::state::{Condition, Episodes, Motion, Phase, Switch};
use crate::types::{EventDetails, EventType, Point, finite};

/// IgnitionTurnedOn/Off on a change. The first known value only sets the state: nothing says
/// when it changed, and a new tracker is not an ignition event.
pub(crate) fn detect_ignition(point: &Point, ignition: &mut Option<Switch>, emitter: &mut Emitter) {
    let Some(on) = point.ignition else {
        return;
    };
    let now = emitter.timestamp;
    match ignition {
        Some(known) if known.on == on => {}
        Some(known) => {
            *known = Switch { on, since: now };
            let event_type = if on {
                EventType::IgnitionTurnedOn
            } else {
                EventType::IgnitionTurnedOff
            };
            emitter.emit_now(event_type, EventDetails::default());
        }
        None => *ignition = Some(Switch { on, since: now }),
    }
}

/// What one sample says about motion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Evidence {
    Moving,
    Still,
}

/// MovementStarted/Stopped with a debounce; see the crate documentation for the rules. The
/// first sample with a speed or position sets the state without an event.
pub(crate) fn detect_movement(
    config: &Config,
    point: &Point,
    position: Option<(f64, f64)>,
    previous_position: Option<(f64, f64)>,
    motion: &mut Option<Motion>,
    emitter: &mut Emitter,
) {
    let speed = finite(point.speed);
    let now = emitter.timestamp;
    let Some(state) = motion else {
        let moving = speed.is_some_and(|s| s >= config.movement_start_speed);
        if speed.is_some() || position.is_some() {
            *motion = Some(Motion {
                moving,
                since: now,
                anchor: if moving { None } else { position.map(to_array) },
                pending_since: None,
            });
        }
        return;
    };
    if state.moving {
        step_moving(config, speed, position, previous_position, state, emitter);
    } else {
        step_at_rest(config, speed, position, state, emitter);
    }
}

fn step_at_rest(
    config: &Config,
    speed: Option<f64>,
    position: Option<(f64, f64)>,
    state: &mut Motion,
    emitter: &mut Emitter,
) {
    let now = emitter.timestamp;
    if state.anchor.is_none() {
        state.anchor = position.map(to_array);
    }
    // A far position counts unless the same sample reports standstill: that is a GPS jump.
    let displaced = match (state.anchor, position) {
        (Some(anchor), Some(position)) => {
            distance_to(anchor, position) >= config.movement_start_distance_m
                && speed.is_none_or(|s| s >= config.movement_stop_speed)
        }
        _ => false,
    };
    let fast = speed.map(|s| s >= config.movement_start_speed);
    let since = state.pending_since.unwrap_or(now);
    let confirmed =
        displaced || (fast == Some(true) && now - since >= config.movement_start_min_duration);
    if confirmed {
        *state = Motion {
            moving: true,
            since,
            anchor: None,
            pending_since: None,
        };
        emitter.emit(EventType::MovementStarted, since, EventDetails::default());
    } else {
        match fast {
            Some(true) => state.pending_since = Some(since),
            Some(false) => state.pending_since = None,
            None => {}
        }
    }
}

fn step_moving(
    config: &Config,
    speed: Option<f64>,
    position: Option<(f64, f64)>,
    previous_position: Option<(f64, f64)>,
    state: &mut Motion,
    emitter: &mut Emitter,
) {
    let now = emitter.timestamp;
    let evidence = match (speed, position) {
        (Some(s), _) if s < config.movement_stop_speed => Some(Evidence::Still),
        (Some(_), _) => Some(Evidence::Moving),
        // No speed: compare with where the standstill began, or with the previous position.
        (None, Some(position)) => {
            state
                .anchor
                .map(from_array)
                .or(previous_position)
                .map(|reference| {
                    if distance_m(reference.0, reference.1, position.0, position.1)
                        < config.movement_stop_radius_m
                    {
                        Evidence::Still
                    } else {
                        Evidence::Moving
                    }
                })
        }
        (None, None) => None,
    };
    match evidence {
        Some(Evidence::Still) => {
            let since = state.pending_since.unwrap_or(now);
            if state.pending_since.is_none() {
                state.anchor = position.or(previous_position).map(to_array);
            }
            if now - since >= config.movement_stop_min_duration {
                *state = Motion {
                    moving: false,
                    since,
                    anchor: state.anchor.or(position.map(to_array)),
                    pending_since: None,
                };
                emitter.emit(EventType::MovementStopped, since, EventDetails::default());
            } else {
                state.pending_since = Some(since);
            }
        }
        Some(Evidence::Moving) => {
            state.pending_since = None;
            state.anchor = None;
        }
        None => {}
    }
}

/// EngineIdling: ignition on (last known value) and standing still (speed below
/// `movement_stop_speed`; without a speed, the motion state is at rest) for
/// `idle_min_duration`. Ends when the ignition goes off or the asset moves (speed at or above
/// `movement_start_speed`, or the motion state is moving); a speed in between changes nothing.
pub(crate) fn detect_idling(
    config: &Config,
    point: &Point,
    ignition: Option<Switch>,
    motion: Option<Motion>,
    episodes: &mut Episodes,
    emitter: &mut Emitter,
) {
    let now = emitter.timestamp;
    let phase = episodes.get_mut(Condition::EngineIdling);
    let still = match finite(point.speed) {
        Some(s) if s < config.movement_stop_speed => Some(true),
        Some(s) if s >= config.movement_start_speed => Some(false),
        Some(_) => None,
        None => motion.map(|m| !m.moving),
    };
    let idle = match (ignition.map(|i| i.on), still) {
        (Some(true), Some(still)) => still,
        (Some(true), None) => return,
        _ => false,
    };
    *phase = match (*phase, idle) {
        (_, false) => Phase::Idle,
        (Phase::Open(since), true) => Phase::Open(since),
        (Phase::Pending(since), true) => {
            confirm_idle(since, now, config.idle_min_duration, emitter)
        }
        (Phase::Idle, true) => confirm_idle(now, now, config.idle_min_duration, emitter),
    };
}

fn confirm_idle(
    since: DateTime<Utc>,
    now: DateTime<Utc>,
    min_duration: Duration,
    emitter: &mut Emitter,
) -> Phase {
    if now - since >= min_duration {
        emitter.emit(EventType::EngineIdling, since, EventDetails::default());
        Phase::Open(since)
    } else {
        Phase::Pending(since)
    }
}

fn to_array((lat, lon): (f64, f64)) -> [f64; 2] {
    [lat, lon]
}

fn from_array([lat, lon]: [f64; 2]) -> (f64, f64) {
    (lat, lon)
}

fn distance_to(anchor: [f64; 2], (lat, lon): (f64, f64)) -> f64 {
    distance_m(anchor[0], anchor[1], lat, lon)
}
