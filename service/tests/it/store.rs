//! Each store against a real database: a SQLite file, and a database on a throwaway PostgreSQL
//! cluster (see `support::postgres`).

use crate::support;

use asset_alerting_detect::{AssetState, Detector, Point, Thresholds};
use asset_alerting_matching::limits::RateLimit;
use asset_alerting_models::*;
use asset_alerting_service::auth::hash_secret;
use asset_alerting_service::store::alerts::{
    AssetPoints, AttemptResult, ChannelKind, Claimed, IngestJob, NewEvent, NewNotification,
    Outcome, Pipeline, SendCheck, SendStart, Target,
};
use asset_alerting_service::store::postgres::PgSettings;
use asset_alerting_service::store::{
    AccountRecord, AlertStore, AssetFilter, Database, GeofenceDeletion, IngestionTokenRecord, Page,
    Store, StoreError,
};
use chrono::Utc;
use std::collections::BTreeMap;
use support::Backend;
use uuid::Uuid;

fn account(parent: Option<Uuid>) -> AccountRecord {
    AccountRecord {
        id: Uuid::new_v4(),
        parent_id: parent,
        name: "acme".into(),
        friendly_name: None,
        culture: None,
        technical_email_address: None,
        callback_uri: None,
        secret_hash: hash_secret("secret"),
        created_at: Utc::now(),
    }
}

fn asset(account: Uuid, external_id: &str) -> Asset {
    Asset {
        id: Uuid::new_v4(),
        account_id: account,
        external_id: external_id.into(),
        device_id: None,
        name: format!("Asset {external_id}"),
        tier: AssetTier::Basic,
        disabled_events: BTreeMap::new(),
        telemetry_rules: Some(TelemetryRules {
            input_voltage_low_threshold: None,
            battery_voltage_low_threshold: None,
            battery_percentage_low_threshold: None,
            speed_limit: Some(90),
            fuel_level_low_threshold: Some(10.5),
            ad_blue_level_low_threshold: None,
            temperature_low_threshold: None,
            temperature_high_threshold: None,
            pressure_low_threshold: None,
            pressure_high_threshold: None,
            engine_speed_limit: None,
        }),
        is_deleted: Some(false),
    }
}

fn geofence(account: Uuid, external_id: &str, name: &str) -> Geofence {
    Geofence {
        id: Uuid::new_v4(),
        account_id: account,
        external_id: external_id.into(),
        name: name.into(),
        polygon: GeoJsonPolygon {
            r#type: GeoJsonPolygonType::Polygon,
            coordinates: vec![vec![
                vec![0.0, 0.0],
                vec![1.0, 0.0],
                vec![1.0, 1.0],
                vec![0.0, 0.0],
            ]],
        },
    }
}

fn rule(asset: &Asset, inside: Vec<Uuid>) -> AlertRule {
    AlertRule {
        id: Uuid::new_v4(),
        account_id: asset.account_id,
        asset_id: asset.id,
        event_type: EventType::GeofenceEntered,
        order: 0,
        recipient: Recipient {
            culture: "en-US".into(),
            time_zone: "UTC".into(),
            phone_number: None,
            description: None,
        },
        channel: Channel {
            r#type: ChannelType::Call,
            call: Some(CallChannel {}),
            sms: None,
            telegram: None,
            email: None,
        },
        is_disabled: false,
        days_of_week: vec![],
        time_of_day: None,
        dates: None,
        inside_geofences: inside,
        outside_geofences: vec![],
    }
}

/// A database of one test: a SQLite file in its own folder, or a PostgreSQL database.
struct TestDb {
    _dir: tempfile::TempDir,
    url: String,
}

impl TestDb {
    /// `None` when the backend cannot be had here (PostgreSQL outside CI; the reason is printed).
    fn new(backend: Backend) -> Option<TestDb> {
        let dir = tempfile::tempdir().unwrap();
        let url = match backend {
            Backend::Sqlite => format!("sqlite://{}", dir.path().join("store.db").display()),
            Backend::Postgres => support::postgres::database()?,
        };
        Some(TestDb { _dir: dir, url })
    }

    async fn open(&self) -> Database {
        Database::open(&self.url, &PgSettings::default())
            .await
            .unwrap()
    }
}

on_both_backends!(
    data_survives_reopening,
    account_tree_limits_visibility,
    assets_list_in_order_page_filter_and_soft_delete,
    referenced_geofences_cannot_be_deleted,
    ingestion_tokens_are_limited_per_account_and_issuer,
    deleting_an_account_removes_its_subtree_and_nothing_else,
    settings_keep_the_first_value,
    concurrent_batches_of_one_asset_on_two_instances_run_one_after_the_other,
    a_batch_over_a_thousand_assets_is_stored_once,
    two_instances_never_claim_one_notification,
    a_claim_taken_over_neither_sends_nor_records,
    one_instance_holds_a_recipient_and_the_rate_limit_counts_every_send,
    destinations_take_turns_and_a_backed_off_one_waits,
    the_next_due_time_counts_unleased_notifications_and_held_leases,
    ingestion_racing_an_account_deletion_fails_neither,
    text_with_a_nul_is_stored_or_refused_as_bad_input,
);

