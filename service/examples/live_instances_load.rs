//! Load generator for live events across two instances, run by `service/bench/live-instances.sh`
//! against two running services on 127.0.0.1 that share one PostgreSQL database. It creates
//! `--streams / 10` accounts with one asset each and opens 10 streams per account, five on each
//! instance; counts the database's transactions per second while the streams are idle
//! (`pg_stat_database.xact_commit`); then stores `--events` events one at a time through the
//! second instance and measures, for each, the time from the start of its POST to its arrival on
//! every stream of its account, on the first instance and on the second. Bounded in time and
//! count; it sends only to the URLs given (loopback).

mod load;
use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use load::{ignition_point, percentile};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use uuid::Uuid;

#[derive(clap::Parser)]
struct Args {
    /// The first instance (streams only).
    #[arg(long)]
    a: String,
    /// The second instance (streams, and every event is stored through it).
    #[arg(long)]
    b: String,
    #[arg(long)]
    root: Uuid,
    #[arg(long)]
    secret: String,
    /// The database both use, to count its transactions.
    #[arg(long)]
    database: String,
    /// At most 1,000; a multiple of 10.
    #[arg(long, default_value_t = 1000)]
    streams: usize,
    /// At most 2,000.
    #[arg(long, default_value_t = 200)]
    events: usize,
    /// How long the idle streams' queries are counted, at most 120 s.
    #[arg(long, default_value_t = 20)]
    idle_secs: u64,
}

/// An event's point: its asset and timestamp in milliseconds.
type Key = (Uuid, i64);
/// Arrivals: (instance, event) to the times its account's streams there received it.
type Arrivals = Arc<Mutex<HashMap<(usize, Key), Vec<Instant>>>>;

async fn commits(db: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()",
    )
    .fetch_one(db)
    .await
    .expect("pg_stat_database")
}

/// Calls per statement on this database, when pg_stat_statements is loaded.
async fn statements(db: &sqlx::PgPool) -> Option<HashMap<String, i64>> {
    let _ = sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .execute(db)
        .await;
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT query, calls FROM pg_stat_statements \
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_all(db)
    .await
    .ok()?;
    let mut calls = HashMap::new();
    for (query, n) in rows {
        *calls.entry(query).or_default() += n;
    }
    Some(calls)
}

