//! The generated client calling the generated server's router in process
//! (`Client::from_service`, feature `tower`) behaves exactly as over HTTP: one scenario of the
//! service's API (tests/support/memory.rs behind generated/server) runs against a server on
//! 127.0.0.1 and against the router called in process, and the two transcripts must be equal:
//! bodies, documented success headers, paging, documented errors and their bodies, the server's
//! validation errors, undocumented statuses, retries after `503`, OAuth 2.0 client credentials
//! (the token endpoint goes through the service too), and an event stream.

use asset_alerting_client::models::{AssetInput, AssetTier, EventType, TokenRequest};
use asset_alerting_client::{Client, ClientBuilder, RetryPolicy};
use futures_util::{StreamExt, TryStreamExt};
use integration_tests::memory::axum::{self, Router};
use integration_tests::memory::{CLIENT_ID, CLIENT_SECRET, MemoryApi, ROOT_ACCOUNT};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

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

fn settings(builder: ClientBuilder) -> Client {
    builder
        .client_credentials(CLIENT_ID, CLIENT_SECRET)
        .retry(RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(5),
        })
        .build()
        .expect("client")
}

/// Headers that only a socket adds (hyper's `date`, framing), left out of the comparison.
fn transcript_headers(headers: &asset_alerting_client::reqwest::header::HeaderMap) -> String {
    let mut kept: Vec<String> = headers
        .iter()
        .filter(|(name, _)| {
            !matches!(
                name.as_str(),
                "date" | "content-length" | "transfer-encoding"
            )
        })
        .map(|(name, value)| format!("{name}: {value:?}"))
        .collect();
    kept.sort();
    kept.join(", ")
}

/// `line` with each time stamp the server took from its clock (`2026-11-28T19:02:45.333052991Z`,
/// with a fraction of a second) as `<now>`, as two runs cannot share them.
fn without_clock(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        // `YYYY-MM-DDThh:mm:ss.` then digits then `Z`.
        let stamp = bytes.len() >= i + 20
            && bytes[i + 10] == b'T'
            && bytes[i + 19] == b'.'
            && bytes[i..i + 4].iter().all(u8::is_ascii_digit);
        if stamp {
            let digits = bytes[i + 20..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if bytes.get(i + 20 + digits) == Some(&b'Z') {
                out.push_str("<now>");
                i += 21 + digits;
                continue;
            }
        }
        let c = line[i..].chars().next().expect("a char");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Runs the scenario against `api` through `client`; each step's outcome is a line.
async fn scenario(api: &MemoryApi, client: &Client) -> Vec<String> {
    let mut lines = Vec::new();
    let mut log =
        |step: &str, outcome: String| lines.push(without_clock(&format!("{step}: {outcome}")));

    let account = client
        .get_account(ROOT_ACCOUNT)
        .send_full()
        .await
        .expect("account");
    log(
        "get_account",
        format!(
            "{} [{}] {:?}",
            account.status,
            transcript_headers(&account.headers),
            account.body
        ),
    );
    for name in ["A", "B", "C"] {
        let asset = client.create_asset(ROOT_ACCOUNT, asset_input(name)).await;
        log("create_asset", format!("{asset:?}"));
    }
    let duplicate = client.create_asset(ROOT_ACCOUNT, asset_input("A")).await;
    log("create_asset again", format!("{duplicate:?}"));
    let missing = client.get_asset(ROOT_ACCOUNT, Uuid::from_u128(42)).await;
    log("get_asset missing", format!("{missing:?}"));
    let invalid = client.list_assets(ROOT_ACCOUNT).take(0).await;
    log("list_assets take 0", format!("{invalid:?}"));
    let paged: Result<Vec<_>, _> = client
        .list_assets(ROOT_ACCOUNT)
        .take(2)
        .into_stream()
        .try_collect()
        .await;
    log("list_assets pages", format!("{paged:?}"));
    let refused = client
        .issue_token(TokenRequest {
            grant_type: Some("password".to_owned()),
            client_id: None,
            client_secret: None,
            scope: None,
        })
        .await;
    log("issue_token refused", format!("{refused:?}"));

    // A 503 before the server acts: a GET is retried, a POST is not.
    api.fail_next(503);
    let retried = client.get_account(ROOT_ACCOUNT).await.map(|a| a.id);
    log("get_account after 503", format!("{retried:?}"));
    api.fail_next(503);
    let not_retried = client.create_asset(ROOT_ACCOUNT, asset_input("D")).await;
    log("create_asset after 503", format!("{not_retried:?}"));
    api.fail_next(418);
    let undocumented = client.get_account(ROOT_ACCOUNT).await;
    log("get_account 418", format!("{undocumented:?}"));

    // An event stream of the events stored, decoded as they arrive.
    let asset = client
        .create_asset(ROOT_ACCOUNT, asset_input("E"))
        .await
        .expect("asset");
    for (n, event_type) in [EventType::BatteryLow, EventType::BatteryLow]
        .iter()
        .enumerate()
    {
        let event = serde_json::json!({
            "id": Uuid::from_u128(0xE000 + n as u128),
            "accountId": ROOT_ACCOUNT,
            "assetId": asset.id,
            "eventType": event_type,
            "occurredAt": format!("2026-01-0{}T00:00:00Z", n + 1),
            "detectedAt": format!("2026-01-0{}T00:00:01Z", n + 1),
            "details": {"value": 3.1},
            "notificationsSuppressed": false,
        });
        api.insert_event(serde_json::from_value(event).expect("an event"));
    }
    let stream = client
        .stream_events(ROOT_ACCOUNT)
        .send_stream()
        .await
        .expect("stream");
    let events: Vec<String> = stream.map(|item| format!("{item:?}")).collect().await;
    log("stream_events", events.join(" | "));
    lines
}

#[tokio::test]
async fn the_router_in_process_answers_as_over_http() {
    let over_http = {
        let api = Arc::new(MemoryApi::default());
        let app: Router = asset_alerting_server::router(api.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        let server = tokio::spawn(async move { axum::serve(listener, app).await });
        let client = settings(Client::builder(format!("http://{address}")));
        let lines = scenario(&api, &client).await;
        server.abort();
        lines
    };
    let in_process = {
        let api = Arc::new(MemoryApi::default());
        let router = asset_alerting_server::router(api.clone());
        let client = settings(Client::builder("http://localhost").service(router));
        scenario(&api, &client).await
    };
    assert!(over_http.len() > 10, "{over_http:#?}");
    assert!(
        over_http
            .iter()
            .any(|l| l.starts_with("stream_events: Ok(")),
        "{over_http:#?}"
    );
    for (http, process) in over_http.iter().zip(&in_process) {
        assert_eq!(http, process);
    }
    assert_eq!(over_http.len(), in_process.len());
}

#[tokio::test]
async fn from_service_needs_no_socket() {
    let api = Arc::new(MemoryApi::default());
    let client = Client::from_service(asset_alerting_server::router(api)).expect("client");
    // Without credentials the API refuses, as it would over HTTP.
    let error = client.get_account(ROOT_ACCOUNT).await.expect_err("401");
    assert_eq!(error.status().map(|s| s.as_u16()), Some(401));
}
