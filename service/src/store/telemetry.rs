//! Ingestion's writes, for both backends: one job's points, the events and notifications its
//! pipeline derives from them and the assets' new detector states, in the caller's
//! transaction. How jobs get that transaction differs: SQLite's group commit on its one writer
//! (`sqlite/telemetry.rs`), PostgreSQL's row locks (`postgres/telemetry.rs`). Either way the
//! jobs of one asset run one after the other, so the points already stored, read first, cannot
//! change before the insert (and no row has to come back from it).

use super::alerts::{IngestJob, NewEvent};
use super::encoding::{json, readings, to_json};
use super::sql::{Arg, Conn, args, sql};
use super::{StoreResult, micros, postgres, rows};
use asset_alerting_detect::AssetState;
use asset_alerting_models::AlertRule;
use chrono::{DateTime, Utc};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// Rows per multi-row statement: a 1,000-point batch is one insert. At most 11 parameters a row,
/// so at most 11,000 a statement, under SQLite's limit of 32,766 (PostgreSQL's is 65,535).
const INSERT_CHUNK: usize = 1000;

/// Assets per query for the points already stored: their conditions are joined by OR, which
/// SQLite nests one level each, under its expression depth limit of 1,000.
const RANGES_CHUNK: usize = 250;

/// `head`, then `row` `rows` times with `separator` between them, then `tail`: one statement
/// for many rows (its `?` placeholders numbered for PostgreSQL by [`Statement`]).
///
/// [`Statement`]: super::sql::Statement
fn rows_sql(head: &str, row: &str, rows: usize, separator: &str, tail: &str) -> String {
    let mut sql = head.to_owned();
    sql.push_str(&vec![row; rows].join(separator));
    sql.push_str(tail);
    sql
}

/// One job's points, events and states, inside the caller's transaction (a savepoint of SQLite's
/// group commit, or a PostgreSQL transaction of its own).
pub(super) async fn ingest_in(c: &mut Conn<'_>, job: &IngestJob) -> StoreResult<Vec<Vec<bool>>> {
    postgres::lock_accounts(c, job).await?;
    let ids: Vec<Uuid> = job.batches.iter().map(|b| b.asset.id).collect();
    let present = present_assets(c, &ids).await?;
    let fresh = insert_points(c, job, &present).await?;
    // The pipeline sees the points that were not stored before.
    let with_fresh: Vec<_> = job
        .batches
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
    let mut states = states_of(c, &ids).await?;
    let mut rules = rules_of(c, &ids).await?;
    let mut new_states = Vec::with_capacity(ids.len());
    let mut events = Vec::new();
    for (batch, points) in &with_fresh {
        let id = batch.asset.id;
        let mut state = states.remove(&id).unwrap_or_default();
        let rules = rules.remove(&id).unwrap_or_default();
        events.extend(job.pipeline.run(&batch.asset, &rules, &mut state, points));
        new_states.push((id, state));
    }
    insert_events(c, &events).await?;
    save_states(c, &new_states).await?;
    Ok(fresh)
}

/// The detector state of each of `assets` that has one.
pub(super) async fn states_of(
    c: &mut Conn<'_>,
    assets: &[Uuid],
) -> StoreResult<HashMap<Uuid, AssetState>> {
    let states = c
        .all(
            sql!("SELECT asset_id, state FROM asset_state WHERE asset_id " [any 1]),
            args![assets],
            |r| Ok((r.id("asset_id")?, json(r.str("state")?)?)),
        )
        .await?;
    Ok(states.into_iter().collect())
}

/// The alert rules of each of `assets`, in rule order.
async fn rules_of(c: &mut Conn<'_>, assets: &[Uuid]) -> StoreResult<HashMap<Uuid, Vec<AlertRule>>> {
    let found = c
        .all(
            sql!("SELECT asset_id, body FROM alert_rules WHERE asset_id " [any 1]
                 " ORDER BY asset_id, position, id"),
            args![assets],
            |r| Ok((r.id("asset_id")?, rows::rule(r)?)),
        )
        .await?;
    let mut rules: HashMap<Uuid, Vec<_>> = HashMap::new();
    for (asset, rule) in found {
        rules.entry(asset).or_default().push(rule);
    }
    Ok(rules)
}

/// Of `assets`, those that exist, locked on PostgreSQL in id order (two jobs never wait on each
/// other in a cycle). An asset whose account was deleted since its batch was read gets nothing
/// stored, as if the batch had come first and the deletion had removed its points.
async fn present_assets(c: &mut Conn<'_>, assets: &[Uuid]) -> StoreResult<HashSet<Uuid>> {
    let mut ids = assets.to_vec();
    ids.sort();
    ids.dedup();
    let present = c
        .all(
            sql!("SELECT id FROM assets WHERE id " [any 1] " ORDER BY id" [for_update]),
            args![&ids],
            rows::id,
        )
        .await?;
    Ok(present.into_iter().collect())
}

