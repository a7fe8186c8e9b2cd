//! Episodes driven by device flags.

use chrono::{DateTime, Utc};

use super::Emitter;
use crate::state::{Condition, Episodes, Phase};
use crate::types::{EventDetails, Signals};

/// `Some(true)` opens the episode (returns its start if it was not open), `Some(false)`
/// closes it, `None` leaves it unchanged.
pub(crate) fn step_flag(
    phase: &mut Phase,
    flag: Option<bool>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    match (flag?, *phase) {
        (true, Phase::Open(_)) => None,
        (true, _) => {
            *phase = Phase::Open(now);
            Some(now)
        }
        (false, _) => {
            *phase = Phase::Idle;
            None
        }
    }
}

/// AlarmTriggered, Tampering, Jammed, AccidentOccurred, HardCornering, LockdownViolated and
/// AssetLeftBehind. (`power_disconnected` belongs to InputPowerDisconnected, see `power`.)
pub(crate) fn detect(signals: &Signals, episodes: &mut Episodes, emitter: &mut Emitter) {
    let flags = [
        (Condition::Alarm, signals.alarm),
        (Condition::Tampering, signals.tampering),
        (Condition::Jamming, signals.jamming),
        (Condition::Accident, signals.accident),
        (Condition::HardCornering, signals.hard_cornering),
        (Condition::LockdownViolation, signals.lockdown_violation),
        (Condition::LeftBehind, signals.left_behind),
    ];
    for (condition, flag) in flags {
        if step_flag(episodes.get_mut(condition), flag, emitter.timestamp).is_some() {
            emitter.emit_now(condition.event_type(), EventDetails::default());
        }
    }
}
