//! The outbox's claims over SQLite: destinations take turns, one claim at a time per
//! destination. The writer lock makes each claim a single step for every dispatcher.

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
        // `busy`: destinations someone holds now; `ready`: due, unleased notifications of the
        // others, numbered per destination in delivery order (turn 1 is each one's next): by
        // due time, then as their events were detected and occurred.
        Conn::Sqlite(&mut writer)
            .all(
                "WITH busy AS ( \
                     SELECT DISTINCT channel, recipient FROM notifications \
                     WHERE status = 'pending' AND lease_until > $1 \
                 ), ready AS ( \
                     SELECT n.id, n.due_at, n.created_at, e.occurred_at, ROW_NUMBER() OVER ( \
                         PARTITION BY n.channel, n.recipient \
                         ORDER BY n.due_at, n.created_at, e.occurred_at, n.id) AS turn \
                     FROM notifications n LEFT JOIN events e ON e.id = n.event_id \
                     WHERE n.status = 'pending' AND n.due_at <= $1 \
                     AND (n.lease_until IS NULL OR n.lease_until <= $1) \
                     AND (n.channel, n.recipient) NOT IN (SELECT channel, recipient FROM busy) \
                 ) UPDATE notifications SET lease_until = $2, lease_token = $3 WHERE id IN ( \
                     SELECT id FROM ready WHERE turn <= $4 \
                     ORDER BY turn, due_at, created_at, occurred_at, id LIMIT $5 \
                 ) RETURNING id, event_id, account_id, rule_id, webhook_account_id, target, \
                     created_at, due_at, attempts, lease_token",
                args![now, lease_until, Uuid::new_v4(), per_destination, limit],
                claimed,
            )
            .await
    }
}
