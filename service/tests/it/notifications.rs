//! Notifications over real protocols: an SMTP server, Telegram and Twilio stand-ins and a webhook
//! receiver on 127.0.0.1, the service configured to use them, and telemetry posted through the
//! generated client. Each test checks what arrived at the provider and what the API records.

use crate::support;

use asset_alerting_channels::testing::{
    SmtpServer, TelegramStandIn, TwilioStandIn, WebhookReceiver,
};
use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use asset_alerting_service::config::Config;
use chrono::{Duration, Utc};
use std::collections::BTreeMap;
use std::time::Instant;
use support::*;
use uuid::Uuid;

const BOT_TOKEN: &str = "123456:test-bot-token";
const TWILIO_SID: &str = "AC00000000000000000000000000000001";
const TWILIO_TOKEN: &str = "twilio-auth-token";
/// The phone number of `berlin_recipient()`.
const PHONE: &str = "+4915112345678";

struct Providers {
    smtp: SmtpServer,
    telegram: TelegramStandIn,
    twilio: TwilioStandIn,
    webhooks: WebhookReceiver,
}

impl Providers {
    async fn start() -> Providers {
        Providers {
            smtp: SmtpServer::start().await.unwrap(),
            telegram: TelegramStandIn::start(BOT_TOKEN).await.unwrap(),
            twilio: TwilioStandIn::start(TWILIO_SID, TWILIO_TOKEN)
                .await
                .unwrap(),
            webhooks: WebhookReceiver::start("whsec_bm90IHlldCBrbm93bg==")
                .await
                .unwrap(),
        }
    }

    fn configure(&self, config: &mut Config) {
        config.smtp_host = Some(self.smtp.host());
        config.smtp_port = Some(self.smtp.port());
        config.smtp_tls = "none".to_owned();
        config.telegram_bot_token = Some(BOT_TOKEN.to_owned());
        config.telegram_api_url = self.telegram.base_url();
        config.twilio_account_sid = Some(TWILIO_SID.to_owned());
        config.twilio_auth_token = Some(TWILIO_TOKEN.to_owned());
        config.twilio_from = Some("+15005550006".to_owned());
        config.twilio_api_url = self.twilio.base_url();
        config.allow_http_callbacks = true;
        config.allow_private_callbacks = true;
        config.retry_base_ms = 50;
    }
}

struct Setup {
    _dir: tempfile::TempDir,
    service: TestService,
    providers: Providers,
    account: Uuid,
    client: Client,
    truck: Asset,
}

/// A service using every provider; an account whose callbackUri is the webhook receiver; a truck
/// with a speed limit of 80 km/h.
async fn setup(adjust: impl FnOnce(&mut Config)) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let providers = Providers::start().await;
    let mut config = config(&dir, Uuid::new_v4());
    providers.configure(&mut config);
    adjust(&mut config);
    let service = TestService::start(config).await;
    let root = service.root_client();
    let created = root
        .create_account(
            service.root,
            CreateAccountRequest {
                name: "fleet".to_owned(),
                friendly_name: None,
                culture: Some("en-GB".to_owned()),
                technical_email_address: None,
                callback_uri: Some(providers.webhooks.url("/hook")),
            },
        )
        .send()
        .await
        .unwrap();
    let account = created.id;
    let client = service.client(account, &created.client_secret);
    let secret = client.get_webhook_secret(account).send().await.unwrap();
    providers.webhooks.set_secret(&secret.secret);
    let mut input = asset_input("truck-1");
    input.telemetry_rules = Some(TelemetryRules {
        speed_limit: Some(80),
        ..empty_rules()
    });
    let truck = client.create_asset(account, input).send().await.unwrap();
    Setup {
        _dir: dir,
        service,
        providers,
        account,
        client,
        truck,
    }
}

fn rule(order: i64, channel: Channel) -> AlertRuleInput {
    plain_rule(
        EventType::SpeedLimitExceeded,
        order,
        berlin_recipient(),
        channel,
    )
}