/// Stores the points of every present asset that are not stored yet; returns, per asset and
/// point, whether it was new.
async fn insert_points(
    c: &mut Conn<'_>,
    job: &IngestJob,
    present: &HashSet<Uuid>,
) -> StoreResult<Vec<Vec<bool>>> {
    let ranges: Vec<(Uuid, DateTime<Utc>, DateTime<Utc>)> = job
        .batches
        .iter()
        .filter_map(|b| {
            Some((
                b.asset.id,
                b.points.first()?.timestamp,
                b.points.last()?.timestamp,
            ))
        })
        .collect();
    let mut stored: HashSet<(Uuid, DateTime<Utc>)> = HashSet::new();
    for chunk in ranges.chunks(RANGES_CHUNK) {
        let sql = rows_sql(
            "SELECT asset_id, ts FROM telemetry WHERE ",
            "(asset_id = ? AND ts BETWEEN ? AND ?)",
            chunk.len(),
            " OR ",
            "",
        );
        let args: Vec<Arg> = chunk
            .iter()
            .flat_map(|(asset, first, last)| {
                [
                    Arg::from(*asset),
                    Arg::from(micros(*first)),
                    Arg::from(micros(*last)),
                ]
            })
            .collect();
        stored.extend(
            c.all(sql, &args, |r| Ok((r.id("asset_id")?, r.time("ts")?)))
                .await?,
        );
    }
    let mut fresh = Vec::with_capacity(job.batches.len());
    let mut new_rows = Vec::new();
    for b in &job.batches {
        let present = present.contains(&b.asset.id);
        let flags: Vec<bool> = b
            .points
            .iter()
            .map(|p| {
                let new = present && !stored.contains(&(b.asset.id, micros(p.timestamp)));
                if new {
                    new_rows.push([
                        Arg::from(b.asset.id),
                        Arg::from(micros(p.timestamp)),
                        Arg::from(micros(job.received_at)),
                        Arg::from(readings(p)),
                    ]);
                }
                new
            })
            .collect();
        fresh.push(flags);
    }
    for chunk in new_rows.chunks(INSERT_CHUNK) {
        let sql = rows_sql(
            "INSERT INTO telemetry (asset_id, ts, received_at, body) VALUES ",
            "(?, ?, ?, ?)",
            chunk.len(),
            ", ",
            " ON CONFLICT (asset_id, ts) DO NOTHING",
        );
        c.run(sql, chunk.as_flattened()).await?;
    }
    Ok(fresh)
}

async fn save_states(c: &mut Conn<'_>, states: &[(Uuid, AssetState)]) -> StoreResult<()> {
    for chunk in states.chunks(INSERT_CHUNK) {
        let sql = rows_sql(
            "INSERT INTO asset_state (asset_id, last_ts, state) VALUES ",
            "(?, ?, ?)",
            chunk.len(),
            ", ",
            " ON CONFLICT (asset_id) DO UPDATE SET last_ts = excluded.last_ts, state = excluded.state",
        );
        let args: Vec<Arg> = chunk
            .iter()
            .flat_map(|(asset, state)| {
                [
                    Arg::from(*asset),
                    Arg::from(state.last_timestamp()),
                    Arg::from(to_json(state)),
                ]
            })
            .collect();
        c.run(sql, &args).await?;
    }
    Ok(())
}

/// The events and their outbox rows in multi-row inserts (events first: the rows refer to them).
async fn insert_events(c: &mut Conn<'_>, events: &[NewEvent]) -> StoreResult<()> {
    for chunk in events.chunks(INSERT_CHUNK) {
        let sql = rows_sql(
            "INSERT INTO events (id, account_id, asset_id, event_type, occurred_at, detected_at, \
             latitude, longitude, details, notifications_suppressed) VALUES ",
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            chunk.len(),
            ", ",
            "",
        );
        let args: Vec<Arg> = chunk
            .iter()
            .flat_map(|new| {
                let e = &new.event;
                [
                    Arg::from(e.id),
                    Arg::from(e.account_id),
                    Arg::from(e.asset_id),
                    Arg::from(e.event_type.value()),
                    Arg::from(e.occurred_at),
                    Arg::from(e.detected_at),
                    Arg::from(e.position.as_ref().map(|p| p.latitude)),
                    Arg::from(e.position.as_ref().map(|p| p.longitude)),
                    Arg::from(to_json(&e.details)),
                    Arg::from(e.notifications_suppressed),
                ]
            })
            .collect();
        c.run(sql, &args).await?;
    }
    let owed: Vec<[Arg; 10]> = events
        .iter()
        .flat_map(|new| {
            let e = &new.event;
            new.notifications.iter().map(move |n| {
                [
                    Arg::from(n.id),
                    Arg::from(e.id),
                    Arg::from(e.account_id),
                    Arg::from(n.rule_id),
                    Arg::from(n.webhook_account_id),
                    Arg::from(n.target.channel.as_str()),
                    Arg::from(&n.target.address),
                    Arg::from(to_json(&n.target)),
                    Arg::from(e.detected_at),
                    Arg::from(n.due_at),
                ]
            })
        })
        .collect();
    for chunk in owed.chunks(INSERT_CHUNK) {
        let sql = rows_sql(
            "INSERT INTO notifications (id, event_id, account_id, rule_id, webhook_account_id, \
             channel, recipient, target, status, created_at, due_at) VALUES ",
            "(?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)",
            chunk.len(),
            ", ",
            "",
        );
        c.run(sql, chunk.as_flattened()).await?;
    }
    Ok(())
}
