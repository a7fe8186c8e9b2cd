//! The generated client (generated/client) against the generated server (generated/server) serving
//! the in-memory `MemoryApi`, over real HTTP on 127.0.0.1: every operation, documented errors,
//! OAuth 2.0 client credentials (one token fetch shared by concurrent calls, renewal on expiry and
//! after a 401), the retry policy, and paging.

use asset_alerting_client::models::{
    AlertRuleInput, AssetInput, AssetTier, Channel, ChannelType, CreateAccountRequest, DayOfWeek,
    EventType, GeoJsonPolygon, GeoJsonPolygonType, GeofenceInput, OAuthErrorError, Recipient,
    SmsChannel, TokenRequest,
};
use asset_alerting_client::{Client, Error, RetryPolicy, errors};
use futures_util::TryStreamExt;
use integration_tests::memory::axum::{self, Router};
use integration_tests::memory::{CLIENT_ID, CLIENT_SECRET, MemoryApi, ROOT_ACCOUNT, TOKEN, codes};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use uuid::Uuid;

/// Serves `app` on an ephemeral port of 127.0.0.1 for the rest of the test; returns its base URL.
async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("server runs") });
    format!("http://{address}")
}

async fn start() -> (Arc<MemoryApi>, String) {
    let api = Arc::new(MemoryApi::default());
    let base_url = serve(asset_alerting_server::router(api.clone())).await;
    (api, base_url)
}

/// Retries without the default waits, so the tests stay fast.
fn quick_retries() -> RetryPolicy {
    RetryPolicy {
        max_retries: 2,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
    }
}

fn client(base_url: &str) -> Client {
    Client::builder(base_url)
        .client_credentials(CLIENT_ID, CLIENT_SECRET)
        .retry(quick_retries())
        .build()
        .expect("client")
}

fn token_requests(api: &MemoryApi) -> usize {
    api.token_requests.load(Ordering::SeqCst)
}

fn calls(api: &MemoryApi) -> usize {
    api.calls.load(Ordering::SeqCst)
}

fn asset_input(external_id: &str) -> AssetInput {
    AssetInput {
        id: None,
        account_id: None,
        is_deleted: None,
        external_id: external_id.to_owned(),
        device_id: None,
        name: format!("Truck {external_id}"),
        tier: AssetTier::Basic,
        disabled_events: None,
        telemetry_rules: None,
    }
}

fn geofence_input(external_id: &str) -> GeofenceInput {
    let ring = vec![
        vec![13.37, 52.51],
        vec![13.39, 52.51],
        vec![13.39, 52.52],
        vec![13.37, 52.52],
        vec![13.37, 52.51],
    ];
    GeofenceInput {
        id: None,
        account_id: None,
        external_id: external_id.to_owned(),
        name: "Depot".to_owned(),
        polygon: GeoJsonPolygon {
            r#type: GeoJsonPolygonType::Polygon,
            coordinates: vec![ring],
        },
    }
}

fn rule_input(geofence: Uuid) -> AlertRuleInput {
    AlertRuleInput {
        id: None,
        account_id: None,
        asset_id: None,
        event_type: EventType::BatteryLow,
        order: 0,
        recipient: Recipient {
            culture: "en-US".to_owned(),
            time_zone: "Europe/Berlin".to_owned(),
            phone_number: Some("+4915112345678".to_owned()),
            description: None,
        },
        channel: Channel {
            r#type: ChannelType::Sms,
            call: None,
            sms: Some(SmsChannel {
                is_interactive: true,
            }),
            telegram: None,
            email: None,
        },
        is_disabled: false,
        days_of_week: vec![DayOfWeek::Monday],
        time_of_day: None,
        dates: None,
        inside_geofences: Vec::new(),
        outside_geofences: vec![geofence],
    }
}

/// The documented error body of an `Error::Api`, or a panic naming what came instead.
fn api_error<E: std::fmt::Debug>(result: Result<impl std::fmt::Debug, Error<E>>) -> (u16, E) {
    match result {
        Err(Error::Api { status, body }) => (status.as_u16(), *body),
        other => panic!("expected Error::Api, got {other:?}"),
    }
}

