//! Webhooks and callbacks of tests/fixtures/webhooks.yaml (crates checked in under
//! tests/generated/webhooks): the server crate's sender (`webhooks_server::webhooks`) delivers to
//! the client crate's receiver (`webhooks_client::webhooks`, serving `Recorder`) over real HTTP on
//! 127.0.0.1; bodies the receiver refuses are answered with the hooks' error body; the callback
//! URLs are computed from the request that registered them. Snapshots of the emitted hook code
//! (the copied runtime left out) close the file.

use integration_tests::repo_root;
use openapi_gen::Part;
use openapi_gen::emit::Options;
use std::sync::{Arc, Mutex};
use uuid::Uuid;
use webhooks_client::webhooks as receiver;
use webhooks_server::models;
use webhooks_server::webhooks as sender;

/// The test's receiver: records what it is sent and answers as the fixture documents.
#[derive(Default)]
struct Recorder {
    shipped: Mutex<Vec<receiver::OrderShippedRequest>>,
    updates: Mutex<Vec<receiver::OrderUpdatedRequest>>,
    audits: Mutex<Vec<Option<String>>>,
}

impl receiver::ShopWebhooks for Recorder {
    fn rejection(&self, rejection: &receiver::Rejection) -> models::Problem {
        models::Problem {
            message: format!("refused: {}", rejection.message),
        }
    }

    async fn order_shipped(
        &self,
        request: receiver::OrderShippedRequest,
    ) -> receiver::OrderShippedResponse {
        let carrier = request.body.carrier.clone();
        self.shipped.lock().unwrap().push(request);
        if carrier == "unknown" {
            return receiver::OrderShippedResponse::BadRequest(models::Problem {
                message: "unknown carrier".to_owned(),
            });
        }
        receiver::OrderShippedResponse::Ok(models::OrderShipped200Response { received: true })
    }

    async fn order_cancelled(
        &self,
        _request: receiver::OrderCancelledRequest,
    ) -> receiver::OrderCancelledResponse {
        receiver::OrderCancelledResponse::Accepted
    }

    async fn order_updated(
        &self,
        request: receiver::OrderUpdatedRequest,
    ) -> receiver::OrderUpdatedResponse {
        let paid = request.body.status == models::OrderUpdateStatus::Paid;
        self.updates.lock().unwrap().push(request);
        if paid {
            receiver::OrderUpdatedResponse::NoContent
        } else {
            receiver::OrderUpdatedResponse::Gone(models::Problem {
                message: "unsubscribed".to_owned(),
            })
        }
    }

    async fn subscribe_audit(
        &self,
        request: receiver::SubscribeAuditRequest,
    ) -> receiver::SubscribeAuditResponse {
        self.audits.lock().unwrap().push(request.body);
        receiver::SubscribeAuditResponse::Ok
    }
}

/// Serves the receiver under `/hooks` on an ephemeral port of 127.0.0.1; returns the base URL.
async fn serve(recorder: Arc<Recorder>) -> String {
    let app = receiver::axum::Router::new().nest("/hooks", receiver::router(recorder));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        receiver::axum::serve(listener, app)
            .await
            .expect("server runs")
    });
    format!("http://{address}/hooks")
}

fn to(url: &str) -> sender::Client {
    sender::Client::new(url).expect("sender")
}

fn shipment(parcels: i64, carrier: &str) -> models::Shipment {
    models::Shipment {
        order_id: Uuid::from_u128(7).to_string(),
        carrier: carrier.to_owned(),
        parcels,
        tracking_url: Some("https://track.example.com/7".parse().unwrap()),
    }
}

#[tokio::test]
async fn the_sender_delivers_a_webhook_to_the_receiver() {
    let recorder = Arc::new(Recorder::default());
    let base = serve(recorder.clone()).await;
    let answer = to(&format!("{base}/orderShipped"))
        .order_shipped("sig-12345678", shipment(2, "DHL"))
        .await
        .expect("delivered");
    assert_eq!(answer, models::OrderShipped200Response { received: true });
    let shipped = recorder.shipped.lock().unwrap().clone();
    assert_eq!(
        shipped,
        [receiver::OrderShippedRequest {
            shop_signature: "sig-12345678".to_owned(),
            body: shipment(2, "DHL"),
        }]
    );

    // A documented error of the receiver reaches the sender typed.
    let refused = to(&format!("{base}/orderShipped"))
        .order_shipped("sig-12345678", shipment(1, "unknown"))
        .await
        .expect_err("the receiver refuses an unknown carrier");
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(400));
    assert_eq!(refused.api_body().unwrap().message, "unknown carrier");

    // A body without content (202) and the same receiver at another route.
    to(&format!("{base}/orderCancelled"))
        .order_cancelled(models::OrderCancelledRequest {
            order_id: Uuid::from_u128(7).to_string(),
            reason: None,
        })
        .await
        .expect("accepted");
}

