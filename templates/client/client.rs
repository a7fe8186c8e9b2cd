//! The client and its builder: connection settings, credentials, and the loop that sends a request
//! with its credentials and retries. Copied verbatim by openapi-gen; the operations are methods of
//! [`Client`] defined in `requests.rs`.

use crate::auth::TokenCache;
use crate::error::{BuildError, Error, SendError};
use crate::retry::{self, RetryPolicy};
use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The `User-Agent` sent unless another is set.
const DEFAULT_USER_AGENT: &str = concat!(env!("CARGO_PKG_NAME"), "/", env!("CARGO_PKG_VERSION"));

/// A client of the API: one method per operation, each returning a request builder to finish with
/// `.send().await` (or to `.await` directly).
///
/// Cheap to clone: clones share one connection pool, one token cache and the same settings.
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) http: reqwest::Client,
    /// The `tower` service requests go through instead of `http` (feature `tower`): `http` under
    /// layers, or a service called in process.
    #[cfg(feature = "tower")]
    service: Option<crate::service::Transport>,
    base_url: String,
    /// Default headers and timeout, when the caller brought its own `reqwest::Client` (ours has them built in).
    headers: HeaderMap,
    timeout: Option<Duration>,
    credentials: Authorization,
    retry: RetryPolicy,
}

enum Authorization {
    None,
    Bearer(HeaderValue),
    ClientCredentials(TokenCache),
}

impl Client {
    /// A client with the default settings: no credentials, the default [`RetryPolicy`].
    pub fn new(base_url: impl Into<String>) -> Result<Client, BuildError> {
        Client::builder(base_url).build()
    }

    /// Starts configuring a client for the server at `base_url` (for example
    /// `https://api.example.com`); operation paths are appended to it.
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            http: None,
            #[cfg(feature = "tower")]
            service: crate::service::Setting::NONE,
            timeout: None,
            user_agent: None,
            headers: Vec::new(),
            credentials: CredentialsConfig::None,
            retry: RetryPolicy::default(),
        }
    }

    /// The base URL operation paths are appended to (without a trailing `/`).
    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }
}

/// A URL of the document (a token endpoint...): `url` if absolute, else `url` appended to
/// `base_url` like an operation path.
pub(crate) fn resolve(base_url: &str, url: &str) -> String {
    if reqwest::Url::parse(url).is_ok() {
        url.to_owned()
    } else {
        let slash = if url.starts_with('/') { "" } else { "/" };
        format!("{base_url}{slash}{url}")
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let credentials = match &self.inner.credentials {
            Authorization::None => "none".to_owned(),
            Authorization::Bearer(_) => "bearer token".to_owned(),
            Authorization::ClientCredentials(cache) => {
                format!("client credentials at {}", cache.token_url())
            }
        };
        f.debug_struct("Client")
            .field("base_url", &self.inner.base_url)
            .field("credentials", &credentials)
            .field("retry", &self.inner.retry)
            .finish_non_exhaustive()
    }
}

