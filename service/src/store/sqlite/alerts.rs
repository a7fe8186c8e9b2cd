//! [`AlertStore`] over SQLite. Ingestion runs in one `BEGIN IMMEDIATE` transaction per batch: SQLite
//! has one writer, so batches of one asset never interleave, and a crash keeps all of a batch or
//! none of it.

use super::{SqliteStore, parse_ts, parse_uuid, ts};
use crate::store::alerts::{
    AlertStore, AssetPoints, AttemptResult, Claimed, Destination, EventFilter, IngestJob, NewEvent,
    NewNotification, Outcome, SendCheck, SendStart, StoredState,
};
use crate::store::encoding::{
    channel_model, json, outcome_str, parse_channel, parse_outcome, parse_status, readings, to_json,
};
use crate::store::{Page, StoreError, StoreResult};
use asset_alerting_detect::AssetState;
use asset_alerting_matching::limits::{Decision, decide};
use asset_alerting_models::{
    AlertRule, Asset, DeliveryAttempt, DeliveryAttemptOutcome, Event, EventDetails, EventType,
    Notification, Position,
};
use chrono::{DateTime, Utc};
use sqlx::sqlite::SqliteRow;
use sqlx::{AssertSqlSafe, Connection, Row, SqliteConnection};
use std::collections::{HashMap, HashSet};
use tokio::sync::oneshot;
use uuid::Uuid;

/// A job waiting for the writer, with where to send its answer.
pub(super) type Queued = (IngestJob, oneshot::Sender<StoreResult<Vec<Vec<bool>>>>);

/// Answers every job with the failure of the transaction they shared.
fn fail_all(jobs: Vec<Queued>, e: StoreError) -> StoreError {
    let message = e.to_string();
    for (_, done) in jobs {
        let _ = done.send(Err(StoreError::Failed(message.clone())));
    }
    e
}

/// Rows per multi-row statement: a 1,000-point batch is one insert. At most 10 parameters a row,
/// so at most 10,000 a statement, under SQLite's limit of 32,766.
const INSERT_CHUNK: usize = 1000;

/// Assets per query for the points already stored: their conditions are joined by OR, which
/// SQLite nests one level each, under its expression depth limit of 1,000.
const RANGES_CHUNK: usize = 250;

/// `head` + `row` repeated `n` times, comma-separated, + `tail`: one statement for many rows.
fn values_sql(head: &str, row: &str, n: usize, tail: &str) -> String {
    let mut sql = String::with_capacity(head.len() + n * (row.len() + 2) + tail.len());
    sql.push_str(head);
    for i in 0..n {
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push_str(row);
    }
    sql.push_str(tail);
    sql
}

fn event_from(row: &SqliteRow) -> StoreResult<Event> {
    let event_type: i32 = row.try_get("event_type")?;
    let latitude: Option<f64> = row.try_get("latitude")?;
    let longitude: Option<f64> = row.try_get("longitude")?;
    let acknowledged_at: Option<String> = row.try_get("acknowledged_at")?;
    Ok(Event {
        id: parse_uuid(row.try_get("id")?)?,
        account_id: parse_uuid(row.try_get("account_id")?)?,
        asset_id: parse_uuid(row.try_get("asset_id")?)?,
        event_type: EventType::try_from(event_type).map_err(StoreError::Corrupt)?,
        occurred_at: parse_ts(row.try_get("occurred_at")?)?,
        detected_at: parse_ts(row.try_get("detected_at")?)?,
        position: latitude
            .zip(longitude)
            .map(|(latitude, longitude)| Position {
                latitude,
                longitude,
            }),
        details: json::<EventDetails>(row.try_get("details")?)?,
        notifications_suppressed: row.try_get("notifications_suppressed")?,
        acknowledged_at: acknowledged_at.as_deref().map(parse_ts).transpose()?,
        acknowledged_by: row.try_get("acknowledged_by")?,
    })
}