fn channel(kind: ChannelType, interactive: bool) -> Channel {
    Channel {
        r#type: kind,
        call: (kind == ChannelType::Call).then_some(CallChannel {}),
        sms: (kind == ChannelType::Sms).then_some(SmsChannel {
            is_interactive: interactive,
        }),
        telegram: (kind == ChannelType::Telegram).then_some(TelegramChannel {
            chat_id: 4242,
            is_interactive: interactive,
        }),
        email: (kind == ChannelType::Email).then_some(EmailChannel {
            email_address: "dispatch@fleet.example".to_owned(),
            is_interactive: interactive,
        }),
    }
}

/// Two minutes at 120 km/h, a point every 10 s, starting `minutes_ago`: one speeding episode.
fn speeding(asset: Uuid, minutes_ago: i64) -> Vec<TelemetryPoint> {
    let start = Utc::now() - Duration::minutes(minutes_ago);
    (0..12)
        .map(|i| TelemetryPoint {
            latitude: Some(52.5),
            longitude: Some(13.4 + 0.003 * i as f64),
            speed: Some(120.0),
            ignition: Some(true),
            ..point_of(Some(asset), None, start + Duration::seconds(10 * i))
        })
        .collect()
}

impl Setup {
    async fn add_rule(&self, rule: AlertRuleInput) -> AlertRule {
        self.client
            .create_alert_rule(self.account, self.truck.id, rule)
            .send()
            .await
            .unwrap()
    }

    async fn post(&self, points: Vec<TelemetryPoint>) {
        let ingest = self
            .service
            .ingestion_client(&self.client, self.account)
            .await;
        let result = ingest
            .ingest_telemetry(TelemetryBatch { points })
            .send()
            .await
            .unwrap();
        assert_eq!(result.rejected, 0, "{result:?}");
    }

    async fn events_of(&self, kind: EventType) -> Vec<Event> {
        self.client
            .list_events(self.account)
            .event_type(kind)
            .send()
            .await
            .unwrap()
    }

