//! The dialect layer: the one place where SQLite and PostgreSQL differ in how a statement is
//! spelled and how values travel. Everything above it writes each statement once.
//!
//! - Placeholders are `$1`, `$2`... in both (sqlx binds SQLite's `$N` by number, and so does
//!   [`bind_numbered`] for the request-path readers).
//! - Values go in as [`Arg`]s: ids are `uuid` on PostgreSQL and text on SQLite, instants are
//!   `timestamptz` and RFC 3339 text (fixed precision, so text order is time order), lists are
//!   arrays and JSON arrays.
//! - Values come out through [`Columns`], read by column name the same way from either
//!   backend's rows (and from rusqlite's), so each entity has one row mapper (`rows.rs`).
//! - The few spellings that differ (list membership, row locks, case-insensitive LIKE) are
//!   bracketed parts of [`sql!`].
//!
//! `RETURNING`, `ON CONFLICT ... DO UPDATE SET x = excluded.x`, `WITH RECURSIVE`, `CAST` and
//! window functions are spelled alike in both and need nothing here.

use super::{StoreError, StoreResult};
use asset_alerting_models::Asset;
use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::pool::PoolConnection;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{Connection, PgConnection, Postgres, Row, Sqlite, SqliteConnection, Transaction};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::future::Future;
use uuid::Uuid;

/// A statement as each dialect spells it (most are the same text).
#[derive(Debug, Clone, Copy)]
pub struct Sql {
    pub sqlite: &'static str,
    pub postgres: &'static str,
}

impl From<&'static str> for Sql {
    fn from(text: &'static str) -> Sql {
        Sql {
            sqlite: text,
            postgres: text,
        }
    }
}

/// A statement written once for both dialects: string literals are the same in both; a
/// bracketed part is one of the spellings that differ:
/// - `[any N]`: membership in the list bound at `$N` (`= ANY($N)` on PostgreSQL; the JSON
///   array read with `json_each` on SQLite);
/// - `[list N]`: the list bound at `$N` as a table `list (value)`;
/// - `[for_update]`: a row lock (PostgreSQL; SQLite's writes go one at a time anyway);
/// - `[ilike]`: LIKE that folds ASCII case (SQLite's LIKE does; on "C"-collated text
///   PostgreSQL's ILIKE does the same);
/// - `{"sqlite text", "postgres text"}`: anything else that differs (kept to a few words).
macro_rules! sql {
    (@sqlite [any $n:literal]) => { concat!("IN (SELECT value FROM json_each($", $n, "))") };
    (@postgres [any $n:literal]) => { concat!("= ANY($", $n, ")") };
    (@sqlite [list $n:literal]) => { concat!("json_each($", $n, ") AS list") };
    (@postgres [list $n:literal]) => { concat!("UNNEST($", $n, ") AS list (value)") };
    (@sqlite [for_update]) => { "" };
    (@postgres [for_update]) => { " FOR UPDATE" };
    (@sqlite [ilike]) => { "LIKE" };
    (@postgres [ilike]) => { "ILIKE" };
    (@sqlite {$sqlite:literal, $postgres:literal}) => { $sqlite };
    (@postgres {$sqlite:literal, $postgres:literal}) => { $postgres };
    (@$dialect:ident $text:literal) => { $text };
    ($($part:tt)+) => {
        $crate::store::sql::Sql {
            sqlite: concat!($($crate::store::sql::sql!(@sqlite $part)),+),
            postgres: concat!($($crate::store::sql::sql!(@postgres $part)),+),
        }
    };
}
pub(crate) use sql;

