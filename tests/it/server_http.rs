//! The generated server over real HTTP: `router(MemoryApi)` on 127.0.0.1, every operation of
//! spec/asset-alerting.yaml driven with reqwest, success paths and every way the router itself
//! refuses a request (400, 401, 404, 405, 415), each answered in the spec's `{code, message}` shape.
//! Also the snapshot of the server emitted for tests/fixtures/server-basics.yaml.

use asset_alerting_models::{
    Account, AlertRule, Asset, AssetTier, CreateAccountResponse, EventType, Geofence,
    IngestionToken, OAuthError, OAuthErrorError, PortalLink, TokenResponse,
};
use asset_alerting_server::router;
use integration_tests::memory::{CLIENT_ID, CLIENT_SECRET, MemoryApi, ROOT_ACCOUNT, TOKEN, codes};
use openapi_gen::Part;
use reqwest::{Client, Method, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use uuid::Uuid;

/// A running server and a client pointed at it.
struct Server {
    base: String,
    api: Arc<MemoryApi>,
    http: Client,
}

impl Server {
    async fn start() -> Server {
        let api = Arc::new(MemoryApi::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let app = router(api.clone());
        tokio::spawn(async move {
            asset_alerting_server::axum::serve(listener, app)
                .await
                .unwrap()
        });
        Server {
            base,
            api,
            http: Client::new(),
        }
    }

    /// A request with the accepted bearer token.
    fn call(&self, method: Method, path: &str) -> RequestBuilder {
        self.anonymous(method, path).bearer_auth(TOKEN)
    }

    fn anonymous(&self, method: Method, path: &str) -> RequestBuilder {
        self.http.request(method, format!("{}{path}", self.base))
    }

    async fn get<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let response = self.call(Method::GET, path).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        response.json().await.unwrap()
    }

    async fn create_asset(&self, external_id: &str) -> Asset {
        let response = self
            .call(Method::POST, &assets())
            .json(&asset_input(external_id))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        response.json().await.unwrap()
    }

    async fn create_geofence(&self, external_id: &str) -> Geofence {
        let path = format!("/v1/accounts/{ROOT_ACCOUNT}/geofences");
        let response = self
            .call(Method::POST, &path)
            .json(&geofence_input(external_id))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        response.json().await.unwrap()
    }

    async fn create_rule(&self, asset: &Asset, body: &Value) -> Response {
        let path = format!("/v1/accounts/{ROOT_ACCOUNT}/assets/{}/alertRules", asset.id);
        self.call(Method::POST, &path)
            .json(body)
            .send()
            .await
            .unwrap()
    }
}

fn assets() -> String {
    format!("/v1/accounts/{ROOT_ACCOUNT}/assets")
}

fn asset_input(external_id: &str) -> Value {
    json!({
        "externalId": external_id,
        "name": format!("Truck {external_id}"),
        "tier": 2,
        "disabledEvents": {"SpeedLimitExceeded": "2030-01-01T00:00:00Z"},
        "telemetryRules": {"speedLimit": "90", "fuelLevelLowThreshold": 12.5, "temperatureHighThreshold": null}
    })
}

fn geofence_input(external_id: &str) -> Value {
    json!({
        "externalId": external_id,
        "name": format!("Depot {external_id}"),
        "polygon": {"type": "Polygon", "coordinates": [[[13.37, 52.51], [13.39, 52.51], [13.39, 52.52], [13.37, 52.51]]]}
    })
}

fn rule_input(event_type: i32, inside: &[Uuid]) -> Value {
    json!({
        "eventType": event_type,
        "recipient": {"culture": "en-US", "timeZone": "Europe/Berlin", "phoneNumber": "+4915112345678"},
        "channel": {"type": "sms", "sms": {"isInteractive": true}},
        "daysOfWeek": ["Monday", "Friday"],
        "timeOfDay": {"from": "22:00", "to": "06:00"},
        "insideGeofences": inside
    })
}

/// Asserts an error answer: the status, a body of exactly `{code, message}`, the code. Returns the message.
async fn error(response: Response, status: StatusCode, code: i64) -> String {
    assert_eq!(response.status(), status, "{:?}", response.headers());
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(content_type.as_deref(), Some("application/json"));
    let body: Value = response.json().await.unwrap();
    let object = body
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {body}"));
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "message"], "{body}");
    assert_eq!(body["code"], code, "{body}");
    body["message"].as_str().unwrap().to_owned()
}

/// A 400 (code 1000) whose message names `name`.
async fn invalid(response: Response, name: &str) -> String {
    let message = error(response, StatusCode::BAD_REQUEST, codes::VALIDATION).await;
    assert!(
        message.contains(name),
        "message does not name `{name}`: {message}"
    );
    message
}