impl Inner {
    /// A request to `path` (already percent-encoded) under the base URL.
    pub(crate) fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let mut url = String::with_capacity(self.base_url.len() + path.len());
        url.push_str(&self.base_url);
        url.push_str(path);
        self.prepare(self.http.request(method, url))
    }

    /// Applies the default headers and timeout that a caller-supplied `reqwest::Client` lacks.
    pub(crate) fn prepare(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        if !self.headers.is_empty() {
            request = request.headers(self.headers.clone());
        }
        if let Some(timeout) = self.timeout {
            request = request.timeout(timeout);
        }
        request
    }

    /// Sends a request of an operation with the caller's `options`: with the bearer token when
    /// `bearer` (the operation requires it), repeated per the retry policy when `idempotent`, and
    /// once more with a new token when the server rejects a cached token with `401`.
    ///
    /// `idempotency_key` names the header of the operation's idempotency key (in lower case): unless the caller set
    /// it, it gets a fresh UUID v4, which every retry of this call repeats, so the server acts at
    /// most once and the call is retried like an idempotent one.
    pub(crate) async fn send<E>(
        &self,
        request: reqwest::RequestBuilder,
        options: RequestOptions,
        bearer: bool,
        mut idempotent: bool,
        idempotency_key: Option<&'static str>,
    ) -> Result<reqwest::Response, Error<E>> {
        let mut request = options.apply(request).map_err(Error::Transport)?;
        if let Some(name) = idempotency_key {
            if !request.headers().contains_key(name) {
                let key = HeaderValue::from_str(&crate::retry::idempotency_key())
                    .expect("a UUID is a header value");
                request
                    .headers_mut()
                    .insert(HeaderName::from_static(name), key);
            }
            idempotent = true;
        }
        let cache = match &self.credentials {
            Authorization::ClientCredentials(cache) if bearer => cache,
            Authorization::Bearer(value) if bearer => {
                request
                    .headers_mut()
                    .insert(header::AUTHORIZATION, value.clone());
                return Ok(self.dispatch(request, idempotent).await?);
            }
            _ => return Ok(self.dispatch(request, idempotent).await?),
        };
        let mut renewed = false;
        loop {
            let token = cache.token(self).await?;
            request
                .headers_mut()
                .insert(header::AUTHORIZATION, token.header);
            // Keep a copy for the one retry after a rejected token (none for a streamed body).
            let (outcome, copy) = self.attempt(request, idempotent, !renewed).await;
            let response = outcome?;
            match copy {
                Some(copy) if response.status() == StatusCode::UNAUTHORIZED => {
                    cache.invalidate(token.generation);
                    renewed = true;
                    // Read the rejection to the end so the connection can be reused.
                    let _ = response.bytes().await;
                    request = copy;
                }
                _ => return Ok(response),
            }
        }
    }

    /// Sends a request, repeating it per the retry policy when `idempotent`.
    pub(crate) async fn dispatch(
        &self,
        request: reqwest::Request,
        idempotent: bool,
    ) -> Result<reqwest::Response, SendError> {
        self.attempt(request, idempotent, false).await.0
    }

    /// Sends a request once: through the `tower` service when there is one, else over HTTP.
    async fn execute(&self, request: reqwest::Request) -> Result<reqwest::Response, SendError> {
        #[cfg(feature = "tower")]
        if let Some(service) = &self.service {
            return service.send(request).await;
        }
        self.http.execute(request).await.map_err(SendError::Http)
    }

    /// [`Inner::dispatch`], also returning an unsent copy of the request when `keep_copy` (and the
    /// body can be copied): one copy serves both the retries and the caller.
    async fn attempt(
        &self,
        mut request: reqwest::Request,
        idempotent: bool,
        keep_copy: bool,
    ) -> (
        Result<reqwest::Response, SendError>,
        Option<reqwest::Request>,
    ) {
        let mut retries = 0;
        loop {
            let may_retry = idempotent && retries < self.retry.max_retries;
            let copy = if may_retry || keep_copy {
                request.try_clone()
            } else {
                None
            };
            let outcome = self.execute(request).await;
            let Some(copy) = copy else {
                return (outcome, None);
            };
            let delay = match &outcome {
                Ok(response) if may_retry && retry::is_retryable_status(response.status()) => {
                    self.retry.delay(retries, retry::retry_after(response))
                }
                Err(error) if may_retry && error.http().is_some_and(retry::is_retryable_error) => {
                    self.retry.delay(retries, None)
                }
                _ => return (outcome, keep_copy.then_some(copy)),
            };
            if let Ok(response) = outcome {
                let _ = response.bytes().await;
            }
            tokio::time::sleep(delay).await;
            retries += 1;
            request = copy;
        }
    }
}

/// Settings of a [`Client`], applied by [`ClientBuilder::build`].
pub struct ClientBuilder {
    base_url: String,
    http: Option<reqwest::Client>,
    /// Layers around the HTTP client, or a service in its place (feature `tower`).
    #[cfg(feature = "tower")]
    pub(crate) service: crate::service::Setting,
    timeout: Option<Duration>,
    user_agent: Option<String>,
    headers: Vec<(String, String)>,
    credentials: CredentialsConfig,
    retry: RetryPolicy,
}

enum CredentialsConfig {
    None,
    Bearer(String),
    ClientCredentials {
        token_url: String,
        client_id: String,
        client_secret: String,
    },
}

