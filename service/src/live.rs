//! Live events: streams that follow an account's stored events. A stream reads the store by
//! stream position (the SSE id), so resuming after `Last-Event-ID` and following new events are
//! one path: a wake-up only says "look again", and a stream that was slow to look finds every
//! event it has not sent, once. With one instance (SQLite) ingestion wakes the account's streams
//! as it commits. With several (PostgreSQL) every instance hears every commit through the
//! database (`listener.rs`), and the per-account limit is kept in the database (`leases.rs`);
//! while the listener is not listening, streams look every second.

mod leases;
pub mod listener;

pub use leases::Leases;

use crate::store::alerts::EventFilter;
use crate::store::{AlertStore, StoreResult};
use asset_alerting_models::Event;
use futures_util::Stream;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;
use uuid::Uuid;

/// Streams one account may have open at once (on all instances together).
pub const STREAMS_PER_ACCOUNT: usize = 10;
/// Silence after which a keep-alive comment is sent: below the usual 30 to 60 s idle timeouts of
/// proxies and load balancers.
pub const HEARTBEAT: Duration = Duration::from_secs(15);
/// What the first event tells a client to wait before it reconnects.
pub const RETRY: Duration = Duration::from_secs(1);
/// How often a stream looks for events while commits may go unheard (the listener reconnects).
const POLL: Duration = Duration::from_secs(1);
/// Events read from the store at a time.
const BATCH: i64 = 200;

/// Wakes the streams when events may have been stored, and counts the open streams.
pub struct LiveEvents {
    /// One sender per account with open streams, bumped when it may have new events.
    accounts: Mutex<HashMap<Uuid, watch::Sender<u64>>>,
    /// Whether every commit wakes the streams of its accounts: always with one instance; with
    /// several while the listener listens. When not, streams look every [`POLL`].
    heard: watch::Sender<bool>,
    /// Set when the service stops: streams end, so a graceful shutdown does not wait for them.
    closing: watch::Sender<bool>,
    slots: Slots,
}

/// Where open streams are counted.
enum Slots {
    /// One instance: here.
    Local(Mutex<HashMap<Uuid, usize>>),
    /// Several instances: in the database.
    Shared(Arc<Leases>),
}

impl Default for LiveEvents {
    /// One instance: in-process wake-ups and counts.
    fn default() -> Self {
        LiveEvents::new(true, Slots::Local(Mutex::new(HashMap::new())))
    }
}

