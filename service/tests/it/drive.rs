//! A scripted drive posted as telemetry over real HTTP: a truck leaves its depot in Kehl (DE),
//! speeds, crosses the Rhine into Strasbourg (FR), stops, idles and switches off. The events the
//! API lists must be exactly the expected ones, whichever way the points are batched or ordered.

use crate::support;

use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use chrono::{DateTime, Duration, Utc};
use support::drive::{DRIVE, create_depot, points};
use support::*;
use uuid::Uuid;

struct Drive {
    _dir: tempfile::TempDir,
    service: TestService,
    client: Client,
    account: Uuid,
    truck: Uuid,
    depot: Uuid,
    start: DateTime<Utc>,
}

async fn prepare() -> Drive {
    let dir = tempfile::tempdir().unwrap();
    let service = TestService::start(config(&dir, Uuid::new_v4())).await;
    let client = service.root_client();
    let account = service.root;
    let mut input = asset_input("truck-1");
    input.telemetry_rules = Some(TelemetryRules {
        speed_limit: Some(90),
        ..empty_rules()
    });
    let truck = client.create_asset(account, input).send().await.unwrap().id;
    let depot = create_depot(&client, account).await;
    // Whole seconds: the service keeps microseconds, so times compare exactly.
    let start = DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    Drive {
        _dir: dir,
        service,
        client,
        account,
        truck,
        depot,
        start,
    }
}

impl Drive {
    async fn events(&self) -> Vec<(i64, EventType, EventDetails)> {
        let mut events = self
            .client
            .list_events(self.account)
            .asset_id(self.truck)
            .take(500)
            .send()
            .await
            .unwrap();
        events.reverse();
        events
            .into_iter()
            .map(|e| {
                (
                    (e.occurred_at - self.start).num_seconds(),
                    e.event_type,
                    e.details,
                )
            })
            .collect()
    }

    fn expected(&self) -> Vec<(i64, EventType)> {
        vec![
            (0, EventType::GeofenceEntered),
            (60, EventType::IgnitionTurnedOn),
            (100, EventType::GeofenceExited),
            (110, EventType::MovementStarted),
            (210, EventType::SpeedLimitExceeded),
            (300, EventType::CountryBorderCrossed),
            (580, EventType::MovementStopped),
            (700, EventType::EngineIdling),
            (760, EventType::IgnitionTurnedOff),
        ]
    }
}

#[tokio::test]
async fn a_drive_yields_exactly_the_expected_events() {
    let drive = prepare().await;
    let ingest = drive
        .service
        .ingestion_client(&drive.client, drive.account)
        .await;
    let result = ingest
        .ingest_telemetry(TelemetryBatch {
            points: points(drive.truck, drive.start),
        })
        .send()
        .await
        .unwrap();
    assert_eq!(result.accepted, DRIVE.len() as i64);
    let events = drive.events().await;
    let kinds: Vec<(i64, EventType)> = events.iter().map(|(t, k, _)| (*t, *k)).collect();
    assert_eq!(kinds, drive.expected());
    // What triggered each: the geofence, the speed and its limit, the countries.
    let details = |kind: EventType| &events.iter().find(|(_, k, _)| *k == kind).unwrap().2;
    assert_eq!(
        details(EventType::GeofenceEntered).geofence_id,
        Some(drive.depot)
    );
    assert_eq!(
        details(EventType::GeofenceExited).geofence_id,
        Some(drive.depot)
    );
    let speeding = details(EventType::SpeedLimitExceeded);
    assert_eq!(
        (speeding.value, speeding.threshold),
        (Some(120.0), Some(90.0))
    );
    assert_eq!(
        speeding.episode_started_at,
        Some(drive.start + Duration::seconds(200))
    );
    let border = details(EventType::CountryBorderCrossed);
    assert_eq!(
        (border.from_country.as_deref(), border.to_country.as_deref()),
        (Some("DE"), Some("FR"))
    );
    // The state after the drive: parked in France, ignition off, nothing open but the stop.
    let state = drive
        .client
        .get_asset_state(drive.account, drive.truck)
        .send()
        .await
        .unwrap();
    assert_eq!(
        state.last_report_at,
        Some(drive.start + Duration::seconds(760))
    );
    assert_eq!(state.country.as_deref(), Some("FR"));
    assert_eq!(state.ignition, Some(false));
    assert!(state.inside_geofences.is_empty());
    let position = state.position.unwrap();
    assert_eq!((position.longitude, position.latitude), (7.7450, 48.5820));
    drive.service.stop().await;
}

#[tokio::test]
async fn the_same_drive_in_small_shuffled_batches_and_repeated_gives_the_same_events() {
    let drive = prepare().await;
    let ingest = drive
        .service
        .ingestion_client(&drive.client, drive.account)
        .await;
    let mut all = points(drive.truck, drive.start);
    // Batches of three, each reversed: points arrive out of order within a batch (the service
    // sorts them), and every batch is sent twice (a client retrying after a timeout).
    for chunk in all.chunks_mut(3) {
        chunk.reverse();
        for _ in 0..2 {
            ingest
                .ingest_telemetry(TelemetryBatch {
                    points: chunk.to_vec(),
                })
                .send()
                .await
                .unwrap();
        }
    }
    let kinds: Vec<(i64, EventType)> = drive
        .events()
        .await
        .iter()
        .map(|(t, k, _)| (*t, *k))
        .collect();
    assert_eq!(kinds, drive.expected());
    drive.service.stop().await;
}

#[tokio::test]
async fn a_late_point_is_stored_but_raises_nothing() {
    let drive = prepare().await;
    let ingest = drive
        .service
        .ingestion_client(&drive.client, drive.account)
        .await;
    let all = points(drive.truck, drive.start);
    // Everything up to the speeding, then a point from before it that would have left the
    // depot again: late, so it changes no episode.
    ingest
        .ingest_telemetry(TelemetryBatch {
            points: all[..7].to_vec(),
        })
        .send()
        .await
        .unwrap();
    let late = TelemetryPoint {
        latitude: Some(48.5700),
        longitude: Some(7.8200),
        speed: Some(0.0),
        ignition: Some(false),
        ..point_of(
            Some(drive.truck),
            None,
            drive.start + Duration::seconds(150),
        )
    };
    let result = ingest
        .ingest_telemetry(TelemetryBatch { points: vec![late] })
        .send()
        .await
        .unwrap();
    assert_eq!(result.accepted, 1);
    ingest
        .ingest_telemetry(TelemetryBatch {
            points: all[7..].to_vec(),
        })
        .send()
        .await
        .unwrap();
    let kinds: Vec<(i64, EventType)> = drive
        .events()
        .await
        .iter()
        .map(|(t, k, _)| (*t, *k))
        .collect();
    assert_eq!(kinds, drive.expected());
    drive.service.stop().await;
}