pub(super) fn parse_opt_uuid(s: Option<String>) -> StoreResult<Option<Uuid>> {
    s.as_deref().map(parse_uuid).transpose()
}

fn parse_opt_ts(s: Option<String>) -> StoreResult<Option<DateTime<Utc>>> {
    s.as_deref().map(parse_ts).transpose()
}

impl SqliteStore {
    /// Stores the points of every asset in multi-row inserts; returns, per asset and point,
    /// whether it was new. The caller holds the writer lock, so the stored timestamps read first
    /// cannot change before the insert (and no row has to come back from it).
    async fn insert_points(
        tx: &mut SqliteConnection,
        batches: &[AssetPoints],
        present: &HashSet<String>,
        received_at: &str,
    ) -> StoreResult<Vec<Vec<bool>>> {
        let mut stored: HashSet<(String, String)> = HashSet::new();
        let ranges: Vec<(String, String, String)> = batches
            .iter()
            .filter_map(|b| {
                let (first, last) = (b.points.first()?, b.points.last()?);
                Some((
                    b.asset.id.to_string(),
                    ts(first.timestamp),
                    ts(last.timestamp),
                ))
            })
            .collect();
        for chunk in ranges.chunks(RANGES_CHUNK) {
            let mut sql = String::from("SELECT asset_id, ts FROM telemetry WHERE ");
            for i in 0..chunk.len() {
                if i > 0 {
                    sql.push_str(" OR ");
                }
                sql.push_str("(asset_id = ? AND ts BETWEEN ? AND ?)");
            }
            let mut query = sqlx::query(AssertSqlSafe(sql));
            for (asset, first, last) in chunk {
                query = query.bind(asset).bind(first).bind(last);
            }
            for row in query.fetch_all(&mut *tx).await? {
                stored.insert((row.try_get("asset_id")?, row.try_get("ts")?));
            }
        }
        let mut fresh = Vec::with_capacity(batches.len());
        let mut rows: Vec<(String, String, String)> = Vec::new();
        for b in batches {
            let asset = b.asset.id.to_string();
            if !present.contains(&asset) {
                fresh.push(vec![false; b.points.len()]);
                continue;
            }
            let mut flags = Vec::with_capacity(b.points.len());
            for p in &b.points {
                let at = ts(p.timestamp);
                let new = !stored.contains(&(asset.clone(), at.clone()));
                if new {
                    rows.push((asset.clone(), at, readings(p)));
                }
                flags.push(new);
            }
            fresh.push(flags);
        }
        for chunk in rows.chunks(INSERT_CHUNK) {
            let mut query = sqlx::query(AssertSqlSafe(values_sql(
                "INSERT INTO telemetry (asset_id, ts, received_at, body) VALUES ",
                "(?, ?, ?, ?)",
                chunk.len(),
                "",
            )));
            for (asset, at, body) in chunk {
                query = query.bind(asset).bind(at).bind(received_at).bind(body);
            }
            query.execute(&mut *tx).await?;
        }
        Ok(fresh)
    }

    /// The detector state of each of `assets` that has one.
    async fn states_of(
        tx: &mut SqliteConnection,
        assets: &[String],
    ) -> StoreResult<HashMap<String, AssetState>> {
        let sql = values_sql(
            "SELECT asset_id, state FROM asset_state WHERE asset_id IN (",
            "?",
            assets.len(),
            ")",
        );
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for id in assets {
            query = query.bind(id);
        }
        let mut states = HashMap::with_capacity(assets.len());
        for row in query.fetch_all(&mut *tx).await? {
            states.insert(row.try_get("asset_id")?, json(row.try_get("state")?)?);
        }
        Ok(states)
    }

