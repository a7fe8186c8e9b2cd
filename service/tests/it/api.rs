//! The service over real HTTP on 127.0.0.1 with a temporary SQLite file, driven through the
//! generated client. Raw HTTP is used only for what a typed client cannot send (malformed JSON,
//! invalid uuids, wrong content types).

use crate::support;

use asset_alerting_client::models::*;
use asset_alerting_client::{Client, Error};
use futures_util::TryStreamExt;
use serde_json::{Value, json};
use support::*;
use uuid::Uuid;

#[tokio::test]
async fn assets_follow_the_seed_rules() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    for id in ["c-3", "a-1", "b-2", "d-4"] {
        root.create_asset(account, asset_input(id))
            .send()
            .await
            .unwrap();
    }
    // Defaults (skip 0, take 50) and the stable order by externalId.
    let all = root.list_assets(account).send().await.unwrap();
    assert_eq!(
        all.iter()
            .map(|a| a.external_id.as_str())
            .collect::<Vec<_>>(),
        ["a-1", "b-2", "c-3", "d-4"]
    );
    let page = root
        .list_assets(account)
        .skip(1)
        .take(2)
        .send()
        .await
        .unwrap();
    assert_eq!(
        page.iter()
            .map(|a| a.external_id.as_str())
            .collect::<Vec<_>>(),
        ["b-2", "c-3"]
    );
    let filtered = root
        .list_assets(account)
        .external_id("c-3")
        .send()
        .await
        .unwrap();
    assert_eq!(filtered.len(), 1);
    assert_eq!(filtered[0].external_id, "c-3");
    // Paging through the client's stream visits every asset once.
    let streamed: Vec<Asset> = root
        .list_assets(account)
        .take(3)
        .into_stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed.len(), 4);

    // get, update (full replacement), numeric strings in telemetry rules.
    let asset = &all[0];
    let fetched = root.get_asset(account, asset.id).send().await.unwrap();
    assert_eq!(&fetched, asset);
    let mut input = asset_input("a-1");
    input.name = "Renamed".to_owned();
    input.tier = AssetTier::Premium;
    input.disabled_events = Some([("SpeedLimitExceeded".to_owned(), chrono::Utc::now())].into());
    let updated = root
        .update_asset(account, asset.id, input)
        .send()
        .await
        .unwrap();
    assert_eq!(updated.name, "Renamed");
    assert_eq!(updated.tier, AssetTier::Premium);
    assert_eq!(
        root.get_asset(account, asset.id).send().await.unwrap(),
        updated
    );

    // externalId is unique among live assets.
    assert_eq!(
        code_of(root.create_asset(account, asset_input("b-2")).send().await),
        (409, 1500)
    );
    // Soft delete: hidden from the list unless asked, still readable, externalId free again.
    root.delete_asset(account, asset.id).send().await.unwrap();
    root.delete_asset(account, asset.id).send().await.unwrap();
    assert_eq!(root.list_assets(account).send().await.unwrap().len(), 3);
    assert_eq!(
        root.list_assets(account)
            .include_deleted(true)
            .send()
            .await
            .unwrap()
            .len(),
        4
    );
    assert_eq!(
        root.get_asset(account, asset.id)
            .send()
            .await
            .unwrap()
            .is_deleted,
        Some(true)
    );
    root.create_asset(account, asset_input("a-1"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        code_of(root.get_asset(account, Uuid::new_v4()).send().await),
        (404, 1400)
    );
    service.stop().await;
}

