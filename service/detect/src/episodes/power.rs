//! InputPowerDisconnected: the input voltage falls to about zero, or the device says so.

use super::Emitter;
use super::signals::step_flag;
use super::thresholds::{Check, Direction, Limit};
use crate::config::Config;
use crate::state::{Condition, Episodes};
use crate::types::{EventDetails, EventType, Point, Quantity, finite};

/// Two sources, tracked apart: the voltage (below `power_disconnected_below`, released at that
/// plus the margin) and the `powerDisconnected` flag. The episode is open while either is;
/// its event comes when the first one opens (voltage details when the voltage opened it).
pub(crate) fn detect(
    config: &Config,
    point: &Point,
    episodes: &mut Episodes,
    emitter: &mut Emitter,
) {
    let was_open = episodes.get(Condition::PowerVoltage).is_open()
        || episodes.get(Condition::PowerFlag).is_open();
    let by_voltage = Check {
        condition: Condition::PowerVoltage,
        quantity: Quantity::InputVoltage,
        limit: Some(Limit {
            threshold: config.power_disconnected_below,
            direction: Direction::Below,
            hysteresis: config.power_disconnected,
        }),
        value: finite(point.input_voltage),
    }
    .run(episodes, emitter.timestamp);
    let by_flag = step_flag(
        episodes.get_mut(Condition::PowerFlag),
        point.signals.power_disconnected,
        emitter.timestamp,
    )
    .map(|since| (since, EventDetails::default()));
    if let (false, Some((since, details))) = (was_open, by_voltage.or(by_flag)) {
        emitter.emit(EventType::InputPowerDisconnected, since, details);
    }
}