    /// The alert rules of each of `assets`, in rule order.
    async fn rules_of(
        tx: &mut SqliteConnection,
        assets: &[String],
    ) -> StoreResult<HashMap<String, Vec<AlertRule>>> {
        let sql = values_sql(
            "SELECT asset_id, body FROM alert_rules WHERE asset_id IN (",
            "?",
            assets.len(),
            ") ORDER BY asset_id, position, id",
        );
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for id in assets {
            query = query.bind(id);
        }
        let mut rules: HashMap<String, Vec<AlertRule>> = HashMap::new();
        for row in query.fetch_all(&mut *tx).await? {
            let rule: AlertRule = json(row.try_get("body")?)?;
            rules
                .entry(row.try_get("asset_id")?)
                .or_default()
                .push(rule);
        }
        Ok(rules)
    }

    async fn save_states(
        tx: &mut SqliteConnection,
        states: &[(String, AssetState)],
    ) -> StoreResult<()> {
        for chunk in states.chunks(INSERT_CHUNK) {
            let mut query = sqlx::query(AssertSqlSafe(values_sql(
                "INSERT INTO asset_state (asset_id, last_ts, state) VALUES ",
                "(?, ?, ?)",
                chunk.len(),
                " ON CONFLICT (asset_id) DO UPDATE SET last_ts = excluded.last_ts, state = excluded.state",
            )));
            for (asset, state) in chunk {
                query = query
                    .bind(asset)
                    .bind(state.last_timestamp().map(ts))
                    .bind(to_json(state));
            }
            query.execute(&mut *tx).await?;
        }
        Ok(())
    }

    /// The events and their outbox rows in multi-row inserts (events first: the rows refer to them).
    async fn insert_events(tx: &mut SqliteConnection, events: &[NewEvent]) -> StoreResult<()> {
        for chunk in events.chunks(INSERT_CHUNK) {
            let mut query = sqlx::query(AssertSqlSafe(values_sql(
                "INSERT INTO events (id, account_id, asset_id, event_type, occurred_at, detected_at, \
                 latitude, longitude, details, notifications_suppressed) VALUES ",
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                chunk.len(),
                "",
            )));
            for new in chunk {
                let e = &new.event;
                query = query
                    .bind(e.id.to_string())
                    .bind(e.account_id.to_string())
                    .bind(e.asset_id.to_string())
                    .bind(e.event_type.value())
                    .bind(ts(e.occurred_at))
                    .bind(ts(e.detected_at))
                    .bind(e.position.as_ref().map(|p| p.latitude))
                    .bind(e.position.as_ref().map(|p| p.longitude))
                    .bind(to_json(&e.details))
                    .bind(e.notifications_suppressed);
            }
            query.execute(&mut *tx).await?;
        }
        let owed: Vec<(&Event, &NewNotification)> = events
            .iter()
            .flat_map(|new| new.notifications.iter().map(move |n| (&new.event, n)))
            .collect();
        for chunk in owed.chunks(INSERT_CHUNK) {
            let mut query = sqlx::query(AssertSqlSafe(values_sql(
                "INSERT INTO notifications (id, event_id, account_id, rule_id, webhook_account_id, \
                 channel, recipient, target, status, created_at, due_at) VALUES ",
                "(?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)",
                chunk.len(),
                "",
            )));
            for (e, n) in chunk {
                query = query
                    .bind(n.id.to_string())
                    .bind(e.id.to_string())
                    .bind(e.account_id.to_string())
                    .bind(n.rule_id.map(|r| r.to_string()))
                    .bind(n.webhook_account_id.map(|r| r.to_string()))
                    .bind(n.target.channel.as_str())
                    .bind(&n.target.address)
                    .bind(to_json(&n.target))
                    .bind(ts(e.detected_at))
                    .bind(ts(n.due_at));
            }
            query.execute(&mut *tx).await?;
        }
        Ok(())
    }