async fn data_survives_reopening(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let root = account(None);
    let a = asset(root.id, "t-1");
    {
        let store = db.open().await;
        store.insert_account(&root).await.unwrap();
        store.insert_asset(&a).await.unwrap();
        store.close().await;
    }
    let store = db.open().await;
    assert_eq!(store.account(root.id).await.unwrap().unwrap().name, "acme");
    assert_eq!(store.asset(root.id, a.id).await.unwrap(), Some(a));
}

async fn account_tree_limits_visibility(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    check_visibility(&db.open().await).await;
}

async fn assets_list_in_order_page_filter_and_soft_delete(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    check_listing(&db.open().await).await;
}

/// A SQLite file is read on the request path by connections of its own (not sqlx's); an
/// in-memory database has no file to open them on, so its reads go through the pool.
#[tokio::test]
async fn an_in_memory_sqlite_database_reads_through_its_pool() {
    let store = Database::open("sqlite::memory:", &PgSettings::default())
        .await
        .unwrap();
    check_visibility(&store).await;
    check_listing(&store).await;
}

async fn check_visibility(store: &Database) {
    let root = account(None);
    let child = account(Some(root.id));
    let grandchild = account(Some(child.id));
    let sibling = account(Some(root.id));
    for a in [&root, &child, &grandchild, &sibling] {
        store.insert_account(a).await.unwrap();
    }
    assert!(store.is_within(root.id, grandchild.id).await.unwrap());
    assert!(store.is_within(child.id, grandchild.id).await.unwrap());
    assert!(store.is_within(child.id, child.id).await.unwrap());
    assert!(!store.is_within(child.id, root.id).await.unwrap());
    assert!(!store.is_within(child.id, sibling.id).await.unwrap());
    assert!(!store.is_within(grandchild.id, child.id).await.unwrap());
    assert!(!store.is_within(root.id, Uuid::new_v4()).await.unwrap());

    // The asset read together with the same check.
    let truck = asset(grandchild.id, "truck");
    store.insert_asset(&truck).await.unwrap();
    let within = |ancestor: Uuid, account: Uuid, id: Uuid| async move {
        store.asset_within(ancestor, account, id).await.unwrap()
    };
    assert_eq!(
        within(root.id, grandchild.id, truck.id).await,
        Some(Some(truck.clone()))
    );
    assert_eq!(
        within(child.id, grandchild.id, Uuid::new_v4()).await,
        Some(None)
    );
    assert_eq!(within(child.id, child.id, truck.id).await, Some(None));
    assert_eq!(within(sibling.id, grandchild.id, truck.id).await, None);
    assert_eq!(within(root.id, Uuid::new_v4(), truck.id).await, None);
}

