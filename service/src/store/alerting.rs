//! [`AlertStore`] for both backends: events, detector states and the outbox's bookkeeping,
//! each statement written once. Ingestion and claims differ by more than spelling and live per
//! backend (`sqlite/telemetry.rs` and `sqlite/outbox.rs`, `postgres/telemetry.rs` and
//! `postgres/outbox.rs`).

use super::alerts::{
    AlertStore, AttemptResult, Claimed, Destination, EventFilter, IngestJob, Outcome, SendCheck,
    SendStart, StoredState,
};
use super::encoding::{json, outcome_str, to_json};
use super::sql::{Columns, Conn, args, retried, sql};
use super::telemetry::states_of;
use super::{Database, Page, StoreResult, postgres, rows};
use asset_alerting_matching::limits::{Decision, decide};
use asset_alerting_models::{Asset, DeliveryAttemptOutcome, Event, Notification};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use uuid::Uuid;

/// The events a claimed notification is about, each with its asset's name (a digest carries
/// every notification folded into it).
pub(super) async fn claimed_events(
    c: &mut Conn<'_>,
    id: Uuid,
    is_digest: bool,
) -> StoreResult<Vec<(Event, String)>> {
    let with_asset: super::sql::Map<(Event, String)> =
        |r| Ok((rows::event(r)?, r.text("asset_name")?));
    if is_digest {
        c.all(
            "SELECT e.*, a.name AS asset_name FROM notifications n JOIN events e ON e.id = n.event_id \
             JOIN assets a ON a.id = e.asset_id WHERE n.digest_id = $1 ORDER BY e.occurred_at, e.id",
            args![id],
            with_asset,
        )
        .await
    } else {
        c.all(
            "SELECT e.*, a.name AS asset_name FROM notifications n JOIN events e ON e.id = n.event_id \
             JOIN assets a ON a.id = e.asset_id WHERE n.id = $1",
            args![id],
            with_asset,
        )
        .await
    }
}

/// A claimed notification from a row of the claim's `RETURNING` (its events read after).
pub(super) fn claimed(r: &dyn Columns) -> StoreResult<(DateTime<Utc>, Claimed)> {
    Ok((
        r.time("due_at")?,
        Claimed {
            id: r.id("id")?,
            lease: r.id("lease_token")?,
            account_id: r.id("account_id")?,
            rule_id: r.opt_id("rule_id")?,
            webhook_account_id: r.opt_id("webhook_account_id")?,
            target: json(r.str("target")?)?,
            created_at: r.time("created_at")?,
            attempts: r.int("attempts")?,
            events: Vec::new(),
            is_digest: r.opt_id("event_id")?.is_none(),
        },
    ))
}

