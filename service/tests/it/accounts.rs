//! Account lifecycle, ingestion token management, closed request bodies, read-only round trips,
//! secrets that no cache may keep, and the signing keys: over real HTTP with the generated client.

use crate::support;

use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use serde_json::{Value, json};
use support::*;
use uuid::Uuid;

fn account_input(name: &str) -> AccountInput {
    AccountInput {
        id: None,
        parent_id: None,
        created_at: None,
        name: name.to_owned(),
        friendly_name: None,
        culture: None,
        technical_email_address: None,
        callback_uri: None,
    }
}

async fn access_token(service: &TestService, id: Uuid, secret: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}/v1/auth/token", service.base))
        .basic_auth(id, Some(secret))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap()
}

async fn bearer(service: &TestService) -> String {
    let response = access_token(service, service.root, ROOT_SECRET).await;
    let body: Value = response.json().await.unwrap();
    body["access_token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn accounts_are_updated_listed_and_deleted_with_their_subtree() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let (fleet, fleet_client) = child(&service, &root, service.root, "fleet").await;
    let (depot, depot_client) = child(&service, &fleet_client, fleet, "depot").await;
    let (_, _) = child(&service, &root, service.root, "another").await;

    // Update is a full replacement of the writable fields.
    let mut input = account_input("fleet renamed");
    input.culture = Some("de-DE".to_owned());
    let updated = root.update_account(fleet, input).send().await.unwrap();
    assert_eq!(updated.name, "fleet renamed");
    assert_eq!(updated.culture.as_deref(), Some("de-DE"));
    assert_eq!(updated.friendly_name, None, "left out means cleared");
    assert_eq!(updated.parent_id, Some(service.root));
    assert_eq!(root.get_account(fleet).send().await.unwrap(), updated);
    let mut bad = account_input("x");
    bad.callback_uri = Some("ftp://example.com/hook".to_owned());
    assert_eq!(code_of(root.update_account(fleet, bad).send().await).0, 400);

    // Children: direct ones only, by name, paged.
    let children = root.list_child_accounts(service.root).send().await.unwrap();
    let names: Vec<&str> = children.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["another", "fleet renamed"]);
    let second = root
        .list_child_accounts(service.root)
        .skip(1)
        .take(1)
        .send()
        .await
        .unwrap();
    assert_eq!(second, children[1..].to_vec());
    assert_eq!(
        code_of(depot_client.list_child_accounts(fleet).send().await),
        (404, 1400),
        "a child cannot list its parent's children"
    );

    // Data of the subtree, to be deleted with it.
    let asset = depot_client
        .create_asset(depot, asset_input("van"))
        .send()
        .await
        .unwrap();
    let ingest = service.ingestion_client(&depot_client, depot).await;

    // Nobody deletes its own account, nor one outside its subtree.
    assert_eq!(
        code_of(fleet_client.delete_account(fleet).send().await),
        (409, 1500)
    );
    assert_eq!(
        code_of(root.delete_account(service.root).send().await),
        (409, 1500),
        "the root account stays"
    );
    assert_eq!(
        code_of(depot_client.delete_account(fleet).send().await),
        (404, 1400)
    );

    root.delete_account(fleet).send().await.unwrap();
    for gone in [fleet, depot] {
        assert_eq!(code_of(root.get_account(gone).send().await), (404, 1400));
    }
    assert_eq!(
        code_of(root.get_asset(depot, asset.id).send().await),
        (404, 1400)
    );
    assert_eq!(
        code_of(root.delete_account(fleet).send().await),
        (404, 1400)
    );
    // Its credentials and tokens are gone with it.
    assert!(depot_client.get_account(depot).send().await.is_err());
    let batch = TelemetryBatch {
        points: vec![point_of(Some(asset.id), None, chrono::Utc::now())],
    };
    assert_eq!(code_of(ingest.ingest_telemetry(batch).send().await).0, 401);
    let names: Vec<String> = root
        .list_child_accounts(service.root)
        .send()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(names, ["another"]);
    service.stop().await;
}

#[tokio::test]
async fn a_rotated_client_secret_replaces_the_old_one_at_once() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let created = root
        .create_account(
            service.root,
            CreateAccountRequest {
                name: "rotating".to_owned(),
                friendly_name: None,
                culture: None,
                technical_email_address: None,
                callback_uri: None,
            },
        )
        .send()
        .await
        .unwrap();
    let id = created.id;
    assert_eq!(
        access_token(&service, id, &created.client_secret)
            .await
            .status(),
        200
    );
    let rotated = service
        .client(id, &created.client_secret)
        .rotate_client_secret(id)
        .send()
        .await
        .unwrap();
    assert_eq!(rotated.client_id, id);
    assert_ne!(rotated.client_secret, created.client_secret);
    let old = access_token(&service, id, &created.client_secret).await;
    assert_eq!(old.status(), 401);
    let body: Value = old.json().await.unwrap();
    assert_eq!(body["error"], "invalid_client");
    assert_eq!(
        access_token(&service, id, &rotated.client_secret)
            .await
            .status(),
        200
    );
    // A sibling cannot rotate it.
    let (_, sibling) = child(&service, &root, service.root, "sibling").await;
    assert_eq!(
        code_of(sibling.rotate_client_secret(id).send().await),
        (404, 1400)
    );
    service.stop().await;
}