#[tokio::main]
async fn main() {
    let a = <Args as clap::Parser>::parse();
    let streams = a.streams.min(1000) / 10 * 10;
    let events = a.events.min(2000);
    assert!(streams >= 10, "at least 10 streams");
    let urls = [a.a.clone(), a.b.clone()];
    let roots: Vec<Client> = urls
        .iter()
        .map(|url| {
            Client::builder(url)
                .client_credentials(a.root.to_string(), &a.secret)
                .build()
                .unwrap()
        })
        .collect();
    let accounts = streams / 10;
    // Per account: its asset and a client posting through the second instance.
    let mut fleet = Vec::with_capacity(accounts);
    let start = DateTime::from_timestamp_millis(Utc::now().timestamp_millis() - 3_600_000).unwrap();
    for i in 0..accounts {
        let account = roots[0]
            .create_account(
                a.root,
                CreateAccountRequest {
                    name: format!("instances-{i}-{}", Uuid::new_v4()),
                    friendly_name: None,
                    culture: None,
                    technical_email_address: None,
                    callback_uri: None,
                },
            )
            .send()
            .await
            .unwrap()
            .id;
        let asset = roots[0]
            .create_asset(
                account,
                load::asset_input(format!("truck-{i}"), format!("Truck {i}")),
            )
            .send()
            .await
            .unwrap()
            .id;
        let token = roots[0]
            .get_ingestion_token(account)
            .send()
            .await
            .unwrap()
            .token;
        let ingest = Client::builder(&urls[1])
            .bearer_token(&token)
            .build()
            .unwrap();
        // Ignition on: a known state, so each later point is one event.
        ingest
            .ingest_telemetry(TelemetryBatch {
                points: vec![ignition_point(asset, start, true)],
            })
            .send()
            .await
            .unwrap();
        fleet.push((account, asset, ingest));
    }

    let arrivals: Arrivals = Arc::default();
    let mut readers = Vec::new();
    for s in 0..streams {
        let (account, _, _) = &fleet[s / 10];
        let instance = s % 2;
        let mut events = roots[instance]
            .stream_events(*account)
            .send_stream()
            .await
            .unwrap_or_else(|e| panic!("stream {s}: {e:?}"));
        let arrivals = arrivals.clone();
        readers.push(tokio::spawn(async move {
            while let Some(Ok(event)) = events.next().await {
                let key = (
                    event.data.asset_id,
                    event.data.occurred_at.timestamp_millis(),
                );
                arrivals
                    .lock()
                    .unwrap()
                    .entry((instance, key))
                    .or_default()
                    .push(Instant::now());
            }
        }));
    }
    println!("{streams} streams open over {accounts} accounts, half on each instance");

    let db = sqlx::PgPool::connect(&a.database).await.unwrap();
    // Stats reach pg_stat_database when a backend goes idle, up to 10 s late: the openings' own
    // are in by then.
    tokio::time::sleep(Duration::from_secs(12)).await;
    let idle = Duration::from_secs(a.idle_secs.clamp(5, 120));
    let (before, ran_before, began) = (commits(&db).await, statements(&db).await, Instant::now());
    tokio::time::sleep(idle).await;
    let (after, took) = (commits(&db).await, began.elapsed());
    let secs = took.as_secs_f64();
    println!(
        "idle: {} transactions in {secs:.1} s, {:.2} a second (the two readings included)",
        after - before,
        (after - before) as f64 / secs
    );
    if let (Some(before), Some(after)) = (ran_before, statements(&db).await) {
        let mut calls: Vec<(i64, String)> = after
            .into_iter()
            .map(|(query, n)| (n - before.get(&query).copied().unwrap_or(0), query))
            .filter(|(n, query)| *n > 0 && !query.contains("pg_stat"))
            .collect();
        calls.sort_by(|x, y| y.cmp(x));
        let total: i64 = calls.iter().map(|(n, _)| n).sum();
        println!(
            "idle: {total} statements, {:.2} a second (pg_stat_statements):",
            total as f64 / secs
        );
        for (n, query) in calls.iter().take(8) {
            println!(
                "  {n:>6}  {}",
                query.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }
    }

    // Per event: its account, point, and when its POST started and was answered.
    let mut sent: Vec<(usize, Key, Instant, Instant)> = Vec::with_capacity(events);
    let mut on = vec![true; accounts];
    for e in 0..events {
        let i = e % accounts;
        let (_, asset, ingest) = &fleet[i];
        on[i] = !on[i];
        let at = start + chrono::Duration::milliseconds(10 * (1 + e / accounts) as i64);
        let began = Instant::now();
        ingest
            .ingest_telemetry(TelemetryBatch {
                points: vec![ignition_point(*asset, at, on[i])],
            })
            .send()
            .await
            .unwrap();
        sent.push((i, (*asset, at.timestamp_millis()), began, Instant::now()));
        // Wait (up to 5 s) until the account's streams on both instances have it.
        let waited = Instant::now();
        while waited.elapsed() < Duration::from_secs(5) {
            let got = {
                let arrivals = arrivals.lock().unwrap();
                (0..2).all(|n| {
                    arrivals
                        .get(&(n, (*asset, at.timestamp_millis())))
                        .is_some_and(|v| v.len() >= 5)
                })
            };
            if got {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let arrivals = arrivals.lock().unwrap();
    for (instance, label) in [
        (0, "stored on B, streamed on A"),
        (1, "stored on B, streamed on B"),
    ] {
        let (mut ms, mut after_answer) = (Vec::new(), Vec::new());
        let (mut missing, mut doubled) = (0usize, 0usize);
        for (_, key, began, answered) in &sent {
            let got = arrivals
                .get(&(instance, *key))
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            missing += 5usize.saturating_sub(got.len());
            doubled += got.len().saturating_sub(5);
            ms.extend(got.iter().map(|t| (*t - *began).as_secs_f64() * 1000.0));
            // Negative when the stream had it before the POST's answer arrived.
            after_answer.extend(got.iter().map(|t| {
                if t >= answered {
                    (*t - *answered).as_secs_f64() * 1000.0
                } else {
                    -(*answered - *t).as_secs_f64() * 1000.0
                }
            }));
        }
        ms.sort_by(f64::total_cmp);
        after_answer.sort_by(f64::total_cmp);
        println!(
            "{label}: {} arrivals; from the POST's start p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms; after its answer p50 {:.1} ms, p99 {:.1} ms; missing {missing}, doubled {doubled}",
            ms.len(),
            percentile(&ms, 0.5),
            percentile(&ms, 0.9),
            percentile(&ms, 0.99),
            ms.last().copied().unwrap_or(f64::NAN),
            percentile(&after_answer, 0.5),
            percentile(&after_answer, 0.99),
        );
    }
    for reader in readers {
        reader.abort();
    }
}
