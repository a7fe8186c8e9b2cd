//! Telemetry ingestion and the events API over real HTTP through the generated client: per-point
//! results, duplicates, late points, credentials of the right kind only, and tenancy.

use crate::support;

use asset_alerting_client::models::*;
use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use support::*;
use uuid::Uuid;

#[tokio::test]
async fn each_point_gets_its_own_result_and_a_repeat_is_a_duplicate() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let truck = root
        .create_asset(account, asset_input("truck-1"))
        .send()
        .await
        .unwrap();
    let gone = root
        .create_asset(account, asset_input("gone-1"))
        .send()
        .await
        .unwrap();
    root.delete_asset(account, gone.id).send().await.unwrap();
    let ingest = service.ingestion_client(&root, account).await;
    let now = Utc::now();
    let points = vec![
        point_of(Some(truck.id), None, now - Duration::seconds(30)),
        point_of(None, Some("truck-1"), now - Duration::seconds(20)),
        point_of(None, Some("nobody"), now),
        point_of(Some(gone.id), None, now),
        TelemetryPoint {
            latitude: Some(91.0),
            ..point_of(Some(truck.id), None, now)
        },
        point_of(Some(truck.id), None, now - Duration::days(8)),
        point_of(Some(truck.id), None, now + Duration::minutes(10)),
        point_of(None, None, now),
        // The same asset and timestamp as the first point: a duplicate within the batch.
        point_of(None, Some("truck-1"), now - Duration::seconds(30)),
        TelemetryPoint {
            satellites: Some(-1),
            ..point_of(Some(truck.id), None, now - Duration::seconds(5))
        },
    ];
    let result = ingest
        .ingest_telemetry(TelemetryBatch {
            points: points.clone(),
        })
        .send()
        .await
        .unwrap();
    let outcome: Vec<(PointResultStatus, Option<PointResultReason>)> = result
        .results
        .iter()
        .map(|r| (r.status, r.reason))
        .collect();
    use PointResultReason as R;
    use PointResultStatus as S;
    assert_eq!(
        outcome,
        [
            (S::Accepted, None),
            (S::Accepted, None),
            (S::Rejected, Some(R::UnknownAsset)),
            (S::Rejected, Some(R::AssetDeleted)),
            (S::Rejected, Some(R::InvalidValue)),
            (S::Rejected, Some(R::TooOld)),
            (S::Rejected, Some(R::InFuture)),
            (S::Rejected, Some(R::InvalidValue)),
            (S::Duplicate, None),
            (S::Rejected, Some(R::InvalidValue)),
        ]
    );
    assert_eq!(
        (result.accepted, result.duplicates, result.rejected),
        (2, 1, 7)
    );
    assert_eq!(result.results[1].asset_id, Some(truck.id));
    assert!(
        result.results[4]
            .message
            .as_deref()
            .unwrap()
            .contains("latitude")
    );
    // Sending the batch again (a retry after a timeout) stores nothing twice.
    let again = ingest
        .ingest_telemetry(TelemetryBatch { points })
        .send()
        .await
        .unwrap();
    assert_eq!(
        (again.accepted, again.duplicates, again.rejected),
        (0, 3, 7)
    );
    let state = root
        .get_asset_state(account, truck.id)
        .send()
        .await
        .unwrap();
    assert_eq!(
        state.last_report_at.map(|t| t.timestamp_micros()),
        Some((now - Duration::seconds(20)).timestamp_micros())
    );
}

