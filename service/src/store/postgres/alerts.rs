//! [`AlertStore`] over PostgreSQL: reads of events and states, acknowledgements. Ingestion is in
//! `ingest.rs`, the outbox in `outbox.rs`.

use super::PgStore;
use crate::store::alerts::{
    AlertStore, Claimed, Destination, EventFilter, IngestJob, Outcome, SendCheck, SendStart,
    StoredState,
};
use crate::store::encoding::{channel_model, json, parse_channel, parse_outcome, parse_status};
use crate::store::{Page, StoreError, StoreResult};
use asset_alerting_models::{
    Asset, DeliveryAttempt, Event, EventDetails, EventType, Notification, Position,
};
use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::postgres::PgRow;
use std::collections::HashMap;
use uuid::Uuid;

pub(super) fn event_from(row: &PgRow) -> StoreResult<Event> {
    let event_type: i32 = row.try_get("event_type")?;
    let latitude: Option<f64> = row.try_get("latitude")?;
    let longitude: Option<f64> = row.try_get("longitude")?;
    Ok(Event {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        asset_id: row.try_get("asset_id")?,
        event_type: EventType::try_from(event_type).map_err(StoreError::Corrupt)?,
        occurred_at: row.try_get("occurred_at")?,
        detected_at: row.try_get("detected_at")?,
        position: latitude
            .zip(longitude)
            .map(|(latitude, longitude)| Position {
                latitude,
                longitude,
            }),
        details: json::<EventDetails>(row.try_get("details")?)?,
        notifications_suppressed: row.try_get("notifications_suppressed")?,
        acknowledged_at: row.try_get("acknowledged_at")?,
        acknowledged_by: row.try_get("acknowledged_by")?,
    })
}

impl PgStore {
    /// The delivery attempts of each of `notifications`, in order.
    async fn attempts_of(
        &self,
        notifications: &[Uuid],
    ) -> StoreResult<HashMap<Uuid, Vec<DeliveryAttempt>>> {
        let rows = sqlx::query(
            "SELECT notification_id, at, outcome, provider_code, message FROM notification_attempts \
             WHERE notification_id = ANY($1) ORDER BY at, seq",
        )
        .bind(notifications)
        .fetch_all(&self.pool)
        .await?;
        let mut attempts: HashMap<Uuid, Vec<DeliveryAttempt>> = HashMap::new();
        for r in &rows {
            attempts
                .entry(r.try_get("notification_id")?)
                .or_default()
                .push(DeliveryAttempt {
                    at: r.try_get("at")?,
                    outcome: parse_outcome(r.try_get("outcome")?)?,
                    provider_code: r.try_get("provider_code")?,
                    message: r.try_get("message")?,
                });
        }
        Ok(attempts)
    }
}

