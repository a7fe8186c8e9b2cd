//! Which alert rules an event notifies, what the notification says, and how often a recipient may
//! be notified. Pure functions without I/O; the service loads rules, geofences and send history
//! and calls in here.
//!
//! # Rule matching ([`matching`])
//!
//! - **Candidates.** The rules of the event's asset bound to the event's type or to `Any` (1);
//!   rules with `isDisabled` never match.
//! - **Order.** Ascending `order`, ties broken by id (uuid byte order, which equals the order of
//!   the lowercase hyphenated strings).
//! - **Snooze (`disabledEvents`).** Keys are EventType names. A key snoozes its event type while
//!   the event's `occurredAt` is before the key's instant (the instant itself is no longer
//!   snoozed). The key `Any` (allowed by the spec) snoozes every event type of the asset. A snooze
//!   silences every rule of the asset, so it is checked once per event: [`matching::is_snoozed`],
//!   or [`matching::rules_to_notify`], which applies both.
//! - **Recipient time zone.** `daysOfWeek`, `timeOfDay` and `dates` are evaluated on the local
//!   wall-clock date and time of `occurredAt` in the recipient's IANA `timeZone`.
//! - **`daysOfWeek`.** Empty means every day.
//! - **`timeOfDay`.** `from` is inclusive, `to` exclusive (`08:00`–`17:00` matches 08:00:00 up
//!   to 16:59:59.999). `from` > `to` wraps past midnight (`22:00`–`06:00`). `from` == `to` means
//!   the whole day: an empty window would be a disabled rule, which `isDisabled` already says.
//!   Because the local wall-clock time is compared, a window inside a spring-forward gap (02:00 to
//!   03:00 in Europe/Berlin on 2026-03-29) matches no instant that day, and a window inside a
//!   fall-back repeat (02:00 to 03:00 on 2026-10-25) matches both passes, two real hours.
//!   `timeOfDay` is not tied to `daysOfWeek`: for a wrapping window the weekday is the one of
//!   the event's own local date (Friday 22:00–06:00 fires Friday night before midnight and early
//!   Friday morning, not Saturday morning).
//! - **`dates`.** Inclusive at both ends, as local calendar dates. A range with `from` > `to`
//!   (rejected by validation) matches nothing.
//! - **Geofences.** `insideGeofences`: only while the event position is inside at least one of
//!   them; `outsideGeofences`: only while it is outside all of them; both lists must hold when
//!   both are given; empty lists do not restrict. When the position is unknown, a rule with any
//!   geofence filter does not match: being inside or outside cannot be shown, and a geofence
//!   rule that fires everywhere would be noise.
//!
//! # Messages ([`messages`])
//!
//! - **Language.** From the recipient's `culture` (BCP 47): its language subtag (`de-AT` uses
//!   German), otherwise English. English and German exist; each language is one table
//!   (`messages/en.rs`, `messages/de.rs`).
//! - **Time.** Local to the recipient's `timeZone` with the zone's abbreviation (`CEST`; German
//!   `MESZ`/`MEZ` for Central European time), or `UTC+3` style where the zone has none.
//!   English: `2026-03-29 14:05 CEST` (ISO date, 24-hour clock, unambiguous in every English
//!   region); German: `29.03.2026 14:05 MESZ`.
//! - **Numbers.** At most two decimals, trailing zeros dropped, the language's decimal separator
//!   (`97.5` / `97,5`), no grouping. Units: km/h (speed), V (input voltage), % (battery, fuel,
//!   AdBlue), °C (temperature), kPa (pressure), rpm / U/min (engine speed), as the spec's
//!   telemetry threshold units. `BatteryLow` values are percent. `value` and `threshold` are
//!   shown only for these event types.
//! - **Shape.** Subject = first line = `<title>: <asset>` (short for SMS); then a sentence, the
//!   measured value with its limit, the geofence, the border crossing (ISO country codes), the
//!   time, the position in degrees, and `Acknowledge: <url>` when a link is given.
//! - **Spoken.** No URL and no position; units and minus signs in words; one decimal; the local
//!   time and date without the zone (it is the recipient's own).
//! - **Digest.** `N more alerts for <asset>` (or `for K assets`), one line per event in time
//!   order, at most [`messages::DIGEST_MAX_LINES`] (10) lines, then `… and M more`; each listed
//!   event keeps its acknowledge link. [`messages::render_digest_spoken`] is its phone form.
//!
//! # Per-recipient limits ([`limits`])
//!
//! - **Default: at most 5 messages per recipient in any sliding window of 60 seconds.**
//! - An alert over the limit is not sent on its own: it joins the recipient's one pending digest,
//!   sent at the earliest instant the window allows (the time when the oldest send that keeps
//!   the window full becomes 60 s old). The digest counts as a message, so no window ever holds
//!   more than 5 sends.
//! - The caller keys the send history by recipient (for example channel and address) and
//!   passes the sends of the last window, digests included.
//! - A limit of 0 messages is treated as 1 (a limit never silences a recipient entirely).

pub mod event_type;
pub mod limits;
pub mod matching;
pub mod messages;

pub use matching::{
    EventFacts, RuleFilter, is_snoozed, matching_rules, parse_time_of_day, rules_to_notify,
};