/// Every operation of the spec, through the client, in the order an integrator would use them.
#[tokio::test]
async fn every_operation_round_trips() {
    let (api, base_url) = start().await;
    // The usage example of the report: build once, call operations, await builders.
    let client = Client::builder(&base_url)
        .client_credentials(CLIENT_ID, CLIENT_SECRET)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    let account = client.get_account(ROOT_ACCOUNT).await.expect("get_account");
    assert_eq!(account.id, ROOT_ACCOUNT);

    // issueToken directly (anonymous access: the form carries the credentials).
    let token = client
        .issue_token(TokenRequest {
            grant_type: Some("client_credentials".to_owned()),
            client_id: Some(CLIENT_ID.to_owned()),
            client_secret: Some(CLIENT_SECRET.to_owned()),
            scope: None,
        })
        .send()
        .await
        .expect("issue_token");
    assert_eq!(token.access_token, TOKEN);

    let child = CreateAccountRequest {
        name: "Fleet".to_owned(),
        friendly_name: Some("Fleet A".to_owned()),
        culture: None,
        technical_email_address: None,
        callback_uri: None,
    };
    let created = client
        .create_account(ROOT_ACCOUNT, child)
        .send()
        .await
        .expect("create_account");
    assert!(!created.client_secret.is_empty());

    // Assets.
    assert!(
        client
            .list_assets(ROOT_ACCOUNT)
            .send()
            .await
            .expect("list_assets")
            .is_empty()
    );
    let asset = client
        .create_asset(ROOT_ACCOUNT, asset_input("T-1"))
        .send()
        .await
        .expect("create_asset");
    assert_eq!(asset.external_id, "T-1");
    assert_eq!(
        client
            .get_asset(ROOT_ACCOUNT, asset.id)
            .send()
            .await
            .expect("get_asset"),
        asset
    );
    let mut renamed = asset_input("T-1");
    renamed.name = "Renamed".to_owned();
    let updated = client
        .update_asset(ROOT_ACCOUNT, asset.id, renamed)
        .send()
        .await
        .expect("update_asset");
    assert_eq!(updated.name, "Renamed");
    client
        .create_asset(ROOT_ACCOUNT, asset_input("T-2"))
        .send()
        .await
        .expect("create_asset");
    let filtered = client
        .list_assets(ROOT_ACCOUNT)
        .external_id("T-2")
        .send()
        .await
        .expect("list_assets");
    assert_eq!(
        filtered
            .iter()
            .map(|a| a.external_id.as_str())
            .collect::<Vec<_>>(),
        ["T-2"]
    );

    // Geofences and alert rules.
    let geofence = client
        .create_geofence(ROOT_ACCOUNT, geofence_input("G-1"))
        .send()
        .await
        .expect("create_geofence");
    assert_eq!(
        client
            .get_geofence(ROOT_ACCOUNT, geofence.id)
            .send()
            .await
            .expect("get_geofence"),
        geofence
    );
    let mut moved = geofence_input("G-1");
    moved.name = "Moved depot".to_owned();
    let geofence = client
        .update_geofence(ROOT_ACCOUNT, geofence.id, moved)
        .send()
        .await
        .expect("update_geofence");
    assert_eq!(geofence.name, "Moved depot");
    assert_eq!(
        client
            .list_geofences(ROOT_ACCOUNT)
            .send()
            .await
            .expect("list_geofences"),
        vec![geofence.clone()]
    );
    let rule = client
        .create_alert_rule(ROOT_ACCOUNT, asset.id, rule_input(geofence.id))
        .send()
        .await
        .expect("create_alert_rule");
    assert_eq!(rule.asset_id, asset.id);
    assert_eq!(
        client
            .get_alert_rule(ROOT_ACCOUNT, rule.id)
            .send()
            .await
            .expect("get_alert_rule"),
        rule
    );
    let mut reordered = rule_input(geofence.id);
    reordered.order = 3;
    let rule = client
        .update_alert_rule(ROOT_ACCOUNT, rule.id, reordered)
        .send()
        .await
        .expect("update_alert_rule");
    assert_eq!(rule.order, 3);
    let rules = client
        .list_alert_rules(ROOT_ACCOUNT, asset.id, EventType::BatteryLow)
        .send()
        .await
        .expect("list_alert_rules");
    assert_eq!(rules, vec![rule.clone()]);
    let used = client
        .list_alert_rule_geofences(ROOT_ACCOUNT, asset.id, EventType::BatteryLow)
        .send()
        .await
        .expect("list_alert_rule_geofences");
    assert_eq!(used, vec![geofence.clone()]);
    // Integer enums in the path are sent as their value: another event type lists nothing.
    assert!(
        client
            .list_alert_rules(ROOT_ACCOUNT, asset.id, EventType::Any)
            .send()
            .await
            .expect("list")
            .is_empty()
    );
    let () = client
        .delete_alert_rule(ROOT_ACCOUNT, rule.id)
        .send()
        .await
        .expect("delete_alert_rule");
    let () = client
        .delete_geofence(ROOT_ACCOUNT, geofence.id)
        .send()
        .await
        .expect("delete_geofence");
    let () = client
        .delete_asset(ROOT_ACCOUNT, asset.id)
        .send()
        .await
        .expect("delete_asset");
    let deleted = client
        .get_asset(ROOT_ACCOUNT, asset.id)
        .await
        .expect("get_asset");
    assert_eq!(deleted.is_deleted, Some(true));
    let with_deleted = client
        .list_assets(ROOT_ACCOUNT)
        .include_deleted(true)
        .await
        .expect("list_assets");
    assert_eq!(with_deleted.len(), 2);

    // Account extras.
    let ingestion = client
        .get_ingestion_token(ROOT_ACCOUNT)
        .send()
        .await
        .expect("get_ingestion_token");
    assert!(!ingestion.token.is_empty());
    let link = client
        .get_portal_link(ROOT_ACCOUNT)
        .send()
        .await
        .expect("get_portal_link");
    assert!(link.url.contains(&ROOT_ACCOUNT.to_string()), "{}", link.url);

    // One token for all of it (issueToken called directly counts as the second request).
    assert_eq!(token_requests(&api), 2);
}

