//! The outbox's destinations over SQLite: fair claims (destinations take turns, one claim at a
//! time per destination) and the circuit breaker's postponement. The writer lock makes each a
//! single step for every dispatcher.

use super::alerts::parse_opt_uuid;
use super::{SqliteStore, parse_ts, parse_uuid, ts};
use crate::store::StoreResult;
use crate::store::alerts::{Claimed, Destination, Target};
use crate::store::encoding::json;
use chrono::{DateTime, Utc};
use sqlx::Row;
use uuid::Uuid;

impl SqliteStore {
    pub(super) async fn claim_fair(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        per_destination: i64,
        limit: i64,
    ) -> StoreResult<Vec<Claimed>> {
        let mut writer = self.writer.lock().await;
        let lease = Uuid::new_v4();
        // `busy`: destinations someone holds now; `ready`: due, unleased notifications of the
        // others, numbered per destination in delivery order (turn 1 is each one's next): by
        // due time, then as their events were detected and occurred.
        let rows = sqlx::query(
            "WITH busy AS ( \
                 SELECT DISTINCT channel, recipient FROM notifications \
                 WHERE status = 'pending' AND lease_until > ?1 \
             ), ready AS ( \
                 SELECT n.id, n.due_at, n.created_at, e.occurred_at, ROW_NUMBER() OVER ( \
                     PARTITION BY n.channel, n.recipient \
                     ORDER BY n.due_at, n.created_at, e.occurred_at, n.id) AS turn \
                 FROM notifications n LEFT JOIN events e ON e.id = n.event_id \
                 WHERE n.status = 'pending' AND n.due_at <= ?1 \
                 AND (n.lease_until IS NULL OR n.lease_until <= ?1) \
                 AND (n.channel, n.recipient) NOT IN (SELECT channel, recipient FROM busy) \
             ) UPDATE notifications SET lease_until = ?2, lease_token = ?3 WHERE id IN ( \
                 SELECT id FROM ready WHERE turn <= ?4 \
                 ORDER BY turn, due_at, created_at, occurred_at, id LIMIT ?5 \
             ) RETURNING id, event_id, account_id, rule_id, webhook_account_id, target, \
                 created_at, due_at, attempts",
        )
        .bind(ts(now))
        .bind(ts(lease_until))
        .bind(lease.to_string())
        .bind(per_destination)
        .bind(limit)
        .fetch_all(&mut *writer)
        .await?;
        drop(writer);
        let mut claimed = Vec::with_capacity(rows.len());
        for r in &rows {
            let id: String = r.try_get("id")?;
            let event_id: Option<String> = r.try_get("event_id")?;
            let is_digest = event_id.is_none();
            let claim = Claimed {
                id: parse_uuid(&id)?,
                lease,
                account_id: parse_uuid(r.try_get("account_id")?)?,
                rule_id: parse_opt_uuid(r.try_get("rule_id")?)?,
                webhook_account_id: parse_opt_uuid(r.try_get("webhook_account_id")?)?,
                target: json::<Target>(r.try_get("target")?)?,
                created_at: parse_ts(r.try_get("created_at")?)?,
                attempts: r.try_get("attempts")?,
                events: self.claimed_events(&id, is_digest).await?,
                is_digest,
            };
            claimed.push((parse_ts(r.try_get("due_at")?)?, claim));
        }
        // RETURNING has no order: each destination's in delivery order.
        claimed.sort_by_key(|(due, c)| {
            (
                *due,
                c.created_at,
                c.events.first().map(|e| e.0.occurred_at),
                c.id,
            )
        });
        Ok(claimed.into_iter().map(|(_, c)| c).collect())
    }

    pub(super) async fn postpone(
        &self,
        (channel, address): &Destination,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        (lease, released): (Uuid, &[Uuid]),
    ) -> StoreResult<()> {
        let released: Vec<String> = released.iter().map(Uuid::to_string).collect();
        let mut writer = self.writer.lock().await;
        sqlx::query(
            "UPDATE notifications SET due_at = ?1, lease_until = NULL, lease_token = NULL \
             WHERE channel = ?2 AND recipient = ?3 AND status = 'pending' AND due_at < ?1 \
             AND (lease_until IS NULL OR lease_until <= ?4 \
                  OR (lease_token = ?5 AND id IN (SELECT value FROM json_each(?6))))",
        )
        .bind(ts(until))
        .bind(channel.as_str())
        .bind(address)
        .bind(ts(now))
        .bind(lease.to_string())
        .bind(serde_json::to_string(&released).expect("strings serialize"))
        .execute(&mut *writer)
        .await?;
        Ok(())
    }
}
