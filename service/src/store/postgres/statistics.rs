//! The planner's statistics, kept up with bulk writes. PostgreSQL plans from statistics that
//! `ANALYZE` gathers, and autovacuum runs it only on its round, once a minute by default
//! (`autovacuum_naptime`, a server-wide setting). Until then a table that grew from nothing, say
//! 10,000 assets imported into a new database, is planned as nearly empty: list assets took a
//! bitmap scan of every asset of the account and a sort (about 14 ms) instead of reading the first
//! page off the listing index (0.2 ms), and answered 900 requests a second instead of 6,000.
//! Tuning autovacuum per table cannot help: its thresholds are checked only on that round.
//!
//! So the service does autovacuum's analysing part itself, soon after its own writes: a write
//! wakes [`Statistics`], which waits [`PACE`] (PostgreSQL publishes a backend's counts of
//! changed rows at most once a second, and many writes share one look), then analyses each table
//! whose rows changed since its last `ANALYZE` by more than autovacuum's threshold (the server's
//! `autovacuum_analyze_threshold` + `autovacuum_analyze_scale_factor` × its rows: 50 + 10 % by
//! default). The counts are the server's, so the writes of every instance count, and an
//! analysis by any instance, or by autovacuum, resets them. Writes pay one wake-up (no query);
//! an idle instance makes no queries; `ANALYZE` reads a bounded sample (30,000 rows at the
//! default statistics target) and takes a lock that blocks no reads or writes, and `SKIP_LOCKED`
//! leaves a table that another instance is analysing to it.

use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// How long after a write the tables are looked at, and at least how long between two looks.
pub const PACE: Duration = Duration::from_secs(1);

/// The tables whose rows changed by more than autovacuum's analyse threshold since their last
/// `ANALYZE`, as qualified, quoted names.
const STALE_TABLES: &str = "SELECT quote_ident(s.schemaname) || '.' || quote_ident(s.relname) \
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid \
     WHERE s.schemaname = current_schema() \
       AND s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8 \
           + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0) \
     ORDER BY s.relname";

/// Wakes the task that analyses the tables bulk writes changed (see the module's comment).
#[derive(Clone)]
pub struct Statistics {
    wake: Arc<Notify>,
}

impl Statistics {
    /// Starts the task that keeps `pool`'s tables analysed; it ends when the pool is closed.
    pub fn start(pool: PgPool) -> Statistics {
        let wake = Arc::new(Notify::new());
        tokio::spawn(keep_analysed(pool, wake.clone()));
        Statistics { wake }
    }

    /// Rows were written: the tables are looked at within [`PACE`] or so. Costs no query.
    pub fn wrote(&self) {
        self.wake.notify_one();
    }
}

async fn keep_analysed(pool: PgPool, wake: Arc<Notify>) {
    loop {
        // A write since the last look left a permit: one look covers every write before it.
        wake.notified().await;
        tokio::time::sleep(PACE).await;
        if pool.is_closed() {
            return;
        }
        match analyse_stale(&pool).await {
            Ok(tables) if !tables.is_empty() => tracing::debug!(?tables, "analysed"),
            Ok(_) => {}
            // The pool closing under a look is shutdown; anything else waits for the next write.
            Err(_) if pool.is_closed() => return,
            Err(e) => tracing::warn!(error = %e, "keeping the planner's statistics"),
        }
    }
}

/// Analyses every table over its threshold; the tables analysed.
pub async fn analyse_stale(pool: &PgPool) -> Result<Vec<String>, sqlx::Error> {
    let tables: Vec<String> = sqlx::query_scalar(STALE_TABLES).fetch_all(pool).await?;
    for table in &tables {
        // The name is PostgreSQL's own, quoted by quote_ident.
        let analyse = format!("ANALYZE (SKIP_LOCKED) {table}");
        sqlx::raw_sql(sqlx::AssertSqlSafe(analyse))
            .execute(pool)
            .await?;
    }
    Ok(tables)
}
