//! The notification outbox over PostgreSQL, drained by every instance at once. A claim takes due
//! rows with `FOR UPDATE SKIP LOCKED` (two instances never claim one row) and leases them until
//! `lease_until`; a crashed instance's lease expires and another instance claims the row again.

use super::PgStore;
use super::alerts::event_from;
use crate::store::StoreResult;
use crate::store::alerts::{AttemptResult, Claimed, Outcome, Target};
use crate::store::encoding::{json, outcome_str, to_json};
use asset_alerting_models::{DeliveryAttemptOutcome, Event};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

impl PgStore {
    pub(super) async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> StoreResult<Vec<Claimed>> {
        let rows = sqlx::query(
            "WITH due AS ( \
                 SELECT id FROM notifications WHERE status = 'pending' AND due_at <= $2 \
                 AND (lease_until IS NULL OR lease_until <= $2) ORDER BY due_at, id LIMIT $3 \
                 FOR UPDATE SKIP LOCKED \
             ) UPDATE notifications n SET lease_until = $1 FROM due WHERE n.id = due.id \
             RETURNING n.id, n.event_id, n.account_id, n.rule_id, n.webhook_account_id, n.target, \
                 n.created_at, n.due_at, n.attempts",
        )
        .bind(lease_until)
        .bind(now)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut claimed = Vec::with_capacity(rows.len());
        for r in &rows {
            let id: Uuid = r.try_get("id")?;
            let event_id: Option<Uuid> = r.try_get("event_id")?;
            let due_at: DateTime<Utc> = r.try_get("due_at")?;
            let is_digest = event_id.is_none();
            let claim = Claimed {
                id,
                account_id: r.try_get("account_id")?,
                rule_id: r.try_get("rule_id")?,
                webhook_account_id: r.try_get("webhook_account_id")?,
                target: json::<Target>(r.try_get("target")?)?,
                created_at: r.try_get("created_at")?,
                attempts: r.try_get("attempts")?,
                events: self.claimed_events(id, is_digest).await?,
                is_digest,
            };
            claimed.push((due_at, claim));
        }
        // RETURNING has no order: the dispatcher gets them due first, as from SQLite.
        claimed.sort_by_key(|(due, c)| (*due, c.id));
        Ok(claimed.into_iter().map(|(_, c)| c).collect())
    }

