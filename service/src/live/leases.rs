//! The per-account stream limit across instances: each open stream holds a lease, a row in the
//! database, for `ttl`. The instance renews all of its leases in one statement every third of
//! `ttl`, so idle streams cost no queries of their own; a killed instance's leases stop
//! counting `ttl` after their last renewal. A closed stream's lease is deleted at once.

use crate::store::StoreResult;
use crate::store::postgres::PgStore;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

/// A stream's lease; `lost` turns true when a renewal found it expired (the instance stalled
/// past `ttl`, and another opening may have counted it free): the stream then ends.
pub struct Lease {
    pub id: Uuid,
    pub lost: watch::Receiver<bool>,
}

pub struct Leases {
    store: PgStore,
    /// This instance, in its leases' rows.
    instance: Uuid,
    ttl: Duration,
    held: Mutex<HashMap<Uuid, watch::Sender<bool>>>,
    released: mpsc::UnboundedSender<Uuid>,
}

impl Leases {
    /// Leases of a new instance, renewed and released by a task of their own.
    pub fn start(store: PgStore, ttl: Duration) -> Arc<Leases> {
        let (released, to_release) = mpsc::unbounded_channel();
        let leases = Arc::new(Leases {
            store,
            instance: Uuid::new_v4(),
            ttl,
            held: Mutex::new(HashMap::new()),
            released,
        });
        tokio::spawn(keep(Arc::downgrade(&leases), to_release));
        leases
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, watch::Sender<bool>>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A lease on one more stream of `account`, unless it has as many as it may.
    pub async fn take(&self, account: Uuid) -> StoreResult<Option<Lease>> {
        let id = Uuid::new_v4();
        let limit = super::STREAMS_PER_ACCOUNT as i64;
        if !self
            .store
            .lease_stream(id, account, self.instance, self.ttl, limit)
            .await?
        {
            return Ok(None);
        }
        // Held only once stored, so a renewal that counts it ran after the insert.
        let (lost_tx, lost) = watch::channel(false);
        self.held().insert(id, lost_tx);
        Ok(Some(Lease { id, lost }))
    }

    /// The stream closed: its lease is deleted soon, by the keeper.
    pub fn release(&self, id: Uuid) {
        self.held().remove(&id);
        let _ = self.released.send(id);
    }

    /// Deletes all of this instance's leases (it stops).
    pub async fn release_all(&self) {
        if let Err(e) = self.store.release_stream_leases(self.instance, None).await {
            tracing::warn!(error = %e, "live events: releasing stream leases failed; they expire");
        }
    }

    /// Extends the held leases; ends the streams of those that expired meanwhile.
    async fn renew(&self) {
        let before: Vec<Uuid> = self.held().keys().copied().collect();
        if before.is_empty() {
            return;
        }
        let renewed = match self
            .store
            .renew_stream_leases(self.instance, self.ttl)
            .await
        {
            Ok(renewed) => renewed,
            Err(e) => {
                tracing::warn!(error = %e, "live events: renewing stream leases failed");
                return;
            }
        };
        let mut held = self.held();
        for id in before.iter().filter(|id| !renewed.contains(id)) {
            if let Some(lost) = held.remove(id) {
                tracing::warn!(lease = %id, "live events: a stream lease expired; the stream ends");
                lost.send_replace(true);
                let _ = self.released.send(*id);
            }
        }
    }
}

/// Renews every third of the lease and deletes released leases, until the leases are dropped.
async fn keep(leases: std::sync::Weak<Leases>, mut released: mpsc::UnboundedReceiver<Uuid>) {
    let Some(every) = leases.upgrade().map(|l| l.ttl / 3) else {
        return;
    };
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut batch = Vec::new();
    loop {
        tokio::select! {
            _ = tick.tick() => {
                let Some(leases) = leases.upgrade() else { return };
                leases.renew().await;
            }
            n = released.recv_many(&mut batch, 256) => {
                let Some(leases) = leases.upgrade() else { return };
                if n == 0 {
                    return;
                }
                if let Err(e) = leases.store.release_stream_leases(leases.instance, Some(&batch)).await {
                    tracing::warn!(error = %e, "live events: releasing stream leases failed; they expire");
                }
                batch.clear();
            }
        }
    }
}
