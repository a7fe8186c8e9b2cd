//! The notification outbox over PostgreSQL, drained by every instance at once. Claims take turns
//! (an advisory lock): each leases due rows of destinations nobody holds until `lease_until`, so
//! two instances never claim one row nor one destination at once; a crashed instance's lease
//! expires and another instance claims the row again. Each claim carries a token: the holder
//! confirms it right before each send (and extends the lease then), and its outcome is recorded
//! only while the token still holds the row, so an instance that lost its lease (a stall, a
//! slow group) neither sends nor overwrites. Recipients' advisory locks order the instances'
//! sends and digests (`lock_recipient`).

use super::PgStore;
use crate::store::StoreResult;
use crate::store::alerting::{claimed, with_ready};
use crate::store::alerts::Claimed;
use crate::store::sql::{Conn, args};
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// The advisory lock claims take in turn (an arbitrary constant of this service).
const CLAIM_LOCK: i64 = 0x6173_7365_7463_6c6d;

impl PgStore {
    /// See [`AlertStore::claim_due`](crate::store::alerts::AlertStore::claim_due): the claimed
    /// rows with their due times, without their events. Claims of all instances take one
    /// advisory lock in turn, so each sees the leases the one before it took and no
    /// destination is claimed twice at once.
    pub(crate) async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        per_destination: i64,
        limit: i64,
    ) -> StoreResult<Vec<(DateTime<Utc>, Claimed)>> {
        let mut tx = self.pool.begin().await?;
        let mut c = Conn::Postgres(&mut tx);
        c.run("SELECT pg_advisory_xact_lock($1)", args![CLAIM_LOCK])
            .await?;
        // The UPDATE checks status and lease again: a recorder may have changed a row meanwhile.
        let claimed = c
            .all(
                with_ready!(
                    ", picked AS ( \
                         SELECT id FROM ready WHERE turn <= $4 \
                         ORDER BY turn, due_at, created_at, occurred_at, id LIMIT $5 \
                     ) UPDATE notifications n SET lease_until = $2, lease_token = $3 FROM picked \
                     WHERE n.id = picked.id AND n.status = 'pending' \
                     AND (n.lease_until IS NULL OR n.lease_until <= $1) \
                     RETURNING n.id, n.event_id, n.account_id, n.rule_id, n.webhook_account_id, \
                         n.target, n.created_at, n.due_at, n.attempts, n.lease_token"
                ),
                args![now, lease_until, Uuid::new_v4(), per_destination, limit],
                claimed,
            )
            .await?;
        tx.commit().await?;
        Ok(claimed)
    }
}

/// Takes the recipient's advisory lock until the end of the transaction. Only PostgreSQL's
/// instances need it; SQLite's writer runs one transaction at a time.
pub(crate) async fn lock_recipient(
    c: &mut Conn<'_>,
    channel: &str,
    address: &str,
) -> StoreResult<()> {
    if let Conn::Postgres(_) = c {
        c.run(
            "SELECT pg_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))",
            args![channel, address],
        )
        .await?;
    }
    Ok(())
}
