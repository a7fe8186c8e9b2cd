//! The notification outbox over PostgreSQL, drained by every instance at once. Claims take turns
//! (an advisory lock): each leases due rows of destinations nobody holds until `lease_until`, so
//! two instances never claim one row nor one destination at once; a crashed instance's lease expires and another instance claims the row again.
//! Each claim carries a token: the holder confirms it right before each send (and extends the
//! lease then), and its outcome is recorded only while the token still holds the row, so an
//! instance that lost its lease (a stall, a slow group) neither sends nor overwrites.

use super::PgStore;
use super::alerts::event_from;
use super::{ATTEMPTS, retryable};
use crate::store::StoreResult;
use crate::store::alerts::{
    AttemptResult, ChannelKind, Claimed, Destination, Outcome, SendCheck, SendStart, Target,
};
use crate::store::encoding::{json, outcome_str, to_json};
use asset_alerting_matching::limits::{Decision, decide};
use asset_alerting_models::{DeliveryAttemptOutcome, Event};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

/// The advisory lock claims take in turn (an arbitrary constant of this service).
const CLAIM_LOCK: i64 = 0x6173_7365_7463_6c6d;

impl PgStore {
    /// See [`AlertStore::claim_due`](crate::store::alerts::AlertStore::claim_due). Claims of
    /// all instances take one advisory lock in turn, so each sees the leases the one before
    /// it took and no destination is claimed twice at once.
    pub(super) async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        per_destination: i64,
        limit: i64,
    ) -> StoreResult<Vec<Claimed>> {
        let lease = Uuid::new_v4();
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(CLAIM_LOCK)
            .execute(&mut *tx)
            .await?;
        // `busy`: destinations someone holds now; `ready`: due, unleased notifications of the
        // others, numbered per destination in delivery order (turn 1 is each one's next): by
        // due time, then as their events were detected and occurred. The
        // UPDATE checks status and lease again: a recorder may have changed a row meanwhile.
        let rows = sqlx::query(
            "WITH busy AS ( \
                 SELECT DISTINCT channel, recipient FROM notifications \
                 WHERE status = 'pending' AND lease_until > $2 \
             ), ready AS ( \
                 SELECT n.id, n.due_at, n.created_at, e.occurred_at, ROW_NUMBER() OVER ( \
                     PARTITION BY n.channel, n.recipient \
                     ORDER BY n.due_at, n.created_at, e.occurred_at, n.id) AS turn \
                 FROM notifications n LEFT JOIN events e ON e.id = n.event_id \
                 WHERE n.status = 'pending' AND n.due_at <= $2 \
                 AND (n.lease_until IS NULL OR n.lease_until <= $2) \
                 AND (n.channel, n.recipient) NOT IN (SELECT channel, recipient FROM busy) \
             ), picked AS ( \
                 SELECT id FROM ready WHERE turn <= $5 \
                 ORDER BY turn, due_at, created_at, occurred_at, id LIMIT $3 \
             ) UPDATE notifications n SET lease_until = $1, lease_token = $4 FROM picked \
             WHERE n.id = picked.id AND n.status = 'pending' \
             AND (n.lease_until IS NULL OR n.lease_until <= $2) \
             RETURNING n.id, n.event_id, n.account_id, n.rule_id, n.webhook_account_id, n.target, \
                 n.created_at, n.due_at, n.attempts",
        )
        .bind(lease_until)
        .bind(now)
        .bind(limit)
        .bind(lease)
        .bind(per_destination)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        let mut claimed = Vec::with_capacity(rows.len());
        for r in &rows {
            let id: Uuid = r.try_get("id")?;
            let event_id: Option<Uuid> = r.try_get("event_id")?;
            let due_at: DateTime<Utc> = r.try_get("due_at")?;
            let is_digest = event_id.is_none();
            let claim = Claimed {
                id,
                lease,
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
        // RETURNING has no order: each destination's in delivery order, as from SQLite.
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

    /// See [`AlertStore::postpone_destination`](crate::store::alerts::AlertStore::postpone_destination).
    pub(super) async fn postpone(
        &self,
        (channel, address): &Destination,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        (lease, released): (Uuid, &[Uuid]),
    ) -> StoreResult<()> {
        sqlx::query(
            "UPDATE notifications SET due_at = $1, lease_until = NULL, lease_token = NULL \
             WHERE channel = $2 AND recipient = $3 AND status = 'pending' AND due_at < $1 \
             AND (lease_until IS NULL OR lease_until <= $4 \
                  OR (lease_token = $5 AND id = ANY($6)))",
        )
        .bind(until)
        .bind(channel.as_str())
        .bind(address)
        .bind(now)
        .bind(lease)
        .bind(released)
        .execute(&self.pool)
        .await?;
        Ok(())
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
        // Attempts first, then coalescing in recipient order: recorders of two instances take
        // the recipients' locks in one order.
        let mut ordered: Vec<&Outcome> = outcomes.iter().collect();
        ordered.sort_by(|a, b| recipient_order(a).cmp(&recipient_order(b)));
        let mut attempt = 1;
        loop {
            let mut tx = self.pool.begin().await?;
            let recorded = match Self::record_in(&mut tx, &ordered, now).await {
                Ok(()) => tx.commit().await.map_err(Into::into),
                Err(e) => Err(e),
            };
            match recorded {
                Err(e) if attempt < ATTEMPTS && retryable(&e) => attempt += 1,
                other => return other,
            }
        }
    }

    async fn record_in(
        tx: &mut PgConnection,
        outcomes: &[&Outcome],
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        for outcome in outcomes {
            match outcome {
                Outcome::Attempt {
                    id,
                    lease,
                    at,
                    result,
                } => Self::record_attempt(tx, *id, *lease, *at, result).await?,
                Outcome::Coalesced {
                    claimed,
                    digest_due,
                } => Self::coalesce(tx, claimed, *digest_due, now).await?,
            }
        }
        Ok(())
    }

    pub(super) async fn start(
        &self,
        checks: &[SendCheck],
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> StoreResult<Vec<SendStart>> {
        if checks.is_empty() {
            return Ok(Vec::new());
        }
        let mut attempt = 1;
        loop {
            let mut tx = self.pool.begin().await?;
            let started = match Self::start_in(&mut tx, checks, now, lease_until).await {
                Ok(started) => tx.commit().await.map(|()| started).map_err(Into::into),
                Err(e) => Err(e),
            };
            match started {
                Err(e) if attempt < ATTEMPTS && retryable(&e) => attempt += 1,
                other => return other,
            }
        }
    }

    async fn start_in(
        tx: &mut PgConnection,
        checks: &[SendCheck],
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> StoreResult<Vec<SendStart>> {
        // The recipients' locks, in one order: two instances decide and count one recipient's
        // sends one at a time.
        let mut recipients: Vec<(&str, &str)> = checks
            .iter()
            .filter(|c| c.channel != ChannelKind::Webhook)
            .map(|c| (c.channel.as_str(), c.address.as_str()))
            .collect();
        recipients.sort();
        recipients.dedup();
        for (channel, address) in recipients {
            lock_recipient(tx, channel, address).await?;
        }
        let mut started = Vec::with_capacity(checks.len());
        for check in checks {
            started.push(Self::start_one(tx, check, now, lease_until).await?);
        }
        Ok(started)
    }

    async fn start_one(
        tx: &mut PgConnection,
        check: &SendCheck,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> StoreResult<SendStart> {
        let held: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM notifications WHERE id = $1 AND status = 'pending' AND lease_token = $2 \
             AND lease_until > $3 FOR UPDATE",
        )
        .bind(check.id)
        .bind(check.lease)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        if held.is_none() {
            return Ok(SendStart::LeaseLost);
        }
        if let Some(limit) = check.limit {
            // Recorded sends, and sends other holders have started and not recorded yet.
            let sent: Vec<DateTime<Utc>> = sqlx::query_scalar(
                "SELECT sent_at FROM notifications WHERE channel = $1 AND recipient = $2 AND sent_at > $3 \
                 UNION ALL SELECT sending_at FROM notifications WHERE channel = $1 AND recipient = $2 \
                 AND status = 'pending' AND sending_at > $3 AND lease_until > $4 AND id <> $5",
            )
            .bind(check.channel.as_str())
            .bind(&check.address)
            .bind(now - limit.window)
            .bind(now)
            .bind(check.id)
            .fetch_all(&mut *tx)
            .await?;
            if let Decision::Coalesce { send_at } = decide(&limit, &sent, now) {
                return Ok(SendStart::Coalesce { send_at });
            }
        }
        sqlx::query("UPDATE notifications SET lease_until = $1, sending_at = $2 WHERE id = $3")
            .bind(lease_until)
            .bind(now)
            .bind(check.id)
            .execute(&mut *tx)
            .await?;
        Ok(SendStart::Send)
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
        lock_recipient(tx, target.channel.as_str(), &target.address).await?;
        let held: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM notifications WHERE id = $1 AND status = 'pending' AND lease_token = $2",
        )
        .bind(claimed.id)
        .bind(claimed.lease)
        .fetch_optional(&mut *tx)
        .await?;
        if held.is_none() {
            // Another holder took it over; what it does stands.
            return Ok(());
        }
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
        lease: Uuid,
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
        // Only a still pending row changes (an acknowledgement may have cancelled it), and only
        // under this claim (another holder may have taken it over).
        sqlx::query(
            "UPDATE notifications SET status = $1, reason = $2, sent_at = COALESCE($3, sent_at), \
             due_at = COALESCE($4, due_at), lease_until = NULL, attempts = attempts + $5 \
             WHERE id = $6 AND status = 'pending' AND lease_token = $7",
        )
        .bind(status)
        .bind(reason)
        .bind(sent_at)
        .bind(due_at)
        .bind(i64::from(attempt.is_some()))
        .bind(id)
        .bind(lease)
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
}

/// Attempts sort before coalescing; coalescing by recipient.
fn recipient_order(outcome: &Outcome) -> Option<(&str, &str)> {
    match outcome {
        Outcome::Attempt { .. } => None,
        Outcome::Coalesced { claimed, .. } => Some((
            claimed.target.channel.as_str(),
            claimed.target.address.as_str(),
        )),
    }
}

/// Takes the recipient's advisory lock until the end of the transaction.
async fn lock_recipient(tx: &mut PgConnection, channel: &str, address: &str) -> StoreResult<()> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))")
        .bind(channel)
        .bind(address)
        .execute(&mut *tx)
        .await?;
    Ok(())
}
