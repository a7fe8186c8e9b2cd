//! Live events: streams that follow an account's stored events. A stream reads the store by
//! stream position (the SSE id), so resuming after `Last-Event-ID` and following new events are
//! one path: a wake-up only says "look again", and a stream that was slow to look finds every
//! event it has not sent, once. Wake-ups come from this instance's ingestion as it commits;
//! a periodic look covers events that other instances (PostgreSQL) stored.

use crate::store::AlertStore;
use crate::store::alerts::EventFilter;
use asset_alerting_models::Event;
use futures_util::Stream;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use uuid::Uuid;

/// Streams one account may have open at once (on one instance).
pub const STREAMS_PER_ACCOUNT: usize = 10;
/// Silence after which a keep-alive comment is sent: below the usual 30 to 60 s idle timeouts of
/// proxies and load balancers.
pub const HEARTBEAT: Duration = Duration::from_secs(15);
/// What the first event tells a client to wait before it reconnects.
pub const RETRY: Duration = Duration::from_secs(1);
/// How often an idle stream looks for events that another instance stored.
const POLL: Duration = Duration::from_secs(1);
/// Events read from the store at a time.
const BATCH: i64 = 200;

/// Wakes the streams when events may have been stored, and counts the open streams.
pub struct LiveEvents {
    stored: watch::Sender<u64>,
    /// Set when the service stops: streams end, so a graceful shutdown does not wait for them.
    closing: watch::Sender<bool>,
    open: Mutex<HashMap<Uuid, usize>>,
}

impl Default for LiveEvents {
    fn default() -> Self {
        LiveEvents {
            stored: watch::channel(0).0,
            closing: watch::channel(false).0,
            open: Mutex::new(HashMap::new()),
        }
    }
}

impl LiveEvents {
    /// A transaction that may have stored events has committed.
    pub fn stored(&self) {
        self.stored.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Ends every stream (the service is stopping).
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    fn open_lock(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, usize>> {
        // A count is valid after any panic: nothing is left half-written.
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A slot for one more stream of `account`; `None` when it has [`STREAMS_PER_ACCOUNT`].
    pub fn open(self: &Arc<Self>, account: Uuid) -> Option<StreamSlot> {
        let mut open = self.open_lock();
        let count = open.entry(account).or_default();
        if *count >= STREAMS_PER_ACCOUNT {
            return None;
        }
        *count += 1;
        crate::monitoring::live_streams(1.0);
        Some(StreamSlot {
            hub: self.clone(),
            account,
        })
    }
}

/// One open stream of an account; dropping it (the client went away) frees the slot.
pub struct StreamSlot {
    hub: Arc<LiveEvents>,
    account: Uuid,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.hub.open_lock();
        if let Some(count) = open.get_mut(&self.account) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.account);
            }
        }
        crate::monitoring::live_streams(-1.0);
    }
}

/// Where a stream is and what it has read but not sent.
struct Follower<S> {
    store: S,
    slot: StreamSlot,
    filter: EventFilter,
    after: i64,
    ready: VecDeque<(i64, Event)>,
    stored: watch::Receiver<u64>,
    closing: watch::Receiver<bool>,
}

impl<S: AlertStore> Follower<S> {
    /// The next event after the cursor, waiting for one to be stored. `None` ends the stream:
    /// the service is stopping, or the store failed (the client reconnects and resumes).
    async fn next(&mut self) -> Option<(i64, Event)> {
        loop {
            if *self.closing.borrow() {
                return None;
            }
            if let Some(item) = self.ready.pop_front() {
                self.after = item.0;
                return Some(item);
            }
            // Marked seen before reading: a commit after this read wakes the next wait.
            self.stored.borrow_and_update();
            let account = self.slot.account;
            match self
                .store
                .events_after(account, &self.filter, self.after, BATCH)
                .await
            {
                Ok(events) if !events.is_empty() => {
                    self.ready.extend(events);
                    continue;
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::error!(error = %e, %account, "live events: reading the store failed");
                    return None;
                }
            }
            // Nothing new: wait for a commit here, or look again for other instances' events.
            tokio::select! {
                _ = self.stored.changed() => {}
                _ = self.closing.changed() => {}
                _ = tokio::time::sleep(POLL) => {}
            }
        }
    }
}

/// The account's events after stream position `after` that pass `filter`, as they are stored.
pub fn follow<S: AlertStore + Send + 'static>(
    hub: &LiveEvents,
    store: S,
    slot: StreamSlot,
    filter: EventFilter,
    after: i64,
) -> impl Stream<Item = (i64, Event)> + Send + use<S> {
    let follower = Follower {
        store,
        slot,
        filter,
        after,
        ready: VecDeque::new(),
        stored: hub.stored.subscribe(),
        closing: hub.closing.subscribe(),
    };
    futures_util::stream::unfold(follower, |mut f| async move {
        let item = f.next().await?;
        Some((item, f))
    })
}

/// The SSE event of a stored event, its stream position as the id; the first of a stream also
/// says how long to wait before reconnecting.
pub fn sse_event<T>(
    position: i64,
    data: T,
    first: bool,
) -> asset_alerting_server::stream::Event<T> {
    let event = asset_alerting_server::stream::Event::new(data).id(position.to_string());
    if first { event.retry(RETRY) } else { event }
}

/// The stream position in a `Last-Event-ID` header: a non-negative integer, or `None` when
/// empty (as after an SSE `id:` line that reset it).
pub fn parse_last_event_id(value: &str) -> Result<Option<i64>, String> {
    let value = value.trim();
    if value.is_empty() {
        return Ok(None);
    }
    value
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 0)
        .map(Some)
        .ok_or_else(|| {
            "Last-Event-ID must be the id of an event of this stream (a non-negative integer)"
                .to_owned()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_limited_per_account_and_freed_on_drop() {
        let hub = Arc::new(LiveEvents::default());
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let slots: Vec<_> = (0..STREAMS_PER_ACCOUNT)
            .map(|_| hub.open(a).unwrap())
            .collect();
        assert!(hub.open(a).is_none());
        assert!(hub.open(b).is_some(), "another account has its own limit");
        drop(slots);
        assert!(hub.open(a).is_some());
    }

    #[test]
    fn last_event_ids_are_stream_positions() {
        assert_eq!(parse_last_event_id("42"), Ok(Some(42)));
        assert_eq!(parse_last_event_id(" 0 "), Ok(Some(0)));
        assert_eq!(parse_last_event_id(" "), Ok(None));
        for bad in ["-1", "x", "1.5", "99999999999999999999"] {
            assert!(parse_last_event_id(bad).is_err(), "{bad}");
        }
    }
}