#[tokio::test]
async fn take_has_a_maximum_and_bad_paging_values_are_rejected() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    for take in [0, -1, 501] {
        assert_eq!(
            code_of(root.list_assets(service.root).take(take).send().await),
            (400, 1000),
            "take={take}"
        );
    }
    assert_eq!(
        code_of(root.list_assets(service.root).skip(-1).send().await),
        (400, 1000)
    );
    assert_eq!(
        root.list_assets(service.root)
            .take(500)
            .send()
            .await
            .unwrap()
            .len(),
        0
    );
    // The string forms of the seed: accepted when they match the pattern.
    let http = reqwest::Client::new();
    let token = token(&service).await;
    let url = format!("{}/v1/accounts/{}/assets", service.base, service.root);
    let response = http
        .get(format!("{url}?take=10&skip=0"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    for (query, parameter) in [
        ("take=%2010", "take"),
        ("take=1.5", "take"),
        ("take=abc", "take"),
        ("skip=007", "skip"),
        ("take=99999999999", "take"),
        // The seed's pattern admits these; the bounds refuse them.
        ("take=0", "take"),
        ("take=-5", "take"),
        ("take=501", "take"),
        ("skip=-1", "skip"),
        ("skip=1000000000", "skip"),
        ("skip=2147483648", "skip"),
        ("skip=-99999999999999999999", "skip"),
    ] {
        let response = http
            .get(format!("{url}?{query}"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{query}");
        assert_error_body(response, 1000, parameter)
            .await
            .unwrap_or_else(|e| panic!("{query}: {e}"));
    }
    service.stop().await;
}

#[tokio::test]
async fn alert_rules_and_geofences() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let asset = root
        .create_asset(account, asset_input("truck"))
        .send()
        .await
        .unwrap();
    let depot = root
        .create_geofence(account, geofence_input("depot", "Depot"))
        .send()
        .await
        .unwrap();
    let yard = root
        .create_geofence(account, geofence_input("yard", "Yard"))
        .send()
        .await
        .unwrap();
    let unused = root
        .create_geofence(account, geofence_input("spare", "Spare"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        code_of(
            root.create_geofence(account, geofence_input("depot", "Again"))
                .send()
                .await
        ),
        (409, 1500)
    );

    let late = root
        .create_alert_rule(
            account,
            asset.id,
            rule_input(EventType::GeofenceEntered, 2, vec![depot.id]),
        )
        .send()
        .await
        .unwrap();
    let early = root
        .create_alert_rule(
            account,
            asset.id,
            rule_input(EventType::GeofenceEntered, 1, vec![yard.id, depot.id]),
        )
        .send()
        .await
        .unwrap();
    let other = root
        .create_alert_rule(
            account,
            asset.id,
            rule_input(EventType::SpeedLimitExceeded, 0, vec![]),
        )
        .send()
        .await
        .unwrap();

    // Rules of one event type, in `order`.
    let rules = root
        .list_alert_rules(account, asset.id, EventType::GeofenceEntered)
        .send()
        .await
        .unwrap();
    assert_eq!(
        rules.iter().map(|r| r.id).collect::<Vec<_>>(),
        [early.id, late.id]
    );
    assert_eq!(
        root.list_alert_rules(account, asset.id, EventType::SpeedLimitExceeded)
            .send()
            .await
            .unwrap(),
        vec![other.clone()]
    );
    assert!(
        root.list_alert_rules(account, asset.id, EventType::Any)
            .send()
            .await
            .unwrap()
            .is_empty()
    );
    // The geofences of an event type: those its rules reference, by name.
    let linked = root
        .list_alert_rule_geofences(account, asset.id, EventType::GeofenceEntered)
        .send()
        .await
        .unwrap();
    assert_eq!(
        linked.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(),
        ["Depot", "Yard"]
    );
    assert!(
        root.list_alert_rule_geofences(account, asset.id, EventType::SpeedLimitExceeded)
            .send()
            .await
            .unwrap()
            .is_empty()
    );
    let all = root.list_geofences(account).send().await.unwrap();
    assert_eq!(
        all.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(),
        ["Depot", "Spare", "Yard"]
    );

    // get / update of rules and geofences.
    assert_eq!(
        root.get_alert_rule(account, late.id).send().await.unwrap(),
        late
    );
    let mut change = rule_input(EventType::GeofenceEntered, 5, vec![]);
    change.is_disabled = true;
    let changed = root
        .update_alert_rule(account, late.id, change)
        .send()
        .await
        .unwrap();
    assert!(changed.is_disabled && changed.order == 5 && changed.inside_geofences.is_empty());
    assert_eq!(changed.asset_id, asset.id);
    let renamed = root
        .update_geofence(account, yard.id, geofence_input("yard", "Back yard"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        root.get_geofence(account, yard.id).send().await.unwrap(),
        renamed
    );

    // Deleting a referenced geofence is refused; once detached it goes.
    assert_eq!(
        code_of(root.delete_geofence(account, depot.id).send().await),
        (409, 1500)
    );
    assert_eq!(
        root.get_geofence(account, depot.id).send().await.unwrap(),
        depot
    );
    root.delete_geofence(account, unused.id)
        .send()
        .await
        .unwrap();
    assert_eq!(
        code_of(root.delete_geofence(account, unused.id).send().await),
        (404, 1400)
    );
    root.delete_alert_rule(account, early.id)
        .send()
        .await
        .unwrap();
    root.delete_geofence(account, depot.id)
        .send()
        .await
        .unwrap();
    assert_eq!(
        code_of(root.get_alert_rule(account, early.id).send().await),
        (404, 1400)
    );

    // A rule may only name geofences of its own account.
    let (child_id, child) = child(&service, &root, account, "fleet").await;
    let foreign = child
        .create_geofence(child_id, geofence_input("theirs", "Theirs"))
        .send()
        .await
        .unwrap();
    let refused = root
        .create_alert_rule(
            account,
            asset.id,
            rule_input(EventType::GeofenceExited, 0, vec![foreign.id]),
        )
        .send()
        .await;
    assert_eq!(code_of(refused), (400, 1000));
    service.stop().await;
}

#[tokio::test]
async fn domain_rules_are_validated() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let asset = root
        .create_asset(account, asset_input("truck"))
        .send()
        .await
        .unwrap();
    let mut open_ring = geofence_input("g", "G");
    open_ring.polygon.coordinates[0][3] = vec![13.0, 52.05];
    assert_eq!(
        code_of(root.create_geofence(account, open_ring).send().await),
        (400, 1000)
    );
    let mut south = geofence_input("g", "G");
    south.polygon = square(13.0, -95.0);
    assert_eq!(
        code_of(root.create_geofence(account, south).send().await),
        (400, 1000)
    );
    let mut zone = rule_input(EventType::Any, 0, vec![]);
    zone.recipient.time_zone = "Mars/Olympus_Mons".to_owned();
    assert_eq!(
        code_of(root.create_alert_rule(account, asset.id, zone).send().await),
        (400, 1000)
    );
    let mut channel = rule_input(EventType::Any, 0, vec![]);
    channel.channel.r#type = ChannelType::Email;
    assert_eq!(
        code_of(
            root.create_alert_rule(account, asset.id, channel)
                .send()
                .await
        ),
        (400, 1000)
    );
    let mut snooze = asset_input("x");
    snooze.disabled_events = Some([("Speeding".to_owned(), chrono::Utc::now())].into());
    assert_eq!(
        code_of(root.create_asset(account, snooze).send().await),
        (400, 1000)
    );
    service.stop().await;
}

#[tokio::test]
async fn accounts_ingestion_tokens_and_portal_links() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let me = root.get_account(service.root).send().await.unwrap();
    assert_eq!(
        (me.id, me.parent_id, me.name.as_str()),
        (service.root, None, "root")
    );
    let (child_id, child) = child(&service, &root, service.root, "fleet").await;
    let fetched = child.get_account(child_id).send().await.unwrap();
    assert_eq!(fetched.parent_id, Some(service.root));
    assert_eq!(fetched.culture.as_deref(), Some("en-GB"));
    // A grandchild, created by the child, is visible to the root.
    let (grandchild, _) = support::child(&service, &child, child_id, "depot").await;
    assert_eq!(
        root.get_account(grandchild).send().await.unwrap().parent_id,
        Some(child_id)
    );

    // Ingestion tokens: random, expiring, at most 10 unexpired per account.
    let first = child.get_ingestion_token(child_id).send().await.unwrap();
    assert!(first.token.len() >= 40);
    let lifetime = first.expires_at - chrono::Utc::now();
    assert!(
        lifetime > chrono::Duration::minutes(59) && lifetime <= chrono::Duration::hours(1),
        "{lifetime}"
    );
    for _ in 1..10 {
        let next = child.get_ingestion_token(child_id).send().await.unwrap();
        assert_ne!(next.token, first.token);
    }
    assert_eq!(
        code_of(child.get_ingestion_token(child_id).send().await),
        (409, 1500)
    );

    // Portal link: a page listing the account's assets, refused when tampered with.
    child
        .create_asset(child_id, asset_input("van-<7>"))
        .send()
        .await
        .unwrap();
    let link = child.get_portal_link(child_id).send().await.unwrap();
    assert!(
        link.url
            .starts_with(&format!("{}/portal/{child_id}?", service.base))
    );
    let page = reqwest::get(&link.url).await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("van-&lt;7&gt;"), "{html}");
    let tampered = link
        .url
        .replace(&child_id.to_string(), &service.root.to_string());
    assert_eq!(reqwest::get(&tampered).await.unwrap().status(), 403);
    let unsigned = link.url.split('&').next().unwrap().to_owned();
    assert_eq!(reqwest::get(&unsigned).await.unwrap().status(), 403);
    service.stop().await;
}

/// A link whose expiry was moved is refused (its signature no longer matches); expiry itself is
/// checked by `auth::tests::links_are_signed_and_expire` with a controlled clock.
#[tokio::test]
async fn portal_links_cannot_be_extended() {
    let (_dir, service) = started().await;
    let link = service
        .root_client()
        .get_portal_link(service.root)
        .send()
        .await
        .unwrap();
    let (head, query) = link.url.split_once('?').unwrap();
    let signature = query
        .split('&')
        .find(|p| p.starts_with("signature="))
        .unwrap();
    for expires in [
        chrono::Utc::now().timestamp() - 60,
        chrono::Utc::now().timestamp() + 86_400,
    ] {
        let moved = format!("{head}?expires={expires}&{signature}");
        assert_eq!(reqwest::get(&moved).await.unwrap().status(), 403, "{moved}");
    }
    assert_eq!(reqwest::get(&link.url).await.unwrap().status(), 200);
    service.stop().await;
}

async fn token(service: &TestService) -> String {
    let body = TokenRequest {
        grant_type: Some("client_credentials".to_owned()),
        client_id: Some(service.root.to_string()),
        client_secret: Some(ROOT_SECRET.to_owned()),
        scope: None,
    };
    service
        .anonymous()
        .issue_token(body)
        .send()
        .await
        .unwrap()
        .access_token
}

fn token_request(
    grant: Option<&str>,
    id: Option<String>,
    secret: Option<&str>,
    scope: Option<&str>,
) -> TokenRequest {
    TokenRequest {
        grant_type: grant.map(str::to_owned),
        client_id: id,
        client_secret: secret.map(str::to_owned),
        scope: scope.map(str::to_owned),
    }
}

#[tokio::test]
async fn token_endpoint_follows_rfc_6749() {
    let (_dir, service) = started().await;
    let anonymous = service.anonymous();
    let root = Some(service.root.to_string());
    let ok = anonymous
        .issue_token(token_request(
            Some("client_credentials"),
            root.clone(),
            Some(ROOT_SECRET),
            None,
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.token_type, TokenResponseTokenType::Bearer);
    assert!((3590..=3600).contains(&ok.expires_in), "{}", ok.expires_in);

    let cases = [
        (
            token_request(
                Some("client_credentials"),
                root.clone(),
                Some("wrong"),
                None,
            ),
            401,
            OAuthErrorError::InvalidClient,
        ),
        (
            token_request(
                Some("client_credentials"),
                Some(Uuid::new_v4().to_string()),
                Some(ROOT_SECRET),
                None,
            ),
            401,
            OAuthErrorError::InvalidClient,
        ),
        (
            token_request(
                Some("client_credentials"),
                Some("not-a-uuid".into()),
                Some(ROOT_SECRET),
                None,
            ),
            401,
            OAuthErrorError::InvalidClient,
        ),
        (
            token_request(Some("client_credentials"), None, None, None),
            401,
            OAuthErrorError::InvalidClient,
        ),
        (
            token_request(Some("password"), root.clone(), Some(ROOT_SECRET), None),
            400,
            OAuthErrorError::UnsupportedGrantType,
        ),
        (
            token_request(None, root.clone(), Some(ROOT_SECRET), None),
            400,
            OAuthErrorError::InvalidRequest,
        ),
        (
            token_request(
                Some("client_credentials"),
                root.clone(),
                Some(ROOT_SECRET),
                Some("admin"),
            ),
            400,
            OAuthErrorError::InvalidScope,
        ),
    ];
    for (request, status, error) in cases {
        match anonymous.issue_token(request.clone()).send().await {
            Err(Error::Api { status: s, body }) => {
                assert_eq!((s.as_u16(), body.error), (status, error), "{request:?}");
            }
            other => panic!("{request:?}: {other:?}"),
        }
    }
    // HTTP Basic works too (RFC 6749 section 2.3.1), but not together with form credentials.
    let http = reqwest::Client::new();
    let url = format!("{}/v1/auth/token", service.base);
    let basic = http
        .post(&url)
        .basic_auth(service.root, Some(ROOT_SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(basic.status(), 200);
    assert_eq!(basic.headers()["cache-control"], "no-store");
    let both = http
        .post(&url)
        .basic_auth(service.root, Some(ROOT_SECRET))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", &service.root.to_string()),
            ("client_secret", ROOT_SECRET),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(both.status(), 400);
    let bad_basic = http
        .post(&url)
        .basic_auth(service.root, Some("nope"))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(bad_basic.status(), 401);
    assert!(
        bad_basic.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic")
    );
    service.stop().await;
}

#[tokio::test]
async fn requests_without_valid_credentials_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut short = config(&dir, Uuid::new_v4());
    short.token_lifetime_secs = 1;
    let service = TestService::start(short).await;
    let account = service.root;

    let http = reqwest::Client::new();
    let url = format!("{}/v1/accounts/{account}/assets", service.base);
    let missing = http.get(&url).send().await.unwrap();
    assert_eq!(missing.status(), 401);
    assert!(
        missing.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer")
    );
    assert_error_body(missing, 1100, "").await.unwrap();
    let basic_instead = http
        .get(&url)
        .basic_auth(account, Some(ROOT_SECRET))
        .send()
        .await
        .unwrap();
    assert_eq!(basic_instead.status(), 401);

    for token in [
        "garbage",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl",
    ] {
        assert_eq!(
            code_of(service.with_token(token).list_assets(account).send().await),
            (401, 1100),
            "{token}"
        );
    }
    // A token signed with another key (another installation) is refused.
    let other = asset_alerting_service::auth::TokenKeys::new(
        b"some other installation's key....",
        chrono::Duration::hours(1),
    );
    let (forged, _) = other.issue(account, chrono::Utc::now());
    assert_eq!(
        code_of(
            service
                .with_token(&forged)
                .list_assets(account)
                .send()
                .await
        ),
        (401, 1100)
    );

    // Expired tokens are refused; the generated client fetches a new one by itself.
    let stale = token(&service).await;
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_eq!(
        code_of(service.with_token(&stale).list_assets(account).send().await),
        (401, 1100)
    );
    service
        .root_client()
        .list_assets(account)
        .send()
        .await
        .unwrap();

    // A wrong client secret never yields a token.
    let wrong = service.client(account, "not the secret");
    assert!(matches!(
        wrong.list_assets(account).send().await,
        Err(Error::Auth(_))
    ));
    service.stop().await;
}

/// Every operation, by a tenant on another tenant's ids: 404 exactly like a missing resource.
#[tokio::test]
async fn tenants_cannot_reach_each_other() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let (a, client_a) = child(&service, &root, service.root, "alpha").await;
    let (b, _client_b) = child(&service, &root, service.root, "beta").await;
    let b_asset = root
        .create_asset(b, asset_input("b-truck"))
        .send()
        .await
        .unwrap();
    let b_geofence = root
        .create_geofence(b, geofence_input("b-zone", "B zone"))
        .send()
        .await
        .unwrap();
    let b_rule = root
        .create_alert_rule(
            b,
            b_asset.id,
            rule_input(EventType::Any, 0, vec![b_geofence.id]),
        )
        .send()
        .await
        .unwrap();
    let a_asset = client_a
        .create_asset(a, asset_input("a-truck"))
        .send()
        .await
        .unwrap();
    let c = &client_a;
    let e = EventType::Any;
    let not_found = (404, 1400);

    // B's account id in the path.
    assert_eq!(code_of(c.get_account(b).send().await), not_found);
    assert_eq!(
        code_of(c.get_account(service.root).send().await),
        not_found,
        "a child cannot see its parent"
    );
    assert_eq!(
        code_of(
            c.create_account(
                b,
                CreateAccountRequest {
                    name: "x".into(),
                    friendly_name: None,
                    culture: None,
                    technical_email_address: None,
                    callback_uri: None
                }
            )
            .send()
            .await
        ),
        not_found
    );
    assert_eq!(code_of(c.list_assets(b).send().await), not_found);
    assert_eq!(
        code_of(c.create_asset(b, asset_input("x")).send().await),
        not_found
    );
    assert_eq!(code_of(c.get_asset(b, b_asset.id).send().await), not_found);
    assert_eq!(
        code_of(c.update_asset(b, b_asset.id, asset_input("x")).send().await),
        not_found
    );
    assert_eq!(
        code_of(c.delete_asset(b, b_asset.id).send().await),
        not_found
    );
    assert_eq!(
        code_of(
            c.create_alert_rule(b, b_asset.id, rule_input(e, 0, vec![]))
                .send()
                .await
        ),
        not_found
    );
    assert_eq!(
        code_of(c.list_alert_rules(b, b_asset.id, e).send().await),
        not_found
    );
    assert_eq!(
        code_of(c.list_alert_rule_geofences(b, b_asset.id, e).send().await),
        not_found
    );
    assert_eq!(
        code_of(c.get_alert_rule(b, b_rule.id).send().await),
        not_found
    );
    assert_eq!(
        code_of(
            c.update_alert_rule(b, b_rule.id, rule_input(e, 0, vec![]))
                .send()
                .await
        ),
        not_found
    );
    assert_eq!(
        code_of(c.delete_alert_rule(b, b_rule.id).send().await),
        not_found
    );
    assert_eq!(code_of(c.list_geofences(b).send().await), not_found);
    assert_eq!(
        code_of(c.create_geofence(b, geofence_input("x", "x")).send().await),
        not_found
    );
    assert_eq!(
        code_of(c.get_geofence(b, b_geofence.id).send().await),
        not_found
    );
    assert_eq!(
        code_of(
            c.update_geofence(b, b_geofence.id, geofence_input("x", "x"))
                .send()
                .await
        ),
        not_found
    );
    assert_eq!(
        code_of(c.delete_geofence(b, b_geofence.id).send().await),
        not_found
    );
    assert_eq!(code_of(c.get_ingestion_token(b).send().await), not_found);
    assert_eq!(code_of(c.get_portal_link(b).send().await), not_found);

    // B's resource ids under A's own account.
    assert_eq!(code_of(c.get_asset(a, b_asset.id).send().await), not_found);
    assert_eq!(
        code_of(c.update_asset(a, b_asset.id, asset_input("y")).send().await),
        not_found
    );
    assert_eq!(
        code_of(c.delete_asset(a, b_asset.id).send().await),
        not_found
    );
    assert_eq!(
        code_of(c.list_alert_rules(a, b_asset.id, e).send().await),
        not_found
    );
    assert_eq!(
        code_of(c.list_alert_rule_geofences(a, b_asset.id, e).send().await),
        not_found
    );
    assert_eq!(
        code_of(
            c.create_alert_rule(a, b_asset.id, rule_input(e, 0, vec![]))
                .send()
                .await
        ),
        not_found
    );
    assert_eq!(
        code_of(c.get_alert_rule(a, b_rule.id).send().await),
        not_found
    );
    assert_eq!(
        code_of(
            c.update_alert_rule(a, b_rule.id, rule_input(e, 0, vec![]))
                .send()
                .await
        ),
        not_found
    );
    assert_eq!(
        code_of(c.delete_alert_rule(a, b_rule.id).send().await),
        not_found
    );
    assert_eq!(
        code_of(c.get_geofence(a, b_geofence.id).send().await),
        not_found
    );
    assert_eq!(
        code_of(
            c.update_geofence(a, b_geofence.id, geofence_input("y", "y"))
                .send()
                .await
        ),
        not_found
    );
    assert_eq!(
        code_of(c.delete_geofence(a, b_geofence.id).send().await),
        not_found
    );
    assert_eq!(
        code_of(
            c.create_alert_rule(a, a_asset.id, rule_input(e, 0, vec![b_geofence.id]))
                .send()
                .await
        ),
        (400, 1000)
    );

    // Nothing of B's changed, and the parent still reaches both.
    assert_eq!(root.get_asset(b, b_asset.id).send().await.unwrap(), b_asset);
    assert_eq!(
        root.get_alert_rule(b, b_rule.id).send().await.unwrap(),
        b_rule
    );
    assert_eq!(root.list_assets(a).send().await.unwrap(), vec![a_asset]);
    service.stop().await;
}

async fn assert_error_body(
    response: reqwest::Response,
    code: i64,
    mentions: &str,
) -> Result<(), String> {
    let status = response.status();
    let body: Value = response.json().await.map_err(|e| e.to_string())?;
    let object = body.as_object().ok_or("not an object")?;
    assert_eq!(object.len(), 2, "exactly {{code, message}}: {body}");
    assert_eq!(body["code"], json!(code), "{status}: {body}");
    let message = body["message"].as_str().ok_or("message is not a string")?;
    assert!(
        message.contains(mentions),
        "{status}: `{message}` should mention `{mentions}`"
    );
    Ok(())
}

/// A request and what it must get: method, url, (content type, body), status, error code, and a
/// word the message must contain.
type BadRequest = (
    reqwest::Method,
    String,
    Option<(&'static str, String)>,
    u16,
    i64,
    &'static str,
);

/// Malformed input of every kind: 400 (or 415) with the error body, never a 500, nothing stored.
#[tokio::test]
async fn bad_input_gets_the_error_body() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let asset = root
        .create_asset(service.root, asset_input("truck"))
        .send()
        .await
        .unwrap();
    let token = token(&service).await;
    let http = reqwest::Client::new();
    let base = format!("{}/v1/accounts/{}", service.base, service.root);
    let send = |method: reqwest::Method, url: String, body: Option<(&'static str, String)>| {
        let mut request = http.request(method, url).bearer_auth(&token);
        if let Some((content_type, body)) = body {
            request = request.header("content-type", content_type).body(body);
        }
        request.send()
    };
    let json_body = |v: Value| Some(("application/json", v.to_string()));
    let asset_url = format!("{base}/assets");
    let cases: Vec<BadRequest> = vec![
        (
            reqwest::Method::POST,
            asset_url.clone(),
            Some(("application/json", "{\"externalId\": ".into())),
            400,
            1001,
            "",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            json_body(json!({"externalId": 5, "name": "n", "tier": 1})),
            400,
            1000,
            "externalId",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            json_body(json!({"name": "n", "tier": 1})),
            400,
            1000,
            "externalId",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            json_body(json!({"externalId": "e", "name": "n", "tier": 3})),
            400,
            1000,
            "tier",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            json_body(json!({"externalId": "e", "name": "n", "tier": 1, "colour": "red"})),
            400,
            1000,
            "colour",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            json_body(
                json!({"externalId": "e", "name": "n", "tier": 1, "telemetryRules": {"speedLimit": "-1"}}),
            ),
            400,
            1000,
            "speedLimit",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            json_body(
                json!({"externalId": "e", "name": "n", "tier": 1, "telemetryRules": {"speedLimit": "4294967296"}}),
            ),
            400,
            1000,
            "speedLimit",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            json_body(
                json!({"externalId": "e", "name": "n", "tier": 1, "telemetryRules": {"engineSpeedLimit": "-99999999999999999999"}}),
            ),
            400,
            1000,
            "engineSpeedLimit",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            json_body(
                json!({"externalId": "e", "name": "n", "tier": 1, "telemetryRules": {"fuelLevelLowThreshold": "1e3"}}),
            ),
            400,
            1000,
            "fuelLevelLowThreshold",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            json_body(json!({"externalId": "", "name": "n", "tier": 1})),
            400,
            1000,
            "externalId",
        ),
        (
            reqwest::Method::POST,
            asset_url.clone(),
            Some(("text/plain", "hello".into())),
            415,
            1002,
            "",
        ),
        (
            reqwest::Method::GET,
            format!("{base}/assets/not-a-uuid"),
            None,
            400,
            1000,
            "assetId",
        ),
        (
            reqwest::Method::GET,
            format!("{}/v1/accounts/123/assets", service.base),
            None,
            400,
            1000,
            "accountId",
        ),
        (
            reqwest::Method::GET,
            format!("{base}/assets/{}/alertRules/99", asset.id),
            None,
            400,
            1000,
            "eventType",
        ),
        (
            reqwest::Method::GET,
            format!("{base}/assets/{}/alertRules/abc", asset.id),
            None,
            400,
            1000,
            "eventType",
        ),
        (
            reqwest::Method::GET,
            format!("{base}/assets?take=-5"),
            None,
            400,
            1000,
            "take",
        ),
        (
            reqwest::Method::GET,
            format!("{base}/assets?take=100000"),
            None,
            400,
            1000,
            "take",
        ),
        (
            reqwest::Method::GET,
            format!("{base}/assets?skip=x"),
            None,
            400,
            1000,
            "skip",
        ),
        (
            reqwest::Method::GET,
            format!("{base}/assets?includeDeleted=maybe"),
            None,
            400,
            1000,
            "includeDeleted",
        ),
        (
            reqwest::Method::POST,
            format!("{base}/geofences"),
            json_body(
                json!({"externalId": "g", "name": "g", "polygon": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}}),
            ),
            400,
            1000,
            "not closed",
        ),
        (
            reqwest::Method::POST,
            format!("{base}/geofences"),
            json_body(
                json!({"externalId": "g", "name": "g", "polygon": {"type": "Point", "coordinates": [0, 0]}}),
            ),
            400,
            1000,
            "polygon",
        ),
        (
            reqwest::Method::POST,
            format!("{base}/assets/{}/alertRules", asset.id),
            json_body(
                json!({"eventType": 1, "recipient": {"culture": "en-US", "timeZone": "UTC"}, "channel": {"type": "pigeon"}}),
            ),
            400,
            1000,
            "channel",
        ),
        (
            reqwest::Method::POST,
            format!("{base}/assets/{}/alertRules", asset.id),
            json_body(
                json!({"eventType": 1, "recipient": {"culture": "en-US", "timeZone": "Nowhere/City"}, "channel": {"type": "call", "call": {}}}),
            ),
            400,
            1000,
            "timeZone",
        ),
        (
            reqwest::Method::POST,
            format!("{base}/assets/{}/alertRules", asset.id),
            json_body(
                json!({"eventType": 1, "recipient": {"culture": "english", "timeZone": "UTC"}, "channel": {"type": "email", "email": {"emailAddress": "a@b.c"}}}),
            ),
            400,
            1000,
            "culture",
        ),
        (
            reqwest::Method::POST,
            base.clone(),
            json_body(json!({"name": "x", "callbackUri": "not a uri"})),
            400,
            1000,
            "callbackUri",
        ),
    ];
    for (method, url, body, status, code, mentions) in cases {
        let shown = format!("{method} {url} {body:?}");
        let response = send(method, url, body).await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{shown}");
        assert_error_body(response, code, mentions)
            .await
            .unwrap_or_else(|e| panic!("{shown}: {e}"));
    }
    // Nothing was stored by the refused requests.
    assert_eq!(
        root.list_assets(service.root).send().await.unwrap(),
        vec![asset]
    );
    assert!(
        root.list_geofences(service.root)
            .send()
            .await
            .unwrap()
            .is_empty()
    );
    service.stop().await;
}

/// Geometry that is not a polygon, oversized polygons, addresses SMTP refuses and phone numbers
/// not in E.164: 400 with `{code, message}` naming the ring or field and the defect.
#[tokio::test]
async fn invalid_geometry_addresses_and_phone_numbers_are_refused() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let asset = root
        .create_asset(service.root, asset_input("truck"))
        .send()
        .await
        .unwrap();
    let token = token(&service).await;
    let http = reqwest::Client::new();
    let base = format!("{}/v1/accounts/{}", service.base, service.root);
    let post = |url: String, body: Value| http.post(url).bearer_auth(&token).json(&body).send();
    let geofence = |rings: Value| json!({"externalId": "g", "name": "g", "polygon": {"type": "Polygon", "coordinates": rings}});
    let square = json!([[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]);
    // A closed ring of 100,000 positions (a rectangle with a finely divided edge, about 1 MB):
    // valid but for its size.
    let huge: Vec<Value> = (0..99_997)
        .map(|i| json!([f64::from(i) / 10_000.0, 0]))
        .chain([json!([10, 1]), json!([0, 1]), json!([0, 0])])
        .collect();
    let long_local = format!("{}@example.com", "a".repeat(390));
    let rule = |recipient: Value, channel: Value| json!({"eventType": 1, "recipient": recipient, "channel": channel});
    let utc = |phone: &str| json!({"culture": "en-US", "timeZone": "UTC", "phoneNumber": phone});
    let cases: Vec<(String, Value, &str)> = vec![
        (
            format!("{base}/geofences"),
            geofence(json!([[[0, 0], [10, 10], [10, 0], [0, 10], [0, 0]]])),
            "polygon.coordinates[0] (the exterior ring): the ring crosses or touches itself",
        ),
        (
            format!("{base}/geofences"),
            geofence(json!([[[5, 5], [5, 5], [5, 5], [5, 5]]])),
            "polygon.coordinates[0] (the exterior ring): the ring has no area",
        ),
        (
            format!("{base}/geofences"),
            geofence(json!([[[0, 0], [1, 1], [2, 2], [0, 0]]])),
            "polygon.coordinates[0] (the exterior ring)",
        ),
        (
            format!("{base}/geofences"),
            geofence(json!([square, [[20, 20], [21, 20], [21, 21], [20, 20]]])),
            "polygon.coordinates[1] (a hole): the hole is not inside the exterior ring",
        ),
        (
            format!("{base}/geofences"),
            geofence(json!([huge])),
            "at most 2000",
        ),
        (
            format!("{base}/assets/{}/alertRules", asset.id),
            rule(
                utc("+4915112345678"),
                json!({"type": "email", "email": {"emailAddress": long_local}}),
            ),
            "channel.email.emailAddress: must be at most 254 characters",
        ),
        (
            format!("{base}/assets/{}/alertRules", asset.id),
            rule(
                utc("+4915112345678"),
                json!({"type": "email", "email": {"emailAddress": format!("{}@example.com", "a".repeat(65))}}),
            ),
            "channel.email.emailAddress: the local part (before @) has 65 characters; RFC 5321 allows 64",
        ),
        (
            format!("{base}/assets/{}/alertRules", asset.id),
            rule(
                utc("+4915112345678"),
                json!({"type": "email", "email": {"emailAddress": "ops@example..com"}}),
            ),
            "channel.email.emailAddress: not an e-mail address",
        ),
        (
            base.clone(),
            json!({"name": "x", "technicalEmailAddress": format!("a@{}.com", "b".repeat(300))}),
            "technicalEmailAddress",
        ),
    ];
    let phones = [
        "4915112345678",
        "+04915112345678",
        "+49 151 12345678",
        "+1234567890123456",
        "+1",
    ];
    let cases = cases.into_iter().chain(phones.into_iter().map(|phone| {
        (
            format!("{base}/assets/{}/alertRules", asset.id),
            rule(utc(phone), json!({"type": "sms", "sms": {}})),
            "recipient.phoneNumber",
        )
    }));
    for (url, body, mentions) in cases {
        let shown = format!(
            "{url} {}",
            &body.to_string()[..body.to_string().len().min(200)]
        );
        let response = post(url, body).await.unwrap();
        assert_eq!(response.status().as_u16(), 400, "{shown}");
        assert_error_body(response, 1000, mentions)
            .await
            .unwrap_or_else(|e| panic!("{shown}: {e}"));
    }
    // Nothing was stored; a valid polygon with a hole inside and a 64-character local part are taken.
    assert!(
        root.list_geofences(service.root)
            .send()
            .await
            .unwrap()
            .is_empty()
    );
    let response = post(
        format!("{base}/geofences"),
        geofence(json!([square, [[2, 2], [3, 2], [3, 3], [2, 2]]])),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), 201);
    let response = post(
        format!("{base}/assets/{}/alertRules", asset.id),
        rule(utc("+4915112345678"), json!({"type": "email", "email": {"emailAddress": format!("{}@example.com", "a".repeat(64))}})),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), 201);
    service.stop().await;
}

