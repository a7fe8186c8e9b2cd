//! Retries that are safe for unsafe methods, and per-request options (tests/fixtures/idempotency.yaml,
//! crates checked in under tests/generated/idempotency), between the generated client and server
//! over real HTTP on 127.0.0.1. A layer in front of the router lets each path's first request
//! reach the server, then answers `503` in place of its response, as a proxy that lost the
//! answer would: a POST with an idempotency key is sent twice with one key and stored once; a
//! POST without one is sent once.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::IntoResponse;
use idempotency_client::{Client, Error, RetryPolicy};
use idempotency_server::models::{NewPayment, Payment};
use idempotency_server::*;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Payments stored once per idempotency key.
#[derive(Default)]
struct Payments {
    stored: Mutex<Vec<Payment>>,
    notes: Mutex<Vec<String>>,
    transfers: Mutex<usize>,
}

impl PaymentsApi for Payments {
    async fn list_payments(&self, _: ListPaymentsRequest) -> ListPaymentsResponse {
        ListPaymentsResponse::Ok(self.stored.lock().unwrap().clone())
    }

    async fn create_payment(&self, request: CreatePaymentRequest) -> CreatePaymentResponse {
        let mut stored = self.stored.lock().unwrap();
        if let Some(key) = &request.idempotency_key
            && let Some(earlier) = stored.iter().find(|p| p.key.as_ref() == Some(key))
        {
            return CreatePaymentResponse::Created(earlier.clone());
        }
        let payment = Payment {
            id: stored.len() as i64 + 1,
            amount: request.body.amount,
            key: request.idempotency_key,
        };
        stored.push(payment.clone());
        CreatePaymentResponse::Created(payment)
    }

    async fn create_transfer(&self, _: CreateTransferRequest) -> CreateTransferResponse {
        *self.transfers.lock().unwrap() += 1;
        CreateTransferResponse::NoContent
    }

    async fn create_note(&self, request: CreateNoteRequest) -> CreateNoteResponse {
        self.notes.lock().unwrap().push(request.body);
        CreateNoteResponse::NoContent
    }

    async fn slow(&self, request: SlowRequest) -> SlowResponse {
        tokio::time::sleep(Duration::from_millis(request.millis as u64)).await;
        SlowResponse::NoContent
    }
}

/// The headers the test looks at: `Idempotency-Key`, `X-Request-Id`, `X-Trace`.
type Seen = (Option<String>, Option<String>, Option<String>);

/// What reached the server: each request's path and the headers the test looks at.
#[derive(Default)]
struct Attempts {
    seen: Mutex<Vec<(String, Seen)>>,
    failed: Mutex<HashSet<String>>,
}

impl Attempts {
    fn on(&self, path: &str) -> Vec<Seen> {
        let seen = self.seen.lock().unwrap();
        let on = seen.iter().filter(|(p, _)| p == path);
        on.map(|(_, headers)| headers.clone()).collect()
    }
}

/// The server on 127.0.0.1 behind a layer that records every request and, when `flaky`, answers
/// `503` in place of the response to each path's first request (after the server acted on it).
async fn serve(payments: Arc<Payments>, attempts: Arc<Attempts>, flaky: bool) -> String {
    let record = move |request: Request, next: Next| {
        let attempts = attempts.clone();
        async move {
            let seen = {
                let header = |name: &str| {
                    let value = request.headers().get(name)?;
                    Some(value.to_str().ok()?.to_owned())
                };
                (
                    request.uri().path().to_owned(),
                    (
                        header("idempotency-key"),
                        header("x-request-id"),
                        header("x-trace"),
                    ),
                )
            };
            let path = seen.0.clone();
            attempts.seen.lock().unwrap().push(seen);
            let response = next.run(request).await;
            if flaky && attempts.failed.lock().unwrap().insert(path) {
                return axum::http::StatusCode::SERVICE_UNAVAILABLE.into_response();
            }
            response
        }
    };
    let app = router(payments).layer(axum::middleware::from_fn(record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.expect("server runs") });
    format!("http://{addr}")
}

fn client(base: &str) -> Client {
    let policy = RetryPolicy {
        max_retries: 2,
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(50),
    };
    Client::builder(base).retry(policy).build().unwrap()
}

fn is_uuid_v4(key: &str) -> bool {
    let parts: Vec<&str> = key.split('-').collect();
    let lengths: Vec<usize> = parts.iter().map(|p| p.len()).collect();
    lengths == [8, 4, 4, 4, 12]
        && key.chars().all(|c| c == '-' || c.is_ascii_hexdigit())
        && parts[2].starts_with('4')
        && parts[3].starts_with(['8', '9', 'a', 'b'])
}

