//! Load generator for telemetry ingestion, run by `service/bench/ingest.sh` against a running
//! service on 127.0.0.1. It creates an account with `--assets` assets per worker (every
//! threshold set, two alert rules per asset), then for `--seconds` each of `--workers` workers (a
//! gateway) posts batches of `--batch` points spread over its assets, in time order, and meanwhile probes two latencies: ingest to event
//! visible in the API, and ingest to webhook received (a local receiver is the account's
//! callbackUri). Bounded in time and count; it sends only to the URL given (loopback).

mod load;
use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use chrono::{DateTime, Duration, Utc};
use load::percentile;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use uuid::Uuid;

struct Args {
    url: String,
    root: Uuid,
    secret: String,
    assets: usize,
    batch: usize,
    seconds: u64,
    workers: usize,
    /// Pause between one worker's batches (0: as fast as the service takes them).
    interval_ms: u64,
}

fn args() -> Args {
    let mut map: HashMap<String, String> = HashMap::new();
    let mut it = std::env::args().skip(1);
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        map.insert(k.trim_start_matches("--").to_owned(), v);
    }
    let get = |k: &str, d: &str| map.get(k).cloned().unwrap_or_else(|| d.to_owned());
    Args {
        url: get("url", "http://127.0.0.1:18283"),
        root: get("root", "").parse().expect("--root <uuid>"),
        secret: get("secret", ""),
        assets: get("assets", "100").parse().unwrap(),
        batch: get("batch", "1000").parse().unwrap(),
        seconds: get("seconds", "15").parse().unwrap(),
        workers: get("workers", "4").parse().unwrap(),
        interval_ms: get("interval-ms", "0").parse().unwrap(),
    }
}

fn rules() -> TelemetryRules {
    TelemetryRules {
        input_voltage_low_threshold: Some(11.5),
        battery_voltage_low_threshold: Some(3.6),
        battery_percentage_low_threshold: Some(20.0),
        speed_limit: Some(90),
        fuel_level_low_threshold: Some(10.0),
        ad_blue_level_low_threshold: Some(10.0),
        temperature_low_threshold: Some(-20.0),
        temperature_high_threshold: Some(8.0),
        pressure_low_threshold: Some(150.0),
        pressure_high_threshold: Some(900.0),
        engine_speed_limit: Some(3000),
    }
}

fn point(asset: Uuid, t: DateTime<Utc>, n: i64) -> TelemetryPoint {
    // A truck around Berlin: every 2 minutes it speeds for 30 s and its cargo is warm for 70 s,
    // long enough for both to become events (their minimum durations are 10 s and 60 s).
    let phase = n % 120;
    TelemetryPoint {
        asset_id: Some(asset),
        external_id: None,
        timestamp: t,
        latitude: Some(52.5 + (n % 100) as f64 * 0.001),
        longitude: Some(13.4 + (n % 97) as f64 * 0.001),
        speed: Some(if phase < 30 { 110.0 } else { 60.0 }),
        heading: Some(90.0),
        altitude: None,
        satellites: None,
        ignition: Some(true),
        input_voltage: Some(24.0),
        battery_voltage: Some(4.0),
        battery_percentage: Some(80.0),
        fuel_level: Some(50.0),
        ad_blue_level: Some(50.0),
        temperature: Some(if (30..100).contains(&phase) { 9.5 } else { 4.0 }),
        pressure: Some(500.0),
        engine_speed: Some(1500.0),
        signals: None,
    }
}

type Arrivals = Arc<Mutex<HashMap<String, Instant>>>;

/// The account's callbackUri: notes when each event's webhook arrives.
async fn receiver(arrivals: Arrivals) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let app = axum::Router::new()
        .route(
            "/hook",
            post(|State(arrivals): State<Arrivals>, body: Bytes| async move {
                let now = Instant::now();
                if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&body)
                    && let Some(id) = v["event"]["id"].as_str()
                {
                    arrivals.lock().unwrap().entry(id.to_owned()).or_insert(now);
                }
                "ok"
            }),
        )
        .with_state(arrivals);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::main]
