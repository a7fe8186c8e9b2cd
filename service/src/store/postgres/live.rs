//! What live event streams need of PostgreSQL when several instances share it: a connection that
//! listens for the notifications the triggers of migration 0005 send, and the stream leases that
//! make the per-account limit one limit across instances.

use super::PgStore;
use crate::store::StoreResult;
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use std::time::Duration;
use uuid::Uuid;

/// Channel of `"<account id> <stream position>"`: the account got events up to that position.
pub const EVENTS_CHANNEL: &str = "asset_alerting_events";
/// Channel of an empty payload: notifications were stored.
pub const OUTBOX_CHANNEL: &str = "asset_alerting_outbox";
/// The listening connection's `application_name` (it shows in `pg_stat_activity`).
pub const LISTENER_NAME: &str = "asset-alerting live listener";

impl PgStore {
    /// A pool of one connection for the listener, outside the request pool (which it would
    /// otherwise hold one of for good); connected when first used.
    pub fn listener_pool(&self) -> PgPool {
        PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(10))
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_lazy_with((*self.options).clone().application_name(LISTENER_NAME))
    }

    /// Takes lease `id` on a stream of `account` for `ttl` unless the account holds `limit`
    /// unexpired leases. The account's advisory lock makes concurrent openings, on any instance,
    /// count one after the other.
    pub async fn lease_stream(
        &self,
        id: Uuid,
        account: Uuid,
        instance: Uuid,
        ttl: Duration,
        limit: i64,
    ) -> StoreResult<bool> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "SELECT pg_advisory_xact_lock(hashtextextended('stream lease ' || $1::text, 0))",
        )
        .bind(account)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM stream_leases WHERE account_id = $1 AND expires_at <= now()")
            .bind(account)
            .execute(&mut *tx)
            .await?;
        let taken = sqlx::query(
            "INSERT INTO stream_leases (id, account_id, instance_id, expires_at) \
             SELECT $1, $2, $3, now() + make_interval(secs => $4) \
             WHERE (SELECT COUNT(*) FROM stream_leases WHERE account_id = $2) < $5",
        )
        .bind(id)
        .bind(account)
        .bind(instance)
        .bind(ttl.as_secs_f64())
        .bind(limit)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        Ok(taken == 1)
    }

    /// Extends the instance's unexpired leases by `ttl`; the ids it extended. A lease that
    /// expired meanwhile (the instance stalled) may have been counted free by another opening.
    pub async fn renew_stream_leases(
        &self,
        instance: Uuid,
        ttl: Duration,
    ) -> StoreResult<Vec<Uuid>> {
        Ok(sqlx::query_scalar(
            "UPDATE stream_leases SET expires_at = now() + make_interval(secs => $2) \
             WHERE instance_id = $1 AND expires_at > now() RETURNING id",
        )
        .bind(instance)
        .bind(ttl.as_secs_f64())
        .fetch_all(&self.pool)
        .await?)
    }

    /// Ends leases: of streams that closed, or (with `None`) all of the instance's.
    pub async fn release_stream_leases(
        &self,
        instance: Uuid,
        ids: Option<&[Uuid]>,
    ) -> StoreResult<()> {
        sqlx::query(
            "DELETE FROM stream_leases WHERE instance_id = $1 AND ($2::uuid[] IS NULL OR id = ANY($2))",
        )
        .bind(instance)
        .bind(ids)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
