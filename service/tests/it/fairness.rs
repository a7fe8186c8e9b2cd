//! Delivery fairness (issue 29): one account's slow receiver and another's failing receiver, each
//! with a backlog of webhooks, while a third account's webhook and e-mail are due. The third's
//! arrive while the backlogs still drain; the slow receiver gets its webhooks one at a time and
//! in order; the failing one is backed off (a few probes, not one attempt per webhook). Once in
//! one process (SQLite, or PostgreSQL with `TEST_DATABASE=postgres`), once with two instances on
//! one PostgreSQL database.

use crate::support;

use asset_alerting_channels::testing::{SmtpServer, WebhookReceiver};
use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use chrono::{Duration, Utc};
use std::time::Instant;
use support::process::{free_port, root_client, spawn_on, wait_ready};
use support::*;
use uuid::Uuid;

/// Webhooks queued for each of the slow and the failing receiver.
const BACKLOG: usize = 40;
/// How long the slow receiver takes to answer each webhook.
const SLOW: std::time::Duration = std::time::Duration::from_millis(250);
const MAILBOX: &str = "fleet@fast.example";

struct Receivers {
    slow: WebhookReceiver,
    failing: WebhookReceiver,
    fast: WebhookReceiver,
    smtp: SmtpServer,
}

impl Receivers {
    async fn start() -> Receivers {
        let start = || WebhookReceiver::start("whsec_AA==");
        let receivers = Receivers {
            slow: start().await.unwrap(),
            failing: start().await.unwrap(),
            fast: start().await.unwrap(),
            smtp: SmtpServer::start().await.unwrap(),
        };
        receivers.slow.set_answer_delay(SLOW);
        receivers.failing.fail_next(100_000, 503);
        receivers
    }

