//! Load generator for live events, run by `service/bench/live-stream.sh` against a running service
//! on 127.0.0.1. It creates an account with `--assets` assets, opens `--streams` event streams of
//! the account, then for `--seconds` posts telemetry at `--rate` events a second (`--workers`
//! trackers' gateways, each posting `--batch` points a request, each point turning an asset's
//! ignition on or off, which is one event), and measures, for every event, the time from the start
//! of the POST that carried its point to its arrival on each stream. Bounded in time and count;
//! it sends only to the URL given (loopback).

mod load;
use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use chrono::{DateTime, Duration, Utc};
use futures_util::StreamExt;
use load::{ignition_point, percentile};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use uuid::Uuid;

/// The load: where, how many assets and streams, and how fast.
#[derive(clap::Parser)]
struct Args {
    #[arg(long, default_value = "http://127.0.0.1:18290")]
    url: String,
    #[arg(long)]
    root: Uuid,
    #[arg(long)]
    secret: String,
    #[arg(long, default_value_t = 200)]
    assets: usize,
    /// Events a second.
    #[arg(long, default_value_t = 1000)]
    rate: usize,
    /// At most 120.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    #[arg(long, default_value_t = 10)]
    workers: usize,
    /// Points a request.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    #[arg(long, default_value_t = 1)]
    streams: usize,
}

fn args() -> Args {
    let mut a = <Args as clap::Parser>::parse();
    a.seconds = a.seconds.min(120);
    assert!(a.assets >= a.workers && a.workers > 0 && a.batch > 0 && a.rate > 0);
    assert!(
        a.streams >= 1 && a.streams <= 10,
        "an account may hold 10 streams"
    );
    a
}

/// An event's point: its asset and timestamp (in milliseconds, as sent).
type Key = (Uuid, i64);
/// When the POST carrying a point started, and when its answer came (`None` until then).
type Sent = Arc<Mutex<HashMap<Key, (Instant, Option<Instant>)>>>;

/// One gateway: its own assets, each point toggling the next one's ignition. Points of one asset
/// are sent one request after the other, so each is newer than the last and is an event.
struct Gateway {
    assets: Vec<Uuid>,
    next: usize,
    on: Vec<bool>,
    at: DateTime<Utc>,
}

impl Gateway {
    fn points(&mut self, count: usize) -> Vec<TelemetryPoint> {
        (0..count)
            .map(|_| {
                let i = self.next;
                self.next = (self.next + 1) % self.assets.len();
                if self.next == 0 {
                    self.at += Duration::milliseconds(10);
                }
                self.on[i] = !self.on[i];
                ignition_point(self.assets[i], self.at, self.on[i])
            })
            .collect()
    }
}