    /// Waits (at most 20 s) until no notification of the event is pending; returns them.
    async fn settled(&self, event: Uuid) -> Vec<Notification> {
        let started = Instant::now();
        loop {
            let notifications = self
                .client
                .list_event_notifications(self.account, event)
                .send()
                .await
                .unwrap();
            if notifications
                .iter()
                .all(|n| n.status != NotificationStatus::Pending)
            {
                return notifications;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(20),
                "still pending: {notifications:#?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

fn by_channel(notifications: &[Notification]) -> BTreeMap<String, &Notification> {
    notifications
        .iter()
        .map(|n| (n.channel.as_str().to_owned(), n))
        .collect()
}

#[tokio::test]
async fn a_speeding_event_reaches_every_channel_once_and_is_recorded() {
    let s = setup(|_| {}).await;
    for (order, kind) in [
        ChannelType::Email,
        ChannelType::Telegram,
        ChannelType::Sms,
        ChannelType::Call,
    ]
    .into_iter()
    .enumerate()
    {
        s.add_rule(rule(order as i64, channel(kind, false))).await;
    }
    s.post(speeding(s.truck.id, 5)).await;
    let events = s.events_of(EventType::SpeedLimitExceeded).await;
    assert_eq!(events.len(), 1, "{events:#?}");
    let event = &events[0];
    let notifications = s.settled(event.id).await;
    let channels = by_channel(&notifications);
    assert_eq!(
        channels.keys().map(String::as_str).collect::<Vec<_>>(),
        ["call", "email", "sms", "telegram", "webhook"]
    );
    for n in &notifications {
        assert_eq!(n.status, NotificationStatus::Sent, "{n:#?}");
        assert_eq!(n.attempts.len(), 1);
        assert_eq!(n.attempts[0].outcome, DeliveryAttemptOutcome::Delivered);
        assert!(n.attempts[0].provider_code.is_some(), "{n:#?}");
    }
    // What arrived, once each.
    let mails = s.providers.smtp.received();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, ["dispatch@fleet.example"]);
    assert!(
        mails[0]
            .header("Subject")
            .unwrap()
            .contains("Vehicle truck-1")
    );
    assert!(mails[0].body().contains("120"), "{}", mails[0].body());
    let telegrams = s.providers.telegram.messages();
    assert_eq!(telegrams.len(), 1);
    assert_eq!(telegrams[0].chat_id, 4242);
    let sms = s.providers.twilio.messages();
    assert_eq!(sms.len(), 1);
    assert_eq!(sms[0].field("To"), Some(PHONE));
    assert_eq!(
        sms[0].idempotency_token.as_deref(),
        Some(channels["sms"].id.to_string().as_str())
    );
    let calls = s.providers.twilio.calls();
    assert_eq!(calls.len(), 1);
    assert!(calls[0].field("Twiml").unwrap().contains("<Say"));
    // The webhook: signed (the receiver verified it), the event as the API shows it.
    let hooks: Vec<serde_json::Value> = s
        .providers
        .webhooks
        .received()
        .iter()
        .map(|h| h.json())
        .filter(|body| body["event"]["id"] == event.id.to_string())
        .collect();
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0]["type"], "event");
    assert_eq!(hooks[0]["id"], channels["webhook"].id.to_string());
    assert_eq!(hooks[0]["event"]["eventType"], 12);
    assert_eq!(hooks[0]["event"]["details"]["threshold"], 80.0);
    assert_eq!(s.providers.webhooks.rejected(), 0);
    s.service.stop().await;
}

#[tokio::test]
async fn a_provider_failing_three_times_gets_one_message_after_four_attempts() {
    let s = setup(|_| {}).await;
    s.add_rule(rule(0, channel(ChannelType::Sms, false))).await;
    s.providers.twilio.fail_next(3, 500);
    s.post(speeding(s.truck.id, 5)).await;
    let event = &s.events_of(EventType::SpeedLimitExceeded).await[0];
    let notifications = s.settled(event.id).await;
    let sms = by_channel(&notifications)["sms"];
    assert_eq!(sms.status, NotificationStatus::Sent);
    let outcomes: Vec<_> = sms.attempts.iter().map(|a| a.outcome).collect();
    use DeliveryAttemptOutcome as O;
    assert_eq!(
        outcomes,
        [
            O::RetryableFailure,
            O::RetryableFailure,
            O::RetryableFailure,
            O::Delivered
        ]
    );
    assert_eq!(sms.attempts[0].provider_code.as_deref(), Some("500"));
    assert_eq!(s.providers.twilio.messages().len(), 1);
    s.service.stop().await;
}

/// A provider answering later than half the dispatcher's lease: the attempt is cut off and
/// recorded as a retryable failure while the lease still holds, and the retry (same
/// idempotency key) delivers it; no other dispatcher could have taken it meanwhile.
#[tokio::test]
async fn a_provider_slower_than_half_the_lease_is_cut_off_and_retried() {
    let s = setup(|config| {
        config.dispatch_lease_secs = 2;
        config.retry_base_ms = 1_500;
    })
    .await;
    s.add_rule(rule(0, channel(ChannelType::Sms, false))).await;
    s.providers
        .twilio
        .set_answer_delay(std::time::Duration::from_millis(1_500));
    s.post(speeding(s.truck.id, 5)).await;
    let event = &s.events_of(EventType::SpeedLimitExceeded).await[0];
    let started = Instant::now();
    loop {
        let notifications = s
            .client
            .list_event_notifications(s.account, event.id)
            .send()
            .await
            .unwrap();
        if by_channel(&notifications)["sms"].attempts.len() == 1 {
            break;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    s.providers
        .twilio
        .set_answer_delay(std::time::Duration::ZERO);
    let notifications = s.settled(event.id).await;
    let sms = by_channel(&notifications)["sms"];
    assert_eq!(sms.status, NotificationStatus::Sent);
    use DeliveryAttemptOutcome as O;
    let outcomes: Vec<_> = sms.attempts.iter().map(|a| a.outcome).collect();
    assert_eq!(outcomes, [O::RetryableFailure, O::Delivered]);
    assert_eq!(
        sms.attempts[0].message.as_deref(),
        Some("no answer within 1 s")
    );
    let keys: Vec<_> = s
        .providers
        .twilio
        .messages()
        .into_iter()
        .map(|m| m.idempotency_token)
        .collect();
    assert!(!keys.is_empty());
    assert!(
        keys.iter().all(|k| *k == Some(sms.id.to_string())),
        "every request carries the notification's key: {keys:?}"
    );
    s.service.stop().await;
}

#[tokio::test]
async fn a_refusal_fails_at_once_and_an_unconfigured_channel_is_skipped() {
    let s = setup(|config| config.smtp_host = None).await;
    s.add_rule(rule(0, channel(ChannelType::Telegram, false)))
        .await;
    s.add_rule(rule(1, channel(ChannelType::Email, false)))
        .await;
    s.providers.telegram.fail_next(1, 400);
    s.post(speeding(s.truck.id, 5)).await;
    let event = &s.events_of(EventType::SpeedLimitExceeded).await[0];
    let notifications = s.settled(event.id).await;
    let channels = by_channel(&notifications);
    let telegram = channels["telegram"];
    assert_eq!(telegram.status, NotificationStatus::Failed);
    assert_eq!(telegram.attempts.len(), 1);
    assert_eq!(
        telegram.attempts[0].outcome,
        DeliveryAttemptOutcome::PermanentFailure
    );
    assert_eq!(telegram.attempts[0].provider_code.as_deref(), Some("400"));
    let email = channels["email"];
    assert_eq!(email.status, NotificationStatus::Skipped);
    assert!(
        email.reason.as_deref().unwrap().contains("email"),
        "{email:#?}"
    );
    assert!(email.attempts.is_empty());
    assert!(s.providers.smtp.received().is_empty());
    s.service.stop().await;
}

#[tokio::test]
async fn acknowledging_through_the_link_stops_the_escalation() {
    let s = setup(|_| {}).await;
    let first = s.add_rule(rule(0, channel(ChannelType::Sms, true))).await;
    s.add_rule(rule(1, channel(ChannelType::Email, false)))
        .await;
    s.post(speeding(s.truck.id, 5)).await;
    let event = &s.events_of(EventType::SpeedLimitExceeded).await[0];
    // The interactive SMS goes at once; the email is the next escalation step, 5 minutes later.
    let started = Instant::now();
    while s.providers.twilio.messages().is_empty() {
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let text = s.providers.twilio.messages()[0]
        .field("Body")
        .unwrap()
        .to_owned();
    let link = text
        .split_whitespace()
        .find(|w| w.starts_with(&format!("{}/ack/", s.service.base)))
        .unwrap_or_else(|| panic!("no acknowledgement link in {text}"))
        .to_owned();
    let http = reqwest::Client::new();
    // Opening the link shows the alert and acknowledges nothing.
    let page = http.get(&link).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["cache-control"], "no-store");
    assert!(page.text().await.unwrap().contains("Acknowledge"));
    let unacknowledged = s
        .client
        .get_event(s.account, event.id)
        .send()
        .await
        .unwrap();
    assert_eq!(unacknowledged.acknowledged_at, None);
    // A forged signature is refused.
    let forged = format!("{}x", link.trim_end_matches('='));
    assert_eq!(http.post(&forged).send().await.unwrap().status(), 403);
    // The button acknowledges it as the rule's recipient; the pending email is cancelled.
    assert_eq!(http.post(&link).send().await.unwrap().status(), 200);
    let acknowledged = s
        .client
        .get_event(s.account, event.id)
        .send()
        .await
        .unwrap();
    assert_eq!(
        acknowledged.acknowledged_by.as_deref(),
        Some(format!("rule:{}", first.id).as_str())
    );
    let notifications = s.settled(event.id).await;
    let email = by_channel(&notifications)["email"];
    assert_eq!(email.status, NotificationStatus::Cancelled);
    assert!(email.due_at >= email.created_at + Duration::minutes(5));
    assert!(s.providers.smtp.received().is_empty());
    // Acknowledging again through the API keeps the first acknowledgement.
    let again = s
        .client
        .acknowledge_event(s.account, event.id)
        .send()
        .await
        .unwrap();
    assert_eq!(again.acknowledged_by, acknowledged.acknowledged_by);
    s.service.stop().await;
}

#[tokio::test]
async fn a_flapping_sensor_is_rate_limited_into_a_digest() {
    let s = setup(|config| {
        config.rate_limit_per_minute = 2;
        config.rate_limit_window_secs = 2;
    })
    .await;
    let mut alarm_rule = rule(0, channel(ChannelType::Sms, false));
    alarm_rule.event_type = EventType::AlarmTriggered;
    s.add_rule(alarm_rule).await;
    let start = Utc::now() - Duration::minutes(5);
    let points: Vec<TelemetryPoint> = (0..12)
        .map(|i| TelemetryPoint {
            signals: Some(DeviceSignals {
                alarm: Some(i % 2 == 0),
                ..no_signals()
            }),
            ..point_of(Some(s.truck.id), None, start + Duration::seconds(i))
        })
        .collect();
    s.post(points).await;
    let events = s.events_of(EventType::AlarmTriggered).await;
    assert_eq!(events.len(), 6);
    let mut statuses = BTreeMap::new();
    for event in &events {
        let sms = s
            .settled(event.id)
            .await
            .into_iter()
            .find(|n| n.channel == NotificationChannel::Sms)
            .unwrap();
        *statuses.entry(sms.status.as_str().to_owned()).or_insert(0) += 1;
    }
    assert_eq!(statuses.get("sent"), Some(&2), "{statuses:?}");
    assert_eq!(statuses.get("coalesced"), Some(&4), "{statuses:?}");
    // The window passes; the four coalesced alarms arrive as one digest.
    let started = Instant::now();
    while s.providers.twilio.messages().len() < 3 {
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let messages = s.providers.twilio.messages();
    assert_eq!(messages.len(), 3);
    assert!(
        messages[2].field("Body").unwrap().contains('4'),
        "{:?}",
        messages[2]
    );
    s.service.stop().await;
}

#[tokio::test]
async fn a_snooze_records_the_event_but_notifies_only_webhooks() {
    let s = setup(|_| {}).await;
    s.add_rule(rule(0, channel(ChannelType::Sms, false))).await;
    let mut input = asset_input("truck-1");
    input.telemetry_rules = s.truck.telemetry_rules.clone();
    input.disabled_events = Some(BTreeMap::from([(
        "SpeedLimitExceeded".to_owned(),
        Utc::now() + Duration::hours(1),
    )]));
    s.client
        .update_asset(s.account, s.truck.id, input)
        .send()
        .await
        .unwrap();
    s.post(speeding(s.truck.id, 5)).await;
    let event = &s.events_of(EventType::SpeedLimitExceeded).await[0];
    assert!(event.notifications_suppressed);
    let notifications = s.settled(event.id).await;
    assert_eq!(
        notifications.iter().map(|n| n.channel).collect::<Vec<_>>(),
        [NotificationChannel::Webhook]
    );
    assert!(s.providers.twilio.messages().is_empty());
    s.service.stop().await;
}

#[tokio::test]
async fn callback_uris_must_be_public_https_unless_configured_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let service = TestService::start(config(&dir, Uuid::new_v4())).await;
    let root = service.root_client();
    let create = |uri: &str| {
        root.create_account(
            service.root,
            CreateAccountRequest {
                name: "child".to_owned(),
                friendly_name: None,
                culture: None,
                technical_email_address: None,
                callback_uri: Some(uri.to_owned()),
            },
        )
        .send()
    };
    for refused in [
        "http://hooks.example.com/x",
        "https://127.0.0.1/x",
        "https://10.1.2.3/x",
        "https://192.168.0.10/x",
        "https://[::1]/x",
        "https://localhost/x",
        "https://user:pw@hooks.example.com/x",
    ] {
        match create(refused).await {
            Err(asset_alerting_client::Error::Api { status, body }) => {
                assert_eq!((status.as_u16(), body.code), (400, 1000), "{refused}");
                assert!(body.message.contains("callbackUri"), "{}", body.message);
            }
            other => panic!("{refused} was accepted: {other:?}"),
        }
    }
    create("https://hooks.example.com/asset-alerts")
        .await
        .unwrap();
    service.stop().await;
}

/// Verifies a received webhook with the `standardwebhooks` package from PyPI (a library nobody
/// here wrote). `Ok(false)` when python3 or the package is missing outside CI (the test then
/// says so and skips); with `CI=true` their absence fails the test.
fn verified_by_standard_webhooks_library(
    secret: &str,
    hook: &asset_alerting_channels::testing::ReceivedWebhook,
) -> Result<bool, String> {
    use std::io::Write;
    const SCRIPT: &str = r#"
import json, sys
try:
    from standardwebhooks.webhooks import Webhook
except ImportError:
    sys.exit(3)
d = json.load(sys.stdin)
headers = {"webhook-id": d["id"], "webhook-timestamp": d["timestamp"], "webhook-signature": d["signature"]}
Webhook(d["secret"]).verify(d["body"], headers)
"#;
    let input = serde_json::json!({
        "secret": secret,
        "id": hook.webhook_id,
        "timestamp": hook.timestamp,
        "signature": hook.signature,
        "body": String::from_utf8(hook.body.clone()).map_err(|e| e.to_string())?,
    });
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let child = std::process::Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) if !in_ci => {
            eprintln!("SKIPPED: python3 is not available ({e}); CI runs this check");
            return Ok(false);
        }
        Err(e) => return Err(format!("python3 is required in CI: {e}")),
    };
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input.to_string().as_bytes())
        .map_err(|e| e.to_string())?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    match output.status.code() {
        Some(0) => Ok(true),
        Some(3) if !in_ci => {
            eprintln!(
                "SKIPPED: the Python package standardwebhooks is not installed \
                 (python3 -m pip install standardwebhooks); CI runs this check"
            );
            Ok(false)
        }
        Some(3) => Err("the Python package standardwebhooks is required in CI".to_owned()),
        _ => Err(String::from_utf8_lossy(&output.stderr).into_owned()),
    }
}

