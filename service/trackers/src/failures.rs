//! Failed attempts per source address (unknown device ids, malformed handshakes), in fixed
//! windows: an address over the limit is refused until its window ends, so device ids cannot be
//! guessed quickly from one address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;
use tokio::time::Instant;

pub(crate) struct Failures {
    max: u32,
    window: Duration,
    seen: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl Failures {
    /// At most `max` failures per `window` per address.
    pub(crate) fn new(max: u32, window: Duration) -> Failures {
        Failures {
            max,
            window,
            seen: Mutex::default(),
        }
    }

    /// Whether `ip` is over the limit in its current window.
    pub(crate) fn limited(&self, ip: IpAddr) -> bool {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.get(&ip)
            .is_some_and(|(since, count)| since.elapsed() < self.window && *count >= self.max)
    }

    pub(crate) fn record(&self, ip: IpAddr) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        // Forget windows that are over, so the map stays as small as the attack.
        if seen.len() > 10_000 {
            seen.retain(|_, (since, _)| since.elapsed() < self.window);
        }
        let entry = seen.entry(ip).or_insert((Instant::now(), 0));
        if entry.0.elapsed() >= self.window {
            *entry = (Instant::now(), 0);
        }
        entry.1 += 1;
    }
}