async fn check_listing(store: &Database) {
    let root = account(None);
    store.insert_account(&root).await.unwrap();
    for id in ["c", "a", "b", "d"] {
        store.insert_asset(&asset(root.id, id)).await.unwrap();
    }
    let all = store
        .list_assets_within(
            root.id,
            root.id,
            AssetFilter::default(),
            Page { skip: 0, take: 50 },
        )
        .await
        .unwrap();
    let ids: Vec<&str> = all.iter().map(|a| a.external_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    let page = store
        .list_assets_within(
            root.id,
            root.id,
            AssetFilter::default(),
            Page { skip: 1, take: 2 },
        )
        .await
        .unwrap();
    assert_eq!(
        page.iter()
            .map(|a| a.external_id.as_str())
            .collect::<Vec<_>>(),
        ["b", "c"]
    );
    let filtered = store
        .list_assets_within(
            root.id,
            root.id,
            AssetFilter {
                external_id: Some("c"),
                include_deleted: false,
                ..AssetFilter::default()
            },
            Page { skip: 0, take: 50 },
        )
        .await
        .unwrap();
    assert_eq!(filtered.len(), 1);
    // An account the caller is not above shows nothing.
    let child = account(Some(root.id));
    store.insert_account(&child).await.unwrap();
    let hidden = store
        .list_assets_within(
            child.id,
            root.id,
            AssetFilter::default(),
            Page { skip: 0, take: 50 },
        )
        .await
        .unwrap();
    assert!(hidden.is_empty());

    let duplicate = store.insert_asset(&asset(root.id, "a")).await.unwrap_err();
    assert!(matches!(duplicate, StoreError::Conflict(_)), "{duplicate}");

    let a = &all[0];
    assert!(store.soft_delete_asset(root.id, a.id).await.unwrap());
    let live = store
        .list_assets_within(
            root.id,
            root.id,
            AssetFilter::default(),
            Page { skip: 0, take: 50 },
        )
        .await
        .unwrap();
    assert_eq!(live.len(), 3);
    let with_deleted = store
        .list_assets_within(
            root.id,
            root.id,
            AssetFilter {
                include_deleted: true,
                ..AssetFilter::default()
            },
            Page { skip: 0, take: 50 },
        )
        .await
        .unwrap();
    assert_eq!(with_deleted.len(), 4);
    assert_eq!(
        store
            .asset(root.id, a.id)
            .await
            .unwrap()
            .unwrap()
            .is_deleted,
        Some(true)
    );
    // The externalId of a deleted asset is free again.
    store.insert_asset(&asset(root.id, "a")).await.unwrap();
    // Another account cannot see the asset.
    assert_eq!(store.asset(Uuid::new_v4(), a.id).await.unwrap(), None);
}

async fn referenced_geofences_cannot_be_deleted(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let store = db.open().await;
    let root = account(None);
    store.insert_account(&root).await.unwrap();
    let a = asset(root.id, "t");
    store.insert_asset(&a).await.unwrap();
    let depot = geofence(root.id, "depot", "Depot");
    let yard = geofence(root.id, "yard", "Yard");
    store.insert_geofence(&depot).await.unwrap();
    store.insert_geofence(&yard).await.unwrap();
    let r = rule(&a, vec![depot.id]);
    store.insert_alert_rule(&r).await.unwrap();

    assert_eq!(
        store.delete_geofence(root.id, depot.id).await.unwrap(),
        GeofenceDeletion::Referenced(1)
    );
    assert_eq!(
        store.geofence(root.id, depot.id).await.unwrap(),
        Some(depot.clone())
    );
    let linked = store
        .alert_rule_geofences(root.id, a.id, EventType::GeofenceEntered)
        .await
        .unwrap();
    assert_eq!(linked, vec![depot.clone()]);
    assert_eq!(
        store.delete_geofence(root.id, yard.id).await.unwrap(),
        GeofenceDeletion::Deleted
    );
    assert_eq!(
        store.delete_geofence(root.id, yard.id).await.unwrap(),
        GeofenceDeletion::NotFound
    );

    // Detaching the geofence from the rule frees it.
    let mut detached = r.clone();
    detached.inside_geofences.clear();
    assert!(store.update_alert_rule(&detached).await.unwrap());
    assert_eq!(
        store.delete_geofence(root.id, depot.id).await.unwrap(),
        GeofenceDeletion::Deleted
    );
}

fn token(account: Uuid, issued_by: Uuid, now: chrono::DateTime<Utc>) -> IngestionTokenRecord {
    IngestionTokenRecord {
        id: Uuid::new_v4(),
        account_id: account,
        issued_by,
        created_at: now,
        expires_at: now + chrono::Duration::hours(1),
    }
}

async fn ingestion_tokens_are_limited_per_account_and_issuer(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let store = db.open().await;
    let root = account(None);
    let child = account(Some(root.id));
    store.insert_account(&root).await.unwrap();
    store.insert_account(&child).await.unwrap();
    let now = asset_alerting_service::store::micros(Utc::now());
    let mut by_root = Vec::new();
    for i in 0..3 {
        let t = token(child.id, root.id, now);
        assert!(
            store
                .insert_ingestion_token(&t, &format!("r{i}"), now, 3)
                .await
                .unwrap()
        );
        by_root.push(t);
    }
    let refused = token(child.id, root.id, now);
    assert!(
        !store
            .insert_ingestion_token(&refused, "r3", now, 3)
            .await
            .unwrap()
    );
    // The ancestor's tokens do not use up the child's own allowance.
    let own = token(child.id, child.id, now);
    assert!(
        store
            .insert_ingestion_token(&own, "c0", now, 3)
            .await
            .unwrap()
    );
    let listed = store.ingestion_tokens(child.id, now).await.unwrap();
    assert_eq!(listed.len(), 4);
    assert!(listed.contains(&own) && listed.contains(&by_root[0]));
    assert!(!listed.contains(&refused));

    // Revoking frees a slot and removes the token for good.
    assert!(
        store
            .revoke_ingestion_token(child.id, by_root[0].id)
            .await
            .unwrap()
    );
    assert!(
        !store
            .revoke_ingestion_token(child.id, by_root[0].id)
            .await
            .unwrap()
    );
    assert!(
        !store
            .revoke_ingestion_token(root.id, by_root[1].id)
            .await
            .unwrap(),
        "wrong account"
    );
    assert_eq!(
        store.ingestion_token_account("r0", now).await.unwrap(),
        None
    );
    assert_eq!(
        store.ingestion_token_account("r1", now).await.unwrap(),
        Some(child.id)
    );
    assert!(
        store
            .insert_ingestion_token(&refused, "r3", now, 3)
            .await
            .unwrap()
    );

    // Once they expire, they are neither listed nor counted.
    let after = now + chrono::Duration::hours(1) + chrono::Duration::seconds(1);
    assert!(
        store
            .ingestion_tokens(child.id, after)
            .await
            .unwrap()
            .is_empty()
    );
    let fresh = token(child.id, root.id, after);
    assert!(
        store
            .insert_ingestion_token(&fresh, "r9", after, 3)
            .await
            .unwrap()
    );
}

async fn deleting_an_account_removes_its_subtree_and_nothing_else(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let store = db.open().await;
    let root = account(None);
    let doomed = account(Some(root.id));
    let grandchild = account(Some(doomed.id));
    let sibling = account(Some(root.id));
    for a in [&root, &doomed, &grandchild, &sibling] {
        store.insert_account(a).await.unwrap();
    }
    let now = Utc::now();
    let mut assets = std::collections::HashMap::new();
    for a in [&doomed, &grandchild, &sibling] {
        let truck = asset(a.id, "TRUCK-1");
        store.insert_asset(&truck).await.unwrap();
        assets.insert(a.id, truck.id);
        let t = token(a.id, a.id, now);
        assert!(
            store
                .insert_ingestion_token(&t, &format!("t-{}", a.id), now, 10)
                .await
                .unwrap()
        );
    }
    assert!(store.delete_account_tree(doomed.id).await.unwrap());
    assert!(!store.delete_account_tree(doomed.id).await.unwrap());
    for gone in [&doomed, &grandchild] {
        assert_eq!(store.account(gone.id).await.unwrap(), None);
        assert!(!store.is_within(root.id, gone.id).await.unwrap());
        assert_eq!(store.asset(gone.id, assets[&gone.id]).await.unwrap(), None);
        assert_eq!(
            store
                .ingestion_token_account(&format!("t-{}", gone.id), now)
                .await
                .unwrap(),
            None
        );
    }
    assert!(store.account(sibling.id).await.unwrap().is_some());
    let page = Page { skip: 0, take: 50 };
    assert_eq!(
        store
            .list_assets_within(
                sibling.id,
                sibling.id,
                AssetFilter {
                    include_deleted: true,
                    ..AssetFilter::default()
                },
                page
            )
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        store
            .ingestion_token_account(&format!("t-{}", sibling.id), now)
            .await
            .unwrap(),
        Some(sibling.id)
    );
    let children = store.child_accounts(root.id, page).await.unwrap();
    assert_eq!(
        children.iter().map(|a| a.id).collect::<Vec<_>>(),
        [sibling.id]
    );
}

async fn settings_keep_the_first_value(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let store = db.open().await;
    assert_eq!(store.setting("k").await.unwrap(), None);
    assert_eq!(
        store.setting_or_insert("k", "first").await.unwrap(),
        "first"
    );
    assert_eq!(
        store.setting_or_insert("k", "second").await.unwrap(),
        "first"
    );
}

/// A pipeline that records the state each batch starts from, then moves it on as the detector
/// does.
struct RecordingPipeline {
    seen: std::sync::Arc<std::sync::Mutex<Vec<Option<chrono::DateTime<Utc>>>>>,
}

impl Pipeline for RecordingPipeline {
    fn run(
        &self,
        _asset: &Asset,
        _rules: &[AlertRule],
        state: &mut AssetState,
        points: &[Point],
    ) -> Vec<NewEvent> {
        self.seen.lock().unwrap().push(state.last_timestamp());
        for point in points {
            Detector::default().process(state, &Thresholds::default(), &[], point);
        }
        Vec::new()
    }
}

/// Two instances (two stores on one database) ingest a batch of one asset each at the same time,
/// with no point in common: the second to run must see the state the first left, not the state
/// both started from.
async fn concurrent_batches_of_one_asset_on_two_instances_run_one_after_the_other(
    backend: Backend,
) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let (first, second) = (db.open().await, db.open().await);
    let root = account(None);
    first.insert_account(&root).await.unwrap();
    let truck = asset(root.id, "truck");
    first.insert_asset(&truck).await.unwrap();
    let start = chrono::DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    for round in 0..5_i64 {
        let job = |from: i64| IngestJob {
            batches: vec![AssetPoints {
                asset: truck.clone(),
                points: bare_points(start, from..from + 5),
            }],
            received_at: Utc::now(),
            pipeline: Box::new(RecordingPipeline { seen: seen.clone() }),
        };
        let (a, b) = tokio::join!(
            first.ingest(job(round * 100)),
            second.ingest(job(round * 100 + 50))
        );
        assert_eq!(
            (a.unwrap(), b.unwrap()),
            (vec![vec![true; 5]], vec![vec![true; 5]])
        );
        let starts = seen.lock().unwrap().drain(..).collect::<Vec<_>>();
        // The one that ran first saw the previous round's end; the other saw the first's.
        let previous = (round > 0).then(|| start + chrono::Duration::seconds(round * 100 - 46));
        assert!(starts.contains(&previous), "round {round}: {starts:?}");
        assert_eq!(starts.len(), 2);
        assert_ne!(starts[0], starts[1], "both batches started from one state");
        // The newer batch's points are the newest stored, whichever was stored first.
        let state = first.asset_states(&[truck.id]).await.unwrap();
        assert_eq!(
            state[0].state.last_timestamp(),
            Some(start + chrono::Duration::seconds(round * 100 + 54))
        );
    }
}

