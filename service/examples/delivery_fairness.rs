//! Delivery fairness benchmark, run by `service/bench/delivery-fairness.sh` against a running
//! service on 127.0.0.1. Account `slow`'s webhook receiver answers in `--slow-ms`; account
//! `hanging`'s never answers within the webhook timeout. Each gets `--backlog` events at once
//! (AlarmTriggered, alarm on then off). Meanwhile `--others` accounts, each with a webhook
//! receiver of its own and an e-mail rule, post one event at a time for `--seconds`, each after
//! the previous one's webhook and e-mail arrived. Reported: the others' latency from detection
//! (the event's `detectedAt`) to arrival, per channel; the slow receiver's deliveries per second
//! and peak concurrency; the hanging receiver's attempts. Receivers and SMTP server are local
//! stand-ins; everything is bounded in count and time and sends only to 127.0.0.1.

use asset_alerting_channels::testing::{SmtpServer, WebhookReceiver};
use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};
use uuid::Uuid;

struct Args {
    /// The instances, comma-separated; the slow and hanging accounts use the first, the others
    /// take turns.
    urls: Vec<String>,
    /// Where to write the SMTP stand-in's port; the service is started with it, and this waits
    /// for the service to answer.
    smtp_port_file: String,
    root: Uuid,
    secret: String,
    backlog: usize,
    hang_backlog: usize,
    others: usize,
    seconds: u64,
    slow_ms: u64,
    hang_secs: u64,
}

fn args() -> Args {
    let mut map: HashMap<String, String> = HashMap::new();
    let mut it = std::env::args().skip(1);
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        map.insert(k.trim_start_matches("--").to_owned(), v);
    }
    let get = |k: &str, d: &str| map.get(k).cloned().unwrap_or_else(|| d.to_owned());
    Args {
        urls: get("urls", "http://127.0.0.1:18284")
            .split(',')
            .map(str::to_owned)
            .collect(),
        smtp_port_file: get("smtp-port-file", "smtp-port"),
        root: get("root", "").parse().expect("--root <uuid>"),
        secret: get("secret", ""),
        backlog: get("backlog", "1000").parse().unwrap(),
        hang_backlog: get("hang-backlog", &get("backlog", "1000"))
            .parse()
            .unwrap(),
        others: get("others", "20").parse().unwrap(),
        seconds: get("seconds", "60").parse().unwrap(),
        slow_ms: get("slow-ms", "1000").parse().unwrap(),
        hang_secs: get("hang-secs", "30").parse().unwrap(),
    }
}

struct Account {
    id: Uuid,
    /// Acts for the account (rules), as the ingestion client posts for it.
    client: Client,
    asset: Uuid,
    ingest: Client,
}

async fn account(
    args: &Args,
    url: &str,
    root: &Client,
    name: &str,
    receiver: &WebhookReceiver,
) -> Account {
    let created = root
        .create_account(
            args.root,
            CreateAccountRequest {
                name: name.to_owned(),
                friendly_name: None,
                culture: None,
                technical_email_address: None,
                callback_uri: Some(receiver.url(&format!("/{name}"))),
            },
        )
        .send()
        .await
        .unwrap();
    let client = Client::builder(url)
        .client_credentials(created.id.to_string(), &created.client_secret)
        .build()
        .unwrap();
    let secret = client.get_webhook_secret(created.id).send().await.unwrap();
    receiver.set_secret(&secret.secret);
    let input: AssetInput =
        serde_json::from_value(serde_json::json!({"externalId": name, "name": name, "tier": 1}))
            .expect("an asset");
    let asset = client.create_asset(created.id, input).send().await.unwrap();
    let token = client.get_ingestion_token(created.id).send().await.unwrap();
    let ingest = Client::builder(url)
        .bearer_token(&token.token)
        .build()
        .unwrap();
    Account {
        id: created.id,
        client,
        asset: asset.id,
        ingest,
    }
}

fn point(asset: Uuid, at: DateTime<Utc>, alarm: bool) -> TelemetryPoint {
    serde_json::from_value(serde_json::json!({
        "assetId": asset,
        "timestamp": at,
        "signals": {"alarm": alarm},
    }))
    .expect("a telemetry point")
}