#[tokio::test]
async fn documented_errors_decode_into_their_status_variant() {
    let (_api, base_url) = start().await;
    let client = client(&base_url);

    let (status, body) = api_error(
        client
            .get_asset(ROOT_ACCOUNT, Uuid::from_u128(42))
            .send()
            .await,
    );
    assert_eq!((status, body.code), (404, codes::NOT_FOUND));
    assert!(matches!(body, errors::GetAsset::NotFound(_)), "{body:?}");

    client
        .create_asset(ROOT_ACCOUNT, asset_input("DUP"))
        .send()
        .await
        .expect("first asset");
    let (status, body) = api_error(
        client
            .create_asset(ROOT_ACCOUNT, asset_input("DUP"))
            .send()
            .await,
    );
    assert_eq!((status, body.code), (409, codes::CONFLICT));
    assert!(matches!(body, errors::CreateAsset::Conflict(_)), "{body:?}");

    // Out of range for the spec (minimum 1): the server's validation answers 400.
    let (status, body) = api_error(client.list_assets(ROOT_ACCOUNT).take(0).send().await);
    assert_eq!((status, body.code), (400, codes::VALIDATION));
    assert!(
        matches!(body, errors::ListAssets::BadRequest(_)),
        "{body:?}"
    );
    assert!(body.message.contains("take"), "{}", body.message);

    // A geofence still referenced by a rule cannot be deleted (409).
    let asset = client
        .create_asset(ROOT_ACCOUNT, asset_input("A"))
        .send()
        .await
        .expect("asset");
    let geofence = client
        .create_geofence(ROOT_ACCOUNT, geofence_input("G"))
        .send()
        .await
        .expect("geofence");
    client
        .create_alert_rule(ROOT_ACCOUNT, asset.id, rule_input(geofence.id))
        .send()
        .await
        .expect("rule");
    let (status, _) = api_error(
        client
            .delete_geofence(ROOT_ACCOUNT, geofence.id)
            .send()
            .await,
    );
    assert_eq!(status, 409);

    // The token endpoint has its own error body (RFC 6749), typed as such.
    let refused = client
        .issue_token(TokenRequest {
            grant_type: Some("password".to_owned()),
            client_id: None,
            client_secret: None,
            scope: None,
        })
        .send()
        .await;
    let (status, body) = api_error(refused);
    assert_eq!(
        (status, body.error),
        (400, OAuthErrorError::UnsupportedGrantType)
    );

    // Errors display their status and body, and are std errors.
    let error = client
        .get_asset(ROOT_ACCOUNT, Uuid::from_u128(7))
        .send()
        .await
        .expect_err("404");
    let shown = error.to_string();
    assert!(shown.contains("404") && shown.contains("1400"), "{shown}");
    let _: &dyn std::error::Error = &error;
    assert_eq!(error.status().map(|s| s.as_u16()), Some(404));
    assert_eq!(error.api_body().map(|b| b.code), Some(codes::NOT_FOUND));
}