#[tokio::test]
async fn a_body_the_receiver_refuses_is_answered_with_the_error_body() {
    let recorder = Arc::new(Recorder::default());
    let base = serve(recorder.clone()).await;

    // Through the typed sender: 50 parcels break `maximum: 20`, a short signature `minLength`.
    let refused = to(&format!("{base}/orderShipped"))
        .order_shipped("sig-12345678", shipment(50, "DHL"))
        .await
        .expect_err("validation fails");
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(400));
    let message = &refused.api_body().unwrap().message;
    assert!(message.starts_with("refused: "), "{message}");
    assert!(message.contains("parcels"), "{message}");
    let refused = to(&format!("{base}/orderShipped"))
        .order_shipped("short", shipment(2, "DHL"))
        .await
        .expect_err("the header is too short");
    assert!(
        refused
            .api_body()
            .unwrap()
            .message
            .contains("Shop-Signature")
    );

    // Raw: malformed JSON, a missing required property, a missing header.
    let http = reqwest::Client::new();
    let url = format!("{base}/orderShipped");
    for (body, signature) in [
        ("{\"orderId\": ", Some("sig-12345678")),
        (
            "{\"orderId\": \"00000000-0000-0000-0000-000000000007\", \"parcels\": 1}",
            Some("sig-12345678"),
        ),
        (
            "{\"orderId\": \"00000000-0000-0000-0000-000000000007\", \"carrier\": \"x\", \"parcels\": 1}",
            None,
        ),
    ] {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .body(body);
        if let Some(signature) = signature {
            request = request.header("shop-signature", signature);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 400, "{body}");
        let problem: models::Problem = response.json().await.unwrap();
        assert!(problem.message.starts_with("refused: "), "{problem:?}");
    }
    // Neither reached the trait.
    assert!(recorder.shipped.lock().unwrap().is_empty());
    // An unknown route is the receiver's 404, in the same body.
    let response = http.post(format!("{base}/nope")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 404);
}

#[tokio::test]
async fn callbacks_go_to_the_url_the_request_registered() {
    let recorder = Arc::new(Recorder::default());
    let base = serve(recorder.clone()).await;
    let subscription = models::Subscription {
        order_id: Uuid::from_u128(9).to_string(),
        callback_url: format!("{base}/orderUpdated"),
    };
    let url = sender::urls::subscribe_order_updated(&subscription).expect("a URL in the body");
    assert_eq!(url, subscription.callback_url);
    assert_eq!(
        sender::urls::subscribe_audit(&subscription).as_deref(),
        Some(
            "https://audit.example.com/shop/00000000-0000-0000-0000-000000000009?kind=subscription"
        )
    );

    let update = |status| models::OrderUpdate {
        order_id: Uuid::from_u128(9).to_string(),
        status,
    };
    to(&url)
        .order_updated(update(models::OrderUpdateStatus::Paid))
        .x_attempt(1)
        .await
        .expect("delivered");
    let gone = to(&url)
        .order_updated(update(models::OrderUpdateStatus::Shipped))
        .await
        .expect_err("410");
    assert!(matches!(
        gone.api_body(),
        Some(sender::errors::OrderUpdated::Gone(p)) if p.message == "unsubscribed"
    ));
    let updates = recorder.updates.lock().unwrap().clone();
    assert_eq!(updates.len(), 2);
    assert_eq!(updates[0].x_attempt, Some(1));
    assert_eq!(updates[1].x_attempt, None);

    // A header that breaks `minimum: 1` is refused before the trait.
    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("x-attempt", "0")
        .body(serde_json::to_string(&update(models::OrderUpdateStatus::Paid)).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);

    // A PUT with a text body.
    to(&format!("{base}/audit"))
        .subscribe_audit()
        .body("subscribed")
        .await
        .expect("recorded");
    assert_eq!(
        *recorder.audits.lock().unwrap(),
        [Some("subscribed".to_owned())]
    );
}