#[tokio::test]
async fn an_ancestor_cannot_lock_an_account_out_of_its_ingestion_tokens() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let (fleet, fleet_client) = child(&service, &root, service.root, "fleet").await;
    let mut by_root = Vec::new();
    for _ in 0..10 {
        by_root.push(root.get_ingestion_token(fleet).send().await.unwrap());
    }
    assert_eq!(
        code_of(root.get_ingestion_token(fleet).send().await),
        (409, 1500)
    );
    let own = fleet_client
        .get_ingestion_token(fleet)
        .send()
        .await
        .unwrap();

    let listed = fleet_client
        .list_ingestion_tokens(fleet)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.len(), 11);
    assert_eq!(listed[0].id, own.id, "newest first");
    assert_eq!(listed[0].issued_by, fleet);
    assert!(listed[1..].iter().all(|t| t.issued_by == service.root));
    let listed_json = serde_json::to_string(&listed).unwrap();
    assert!(
        !listed_json.contains(&own.token),
        "secrets are never listed"
    );

    // Revoked: refused at once, and the slot is free again.
    let revoked = &by_root[3];
    let with_revoked = service.with_token(&revoked.token);
    let asset = fleet_client
        .create_asset(fleet, asset_input("truck"))
        .send()
        .await
        .unwrap();
    let batch = || TelemetryBatch {
        points: vec![point_of(Some(asset.id), None, chrono::Utc::now())],
    };
    assert!(with_revoked.ingest_telemetry(batch()).send().await.is_ok());
    fleet_client
        .revoke_ingestion_token(fleet, revoked.id)
        .send()
        .await
        .unwrap();
    assert_eq!(
        code_of(with_revoked.ingest_telemetry(batch()).send().await).0,
        401
    );
    assert_eq!(
        code_of(
            fleet_client
                .revoke_ingestion_token(fleet, revoked.id)
                .send()
                .await
        ),
        (404, 1400)
    );
    assert!(root.get_ingestion_token(fleet).send().await.is_ok());
    // Another tenant can neither list nor revoke.
    let (_, other) = child(&service, &root, service.root, "other").await;
    assert_eq!(
        code_of(other.list_ingestion_tokens(fleet).send().await),
        (404, 1400)
    );
    assert_eq!(
        code_of(other.revoke_ingestion_token(fleet, own.id).send().await),
        (404, 1400)
    );
    service.stop().await;
}

/// What GET returns can be sent back by PUT; unknown keys are refused at every depth, by path.
#[tokio::test]
async fn bodies_round_trip_and_unknown_keys_are_refused_where_they_are() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let token = bearer(&service).await;
    let http = reqwest::Client::new();
    let base = format!("{}/v1/accounts/{}", service.base, service.root);
    let mut input = asset_input("truck");
    input.telemetry_rules = Some(empty_rules());
    let asset = root.create_asset(service.root, input).send().await.unwrap();
    let geofence = root
        .create_geofence(service.root, geofence_input("depot", "Depot"))
        .send()
        .await
        .unwrap();
    let rule = root
        .create_alert_rule(
            service.root,
            asset.id,
            rule_input(EventType::SpeedLimitExceeded, 1, vec![geofence.id]),
        )
        .send()
        .await
        .unwrap();

    let urls = [
        format!("{base}/assets/{}", asset.id),
        format!("{base}/geofences/{}", geofence.id),
        format!("{base}/alertRules/{}", rule.id),
        base.clone(),
    ];
    for url in &urls {
        let got: Value = http
            .get(url)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let put = http
            .put(url)
            .bearer_auth(&token)
            .json(&got)
            .send()
            .await
            .unwrap();
        assert_eq!(put.status(), 200, "{url}: {}", put.text().await.unwrap());
        let again: Value = http
            .get(url)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(again, got, "{url}: a round trip changes nothing");
    }
    // Read-only fields are ignored, not applied.
    let mut moved = serde_json::to_value(&asset).unwrap();
    moved["id"] = json!(Uuid::new_v4());
    moved["isDeleted"] = json!(true);
    let put = http
        .put(&urls[0])
        .bearer_auth(&token)
        .json(&moved)
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 200);
    assert_eq!(
        root.get_asset(service.root, asset.id).send().await.unwrap(),
        asset
    );

    let mut misspelt = serde_json::to_value(&asset).unwrap();
    misspelt["telemetryRules"] = json!({"speedLimt": 90});
    let mut deep = serde_json::to_value(&rule).unwrap();
    deep["recipient"]["nickname"] = json!("Al");
    let mut polygon = serde_json::to_value(&geofence).unwrap();
    polygon["polygon"]["bbox"] = json!([0, 0, 1, 1]);
    for (url, body, path) in [
        (&urls[0], misspelt, "telemetryRules"),
        (&urls[2], deep, "recipient"),
        (&urls[1], polygon, "polygon"),
    ] {
        let response = http
            .put(url)
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{url}");
        let error: Value = response.json().await.unwrap();
        assert_eq!(error["code"], 1000);
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(path), "`{message}` names `{path}`");
    }
    let response = http
        .put(&urls[0])
        .bearer_auth(&token)
        .json(
            &json!({"externalId": "t", "name": "t", "tier": 1, "telemetryRules": {"speedLimt": 1}}),
        )
        .send()
        .await
        .unwrap();
    let error: Value = response.json().await.unwrap();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("telemetryRules.speedLimt"),
        "{error}"
    );
    // Nothing was changed by the refused requests.
    assert_eq!(
        root.get_asset(service.root, asset.id).send().await.unwrap(),
        asset
    );
    service.stop().await;
}

