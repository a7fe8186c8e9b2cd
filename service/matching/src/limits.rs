//! Per-recipient sending limit: a sliding window, overflow coalesced into one digest.

use chrono::{DateTime, Duration, Utc};

/// At most `max_messages` sends to one recipient in any window of `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub max_messages: u32,
    pub window: Duration,
}

impl RateLimit {
    pub const DEFAULT_MAX_MESSAGES: u32 = 5;
    pub const DEFAULT_WINDOW_SECS: i64 = 60;
}

impl Default for RateLimit {
    /// 5 messages per 60 seconds.
    fn default() -> Self {
        RateLimit {
            max_messages: Self::DEFAULT_MAX_MESSAGES,
            window: Duration::seconds(Self::DEFAULT_WINDOW_SECS),
        }
    }
}

/// What to do with one alert for one recipient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Send the alert on its own now.
    SendNow,
    /// Add the alert to the recipient's pending digest, which is sent at `send_at` (a pending
    /// digest keeps its time; the digest counts as one send).
    Coalesce { send_at: DateTime<Utc> },
}

/// Decides for an alert at `now`. `recent_sends`: send times of this recipient (messages and
/// digests), any order; sends older than the window are ignored, so a longer history is fine.
pub fn decide(limit: &RateLimit, recent_sends: &[DateTime<Utc>], now: DateTime<Utc>) -> Decision {
    let max = limit.max_messages.max(1) as usize;
    let mut in_window: Vec<DateTime<Utc>> = recent_sends
        .iter()
        .copied()
        .filter(|sent| *sent > now - limit.window)
        .collect();
    if in_window.len() < max {
        return Decision::SendNow;
    }
    in_window.sort_unstable();
    // Once this send leaves the window, max - 1 remain: room for one more.
    let send_at = in_window[in_window.len() - max] + limit.window;
    Decision::Coalesce { send_at }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_780_000_000 + secs, 0).unwrap()
    }

    fn sends(secs: &[i64]) -> Vec<DateTime<Utc>> {
        secs.iter().map(|s| t(*s)).collect()
    }

    #[test]
    fn default_is_five_per_minute() {
        let limit = RateLimit::default();
        assert_eq!(limit.max_messages, 5);
        assert_eq!(limit.window, Duration::seconds(60));
    }

    #[test]
    fn under_the_limit_sends_now() {
        let limit = RateLimit::default();
        assert_eq!(decide(&limit, &[], t(0)), Decision::SendNow);
        assert_eq!(
            decide(&limit, &sends(&[1, 2, 3, 4]), t(10)),
            Decision::SendNow
        );
    }

    #[test]
    fn at_the_limit_coalesces_until_the_oldest_send_leaves() {
        let limit = RateLimit::default();
        // Unordered input: the oldest send is at 2 s, so room opens at 62 s.
        let recent = sends(&[10, 2, 30, 20, 40]);
        assert_eq!(
            decide(&limit, &recent, t(45)),
            Decision::Coalesce { send_at: t(62) }
        );
    }

    #[test]
    fn over_the_limit_waits_for_enough_sends_to_leave() {
        let limit = RateLimit::default();
        // Seven sends in the window (a lowered limit, or races): room opens when only four
        // remain, once the third oldest (at 3 s) ages out.
        let recent = sends(&[1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(
            decide(&limit, &recent, t(8)),
            Decision::Coalesce { send_at: t(63) }
        );
    }

    #[test]
    fn the_window_slides() {
        let limit = RateLimit::default();
        let recent = sends(&[0, 10, 20, 30, 40]);
        assert_eq!(
            decide(&limit, &recent, t(59)),
            Decision::Coalesce { send_at: t(60) }
        );
        // At 60 s the send at 0 s is exactly one window old and no longer counts.
        assert_eq!(decide(&limit, &recent, t(60)), Decision::SendNow);
        let mut later = recent.clone();
        later.push(t(60));
        assert_eq!(
            decide(&limit, &later, t(61)),
            Decision::Coalesce { send_at: t(70) }
        );
        // Old history beyond the window is ignored.
        assert_eq!(
            decide(&limit, &sends(&[-500, -400, -300, -200, -100]), t(0)),
            Decision::SendNow
        );
    }

    #[test]
    fn a_zero_limit_is_one() {
        let limit = RateLimit {
            max_messages: 0,
            window: Duration::seconds(60),
        };
        assert_eq!(decide(&limit, &[], t(0)), Decision::SendNow);
        assert_eq!(
            decide(&limit, &sends(&[0]), t(1)),
            Decision::Coalesce { send_at: t(60) }
        );
    }

    #[test]
    fn a_custom_limit() {
        let limit = RateLimit {
            max_messages: 2,
            window: Duration::minutes(10),
        };
        assert_eq!(decide(&limit, &sends(&[0]), t(5)), Decision::SendNow);
        assert_eq!(
            decide(&limit, &sends(&[0, 100]), t(200)),
            Decision::Coalesce { send_at: t(600) }
        );
    }
}
