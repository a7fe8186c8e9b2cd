//! The real binary killed with SIGKILL (no chance to clean up) while it works, then restarted:
//! no acknowledged telemetry point is lost, and events are neither lost nor doubled when the
//! tracker sends again what was not acknowledged.

#![cfg(unix)]

mod support;

use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use chrono::{DateTime, Duration, Utc};
use support::process::{free_port, kill9, spawn, wait_ready};
use support::{ROOT_SECRET, asset_input, no_signals, point_of};
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
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut service = spawn(&db, port, root, &[]);
    wait_ready(&base).await;
    let admin = Client::builder(&base)
        .client_credentials(root.to_string(), ROOT_SECRET)
        .build()
        .unwrap();
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
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut again = spawn(&db, port, root, &[]);
    wait_ready(&base).await;
    let admin = Client::builder(&base)
        .client_credentials(root.to_string(), ROOT_SECRET)
        .build()
        .unwrap();
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
        let mut events = 0;
        let mut skip = 0;
        loop {
            let page = admin
                .list_events(root)
                .asset_id(*asset)
                .event_type(EventType::AlarmTriggered)
                .skip(skip)
                .take(500)
                .send()
                .await
                .unwrap();
            events += page.len();
            if page.len() < 500 {
                break;
            }
            skip += 500;
        }
        assert_eq!(events, 25 * BATCHES as usize, "alarm events of {asset}");
    }
    kill9(&mut again);
}