async fn main() {
    let a = args();
    let root = Client::builder(&a.url)
        .client_credentials(a.root.to_string(), &a.secret)
        .build()
        .unwrap();
    let arrivals: Arrivals = Arc::default();
    let hook = receiver(arrivals.clone()).await;
    let created = root
        .create_account(
            a.root,
            CreateAccountRequest {
                name: format!("load-{}", Uuid::new_v4()),
                friendly_name: None,
                culture: None,
                technical_email_address: None,
                callback_uri: Some(hook),
            },
        )
        .send()
        .await
        .expect("start the service with --allow-http-callbacks --allow-private-callbacks");
    let account = created.id;
    let client = Client::builder(&a.url)
        .client_credentials(account.to_string(), &created.client_secret)
        .build()
        .unwrap();
    // Each worker is a gateway with its own `assets` trackers: its batches are in time order.
    let mut assets = Vec::with_capacity(a.assets * a.workers + 1);
    for i in 0..=a.assets * a.workers {
        let asset = client
            .create_asset(
                account,
                AssetInput {
                    tier: AssetTier::Premium,
                    telemetry_rules: Some(rules()),
                    ..load::asset_input(format!("load-{i:05}"), format!("Load truck {i}"))
                },
            )
            .send()
            .await
            .unwrap();
        for event_type in [EventType::SpeedLimitExceeded, EventType::AlarmTriggered] {
            let rule = AlertRuleInput {
                id: None,
                account_id: None,
                asset_id: None,
                event_type,
                order: 0,
                recipient: Recipient {
                    culture: "en-GB".to_owned(),
                    time_zone: "Europe/Berlin".to_owned(),
                    phone_number: Some("+4915112345678".to_owned()),
                    description: None,
                },
                channel: Channel {
                    r#type: ChannelType::Sms,
                    call: None,
                    sms: Some(SmsChannel {
                        is_interactive: false,
                    }),
                    telegram: None,
                    email: None,
                },
                is_disabled: false,
                days_of_week: vec![],
                time_of_day: None,
                dates: None,
                inside_geofences: vec![],
                outside_geofences: vec![],
            };
            client
                .create_alert_rule(account, asset.id, rule)
                .send()
                .await
                .unwrap();
        }
        assets.push(asset.id);
    }
    let probe_asset = assets.pop().unwrap();
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
    let start = Utc::now() - Duration::days(6);
    let deadline = Instant::now() + std::time::Duration::from_secs(a.seconds);
    let per_asset = (a.batch / a.assets).max(1);
    let batches_per_worker = 1_000_000;

    let workers: Vec<_> = (0..a.workers)
        .map(|w| {
            let ingest = ingest.clone();
            let assets = assets[w * a.assets..(w + 1) * a.assets].to_vec();
            tokio::spawn(async move {
                let (mut accepted, mut latencies) = (0u64, Vec::new());
                for b in 0..batches_per_worker {
                    if Instant::now() >= deadline {
                        break;
                    }
                    let n = b as i64;
                    let mut points = Vec::with_capacity(a.batch);
                    for (i, asset) in assets.iter().enumerate() {
                        for k in 0..per_asset {
                            let step = n * per_asset as i64 + k as i64;
                            let t = start + Duration::milliseconds(step * 1000 + i as i64);
                            points.push(point(*asset, t, step));
                        }
                    }
                    let sent = Instant::now();
                    let result = ingest
                        .ingest_telemetry(TelemetryBatch { points })
                        .send()
                        .await
                        .unwrap();
                    latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
                    accepted += result.accepted as u64;
                    tokio::time::sleep(std::time::Duration::from_millis(a.interval_ms)).await;
                }
                (accepted, latencies)
            })
        })
        .collect();

    // The probe: an alarm on one asset every 100 ms; when does its event show, when its webhook?
    let mut visible = Vec::new();
    let mut sent_at: BTreeMap<String, Instant> = BTreeMap::new();
    let began = Instant::now();
    let mut p = 0i64;
    while Instant::now() < deadline {
        let on = TelemetryPoint {
            signals: Some(DeviceSignals {
                alarm: Some(p % 2 == 0),
                tampering: None,
                jamming: None,
                accident: None,
                hard_cornering: None,
                lockdown_violation: None,
                left_behind: None,
                power_disconnected: None,
            }),
            ..point(probe_asset, Utc::now() - Duration::seconds(1), p)
        };
        let sent = Instant::now();
        ingest
            .ingest_telemetry(TelemetryBatch { points: vec![on] })
            .send()
            .await
            .unwrap();
        if p % 2 == 0 {
            loop {
                let newest = client
                    .list_events(account)
                    .asset_id(probe_asset)
                    .event_type(EventType::AlarmTriggered)
                    .take(1)
                    .send()
                    .await
                    .unwrap();
                if let Some(event) = newest.first()
                    && !sent_at.contains_key(&event.id.to_string())
                {
                    visible.push(sent.elapsed().as_secs_f64() * 1000.0);
                    sent_at.insert(event.id.to_string(), sent);
                    break;
                }
            }
        }
        p += 1;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (mut accepted, mut latencies) = (0u64, Vec::new());
    for w in workers {
        let (n, l) = w.await.unwrap();
        accepted += n;
        latencies.extend(l);
    }
    let elapsed = began.elapsed().as_secs_f64();
    // Every event was matched against its asset's rules and written to the outbox with the points.
    let mut events = 0usize;
    loop {
        let page = client
            .list_events(account)
            .skip(events as i32)
            .take(500)
            .send()
            .await
            .unwrap();
        events += page.len();
        if page.len() < 500 {
            break;
        }
    }
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let arrived = arrivals.lock().unwrap().clone();
    let mut webhook: Vec<f64> = sent_at
        .iter()
        .filter_map(|(id, sent)| {
            Some(arrived.get(id)?.duration_since(*sent).as_secs_f64() * 1000.0)
        })
        .collect();
    latencies.sort_by(f64::total_cmp);
    visible.sort_by(f64::total_cmp);
    webhook.sort_by(f64::total_cmp);
    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| assets with rules | {} ({} per worker, {} workers, {} ms between batches) |",
        a.assets * a.workers,
        a.assets,
        a.workers,
        a.interval_ms
    );
    println!("| points accepted | {accepted} in {elapsed:.1} s |");
    println!("| points/s accepted | {:.0} |", accepted as f64 / elapsed);
    println!(
        "| events recorded with their notifications (matching + outbox) | {events} ({:.0}/s) |",
        events as f64 / elapsed
    );
    println!(
        "| batch ({} points) latency p50 / p99 | {:.1} / {:.1} ms |",
        a.batch,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
    println!(
        "| ingest to event visible p50 / p99 ({} probes) | {:.1} / {:.1} ms |",
        visible.len(),
        percentile(&visible, 0.5),
        percentile(&visible, 0.99)
    );
    println!(
        "| ingest to webhook received p50 / p99 ({} of {}) | {:.1} / {:.1} ms |",
        webhook.len(),
        sent_at.len(),
        percentile(&webhook, 0.5),
        percentile(&webhook, 0.99)
    );
}
