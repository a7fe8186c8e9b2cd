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
use crate::store::StoreResult;
use crate::store::alerts::IngestJob;
use crate::store::sql::{Conn, args, retried};
use crate::store::telemetry::ingest_in;
use uuid::Uuid;

impl PgStore {
    pub(crate) async fn ingest(&self, job: &IngestJob) -> StoreResult<Vec<Vec<bool>>> {
        retried(|| async {
            let mut tx = self.pool.begin().await?;
            let fresh = ingest_in(&mut Conn::Postgres(&mut tx), job).await?;
            tx.commit().await?;
            self.wrote();
            Ok(fresh)
        })
        .await
    }
}

/// `FOR KEY SHARE` on the job's accounts and their ancestors, in id order (see above).
pub(crate) async fn lock_accounts(c: &mut Conn<'_>, job: &IngestJob) -> StoreResult<()> {
    if let Conn::Postgres(_) = c {
        let mut accounts: Vec<Uuid> = job.batches.iter().map(|b| b.asset.account_id).collect();
        accounts.sort();
        accounts.dedup();
        c.run(
            "WITH RECURSIVE chain (id, parent_id) AS ( \
                 SELECT id, parent_id FROM accounts WHERE id = ANY($1) \
                 UNION SELECT a.id, a.parent_id FROM accounts a JOIN chain c ON a.id = c.parent_id \
             ) SELECT id FROM accounts WHERE id IN (SELECT id FROM chain) ORDER BY id FOR KEY SHARE",
            args![&accounts],
        )
        .await?;
    }
    Ok(())
}