    async fn attempts_of(&self, notification: &str) -> StoreResult<Vec<DeliveryAttempt>> {
        let rows = sqlx::query(
            "SELECT at, outcome, provider_code, message FROM notification_attempts \
             WHERE notification_id = ? ORDER BY at, rowid",
        )
        .bind(notification)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(DeliveryAttempt {
                    at: parse_ts(r.try_get("at")?)?,
                    outcome: parse_outcome(r.try_get("outcome")?)?,
                    provider_code: r.try_get("provider_code")?,
                    message: r.try_get("message")?,
                })
            })
            .collect()
    }

    /// The events a claimed notification is about, each with its asset's name.
    pub(super) async fn claimed_events(
        &self,
        id: &str,
        is_digest: bool,
    ) -> StoreResult<Vec<(Event, String)>> {
        let sql = if is_digest {
            "SELECT e.*, a.name AS asset_name FROM notifications n JOIN events e ON e.id = n.event_id \
             JOIN assets a ON a.id = e.asset_id WHERE n.digest_id = ? ORDER BY e.occurred_at, e.id"
        } else {
            "SELECT e.*, a.name AS asset_name FROM notifications n JOIN events e ON e.id = n.event_id \
             JOIN assets a ON a.id = e.asset_id WHERE n.id = ?"
        };
        let rows = sqlx::query(sql).bind(id).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|r| Ok((event_from(r)?, r.try_get("asset_name")?)))
            .collect()
    }
    async fn start_one(
        tx: &mut SqliteConnection,
        check: &SendCheck,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> StoreResult<SendStart> {
        let id = check.id.to_string();
        let held = sqlx::query(
            "SELECT 1 FROM notifications WHERE id = ? AND status = 'pending' AND lease_token = ? AND lease_until > ?",
        )
        .bind(&id)
        .bind(check.lease.to_string())
        .bind(ts(now))
        .fetch_optional(&mut *tx)
        .await?;
        if held.is_none() {
            return Ok(SendStart::LeaseLost);
        }
        if let Some(limit) = check.limit {
            // Recorded sends, and sends other holders have started and not recorded yet.
            let rows = sqlx::query(
                "SELECT sent_at AS at FROM notifications WHERE channel = ?1 AND recipient = ?2 AND sent_at > ?3 \
                 UNION ALL SELECT sending_at FROM notifications WHERE channel = ?1 AND recipient = ?2 \
                 AND status = 'pending' AND sending_at > ?3 AND lease_until > ?4 AND id <> ?5",
            )
            .bind(check.channel.as_str())
            .bind(&check.address)
            .bind(ts(now - limit.window))
            .bind(ts(now))
            .bind(&id)
            .fetch_all(&mut *tx)
            .await?;
            let sent = rows
                .iter()
                .map(|r| parse_ts(r.try_get("at")?))
                .collect::<StoreResult<Vec<_>>>()?;
            if let Decision::Coalesce { send_at } = decide(&limit, &sent, now) {
                return Ok(SendStart::Coalesce { send_at });
            }
        }
        sqlx::query("UPDATE notifications SET lease_until = ?, sending_at = ? WHERE id = ?")
            .bind(ts(lease_until))
            .bind(ts(now))
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        Ok(SendStart::Send)
    }

    /// Folds the notification into the recipient's pending digest (created if needed).
    async fn coalesce(
        tx: &mut SqliteConnection,
        claimed: &Claimed,
        digest_due: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> StoreResult<()> {
        let target = &claimed.target;
        let held = sqlx::query(
            "SELECT 1 FROM notifications WHERE id = ? AND status = 'pending' AND lease_token = ?",
        )
        .bind(claimed.id.to_string())
        .bind(claimed.lease.to_string())
        .fetch_optional(&mut *tx)
        .await?;
        if held.is_none() {
            // Another holder took it over; what it does stands.
            return Ok(());
        }
        let existing: Option<String> = sqlx::query(
            "SELECT id FROM notifications WHERE event_id IS NULL AND status = 'pending' AND channel = ? AND recipient = ? \
             ORDER BY due_at LIMIT 1",
        )
        .bind(target.channel.as_str())
        .bind(&target.address)
        .fetch_optional(&mut *tx)
        .await?
        .map(|r| r.try_get("id"))
        .transpose()?;
        let digest = match existing {
            Some(id) => id,
            None => {
                let id = Uuid::new_v4().to_string();
                sqlx::query(
                    "INSERT INTO notifications (id, event_id, account_id, rule_id, channel, recipient, target, status, created_at, due_at) \
                     VALUES (?, NULL, ?, ?, ?, ?, ?, 'pending', ?, ?)",
                )
                .bind(&id)
                .bind(claimed.account_id.to_string())
                .bind(claimed.rule_id.map(|r| r.to_string()))
                .bind(target.channel.as_str())
                .bind(&target.address)
                .bind(to_json(target))
                .bind(ts(now))
                .bind(ts(digest_due))
                .execute(&mut *tx)
                .await?;
                id
            }
        };
        sqlx::query(
            "UPDATE notifications SET status = 'coalesced', digest_id = ?, lease_until = NULL, \
             reason = 'rate limit of the recipient reached; sent in a digest' WHERE id = ? AND status = 'pending'",
        )
        .bind(&digest)
        .bind(claimed.id.to_string())
        .execute(&mut *tx)
        .await?;
        Ok(())
    }

    /// Records an attempt and the notification's new status; releases the lease.
    async fn record_attempt(
        tx: &mut SqliteConnection,
        id: Uuid,
        lease: Uuid,
        at: DateTime<Utc>,
        result: &AttemptResult,
    ) -> StoreResult<()> {
        let id = id.to_string();
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
                 SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM notifications WHERE id = ?1)",
            )
            .bind(&id)
            .bind(ts(at))
            .bind(outcome_str(outcome))
            .bind(code.as_deref())
            .bind(message.map(String::as_str))
            .execute(&mut *tx)
            .await?;
        }
        let (status, reason, sent_at, due_at) = match result {
            AttemptResult::Delivered { .. } => ("sent", None, Some(ts(at)), None),
            AttemptResult::Retry {
                message, retry_at, ..
            } => ("pending", Some(message.clone()), None, Some(ts(*retry_at))),
            AttemptResult::Failed { message, .. } => ("failed", Some(message.clone()), None, None),
            AttemptResult::Skipped { reason } => ("skipped", Some(reason.clone()), None, None),
        };
        // Only a still pending row changes (an acknowledgement may have cancelled it), and only
        // under this claim (another holder may have taken it over).
        sqlx::query(
            "UPDATE notifications SET status = ?, reason = ?, sent_at = COALESCE(?, sent_at), \
             due_at = COALESCE(?, due_at), lease_until = NULL, attempts = attempts + ? \
             WHERE id = ? AND status = 'pending' AND lease_token = ?",
        )
        .bind(status)
        .bind(reason)
        .bind(sent_at)
        .bind(due_at)
        .bind(i64::from(attempt.is_some()))
        .bind(&id)
        .bind(lease.to_string())
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
    /// One job's points, events and states, inside the caller's transaction.
    async fn ingest_one(tx: &mut SqliteConnection, job: &IngestJob) -> StoreResult<Vec<Vec<bool>>> {
        let (batches, pipeline) = (&job.batches, &job.pipeline);
        let received = ts(job.received_at);
        // An asset whose account was deleted since the batch was read gets nothing stored, as if
        // the batch had come first and the deletion had removed its points.
        let ids: Vec<String> = batches.iter().map(|b| b.asset.id.to_string()).collect();
        let present: HashSet<String> = sqlx::query_scalar(
            "SELECT id FROM assets WHERE id IN (SELECT value FROM json_each(?))",
        )
        .bind(serde_json::to_string(&ids).expect("strings serialize"))
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .collect();
        let fresh = Self::insert_points(tx, batches, &present, &received).await?;
        let with_fresh: Vec<(&AssetPoints, Vec<_>)> = batches
            .iter()
            .zip(&fresh)
            .map(|(b, new)| {
                let points: Vec<_> = b
                    .points
                    .iter()
                    .zip(new)
                    .filter(|(_, new)| **new)
                    .map(|(p, _)| p.clone())
                    .collect();
                (b, points)
            })
            .filter(|(_, points)| !points.is_empty())
            .collect();
        if with_fresh.is_empty() {
            return Ok(fresh);
        }
        let ids: Vec<String> = with_fresh
            .iter()
            .map(|(b, _)| b.asset.id.to_string())
            .collect();
        let mut states = Self::states_of(tx, &ids).await?;
        let mut rules = Self::rules_of(tx, &ids).await?;
        let mut new_states = Vec::with_capacity(ids.len());
        let mut events = Vec::new();
        for ((batch, points), id) in with_fresh.iter().zip(ids) {
            let mut state = states.remove(&id).unwrap_or_default();
            let rules = rules.remove(&id).unwrap_or_default();
            events.extend(pipeline.run(&batch.asset, &rules, &mut state, points));
            new_states.push((id, state));
        }
        Self::insert_events(tx, &events).await?;
        Self::save_states(tx, &new_states).await?;
        Ok(fresh)
    }

    /// Writes queued jobs in one transaction and answers each; fails only when the transaction
    /// itself does (then every job is answered with the failure).
    async fn write_jobs(writer: &mut SqliteConnection, jobs: Vec<Queued>) -> StoreResult<()> {
        // IMMEDIATE takes the write lock first: a deferred transaction that reads, then writes,
        // can fail at its first write when another writer got in between.
        let mut tx = match writer.begin_with("BEGIN IMMEDIATE").await {
            Ok(tx) => tx,
            Err(e) => return Err(fail_all(jobs, e.into())),
        };
        let mut answers = Vec::with_capacity(jobs.len());
        for (job, done) in jobs {
            let written = match sqlx::Connection::begin(&mut *tx).await {
                Ok(mut savepoint) => match Self::ingest_one(&mut savepoint, &job).await {
                    Ok(fresh) => savepoint.commit().await.map(|()| fresh).map_err(Into::into),
                    Err(e) => Err(e),
                },
                Err(e) => Err(e.into()),
            };
            answers.push((done, written));
        }
        if let Err(e) = tx.commit().await {
            let message = e.to_string();
            for (done, _) in answers {
                let _ = done.send(Err(StoreError::Failed(message.clone())));
            }
            return Err(e.into());
        }
        for (done, written) in answers {
            let _ = done.send(written);
        }
        Ok(())
    }

    fn queued_lock(&self) -> std::sync::MutexGuard<'_, Vec<Queued>> {
        self.queued
            .lock()
            .expect("the ingestion queue is never poisoned")
    }
}

