//! Ingestion over SQLite. Jobs queue for the one writer and are written in one `BEGIN
//! IMMEDIATE` transaction per group (group commit): SQLite has one writer, so batches of one
//! asset never interleave, and a crash keeps all of a job or none of it.

use super::SqliteStore;
use crate::store::alerts::IngestJob;
use crate::store::sql::Conn;
use crate::store::telemetry::ingest_in;
use crate::store::{StoreError, StoreResult};
use sqlx::{Connection, SqliteConnection};
use tokio::sync::oneshot;

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
            Ok(mut savepoint) => match ingest_in(&mut Conn::Sqlite(&mut savepoint), &job).await {
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

impl SqliteStore {
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
        let outcome = write_jobs(&mut writer, jobs).await;
        if let Err(e) = outcome {
            tracing::error!(error = %e, "telemetry transaction failed");
        }
        result
            .await
            .unwrap_or_else(|_| Err(StoreError::Failed("the transaction was abandoned".into())))
    }
}