#[tokio::main]
async fn main() {
    let a = args();
    let root = Client::builder(&a.url)
        .client_credentials(a.root.to_string(), &a.secret)
        .build()
        .unwrap();
    let created = root
        .create_account(
            a.root,
            CreateAccountRequest {
                name: format!("live-{}", Uuid::new_v4()),
                friendly_name: None,
                culture: None,
                technical_email_address: None,
                callback_uri: None,
            },
        )
        .send()
        .await
        .unwrap();
    let account = created.id;
    let client = Client::builder(&a.url)
        .client_credentials(account.to_string(), &created.client_secret)
        .build()
        .unwrap();
    let mut assets = Vec::with_capacity(a.assets);
    for i in 0..a.assets {
        let asset = client
            .create_asset(
                account,
                load::asset_input(format!("live-{i:05}"), format!("Live truck {i}")),
            )
            .send()
            .await
            .unwrap();
        assets.push(asset.id);
    }
    let token = client
        .get_ingestion_token(account)
        .send()
        .await
        .unwrap()
        .token;
    let ingest = Client::builder(&a.url)
        .bearer_token(&token)
        .build()
        .unwrap();
    // Whole milliseconds an hour ago: every point is within the accepted window.
    let start = DateTime::from_timestamp_millis(Utc::now().timestamp_millis() - 3_600_000).unwrap();
    // Ignition on for every asset first: known state, so each later point is one event.
    let primer: Vec<TelemetryPoint> = assets
        .iter()
        .map(|id| ignition_point(*id, start, true))
        .collect();
    for chunk in primer.chunks(1000) {
        ingest
            .ingest_telemetry(TelemetryBatch {
                points: chunk.to_vec(),
            })
            .send()
            .await
            .unwrap();
    }

    let sent: Sent = Arc::default();
    let mut readers = Vec::new();
    for _ in 0..a.streams {
        let mut events = client.stream_events(account).send_stream().await.unwrap();
        let sent = sent.clone();
        readers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            // After the POST's answer: what the stream adds to ingestion (negative: before it).
            let mut after_answer = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let mut duplicates = 0usize;
            let idle = std::time::Duration::from_secs(5);
            while let Ok(Some(Ok(event))) = tokio::time::timeout(idle, events.next()).await {
                let now = Instant::now();
                let e = event.data;
                if !seen.insert(e.id) {
                    duplicates += 1;
                    continue;
                }
                let key = (e.asset_id, e.occurred_at.timestamp_millis());
                if let Some((at, answered)) = sent.lock().unwrap().get(&key) {
                    latencies.push(now.duration_since(*at).as_secs_f64() * 1000.0);
                    after_answer.push(match answered {
                        Some(answered) => {
                            now.saturating_duration_since(*answered).as_secs_f64() * 1000.0
                        }
                        None => 0.0,
                    });
                }
            }
            (latencies, after_answer, duplicates)
        }));
    }

    let per_worker = a.assets / a.workers;
    // Requests a second per worker, so that all of them make `rate` points a second.
    let interval = std::time::Duration::from_secs_f64((a.workers * a.batch) as f64 / a.rate as f64);
    let deadline = Instant::now() + std::time::Duration::from_secs(a.seconds);
    let began = Instant::now();
    let post_ms: Arc<Mutex<Vec<f64>>> = Arc::default();
    let mut workers = Vec::new();
    for w in 0..a.workers {
        let mut gateway = Gateway {
            assets: assets[w * per_worker..(w + 1) * per_worker].to_vec(),
            next: 0,
            on: vec![true; per_worker],
            at: start + Duration::milliseconds(10),
        };
        let (ingest, sent, post_ms) = (ingest.clone(), sent.clone(), post_ms.clone());
        workers.push(tokio::spawn(async move {
            let mut ticks = tokio::time::interval(interval);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut points_sent = 0usize;
            while Instant::now() < deadline {
                ticks.tick().await;
                let points = gateway.points(a.batch);
                let at = Instant::now();
                {
                    let mut sent = sent.lock().unwrap();
                    for p in &points {
                        sent.insert(
                            (p.asset_id.unwrap(), p.timestamp.timestamp_millis()),
                            (at, None),
                        );
                    }
                }
                points_sent += points.len();
                let keys: Vec<Key> = points
                    .iter()
                    .map(|p| (p.asset_id.unwrap(), p.timestamp.timestamp_millis()))
                    .collect();
                ingest
                    .ingest_telemetry(TelemetryBatch { points })
                    .send()
                    .await
                    .unwrap();
                let answered = Instant::now();
                {
                    let mut sent = sent.lock().unwrap();
                    for key in keys {
                        if let Some(entry) = sent.get_mut(&key) {
                            entry.1 = Some(answered);
                        }
                    }
                }
                post_ms
                    .lock()
                    .unwrap()
                    .push(at.elapsed().as_secs_f64() * 1000.0);
            }
            points_sent
        }));
    }
    let mut points_sent = 0;
    for w in workers {
        points_sent += w.await.unwrap();
    }
    let elapsed = began.elapsed().as_secs_f64();
    println!(
        "sent {points_sent} events in {elapsed:.1} s ({:.0} events/s; {} workers, {} points a request)",
        points_sent as f64 / elapsed,
        a.workers,
        a.batch
    );
    let mut posts = post_ms.lock().unwrap().clone();
    posts.sort_by(f64::total_cmp);
    println!(
        "POST /v1/telemetry ms: p50 {:.1}  p99 {:.1}  max {:.1}",
        percentile(&posts, 0.5),
        percentile(&posts, 0.99),
        posts.last().copied().unwrap_or(f64::NAN)
    );
    for (i, reader) in readers.into_iter().enumerate() {
        let (mut latencies, mut after_answer, duplicates) = reader.await.unwrap();
        latencies.sort_by(f64::total_cmp);
        after_answer.sort_by(f64::total_cmp);
        println!(
            "stream {i}: received {} (missing {}, duplicates {duplicates}); ingest to stream ms: \
             p50 {:.1}  p90 {:.1}  p99 {:.1}  max {:.1}",
            latencies.len(),
            points_sent.saturating_sub(latencies.len()),
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.9),
            percentile(&latencies, 0.99),
            latencies.last().copied().unwrap_or(f64::NAN)
        );
        println!(
            "stream {i}: after the POST's answer ms (0 when it came first): p50 {:.1}  p99 {:.1}  max {:.1}",
            percentile(&after_answer, 0.5),
            percentile(&after_answer, 0.99),
            after_answer.last().copied().unwrap_or(f64::NAN)
        );
    }
}
