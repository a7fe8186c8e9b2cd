//! Event type codes and names, as the spec's `EventType` enum (`x-enum-varnames`).

/// Code of `Any`: a rule bound to it matches every event type.
pub const ANY: i32 = 1;

/// Names by code; index 0 is code 1 (`Any`).
pub const NAMES: [&str; 27] = [
    "Any",
    "InputPowerDisconnected",
    "InputVoltageLow",
    "BatteryLow",
    "Jammed",
    "MovementStarted",
    "MovementStopped",
    "IgnitionTurnedOn",
    "IgnitionTurnedOff",
    "GeofenceEntered",
    "GeofenceExited",
    "SpeedLimitExceeded",
    "AssetLeftBehind",
    "FuelLevelLow",
    "AdBlueLevelLow",
    "AlarmTriggered",
    "LockdownViolated",
    "Tampering",
    "CountryBorderCrossed",
    "TemperatureHigh",
    "TemperatureLow",
    "PressureHigh",
    "PressureLow",
    "HardCornering",
    "EngineIdling",
    "EngineSpeedLimitExceeded",
    "AccidentOccurred",
];

/// The name of an event type code (`12` -> `SpeedLimitExceeded`), the key used in `disabledEvents`.
pub fn name(code: i32) -> Option<&'static str> {
    let index = usize::try_from(code.checked_sub(1)?).ok()?;
    NAMES.get(index).copied()
}

/// The code of an event type name, exact spelling.
pub fn code(name: &str) -> Option<i32> {
    NAMES.iter().position(|n| *n == name).map(|i| i as i32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_round_trip() {
        assert_eq!(name(1), Some("Any"));
        assert_eq!(name(12), Some("SpeedLimitExceeded"));
        assert_eq!(name(27), Some("AccidentOccurred"));
        assert_eq!(name(0), None);
        assert_eq!(name(28), None);
        assert_eq!(name(i32::MIN), None);
        for c in 1..=27 {
            assert_eq!(code(name(c).unwrap()), Some(c));
        }
        assert_eq!(code("speedLimitExceeded"), None);
    }
}