/// Standard Webhooks: the `webhook-id`, `webhook-timestamp` and `webhook-signature` headers
/// and the `whsec_` secret verify with the specification's own library; a tampered body does
/// not.
#[tokio::test]
async fn webhooks_verify_with_the_standard_webhooks_library() {
    let s = setup(|_| {}).await;
    s.post(speeding(s.truck.id, 5)).await;
    let event = &s.events_of(EventType::SpeedLimitExceeded).await[0];
    s.settled(event.id).await;
    let hook = s
        .providers
        .webhooks
        .received()
        .into_iter()
        .find(|h| h.json()["event"]["id"] == event.id.to_string())
        .expect("the event's webhook arrived, verified by the receiver");
    let secret = s
        .client
        .get_webhook_secret(s.account)
        .send()
        .await
        .unwrap()
        .secret;
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert!(hook.signature.starts_with("v1,"), "{}", hook.signature);
    let verified = verified_by_standard_webhooks_library(&secret, &hook);
    if verified == Ok(false) {
        s.service.stop().await;
        return;
    }
    assert_eq!(verified, Ok(true));
    let mut tampered = hook.clone();
    tampered.body = br#"{"tampered":true}"#.to_vec();
    let refused = verified_by_standard_webhooks_library(&secret, &tampered).unwrap_err();
    assert!(refused.contains("WebhookVerificationError"), "{refused}");
    s.service.stop().await;
}