/// The largest batch the API takes, 1,000 points, each for an asset of its own and each raising
/// an event with a notification: every statement of the job is at its largest (the check for
/// points already stored once made SQLite refuse it as too deep an expression).
async fn a_batch_over_a_thousand_assets_is_stored_once(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let store = db.open().await;
    let root = account(None);
    store.insert_account(&root).await.unwrap();
    let mut assets = Vec::new();
    for i in 0..1000 {
        let a = asset(root.id, &format!("truck-{i:04}"));
        store.insert_asset(&a).await.unwrap();
        assets.push(a);
    }
    let start = chrono::DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    let job = || IngestJob {
        batches: assets
            .iter()
            .enumerate()
            .map(|(i, a)| AssetPoints {
                asset: a.clone(),
                points: bare_points(start, i as i64..i as i64 + 1),
            })
            .collect(),
        received_at: Utc::now(),
        pipeline: Box::new(ONE_RECIPIENT),
    };
    assert_eq!(store.ingest(job()).await.unwrap(), vec![vec![true]; 1000]);
    // The same batch again: every point is a duplicate, nothing is raised twice.
    assert_eq!(store.ingest(job()).await.unwrap(), vec![vec![false]; 1000]);
    let now = Utc::now();
    let owed = store
        .claim_due(now, now + chrono::Duration::seconds(60), 5000, 5000)
        .await
        .unwrap();
    assert_eq!(owed.len(), 1000);
}