/// A 401 with the error body and a Bearer challenge.
async fn unauthenticated(response: Response) -> String {
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned());
    assert!(
        challenge
            .as_deref()
            .is_some_and(|c| c.starts_with("Bearer")),
        "challenge: {challenge:?}"
    );
    error(response, StatusCode::UNAUTHORIZED, codes::UNAUTHENTICATED).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue_token_with_form_or_basic_credentials() {
    let server = Server::start().await;
    let form = [
        ("grant_type", "client_credentials"),
        ("client_id", CLIENT_ID),
        ("client_secret", CLIENT_SECRET),
    ];
    let response = server
        .anonymous(Method::POST, "/v1/auth/token")
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let token: TokenResponse = response.json().await.unwrap();
    assert_eq!(token.access_token, TOKEN);
    assert_eq!(token.expires_in, 3600);

    let response = server
        .anonymous(Method::POST, "/v1/auth/token")
        .basic_auth(CLIENT_ID, Some(CLIENT_SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);

    let response = server
        .anonymous(Method::POST, "/v1/auth/token")
        .basic_auth(CLIENT_ID, Some("wrong"))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(
        response.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic")
    );
    let body: OAuthError = response.json().await.unwrap();
    assert_eq!(body.error, OAuthErrorError::InvalidClient);

    let response = server
        .anonymous(Method::POST, "/v1/auth/token")
        .form(&[("grant_type", "password")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: OAuthError = response.json().await.unwrap();
    assert_eq!(body.error, OAuthErrorError::UnsupportedGrantType);
    assert_eq!(server.api.token_requests.load(Ordering::Relaxed), 4);
}

/// Asserts an RFC 6749 error answer (section 5.2): the status, a body of `error` and
/// `error_description` only, the error code. Returns the description.
async fn oauth_error(response: Response, status: StatusCode, error: OAuthErrorError) -> String {
    assert_eq!(response.status(), status, "{:?}", response.headers());
    let body: Value = response.json().await.unwrap();
    let object = body
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {body}"));
    assert!(
        object
            .keys()
            .all(|k| k == "error" || k == "error_description"),
        "{body}"
    );
    let parsed: OAuthError = serde_json::from_value(body.clone()).unwrap();
    assert_eq!(parsed.error, error, "{body}");
    parsed.error_description.unwrap_or_default()
}

/// The token endpoint documents its 400 and 401 as RFC 6749 errors, so what the router refuses
/// there is answered through `issue_token_rejection`, not in the API's `{code, message}` shape.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_endpoint_rejections_answer_in_the_oauth_shape() {
    let server = Server::start().await;
    let token = || server.anonymous(Method::POST, "/v1/auth/token");

    // No body at all.
    let description = oauth_error(
        token().send().await.unwrap(),
        StatusCode::BAD_REQUEST,
        OAuthErrorError::InvalidRequest,
    )
    .await;
    assert!(description.contains("required"), "{description}");

    // JSON instead of form data (415 is not documented: the operation answers 400).
    let response = token()
        .json(&json!({"grant_type": "client_credentials"}))
        .send()
        .await
        .unwrap();
    let description = oauth_error(
        response,
        StatusCode::BAD_REQUEST,
        OAuthErrorError::InvalidRequest,
    )
    .await;
    assert!(
        description.contains("application/x-www-form-urlencoded"),
        "{description}"
    );

    // Malformed form data: a repeated parameter.
    let response = token()
        .header("content-type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials&grant_type=password")
        .send()
        .await
        .unwrap();
    let description = oauth_error(
        response,
        StatusCode::BAD_REQUEST,
        OAuthErrorError::InvalidRequest,
    )
    .await;
    assert!(description.contains("grant_type"), "{description}");

    // Malformed Basic credentials: 401 `invalid_client`. MemoryApi sets no challenge; the router
    // adds the rejection's.
    let response = token()
        .header("authorization", "Basic not-base64!")
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert!(
        response.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic")
    );
    oauth_error(
        response,
        StatusCode::UNAUTHORIZED,
        OAuthErrorError::InvalidClient,
    )
    .await;
    assert_eq!(
        server.api.token_requests.load(Ordering::Relaxed),
        0,
        "refused before the operation"
    );
}

/// A status the token endpoint does not document (413) falls back to the API's error body, with
/// `Other`. In process: a client may not finish sending a body the server refuses early.
#[tokio::test]
async fn token_endpoint_undocumented_rejection_falls_back_to_the_api_error_body() {
    use asset_alerting_server::axum::body::{Body, to_bytes};
    use tower::ServiceExt;
    let request = asset_alerting_server::axum::http::Request::post("/v1/auth/token")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(vec![b'a'; 3 << 20]))
        .unwrap();
    let response = router(Arc::new(MemoryApi::default()))
        .oneshot(request)
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(body["code"], codes::VALIDATION, "{body}");
    assert!(body["message"].is_string(), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts() {
    let server = Server::start().await;
    let root: Account = server.get(&format!("/v1/accounts/{ROOT_ACCOUNT}")).await;
    assert_eq!(root.id, ROOT_ACCOUNT);
    assert_eq!(root.parent_id, None);

    let response = server
        .call(Method::POST, &format!("/v1/accounts/{ROOT_ACCOUNT}"))
        .json(&json!({"name": "Fleet", "culture": "de-DE"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: CreateAccountResponse = response.json().await.unwrap();
    let child: Account = server.get(&format!("/v1/accounts/{}", created.id)).await;
    assert_eq!(
        (
            child.parent_id,
            child.name.as_str(),
            child.culture.as_deref()
        ),
        (Some(ROOT_ACCOUNT), "Fleet", Some("de-DE"))
    );

    let response = server
        .call(Method::GET, &format!("/v1/accounts/{}", Uuid::from_u128(7)))
        .send()
        .await
        .unwrap();
    error(response, StatusCode::NOT_FOUND, codes::NOT_FOUND).await;

    // A constraint of the body schema (culture pattern), listed by validation.
    let response = server
        .call(Method::POST, &format!("/v1/accounts/{ROOT_ACCOUNT}"))
        .json(&json!({"name": "", "culture": "not a tag"}))
        .send()
        .await
        .unwrap();
    let message = invalid(response, "name").await;
    assert!(message.contains("culture"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assets_crud_and_soft_delete() {
    let server = Server::start().await;
    let asset = server.create_asset("TRUCK-1").await;
    assert_eq!(asset.tier, AssetTier::Premium);
    assert_eq!(
        asset.telemetry_rules.as_ref().and_then(|t| t.speed_limit),
        Some(90)
    );
    let path = format!("{}/{}", assets(), asset.id);
    assert_eq!(server.get::<Asset>(&path).await, asset);

    let response = server
        .call(Method::POST, &assets())
        .json(&asset_input("TRUCK-1"))
        .send()
        .await
        .unwrap();
    error(response, StatusCode::CONFLICT, codes::CONFLICT).await;

    let mut update = asset_input("TRUCK-1b");
    update["tier"] = json!(1);
    let response = server
        .call(Method::PUT, &path)
        .json(&update)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let updated: Asset = response.json().await.unwrap();
    assert_eq!(
        (updated.external_id.as_str(), updated.tier),
        ("TRUCK-1b", AssetTier::Basic)
    );

    let response = server.call(Method::DELETE, &path).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert!(response.bytes().await.unwrap().is_empty());
    assert_eq!(server.get::<Asset>(&path).await.is_deleted, Some(true));
    assert!(server.get::<Vec<Asset>>(&assets()).await.is_empty());
    assert_eq!(
        server
            .get::<Vec<Asset>>(&format!("{}?includeDeleted=true", assets()))
            .await
            .len(),
        1
    );

    let response = server
        .call(
            Method::GET,
            &format!("{}/{}", assets(), Uuid::from_u128(99)),
        )
        .send()
        .await
        .unwrap();
    error(response, StatusCode::NOT_FOUND, codes::NOT_FOUND).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_assets_pagination_defaults_and_filters() {
    let server = Server::start().await;
    for i in 0..55 {
        server.create_asset(&format!("A{i:02}")).await;
    }
    let page: Vec<Asset> = server.get(&assets()).await;
    assert_eq!(page.len(), 50, "take defaults to 50");
    assert_eq!(*server.api.last_page.lock().unwrap(), Some((0, 50, false)));
    assert_eq!(page[0].external_id, "A00");

    // Numbers are also accepted as strings matching the pattern: in a query both look the same.
    let page: Vec<Asset> = server
        .get(&format!(
            "{}?skip=50&take=10&includeDeleted=false",
            assets()
        ))
        .await;
    assert_eq!(
        page.iter()
            .map(|a| a.external_id.as_str())
            .collect::<Vec<_>>(),
        ["A50", "A51", "A52", "A53", "A54"]
    );
    assert_eq!(*server.api.last_page.lock().unwrap(), Some((50, 10, false)));

    let page: Vec<Asset> = server.get(&format!("{}?externalId=A07", assets())).await;
    assert_eq!(page.len(), 1);
    let page: Vec<Asset> = server.get(&format!("{}?take=500", assets())).await;
    assert_eq!(page.len(), 55);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_assets_rejects_bad_paging() {
    let server = Server::start().await;
    for query in [
        "take=abc",
        "take=1.5",
        "take=",
        "take=%20",
        "take=0x10",
        "take=01",
    ] {
        invalid(
            server
                .call(Method::GET, &format!("{}?{query}", assets()))
                .send()
                .await
                .unwrap(),
            "take",
        )
        .await;
    }
    let message = invalid(
        server
            .call(Method::GET, &format!("{}?take=-1", assets()))
            .send()
            .await
            .unwrap(),
        "take",
    )
    .await;
    assert!(message.contains("at least 1"), "{message}");
    let message = invalid(
        server
            .call(Method::GET, &format!("{}?take=501", assets()))
            .send()
            .await
            .unwrap(),
        "take",
    )
    .await;
    assert!(message.contains("at most 500"), "{message}");
    let message = invalid(
        server
            .call(Method::GET, &format!("{}?take=3000000000", assets()))
            .send()
            .await
            .unwrap(),
        "take",
    )
    .await;
    assert!(message.contains("out of range"), "{message}");
    invalid(
        server
            .call(Method::GET, &format!("{}?skip=-1", assets()))
            .send()
            .await
            .unwrap(),
        "skip",
    )
    .await;
    invalid(
        server
            .call(Method::GET, &format!("{}?skip=1&skip=2", assets()))
            .send()
            .await
            .unwrap(),
        "skip",
    )
    .await;
    invalid(
        server
            .call(Method::GET, &format!("{}?includeDeleted=yes", assets()))
            .send()
            .await
            .unwrap(),
        "includeDeleted",
    )
    .await;
    assert_eq!(
        server.api.calls.load(Ordering::Relaxed),
        0,
        "no operation ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_parameters_are_parsed() {
    let server = Server::start().await;
    let message = invalid(
        server
            .call(Method::GET, "/v1/accounts/not-a-uuid")
            .send()
            .await
            .unwrap(),
        "accountId",
    )
    .await;
    assert!(message.contains("uuid"), "{message}");
    invalid(
        server
            .call(Method::GET, &format!("{}/123", assets()))
            .send()
            .await
            .unwrap(),
        "assetId",
    )
    .await;
    let asset = server.create_asset("T").await;
    let rules = format!("{}/{}/alertRules", assets(), asset.id);
    let message = invalid(
        server
            .call(Method::GET, &format!("{rules}/99"))
            .send()
            .await
            .unwrap(),
        "eventType",
    )
    .await;
    assert!(message.contains("not a valid EventType"), "{message}");
    invalid(
        server
            .call(Method::GET, &format!("{rules}/abc"))
            .send()
            .await
            .unwrap(),
        "eventType",
    )
    .await;
    invalid(
        server
            .call(Method::GET, &format!("{rules}/1.0/geofences"))
            .send()
            .await
            .unwrap(),
        "eventType",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_bodies_are_decoded_and_validated() {
    let server = Server::start().await;
    let post = |body: &'static str, content_type: Option<&'static str>| {
        let request = server.call(Method::POST, &assets()).body(body);
        match content_type {
            Some(ct) => request.header("content-type", ct),
            None => request,
        }
    };
    let json = Some("application/json");
    let message = error(
        post("{\"externalId\": ", json).send().await.unwrap(),
        StatusCode::BAD_REQUEST,
        codes::MALFORMED_JSON,
    )
    .await;
    assert!(message.contains("JSON"), "{message}");
    error(
        post("[1, 2", json).send().await.unwrap(),
        StatusCode::BAD_REQUEST,
        codes::MALFORMED_JSON,
    )
    .await;
    error(
        post(
            r#"{"externalId": "x", "name": "n", "tier": 1} trailing"#,
            json,
        )
        .send()
        .await
        .unwrap(),
        StatusCode::BAD_REQUEST,
        codes::MALFORMED_JSON,
    )
    .await;
    invalid(
        post(r#"{"name": "n", "tier": 1}"#, json)
            .send()
            .await
            .unwrap(),
        "externalId",
    )
    .await;
    invalid(
        post(r#"{"externalId": "x", "name": "n", "tier": 3}"#, json)
            .send()
            .await
            .unwrap(),
        "tier",
    )
    .await;
    let message = invalid(
        post(r#"{"externalId": "x", "name": "n", "tier": 1, "telemetryRules": {"speedLimit": "-1"}}"#, json).send().await.unwrap(),
        "telemetryRules.speedLimit",
    )
    .await;
    assert!(message.contains("-1"), "{message}");
    invalid(
        post(r#"{"externalId": "x", "name": "n", "tier": 1, "telemetryRules": {"speedLimit": "fast"}}"#, json).send().await.unwrap(),
        "telemetryRules.speedLimit",
    )
    .await;
    invalid(
        post(
            r#"{"externalId": "x", "name": "n", "tier": 1, "color": "red"}"#,
            json,
        )
        .send()
        .await
        .unwrap(),
        "color",
    )
    .await;
    let message = invalid(
        post(r#"{"externalId": "", "name": "n", "tier": 1}"#, json)
            .send()
            .await
            .unwrap(),
        "externalId",
    )
    .await;
    assert!(message.contains("at least 1"), "{message}");
    // A vendor JSON type is JSON too.
    let response = post(
        r#"{"externalId": "x", "name": "n", "tier": 1}"#,
        Some("application/vnd.fleet+json; charset=utf-8"),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);

    let message = error(
        post("externalId=x", Some("text/plain"))
            .send()
            .await
            .unwrap(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        codes::UNSUPPORTED_MEDIA_TYPE,
    )
    .await;
    assert!(message.contains("application/json"), "{message}");
    error(
        post(r#"{"externalId": "y"}"#, None).send().await.unwrap(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        codes::UNSUPPORTED_MEDIA_TYPE,
    )
    .await;
    invalid(post("", None).send().await.unwrap(), "body").await;
    invalid(post("", json).send().await.unwrap(), "body").await;
    assert_eq!(
        server.api.calls.load(Ordering::Relaxed),
        1,
        "only the valid request reached the operation"
    );
}

/// serde's derived `Deserialize` takes a JSON array as a struct's fields in order; the schema says
/// object, so the body decoder refuses arrays wherever a struct is expected, naming the field path
/// (found by schemathesis: `"telemetryRules": [null, null]` was accepted).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_arrays_are_refused_where_objects_are_expected() {
    let server = Server::start().await;
    let post = |path: &str, body: &'static str| {
        server
            .call(Method::POST, path)
            .header("content-type", "application/json")
            .body(body)
    };
    let message = invalid(
        post(
            &assets(),
            r#"{"externalId": "x", "name": "n", "tier": 1, "telemetryRules": [null, null]}"#,
        )
        .send()
        .await
        .unwrap(),
        "telemetryRules",
    )
    .await;
    assert!(
        message.contains("invalid type: sequence, expected struct TelemetryRules"),
        "{message}"
    );
    invalid(
        post(
            &assets(),
            r#"{"externalId": "x", "name": "n", "tier": 1, "telemetryRules": []}"#,
        )
        .send()
        .await
        .unwrap(),
        "expected struct TelemetryRules",
    )
    .await;
    // The body itself.
    invalid(
        post(&assets(), r#"["x", "n", 1]"#).send().await.unwrap(),
        "invalid type: sequence, expected struct AssetInput",
    )
    .await;
    let response = server
        .call(Method::PUT, &format!("{}/{}", assets(), Uuid::from_u128(1)))
        .header("content-type", "application/json")
        .body(r#"{"externalId": "x", "name": "n", "tier": 1, "telemetryRules": [null]}"#)
        .send()
        .await
        .unwrap();
    invalid(response, "telemetryRules").await;

    // Deeper: a struct in a struct in the body.
    let asset = server.create_asset("ARRAYS").await;
    let rules = format!("/v1/accounts/{ROOT_ACCOUNT}/assets/{}/alertRules", asset.id);
    let mut rule = rule_input(3, &[]);
    rule["channel"]["sms"] = json!([true]);
    let message = invalid(server.create_rule(&asset, &rule).await, "channel.sms").await;
    assert!(message.contains("expected struct SmsChannel"), "{message}");
    let mut rule = rule_input(3, &[]);
    rule["timeOfDay"] = json!(["22:00", "06:00"]);
    invalid(server.create_rule(&asset, &rule).await, "timeOfDay").await;
    let mut rule = rule_input(3, &[]);
    rule["recipient"] = json!(["en-US", "Europe/Berlin"]);
    invalid(server.create_rule(&asset, &rule).await, "recipient").await;
    // Arrays stay arrays.
    let response = post(&rules, "[]").send().await.unwrap();
    invalid(response, "expected struct AlertRuleInput").await;
    let response = server.create_rule(&asset, &rule_input(3, &[])).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(
        server.api.calls.load(Ordering::Relaxed),
        2,
        "only the valid requests reached the operations"
    );
}

/// The objects-only rule through `decode_json` with serde shapes the spec above lacks: arrays and
/// maps of structs, options, externally tagged enums; untagged and internally tagged enums and
/// `flatten` (which serde buffers first) still decode objects as before.
#[test]
fn json_decoding_refuses_arrays_as_structs_inside_any_shape() {
    use asset_alerting_server::body::decode_json;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Point {
        x: i32,
        y: i32,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    enum External {
        Unit,
        Newtype(Point),
        Tuple(i32, i32),
        Struct { x: i32 },
    }
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Untagged {
        Point(Point),
        Label(String),
    }
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "kind")]
    enum Internal {
        Point { x: i32, y: i32 },
        Nothing,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct Flattened {
        name: String,
        at: Option<Point>,
        #[serde(flatten)]
        rest: BTreeMap<String, Value>,
    }
    #[derive(Debug, PartialEq, Deserialize)]
    struct Shapes {
        points: Vec<Point>,
        named: BTreeMap<String, Point>,
        maybe: Option<Point>,
        pair: (i32, Point),
        external: Vec<External>,
    }

    let refused = |json: &str, path: &str, expected: &str| {
        let rejection = decode_json::<Shapes>(json.as_bytes()).unwrap_err();
        let message = rejection.message;
        assert!(
            message.contains(&format!(
                "{path}: invalid type: sequence, expected {expected}"
            )),
            "{json}: {message}"
        );
    };
    let ok = r#"{"points": [{"x": 1, "y": 2}], "named": {"a": {"x": 3, "y": 4}}, "maybe": null,
        "pair": [5, {"x": 6, "y": 7}],
        "external": ["Unit", {"Newtype": {"x": 1, "y": 1}}, {"Tuple": [1, 2]}, {"Struct": {"x": 8}}]}"#;
    let shapes = decode_json::<Shapes>(ok.as_bytes()).unwrap();
    assert_eq!(shapes.points, [Point { x: 1, y: 2 }]);
    assert_eq!(shapes.pair, (5, Point { x: 6, y: 7 }));
    assert_eq!(
        shapes.external,
        [
            External::Unit,
            External::Newtype(Point { x: 1, y: 1 }),
            External::Tuple(1, 2),
            External::Struct { x: 8 }
        ]
    );
    let base = |field: &str, value: &str| {
        let mut shapes: serde_json::Map<String, Value> = serde_json::from_str(ok).unwrap();
        shapes.insert(field.to_owned(), serde_json::from_str(value).unwrap());
        Value::Object(shapes).to_string()
    };
    refused(&base("points", "[[1, 2]]"), "points[0]", "struct Point");
    refused(
        &base("named", r#"{"a": [1, 2]}"#),
        "named.a",
        "struct Point",
    );
    refused(&base("maybe", "[1, 2]"), "maybe", "struct Point");
    refused(&base("pair", "[5, [6, 7]]"), "pair[1]", "struct Point");
    refused(
        &base("external", r#"[{"Newtype": [1, 2]}]"#),
        "external[0].Newtype",
        "struct Point",
    );
    refused(
        &base("external", r#"[{"Struct": [8]}]"#),
        "external[0].Struct",
        "struct variant External::Struct",
    );

    assert_eq!(
        decode_json::<Vec<Untagged>>(br#"[{"x": 1, "y": 2}, "label"]"#).unwrap(),
        [
            Untagged::Point(Point { x: 1, y: 2 }),
            Untagged::Label("label".to_owned())
        ]
    );
    assert_eq!(
        decode_json::<Vec<Internal>>(
            br#"[{"kind": "Point", "x": 1, "y": 2}, {"kind": "Nothing"}]"#
        )
        .unwrap(),
        [Internal::Point { x: 1, y: 2 }, Internal::Nothing]
    );
    let flattened =
        decode_json::<Flattened>(br#"{"name": "n", "at": {"x": 1, "y": 2}, "extra": [1]}"#)
            .unwrap();
    assert_eq!(flattened.at, Some(Point { x: 1, y: 2 }));
    assert_eq!(flattened.rest["extra"], json!([1]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alert_rules_and_their_geofences() {
    let server = Server::start().await;
    let asset = server.create_asset("T").await;
    let depot = server.create_geofence("DEPOT").await;
    let response = server
        .create_rule(&asset, &rule_input(12, &[depot.id]))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let rule: AlertRule = response.json().await.unwrap();
    assert_eq!(
        (rule.event_type, rule.order, rule.is_disabled),
        (EventType::SpeedLimitExceeded, 0, false),
        "defaults applied"
    );

    let response = server
        .create_rule(&asset, &rule_input(12, &[Uuid::from_u128(5)]))
        .await;
    error(response, StatusCode::BAD_REQUEST, codes::VALIDATION).await;
    invalid(
        server.create_rule(&asset, &rule_input(99, &[])).await,
        "eventType",
    )
    .await;
    let mut bad_time = rule_input(12, &[]);
    bad_time["timeOfDay"]["from"] = json!("25:00");
    invalid(
        server.create_rule(&asset, &bad_time).await,
        "timeOfDay.from",
    )
    .await;
    let mut duplicate_days = rule_input(12, &[]);
    duplicate_days["daysOfWeek"] = json!(["Monday", "Monday"]);
    invalid(
        server.create_rule(&asset, &duplicate_days).await,
        "daysOfWeek",
    )
    .await;

    let by_type = format!("{}/{}/alertRules", assets(), asset.id);
    let rules: Vec<AlertRule> = server.get(&format!("{by_type}/12")).await;
    assert_eq!(rules, std::slice::from_ref(&rule));
    assert!(
        server
            .get::<Vec<AlertRule>>(&format!("{by_type}/1"))
            .await
            .is_empty()
    );
    let geofences: Vec<Geofence> = server.get(&format!("{by_type}/12/geofences")).await;
    assert_eq!(geofences, std::slice::from_ref(&depot));

    let path = format!("/v1/accounts/{ROOT_ACCOUNT}/alertRules/{}", rule.id);
    assert_eq!(server.get::<AlertRule>(&path).await, rule);
    let mut update = rule_input(4, &[]);
    update["order"] = json!(3);
    let response = server
        .call(Method::PUT, &path)
        .json(&update)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let updated: AlertRule = response.json().await.unwrap();
    assert_eq!(
        (updated.event_type, updated.order, updated.asset_id),
        (EventType::BatteryLow, 3, asset.id)
    );
    let response = server.call(Method::DELETE, &path).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    error(
        server.call(Method::GET, &path).send().await.unwrap(),
        StatusCode::NOT_FOUND,
        codes::NOT_FOUND,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geofences_crud_and_conflicts() {
    let server = Server::start().await;
    let a = server.create_geofence("A").await;
    let b = server.create_geofence("B").await;
    let list: Vec<Geofence> = server
        .get(&format!("/v1/accounts/{ROOT_ACCOUNT}/geofences"))
        .await;
    assert_eq!(list, [a.clone(), b.clone()]);
    let path = format!("/v1/accounts/{ROOT_ACCOUNT}/geofences/{}", a.id);
    assert_eq!(server.get::<Geofence>(&path).await, a);

    let response = server
        .call(Method::PUT, &path)
        .json(&geofence_input("B"))
        .send()
        .await
        .unwrap();
    error(response, StatusCode::CONFLICT, codes::CONFLICT).await;
    let response = server
        .call(Method::PUT, &path)
        .json(&geofence_input("A2"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.json::<Geofence>().await.unwrap().external_id, "A2");

    let mut unknown = geofence_input("C");
    unknown["radius"] = json!(5);
    invalid(
        server
            .call(
                Method::POST,
                &format!("/v1/accounts/{ROOT_ACCOUNT}/geofences"),
            )
            .json(&unknown)
            .send()
            .await
            .unwrap(),
        "radius",
    )
    .await;

    let asset = server.create_asset("T").await;
    assert_eq!(
        server
            .create_rule(&asset, &rule_input(10, &[a.id]))
            .await
            .status(),
        StatusCode::CREATED
    );
    error(
        server.call(Method::DELETE, &path).send().await.unwrap(),
        StatusCode::CONFLICT,
        codes::CONFLICT,
    )
    .await;
    let other = format!("/v1/accounts/{ROOT_ACCOUNT}/geofences/{}", b.id);
    assert_eq!(
        server
            .call(Method::DELETE, &other)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::NO_CONTENT
    );
    error(
        server.call(Method::GET, &other).send().await.unwrap(),
        StatusCode::NOT_FOUND,
        codes::NOT_FOUND,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ingestion_token_and_portal_link() {
    let server = Server::start().await;
    let token: IngestionToken = server
        .get(&format!("/v1/accounts/{ROOT_ACCOUNT}/ingestionToken"))
        .await;
    assert!(token.token.starts_with("ingest-"));
    assert!(token.expires_at > chrono::Utc::now());
    let link: PortalLink = server
        .get(&format!("/v1/accounts/{ROOT_ACCOUNT}/portalLink"))
        .await;
    assert!(link.url.contains(&ROOT_ACCOUNT.to_string()));
    let missing = format!("/v1/accounts/{}/portalLink", Uuid::from_u128(3));
    error(
        server.call(Method::GET, &missing).send().await.unwrap(),
        StatusCode::NOT_FOUND,
        codes::NOT_FOUND,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_or_rejected_bearer_tokens_answer_401() {
    let server = Server::start().await;
    let path = format!("/v1/accounts/{ROOT_ACCOUNT}");
    let message = unauthenticated(server.anonymous(Method::GET, &path).send().await.unwrap()).await;
    assert!(message.contains("bearer token is required"), "{message}");
    unauthenticated(
        server
            .anonymous(Method::GET, &path)
            .basic_auth("a", Some("b"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    unauthenticated(
        server
            .anonymous(Method::GET, &path)
            .header("authorization", "Token abc")
            .send()
            .await
            .unwrap(),
    )
    .await;
    unauthenticated(
        server
            .anonymous(Method::GET, &path)
            .header("authorization", "Bearer")
            .send()
            .await
            .unwrap(),
    )
    .await;
    let response = server
        .anonymous(Method::GET, &path)
        .bearer_auth("stolen")
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()["www-authenticate"],
        r#"Bearer error="invalid_token""#
    );
    unauthenticated(response).await;
    // Credentials are checked before anything else: a bad parameter or body is not even looked at.
    unauthenticated(
        server
            .anonymous(Method::GET, "/v1/accounts/not-a-uuid")
            .send()
            .await
            .unwrap(),
    )
    .await;
    unauthenticated(
        server
            .anonymous(Method::POST, &assets())
            .body("{")
            .send()
            .await
            .unwrap(),
    )
    .await;
    // The lower-case scheme is accepted (RFC 9110: schemes are case-insensitive).
    let response = server
        .anonymous(Method::GET, &path)
        .header("authorization", format!("bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(server.api.calls.load(Ordering::Relaxed), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_routes_and_methods_answer_in_the_error_shape() {
    let server = Server::start().await;
    let message = error(
        server
            .call(Method::GET, "/v2/nothing")
            .send()
            .await
            .unwrap(),
        StatusCode::NOT_FOUND,
        codes::NOT_FOUND,
    )
    .await;
    assert!(message.contains("/v2/nothing"), "{message}");
    let response = server.call(Method::PATCH, &assets()).send().await.unwrap();
    let allow = response
        .headers()
        .get("allow")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    assert!(
        allow.contains("GET") && allow.contains("POST"),
        "allow: {allow}"
    );
    error(response, StatusCode::METHOD_NOT_ALLOWED, codes::NOT_FOUND).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forced_failures_reach_the_client_once() {
    let server = Server::start().await;
    let path = format!("/v1/accounts/{ROOT_ACCOUNT}");
    server.api.fail_next(503);
    error(
        server.call(Method::GET, &path).send().await.unwrap(),
        StatusCode::SERVICE_UNAVAILABLE,
        codes::INTERNAL,
    )
    .await;
    server.api.fail_next(401);
    unauthenticated(server.call(Method::GET, &path).send().await.unwrap()).await;
    assert_eq!(
        server
            .call(Method::GET, &path)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
}

/// The generated server for a small fixture: trait, requests, responses and router in one snapshot
/// (the templates under templates/server are copied verbatim and not repeated here).
#[test]
fn server_basics() {
    let path = integration_tests::repo_root().join("tests/fixtures/server-basics.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let opts = openapi_gen::emit::Options::new(
        "server-basics",
        "tests/fixtures/server-basics.yaml",
        "cargo test",
    );
    let generated = openapi_gen::generate(&text, &opts, &[Part::Server]).unwrap();
    let (_, files) = &generated.crates[0];
    let mut snapshot = String::new();
    for name in [
        "Cargo.toml",
        "src/lib.rs",
        "src/api.rs",
        "src/requests.rs",
        "src/responses.rs",
        "src/router.rs",
    ] {
        let file = files.iter().find(|f| f.path == name).unwrap();
        snapshot.push_str(&format!("==> {name}\n{}\n", file.contents));
    }
    insta::assert_snapshot!(snapshot);
}

/// axum panics at startup on a route it cannot register (conflicting parameter names at one
/// position, a duplicate method, a segment starting with `:`). Every route the emitter writes for
/// the corpus documents is registered here with axum itself.
#[test]
fn corpus_routes_are_accepted_by_axum() {
    use asset_alerting_server::axum::routing::{MethodFilter, MethodRouter, on};
    let Some(paths) = integration_tests::corpus_documents() else {
        eprintln!("SKIPPED: ../shared/corpus is absent");
        return;
    };
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let opts = integration_tests::generator_options("corpus", &name);
        let Ok(generated) = openapi_gen::generate(&text, &opts, &[Part::Server]) else {
            continue;
        };
        let Some((_, files)) = generated.crates.first() else {
            continue;
        };
        let router = &files
            .iter()
            .find(|f| f.path == "src/router.rs")
            .unwrap()
            .contents;
        let routes = routes_of(router);
        assert!(!routes.is_empty(), "{name}: no routes found");
        let count = routes.len();
        // Every handler is routed, or called by the dispatcher of operations that mixed path
        // segments tell apart (`dispatch_x` routed, calling `handle_x(State(api), ...)`).
        let router: String = router.chars().filter(|c| !c.is_whitespace()).collect();
        for handler in router.split("asyncfnhandle_").skip(1) {
            let handler = &handler[..handler.find('<').unwrap()];
            assert!(
                router.contains(&format!("handle_{handler}::<A"))
                    || router.contains(&format!("handle_{handler}(State(api)")),
                "{name}: handle_{handler} is not routed"
            );
        }
        for dispatcher in router.split("asyncfndispatch_").skip(1) {
            let dispatcher = &dispatcher[..dispatcher.find('<').unwrap()];
            assert!(
                router.contains(&format!("dispatch_{dispatcher}::<A")),
                "{name}: dispatch_{dispatcher} is not routed"
            );
        }
        let registered = std::panic::catch_unwind(|| {
            let mut app: asset_alerting_server::axum::Router =
                asset_alerting_server::axum::Router::new();
            for (route, methods) in routes {
                let mut method_router: MethodRouter = MethodRouter::new();
                for method in methods {
                    let filter = match method.as_str() {
                        "get" => MethodFilter::GET,
                        "put" => MethodFilter::PUT,
                        "post" => MethodFilter::POST,
                        "delete" => MethodFilter::DELETE,
                        "options" => MethodFilter::OPTIONS,
                        "head" => MethodFilter::HEAD,
                        "patch" => MethodFilter::PATCH,
                        "trace" => MethodFilter::TRACE,
                        other => panic!("unknown method {other}"),
                    };
                    method_router = method_router.merge(on(filter, || async {}));
                }
                app = app.route(&route, method_router);
            }
        });
        assert!(registered.is_ok(), "{name}: axum refused a route");
        eprintln!("{name}: {count} routes registered");
    }
}

/// `(path, [method])` of each `.route("path", get(handle_x::<A>).post(...))` in a generated router
/// (a path routed in several statements, one per operation group, is listed once per statement).
fn routes_of(router: &str) -> Vec<(String, Vec<String>)> {
    let mut routes = Vec::new();
    let mut rest = router;
    while let Some(start) = rest.find(".route(") {
        rest = &rest[start + ".route(".len()..];
        let open = rest.find('"').unwrap();
        let mut path = String::new();
        let mut chars = rest[open + 1..].char_indices();
        let end = loop {
            match chars.next().unwrap() {
                (_, '\\') => path.push(chars.next().unwrap().1),
                (i, '"') => break open + 1 + i,
                (_, c) => path.push(c),
            }
        };
        rest = &rest[end + 1..];
        // A call ends at the next one, or at the end of its statement (with a feature per group,
        // each group's routes are a statement of their own).
        let call_end = [".route(", ".fallback(", ";"]
            .iter()
            .filter_map(|end| rest.find(end))
            .min()
            .unwrap();
        let call: String = rest[..call_end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let methods = call
            .split("(handle_")
            .filter_map(|before| {
                let word: String = before
                    .chars()
                    .rev()
                    .take_while(char::is_ascii_lowercase)
                    .collect();
                (!word.is_empty()).then(|| word.chars().rev().collect())
            })
            .collect();
        routes.push((path, methods));
    }
    routes
}

/// Two bearer schemes: the router checks an operation's token with the scheme the operation
/// names (`authenticate_ingestion_token` at the telemetry endpoint, `authenticate` elsewhere), so
/// a token of one scheme is refused by the other's operations with 401 and a Bearer challenge.
#[tokio::test]
async fn each_operation_takes_the_bearer_scheme_it_names() {
    use integration_tests::memory::INGESTION_TOKEN;
    let server = Server::start().await;
    let asset = server.create_asset("t-1").await;
    let batch = json!({"points": [{"assetId": asset.id, "timestamp": "2026-11-23T10:00:00Z", "speed": 50}]});
    let telemetry = |token: &str| {
        server
            .anonymous(Method::POST, "/v1/telemetry")
            .bearer_auth(token)
            .json(&batch)
    };
    unauthenticated(telemetry(TOKEN).send().await.unwrap()).await;
    let accepted = telemetry(INGESTION_TOKEN).send().await.unwrap();
    assert_eq!(accepted.status(), StatusCode::ACCEPTED);
    let body: Value = accepted.json().await.unwrap();
    assert_eq!(body["accepted"], 1);
    assert_eq!(server.api.telemetry().len(), 1);
    let elsewhere = server
        .anonymous(Method::GET, &assets())
        .bearer_auth(INGESTION_TOKEN)
        .send()
        .await
        .unwrap();
    unauthenticated(elsewhere).await;
    let no_token = server
        .anonymous(Method::POST, "/v1/telemetry")
        .json(&batch)
        .send()
        .await
        .unwrap();
    unauthenticated(no_token).await;
}