#[tokio::test]
async fn data_and_tokens_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let root_id = Uuid::new_v4();
    let service = TestService::start(config(&dir, root_id)).await;
    let root = service.root_client();
    let asset = root
        .create_asset(root_id, asset_input("persisted"))
        .send()
        .await
        .unwrap();
    let (child_id, _) = child(&service, &root, root_id, "kept").await;
    let token = token(&service).await;
    service.stop().await;

    let again = TestService::start(config(&dir, root_id)).await;
    let with_old_token: Client = again.with_token(&token);
    assert_eq!(
        with_old_token
            .get_asset(root_id, asset.id)
            .send()
            .await
            .unwrap(),
        asset
    );
    assert_eq!(
        with_old_token
            .get_account(child_id)
            .send()
            .await
            .unwrap()
            .parent_id,
        Some(root_id)
    );
    again.stop().await;
}

/// A NUL character is text PostgreSQL cannot hold: bad input (400) there, stored by SQLite, and
/// never a server error.
#[tokio::test]
async fn nul_characters_are_never_a_server_error() {
    let (_dir, service) = started().await;
    let client = service.root_client();
    let created = client
        .create_asset(service.root, asset_input("nul\u{0}truck"))
        .send()
        .await;
    let postgres = service_backend() == Backend::Postgres;
    if postgres {
        assert_eq!(code_of(created).0, 400);
    } else {
        created.unwrap();
    }
    let listed = client
        .list_assets(service.root)
        .external_id("a\u{0}b")
        .send()
        .await;
    if postgres {
        assert_eq!(code_of(listed).0, 400);
    } else {
        assert!(listed.unwrap().is_empty());
    }
    service.stop().await;
}