/// A value bound to a statement.
#[derive(Debug, Clone)]
pub enum Arg<'a> {
    Id(Option<Uuid>),
    Ids(&'a [Uuid]),
    Texts(&'a [String]),
    Text(Option<&'a str>),
    Owned(Option<String>),
    Int(Option<i64>),
    Float(Option<f64>),
    Bool(bool),
    Time(Option<DateTime<Utc>>),
}

/// `&[Arg]` of the values, in placeholder order.
macro_rules! args {
    ($($value:expr),* $(,)?) => {
        &[$($crate::store::sql::Arg::from($value)),*][..]
    };
}
pub(crate) use args;

macro_rules! arg_from {
    ($($from:ty => |$v:ident| $to:expr;)*) => {
        $(impl<'a> From<$from> for Arg<'a> {
            fn from($v: $from) -> Arg<'a> {
                $to
            }
        })*
    };
}

arg_from! {
    Uuid => |v| Arg::Id(Some(v));
    Option<Uuid> => |v| Arg::Id(v);
    &'a [Uuid] => |v| Arg::Ids(v);
    &'a Vec<Uuid> => |v| Arg::Ids(v);
    &'a [String] => |v| Arg::Texts(v);
    &'a str => |v| Arg::Text(Some(v));
    &'a String => |v| Arg::Text(Some(v));
    Option<&'a str> => |v| Arg::Text(v);
    &'a Option<String> => |v| Arg::Text(v.as_deref());
    String => |v| Arg::Owned(Some(v));
    Option<String> => |v| Arg::Owned(v);
    i64 => |v| Arg::Int(Some(v));
    i32 => |v| Arg::Int(Some(v.into()));
    Option<i32> => |v| Arg::Int(v.map(Into::into));
    Option<f64> => |v| Arg::Float(v);
    bool => |v| Arg::Bool(v);
    DateTime<Utc> => |v| Arg::Time(Some(v));
    Option<DateTime<Utc>> => |v| Arg::Time(v);
}

/// An instant as SQLite stores it: RFC 3339 in UTC to the microsecond.
pub fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn parse_ts(s: &str) -> StoreResult<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt(format!("timestamp {s}: {e}")))
}

fn parse_uuid(s: &str) -> StoreResult<Uuid> {
    Uuid::parse_str(s).map_err(|e| StoreError::Corrupt(format!("uuid {s}: {e}")))
}

fn list_json<T: serde::Serialize>(list: &[T]) -> String {
    serde_json::to_string(list).expect("ids and strings serialize")
}

type SqliteQuery = sqlx::query::Query<'static, Sqlite, <Sqlite as sqlx::Database>::Arguments>;
type PgQuery = sqlx::query::Query<'static, Postgres, <Postgres as sqlx::Database>::Arguments>;

