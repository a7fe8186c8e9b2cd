//! Sending through a `tower::Service` (feature `tower`): layers around the HTTP client
//! ([`ClientBuilder::layer`]), or a service in its place, such as the generated server's router
//! called in process ([`Client::from_service`]). Copied verbatim by openapi-gen.
//!
//! Why `tower` rather than `reqwest-middleware`: a tower layer is the one middleware form both
//! sides of the API share (the generated server is an axum router, a `tower::Service`), so one
//! mechanism serves middleware (tower-http's `TraceLayer`, auth, metrics) and calling a router in
//! process without a socket; reqwest already builds `tower-service`, so the feature adds no crate a
//! client does not already compile, and it follows no second crate's reqwest release cadence.

use crate::client::{Client, ClientBuilder};
use crate::error::{BuildError, SendError};
use bytes::Bytes;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

/// A boxed error, as tower services give them.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A request as a [`Transport`] is sent it.
pub type HttpRequest = http::Request<reqwest::Body>;

/// A response as a [`Transport`] answers it.
pub type HttpResponse = http::Response<reqwest::Body>;

type BoxFuture = Pin<Box<dyn Future<Output = Result<HttpResponse, BoxError>> + Send>>;

/// The service the client sends its requests through: the HTTP client with the layers added so
/// far, what [`ClientBuilder::layer`] wraps. Cheap to clone.
#[derive(Clone)]
pub struct Transport {
    call: Arc<dyn Fn(HttpRequest) -> BoxFuture + Send + Sync>,
}

impl Transport {
    /// Any service of HTTP requests whose response bodies are byte streams: each call clones it,
    /// waits until it is ready and calls it.
    fn new<S, B>(service: S) -> Transport
    where
        S: tower_service::Service<HttpRequest, Response = http::Response<B>>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body + Send + 'static,
        B::Data: Into<Bytes>,
        B::Error: Into<BoxError>,
    {
        Transport {
            call: Arc::new(move |request| {
                let mut service = service.clone();
                Box::pin(async move {
                    std::future::poll_fn(|cx| service.poll_ready(cx))
                        .await
                        .map_err(Into::into)?;
                    let response = service.call(request).await.map_err(Into::into)?;
                    Ok(response.map(|body| reqwest::Body::wrap(SyncBody::new(body))))
                })
            }),
        }
    }

    /// The HTTP client as a service.
    fn http(client: reqwest::Client) -> Transport {
        Transport {
            call: Arc::new(move |request: HttpRequest| {
                let client = client.clone();
                Box::pin(async move {
                    let request = reqwest::Request::try_from(request)?;
                    let response = client.execute(request).await?;
                    Ok(HttpResponse::from(response))
                })
            }),
        }
    }

    /// Sends one request, within its timeout when it has one.
    pub(crate) async fn send(&self, request: reqwest::Request) -> Result<reqwest::Response, SendError> {
        let timeout = request.timeout().copied();
        let request = HttpRequest::try_from(request).map_err(SendError::Http)?;
        let call = (self.call)(request);
        let response = match timeout {
            Some(timeout) => tokio::time::timeout(timeout, call)
                .await
                .map_err(|elapsed| SendError::Service(Box::new(elapsed)))?,
            None => call.await,
        };
        response.map(reqwest::Response::from).map_err(SendError::Service)
    }
}

impl tower_service::Service<HttpRequest> for Transport {
    type Response = HttpResponse;
    type Error = BoxError;
    type Future = BoxFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: HttpRequest) -> BoxFuture {
        (self.call)(request)
    }
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Transport")
    }
}

/// A response body that is `Sync`, as reqwest's bodies must be (axum's is only `Send`): the body
/// is only ever reached through `&mut`, so the mutex is never locked.
struct SyncBody<B> {
    inner: Mutex<Pin<Box<B>>>,
}

impl<B> SyncBody<B> {
    fn new(body: B) -> SyncBody<B> {
        SyncBody {
            inner: Mutex::new(Box::pin(body)),
        }
    }
}