/// `count` alarm events (on, off, ...) from `start`, one second apart, in batches of 1,000 points.
async fn alarms(account: &Account, start: DateTime<Utc>, count: usize) {
    let points: Vec<TelemetryPoint> = (0..count * 2)
        .map(|i| {
            point(
                account.asset,
                start + Duration::seconds(i as i64),
                i % 2 == 0,
            )
        })
        .collect();
    for batch in points.chunks(1000) {
        let result = account
            .ingest
            .ingest_telemetry(TelemetryBatch {
                points: batch.to_vec(),
            })
            .send()
            .await
            .unwrap();
        assert_eq!(result.rejected, 0, "{result:?}");
    }
}

fn email_rule(address: &str) -> AlertRuleInput {
    serde_json::from_value(serde_json::json!({
        "eventType": 16,
        "recipient": {"culture": "en-US", "timeZone": "UTC"},
        "channel": {"type": "email", "email": {"emailAddress": address}},
    }))
    .expect("an alert rule")
}

async fn wait_ready(url: &str) {
    for _ in 0..600 {
        if reqwest::get(format!("{url}/healthz"))
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the service at {url} did not answer within 30 s");
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn seconds_between(from: DateTime<Utc>, to: SystemTime) -> f64 {
    let to: DateTime<Utc> = to.into();
    (to - from).num_microseconds().unwrap_or(0) as f64 / 1e6
}

/// When each recipient's e-mails arrived, in order.
type Mailboxes = Arc<Mutex<HashMap<String, Vec<SystemTime>>>>;

/// Sorts the SMTP stand-in's new messages into `mailboxes`, every 5 ms, until `deadline` and a
/// little after (the last e-mails of the window).
async fn sort_mail(smtp: &SmtpServer, mailboxes: Mailboxes, deadline: Instant) {
    let mut seen = 0;
    while Instant::now() < deadline + std::time::Duration::from_secs(130) {
        let new = smtp.received_since(seen);
        seen += new.len();
        {
            let mut boxes = mailboxes.lock().unwrap();
            for mail in new {
                for to in &mail.to {
                    boxes.entry(to.clone()).or_default().push(mail.received_at);
                }
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// One other account for the run's length: an event, then wait for its webhook and e-mail.
/// Returns (webhook, e-mail) latencies in seconds from detection.
async fn other(
    account: Account,
    receiver: WebhookReceiver,
    mailboxes: Mailboxes,
    address: String,
    deadline: Instant,
) -> Vec<(f64, f64)> {
    let mut latencies = Vec::new();
    let start = Utc::now() - Duration::hours(1);
    let mut n = 0;
    while Instant::now() < deadline {
        let at = start + Duration::seconds(2 * n as i64);
        let batch = vec![
            point(account.asset, at, true),
            point(account.asset, at + Duration::seconds(1), false),
        ];
        account
            .ingest
            .ingest_telemetry(TelemetryBatch { points: batch })
            .send()
            .await
            .unwrap();
        n += 1;
        let waited = Instant::now();
        let (hook, mail) = loop {
            let mail = mailboxes
                .lock()
                .unwrap()
                .get(&address)
                .and_then(|times| times.get(n - 1).copied());
            if let (true, Some(mail)) = (receiver.received_count() >= n, mail) {
                break (receiver.received()[n - 1].clone(), mail);
            }
            if waited.elapsed().as_secs() > 120 {
                panic!("{address}: event {n} not delivered within 120 s");
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        };
        let detected: DateTime<Utc> = hook.json()["event"]["detectedAt"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        latencies.push((
            seconds_between(detected, hook.received_at),
            seconds_between(detected, mail),
        ));
    }
    latencies
}

#[tokio::main]
async fn main() {
    let args = args();
    let smtp: &'static SmtpServer = Box::leak(Box::new(SmtpServer::start().await.unwrap()));
    std::fs::write(&args.smtp_port_file, smtp.port().to_string()).unwrap();
    for url in &args.urls {
        wait_ready(url).await;
    }
    let root = Client::builder(&args.urls[0])
        .client_credentials(args.root.to_string(), &args.secret)
        .build()
        .unwrap();
    let slow = WebhookReceiver::start("whsec_AA==").await.unwrap();
    slow.set_answer_delay(std::time::Duration::from_millis(args.slow_ms));
    let hanging = WebhookReceiver::start("whsec_AA==").await.unwrap();
    hanging.set_answer_delay(std::time::Duration::from_secs(args.hang_secs));
    let first = &args.urls[0];
    let slow_account = account(&args, first, &root, "slow", &slow).await;
    let hanging_account = account(&args, first, &root, "hanging", &hanging).await;
    let mut others = Vec::new();
    for i in 0..args.others {
        let receiver = WebhookReceiver::start("whsec_AA==").await.unwrap();
        let name = format!("other-{i}");
        let url = &args.urls[i % args.urls.len()];
        let account = account(&args, url, &root, &name, &receiver).await;
        let address = format!("{name}@example.com");
        account
            .client
            .create_alert_rule(account.id, account.asset, email_rule(&address))
            .send()
            .await
            .unwrap();
        others.push((account, receiver, address));
    }

    let backlog_start = Utc::now() - Duration::hours(2);
    let queued = Instant::now();
    alarms(&slow_account, backlog_start, args.backlog).await;
    alarms(&hanging_account, backlog_start, args.hang_backlog).await;
    let queued_in = queued.elapsed().as_secs_f64();
    let began = Instant::now();
    let deadline = began + std::time::Duration::from_secs(args.seconds);
    let mailboxes = Mailboxes::default();
    tokio::spawn(sort_mail(smtp, mailboxes.clone(), deadline));
    let runs: Vec<_> = others
        .into_iter()
        .map(|(account, receiver, address)| {
            tokio::spawn(other(
                account,
                receiver,
                mailboxes.clone(),
                address,
                deadline,
            ))
        })
        .collect();
    let mut latencies = Vec::new();
    for run in runs {
        latencies.extend(run.await.unwrap());
    }
    // Let the slow receiver run to the end of the window when there are no others.
    if let Some(rest) = deadline.checked_duration_since(Instant::now()) {
        tokio::time::sleep(rest).await;
    }
    let window = began.elapsed().as_secs_f64();
    let slow_done = slow.received().len();

    let mut hooks: Vec<f64> = latencies.iter().map(|l| l.0).collect();
    let mut mails: Vec<f64> = latencies.iter().map(|l| l.1).collect();
    hooks.sort_by(f64::total_cmp);
    mails.sort_by(f64::total_cmp);
    println!(
        "backlog: {} events for the slow receiver ({} ms) and {} for the hanging one, queued in {queued_in:.1} s; {} instance(s)",
        args.backlog,
        args.slow_ms,
        args.hang_backlog,
        args.urls.len()
    );
    println!(
        "window: {window:.1} s, {} other accounts, {} events of theirs",
        args.others,
        latencies.len()
    );
    println!("| other accounts, detection to arrival | p50 | p90 | p99 | max |");
    println!("| --- | --- | --- | --- | --- |");
    for (name, sorted) in [("webhook", &hooks), ("e-mail", &mails)] {
        println!(
            "| {name} | {:.3} s | {:.3} s | {:.3} s | {:.3} s |",
            percentile(sorted, 0.5),
            percentile(sorted, 0.9),
            percentile(sorted, 0.99),
            sorted.last().copied().unwrap_or(f64::NAN)
        );
    }
    println!(
        "slow receiver: {slow_done} delivered in {window:.1} s = {:.2}/s (one at a time: at most {:.2}/s); most in flight at once: {}",
        slow_done as f64 / window,
        1000.0 / args.slow_ms as f64,
        slow.most_in_flight()
    );
    let arrivals: Vec<SystemTime> = slow.received().iter().map(|h| h.received_at).collect();
    let mut gaps: Vec<f64> = arrivals
        .windows(2)
        .map(|w| w[1].duration_since(w[0]).unwrap_or_default().as_secs_f64())
        .collect();
    gaps.sort_by(f64::total_cmp);
    println!(
        "slow receiver, from one webhook's arrival to the next: p50 {:.3} s, p90 {:.3} s, max {:.3} s",
        percentile(&gaps, 0.5),
        percentile(&gaps, 0.9),
        gaps.last().copied().unwrap_or(f64::NAN)
    );
    println!(
        "hanging receiver: {} attempts in {window:.1} s for {} queued; most in flight at once: {}",
        hanging.requests(),
        args.hang_backlog,
        hanging.most_in_flight()
    );
}