impl ClientBuilder {
    /// Sends through this `reqwest::Client` (its connection pool, proxy and TLS settings) instead
    /// of a new one. The timeout, user agent and default headers set here still apply.
    pub fn reqwest_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// Gives up on a request (each try of it) after this long: [`Error::Transport`] with
    /// `is_timeout()`. Default: no timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The `User-Agent` header. Default: this crate's name and version.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = Some(user_agent.into());
        self
    }

    /// A header sent with every request (added to those already set; checked by `build`).
    pub fn default_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends `Authorization: Bearer <token>` to the operations that require a bearer token or
    /// OAuth 2.0. Replaces client credentials set earlier.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.credentials = CredentialsConfig::Bearer(token.into());
        self
    }

    /// OAuth 2.0 client credentials (RFC 6749 section 4.4) against the token endpoint `token_url`
    /// (absolute, or a path appended to the base URL). The client asks for an access token on
    /// first use, sending `grant_type=client_credentials` with the credentials in HTTP Basic
    /// authentication (section 2.3.1); it caches the token until 30 s (or a tenth of its
    /// lifetime, when shorter) before it expires, fetches one token at a time however many
    /// calls wait for it, and when an operation answers `401` fetches a new token and sends
    /// the request once more. Replaces a bearer token set earlier.
    pub fn client_credentials_at(
        mut self,
        token_url: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.credentials = CredentialsConfig::ClientCredentials {
            token_url: token_url.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
        };
        self
    }

    /// When idempotent requests are repeated; see [`RetryPolicy`]. `POST` and `PATCH` are never
    /// repeated. Default: [`RetryPolicy::default`] (two retries).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The client, or why the settings are invalid.
    pub fn build(self) -> Result<Client, BuildError> {
        let base_url = self.base_url.trim_end_matches('/').to_owned();
        let invalid = |reason: &str| BuildError::InvalidBaseUrl {
            url: self.base_url.clone(),
            reason: reason.to_owned(),
        };
        let parsed = reqwest::Url::parse(&base_url).map_err(|e| invalid(&e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(invalid("the scheme must be http or https"));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(invalid("a base URL has no query or fragment"));
        }
        if parsed.scheme() == "https"
            && self.http.is_none()
            && !cfg!(any(feature = "rustls", feature = "native-tls"))
        {
            return Err(invalid(concat!(
                "https needs the `rustls` or `native-tls` feature of ",
                env!("CARGO_PKG_NAME")
            )));
        }
        let mut headers = HeaderMap::new();
        let user_agent = match (&self.user_agent, &self.http) {
            (Some(agent), _) => Some(agent.as_str()),
            // A caller-supplied client keeps its own user agent unless one is set here.
            (None, Some(_)) => None,
            (None, None) => Some(DEFAULT_USER_AGENT),
        };
        if let Some(agent) = user_agent {
            let value = HeaderValue::from_str(agent).map_err(|_| BuildError::InvalidHeader {
                name: "user-agent".to_owned(),
            })?;
            headers.insert(header::USER_AGENT, value);
        }
        for (name, value) in &self.headers {
            let invalid = || BuildError::InvalidHeader { name: name.clone() };
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
            let value = HeaderValue::from_str(value).map_err(|_| invalid())?;
            headers.append(name, value);
        }
        let credentials = match self.credentials {
            CredentialsConfig::None => Authorization::None,
            CredentialsConfig::Bearer(token) => {
                let mut value =
                    HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
                        BuildError::InvalidHeader {
                            name: "authorization".to_owned(),
                        }
                    })?;
                value.set_sensitive(true);
                Authorization::Bearer(value)
            }
            CredentialsConfig::ClientCredentials {
                token_url,
                client_id,
                client_secret,
            } => {
                Authorization::ClientCredentials(TokenCache::new(
                    resolve(&base_url, &token_url),
                    client_id,
                    client_secret,
                ))
            }
        };
        // A service in place of HTTP (feature `tower`) is sent the headers and timeout per request.
        #[cfg(feature = "tower")]
        let replaced = self.service.replaces_http();
        #[cfg(not(feature = "tower"))]
        let replaced = false;
        let (http, headers, timeout) = match self.http {
            Some(http) => (http, headers, self.timeout),
            None if replaced => (
                reqwest::Client::builder()
                    .build()
                    .map_err(BuildError::Http)?,
                headers,
                self.timeout,
            ),
            None => {
                let mut builder = reqwest::Client::builder().default_headers(headers);
                if let Some(timeout) = self.timeout {
                    builder = builder.timeout(timeout);
                }
                (
                    builder.build().map_err(BuildError::Http)?,
                    HeaderMap::new(),
                    None,
                )
            }
        };
        #[cfg(feature = "tower")]
        let service = self.service.into_transport(&http);
        let inner = Inner {
            http,
            #[cfg(feature = "tower")]
            service,
            base_url,
            headers,
            timeout,
            credentials,
            retry: self.retry,
        };
        Ok(Client {
            inner: Arc::new(inner),
        })
    }
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let credentials = match &self.credentials {
            CredentialsConfig::None => "none".to_owned(),
            CredentialsConfig::Bearer(_) => "bearer token".to_owned(),
            CredentialsConfig::ClientCredentials {
                token_url,
                client_id,
                ..
            } => {
                format!("client credentials of {client_id} at {token_url}")
            }
        };
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("timeout", &self.timeout)
            .field("user_agent", &self.user_agent)
            .field("credentials", &credentials)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// What a caller sets on one request: `.timeout(..)` and `.header(..)` of every request builder.
#[derive(Debug, Clone, Default)]
pub(crate) struct RequestOptions {
    timeout: Option<Duration>,
    headers: Vec<(String, String)>,
}

impl RequestOptions {
    pub(crate) fn timeout(&mut self, timeout: Duration) {
        self.timeout = Some(timeout);
    }

    pub(crate) fn header(&mut self, name: String, value: String) {
        self.headers.push((name, value));
    }

    /// The request with the caller's timeout, and its headers in place of those of the same
    /// names (those it sets more than once are all sent). An invalid name or value is the
    /// request's error, as reqwest reports it.
    fn apply(self, mut request: reqwest::RequestBuilder) -> Result<reqwest::Request, reqwest::Error> {
        if let Some(timeout) = self.timeout {
            request = request.timeout(timeout);
        }
        let mut headers = Vec::with_capacity(self.headers.len());
        for (name, value) in &self.headers {
            match (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                (Ok(name), Ok(value)) => headers.push((name, value)),
                // reqwest keeps the error, and `build` answers it.
                _ => request = request.header(name.as_str(), value.as_str()),
            }
        }
        let mut request = request.build()?;
        for (name, _) in &headers {
            request.headers_mut().remove(name);
        }
        for (name, value) in headers {
            request.headers_mut().append(name, value);
        }
        Ok(request)
    }
}
