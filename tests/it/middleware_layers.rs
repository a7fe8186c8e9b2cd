//! Middleware in the generated client (feature `tower`): tower-http's `TraceLayer` and a
//! hand-written layer that refreshes an access token, around the HTTP client, against the
//! generated server (generated/server serving tests/support/memory.rs) on 127.0.0.1. The example
//! users copy: a token source that hands out a new token when the one it holds has expired.

use asset_alerting_client::service::{HttpRequest, Transport};
use asset_alerting_client::{Client, reqwest};
use integration_tests::memory::axum;
use integration_tests::memory::{MemoryApi, ROOT_ACCOUNT, TOKEN};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// Hands out an access token, fetching a new one when the one held has expired.
struct TokenSource {
    current: Mutex<Option<(String, Instant)>>,
    lifetime: Duration,
    fetches: AtomicUsize,
}

impl TokenSource {
    async fn token(&self) -> String {
        if let Some((token, expires)) = self.current.lock().unwrap().clone()
            && Instant::now() < expires
        {
            return token;
        }
        // A real source would call the identity provider here.
        self.fetches.fetch_add(1, Ordering::SeqCst);
        let token = TOKEN.to_owned();
        *self.current.lock().unwrap() = Some((token.clone(), Instant::now() + self.lifetime));
        token
    }
}

/// A `tower::Layer` that sets `Authorization: Bearer` from a [`TokenSource`] on every request.
#[derive(Clone)]
struct BearerLayer(Arc<TokenSource>);

impl<S> tower::Layer<S> for BearerLayer {
    type Service = Bearer<S>;
    fn layer(&self, inner: S) -> Bearer<S> {
        Bearer {
            inner,
            source: self.0.clone(),
        }
    }
}

#[derive(Clone)]
struct Bearer<S> {
    inner: S,
    source: Arc<TokenSource>,
}

impl tower::Service<HttpRequest> for Bearer<Transport> {
    type Response = <Transport as tower::Service<HttpRequest>>::Response;
    type Error = <Transport as tower::Service<HttpRequest>>::Error;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: HttpRequest) -> Self::Future {
        let (mut inner, source) = (self.inner.clone(), self.source.clone());
        Box::pin(async move {
            let token = source.token().await;
            let value = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))?;
            request
                .headers_mut()
                .insert(reqwest::header::AUTHORIZATION, value);
            inner.call(request).await
        })
    }
}

#[tokio::test]
async fn tracing_and_token_refresh_layers_wrap_every_request() {
    let api = Arc::new(MemoryApi::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = asset_alerting_server::router(api);
    tokio::spawn(async move { axum::serve(listener, app).await });

    let source = Arc::new(TokenSource {
        current: Mutex::new(None),
        lifetime: Duration::from_millis(200),
        fetches: AtomicUsize::new(0),
    });
    let traced = Arc::new(AtomicUsize::new(0));
    let seen = traced.clone();
    let trace = tower_http::trace::TraceLayer::new_for_http().on_request(
        move |request: &HttpRequest, _: &tracing::Span| {
            assert!(
                request.headers().contains_key("authorization"),
                "the bearer layer is inside"
            );
            seen.fetch_add(1, Ordering::SeqCst);
        },
    );
    // The first layer added sees a request first: the trace sees what the bearer layer made.
    let client = Client::builder(format!("http://{address}"))
        .layer(BearerLayer(source.clone()))
        .layer(trace)
        .build()
        .unwrap();

    let account = client
        .get_account(ROOT_ACCOUNT)
        .await
        .expect("authorized by the layer");
    assert_eq!(account.id, ROOT_ACCOUNT);
    client.get_account(ROOT_ACCOUNT).await.unwrap();
    assert_eq!(
        source.fetches.load(Ordering::SeqCst),
        1,
        "the token is reused"
    );
    tokio::time::sleep(Duration::from_millis(250)).await;
    client.get_account(ROOT_ACCOUNT).await.unwrap();
    assert_eq!(
        source.fetches.load(Ordering::SeqCst),
        2,
        "refreshed after it expired"
    );
    assert_eq!(traced.load(Ordering::SeqCst), 3, "every request traced");
}