    /// The events a claimed notification is about, each with its asset's name.
    async fn claimed_events(&self, id: Uuid, is_digest: bool) -> StoreResult<Vec<(Event, String)>> {
        let sql = if is_digest {
            "SELECT e.*, a.name AS asset_name FROM notifications n JOIN events e ON e.id = n.event_id \
             JOIN assets a ON a.id = e.asset_id WHERE n.digest_id = $1 ORDER BY e.occurred_at, e.id"
        } else {
            "SELECT e.*, a.name AS asset_name FROM notifications n JOIN events e ON e.id = n.event_id \
             JOIN assets a ON a.id = e.asset_id WHERE n.id = $1"
        };
        let rows = sqlx::query(sql).bind(id).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| Ok((event_from(r)?, r.try_get("asset_name")?)))
            .collect()
    }

    pub(super) async fn record(&self, outcomes: &[Outcome], now: DateTime<Utc>) -> StoreResult<()> {
        if outcomes.is_empty() {
            return Ok(());
        }
        let mut tx = self.pool.begin().await?;
        for outcome in outcomes {
            match outcome {
                Outcome::Attempt { id, at, result } => {
                    Self::record_attempt(&mut tx, *id, *at, result).await?
                }
                Outcome::Coalesced {
                    claimed,
                    digest_due,
                } => Self::coalesce(&mut tx, claimed, *digest_due, now).await?,
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// Folds the notification into the recipient's pending digest (created if needed).
    async fn coalesce(
        tx: &mut PgConnection,
        claimed: &Claimed,
        digest_due: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        let target = &claimed.target;
        // Two instances coalescing for one recipient would each open a digest: the recipient's
        // lock, held to the end of the transaction, makes the second find the first's.
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))")
            .bind(target.channel.as_str())
            .bind(&target.address)
            .execute(&mut *tx)
            .await?;
        let existing: Option<Uuid> = sqlx::query_scalar(
            "SELECT id FROM notifications WHERE event_id IS NULL AND status = 'pending' AND channel = $1 AND recipient = $2 \
             ORDER BY due_at LIMIT 1",
        )
        .bind(target.channel.as_str())
        .bind(&target.address)
        .fetch_optional(&mut *tx)
        .await?;
        let digest = match existing {
            Some(id) => id,
            None => {
                let id = Uuid::new_v4();
                sqlx::query(
                    "INSERT INTO notifications (id, event_id, account_id, rule_id, channel, recipient, target, status, created_at, due_at) \
                     VALUES ($1, NULL, $2, $3, $4, $5, $6, 'pending', $7, $8)",
                )
                .bind(id)
                .bind(claimed.account_id)
                .bind(claimed.rule_id)
                .bind(target.channel.as_str())
                .bind(&target.address)
                .bind(to_json(target))
                .bind(now)
                .bind(digest_due)
                .execute(&mut *tx)
                .await?;
                id
            }
        };
        sqlx::query(
            "UPDATE notifications SET status = 'coalesced', digest_id = $1, lease_until = NULL, \
             reason = 'rate limit of the recipient reached; sent in a digest' WHERE id = $2 AND status = 'pending'",
        )
        .bind(digest)
        .bind(claimed.id)
        .execute(&mut *tx)
        .await?;
        Ok(())
    }

    /// Records an attempt and the notification's new status; releases the lease.
    async fn record_attempt(
        tx: &mut PgConnection,
        id: Uuid,
        at: DateTime<Utc>,
        result: &AttemptResult,
    ) -> StoreResult<()> {
        let attempt = match result {
            AttemptResult::Delivered { provider_code } => {
                Some((DeliveryAttemptOutcome::Delivered, provider_code, None))
            }
            AttemptResult::Retry {
                provider_code,
                message,
                ..
            } => Some((
                DeliveryAttemptOutcome::RetryableFailure,
                provider_code,
                Some(message),
            )),
            AttemptResult::Failed {
                provider_code,
                message,
            } => Some((
                DeliveryAttemptOutcome::PermanentFailure,
                provider_code,
                Some(message),
            )),
            AttemptResult::Skipped { .. } => None,
        };
        if let Some((outcome, code, message)) = attempt {
            sqlx::query(
                // The notification may be gone (its account deleted while it was being sent).
                "INSERT INTO notification_attempts (notification_id, at, outcome, provider_code, message) \
                 SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM notifications WHERE id = $1)",
            )
            .bind(id)
            .bind(at)
            .bind(outcome_str(outcome))
            .bind(code.as_deref())
            .bind(message.map(String::as_str))
            .execute(&mut *tx)
            .await?;
        }
        let (status, reason, sent_at, due_at) = match result {
            AttemptResult::Delivered { .. } => ("sent", None, Some(at), None),
            AttemptResult::Retry {
                message, retry_at, ..
            } => ("pending", Some(message.clone()), None, Some(*retry_at)),
            AttemptResult::Failed { message, .. } => ("failed", Some(message.clone()), None, None),
            AttemptResult::Skipped { reason } => ("skipped", Some(reason.clone()), None, None),
        };
        // Only a still pending row changes: an acknowledgement may have cancelled it.
        sqlx::query(
            "UPDATE notifications SET status = $1, reason = $2, sent_at = COALESCE($3, sent_at), \
             due_at = COALESCE($4, due_at), lease_until = NULL, attempts = attempts + $5 \
             WHERE id = $6 AND status = 'pending'",
        )
        .bind(status)
        .bind(reason)
        .bind(sent_at)
        .bind(due_at)
        .bind(i64::from(attempt.is_some()))
        .bind(id)
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
}