#[tokio::test]
async fn telemetry_takes_ingestion_tokens_only_and_they_work_nowhere_else() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let truck = root
        .create_asset(account, asset_input("truck-1"))
        .send()
        .await
        .unwrap();
    let batch = TelemetryBatch {
        points: vec![point_of(Some(truck.id), None, Utc::now())],
    };
    // An access token is refused at the telemetry endpoint...
    let (status, code) = code_of(root.ingest_telemetry(batch.clone()).send().await);
    assert_eq!((status, code), (401, 1100));
    // ... no token, or a made-up one, too.
    let (status, _) = code_of(
        service
            .anonymous()
            .ingest_telemetry(batch.clone())
            .send()
            .await,
    );
    assert_eq!(status, 401);
    let (status, _) = code_of(
        service
            .with_token("not-a-token")
            .ingest_telemetry(batch.clone())
            .send()
            .await,
    );
    assert_eq!(status, 401);
    // An ingestion token is refused everywhere else.
    let token = root
        .get_ingestion_token(account)
        .send()
        .await
        .unwrap()
        .token;
    let ingest = service.with_token(&token);
    let (status, code) = code_of(ingest.get_asset(account, truck.id).send().await);
    assert_eq!((status, code), (401, 1100));
    let (status, _) = code_of(ingest.list_events(account).send().await);
    assert_eq!(status, 401);
    assert_eq!(
        ingest
            .ingest_telemetry(batch)
            .send()
            .await
            .unwrap()
            .accepted,
        1
    );
}

#[tokio::test]
async fn a_malformed_body_is_refused_whole_and_stores_nothing() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let truck = root
        .create_asset(account, asset_input("truck-1"))
        .send()
        .await
        .unwrap();
    let token = root
        .get_ingestion_token(account)
        .send()
        .await
        .unwrap()
        .token;
    let http = reqwest::Client::new();
    let url = format!("{}/v1/telemetry", service.base);
    let now = Utc::now().to_rfc3339();
    let bodies = [
        json!({"points": [{"assetId": truck.id, "timestamp": now}, {"assetId": truck.id}]}),
        json!({"points": [{"assetId": truck.id, "timestamp": now, "speed": "fast"}]}),
        json!({"points": [{"assetId": truck.id, "timestamp": now, "sped": 3}]}),
        json!({"points": []}),
        json!({"points": (0..1001).map(|i| json!({"assetId": truck.id, "timestamp": now, "speed": i})).collect::<Vec<_>>()}),
    ];
    for body in bodies {
        let response = http
            .post(&url)
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{body}");
        let error: serde_json::Value = response.json().await.unwrap();
        assert_eq!(error["code"], 1000, "{error}");
    }
    let state = root
        .get_asset_state(account, truck.id)
        .send()
        .await
        .unwrap();
    assert_eq!(state.last_report_at, None);
}

#[tokio::test]
async fn events_state_and_notifications_are_visible_only_in_the_subtree() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let (a, client_a) = child(&service, &root, service.root, "fleet-a").await;
    let (b, client_b) = child(&service, &root, service.root, "fleet-b").await;
    let mut input = asset_input("truck-a");
    input.telemetry_rules = Some(TelemetryRules {
        speed_limit: Some(80),
        ..empty_rules()
    });
    let truck = client_a.create_asset(a, input).send().await.unwrap();
    let ingest = service.ingestion_client(&client_a, a).await;
    let start = Utc::now() - Duration::minutes(10);
    let points: Vec<TelemetryPoint> = (0..20)
        .map(|i| TelemetryPoint {
            speed: Some(120.0),
            ignition: Some(true),
            ..point_of(Some(truck.id), None, start + Duration::seconds(10 * i))
        })
        .collect();
    ingest
        .ingest_telemetry(TelemetryBatch { points })
        .send()
        .await
        .unwrap();
    let events = client_a.list_events(a).send().await.unwrap();
    let speeding = events
        .iter()
        .find(|e| e.event_type == EventType::SpeedLimitExceeded)
        .expect("speeding at 120 km/h for minutes under a limit of 80 is an event");
    assert_eq!(speeding.details.threshold, Some(80.0));
    // The parent sees it; a sibling sees nothing of it, exactly as if it did not exist.
    assert_eq!(
        root.get_event(a, speeding.id).send().await.unwrap().id,
        speeding.id
    );
    let (status, code) = code_of(client_b.get_event(a, speeding.id).send().await);
    assert_eq!((status, code), (404, 1400));
    let (status, _) = code_of(client_b.list_events(a).send().await);
    assert_eq!(status, 404);
    let (status, _) = code_of(client_b.get_asset_state(a, truck.id).send().await);
    assert_eq!(status, 404);
    let (status, _) = code_of(
        client_b
            .list_event_notifications(a, speeding.id)
            .send()
            .await,
    );
    assert_eq!(status, 404);
    let (status, _) = code_of(client_b.acknowledge_event(a, speeding.id).send().await);
    assert_eq!(status, 404);
    let (status, _) = code_of(client_b.get_webhook_secret(a).send().await);
    assert_eq!(status, 404);
    // Under its own account id the sibling finds no such event either.
    let (status, _) = code_of(client_b.get_event(b, speeding.id).send().await);
    assert_eq!(status, 404);
    assert!(client_b.list_events(b).send().await.unwrap().is_empty());
}

