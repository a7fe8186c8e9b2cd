//! Ingestion over SQLite. Jobs queue for the one writer and are written in one `BEGIN
//! IMMEDIATE` transaction per group (group commit): SQLite has one writer, so batches of one
//! asset never interleave, and a crash keeps all of a job or none of it.

use super::SqliteStore;
use crate::store::alerting::{present_assets, rules_of, states_of};
use crate::store::alerts::{AssetPoints, IngestJob, NewEvent, NewNotification};
use crate::store::encoding::{readings, to_json};
use crate::store::sql::{Conn, ts};
use crate::store::{StoreError, StoreResult};
use asset_alerting_detect::AssetState;
use asset_alerting_models::Event;
use sqlx::{AssertSqlSafe, Connection, Row, SqliteConnection};
use std::collections::HashSet;
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

impl SqliteStore {
    /// Stores the points of every asset in multi-row inserts; returns, per asset and point,
    /// whether it was new. The caller holds the writer lock, so the stored timestamps read first
    /// cannot change before the insert (and no row has to come back from it).
    async fn insert_points(
        tx: &mut SqliteConnection,
        batches: &[AssetPoints],
        present: &HashSet<Uuid>,
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
            if !present.contains(&b.asset.id) {
                fresh.push(vec![false; b.points.len()]);
                continue;
            }
            let asset = b.asset.id.to_string();
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

    async fn save_states(
        tx: &mut SqliteConnection,
        states: &[(Uuid, AssetState)],
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
                    .bind(asset.to_string())
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

    /// One job's points, events and states, inside the caller's transaction.
    async fn ingest_one(tx: &mut SqliteConnection, job: &IngestJob) -> StoreResult<Vec<Vec<bool>>> {
        let (batches, pipeline) = (&job.batches, &job.pipeline);
        let received = ts(job.received_at);
        // An asset whose account was deleted since the batch was read gets nothing stored, as if
        // the batch had come first and the deletion had removed its points.
        let ids: Vec<Uuid> = batches.iter().map(|b| b.asset.id).collect();
        let present = present_assets(&mut Conn::Sqlite(tx), &ids).await?;
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
        let ids: Vec<Uuid> = with_fresh.iter().map(|(b, _)| b.asset.id).collect();
        let mut states = states_of(&mut Conn::Sqlite(tx), &ids).await?;
        let mut rules = rules_of(&mut Conn::Sqlite(tx), &ids).await?;
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

    /// Group commit: the job waits for the writer; whoever holds it writes every job queued by
    /// then in one transaction (each job in a savepoint of its own, so a failing job fails
    /// alone), and one sync of the log acknowledges them all.
    pub(crate) async fn ingest(&self, job: IngestJob) -> StoreResult<Vec<Vec<bool>>> {
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
}