/// A count or map is valid after any panic: nothing is left half-written.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl LiveEvents {
    fn new(heard: bool, slots: Slots) -> Self {
        LiveEvents {
            accounts: Mutex::new(HashMap::new()),
            heard: watch::channel(heard).0,
            closing: watch::channel(false).0,
            slots,
        }
    }

    /// Several instances: streams counted by `leases`, and not heard until the listener listens.
    pub fn shared(leases: Arc<Leases>) -> Self {
        LiveEvents::new(false, Slots::Shared(leases))
    }

    /// This instance committed events of `account`. With several instances the listener hears
    /// the commit too; this wakes only while it does not.
    pub fn stored(&self, account: Uuid) {
        if matches!(self.slots, Slots::Local(_)) || !*self.heard.borrow() {
            self.wake(account);
        }
    }

    /// Wakes the streams of `account`.
    pub fn wake(&self, account: Uuid) {
        if let Some(sender) = lock(&self.accounts).get(&account) {
            sender.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Wakes every stream: each catches up from the store.
    pub fn wake_all(&self) {
        for sender in lock(&self.accounts).values() {
            sender.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Whether commits of every instance wake the streams; either way every stream looks once.
    pub fn set_heard(&self, heard: bool) {
        self.heard.send_replace(heard);
        self.wake_all();
    }

    /// Ends every stream (the service is stopping).
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves once the service is stopping.
    pub async fn closed(&self) {
        let _ = self.closing.subscribe().wait_for(|c| *c).await;
    }

    /// Gives up this instance's stream leases (its streams have ended).
    pub async fn release_all(&self) {
        if let Slots::Shared(leases) = &self.slots {
            leases.release_all().await;
        }
    }

    /// A slot for one more stream of `account`; `None` when it has [`STREAMS_PER_ACCOUNT`].
    pub async fn open(self: &Arc<Self>, account: Uuid) -> StoreResult<Option<StreamSlot>> {
        let lease = match &self.slots {
            Slots::Local(open) => {
                let mut open = lock(open);
                let count = open.entry(account).or_default();
                if *count >= STREAMS_PER_ACCOUNT {
                    return Ok(None);
                }
                *count += 1;
                None
            }
            Slots::Shared(leases) => match leases.take(account).await? {
                Some(lease) => Some(lease),
                None => return Ok(None),
            },
        };
        crate::monitoring::live_streams(1.0);
        Ok(Some(StreamSlot {
            hub: self.clone(),
            account,
            lease,
        }))
    }

    fn subscribe(&self, account: Uuid) -> watch::Receiver<u64> {
        lock(&self.accounts)
            .entry(account)
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Forgets the account's sender when the caller's receiver is its last.
    fn unsubscribe(&self, account: Uuid) {
        let mut accounts = lock(&self.accounts);
        if accounts
            .get(&account)
            .is_some_and(|s| s.receiver_count() <= 1)
        {
            accounts.remove(&account);
        }
    }
}

/// One open stream of an account; dropping it (the client went away) frees the slot.
pub struct StreamSlot {
    hub: Arc<LiveEvents>,
    account: Uuid,
    lease: Option<leases::Lease>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        match (&self.hub.slots, &self.lease) {
            (Slots::Local(open), _) => {
                let mut open = lock(open);
                if let Some(count) = open.get_mut(&self.account) {
                    *count -= 1;
                    if *count == 0 {
                        open.remove(&self.account);
                    }
                }
            }
            (Slots::Shared(leases), Some(lease)) => leases.release(lease.id),
            (Slots::Shared(_), None) => {}
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
    heard: watch::Receiver<bool>,
    closing: watch::Receiver<bool>,
}

impl<S> Drop for Follower<S> {
    fn drop(&mut self) {
        self.slot.hub.unsubscribe(self.slot.account);
    }
}

/// Resolves when the lease is lost (never without one).
async fn lost(lease: Option<&mut leases::Lease>) {
    match lease {
        Some(lease) => {
            let _ = lease.lost.wait_for(|lost| *lost).await;
        }
        None => std::future::pending().await,
    }
}

impl<S: AlertStore> Follower<S> {
    /// The next event after the cursor, waiting for one to be stored. `None` ends the stream:
    /// the service is stopping, the stream's lease was lost, or the store failed (the client
    /// reconnects and resumes).
    async fn next(&mut self) -> Option<(i64, Event)> {
        loop {
            let lease_lost = self.slot.lease.as_ref().is_some_and(|l| *l.lost.borrow());
            if *self.closing.borrow() || lease_lost {
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
            // Nothing new: wait for a commit, or look again while commits may go unheard.
            let unheard = !*self.heard.borrow();
            tokio::select! {
                _ = self.stored.changed() => {}
                _ = self.closing.changed() => {}
                _ = lost(self.slot.lease.as_mut()) => {}
                _ = tokio::time::sleep(POLL), if unheard => {}
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
        stored: hub.subscribe(slot.account),
        slot,
        filter,
        after,
        ready: VecDeque::new(),
        heard: hub.heard.subscribe(),
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

    #[tokio::test]
    async fn slots_are_limited_per_account_and_freed_on_drop() {
        let hub = Arc::new(LiveEvents::default());
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let mut slots = Vec::new();
        for _ in 0..STREAMS_PER_ACCOUNT {
            slots.push(hub.open(a).await.unwrap().unwrap());
        }
        assert!(hub.open(a).await.unwrap().is_none());
        assert!(
            hub.open(b).await.unwrap().is_some(),
            "another account has its own limit"
        );
        drop(slots);
        assert!(hub.open(a).await.unwrap().is_some());
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