#[tokio::test]
async fn events_filter_and_page_newest_first() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let truck = root
        .create_asset(account, asset_input("truck-1"))
        .send()
        .await
        .unwrap();
    let van = root
        .create_asset(account, asset_input("van-1"))
        .send()
        .await
        .unwrap();
    let ingest = service.ingestion_client(&root, account).await;
    // The service keeps timestamps to the microsecond; whole seconds compare exactly.
    let start = DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    // Alarm on, off, on again: two alarm episodes per asset, at known times.
    let alarm = |asset: Uuid, minute: i64, on: bool| TelemetryPoint {
        signals: Some(DeviceSignals {
            alarm: Some(on),
            ..no_signals()
        }),
        ..point_of(Some(asset), None, start + Duration::minutes(minute))
    };
    let points = vec![
        alarm(truck.id, 0, true),
        alarm(truck.id, 1, false),
        alarm(truck.id, 2, true),
        alarm(van.id, 3, true),
        alarm(van.id, 4, false),
        alarm(van.id, 5, true),
    ];
    ingest
        .ingest_telemetry(TelemetryBatch { points })
        .send()
        .await
        .unwrap();
    let alarms = |events: &[Event]| -> Vec<(Uuid, DateTime<Utc>)> {
        events
            .iter()
            .filter(|e| e.event_type == EventType::AlarmTriggered)
            .map(|e| (e.asset_id, e.occurred_at))
            .collect()
    };
    let all = root.list_events(account).send().await.unwrap();
    let minute = |m: i64| start + Duration::minutes(m);
    assert_eq!(
        alarms(&all),
        [
            (van.id, minute(5)),
            (van.id, minute(3)),
            (truck.id, minute(2)),
            (truck.id, minute(0)),
        ]
    );
    let of_truck = root
        .list_events(account)
        .asset_id(truck.id)
        .event_type(EventType::AlarmTriggered)
        .send()
        .await
        .unwrap();
    assert_eq!(
        alarms(&of_truck),
        [(truck.id, minute(2)), (truck.id, minute(0))]
    );
    let window = root
        .list_events(account)
        .event_type(EventType::AlarmTriggered)
        .from(minute(2))
        .to(minute(5))
        .send()
        .await
        .unwrap();
    assert_eq!(
        alarms(&window),
        [(van.id, minute(3)), (truck.id, minute(2))]
    );
    let page = root
        .list_events(account)
        .event_type(EventType::AlarmTriggered)
        .skip(1)
        .take(2)
        .send()
        .await
        .unwrap();
    assert_eq!(alarms(&page), [(van.id, minute(3)), (truck.id, minute(2))]);
    // An empty range is a question with an empty answer.
    for (from, to) in [(minute(5), minute(2)), (minute(3), minute(3))] {
        let none = root
            .list_events(account)
            .from(from)
            .to(to)
            .send()
            .await
            .unwrap();
        assert!(none.is_empty(), "{from}..{to}: {none:?}");
    }
}