/// The service's own `event` webhook (spec/asset-alerting.yaml): its generated sender delivers a
/// signed event to its generated receiver, and an event without its delivery id is refused.
#[tokio::test]
async fn the_service_event_webhook_is_received_through_the_generated_receiver() {
    use asset_alerting_client::webhooks as hooks_in;
    use asset_alerting_server::webhooks as hooks_out;

    #[derive(Default)]
    struct Inbox(Mutex<Vec<hooks_in::EventWebhookRequest>>);
    impl hooks_in::AssetAlertingApiWebhooks for Inbox {
        async fn event_webhook(
            &self,
            request: hooks_in::EventWebhookRequest,
        ) -> hooks_in::EventWebhookResponse {
            self.0.lock().unwrap().push(request);
            hooks_in::EventWebhookResponse::Ok
        }
    }

    let inbox = Arc::new(Inbox::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = hooks_in::axum::Router::new().nest("/hook", hooks_in::router(inbox.clone()));
    tokio::spawn(async move { hooks_in::axum::serve(listener, app).await.unwrap() });
    let url = format!("http://{address}/hook/event");

    let event: asset_alerting_server::models::WebhookEvent =
        serde_json::from_value(serde_json::json!({
            "id": "00000000-0000-0000-0000-000000000001",
            "type": "event",
            "createdAt": "2026-01-02T03:04:05Z",
            "event": {
                "id": "00000000-0000-0000-0000-000000000002",
                "accountId": "00000000-0000-0000-0000-000000000003",
                "assetId": "00000000-0000-0000-0000-000000000004",
                "eventType": 10,
                "occurredAt": "2026-01-02T03:04:00Z",
                "detectedAt": "2026-01-02T03:04:01Z",
                "details": {"value": 120.0, "threshold": 90.0, "quantity": "speed"},
                "notificationsSuppressed": false
            }
        }))
        .expect("a WebhookEvent");
    hooks_out::Client::new(&url)
        .unwrap()
        .event_webhook(Uuid::from_u128(1), "1", "v1,AA==", event.clone())
        .await
        .expect("delivered");
    let received = inbox.0.lock().unwrap().clone();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].webhook_id, Uuid::from_u128(1));
    assert_eq!(received[0].webhook_timestamp, "1");
    assert_eq!(received[0].webhook_signature, "v1,AA==");
    assert_eq!(
        serde_json::to_value(&received[0].body).unwrap(),
        serde_json::to_value(&event).unwrap()
    );

    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("webhook-timestamp", "1")
        .header("webhook-signature", "v1,AA==")
        .body(serde_json::to_string(&event).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    assert_eq!(inbox.0.lock().unwrap().len(), 1);
}

fn options(source: &str) -> Options {
    Options::new("fixture", source, "cargo xtask fixtures")
}

/// The hook modules of a part (`src/webhooks/`), the copied runtime left out, as one text.
fn hooks_of(part: Part, runtime: &[&str]) -> String {
    let source = "tests/fixtures/webhooks.yaml";
    let text = std::fs::read_to_string(repo_root().join(source)).unwrap();
    let generated =
        openapi_gen::generate(&text, &options(source), &[part]).unwrap_or_else(|d| panic!("{d}"));
    let (_, files) = generated.crates.into_iter().next().unwrap();
    let mut out = String::new();
    for file in files {
        let Some(rest) = file.path.strip_prefix("src/webhooks/") else {
            if file.path == "Cargo.toml" || file.path == "src/lib.rs" {
                out.push_str(&format!("=== {}\n{}\n", file.path, file.contents));
            }
            continue;
        };
        if !runtime.contains(&rest) {
            out.push_str(&format!("=== {}\n{}\n", file.path, file.contents));
        }
    }
    out
}

/// The sender: a client of the hooks at no path (the URL is the caller's), and the callback URLs.
#[test]
fn sender_snapshot() {
    insta::assert_snapshot!(
        "webhooks_sender",
        hooks_of(
            Part::Server,
            &["auth.rs", "client.rs", "codec.rs", "error.rs", "retry.rs"]
        )
    );
}

/// The receiver: the server emitter's trait, request and response types and router, at `/{name}`.
#[test]
fn receiver_snapshot() {
    insta::assert_snapshot!(
        "webhooks_receiver",
        hooks_of(
            Part::Client,
            &[
                "auth.rs",
                "body.rs",
                "objects_only.rs",
                "params.rs",
                "rejection.rs",
                "respond.rs"
            ]
        )
    );
}