/// Points with a timestamp only, one a second from `start`.
fn bare_points(start: chrono::DateTime<Utc>, seconds: std::ops::Range<i64>) -> Vec<Point> {
    seconds
        .map(|s| {
            serde_json::from_value(serde_json::json!({
                "timestamp": start + chrono::Duration::seconds(s)
            }))
            .unwrap()
        })
        .collect()
}

/// An event with one SMS notification, due at once, for every point; to one of `recipients`
/// phone numbers, by the point's second.
struct NotifyingPipeline {
    recipients: i64,
}

/// One recipient for every notification.
const ONE_RECIPIENT: NotifyingPipeline = NotifyingPipeline { recipients: 1 };

impl Pipeline for NotifyingPipeline {
    fn run(
        &self,
        asset: &Asset,
        _rules: &[AlertRule],
        _state: &mut AssetState,
        points: &[Point],
    ) -> Vec<NewEvent> {
        points
            .iter()
            .map(|p| NewEvent {
                event: Event {
                    id: Uuid::new_v4(),
                    account_id: asset.account_id,
                    asset_id: asset.id,
                    event_type: EventType::AlarmTriggered,
                    occurred_at: p.timestamp,
                    detected_at: p.timestamp,
                    position: None,
                    details: serde_json::from_value(serde_json::json!({})).unwrap(),
                    notifications_suppressed: false,
                    acknowledged_at: None,
                    acknowledged_by: None,
                },
                notifications: vec![NewNotification {
                    id: Uuid::new_v4(),
                    rule_id: Some(Uuid::new_v4()),
                    webhook_account_id: None,
                    target: Target {
                        channel: ChannelKind::Sms,
                        address: format!(
                            "+4915112{:06}",
                            p.timestamp.timestamp().rem_euclid(self.recipients)
                        ),
                        culture: "en-GB".into(),
                        time_zone: "UTC".into(),
                        interactive: false,
                    },
                    due_at: p.timestamp,
                }],
            })
            .collect()
    }
}

/// Two instances claim the outbox at the same moments, again and again: no notification is
/// leased to both, and together they take every one; an expired lease is claimed again.
async fn two_instances_never_claim_one_notification(backend: Backend) {
    const NOTIFICATIONS: i64 = 60;
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let (first, second) = (db.open().await, db.open().await);
    let root = account(None);
    first.insert_account(&root).await.unwrap();
    let truck = asset(root.id, "truck");
    first.insert_asset(&truck).await.unwrap();
    let start = chrono::DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    let job = IngestJob {
        batches: vec![AssetPoints {
            asset: truck.clone(),
            points: bare_points(start, 0..NOTIFICATIONS),
        }],
        received_at: Utc::now(),
        pipeline: Box::new(NotifyingPipeline {
            recipients: NOTIFICATIONS,
        }),
    };
    first.ingest(job).await.unwrap();
    let now = Utc::now();
    let lease = now + chrono::Duration::seconds(60);
    let mut claimed = Vec::new();
    for _ in 0..NOTIFICATIONS {
        let (a, b) = tokio::join!(
            first.claim_due(now, lease, 1, 7),
            second.claim_due(now, lease, 1, 7)
        );
        claimed.extend(a.unwrap().into_iter().chain(b.unwrap()).map(|c| c.id));
    }
    let mut distinct = claimed.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        claimed.len(),
        "a notification was claimed twice"
    );
    assert_eq!(claimed.len(), NOTIFICATIONS as usize);
    // Leased: nothing is due until the leases expire; then every one is claimable again.
    assert!(
        first
            .claim_due(now, lease, 1, 100)
            .await
            .unwrap()
            .is_empty()
    );
    let after = lease + chrono::Duration::seconds(1);
    let again = second.claim_due(after, after + chrono::Duration::seconds(60), 1, 100);
    assert_eq!(again.await.unwrap().len(), NOTIFICATIONS as usize);
}

/// Two stores on one database, with `count` due SMS notifications to one recipient.
async fn outbox_of(db: &TestDb, count: i64) -> (Database, Database) {
    let (first, second) = (db.open().await, db.open().await);
    let root = account(None);
    first.insert_account(&root).await.unwrap();
    let truck = asset(root.id, "truck");
    first.insert_asset(&truck).await.unwrap();
    let start = chrono::DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    let points = bare_points(start, 0..count);
    let job = IngestJob {
        batches: vec![AssetPoints {
            asset: truck,
            points,
        }],
        received_at: Utc::now(),
        pipeline: Box::new(ONE_RECIPIENT),
    };
    first.ingest(job).await.unwrap();
    (first, second)
}