/// The claimed rows with their events, in delivery order (`RETURNING` has none).
pub(super) async fn in_delivery_order(
    c: &mut Conn<'_>,
    rows: Vec<(DateTime<Utc>, Claimed)>,
) -> StoreResult<Vec<Claimed>> {
    let mut claimed = Vec::with_capacity(rows.len());
    for (due, mut claim) in rows {
        claim.events = claimed_events(c, claim.id, claim.is_digest).await?;
        claimed.push((due, claim));
    }
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

async fn start_one(
    c: &mut Conn<'_>,
    check: &SendCheck,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
) -> StoreResult<SendStart> {
    let held = c
        .opt(
            sql!("SELECT id FROM notifications WHERE id = $1 AND status = 'pending' AND lease_token = $2 \
                  AND lease_until > $3" [for_update]),
            args![check.id, check.lease, now],
            rows::id,
        )
        .await?;
    if held.is_none() {
        return Ok(SendStart::LeaseLost);
    }
    if let Some(limit) = check.limit {
        // Recorded sends, and sends other holders have started and not recorded yet.
        let sent = c
            .all(
                "SELECT sent_at AS at FROM notifications WHERE channel = $1 AND recipient = $2 \
                 AND sent_at > $3 \
                 UNION ALL SELECT sending_at FROM notifications WHERE channel = $1 AND recipient = $2 \
                 AND status = 'pending' AND sending_at > $3 AND lease_until > $4 AND id <> $5",
                args![
                    check.channel.as_str(),
                    &check.address,
                    now - limit.window,
                    now,
                    check.id
                ],
                |r| r.time("at"),
            )
            .await?;
        if let Decision::Coalesce { send_at } = decide(&limit, &sent, now) {
            return Ok(SendStart::Coalesce { send_at });
        }
    }
    c.run(
        "UPDATE notifications SET lease_until = $1, sending_at = $2 WHERE id = $3",
        args![lease_until, now, check.id],
    )
    .await?;
    Ok(SendStart::Send)
}

/// Folds the notification into the recipient's pending digest (created if needed).
async fn coalesce(
    c: &mut Conn<'_>,
    claimed: &Claimed,
    digest_due: DateTime<Utc>,
    now: DateTime<Utc>,
) -> StoreResult<()> {
    let target = &claimed.target;
    // Two PostgreSQL instances coalescing for one recipient would each open a digest: the
    // recipient's lock, held to the end of the transaction, makes the second find the first's.
    postgres::lock_recipient(c, target.channel.as_str(), &target.address).await?;
    let held = c
        .opt(
            "SELECT id FROM notifications WHERE id = $1 AND status = 'pending' AND lease_token = $2",
            args![claimed.id, claimed.lease],
            rows::id,
        )
        .await?;
    if held.is_none() {
        // Another holder took it over; what it does stands.
        return Ok(());
    }
    let existing = c
        .opt(
            "SELECT id FROM notifications WHERE event_id IS NULL AND status = 'pending' \
             AND channel = $1 AND recipient = $2 ORDER BY due_at LIMIT 1",
            args![target.channel.as_str(), &target.address],
            rows::id,
        )
        .await?;
    let digest = match existing {
        Some(id) => id,
        None => {
            let id = Uuid::new_v4();
            c.run(
                "INSERT INTO notifications (id, event_id, account_id, rule_id, channel, recipient, \
                 target, status, created_at, due_at) \
                 VALUES ($1, NULL, $2, $3, $4, $5, $6, 'pending', $7, $8)",
                args![
                    id,
                    claimed.account_id,
                    claimed.rule_id,
                    target.channel.as_str(),
                    &target.address,
                    to_json(target),
                    now,
                    digest_due
                ],
            )
            .await?;
            id
        }
    };
    c.run(
        "UPDATE notifications SET status = 'coalesced', digest_id = $1, lease_until = NULL, \
         reason = 'rate limit of the recipient reached; sent in a digest' \
         WHERE id = $2 AND status = 'pending'",
        args![digest, claimed.id],
    )
    .await?;
    Ok(())
}

/// Records an attempt and the notification's new status; releases the lease.
async fn record_attempt(
    c: &mut Conn<'_>,
    id: Uuid,
    lease: Uuid,
    at: DateTime<Utc>,
    result: &AttemptResult,
) -> StoreResult<()> {
    use DeliveryAttemptOutcome::{Delivered, PermanentFailure, RetryableFailure};
    // The attempt to record (none for a skip), and the notification's new status.
    let (attempt, status, reason, sent_at, due_at) = match result {
        AttemptResult::Delivered { provider_code } => (
            Some((Delivered, provider_code)),
            "sent",
            None,
            Some(at),
            None,
        ),
        AttemptResult::Retry {
            provider_code,
            message,
            retry_at,
        } => (
            Some((RetryableFailure, provider_code)),
            "pending",
            Some(message),
            None,
            Some(*retry_at),
        ),
        AttemptResult::Failed {
            provider_code,
            message,
        } => (
            Some((PermanentFailure, provider_code)),
            "failed",
            Some(message),
            None,
            None,
        ),
        AttemptResult::Skipped { reason } => (None, "skipped", Some(reason), None, None),
    };
    // A failed attempt's message is the notification's reason.
    let reason = reason.map(String::as_str);
    if let Some((outcome, code)) = attempt {
        c.run(
            // The notification may be gone (its account deleted while it was being sent).
            "INSERT INTO notification_attempts (notification_id, at, outcome, provider_code, message) \
             SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM notifications WHERE id = $1)",
            args![id, at, outcome_str(outcome), code.as_deref(), reason],
        )
        .await?;
    }
    // Only a still pending row changes (an acknowledgement may have cancelled it), and only
    // under this claim (another holder may have taken it over).
    c.run(
        "UPDATE notifications SET status = $1, reason = $2, sent_at = COALESCE($3, sent_at), \
         due_at = COALESCE($4, due_at), lease_until = NULL, attempts = attempts + $5 \
         WHERE id = $6 AND status = 'pending' AND lease_token = $7",
        args![
            status,
            reason,
            sent_at,
            due_at,
            i64::from(attempt.is_some()),
            id,
            lease
        ],
    )
    .await?;
    Ok(())
}

/// Attempts sort before coalescing; coalescing by recipient (so that recorders of two
/// PostgreSQL instances take the recipients' locks in one order).
fn recipient_order(outcome: &Outcome) -> Option<(&str, &str)> {
    match outcome {
        Outcome::Attempt { .. } => None,
        Outcome::Coalesced { claimed, .. } => Some((
            claimed.target.channel.as_str(),
            claimed.target.address.as_str(),
        )),
    }
}

impl AlertStore for Database {
    async fn ingestion_token_account(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Uuid>> {
        self.opt(
            "SELECT account_id FROM ingestion_tokens WHERE token_hash = $1 AND expires_at > $2",
            args![token_hash, now],
            |r| r.id("account_id"),
        )
        .await
    }

    async fn assets_by_keys(
        &self,
        account: Uuid,
        ids: &[Uuid],
        external_ids: &[String],
    ) -> StoreResult<Vec<Asset>> {
        if ids.is_empty() && external_ids.is_empty() {
            return Ok(Vec::new());
        }
        self.all(
            sql!("SELECT * FROM assets WHERE account_id = $1 AND (id " [any 2]
                 " OR external_id " [any 3] ")"),
            args![account, ids, external_ids],
            rows::asset,
        )
        .await
    }

    async fn webhook_receivers(&self, account: Uuid) -> StoreResult<Vec<(Uuid, String)>> {
        self.all(
            "WITH RECURSIVE chain (id, parent_id, callback_uri, depth) AS ( \
                 SELECT id, parent_id, callback_uri, 0 FROM accounts WHERE id = $1 \
                 UNION ALL SELECT a.id, a.parent_id, a.callback_uri, c.depth + 1 \
                 FROM accounts a JOIN chain c ON a.id = c.parent_id \
             ) SELECT id, callback_uri FROM chain WHERE callback_uri IS NOT NULL ORDER BY depth",
            args![account],
            |r| Ok((r.id("id")?, r.text("callback_uri")?)),
        )
        .await
    }

    async fn ingest(&self, job: IngestJob) -> StoreResult<Vec<Vec<bool>>> {
        match self {
            Database::Sqlite(store) => store.ingest(job).await,
            Database::Postgres(store) => store.ingest(&job).await,
        }
    }

    async fn asset_states(&self, assets: &[Uuid]) -> StoreResult<Vec<StoredState>> {
        if assets.is_empty() {
            return Ok(Vec::new());
        }
        let mut held = self.held().await?;
        let mut states = states_of(&mut held.conn(), assets).await?;
        Ok(assets
            .iter()
            .filter_map(|id| {
                Some(StoredState {
                    asset_id: *id,
                    state: states.remove(id)?,
                })
            })
            .collect())
    }

    async fn list_events(
        &self,
        account: Uuid,
        filter: &EventFilter,
        page: Page,
    ) -> StoreResult<Vec<Event>> {
        // `+ 0`: a bound LIMIT makes SQLite prepare the statement again on every execution.
        self.all(
            sql!(
                "SELECT * FROM events WHERE account_id = $1 \
                 AND ($2 IS NULL OR asset_id = $2) AND ($3 IS NULL OR event_type = $3) \
                 AND ($4 IS NULL OR occurred_at >= $4) AND ($5 IS NULL OR occurred_at < $5) \
                 ORDER BY occurred_at DESC, id DESC "
                {"LIMIT $6 + 0 OFFSET $7 + 0", "LIMIT $6 OFFSET $7"}
            ),
            args![
                account,
                filter.asset_id,
                filter.event_type.map(|t| t.value()),
                filter.from,
                filter.to,
                page.take,
                page.skip
            ],
            rows::event,
        )
        .await
    }

    async fn event(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Event>> {
        self.opt(
            "SELECT * FROM events WHERE account_id = $1 AND id = $2",
            args![account, id],
            rows::event,
        )
        .await
    }

    async fn event_stream_head(&self) -> StoreResult<i64> {
        self.one(
            "SELECT position AS n FROM event_stream WHERE id = 1",
            &[],
            rows::count,
        )
        .await
    }

    async fn events_after(
        &self,
        account: Uuid,
        filter: &EventFilter,
        after: i64,
        limit: i64,
    ) -> StoreResult<Vec<(i64, Event)>> {
        self.all(
            sql!(
                "SELECT * FROM events WHERE account_id = $1 AND stream_position > $2 \
                 AND ($3 IS NULL OR asset_id = $3) AND ($4 IS NULL OR event_type = $4) \
                 AND ($5 IS NULL OR occurred_at >= $5) AND ($6 IS NULL OR occurred_at < $6) \
                 ORDER BY stream_position "
                {"LIMIT $7 + 0", "LIMIT $7"}
            ),
            args![
                account,
                after,
                filter.asset_id,
                filter.event_type.map(|t| t.value()),
                filter.from,
                filter.to,
                limit
            ],
            |r| Ok((r.int("stream_position")?, rows::event(r)?)),
        )
        .await
    }

    async fn acknowledge_event(
        &self,
        account: Uuid,
        id: Uuid,
        by: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Event>> {
        let mut writer = self.writer().await?;
        let mut tx = writer.begin().await?;
        let mut c = tx.conn();
        let event = c
            .opt(
                "UPDATE events SET acknowledged_at = COALESCE(acknowledged_at, $1), \
                 acknowledged_by = COALESCE(acknowledged_by, $2) WHERE account_id = $3 AND id = $4 \
                 RETURNING *",
                args![now, by, account, id],
                rows::event,
            )
            .await?;
        if event.is_none() {
            return Ok(None);
        }
        c.run(
            "UPDATE notifications SET status = 'cancelled', reason = 'the event was acknowledged', \
             lease_until = NULL WHERE event_id = $1 AND status = 'pending'",
            args![id],
        )
        .await?;
        tx.commit().await?;
        Ok(event)
    }

    async fn event_notifications(&self, event: Uuid) -> StoreResult<Vec<Notification>> {
        let mut held = self.held().await?;
        let mut c = held.conn();
        let mut notifications = c
            .all(
                "SELECT * FROM notifications WHERE event_id = $1 ORDER BY created_at, due_at, id",
                args![event],
                rows::notification,
            )
            .await?;
        let ids: Vec<Uuid> = notifications.iter().map(|n| n.id).collect();
        let mut attempts: HashMap<Uuid, Vec<_>> = HashMap::new();
        for (id, attempt) in c
            .all(
                sql!("SELECT * FROM notification_attempts WHERE notification_id " [any 1]
                     " ORDER BY at, " {"rowid", "seq"}),
                args![&ids],
                rows::attempt,
            )
            .await?
        {
            attempts.entry(id).or_default().push(attempt);
        }
        for n in &mut notifications {
            n.attempts = attempts.remove(&n.id).unwrap_or_default();
        }
        Ok(notifications)
    }

    async fn notification_event(
        &self,
        notification: Uuid,
    ) -> StoreResult<Option<(Event, Option<Uuid>)>> {
        self.opt(
            "SELECT e.*, n.rule_id AS notification_rule FROM notifications n \
             JOIN events e ON e.id = n.event_id WHERE n.id = $1",
            args![notification],
            |r| Ok((rows::event(r)?, r.opt_id("notification_rule")?)),
        )
        .await
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        per_destination: i64,
        limit: i64,
    ) -> StoreResult<Vec<Claimed>> {
        let claimed = match self {
            Database::Sqlite(store) => store.claim(now, lease_until, per_destination, limit).await,
            Database::Postgres(store) => {
                store.claim(now, lease_until, per_destination, limit).await
            }
        }?;
        in_delivery_order(&mut self.held().await?.conn(), claimed).await
    }

    async fn postpone_destination(
        &self,
        (channel, address): &Destination,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        (lease, released): (Uuid, &[Uuid]),
    ) -> StoreResult<()> {
        self.writer()
            .await?
            .conn()
            .run(
                sql!("UPDATE notifications SET due_at = $1, lease_until = NULL, lease_token = NULL \
                      WHERE channel = $2 AND recipient = $3 AND status = 'pending' AND due_at < $1 \
                      AND (lease_until IS NULL OR lease_until <= $4 \
                           OR (lease_token = $5 AND id " [any 6] "))"),
                args![until, channel.as_str(), address, now, lease, released],
            )
            .await?;
        Ok(())
    }

    async fn start_sends(
        &self,
        checks: &[SendCheck],
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> StoreResult<Vec<SendStart>> {
        if checks.is_empty() {
            return Ok(Vec::new());
        }
        // The recipients' locks, in one order: two PostgreSQL instances decide and count one
        // recipient's sends one at a time (SQLite's writer runs one batch at a time).
        let mut recipients: Vec<(&str, &str)> = checks
            .iter()
            .filter(|c| c.channel != super::alerts::ChannelKind::Webhook)
            .map(|c| (c.channel.as_str(), c.address.as_str()))
            .collect();
        recipients.sort();
        recipients.dedup();
        let recipients = &recipients;
        retried(|| async move {
            let mut writer = self.writer().await?;
            let mut tx = writer.begin().await?;
            let mut c = tx.conn();
            for (channel, address) in recipients {
                postgres::lock_recipient(&mut c, channel, address).await?;
            }
            let mut started = Vec::with_capacity(checks.len());
            for check in checks {
                started.push(start_one(&mut c, check, now, lease_until).await?);
            }
            tx.commit().await?;
            Ok(started)
        })
        .await
    }

    async fn record_round(&self, outcomes: &[Outcome], now: DateTime<Utc>) -> StoreResult<()> {
        if outcomes.is_empty() {
            return Ok(());
        }
        let mut ordered: Vec<&Outcome> = outcomes.iter().collect();
        ordered.sort_by(|a, b| recipient_order(a).cmp(&recipient_order(b)));
        let ordered = &ordered;
        retried(|| async move {
            let mut writer = self.writer().await?;
            let mut tx = writer.begin().await?;
            let mut c = tx.conn();
            for outcome in ordered {
                match outcome {
                    Outcome::Attempt {
                        id,
                        lease,
                        at,
                        result,
                    } => record_attempt(&mut c, *id, *lease, *at, result).await?,
                    Outcome::Coalesced {
                        claimed,
                        digest_due,
                    } => coalesce(&mut c, claimed, *digest_due, now).await?,
                }
            }
            tx.commit().await
        })
        .await
    }

    async fn next_due(&self) -> StoreResult<Option<DateTime<Utc>>> {
        // From two short index reads (the earliest unleased, and the leases held from their own
        // index), not a pass over every pending row: a backlog behind a slow receiver is
        // thousands of rows, and the dispatcher asks whenever its claim found nothing to take.
        // SQLite's scalar MIN is NULL when either side is; PostgreSQL's LEAST skips NULLs.
        self.one(
            sql!({"SELECT MIN(COALESCE(a, b), COALESCE(b, a)) AS due FROM (SELECT \
                    (SELECT due_at FROM notifications WHERE status = 'pending' \
                     AND lease_until IS NULL ORDER BY due_at LIMIT 1) AS a, \
                    (SELECT MIN(MAX(due_at, lease_until)) FROM notifications \
                     INDEXED BY notifications_leased \
                     WHERE status = 'pending' AND lease_until IS NOT NULL) AS b)",
                  "SELECT LEAST( \
                       (SELECT due_at FROM notifications WHERE status = 'pending' \
                        AND lease_until IS NULL ORDER BY due_at LIMIT 1), \
                       (SELECT MIN(GREATEST(due_at, lease_until)) FROM notifications \
                        WHERE status = 'pending' AND lease_until IS NOT NULL)) AS due"}),
            args![],
            |r| r.opt_time("due"),
        )
        .await
    }
}