    /// The service's settings for these receivers, as command-line flags.
    fn flags(&self) -> Vec<String> {
        [
            "--allow-http-callbacks",
            "--allow-private-callbacks",
            "--smtp-host",
            &self.smtp.host(),
            "--smtp-port",
            &self.smtp.port().to_string(),
            "--smtp-tls",
            "none",
            "--retry-base-ms",
            "50",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect()
    }
}

/// An account with its callbackUri at `receiver`, the receiver verifying with its secret, an
/// asset, and a client posting that asset's telemetry.
async fn account(
    base: &str,
    root: &Client,
    root_id: Uuid,
    name: &str,
    receiver: &WebhookReceiver,
) -> (Client, Uuid, Uuid, Client) {
    let created = root
        .create_account(
            root_id,
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
    let client = Client::builder(base)
        .client_credentials(created.id.to_string(), &created.client_secret)
        .build()
        .unwrap();
    let secret = client.get_webhook_secret(created.id).send().await.unwrap();
    receiver.set_secret(&secret.secret);
    let asset = client
        .create_asset(created.id, asset_input(name))
        .send()
        .await
        .unwrap();
    let token = client
        .get_ingestion_token(created.id)
        .send()
        .await
        .unwrap()
        .token;
    let ingest = Client::builder(base).bearer_token(&token).build().unwrap();
    (client, created.id, asset.id, ingest)
}

/// `count` AlarmTriggered events: the alarm on, then off, once a second from a minute ago.
fn alarms(asset: Uuid, count: usize) -> Vec<TelemetryPoint> {
    let start = Utc::now() - Duration::minutes(10);
    (0..count * 2)
        .map(|i| TelemetryPoint {
            signals: Some(DeviceSignals {
                alarm: Some(i % 2 == 0),
                ..no_signals()
            }),
            ..point_of(Some(asset), None, start + Duration::seconds(i as i64))
        })
        .collect()
}

async fn post(ingest: &Client, points: Vec<TelemetryPoint>) {
    let result = ingest
        .ingest_telemetry(TelemetryBatch { points })
        .send()
        .await
        .unwrap();
    assert_eq!(result.rejected, 0, "{result:?}");
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let began = Instant::now();
    while !done() {
        assert!(began.elapsed().as_secs() < 30, "waited 30 s for {what}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The event times of the webhooks a receiver got, in the order they arrived.
fn occurred(receiver: &WebhookReceiver) -> Vec<String> {
    receiver
        .received()
        .iter()
        .map(|hook| {
            hook.json()["event"]["occurredAt"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// `bases`: the instances (one or two) sharing one database.
async fn fair_delivery(bases: &[String], root: &Client, root_id: Uuid, receivers: &Receivers) {
    let base = &bases[0];
    let (_, _, slow_asset, slow) = account(base, root, root_id, "slow", &receivers.slow).await;
    let (_, _, failing_asset, failing) =
        account(base, root, root_id, "failing", &receivers.failing).await;
    let (fast_client, fast_id, fast_asset, fast) = account(
        bases.last().unwrap(),
        root,
        root_id,
        "fast",
        &receivers.fast,
    )
    .await;
    let rule = plain_rule(
        EventType::AlarmTriggered,
        0,
        berlin_recipient(),
        Channel {
            r#type: ChannelType::Email,
            call: None,
            sms: None,
            telegram: None,
            email: Some(EmailChannel {
                email_address: MAILBOX.to_owned(),
                is_interactive: false,
            }),
        },
    );
    fast_client
        .create_alert_rule(fast_id, fast_asset, rule)
        .send()
        .await
        .unwrap();

    post(&slow, alarms(slow_asset, BACKLOG)).await;
    post(&failing, alarms(failing_asset, BACKLOG)).await;
    post(&fast, alarms(fast_asset, 1)).await;
    until("the fast account's webhook and e-mail", || {
        receivers.fast.received().len() == 1 && receivers.smtp.received().len() == 1
    })
    .await;
    let slow_so_far = receivers.slow.received().len();
    assert!(
        slow_so_far < BACKLOG / 2,
        "the fast account waited for {slow_so_far} of the slow receiver's webhooks"
    );
    assert_eq!(receivers.smtp.received()[0].to, [MAILBOX]);

    until("the slow receiver's backlog", || {
        receivers.slow.received().len() == BACKLOG
    })
    .await;
    let times = occurred(&receivers.slow);
    assert!(
        times.windows(2).all(|w| w[0] < w[1]),
        "out of order: {times:?}"
    );
    assert_eq!(receivers.slow.most_in_flight(), 1, "one at a time");
    // The failing receiver: three failures open its circuit; then a probe per cooldown (doubling
    // from 150 ms to 3 s), never one attempt per queued webhook.
    let attempts = receivers.failing.requests();
    assert!(
        (3..BACKLOG / 2).contains(&attempts),
        "{attempts} attempts at the failing receiver"
    );
    assert_eq!(receivers.failing.most_in_flight(), 1);
}

#[tokio::test]
async fn a_slow_or_failing_receiver_delays_only_its_own_deliveries() {
    let receivers = Receivers::start().await;
    let dir = tempfile::tempdir().unwrap();
    let root = Uuid::new_v4();
    let mut config = config(&dir, root);
    config.allow_http_callbacks = true;
    config.allow_private_callbacks = true;
    config.smtp_host = Some(receivers.smtp.host());
    config.smtp_port = Some(receivers.smtp.port());
    config.smtp_tls = "none".to_owned();
    config.retry_base_ms = 50;
    let service = TestService::start(config).await;
    let base = service.base.clone();
    fair_delivery(&[base], &service.root_client(), root, &receivers).await;
    service.stop().await;
}

/// Kills the instances when the test ends, however it ends.
struct Instances(Vec<std::process::Child>);

impl Drop for Instances {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[tokio::test]
async fn two_instances_on_postgresql_keep_destinations_apart_and_in_order() {
    let Some(url) = support::postgres::database() else {
        return;
    };
    let receivers = Receivers::start().await;
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("service.keys");
    let root = Uuid::new_v4();
    let mut children = Instances(Vec::new());
    let mut bases = Vec::new();
    for _ in 0..2 {
        let port = free_port();
        children
            .0
            .push(spawn_on(&url, &key_file, port, root, &receivers.flags()));
        let base = format!("http://127.0.0.1:{port}");
        wait_ready(&base).await;
        bases.push(base);
    }
    let admin = root_client(&bases[0], root);
    fair_delivery(&bases, &admin, root, &receivers).await;
    drop(children);
}