/// A dispatcher whose lease lapsed (a stall, a slow group) may not send: confirming its claim
/// fails, whether or not another has claimed the notification since; and its late outcome does
/// not overwrite what the new holder records.
async fn a_claim_taken_over_neither_sends_nor_records(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let (first, second) = outbox_of(&db, 1).await;
    let secs = chrono::Duration::seconds;
    let t0 = Utc::now();
    let stale = first.claim_due(t0, t0 + secs(60), 10, 10).await.unwrap();
    let [stale] = stale.as_slice() else {
        panic!("one notification is due")
    };
    // Lapsed and not yet claimed again: still not to be sent.
    let lapsed = start_one(&first, stale, t0 + secs(61), t0 + secs(121)).await;
    assert_eq!(lapsed, SendStart::LeaseLost);
    let t1 = t0 + secs(62);
    let taken = second.claim_due(t1, t1 + secs(60), 10, 10).await.unwrap();
    let [taken] = taken.as_slice() else {
        panic!("the lapsed claim is claimable again")
    };
    assert_eq!(taken.id, stale.id);
    assert_ne!(taken.lease, stale.lease);
    let started = start_one(&first, stale, t1, t1 + secs(60)).await;
    assert_eq!(started, SendStart::LeaseLost);
    let started = start_one(&second, taken, t1, t1 + secs(60)).await;
    assert_eq!(started, SendStart::Send);
    // The old holder's outcome comes late; the new holder's stands.
    let late = Outcome::Attempt {
        id: stale.id,
        lease: stale.lease,
        at: t1,
        result: AttemptResult::Failed {
            provider_code: None,
            message: "stale".into(),
        },
    };
    first.record_round(&[late], t1).await.unwrap();
    let delivered = Outcome::Attempt {
        id: taken.id,
        lease: taken.lease,
        at: t1,
        result: AttemptResult::Delivered {
            provider_code: None,
        },
    };
    second.record_round(&[delivered], t1).await.unwrap();
    let event = taken.events[0].0.id;
    let notifications = second.event_notifications(event).await.unwrap();
    assert_eq!(notifications[0].status, NotificationStatus::Sent);
    // Recorded: nothing more to claim or send.
    let later = t1 + secs(600);
    assert!(
        first
            .claim_due(later, later, 10, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let again = start_one(&second, taken, t1 + secs(1), t1 + secs(60)).await;
    assert_eq!(again, SendStart::LeaseLost);
}

/// Confirms one claimed notification (no rate limit).
async fn start_one(
    store: &Database,
    claimed: &Claimed,
    now: chrono::DateTime<Utc>,
    lease_until: chrono::DateTime<Utc>,
) -> SendStart {
    let started = store
        .start_sends(&[SendCheck::of(claimed, None)], now, lease_until)
        .await
        .unwrap();
    started[0]
}

/// Confirms each claimed notification in a batch of its own, one after the other.
async fn start_all(
    store: &Database,
    claimed: &[Claimed],
    now: chrono::DateTime<Utc>,
    lease_until: chrono::DateTime<Utc>,
    limit: Option<RateLimit>,
) -> Vec<SendStart> {
    let mut started = Vec::new();
    for c in claimed {
        let check = SendCheck::of(c, limit);
        started.extend(store.start_sends(&[check], now, lease_until).await.unwrap());
    }
    started
}

/// Records each claimed notification as delivered at `at`.
async fn delivered_all(store: &Database, claimed: &[Claimed], at: chrono::DateTime<Utc>) {
    let outcomes: Vec<_> = claimed
        .iter()
        .map(|c| Outcome::Attempt {
            id: c.id,
            lease: c.lease,
            at,
            result: AttemptResult::Delivered {
                provider_code: None,
            },
        })
        .collect();
    store.record_round(&outcomes, at).await.unwrap();
}

/// Eight alerts to one recipient: while one instance holds some, the other claims none (one
/// destination, one holder, in order); the other takes the rest once those are recorded, and
/// the rate limit (5 a minute) counts the recorded sends and those its own confirmation starts.
/// On a fresh window, five of eight go.
async fn one_instance_holds_a_recipient_and_the_rate_limit_counts_every_send(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let (first, second) = outbox_of(&db, 8).await;
    let now = Utc::now();
    let lease_until = now + chrono::Duration::seconds(60);
    let mine = first.claim_due(now, lease_until, 4, 8).await.unwrap();
    let theirs = second.claim_due(now, lease_until, 4, 8).await.unwrap();
    assert_eq!((mine.len(), theirs.len()), (4, 0));
    let limit = Some(RateLimit::default());
    let started = start_all(&first, &mine, now, lease_until, limit).await;
    assert_eq!(sent_and_coalesced(&started), (4, 0));
    delivered_all(&first, &mine, now).await;
    let theirs = second.claim_due(now, lease_until, 8, 8).await.unwrap();
    assert_eq!(theirs.len(), 4);
    let checks: Vec<_> = theirs.iter().map(|c| SendCheck::of(c, limit)).collect();
    let started = second.start_sends(&checks, now, lease_until).await.unwrap();
    assert_eq!(sent_and_coalesced(&started), (1, 3));
    let (third, _) = outbox_of(&db, 8).await;
    let later = now + chrono::Duration::seconds(120);
    let lease_until = later + chrono::Duration::seconds(60);
    let again = third.claim_due(later, lease_until, 8, 8).await.unwrap();
    assert_eq!(again.len(), 8);
    let checks: Vec<_> = again.iter().map(|c| SendCheck::of(c, limit)).collect();
    let started = third
        .start_sends(&checks, later, lease_until)
        .await
        .unwrap();
    assert_eq!(sent_and_coalesced(&started), (5, 3));
}

/// Notifications to three destinations, nine to the first: a claim gives every destination its
/// next before any gets a second, at most `per_destination` each, oldest first per destination;
/// none of a destination while its claim is held; a postponed destination waits until its time,
/// and the rest of a claim released with it is free again then.
async fn destinations_take_turns_and_a_backed_off_one_waits(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let (first, second) = (db.open().await, db.open().await);
    let root = account(None);
    first.insert_account(&root).await.unwrap();
    let truck = asset(root.id, "truck");
    first.insert_asset(&truck).await.unwrap();
    let start = chrono::DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    // Seconds 0..9 go to recipient 0, 1, 2 by the second modulo 3; 0 has 0, 3, 6, 9, ...
    let job = IngestJob {
        batches: vec![AssetPoints {
            asset: truck,
            points: bare_points(start, 0..15),
        }],
        received_at: Utc::now(),
        pipeline: Box::new(NotifyingPipeline { recipients: 3 }),
    };
    first.ingest(job).await.unwrap();
    let now = Utc::now();
    let lease_until = now + chrono::Duration::seconds(60);
    let address = |c: &Claimed| c.target.address.clone();
    let occurred = |c: &Claimed| (c.events[0].0.occurred_at - start).num_seconds();
    // Turns: the first three are one of each destination.
    let claimed = first.claim_due(now, lease_until, 2, 3).await.unwrap();
    let mut destinations: Vec<String> = claimed.iter().map(address).collect();
    destinations.sort();
    destinations.dedup();
    assert_eq!(destinations.len(), 3, "{destinations:?}");
    let first_of_backed_off = claimed
        .iter()
        .find(|c| address(c) == destinations[0])
        .map(occurred)
        .unwrap();
    // Held: the other instance gets nothing of them.
    assert!(
        second
            .claim_due(now, lease_until, 2, 10)
            .await
            .unwrap()
            .is_empty()
    );
    // Recorded, they are free: two of each, oldest first.
    delivered_all(&first, &claimed, now).await;
    let claimed = second.claim_due(now, lease_until, 2, 10).await.unwrap();
    assert_eq!(claimed.len(), 6);
    for destination in &destinations {
        let seconds: Vec<i64> = claimed
            .iter()
            .filter(|c| &address(c) == destination)
            .map(occurred)
            .collect();
        assert_eq!(seconds.len(), 2, "{destination}: {seconds:?}");
        assert!(seconds[0] < seconds[1], "{destination}: {seconds:?}");
    }
    // The first destination is backed off: its claimed two are released with it.
    let backed_off = (ChannelKind::Sms, destinations[0].clone());
    let released: Vec<Uuid> = claimed
        .iter()
        .filter(|c| address(c) == destinations[0])
        .map(|c| c.id)
        .collect();
    let until = now + chrono::Duration::seconds(30);
    let lease = claimed[0].lease;
    second
        .postpone_destination(&backed_off, until, now, (lease, &released))
        .await
        .unwrap();
    let others: Vec<_> = claimed
        .iter()
        .filter(|c| address(c) != destinations[0])
        .cloned()
        .collect();
    delivered_all(&second, &others, now).await;
    let claimed = first.claim_due(now, lease_until, 10, 100).await.unwrap();
    assert!(claimed.iter().all(|c| address(c) != destinations[0]));
    assert_eq!(
        claimed.len(),
        4,
        "the other two destinations' last two each"
    );
    delivered_all(&first, &claimed, now).await;
    // After the cooldown: the backed-off destination's other four, oldest first.
    let after = until + chrono::Duration::seconds(1);
    let claimed = first
        .claim_due(after, after + chrono::Duration::seconds(60), 10, 100)
        .await
        .unwrap();
    let seconds: Vec<i64> = claimed.iter().map(occurred).collect();
    let expected: Vec<i64> = (1..5).map(|i| first_of_backed_off + 3 * i).collect();
    assert_eq!(seconds, expected);
    assert!(seconds.windows(2).all(|w| w[0] < w[1]), "{seconds:?}");
    assert!(claimed.iter().all(|c| address(c) == destinations[0]));
}

/// When the dispatcher looks again: the earliest due time of a pending notification nobody
/// holds, or the end of a lease held on one (whichever is first); none once all are delivered.
async fn the_next_due_time_counts_unleased_notifications_and_held_leases(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let store = db.open().await;
    assert_eq!(store.next_due().await.unwrap(), None);
    let root = account(None);
    store.insert_account(&root).await.unwrap();
    let truck = asset(root.id, "truck");
    store.insert_asset(&truck).await.unwrap();
    let start = chrono::DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    // Seconds 0..5, due then; even seconds to one recipient, odd to the other.
    let job = IngestJob {
        batches: vec![AssetPoints {
            asset: truck,
            points: bare_points(start, 0..6),
        }],
        received_at: Utc::now(),
        pipeline: Box::new(NotifyingPipeline { recipients: 2 }),
    };
    store.ingest(job).await.unwrap();
    let second = |n: i64| start + chrono::Duration::seconds(n);
    assert_eq!(store.next_due().await.unwrap(), Some(second(0)));
    let now = chrono::DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap();
    let (lease, later_lease) = (
        now + chrono::Duration::seconds(60),
        now + chrono::Duration::seconds(90),
    );
    // Second 0 held until `lease`: the next is second 1, nobody's.
    let held = store.claim_due(now, lease, 1, 1).await.unwrap();
    assert_eq!(held.len(), 1);
    assert_eq!(store.next_due().await.unwrap(), Some(second(1)));
    // The odd ones held too (the even recipient is held): second 2 is next.
    let odd = store.claim_due(now, later_lease, 10, 100).await.unwrap();
    assert_eq!(odd.len(), 3);
    assert_eq!(store.next_due().await.unwrap(), Some(second(2)));
    // Every one held: the first lease to end.
    delivered_all(&store, &held, now).await;
    let even = store.claim_due(now, later_lease, 10, 100).await.unwrap();
    assert_eq!(even.len(), 2);
    assert_eq!(store.next_due().await.unwrap(), Some(later_lease));
    delivered_all(&store, &odd, now).await;
    delivered_all(&store, &even, now).await;
    assert_eq!(store.next_due().await.unwrap(), None);
}

fn sent_and_coalesced(started: &[SendStart]) -> (usize, usize) {
    let sent = started.iter().filter(|s| **s == SendStart::Send).count();
    let coalesced = started
        .iter()
        .filter(|s| matches!(s, SendStart::Coalesce { .. }))
        .count();
    (sent, coalesced)
}

/// A batch ingested while its account's subtree is deleted: both succeed, in some order (the
/// batch's points are stored and then deleted, or find the asset gone), and nothing is left.
async fn ingestion_racing_an_account_deletion_fails_neither(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let (first, second) = (db.open().await, db.open().await);
    let root = account(None);
    first.insert_account(&root).await.unwrap();
    let start = chrono::DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap();
    for round in 0..20 {
        let child = account(Some(root.id));
        first.insert_account(&child).await.unwrap();
        let truck = asset(child.id, "truck");
        first.insert_asset(&truck).await.unwrap();
        let points = bare_points(start, 0..50);
        let job = IngestJob {
            batches: vec![AssetPoints {
                asset: truck.clone(),
                points,
            }],
            received_at: Utc::now(),
            pipeline: Box::new(ONE_RECIPIENT),
        };
        let (ingested, deleted) =
            tokio::join!(first.ingest(job), second.delete_account_tree(child.id));
        ingested.unwrap_or_else(|e| panic!("round {round}: ingestion failed: {e}"));
        assert!(deleted.unwrap(), "round {round}: the subtree was deleted");
        assert!(first.account(child.id).await.unwrap().is_none());
        let events = first
            .list_events(child.id, &Default::default(), Page { skip: 0, take: 10 })
            .await
            .unwrap();
        assert!(
            events.is_empty(),
            "round {round}: events outlived their account"
        );
    }
}

/// SQLite stores a NUL character; PostgreSQL text cannot hold one, and says so as bad input (the
/// API answers 400), not as a failure of the database.
async fn text_with_a_nul_is_stored_or_refused_as_bad_input(backend: Backend) {
    let Some(db) = TestDb::new(backend) else {
        return;
    };
    let store = db.open().await;
    let root = account(None);
    store.insert_account(&root).await.unwrap();
    let page = Page { skip: 0, take: 50 };
    let inserted = store.insert_asset(&asset(root.id, "nul\0truck")).await;
    let listed = store
        .list_assets_within(
            root.id,
            root.id,
            AssetFilter {
                external_id: Some("a\0b"),
                include_deleted: false,
                ..AssetFilter::default()
            },
            page,
        )
        .await;
    match backend {
        Backend::Sqlite => {
            inserted.unwrap();
            assert!(listed.unwrap().is_empty());
        }
        Backend::Postgres => {
            assert!(
                matches!(inserted, Err(StoreError::Invalid(_))),
                "{inserted:?}"
            );
            assert!(matches!(listed, Err(StoreError::Invalid(_))), "{listed:?}");
        }
    }
}

/// A PostgreSQL server is reached over TLS when the URL asks for it: `verify-full` with the
/// server's authority connects, and the same with another authority is refused, not silently
/// downgraded to plain text.
#[tokio::test]
async fn postgres_over_tls_verifies_the_server() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.create_database();
    let ca = cluster.ca_file();
    let verified = format!("{url}?sslmode=verify-full&sslrootcert={}", ca.display());
    let store = Database::open(&verified, &PgSettings::default())
        .await
        .unwrap();
    store.ping().await.unwrap();
    store.close().await;

    let other = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("openssl")
        .current_dir(other.path())
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args([
            "-subj",
            "/CN=another CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
        ])
        .output()
        .unwrap();
    assert!(status.status.success());
    let wrong = format!(
        "{url}?sslmode=verify-full&sslrootcert={}",
        other.path().join("ca.crt").display()
    );
    let refused = Database::open(&wrong, &PgSettings::default()).await;
    assert!(
        refused.is_err(),
        "a server with an unknown certificate is refused"
    );
}