fn sqlite_query(sql: impl sqlx::SqlSafeStr, args: &[Arg<'_>]) -> SqliteQuery {
    args.iter().fold(sqlx::query(sql), |q, arg| match arg {
        Arg::Id(v) => q.bind(v.map(|v| v.to_string())),
        Arg::Ids(v) => q.bind(list_json(v)),
        Arg::Texts(v) => q.bind(list_json(v)),
        Arg::Text(v) => q.bind(*v),
        Arg::Owned(v) => q.bind(v.as_deref()),
        Arg::Int(v) => q.bind(*v),
        Arg::Float(v) => q.bind(*v),
        Arg::Bool(v) => q.bind(*v),
        Arg::Time(v) => q.bind(v.map(ts)),
    })
}

fn pg_query(sql: impl sqlx::SqlSafeStr, args: &[Arg<'_>]) -> PgQuery {
    args.iter().fold(sqlx::query(sql), |q, arg| match arg {
        Arg::Id(v) => q.bind(*v),
        Arg::Ids(v) => q.bind(*v),
        Arg::Texts(v) => q.bind(*v),
        Arg::Text(v) => q.bind(*v),
        Arg::Owned(v) => q.bind(v.as_deref()),
        Arg::Int(v) => q.bind(*v),
        Arg::Float(v) => q.bind(*v),
        Arg::Bool(v) => q.bind(*v),
        Arg::Time(v) => q.bind(*v),
    })
}

/// Binds `args` to a rusqlite statement by placeholder number, as sqlx does (`$N` is the Nth).
pub fn bind_numbered(statement: &mut rusqlite::Statement<'_>, args: &[Arg<'_>]) -> StoreResult<()> {
    use rusqlite::types::Null;
    for index in 1..=statement.parameter_count() {
        let number = statement
            .parameter_name(index)
            .and_then(|name| name.strip_prefix('$'))
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| StoreError::Invalid(format!("placeholder {index} is not $N")))?;
        // Text is bound borrowed, without a copy (an id from a buffer on the stack).
        match args.get(number - 1) {
            None => statement.raw_bind_parameter(index, Null)?,
            Some(arg) => match arg {
                Arg::Id(v) => {
                    let mut buffer = Uuid::encode_buffer();
                    let v = v.map(|v| &*v.hyphenated().encode_lower(&mut buffer));
                    statement.raw_bind_parameter(index, v)?
                }
                Arg::Ids(v) => statement.raw_bind_parameter(index, list_json(v))?,
                Arg::Texts(v) => statement.raw_bind_parameter(index, list_json(v))?,
                Arg::Text(v) => statement.raw_bind_parameter(index, *v)?,
                Arg::Owned(v) => statement.raw_bind_parameter(index, v.as_deref())?,
                Arg::Int(v) => statement.raw_bind_parameter(index, v)?,
                Arg::Float(v) => statement.raw_bind_parameter(index, v)?,
                Arg::Bool(v) => statement.raw_bind_parameter(index, i64::from(*v))?,
                Arg::Time(v) => statement.raw_bind_parameter(index, v.map(ts))?,
            },
        }
    }
    Ok(())
}