impl AlertStore for PgStore {
    async fn ingestion_token_account(
        &self,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Uuid>> {
        Ok(sqlx::query_scalar(
            "SELECT account_id FROM ingestion_tokens WHERE token_hash = $1 AND expires_at > $2",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?)
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
        let rows = sqlx::query(
            "SELECT * FROM assets WHERE account_id = $1 AND (id = ANY($2) OR external_id = ANY($3))",
        )
        .bind(account)
        .bind(ids)
        .bind(external_ids)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Self::asset_from).collect()
    }

    async fn webhook_receivers(&self, account: Uuid) -> StoreResult<Vec<(Uuid, String)>> {
        let rows = sqlx::query(
            "WITH RECURSIVE chain (id, parent_id, callback_uri, depth) AS ( \
                 SELECT id, parent_id, callback_uri, 0 FROM accounts WHERE id = $1 \
                 UNION ALL SELECT a.id, a.parent_id, a.callback_uri, c.depth + 1 \
                 FROM accounts a JOIN chain c ON a.id = c.parent_id \
             ) SELECT id, callback_uri FROM chain WHERE callback_uri IS NOT NULL ORDER BY depth",
        )
        .bind(account)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("callback_uri")?)))
            .collect()
    }

    async fn ingest(&self, job: IngestJob) -> StoreResult<Vec<Vec<bool>>> {
        self.ingest_job(&job).await
    }

    async fn asset_states(&self, assets: &[Uuid]) -> StoreResult<Vec<StoredState>> {
        if assets.is_empty() {
            return Ok(Vec::new());
        }
        let rows = sqlx::query("SELECT asset_id, state FROM asset_state WHERE asset_id = ANY($1)")
            .bind(assets)
            .fetch_all(&self.pool)
            .await?;
        let mut states = HashMap::with_capacity(rows.len());
        for r in &rows {
            states.insert(
                r.try_get::<Uuid, _>("asset_id")?,
                r.try_get::<String, _>("state")?,
            );
        }
        assets
            .iter()
            .filter_map(|id| {
                let state = states.remove(id)?;
                Some(json(&state).map(|state| StoredState {
                    asset_id: *id,
                    state,
                }))
            })
            .collect()
    }

    async fn list_events(
        &self,
        account: Uuid,
        filter: &EventFilter,
        page: Page,
    ) -> StoreResult<Vec<Event>> {
        let rows = sqlx::query(
            "SELECT * FROM events WHERE account_id = $1 \
             AND ($2::uuid IS NULL OR asset_id = $2) AND ($3::integer IS NULL OR event_type = $3) \
             AND ($4::timestamptz IS NULL OR occurred_at >= $4) AND ($5::timestamptz IS NULL OR occurred_at < $5) \
             ORDER BY occurred_at DESC, id DESC LIMIT $6 OFFSET $7",
        )
        .bind(account)
        .bind(filter.asset_id)
        .bind(filter.event_type.map(|t| t.value()))
        .bind(filter.from)
        .bind(filter.to)
        .bind(page.take)
        .bind(page.skip)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(event_from).collect()
    }

    async fn event(&self, account: Uuid, id: Uuid) -> StoreResult<Option<Event>> {
        let row = sqlx::query("SELECT * FROM events WHERE account_id = $1 AND id = $2")
            .bind(account)
            .bind(id)
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
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "UPDATE events SET acknowledged_at = COALESCE(acknowledged_at, $1), \
             acknowledged_by = COALESCE(acknowledged_by, $2) WHERE account_id = $3 AND id = $4 RETURNING *",
        )
        .bind(now)
        .bind(by)
        .bind(account)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        sqlx::query(
            "UPDATE notifications SET status = 'cancelled', reason = 'the event was acknowledged', lease_until = NULL \
             WHERE event_id = $1 AND status = 'pending'",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        event_from(&row).map(Some)
    }

    async fn event_notifications(&self, event: Uuid) -> StoreResult<Vec<Notification>> {
        let rows = sqlx::query(
            "SELECT * FROM notifications WHERE event_id = $1 ORDER BY created_at, due_at, id",
        )
        .bind(event)
        .fetch_all(&self.pool)
        .await?;
        let ids = rows
            .iter()
            .map(|r| r.try_get("id"))
            .collect::<Result<Vec<Uuid>, _>>()?;
        let mut attempts = self.attempts_of(&ids).await?;
        let mut out = Vec::with_capacity(rows.len());
        for (r, id) in rows.iter().zip(ids) {
            out.push(Notification {
                id,
                event_id: event,
                alert_rule_id: r.try_get("rule_id")?,
                webhook_account_id: r.try_get("webhook_account_id")?,
                channel: channel_model(parse_channel(r.try_get("channel")?)?),
                recipient: r.try_get("recipient")?,
                status: parse_status(r.try_get("status")?)?,
                reason: r.try_get("reason")?,
                created_at: r.try_get("created_at")?,
                due_at: r.try_get("due_at")?,
                sent_at: r.try_get("sent_at")?,
                digest_id: r.try_get("digest_id")?,
                attempts: attempts.remove(&id).unwrap_or_default(),
            });
        }
        Ok(out)
    }

    async fn notification_event(
        &self,
        notification: Uuid,
    ) -> StoreResult<Option<(Event, Option<Uuid>)>> {
        let row = sqlx::query(
            "SELECT e.*, n.rule_id AS notification_rule FROM notifications n JOIN events e ON e.id = n.event_id WHERE n.id = $1",
        )
        .bind(notification)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| Ok((event_from(&r)?, r.try_get("notification_rule")?)))
            .transpose()
    }

    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        per_destination: i64,
        limit: i64,
    ) -> StoreResult<Vec<Claimed>> {
        self.claim(now, lease_until, per_destination, limit).await
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
        self.start(checks, now, lease_until).await
    }

    async fn record_round(&self, outcomes: &[Outcome], now: DateTime<Utc>) -> StoreResult<()> {
        self.record(outcomes, now).await
    }

    async fn next_due(&self) -> StoreResult<Option<DateTime<Utc>>> {
        // GREATEST skips a NULL lease.
        Ok(sqlx::query_scalar(
            "SELECT MIN(GREATEST(due_at, lease_until)) FROM notifications WHERE status = 'pending'",
        )
        .fetch_one(&self.pool)
        .await?)
    }
}