impl<B: http_body::Body> http_body::Body for SyncBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<B::Data>, B::Error>>> {
        let body = self
            .get_mut()
            .inner
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        body.as_mut().poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        // Only a locked mutex reaches the body through `&self`; no one else ever holds it.
        self.inner
            .try_lock()
            .is_ok_and(|body| body.is_end_stream())
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner
            .try_lock()
            .map(|body| body.size_hint())
            .unwrap_or_default()
    }
}

/// What the builder was given: layers, and a service in place of the HTTP client.
pub(crate) struct Setting {
    layers: Vec<Box<dyn FnOnce(Transport) -> Transport + Send>>,
    service: Option<Transport>,
}

impl Setting {
    /// An empty setting: straight over HTTP.
    pub(crate) const NONE: Setting = Setting {
        layers: Vec::new(),
        service: None,
    };

    /// Whether a service replaces the HTTP client.
    pub(crate) fn replaces_http(&self) -> bool {
        self.service.is_some()
    }

    /// The service requests go through, if not straight over HTTP: the layers around the service
    /// or the HTTP client, the first added outermost (as `tower::ServiceBuilder` stacks them).
    pub(crate) fn into_transport(self, http: &reqwest::Client) -> Option<Transport> {
        if self.layers.is_empty() && self.service.is_none() {
            return None;
        }
        let inner = self
            .service
            .unwrap_or_else(|| Transport::http(http.clone()));
        Some(self.layers.into_iter().rev().fold(inner, |inner, layer| layer(inner)))
    }
}

impl ClientBuilder {
    /// Sends every request through `layer` wrapped around the HTTP client (feature `tower`): a
    /// `tower::Layer` such as tower-http's `TraceLayer`, a layer adding or refreshing credentials,
    /// or a `tower::ServiceBuilder` of several. Each call adds a layer inside those added before
    /// (the first added sees a request first, as with `tower::ServiceBuilder`). Retries,
    /// credentials and the idempotency key are the client's, around the layers.
    pub fn layer<L, B>(mut self, layer: L) -> Self
    where
        L: tower_layer::Layer<Transport> + Send + 'static,
        L::Service: tower_service::Service<HttpRequest, Response = http::Response<B>>
            + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower_service::Service<HttpRequest>>::Future: Send + 'static,
        <L::Service as tower_service::Service<HttpRequest>>::Error: Into<BoxError>,
        B: http_body::Body + Send + 'static,
        B::Data: Into<Bytes>,
        B::Error: Into<BoxError>,
    {
        self.service
            .layers
            .push(Box::new(move |inner| Transport::new(layer.layer(inner))));
        self
    }

    /// Sends every request to `service` instead of over HTTP (feature `tower`): the generated
    /// server's router, called in process with no socket, or any service of HTTP requests. The
    /// base URL still makes the requests' URLs; layers added with [`ClientBuilder::layer`] wrap it.
    pub fn service<S, B>(mut self, service: S) -> Self
    where
        S: tower_service::Service<HttpRequest, Response = http::Response<B>>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body + Send + 'static,
        B::Data: Into<Bytes>,
        B::Error: Into<BoxError>,
    {
        self.service.service = Some(Transport::new(service));
        self
    }
}

impl Client {
    /// A client that calls `service` in process (feature `tower`), such as the generated server's
    /// router with a mock implementation: requests and responses go through it exactly as over
    /// HTTP (bodies, headers, streams, errors), without a socket. `Client::builder(..).service(..)`
    /// sets credentials or retries as well. Its base URL is `http://localhost`.
    pub fn from_service<S, B>(service: S) -> Result<Client, BuildError>
    where
        S: tower_service::Service<HttpRequest, Response = http::Response<B>>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: http_body::Body + Send + 'static,
        B::Data: Into<Bytes>,
        B::Error: Into<BoxError>,
    {
        Client::builder("http://localhost").service(service).build()
    }
}