#[tokio::test]
async fn a_post_with_an_idempotency_key_is_retried_with_one_key_and_stored_once() {
    let (payments, attempts) = (Arc::new(Payments::default()), Arc::new(Attempts::default()));
    let base = serve(payments.clone(), attempts.clone(), true).await;
    let client = client(&base);

    let payment = client
        .create_payment(NewPayment { amount: 1200 })
        .await
        .expect("the retry succeeds");
    let tries = attempts.on("/payments");
    assert_eq!(tries.len(), 2, "one failed attempt, one retry: {tries:?}");
    let key = tries[0].0.clone().expect("the client sent a key");
    assert!(is_uuid_v4(&key), "{key}");
    assert_eq!(
        tries[1].0.as_deref(),
        Some(key.as_str()),
        "the retry repeats the key"
    );
    assert_eq!(payment.key.as_deref(), Some(key.as_str()));
    assert_eq!(payments.stored.lock().unwrap().len(), 1, "stored once");

    // The next call is a new logical call: a new key, stored as a second payment.
    let second = client
        .create_payment(NewPayment { amount: 5 })
        .await
        .unwrap();
    let tries = attempts.on("/payments");
    assert_eq!(tries.len(), 3, "no failure this time");
    let other = tries[2].0.clone().unwrap();
    assert!(is_uuid_v4(&other) && other != key, "{other} after {key}");
    assert_eq!(second.id, 2);
    assert_eq!(client.list_payments().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_key_the_caller_sets_is_sent_and_kept_across_retries() {
    let (payments, attempts) = (Arc::new(Payments::default()), Arc::new(Attempts::default()));
    let base = serve(payments.clone(), attempts.clone(), true).await;
    let client = client(&base);
    client
        .create_payment(NewPayment { amount: 7 })
        .idempotency_key("order-42")
        .await
        .unwrap();
    let keys: Vec<_> = attempts.on("/payments").into_iter().map(|t| t.0).collect();
    assert_eq!(
        keys,
        [Some("order-42".to_owned()), Some("order-42".to_owned())]
    );
    // The same key as a per-request header does the same; the server stores nothing new.
    let again = client
        .create_payment(NewPayment { amount: 7 })
        .header("Idempotency-Key", "order-42")
        .await
        .unwrap();
    assert_eq!(again.id, 1);
    assert_eq!(payments.stored.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_extension_names_an_undeclared_key_header() {
    let (payments, attempts) = (Arc::new(Payments::default()), Arc::new(Attempts::default()));
    let base = serve(payments.clone(), attempts.clone(), true).await;
    client(&base)
        .create_transfer(NewPayment { amount: 3 })
        .await
        .expect("retried after the 503");
    let tries = attempts.on("/transfers");
    assert_eq!(tries.len(), 2);
    let key = tries[0].1.clone().expect("X-Request-Id sent");
    assert!(is_uuid_v4(&key));
    assert_eq!(tries[1].1.as_deref(), Some(key.as_str()));
    assert_eq!(tries[0].0, None, "no Idempotency-Key beside it");
}

#[tokio::test]
async fn a_post_without_a_key_is_never_retried() {
    let (payments, attempts) = (Arc::new(Payments::default()), Arc::new(Attempts::default()));
    let base = serve(payments.clone(), attempts.clone(), true).await;
    let error = client(&base)
        .create_note("remember")
        .await
        .expect_err("the 503 comes back");
    assert_eq!(error.status().map(|s| s.as_u16()), Some(503));
    assert_eq!(attempts.on("/notes").len(), 1, "sent once");
    assert_eq!(payments.notes.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn per_request_headers_replace_the_clients_and_timeouts_apply_to_one_request() {
    let (payments, attempts) = (Arc::new(Payments::default()), Arc::new(Attempts::default()));
    let base = serve(payments, attempts.clone(), false).await;
    let client = Client::builder(&base)
        .default_header("x-trace", "client")
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    client.list_payments().await.unwrap();
    client
        .list_payments()
        .header("X-Trace", "request")
        .await
        .unwrap();
    let traces: Vec<_> = attempts.on("/payments").into_iter().map(|t| t.2).collect();
    assert_eq!(
        traces,
        [Some("client".to_owned()), Some("request".to_owned())]
    );

    let error = client
        .slow(2_000)
        .timeout(Duration::from_millis(100))
        .await
        .expect_err("times out");
    match error {
        Error::Transport(e) => assert!(e.is_timeout(), "{e}"),
        other => panic!("expected a timeout, got {other:?}"),
    }
    client
        .slow(10)
        .timeout(Duration::from_secs(5))
        .await
        .unwrap();

    let error = client
        .list_payments()
        .header("bad header", "x")
        .await
        .expect_err("an invalid header name");
    assert!(
        matches!(&error, Error::Transport(e) if e.is_builder()),
        "{error:?}"
    );
}