/// A row's columns by name, the same way from every backend. Names are literals (`&'static str`),
/// which lets SQLite's reader know a name again by its address (see [`ColumnNames`]).
pub trait Columns {
    fn opt_str(&self, column: &'static str) -> StoreResult<Option<&str>>;
    fn opt_int(&self, column: &'static str) -> StoreResult<Option<i64>>;
    fn opt_float(&self, column: &'static str) -> StoreResult<Option<f64>>;
    fn flag(&self, column: &'static str) -> StoreResult<bool>;
    fn opt_id(&self, column: &'static str) -> StoreResult<Option<Uuid>>;
    fn opt_time(&self, column: &'static str) -> StoreResult<Option<DateTime<Utc>>>;

    fn str(&self, column: &'static str) -> StoreResult<&str> {
        self.opt_str(column)?.ok_or_else(|| null(column))
    }
    fn text(&self, column: &'static str) -> StoreResult<String> {
        self.str(column).map(str::to_owned)
    }
    fn opt_text(&self, column: &'static str) -> StoreResult<Option<String>> {
        Ok(self.opt_str(column)?.map(str::to_owned))
    }
    fn int(&self, column: &'static str) -> StoreResult<i64> {
        self.opt_int(column)?.ok_or_else(|| null(column))
    }
    fn id(&self, column: &'static str) -> StoreResult<Uuid> {
        self.opt_id(column)?.ok_or_else(|| null(column))
    }
    fn time(&self, column: &'static str) -> StoreResult<DateTime<Utc>> {
        self.opt_time(column)?.ok_or_else(|| null(column))
    }
}

fn null(column: &str) -> StoreError {
    StoreError::Corrupt(format!("column {column} is null"))
}

/// What reads alike from both sqlx rows; ids and instants are read per backend.
macro_rules! sqlx_columns {
    () => {
        fn opt_str(&self, column: &'static str) -> StoreResult<Option<&str>> {
            Ok(self.try_get(column)?)
        }
        fn opt_float(&self, column: &'static str) -> StoreResult<Option<f64>> {
            Ok(self.try_get(column)?)
        }
        fn flag(&self, column: &'static str) -> StoreResult<bool> {
            Ok(self.try_get(column)?)
        }
    };
}

impl Columns for SqliteRow {
    sqlx_columns!();
    fn opt_int(&self, column: &'static str) -> StoreResult<Option<i64>> {
        Ok(self.try_get(column)?)
    }
    fn opt_id(&self, column: &'static str) -> StoreResult<Option<Uuid>> {
        self.opt_str(column)?.map(parse_uuid).transpose()
    }
    fn opt_time(&self, column: &'static str) -> StoreResult<Option<DateTime<Utc>>> {
        self.opt_str(column)?.map(parse_ts).transpose()
    }
}

impl Columns for PgRow {
    sqlx_columns!();
    fn opt_int(&self, column: &'static str) -> StoreResult<Option<i64>> {
        // Counts and bigint columns are int8; tiers, event types and positions int4.
        Ok(match self.try_get::<Option<i64>, _>(column) {
            Ok(v) => v,
            Err(_) => self.try_get::<Option<i32>, _>(column)?.map(i64::from),
        })
    }
    fn opt_id(&self, column: &'static str) -> StoreResult<Option<Uuid>> {
        Ok(self.try_get(column)?)
    }
    fn opt_time(&self, column: &'static str) -> StoreResult<Option<DateTime<Utc>>> {
        Ok(self.try_get(column)?)
    }
}

/// A statement's column names, and where a row mapper found the columns it asked for, in the
/// order it asked. A mapper asks for the same columns in the same order on every row, so from
/// the second row on its n-th lookup is answered by the index the first row's n-th lookup found,
/// after checking that it is the same name by address: names are `&'static str`, so one address
/// and length is one name, and no row after the first compares any text. A mapper that asks in
/// another order is still answered, by a search of the names.
pub struct ColumnNames {
    names: Vec<String>,
    found: RefCell<Vec<(&'static str, usize)>>,
}

impl ColumnNames {
    /// The column names of `statement` (looked up once per statement).
    pub fn of(statement: &rusqlite::Statement<'_>) -> ColumnNames {
        ColumnNames {
            names: statement
                .column_names()
                .into_iter()
                .map(str::to_owned)
                .collect(),
            found: RefCell::new(Vec::with_capacity(statement.column_count())),
        }
    }

    /// The index of `column`, asked for as a row's `nth` lookup.
    fn index(&self, nth: usize, column: &'static str) -> Option<usize> {
        if let Some(&(asked, index)) = self.found.borrow().get(nth)
            && std::ptr::eq(asked, column)
        {
            return Some(index);
        }
        let index = self.names.iter().position(|name| name == column)?;
        let mut found = self.found.borrow_mut();
        if found.len() == nth {
            found.push((column, index));
        }
        Some(index)
    }
}

/// A rusqlite row with its statement's column names.
pub struct EmbeddedRow<'a> {
    pub row: &'a rusqlite::Row<'a>,
    pub columns: &'a ColumnNames,
    /// How many columns the mapper has asked this row for so far.
    pub asked: Cell<usize>,
}

impl EmbeddedRow<'_> {
    fn value(&self, column: &'static str) -> StoreResult<rusqlite::types::ValueRef<'_>> {
        let nth = self.asked.get();
        self.asked.set(nth + 1);
        let index = self
            .columns
            .index(nth, column)
            .ok_or_else(|| StoreError::Corrupt(format!("no column {column}")))?;
        Ok(self.row.get_ref(index)?)
    }
}

fn embedded<T>(column: &str, value: rusqlite::types::FromSqlResult<T>) -> StoreResult<T> {
    value.map_err(|e| StoreError::Corrupt(format!("column {column}: {e}")))
}

impl Columns for EmbeddedRow<'_> {
    fn opt_str(&self, column: &'static str) -> StoreResult<Option<&str>> {
        embedded(column, self.value(column)?.as_str_or_null())
    }
    fn opt_int(&self, column: &'static str) -> StoreResult<Option<i64>> {
        embedded(column, self.value(column)?.as_i64_or_null())
    }
    fn opt_float(&self, column: &'static str) -> StoreResult<Option<f64>> {
        embedded(column, self.value(column)?.as_f64_or_null())
    }
    fn flag(&self, column: &'static str) -> StoreResult<bool> {
        Ok(self.int(column)? != 0)
    }
    fn opt_id(&self, column: &'static str) -> StoreResult<Option<Uuid>> {
        self.opt_str(column)?.map(parse_uuid).transpose()
    }
    fn opt_time(&self, column: &'static str) -> StoreResult<Option<DateTime<Utc>>> {
        self.opt_str(column)?.map(parse_ts).transpose()
    }
}

/// How a row becomes a value: one mapper per entity, in `rows.rs`.
pub type Map<T> = fn(&dyn Columns) -> StoreResult<T>;

/// A connection of either backend, running statements spelled for both.
pub enum Conn<'c> {
    Sqlite(&'c mut SqliteConnection),
    Postgres(&'c mut PgConnection),
}

/// A statement to run: spelled for each dialect, or built at run time (many rows at once) with
/// `?` placeholders, which SQLite takes as they are and PostgreSQL as `$1`, `$2`... in order.
/// SQLite keeps named and numbered placeholders (`$N`, `?N`) in a list it searches for each one,
/// which in a statement of thousands made ingestion half as fast.
pub enum Statement {
    Fixed(Sql),
    Built(String),
}

impl From<Sql> for Statement {
    fn from(sql: Sql) -> Statement {
        Statement::Fixed(sql)
    }
}

impl From<&'static str> for Statement {
    fn from(text: &'static str) -> Statement {
        Statement::Fixed(text.into())
    }
}

impl From<String> for Statement {
    fn from(text: String) -> Statement {
        Statement::Built(text)
    }
}

impl Statement {
    fn spelled(self, postgres: bool) -> sqlx::AssertSqlSafe<Cow<'static, str>> {
        sqlx::AssertSqlSafe(match self {
            Statement::Fixed(sql) if postgres => Cow::Borrowed(sql.postgres),
            Statement::Fixed(sql) => Cow::Borrowed(sql.sqlite),
            Statement::Built(text) if postgres => Cow::Owned(numbered(&text)),
            Statement::Built(text) => Cow::Owned(text),
        })
    }
}

/// `text` with its `?`s numbered on: `$1`, `$2`...
fn numbered(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (n, part) in text.split('?').enumerate() {
        if n > 0 {
            out.push('$');
            out.push_str(&n.to_string());
        }
        out.push_str(part);
    }
    out
}

impl Conn<'_> {
    /// Runs a statement; how many rows it changed.
    pub async fn run(&mut self, sql: impl Into<Statement>, args: &[Arg<'_>]) -> StoreResult<u64> {
        let sql = sql.into();
        Ok(match self {
            Conn::Sqlite(c) => sqlite_query(sql.spelled(false), args)
                .execute(&mut **c)
                .await?
                .rows_affected(),
            Conn::Postgres(c) => pg_query(sql.spelled(true), args)
                .execute(&mut **c)
                .await?
                .rows_affected(),
        })
    }

    /// The rows of a statement, each through `map`.
    pub async fn all<T>(
        &mut self,
        sql: impl Into<Statement>,
        args: &[Arg<'_>],
        map: Map<T>,
    ) -> StoreResult<Vec<T>> {
        let sql = sql.into();
        match self {
            Conn::Sqlite(c) => {
                let rows = sqlite_query(sql.spelled(false), args)
                    .fetch_all(&mut **c)
                    .await?;
                rows.iter().map(|r| map(r)).collect()
            }
            Conn::Postgres(c) => {
                let rows = pg_query(sql.spelled(true), args)
                    .fetch_all(&mut **c)
                    .await?;
                rows.iter().map(|r| map(r)).collect()
            }
        }
    }

    /// The first row of a statement, if any (statements here answer one row at most).
    pub async fn opt<T>(
        &mut self,
        sql: impl Into<Statement>,
        args: &[Arg<'_>],
        map: Map<T>,
    ) -> StoreResult<Option<T>> {
        Ok(self.all(sql, args, map).await?.into_iter().next())
    }

    /// The row of a statement that always answers one.
    pub async fn one<T>(
        &mut self,
        sql: impl Into<Statement>,
        args: &[Arg<'_>],
        map: Map<T>,
    ) -> StoreResult<T> {
        self.opt(sql, args, map)
            .await?
            .ok_or_else(|| StoreError::Corrupt("a statement returned no row".to_owned()))
    }
}

/// A connection taken for a while: from a pool, or SQLite's one writer.
pub enum Held {
    Sqlite(PoolConnection<Sqlite>),
    Writer(tokio::sync::OwnedMutexGuard<SqliteConnection>),
    Postgres(PoolConnection<Postgres>),
}

impl Held {
    pub fn conn(&mut self) -> Conn<'_> {
        match self {
            Held::Sqlite(c) => Conn::Sqlite(c),
            Held::Writer(c) => Conn::Sqlite(c),
            Held::Postgres(c) => Conn::Postgres(c),
        }
    }

    /// A transaction; on SQLite's writer `BEGIN IMMEDIATE`, which takes the write lock first (a
    /// deferred transaction that reads, then writes, can fail at its first write).
    pub async fn begin(&mut self) -> StoreResult<Tx<'_>> {
        Ok(match self {
            Held::Sqlite(c) => Tx::Sqlite(c.begin().await?),
            Held::Writer(c) => Tx::Sqlite(c.begin_with("BEGIN IMMEDIATE").await?),
            Held::Postgres(c) => Tx::Postgres(c.begin().await?),
        })
    }
}

/// A transaction of either backend; rolled back when dropped uncommitted.
pub enum Tx<'c> {
    Sqlite(Transaction<'c, Sqlite>),
    Postgres(Transaction<'c, Postgres>),
}

impl Tx<'_> {
    pub fn conn(&mut self) -> Conn<'_> {
        match self {
            Tx::Sqlite(tx) => Conn::Sqlite(tx),
            Tx::Postgres(tx) => Conn::Postgres(tx),
        }
    }

    /// The rest of the transaction reads one snapshot. A SQLite transaction always does; a
    /// PostgreSQL one under READ COMMITTED sees each statement's own.
    pub async fn snapshot(&mut self) -> StoreResult<()> {
        if let Tx::Postgres(tx) = self {
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(&mut **tx)
                .await?;
        }
        Ok(())
    }

    pub async fn commit(self) -> StoreResult<()> {
        match self {
            Tx::Sqlite(tx) => tx.commit().await?,
            Tx::Postgres(tx) => tx.commit().await?,
        }
        Ok(())
    }
}

/// A write that breaks the one-externalId-per-account rule is a conflict, not a database failure.
pub fn external_id_conflict(
    result: StoreResult<u64>,
    what: &str,
    external_id: &str,
) -> StoreResult<u64> {
    result.map_err(|e| match e {
        StoreError::Database(sqlx::Error::Database(d)) if d.is_unique_violation() => {
            StoreError::Conflict(format!(
                "{what} with externalId `{external_id}` already exists in this account"
            ))
        }
        other => other,
    })
}

/// A write of `asset` that breaks a uniqueness rule: its deviceId in the whole service (said
/// without naming the account that holds it), else its externalId in the account.
pub fn asset_conflict(result: StoreResult<u64>, asset: &Asset) -> StoreResult<u64> {
    match (result, &asset.device_id) {
        // Both databases name the violated index or column in the message.
        (Err(StoreError::Database(sqlx::Error::Database(d))), Some(device))
            if d.is_unique_violation() && d.message().contains("device_id") =>
        {
            Err(StoreError::Conflict(format!(
                "another asset has deviceId `{device}`"
            )))
        }
        (result, _) => external_id_conflict(result, "an asset", &asset.external_id),
    }
}

/// Runs `attempt` again (up to three times in all) when PostgreSQL aborted it to break a
/// deadlock or a serialization conflict; such a transaction can be run again as it is.
pub async fn retried<T, F: Future<Output = StoreResult<T>>>(
    mut attempt: impl FnMut() -> F,
) -> StoreResult<T> {
    let mut tries = 1;
    loop {
        match attempt().await {
            Err(StoreError::Database(sqlx::Error::Database(d)))
                if tries < 3 && matches!(d.code().as_deref(), Some("40P01" | "40001")) =>
            {
                tries += 1
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn built_statements_are_numbered_for_postgres() {
        assert_eq!(
            super::numbered("INSERT INTO t VALUES (?, 'x', ?), (?, 'x', ?)"),
            "INSERT INTO t VALUES ($1, 'x', $2), ($3, 'x', $4)"
        );
    }

    /// Rows read by name through [`super::ColumnNames`]: in the order of the first row, in
    /// another order, a column asked twice, one missing, and every kind of argument bound.
    #[test]
    fn embedded_rows_read_by_name_in_any_order() {
        use super::{Arg, ColumnNames, Columns, EmbeddedRow, bind_numbered};
        let id = uuid::Uuid::new_v4();
        let connection = rusqlite::Connection::open_in_memory().unwrap();
        let mut statement = connection
            .prepare(
                "SELECT $1 AS id, $2 AS name, $3 AS n, $4 AS flag, $5 AS missing, $6 AS owned \
                 UNION ALL SELECT $1, 'b', 2, 0, NULL, $6",
            )
            .unwrap();
        let args = [
            Arg::Id(Some(id)),
            Arg::Text(Some("a")),
            Arg::Int(Some(1)),
            Arg::Bool(true),
            Arg::Text(None),
            Arg::Owned(Some("o".to_owned())),
        ];
        bind_numbered(&mut statement, &args).unwrap();
        let columns = ColumnNames::of(&statement);
        let mut rows = statement.raw_query();
        let mut read = Vec::new();
        let mut first = true;
        while let Some(row) = rows.next().unwrap() {
            let row = EmbeddedRow {
                row,
                columns: &columns,
                asked: Default::default(),
            };
            let r: &dyn Columns = &row;
            // The second row asks in another order, and for one column twice.
            let (n, name, flag) = if first {
                (
                    r.int("n").unwrap(),
                    r.text("name").unwrap(),
                    r.flag("flag").unwrap(),
                )
            } else {
                let flag = r.flag("flag").unwrap();
                let name = r.text("name").unwrap();
                assert_eq!(r.text("name").unwrap(), name);
                (r.int("n").unwrap(), name, flag)
            };
            first = false;
            assert_eq!(r.id("id").unwrap(), id);
            assert_eq!(r.opt_text("missing").unwrap(), None);
            assert_eq!(r.text("owned").unwrap(), "o");
            assert!(r.opt_str("nowhere").is_err());
            read.push((n, name, flag));
        }
        assert_eq!(
            read,
            [(1, "a".to_owned(), true), (2, "b".to_owned(), false)]
        );
    }

    #[test]
    fn one_statement_two_spellings() {
        let s = sql!("SELECT id FROM t WHERE id " [any 2] " AND name " [ilike] " $1" [for_update]);
        assert_eq!(
            s.sqlite,
            "SELECT id FROM t WHERE id IN (SELECT value FROM json_each($2)) AND name LIKE $1"
        );
        assert_eq!(
            s.postgres,
            "SELECT id FROM t WHERE id = ANY($2) AND name ILIKE $1 FOR UPDATE"
        );
    }
}