impl AlertStore for SqliteStore {
    async fn ingestion_token_account(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Uuid>> {
        let row = sqlx::query(
            "SELECT account_id FROM ingestion_tokens WHERE token_hash = ? AND expires_at > ?",
        )
        .bind(token_hash)
        .bind(ts(now))
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| parse_uuid(r.try_get("account_id")?))
            .transpose()
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
        let mut sql = String::from("SELECT * FROM assets WHERE account_id = ? AND (id IN (");
        sql.push_str(&vec!["?"; ids.len()].join(", "));
        sql.push_str(") OR external_id IN (");
        sql.push_str(&vec!["?"; external_ids.len()].join(", "));
        sql.push_str("))");
        let mut query = sqlx::query(AssertSqlSafe(sql)).bind(account.to_string());
        for id in ids {
            query = query.bind(id.to_string());
        }
        for external in external_ids {
            query = query.bind(external);
        }
        let rows = query.fetch_all(&self.pool).await?;
        rows.iter().map(Self::asset_from).collect()
    }

    async fn webhook_receivers(&self, account: Uuid) -> StoreResult<Vec<(Uuid, String)>> {
        let rows = sqlx::query(
            "WITH RECURSIVE chain (id, parent_id, callback_uri, depth) AS ( \
                 SELECT id, parent_id, callback_uri, 0 FROM accounts WHERE id = ? \
                 UNION ALL SELECT a.id, a.parent_id, a.callback_uri, c.depth + 1 \
                 FROM accounts a JOIN chain c ON a.id = c.parent_id \
             ) SELECT id, callback_uri FROM chain WHERE callback_uri IS NOT NULL ORDER BY depth",
        )
        .bind(account.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((parse_uuid(r.try_get("id")?)?, r.try_get("callback_uri")?)))
            .collect()
    }