#[tokio::test]
async fn the_token_is_fetched_once_and_shared_by_concurrent_calls() {
    let (api, base_url) = start().await;
    let client = client(&base_url);
    // Twenty calls at once on a fresh client: one token request, the others wait for it.
    let calls: Vec<_> = (0..20)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.get_account(ROOT_ACCOUNT).await })
        })
        .collect();
    for call in calls {
        call.await.expect("task").expect("get_account");
    }
    for _ in 0..10 {
        client
            .list_geofences(ROOT_ACCOUNT)
            .send()
            .await
            .expect("list_geofences");
    }
    assert_eq!(token_requests(&api), 1);
}

/// Rewrites the `expires_in` of successful token answers, so a test can watch a token expire.
async fn short_lived_tokens(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let is_token = request.uri().path() == "/v1/auth/token";
    let response = next.run(request).await;
    if !is_token || !response.status().is_success() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .expect("token body");
    let mut json: serde_json::Value = serde_json::from_slice(&bytes).expect("token JSON");
    json["expires_in"] = 1.into();
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    axum::response::Response::from_parts(parts, axum::body::Body::from(json.to_string()))
}

#[tokio::test]
async fn an_expired_token_is_renewed() {
    let api = Arc::new(MemoryApi::default());
    let app = asset_alerting_server::router(api.clone())
        .layer(axum::middleware::from_fn(short_lived_tokens));
    let client = client(&serve(app).await);
    client.get_account(ROOT_ACCOUNT).await.expect("first call");
    client.get_account(ROOT_ACCOUNT).await.expect("second call");
    assert_eq!(token_requests(&api), 1, "a valid token is reused");
    // A 1 s token is replaced after 0.9 s (a tenth of its lifetime before it expires).
    tokio::time::sleep(Duration::from_millis(1000)).await;
    client
        .get_account(ROOT_ACCOUNT)
        .await
        .expect("call after expiry");
    assert_eq!(token_requests(&api), 2, "an expired token is renewed");
}

#[tokio::test]
async fn a_rejected_token_is_renewed_and_the_request_sent_once_more() {
    let (api, base_url) = start().await;
    let client = client(&base_url);
    client.get_account(ROOT_ACCOUNT).await.expect("warm up");
    assert_eq!(token_requests(&api), 1);
    // The server rejects the cached token once (as after a key rotation): new token, same request.
    api.fail_next(401);
    let account = client
        .get_account(ROOT_ACCOUNT)
        .await
        .expect("sent again with a new token");
    assert_eq!(account.id, ROOT_ACCOUNT);
    assert_eq!(token_requests(&api), 2);
    // A POST is sent again too: the server did not act on a request it did not authenticate.
    api.fail_next(401);
    client
        .create_asset(ROOT_ACCOUNT, asset_input("P"))
        .send()
        .await
        .expect("POST after a 401");
    assert_eq!(token_requests(&api), 3);
    // A static bearer token is never renewed: the 401 is the answer.
    let fixed = Client::builder(&base_url)
        .bearer_token("not-the-token")
        .build()
        .expect("client");
    let (status, body) = api_error(fixed.get_account(ROOT_ACCOUNT).await);
    assert_eq!((status, body.code), (401, codes::UNAUTHENTICATED));
    // The documented `WWW-Authenticate` header is read into the variant.
    let errors::GetAccount::Unauthorized {
        www_authenticate, ..
    } = &body
    else {
        panic!("expected Unauthorized, got {body:?}")
    };
    assert!(
        www_authenticate
            .as_deref()
            .is_some_and(|v| v.starts_with("Bearer")),
        "{www_authenticate:?}"
    );
}

#[tokio::test]
async fn refused_client_credentials_are_an_auth_error() {
    let (_api, base_url) = start().await;
    let client = Client::builder(&base_url)
        .client_credentials(CLIENT_ID, "wrong-secret")
        .build()
        .expect("client");
    match client.get_account(ROOT_ACCOUNT).await {
        Err(Error::Auth(e)) => {
            assert_eq!(e.status.as_u16(), 401);
            assert_eq!(e.error.as_deref(), Some("invalid_client"));
            assert!(e.to_string().contains("invalid_client"), "{e}");
        }
        other => panic!("expected Error::Auth, got {other:?}"),
    }
}

