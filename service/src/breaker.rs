//! Circuit breakers of the dispatcher, one per destination: a destination whose deliveries keep
//! failing (timeouts, refused connections, 5xx, 429) is backed off as a whole, so its queue holds
//! no delivery slot until the cooldown is over. The next delivery after it is the probe: success
//! closes the circuit, another failure opens it again for twice as long.

use crate::store::alerts::{AttemptResult, Destination};
use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Debug, Clone, Copy)]
pub struct BreakerConfig {
    /// Retryable failures in a row that open the circuit.
    pub failures: u32,
    /// How long the first opening lasts; doubled per reopening up to `max_cooldown`.
    pub cooldown: Duration,
    pub max_cooldown: Duration,
}

impl BreakerConfig {
    /// Scaled to the retry delays: a cooldown of three first retries (30 s by default), at
    /// most 60 of them (10 minutes).
    pub fn from_retry_base(retry_base: Duration) -> Self {
        BreakerConfig {
            failures: 3,
            cooldown: retry_base * 3,
            max_cooldown: retry_base * 60,
        }
    }
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig::from_retry_base(Duration::seconds(10))
    }
}

#[derive(Default)]
struct Circuit {
    failures_in_a_row: u32,
    openings: u32,
}

#[derive(Default)]
pub struct Breakers {
    config: BreakerConfig,
    circuits: Mutex<HashMap<Destination, Circuit>>,
}

/// Destinations remembered at most (a failing one stays until it succeeds).
const REMEMBERED: usize = 4096;

impl Breakers {
    pub fn new(config: BreakerConfig) -> Breakers {
        Breakers {
            config,
            circuits: Mutex::default(),
        }
    }

    /// Counts one attempt's result. Returns until when the destination is backed off if this
    /// result opened its circuit.
    pub fn record(
        &self,
        destination: &Destination,
        result: &AttemptResult,
        now: DateTime<Utc>,
    ) -> Option<DateTime<Utc>> {
        let mut circuits = self.circuits.lock().expect("never poisoned");
        match result {
            AttemptResult::Delivered { .. } => {
                circuits.remove(destination);
                None
            }
            AttemptResult::Retry { .. } => {
                if circuits.len() >= REMEMBERED && !circuits.contains_key(destination) {
                    circuits.clear();
                }
                let circuit = circuits.entry(destination.clone()).or_default();
                circuit.failures_in_a_row += 1;
                if circuit.failures_in_a_row < self.config.failures {
                    return None;
                }
                let doubling = circuit.openings.min(16);
                circuit.openings += 1;
                let cooldown =
                    (self.config.cooldown * 2i32.pow(doubling)).min(self.config.max_cooldown);
                Some(now + cooldown)
            }
            // Permanent failures and skips say nothing about the destination's health.
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::alerts::ChannelKind;

    fn retry() -> AttemptResult {
        AttemptResult::Retry {
            provider_code: None,
            message: "timeout".to_owned(),
            retry_at: DateTime::UNIX_EPOCH,
        }
    }

    fn delivered() -> AttemptResult {
        AttemptResult::Delivered {
            provider_code: None,
        }
    }

    #[test]
    fn opens_after_failures_in_a_row_and_backs_off_longer_each_time() {
        let breakers = Breakers::new(BreakerConfig::default());
        let hook = (ChannelKind::Webhook, "https://slow.example/hook".to_owned());
        let now = DateTime::UNIX_EPOCH;
        assert_eq!(breakers.record(&hook, &retry(), now), None);
        assert_eq!(breakers.record(&hook, &retry(), now), None);
        assert_eq!(
            breakers.record(&hook, &retry(), now),
            Some(now + Duration::seconds(30))
        );
        // The probe fails: open again, twice as long; up to the maximum.
        assert_eq!(
            breakers.record(&hook, &retry(), now),
            Some(now + Duration::seconds(60))
        );
        for _ in 0..10 {
            breakers.record(&hook, &retry(), now);
        }
        assert_eq!(
            breakers.record(&hook, &retry(), now),
            Some(now + Duration::minutes(10))
        );
        // A success closes it; counting starts again.
        assert_eq!(breakers.record(&hook, &delivered(), now), None);
        assert_eq!(breakers.record(&hook, &retry(), now), None);
    }

    #[test]
    fn destinations_are_counted_apart() {
        let breakers = Breakers::new(BreakerConfig::default());
        let a = (ChannelKind::Webhook, "https://a.example/".to_owned());
        let b = (ChannelKind::Email, "ops@b.example".to_owned());
        let now = DateTime::UNIX_EPOCH;
        for _ in 0..2 {
            breakers.record(&a, &retry(), now);
            breakers.record(&b, &retry(), now);
        }
        breakers.record(&b, &delivered(), now);
        assert!(breakers.record(&a, &retry(), now).is_some());
        assert!(breakers.record(&b, &retry(), now).is_none());
    }
}