    /// Group commit: the job waits for the writer; whoever holds it writes every job queued by
    /// then in one transaction (each job in a savepoint of its own, so a failing job fails
    /// alone), and one sync of the log acknowledges them all.
    async fn ingest(&self, job: IngestJob) -> StoreResult<Vec<Vec<bool>>> {
        let (done, result) = oneshot::channel();
        self.queued_lock().push((job, done));
        let mut writer = self.writer.lock().await;
        let mut result = result;
        if let Ok(written) = result.try_recv() {
            return written;
        }
        let jobs = std::mem::take(&mut *self.queued_lock());
        let outcome = Self::write_jobs(&mut writer, jobs).await;
        if let Err(e) = outcome {
            tracing::error!(error = %e, "telemetry transaction failed");
        }
        result
            .await
            .unwrap_or_else(|_| Err(StoreError::Failed("the transaction was abandoned".into())))
    }

    async fn asset_states(&self, assets: &[Uuid]) -> StoreResult<Vec<StoredState>> {
        if assets.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = assets.iter().map(Uuid::to_string).collect();
        let mut conn = self.pool.acquire().await?;
        let mut states = Self::states_of(&mut conn, &ids).await?;
        Ok(assets
            .iter()
            .zip(&ids)
            .filter_map(|(asset_id, id)| {
                Some(StoredState {
                    asset_id: *asset_id,
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
        let rows = sqlx::query(
            "SELECT * FROM events WHERE account_id = ? \
             AND (? IS NULL OR asset_id = ?) AND (? IS NULL OR event_type = ?) \
             AND (? IS NULL OR occurred_at >= ?) AND (? IS NULL OR occurred_at < ?) \
             ORDER BY occurred_at DESC, id DESC LIMIT ? + 0 OFFSET ? + 0",
        )
        .bind(account.to_string())
        .bind(filter.asset_id.map(|a| a.to_string()))
        .bind(filter.asset_id.map(|a| a.to_string()))
        .bind(filter.event_type.map(|t| t.value()))
        .bind(filter.event_type.map(|t| t.value()))
        .bind(filter.from.map(ts))
        .bind(filter.from.map(ts))
        .bind(filter.to.map(ts))
        .bind(filter.to.map(ts))
        .bind(page.take)
        .bind(page.skip)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(event_from).collect()
    }

    async fn event(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Event>> {
        let row = sqlx::query("SELECT * FROM events WHERE account_id = ? AND id = ?")
            .bind(account.to_string())
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(event_from).transpose()
    }

    async fn acknowledge_event(
        &self,
        account: Uuid,
        id: Uuid,
        by: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Event>> {
        let mut writer = self.writer.lock().await;
        let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
        let found = sqlx::query(
            "UPDATE events SET acknowledged_at = COALESCE(acknowledged_at, ?), \
             acknowledged_by = COALESCE(acknowledged_by, ?) WHERE account_id = ? AND id = ?",
        )
        .bind(ts(now))
        .bind(by)
        .bind(account.to_string())
        .bind(id.to_string())
        .execute(&mut *tx)
        .await?
        .rows_affected()
            > 0;
        if !found {
            return Ok(None);
        }
        sqlx::query(
            "UPDATE notifications SET status = 'cancelled', reason = 'the event was acknowledged', lease_until = NULL \
             WHERE event_id = ? AND status = 'pending'",
        )
        .bind(id.to_string())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.event(account, id).await
    }

    async fn event_notifications(&self, event: Uuid) -> StoreResult<Vec<Notification>> {
        let rows = sqlx::query(
            "SELECT * FROM notifications WHERE event_id = ? ORDER BY created_at, due_at, id",
        )
        .bind(event.to_string())
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let id: String = r.try_get("id")?;
            out.push(Notification {
                id: parse_uuid(&id)?,
                event_id: event,
                alert_rule_id: parse_opt_uuid(r.try_get("rule_id")?)?,
                webhook_account_id: parse_opt_uuid(r.try_get("webhook_account_id")?)?,
                channel: channel_model(parse_channel(r.try_get("channel")?)?),
                recipient: r.try_get("recipient")?,
                status: parse_status(r.try_get("status")?)?,
                reason: r.try_get("reason")?,
                created_at: parse_ts(r.try_get("created_at")?)?,
                due_at: parse_ts(r.try_get("due_at")?)?,
                sent_at: parse_opt_ts(r.try_get("sent_at")?)?,
                digest_id: parse_opt_uuid(r.try_get("digest_id")?)?,
                attempts: self.attempts_of(&id).await?,
            });
        }
        Ok(out)
    }

    async fn notification_event(
        &self,
        notification: Uuid,
    ) -> StoreResult<Option<(Event, Option<Uuid>)>> {
        let row = sqlx::query(
            "SELECT e.*, n.rule_id AS notification_rule FROM notifications n JOIN events e ON e.id = n.event_id WHERE n.id = ?",
        )
        .bind(notification.to_string())
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            Ok((
                event_from(&r)?,
                parse_opt_uuid(r.try_get("notification_rule")?)?,
            ))
        })
        .transpose()
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        per_destination: i64,
        limit: i64,
    ) -> StoreResult<Vec<Claimed>> {
        self.claim_fair(now, lease_until, per_destination, limit)
            .await
    }

    async fn postpone_destination(
        &self,
        destination: &Destination,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
        released: (Uuid, &[Uuid]),
    ) -> StoreResult<()> {
        self.postpone(destination, until, now, released).await
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
        // The writer lock makes each check, count and mark one step for every dispatcher; one
        // transaction for the batch, as sends wait behind ingestion for the writer.
        let mut writer = self.writer.lock().await;
        let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
        let mut started = Vec::with_capacity(checks.len());
        for check in checks {
            started.push(Self::start_one(&mut tx, check, now, lease_until).await?);
        }
        tx.commit().await?;
        Ok(started)
    }

    async fn record_round(&self, outcomes: &[Outcome], now: DateTime<Utc>) -> StoreResult<()> {
        if outcomes.is_empty() {
            return Ok(());
        }
        let mut writer = self.writer.lock().await;
        let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
        for outcome in outcomes {
            match outcome {
                Outcome::Attempt {
                    id,
                    lease,
                    at,
                    result,
                } => Self::record_attempt(&mut tx, *id, *lease, *at, result).await?,
                Outcome::Coalesced {
                    claimed,
                    digest_due,
                } => Self::coalesce(&mut tx, claimed, *digest_due, now).await?,
            }
        }
        tx.commit().await?;
        Ok(())
    }

    async fn next_due(&self) -> StoreResult<Option<DateTime<Utc>>> {
        let row = sqlx::query(
            "SELECT MIN(COALESCE(MAX(due_at, lease_until), due_at)) AS due FROM notifications WHERE status = 'pending'",
        )
        .fetch_one(&self.pool)
        .await?;
        parse_opt_ts(row.try_get("due")?)
    }
}
