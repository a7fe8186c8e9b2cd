//! The outbox's claims over SQLite: destinations take turns, one claim at a time per
//! destination. The writer lock makes each claim a single step for every dispatcher.

use super::SqliteStore;
use crate::store::StoreResult;
use crate::store::alerting::{claimed, with_ready};
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
        Conn::Sqlite(&mut writer)
            .all(
                with_ready!(
                    "UPDATE notifications SET lease_until = $2, lease_token = $3 WHERE id IN ( \
                         SELECT id FROM ready WHERE turn <= $4 \
                         ORDER BY turn, due_at, created_at, occurred_at, id LIMIT $5 \
                     ) RETURNING id, event_id, account_id, rule_id, webhook_account_id, target, \
                         created_at, due_at, attempts, lease_token"
                ),
                args![now, lease_until, Uuid::new_v4(), per_destination, limit],
                claimed,
            )
            .await
    }
}
