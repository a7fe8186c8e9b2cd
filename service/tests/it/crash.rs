//! The real binary killed with SIGKILL (no chance to clean up) while it works, then restarted:
//! no acknowledged telemetry point is lost, events are neither lost nor doubled when the tracker
//! sends again what was not acknowledged, every notification is delivered, once at a provider
//! that takes the idempotency key, and an account deletion is all or nothing.

#![cfg(unix)]

use crate::support;

use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use chrono::{DateTime, Duration, Utc};
use support::process::{kill9, root_client, running};
use support::{
    asset_input, berlin_recipient, count_events, database_url, no_signals, plain_rule, point_of,
    sms,
};
use uuid::Uuid;

/// Batch `b` of asset `a`: 50 points a second apart, the alarm toggling on and off, so every
/// batch opens 25 alarm episodes.
fn batch(asset: Uuid, start: DateTime<Utc>, b: i64) -> TelemetryBatch {
    let points = (0..50)
        .map(|i| TelemetryPoint {
            signals: Some(DeviceSignals {
                alarm: Some(i % 2 == 0),
                ..no_signals()
            }),
            ..point_of(Some(asset), None, start + Duration::seconds(b * 50 + i))
        })
        .collect();
    TelemetryBatch { points }
}

#[tokio::test]
async fn sigkill_during_ingestion_loses_no_acknowledged_point_and_doubles_no_event() {
    const ASSETS: usize = 4;
    const BATCHES: i64 = 200;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("service.db");
    let root = Uuid::new_v4();
    let (mut service, base) = running(&db, root, &[]).await;
    let admin = root_client(&base, root);
    let mut assets = Vec::new();
    for a in 0..ASSETS {
        let input = asset_input(&format!("truck-{a}"));
        assets.push(admin.create_asset(root, input).send().await.unwrap().id);
    }
    let token = admin.get_ingestion_token(root).send().await.unwrap().token;
    let ingest = Client::builder(&base).bearer_token(&token).build().unwrap();
    let start = DateTime::from_timestamp(Utc::now().timestamp() - 3 * 86_400, 0).unwrap();

    // One tracker per asset sends its batches in order until the service dies.
    let trackers: Vec<_> = assets
        .iter()
        .map(|&asset| {
            let ingest = ingest.clone();
            tokio::spawn(async move {
                let mut acknowledged = 0;
                for b in 0..BATCHES {
                    match ingest.ingest_telemetry(batch(asset, start, b)).send().await {
                        Ok(result) => {
                            assert_eq!(result.accepted, 50, "{result:?}");
                            acknowledged = b + 1;
                        }
                        Err(_) => break,
                    }
                }
                acknowledged
            })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    kill9(&mut service);
    let mut acknowledged = Vec::new();
    for tracker in trackers {
        acknowledged.push(tracker.await.unwrap());
    }
    assert!(
        acknowledged.iter().all(|n| *n > 0 && *n < BATCHES),
        "the kill came mid-run: {acknowledged:?}"
    );

    // After a restart, every acknowledged batch is there (sending it again changes nothing)...
    let (mut again, base) = running(&db, root, &[]).await;
    let admin = root_client(&base, root);
    let ingest = Client::builder(&base).bearer_token(&token).build().unwrap();
    for (asset, done) in assets.iter().zip(&acknowledged) {
        for b in 0..*done {
            let result = ingest
                .ingest_telemetry(batch(*asset, start, b))
                .send()
                .await
                .unwrap();
            assert_eq!(
                result.duplicates, 50,
                "batch {b} of {asset} was lost: {result:?}"
            );
        }
        // ... and the trackers send the rest, the batch in flight at the kill included.
        for b in *done..BATCHES {
            ingest
                .ingest_telemetry(batch(*asset, start, b))
                .send()
                .await
                .unwrap();
        }
    }
    // Exactly one alarm event per episode: none lost with the crash, none doubled by the resend.
    for asset in &assets {
        let events = count_events(&admin, root, *asset, EventType::AlarmTriggered).await;
        assert_eq!(events, 25 * BATCHES as usize, "alarm events of {asset}");
    }
    kill9(&mut again);
}

/// SIGKILL while notifications are being sent (the SMS provider answers slowly, so some messages
/// are created at the provider but never recorded as sent): after the restart every notification
/// is delivered and recorded, and the provider, which takes the idempotency key, created each
/// message exactly once.
#[tokio::test]
async fn sigkill_during_dispatch_delivers_every_notification_once() {
    use asset_alerting_channels::testing::TwilioStandIn;
    const EPISODES: i64 = 40;
    let twilio = TwilioStandIn::start("AC0001", "token").await.unwrap();
    twilio.set_answer_delay(std::time::Duration::from_millis(150));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("service.db");
    let root = Uuid::new_v4();
    let extra: Vec<String> = [
        "--twilio-account-sid",
        "AC0001",
        "--twilio-auth-token",
        "token",
        "--twilio-from",
        "+15005550006",
        "--twilio-api-url",
        &twilio.base_url(),
        "--rate-limit-per-minute",
        "1000",
        "--dispatch-lease-secs",
        "1",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    let (mut service, base) = running(&db, root, &extra).await;
    let admin = root_client(&base, root);
    let truck = admin
        .create_asset(root, asset_input("truck-1"))
        .send()
        .await
        .unwrap()
        .id;
    let rule = plain_rule(EventType::AlarmTriggered, 0, berlin_recipient(), sms(false));
    admin
        .create_alert_rule(root, truck, rule)
        .send()
        .await
        .unwrap();
    let token = admin.get_ingestion_token(root).send().await.unwrap().token;
    let ingest = Client::builder(&base).bearer_token(&token).build().unwrap();
    let start = DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    let points = (0..EPISODES * 2)
        .map(|i| TelemetryPoint {
            signals: Some(DeviceSignals {
                alarm: Some(i % 2 == 0),
                ..no_signals()
            }),
            ..point_of(Some(truck), None, start + Duration::seconds(i))
        })
        .collect();
    ingest
        .ingest_telemetry(TelemetryBatch { points })
        .send()
        .await
        .unwrap();
    // Kill once a few messages are out, with more in flight.
    let began = std::time::Instant::now();
    while twilio.messages().len() < 5 {
        assert!(began.elapsed() < std::time::Duration::from_secs(20));
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    kill9(&mut service);
    let at_kill = twilio.messages().len();
    assert!(at_kill < EPISODES as usize, "the kill came mid-dispatch");

    let (mut again, base) = running(&db, root, &extra).await;
    let admin = root_client(&base, root);
    let events = admin
        .list_events(root)
        .event_type(EventType::AlarmTriggered)
        .take(500)
        .send()
        .await
        .unwrap();
    assert_eq!(events.len(), EPISODES as usize);
    let began = std::time::Instant::now();
    let mut delivered = Vec::new();
    for event in &events {
        loop {
            let notifications = admin
                .list_event_notifications(root, event.id)
                .send()
                .await
                .unwrap();
            let sms: Vec<_> = notifications
                .into_iter()
                .filter(|n| n.channel == NotificationChannel::Sms)
                .collect();
            assert_eq!(sms.len(), 1, "one notification per rule and event");
            if sms[0].status == NotificationStatus::Sent {
                assert!(
                    sms[0]
                        .attempts
                        .iter()
                        .any(|a| a.outcome == DeliveryAttemptOutcome::Delivered)
                );
                delivered.push(sms[0].id.to_string());
                break;
            }
            assert_eq!(sms[0].status, NotificationStatus::Pending, "{:?}", sms[0]);
            assert!(
                began.elapsed() < std::time::Duration::from_secs(60),
                "not delivered in time"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
    // Each notification created exactly one message at the provider, whatever was resent.
    let mut created: Vec<String> = twilio
        .messages()
        .into_iter()
        .map(|m| m.idempotency_token.unwrap())
        .collect();
    created.sort();
    delivered.sort();
    assert_eq!(created, delivered);
    // The message in flight at the kill was sent again after the restart and recognised.
    assert!(
        twilio.attempts() > created.len(),
        "no message was resent: {} attempts for {} messages",
        twilio.attempts(),
        created.len()
    );
    kill9(&mut again);
}

/// Rows of the subtree's tables, read from the database itself after the kill.
async fn subtree_rows(db: &std::path::Path, accounts: &[Uuid]) -> [i64; 4] {
    let list = accounts
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(",");
    let counts = [
        format!("SELECT COUNT(*) FROM accounts WHERE id IN ({list})"),
        format!("SELECT COUNT(*) FROM assets WHERE account_id IN ({list})"),
        format!(
            "SELECT COUNT(*) FROM telemetry WHERE asset_id IN (SELECT id FROM assets WHERE account_id IN ({list}))"
        ),
        format!("SELECT COUNT(*) FROM events WHERE account_id IN ({list})"),
    ]
    .map(sqlx::AssertSqlSafe);
    let url = database_url(db);
    let mut rows = [0; 4];
    if asset_alerting_service::store::is_postgres(&url) {
        let pool = sqlx::PgPool::connect(&url).await.unwrap();
        for (n, sql) in rows.iter_mut().zip(counts) {
            *n = sqlx::query_scalar(sql).fetch_one(&pool).await.unwrap();
        }
        pool.close().await;
    } else {
        let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
        for (n, sql) in rows.iter_mut().zip(counts) {
            *n = sqlx::query_scalar(sql).fetch_one(&pool).await.unwrap();
        }
        pool.close().await;
    }
    rows
}

/// Deleting an account is one transaction: killed while it runs, the subtree is afterwards either
/// all there or all gone, and nothing outside it is touched.
#[tokio::test]
async fn sigkill_during_account_deletion_leaves_all_or_nothing() {
    const ASSETS: usize = 20;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("service.db");
    let root = Uuid::new_v4();
    let (mut service, base) = running(&db, root, &[]).await;
    let admin = root_client(&base, root);
    let account = |name: &str| CreateAccountRequest {
        name: name.to_owned(),
        friendly_name: None,
        culture: None,
        technical_email_address: None,
        callback_uri: None,
    };
    let create = |parent: Uuid, name: &'static str| {
        let admin = admin.clone();
        let body = account(name);
        async move { admin.create_account(parent, body).send().await.unwrap().id }
    };
    let doomed = create(root, "doomed").await;
    let grandchild = create(doomed, "grandchild").await;
    let sibling = create(root, "sibling").await;
    let start = DateTime::from_timestamp(Utc::now().timestamp() - 2 * 86_400, 0).unwrap();
    for owner in [doomed, grandchild, sibling] {
        let token = admin.get_ingestion_token(owner).send().await.unwrap().token;
        let ingest = Client::builder(&base).bearer_token(&token).build().unwrap();
        for a in 0..ASSETS {
            let input = asset_input(&format!("truck-{a}"));
            let asset = admin.create_asset(owner, input).send().await.unwrap().id;
            for b in 0..4 {
                let result = ingest
                    .ingest_telemetry(batch(asset, start, b))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(result.accepted, 50);
            }
        }
    }
    let subtree = [doomed, grandchild];
    let full = subtree_rows(&db, &subtree).await;
    assert_eq!(full[..3], [2, 2 * ASSETS as i64, 2 * ASSETS as i64 * 200]);
    assert!(full[3] > 0, "alarm episodes raised events");
    let sibling_rows = subtree_rows(&db, &[sibling]).await;

    // Kills at growing delays after the request is sent, until one lands after the commit: the
    // earlier ones fall before or inside the transaction.
    let mut admin = admin;
    let mut outcomes = Vec::new();
    for delay_ms in [2, 10, 25, 50, 100, 200, 400, 800] {
        let deletion = tokio::spawn({
            let admin = admin.clone();
            async move { admin.delete_account(doomed).send().await.is_ok() }
        });
        tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
        kill9(&mut service);
        let answered = deletion.await.unwrap();
        let after = subtree_rows(&db, &subtree).await;
        assert!(
            after == full || after == [0; 4],
            "killed {delay_ms} ms in: half deleted: {after:?} (before: {full:?})"
        );
        if answered {
            assert_eq!(after, [0; 4], "an acknowledged deletion is durable");
        }
        assert_eq!(subtree_rows(&db, &[sibling]).await, sibling_rows);
        let deleted = after == [0; 4];
        outcomes.push((delay_ms, deleted));
        let (restarted, base) = running(&db, root, &[]).await;
        service = restarted;
        admin = root_client(&base, root);
        if deleted {
            break;
        }
    }
    eprintln!("(kill delay ms, deleted): {outcomes:?}");
    if !outcomes.last().unwrap().1 {
        admin.delete_account(doomed).send().await.unwrap();
    }
    assert!(admin.get_account(grandchild).send().await.is_err());
    assert!(admin.get_account(sibling).send().await.is_ok());
    kill9(&mut service);
    assert_eq!(subtree_rows(&db, &subtree).await, [0; 4]);
}