#[tokio::test]
async fn wrong_methods_and_huge_bodies_have_codes_of_their_own() {
    let (_dir, service) = started().await;
    let token = bearer(&service).await;
    let http = reqwest::Client::new();
    let url = format!("{}/v1/accounts/{}/assets", service.base, service.root);
    let response = http.patch(&url).bearer_auth(&token).send().await.unwrap();
    assert_eq!(response.status(), 405);
    assert!(response.headers().contains_key("allow"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], 1004);

    let huge = format!("{{\"name\": \"{}\"}}", "x".repeat(3 << 20));
    let response = http
        .post(&url)
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], 1003);

    // The token endpoint answers both in RFC 6749's shape.
    let token_url = format!("{}/v1/auth/token", service.base);
    let response = http.get(&token_url).send().await.unwrap();
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "POST");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "invalid_request", "{body}");
    let response = http
        .post(&token_url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "grant_type=client_credentials&x={}",
            "a".repeat(3 << 20)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "invalid_request", "{body}");
    service.stop().await;
}

/// Every response that carries a secret says `Cache-Control: no-store`; `expires_in` is the
/// stated lifetime.
#[tokio::test]
async fn secrets_are_never_cached() {
    let (_dir, service) = started().await;
    let response = access_token(&service, service.root, ROOT_SECRET).await;
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["expires_in"], 3600);
    let token = body["access_token"].as_str().unwrap().to_owned();

    let http = reqwest::Client::new();
    let base = format!("{}/v1/accounts/{}", service.base, service.root);
    let child = http
        .post(&base)
        .bearer_auth(&token)
        .json(&json!({"name": "child"}))
        .send()
        .await
        .unwrap();
    assert_eq!(child.status(), 201);
    assert_eq!(child.headers()["cache-control"], "no-store");
    let child_id = child.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for (method, url) in [
        (reqwest::Method::GET, format!("{base}/ingestionToken")),
        (reqwest::Method::GET, format!("{base}/portalLink")),
        (reqwest::Method::GET, format!("{base}/webhookSecret")),
        (
            reqwest::Method::POST,
            format!("{}/v1/accounts/{child_id}/clientSecret", service.base),
        ),
    ] {
        let response = http
            .request(method, &url)
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.headers()["cache-control"], "no-store", "{url}");
    }
    service.stop().await;
}

/// The signing key lives in a private key file, not in the database; after a rotation, tokens
/// of the previous key keep working and new ones name the new key.
#[tokio::test]
async fn signing_keys_live_in_a_private_file_and_rotate() {
    let dir = tempfile::tempdir().unwrap();
    let root_id = Uuid::new_v4();
    let config = config(&dir, root_id);
    let service = TestService::start(config.clone()).await;
    let old_token = bearer(&service).await;
    service.stop().await;

    let key_file = dir.path().join("service.db.keys");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let db = database_contents(&dir.path().join("service.db"));
    let keys = std::fs::read_to_string(&key_file).unwrap();
    for line in keys.lines().filter(|l| !l.starts_with('#')) {
        let key = line.split_whitespace().last().unwrap();
        assert!(
            !db.windows(key.len()).any(|w| w == key.as_bytes()),
            "a key is in the database"
        );
    }

    let new_kid = asset_alerting_service::app::rotate_signing_key(&config).unwrap();
    let again = TestService::start(config).await;
    let with_old: Client = again.with_token(&old_token);
    assert!(with_old.get_account(root_id).send().await.is_ok());
    let new_token = bearer(&again).await;
    let header = jsonwebtoken::decode_header(&new_token).unwrap();
    assert_eq!(header.kid, Some(new_kid));
    assert_ne!(
        jsonwebtoken::decode_header(&old_token).unwrap().kid,
        header.kid
    );
    again.stop().await;
}
