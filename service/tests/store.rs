//! The SQLite store against a real database file.

use asset_alerting_models::*;
use asset_alerting_service::auth::hash_secret;
use asset_alerting_service::store::sqlite::SqliteStore;
use asset_alerting_service::store::{AccountRecord, GeofenceDeletion, Page, Store, StoreError};
use chrono::Utc;
use std::collections::BTreeMap;
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

async fn open(dir: &tempfile::TempDir) -> SqliteStore {
    SqliteStore::open(dir.path().join("store.db").to_str().unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn data_survives_reopening_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = account(None);
    let a = asset(root.id, "t-1");
    {
        let store = open(&dir).await;
        store.insert_account(&root).await.unwrap();
        store.insert_asset(&a).await.unwrap();
        store.close().await;
    }
    let store = open(&dir).await;
    assert_eq!(store.account(root.id).await.unwrap().unwrap().name, "acme");
    assert_eq!(store.asset(root.id, a.id).await.unwrap(), Some(a));
}

#[tokio::test]
async fn account_tree_limits_visibility() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
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
    let within = |ancestor: Uuid, account: Uuid, id: Uuid| {
        let store = &store;
        async move { store.asset_within(ancestor, account, id).await.unwrap() }
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

#[tokio::test]
async fn assets_list_in_order_page_filter_and_soft_delete() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let root = account(None);
    store.insert_account(&root).await.unwrap();
    for id in ["c", "a", "b", "d"] {
        store.insert_asset(&asset(root.id, id)).await.unwrap();
    }
    let all = store
        .list_assets_within(root.id, root.id, None, false, Page { skip: 0, take: 50 })
        .await
        .unwrap();
    let ids: Vec<&str> = all.iter().map(|a| a.external_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    let page = store
        .list_assets_within(root.id, root.id, None, false, Page { skip: 1, take: 2 })
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
            Some("c"),
            false,
            Page { skip: 0, take: 50 },
        )
        .await
        .unwrap();
    assert_eq!(filtered.len(), 1);
    // An account the caller is not above shows nothing.
    let child = account(Some(root.id));
    store.insert_account(&child).await.unwrap();
    let hidden = store
        .list_assets_within(child.id, root.id, None, false, Page { skip: 0, take: 50 })
        .await
        .unwrap();
    assert!(hidden.is_empty());

    let duplicate = store.insert_asset(&asset(root.id, "a")).await.unwrap_err();
    assert!(matches!(duplicate, StoreError::Conflict(_)), "{duplicate}");

    let a = &all[0];
    assert!(store.soft_delete_asset(root.id, a.id).await.unwrap());
    let live = store
        .list_assets_within(root.id, root.id, None, false, Page { skip: 0, take: 50 })
        .await
        .unwrap();
    assert_eq!(live.len(), 3);
    let with_deleted = store
        .list_assets_within(root.id, root.id, None, true, Page { skip: 0, take: 50 })
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

#[tokio::test]
async fn referenced_geofences_cannot_be_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
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

#[tokio::test]
async fn ingestion_tokens_are_limited_per_account() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
    let root = account(None);
    store.insert_account(&root).await.unwrap();
    let now = Utc::now();
    let later = now + chrono::Duration::hours(1);
    for i in 0..3 {
        assert!(
            store
                .insert_ingestion_token(root.id, &format!("h{i}"), later, now, 3)
                .await
                .unwrap()
        );
    }
    assert!(
        !store
            .insert_ingestion_token(root.id, "h3", later, now, 3)
            .await
            .unwrap()
    );
    // Once they expire, new ones can be issued.
    let after = later + chrono::Duration::seconds(1);
    assert!(
        store
            .insert_ingestion_token(root.id, "h4", after + chrono::Duration::hours(1), after, 3)
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn settings_keep_the_first_value() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir).await;
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
