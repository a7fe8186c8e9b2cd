//! The outbox's claims over SQLite: destinations take turns, one claim at a time per
//! destination. The writer lock makes each claim a single step for every dispatcher. A claim
//! reads by destination (the partial indexes of migration 0008), not the whole backlog.

use super::SqliteStore;
use crate::store::StoreResult;
use crate::store::alerting::claimed;
use crate::store::alerts::Claimed;
use crate::store::sql::{Conn, args};
use chrono::{DateTime, Utc};
use uuid::Uuid;

impl SqliteStore {
    /// See [`AlertStore::claim_due`](crate::store::alerts::AlertStore::claim_due): the claimed
    /// rows with their due times, without their events.
    pub(crate) async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        per_destination: i64,
        limit: i64,
    ) -> StoreResult<Vec<(DateTime<Utc>, Claimed)>> {
        let mut writer = self.writer.lock().await;
        // The same choice as PostgreSQL's claim, read by destination: the destinations
        // with pending notifications are found by skipping through the index of pending ones
        // (one search per channel and per destination), those nobody holds by the index of
        // leases, and of each of these only its first few are read, in the claim's order. So a
        // claim costs the destinations and what it takes, not every pending row: ranking the
        // whole backlog, with 3,000 pending behind a receiver slower than ingestion, made every
        // claim cost ~9 ms of the writer's time, most of them claims finding nothing.
        Conn::Sqlite(&mut writer)
            .all(
                "WITH RECURSIVE channels (channel) AS ( \
                     SELECT (SELECT channel FROM notifications INDEXED BY notifications_pending \
                             WHERE status = 'pending' ORDER BY channel LIMIT 1) \
                     UNION ALL SELECT ( \
                         SELECT n.channel FROM notifications n INDEXED BY notifications_pending \
                         WHERE n.status = 'pending' AND n.channel > c.channel \
                         ORDER BY n.channel LIMIT 1 \
                     ) FROM channels c WHERE c.channel IS NOT NULL \
                 ), pending (channel, recipient) AS ( \
                     SELECT c.channel, ( \
                         SELECT n.recipient FROM notifications n INDEXED BY notifications_pending \
                         WHERE n.status = 'pending' AND n.channel = c.channel \
                         ORDER BY n.recipient LIMIT 1 \
                     ) FROM channels c WHERE c.channel IS NOT NULL \
                     UNION ALL SELECT p.channel, ( \
                         SELECT n.recipient FROM notifications n INDEXED BY notifications_pending \
                         WHERE n.status = 'pending' AND n.channel = p.channel \
                         AND n.recipient > p.recipient ORDER BY n.recipient LIMIT 1 \
                     ) FROM pending p WHERE p.recipient IS NOT NULL \
                 ), destinations AS ( \
                     SELECT channel, recipient FROM pending p WHERE recipient IS NOT NULL AND NOT EXISTS ( \
                         SELECT 1 FROM notifications b INDEXED BY notifications_leased \
                         WHERE b.status = 'pending' AND b.lease_until IS NOT NULL \
                         AND b.channel = p.channel AND b.recipient = p.recipient \
                         AND b.lease_until > $1 \
                     ) \
                 ), ready AS ( \
                     SELECT n.id, n.due_at, n.created_at, e.occurred_at, ROW_NUMBER() OVER ( \
                         PARTITION BY n.channel, n.recipient \
                         ORDER BY n.due_at, n.created_at, e.occurred_at, n.id) AS turn \
                     FROM destinations d JOIN notifications n ON n.id IN ( \
                         SELECT m.id FROM notifications m INDEXED BY notifications_pending \
                         LEFT JOIN events f ON f.id = m.event_id \
                         WHERE m.status = 'pending' AND m.channel = d.channel \
                         AND m.recipient = d.recipient AND m.due_at <= $1 \
                         AND (m.lease_until IS NULL OR m.lease_until <= $1) \
                         ORDER BY m.due_at, m.created_at, f.occurred_at, m.id LIMIT $4 \
                     ) LEFT JOIN events e ON e.id = n.event_id \
                 ) \
                 UPDATE notifications SET lease_until = $2, lease_token = $3 WHERE id IN ( \
                     SELECT id FROM ready \
                     ORDER BY turn, due_at, created_at, occurred_at, id LIMIT $5 \
                 ) RETURNING id, event_id, account_id, rule_id, webhook_account_id, target, \
                     created_at, due_at, attempts, lease_token",
                args![now, lease_until, Uuid::new_v4(), per_destination, limit],
                claimed,
            )
            .await
    }
}
