//! The store the service runs on, chosen by `DATABASE_URL`: SQLite (embedded, the default) or
//! PostgreSQL (`postgres://...`, shared by several instances). [`Store`](super::Store) and
//! [`AlertStore`](super::AlertStore) are implemented once, for this type (`catalog.rs`,
//! `alerting.rs`); the backend in use is told apart here, where a connection is taken, and in
//! the few operations that differ by more than spelling (`sqlite/`, `postgres/`).

use super::StoreResult;
use super::postgres::{PgSettings, PgStore, StartupLock};
use super::sql::{Arg, Held, Map, Statement};
use super::sqlite::{Readers, SqliteStore};

#[derive(Clone)]
pub enum Database {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

/// Whether `url` names a PostgreSQL database.
pub fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// `url` without its password, for logs.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.rsplit_once('@') {
        Some((credentials, host)) => {
            let user = credentials.split(':').next().unwrap_or_default();
            let hidden = if credentials.contains(':') {
                ":***"
            } else {
                ""
            };
            format!("{scheme}://{user}{hidden}@{host}")
        }
        None => url.to_owned(),
    }
}

impl Database {
    /// Opens the database `url` names and brings its schema up to date.
    pub async fn open(url: &str, postgres: &PgSettings) -> anyhow::Result<Database> {
        Ok(if is_postgres(url) {
            Database::Postgres(PgStore::open(url, postgres).await?)
        } else {
            Database::Sqlite(SqliteStore::open(url).await?)
        })
    }

    pub async fn close(&self) {
        match self {
            Database::Sqlite(store) => store.close().await,
            Database::Postgres(store) => store.close().await,
        }
    }

    /// Held across first-start work, so that instances starting at once do it once. SQLite has
    /// one process: nothing to hold.
    pub async fn startup_lock(&self) -> StoreResult<Option<StartupLock>> {
        match self {
            Database::Sqlite(_) => Ok(None),
            Database::Postgres(store) => store.startup_lock().await.map(Some),
        }
    }

    /// The database answers (for `/healthz`).
    pub async fn ping(&self) -> StoreResult<()> {
        self.one("SELECT 1 AS n", &[], super::rows::count)
            .await
            .map(|_| ())
    }

    pub fn backend(&self) -> &'static str {
        match self {
            Database::Sqlite(_) => "sqlite",
            Database::Postgres(_) => "postgres",
        }
    }

    /// A connection of the pool.
    pub(crate) async fn held(&self) -> StoreResult<Held> {
        Ok(match self {
            Database::Sqlite(store) => Held::Sqlite(store.pool.acquire().await?),
            Database::Postgres(store) => Held::Postgres(store.pool.acquire().await?),
        })
    }

    /// The connection of writes that go one at a time on SQLite (its one writer, whose
    /// transactions queue instead of polling SQLite's busy handler); on PostgreSQL any
    /// connection of the pool, the rows' locks ordering the writers.
    pub(crate) async fn writer(&self) -> StoreResult<Held> {
        Ok(match self {
            Database::Sqlite(store) => Held::Writer(store.writer.clone().lock_owned().await),
            Database::Postgres(store) => Held::Postgres(store.pool.acquire().await?),
        })
    }

    /// SQLite's request-path readers (GET and list assets), when the database is a file.
    pub(crate) fn readers(&self) -> Option<&Readers> {
        match self {
            Database::Sqlite(store) => store.readers.as_deref(),
            Database::Postgres(_) => None,
        }
    }

    /// Runs one statement on a connection of the pool; how many rows it changed.
    pub(crate) async fn run(
        &self,
        sql: impl Into<Statement>,
        args: &[Arg<'_>],
    ) -> StoreResult<u64> {
        let changed = self.held().await?.conn().run(sql, args).await?;
        if changed > 0 {
            self.wrote();
        }
        Ok(changed)
    }

    /// Rows were written (one at a time, such as assets created one by one, or in bulk, such as
    /// telemetry): on PostgreSQL the tables that changed much are analysed soon after
    /// (`postgres/statistics.rs`). SQLite needs nothing: without statistics its planner takes
    /// the indexes the statements are written for, whatever the tables' sizes, while statistics
    /// gathered early would go stale as tables grow (see the service README).
    pub(crate) fn wrote(&self) {
        if let Database::Postgres(store) = self {
            store.wrote();
        }
    }

    pub(crate) async fn all<T>(
        &self,
        sql: impl Into<Statement>,
        args: &[Arg<'_>],
        map: Map<T>,
    ) -> StoreResult<Vec<T>> {
        self.held().await?.conn().all(sql, args, map).await
    }

    pub(crate) async fn opt<T>(
        &self,
        sql: impl Into<Statement>,
        args: &[Arg<'_>],
        map: Map<T>,
    ) -> StoreResult<Option<T>> {
        self.held().await?.conn().opt(sql, args, map).await
    }

    pub(crate) async fn one<T>(
        &self,
        sql: impl Into<Statement>,
        args: &[Arg<'_>],
        map: Map<T>,
    ) -> StoreResult<T> {
        self.held().await?.conn().one(sql, args, map).await
    }
}

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn passwords_stay_out_of_logs() {
        assert_eq!(
            redacted("postgres://alert:s3cr@t@db:5432/alerting"),
            "postgres://alert:***@db:5432/alerting"
        );
        assert_eq!(
            redacted("postgres://alert@db/alerting"),
            "postgres://alert@db/alerting"
        );
        assert_eq!(redacted("sqlite://data/a.db"), "sqlite://data/a.db");
    }
}