#[tokio::test]
async fn idempotent_requests_are_retried_and_posts_are_not() {
    let (api, base_url) = start().await;
    let client = client(&base_url);
    client
        .get_account(ROOT_ACCOUNT)
        .await
        .expect("warm up (fetches the token)");

    // GET: 503 twice, then 200 on the second retry.
    api.fail_next(503);
    api.fail_next(503);
    let before = calls(&api);
    client
        .get_account(ROOT_ACCOUNT)
        .await
        .expect("GET succeeds after two retries");
    assert_eq!(calls(&api) - before, 3);

    // Three 503s exhaust the two retries: the last answer is returned (undocumented: UnexpectedStatus).
    for _ in 0..3 {
        api.fail_next(503);
    }
    let before = calls(&api);
    match client.get_account(ROOT_ACCOUNT).await {
        Err(Error::UnexpectedStatus { status, .. }) => assert_eq!(status.as_u16(), 503),
        other => panic!("expected UnexpectedStatus 503, got {other:?}"),
    }
    assert_eq!(calls(&api) - before, 3);

    // POST: sent once, the 503 is the answer.
    api.fail_next(503);
    let before = calls(&api);
    match client
        .create_asset(ROOT_ACCOUNT, asset_input("X"))
        .send()
        .await
    {
        Err(Error::UnexpectedStatus { status, .. }) => assert_eq!(status.as_u16(), 503),
        other => panic!("expected UnexpectedStatus 503, got {other:?}"),
    }
    assert_eq!(calls(&api) - before, 1);

    // RetryPolicy::none(): a GET is sent once.
    let once = Client::builder(&base_url)
        .bearer_token(TOKEN)
        .retry(RetryPolicy::none())
        .build()
        .expect("client");
    api.fail_next(503);
    let before = calls(&api);
    assert!(once.get_account(ROOT_ACCOUNT).await.is_err());
    assert_eq!(calls(&api) - before, 1);

    // Connection refused is a transport error (after the retries).
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = closed.local_addr().expect("address");
    drop(closed);
    let nowhere = Client::builder(format!("http://{address}"))
        .bearer_token(TOKEN)
        .retry(quick_retries())
        .build()
        .expect("client");
    match nowhere.get_account(ROOT_ACCOUNT).await {
        Err(Error::Transport(e)) => assert!(e.is_connect(), "{e}"),
        other => panic!("expected a transport error, got {other:?}"),
    }
}

#[tokio::test]
async fn into_stream_walks_every_page() {
    let (api, base_url) = start().await;
    let client = client(&base_url);
    for n in 0..7 {
        client
            .create_asset(ROOT_ACCOUNT, asset_input(&format!("P-{n}")))
            .send()
            .await
            .expect("create_asset");
    }
    let before = calls(&api);
    let assets: Vec<_> = client
        .list_assets(ROOT_ACCOUNT)
        .take(3)
        .into_stream()
        .try_collect()
        .await
        .expect("pages");
    let ids: Vec<_> = assets.iter().map(|a| a.external_id.clone()).collect();
    assert_eq!(ids, (0..7).map(|n| format!("P-{n}")).collect::<Vec<_>>());
    // Pages of 3, 3 and 1: the short page ends the walk.
    assert_eq!(calls(&api) - before, 3);
    assert_eq!(*api.last_page.lock().unwrap(), Some((6, 3, false)));

    // Without `take`, pages have the spec's default size (50): one short page.
    let all: Vec<_> = client
        .list_assets(ROOT_ACCOUNT)
        .into_stream()
        .try_collect()
        .await
        .expect("one page");
    assert_eq!(all.len(), 7);
    assert_eq!(*api.last_page.lock().unwrap(), Some((0, 50, false)));

    // A page size that divides the total: the walk stops at the first empty page.
    let exact: Vec<_> = client
        .list_assets(ROOT_ACCOUNT)
        .skip(1)
        .take(2)
        .into_stream()
        .try_collect()
        .await
        .expect("pages");
    assert_eq!(exact.len(), 6);
    assert_eq!(*api.last_page.lock().unwrap(), Some((7, 2, false)));
}
