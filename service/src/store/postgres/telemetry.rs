//! Ingestion over PostgreSQL. Several instances may ingest points of one asset at once: each job
//! locks its assets' rows (`FOR UPDATE`, in id order, so two jobs never wait on each other in a
//! cycle) before it reads their state, so the jobs of one asset run one after the other and
//! each sees the state the previous one left.
//!
//! Before the assets, a job takes `FOR KEY SHARE` on their accounts and the accounts' ancestors
//! (whose webhooks its notifications name), in id order, as an account deletion locks its
//! subtree in id order: the two wait for each other instead of deadlocking. A job that finds an
//! asset gone (its account deleted meanwhile) stores nothing for it, as if it had run first
//! and the deletion had removed its points.

use super::PgStore;
use crate::store::alerting::{present_assets, rules_of, states_of};
use crate::store::alerts::{IngestJob, NewEvent};
use crate::store::encoding::{readings, to_json};
use crate::store::sql::{Conn, retried};
use crate::store::{StoreResult, micros};
use asset_alerting_detect::AssetState;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};
use std::collections::HashSet;
use uuid::Uuid;

impl PgStore {
    pub(crate) async fn ingest(&self, job: &IngestJob) -> StoreResult<Vec<Vec<bool>>> {
        retried(|| async {
            let mut tx = self.pool.begin().await?;
            let fresh = Self::ingest_in(&mut tx, job).await?;
            tx.commit().await?;
            Ok(fresh)
        })
        .await
    }

    async fn ingest_in(tx: &mut PgConnection, job: &IngestJob) -> StoreResult<Vec<Vec<bool>>> {
        let mut accounts: Vec<Uuid> = job.batches.iter().map(|b| b.asset.account_id).collect();
        accounts.sort();
        accounts.dedup();
        sqlx::query(
            "WITH RECURSIVE chain (id, parent_id) AS ( \
                 SELECT id, parent_id FROM accounts WHERE id = ANY($1) \
                 UNION SELECT a.id, a.parent_id FROM accounts a JOIN chain c ON a.id = c.parent_id \
             ) SELECT id FROM accounts WHERE id IN (SELECT id FROM chain) ORDER BY id FOR KEY SHARE",
        )
        .bind(&accounts)
        .execute(&mut *tx)
        .await?;
        let ids: Vec<Uuid> = job.batches.iter().map(|b| b.asset.id).collect();
        let present = present_assets(&mut Conn::Postgres(tx), &ids).await?;
        let fresh = Self::insert_points(tx, job, &present).await?;
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
        let mut states = states_of(&mut Conn::Postgres(tx), &ids).await?;
        let mut rules = rules_of(&mut Conn::Postgres(tx), &ids).await?;
        let mut new_states = Vec::with_capacity(ids.len());
        for (batch, points) in &with_fresh {
            let id = batch.asset.id;
            let mut state = states.remove(&id).unwrap_or_default();
            let rules = rules.remove(&id).unwrap_or_default();
            for event in job.pipeline.run(&batch.asset, &rules, &mut state, points) {
                Self::insert_event(tx, &event).await?;
            }
            new_states.push((id, state));
        }
        Self::save_states(tx, &new_states).await?;
        Ok(fresh)
    }

    /// Stores the points that are not stored yet; returns, per asset and point, whether it was new.
    async fn insert_points(
        tx: &mut PgConnection,
        job: &IngestJob,
        present: &HashSet<Uuid>,
    ) -> StoreResult<Vec<Vec<bool>>> {
        let (mut assets, mut times, mut bodies) = (Vec::new(), Vec::new(), Vec::new());
        for b in job.batches.iter().filter(|b| present.contains(&b.asset.id)) {
            for p in &b.points {
                assets.push(b.asset.id);
                times.push(micros(p.timestamp));
                bodies.push(readings(p));
            }
        }
        let inserted = sqlx::query(
            "INSERT INTO telemetry (asset_id, ts, received_at, body) \
             SELECT a, t, $4, b FROM UNNEST($1::uuid[], $2::timestamptz[], $3::text[]) AS p (a, t, b) \
             ON CONFLICT (asset_id, ts) DO NOTHING RETURNING asset_id, ts",
        )
        .bind(&assets)
        .bind(&times)
        .bind(&bodies)
        .bind(micros(job.received_at))
        .fetch_all(&mut *tx)
        .await?;
        let mut new: HashSet<(Uuid, DateTime<Utc>)> = HashSet::with_capacity(inserted.len());
        for row in &inserted {
            new.insert((row.try_get("asset_id")?, row.try_get("ts")?));
        }
        Ok(job
            .batches
            .iter()
            .map(|b| {
                b.points
                    .iter()
                    .map(|p| new.contains(&(b.asset.id, micros(p.timestamp))))
                    .collect()
            })
            .collect())
    }

    async fn save_states(tx: &mut PgConnection, states: &[(Uuid, AssetState)]) -> StoreResult<()> {
        let ids: Vec<Uuid> = states.iter().map(|(id, _)| *id).collect();
        let last: Vec<Option<DateTime<Utc>>> =
            states.iter().map(|(_, s)| s.last_timestamp()).collect();
        let bodies: Vec<String> = states.iter().map(|(_, s)| to_json(s)).collect();
        sqlx::query(
            "INSERT INTO asset_state (asset_id, last_ts, state) \
             SELECT * FROM UNNEST($1::uuid[], $2::timestamptz[], $3::text[]) \
             ON CONFLICT (asset_id) DO UPDATE SET last_ts = excluded.last_ts, state = excluded.state",
        )
        .bind(&ids)
        .bind(&last)
        .bind(&bodies)
        .execute(&mut *tx)
        .await?;
        Ok(())
    }

    async fn insert_event(tx: &mut PgConnection, new: &NewEvent) -> StoreResult<()> {
        let e = &new.event;
        sqlx::query(
            "INSERT INTO events (id, account_id, asset_id, event_type, occurred_at, detected_at, latitude, longitude, details, notifications_suppressed) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(e.id)
        .bind(e.account_id)
        .bind(e.asset_id)
        .bind(e.event_type.value())
        .bind(e.occurred_at)
        .bind(e.detected_at)
        .bind(e.position.as_ref().map(|p| p.latitude))
        .bind(e.position.as_ref().map(|p| p.longitude))
        .bind(to_json(&e.details))
        .bind(e.notifications_suppressed)
        .execute(&mut *tx)
        .await?;
        for n in &new.notifications {
            sqlx::query(
                "INSERT INTO notifications (id, event_id, account_id, rule_id, webhook_account_id, channel, recipient, target, status, created_at, due_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10)",
            )
            .bind(n.id)
            .bind(e.id)
            .bind(e.account_id)
            .bind(n.rule_id)
            .bind(n.webhook_account_id)
            .bind(n.target.channel.as_str())
            .bind(&n.target.address)
            .bind(to_json(&n.target))
            .bind(e.detected_at)
            .bind(n.due_at)
            .execute(&mut *tx)
            .await?;
        }
        Ok(())
    }
}
