//! The planner's statistics after a bulk write, over HTTP on the service's backend
//! (`TEST_DATABASE=postgres` for PostgreSQL): assets created one after another, as an import
//! does, and list assets planned on its index right after, without waiting for autovacuum.

use crate::support;

use futures_util::StreamExt;
use std::time::{Duration, Instant};
use support::{Backend, asset_input, started};

/// Enough rows that a plan for a nearly empty table (a scan of the whole account and a sort)
/// differs from the plan for the table as it is (the first page off the listing index).
const ASSETS: usize = 1500;

/// List assets' statement, as the store writes it, with the root account's id for both accounts.
fn list_assets(root: uuid::Uuid, postgres: bool) -> String {
    let (id, limit) = if postgres {
        (format!("'{root}'::uuid"), "LIMIT 50 OFFSET 0")
    } else {
        (format!("'{root}'"), "LIMIT 50 + 0 OFFSET 0 + 0")
    };
    format!(
        "WITH RECURSIVE chain (id, parent_id) AS ( \
             SELECT id, parent_id FROM accounts WHERE id = {id} \
             UNION ALL SELECT a.id, a.parent_id FROM accounts a JOIN chain c ON a.id = c.parent_id \
         ) SELECT * FROM assets WHERE account_id = {id} AND (CAST(NULL AS TEXT) IS NULL OR external_id = NULL) \
         AND (CAST(NULL AS TEXT) IS NULL OR device_id = NULL) AND (false OR is_deleted = false) \
         AND EXISTS (SELECT 1 FROM chain WHERE id = {id}) ORDER BY external_id, id {limit}"
    )
}

#[tokio::test]
async fn list_assets_is_planned_on_its_index_right_after_a_bulk_import() {
    let (dir, service) = started().await;
    let client = service.root_client();
    let root = service.root;
    let started_at = Instant::now();
    let mut pending = futures_util::stream::iter((0..ASSETS).map(|i| {
        let client = &client;
        async move {
            client
                .create_asset(root, asset_input(&format!("asset-{i:05}")))
                .send()
                .await
                .unwrap();
        }
    }))
    .buffer_unordered(8);
    while pending.next().await.is_some() {}
    let imported = started_at.elapsed();
    let db = dir.path().join("service.db");
    match support::service_backend() {
        Backend::Postgres => {
            let pool = sqlx::PgPool::connect(&support::database_url(&db))
                .await
                .unwrap();
            // The service analyses within a second or two of the writes; autovacuum's round is a
            // minute away, and `last_analyze` is set by a manual ANALYZE only, not by autovacuum.
            let deadline = Instant::now() + Duration::from_secs(20);
            // Statistics as autovacuum's threshold keeps them: within 50 + 10 % of the rows. An
            // ANALYZE in the middle of a fast import sees part of it; the rows written after it
            // pass the threshold again, so a later one must follow.
            let enough = ASSETS as f32 * 0.9 - 50.0;
            let (plan, rows) = loop {
                let analysed: Option<chrono::DateTime<chrono::Utc>> = sqlx::query_scalar(
                    "SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'assets'",
                )
                .fetch_one(&pool)
                .await
                .unwrap();
                let rows: f32 =
                    sqlx::query_scalar("SELECT reltuples FROM pg_class WHERE relname = 'assets'")
                        .fetch_one(&pool)
                        .await
                        .unwrap();
                let plan: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "EXPLAIN {}",
                    list_assets(root, true)
                )))
                .fetch_all(&pool)
                .await
                .unwrap();
                let plan = plan.join("\n");
                if analysed.is_some()
                    && rows >= enough
                    && plan.contains("assets_listing")
                    && !plan.contains("Sort")
                {
                    break (plan, rows);
                }
                assert!(
                    Instant::now() < deadline,
                    "assets not analysed 20 s after {ASSETS} inserts (analysed: {analysed:?}, {rows} rows in the statistics); plan:\n{plan}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            };
            println!(
                "{ASSETS} assets imported in {imported:?}, analysed by {:?} ({rows} rows in the statistics); plan:\n{plan}",
                started_at.elapsed()
            );
            pool.close().await;
        }
        Backend::Sqlite => {
            service.stop().await;
            let conn = rusqlite::Connection::open(&db).unwrap();
            let sql = format!("EXPLAIN QUERY PLAN {}", list_assets(root, false));
            let mut statement = conn.prepare(&sql).unwrap();
            let plan: Vec<String> = statement
                .query_map([], |row| row.get::<_, String>(3))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let plan = plan.join("\n");
            println!("SQLite, {ASSETS} assets, plan:\n{plan}");
            // SQLite plans without statistics, on the listing index, in listing order (no
            // temporary B-tree for the ORDER BY), and none were gathered to go stale.
            assert!(plan.contains("USING INDEX assets_listing"), "{plan}");
            assert!(!plan.contains("TEMP B-TREE"), "{plan}");
            let stats: i64 = conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(stats, 0, "statistics were gathered");
            return;
        }
    }
    service.stop().await;
}
