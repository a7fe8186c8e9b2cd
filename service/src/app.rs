//! Assembling the service: store, keys, the root account on first start, and the HTTP routes (the
//! generated API router plus `/healthz` and the portal page).

use crate::api::{Alerting, Service};
use crate::auth::LinkSigner;
use crate::auth::{TokenKeys, hash_secret, new_client_secret};
use crate::config::Config;
use crate::dispatch::{DispatchConfig, Dispatcher};
use crate::keys::{self, Keys, derive};
use crate::live::{Leases, LiveEvents};
use crate::portal;
use crate::store::postgres::PgSettings;
use crate::store::{AccountRecord, Database, Store, StoreError};
use crate::throttle::{self, TokenGate, TokenLimits};
use crate::trackers::{TrackerSockets, Trackers};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use chrono::Utc;
use std::future::Future;
use std::sync::Arc;
use tower_http::LatencyUnit;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;
use uuid::Uuid;

/// Credentials of the root account, when this start created it.
pub struct RootCredentials {
    pub id: Uuid,
    pub secret: String,
}

pub struct App {
    pub router: axum::Router,
    pub store: Database,
    pub created_root: Option<RootCredentials>,
    pub dispatcher: Arc<Dispatcher<Database>>,
    /// The trackers' listeners, bound (their addresses known) and started by [`App::serve`].
    pub trackers: TrackerSockets,
    service: Arc<Service<Database>>,
    /// Ended at shutdown, so that open event streams do not hold it up.
    pub live: Arc<LiveEvents>,
}

/// The service's keys: configured, or from the key file (created on first start). A key an
/// older version kept in the database moves to the key file and leaves the database.
async fn load_keys(store: &Database, config: &Config) -> anyhow::Result<Keys> {
    let now = Utc::now();
    if let Some(key) = &config.signing_key {
        return Ok(Keys::from_config(
            key,
            config.previous_signing_key.as_deref(),
            now,
        ));
    }
    let legacy = store.setting(LEGACY_KEY_SETTING).await?;
    let Some(path) = config.key_file() else {
        // An in-memory database: keys live as long as it does.
        return Ok(Keys::generate(now));
    };
    let keys = match keys::read(&path)? {
        Some(keys) => keys,
        None => {
            let keys = match &legacy {
                Some(stored) => Keys::from_legacy(stored, now),
                None => {
                    if store.account_count().await? > 0 {
                        tracing::warn!(path = %path.display(), "no key file: generated new keys; \
                            access tokens, links and webhook secrets issued before are no longer valid");
                    }
                    Keys::generate(now)
                }
            };
            keys::write(&path, &keys)?;
            tracing::info!(path = %path.display(), "wrote the key file");
            keys
        }
    };
    if legacy.is_some() {
        store.delete_setting(LEGACY_KEY_SETTING).await?;
    }
    Ok(keys)
}

/// Where versions before key files kept the signing key.
const LEGACY_KEY_SETTING: &str = "signing_key";

/// `--rotate-signing-key`: a new current token key in the key file.
pub fn rotate_signing_key(config: &Config) -> anyhow::Result<String> {
    let path = config
        .key_file()
        .ok_or_else(|| anyhow::anyhow!("keys are configured (--signing-key), not in a key file; set --signing-key to a new key and --previous-signing-key to the old one"))?;
    let keys = keys::read(&path)?.ok_or_else(|| {
        anyhow::anyhow!(
            "no key file at {}; start the service once to create it",
            path.display()
        )
    })?;
    let rotated = keys.rotated(Utc::now());
    keys::write(&path, &rotated)?;
    Ok(rotated.tokens[0].kid())
}

impl App {
    pub async fn build(config: &Config) -> anyhow::Result<App> {
        // Installed before any request, so none is counted by the no-op recorder.
        crate::monitoring::handle();
        // Bound first: a port taken fails the start before anything is written.
        let trackers = TrackerSockets::bind(config).await?;
        let store = Database::open(&config.database_url, &postgres_settings(config)).await?;
        // Instances starting at once on one PostgreSQL database create the root account once.
        let startup = store.startup_lock().await?;
        let keys = load_keys(&store, config).await?;
        let created_root = bootstrap_root(&store, config).await?;
        if let Some(startup) = startup {
            startup.release().await?;
        }
        let tokens = TokenKeys::rotating(
            &keys.tokens,
            chrono::Duration::seconds(config.token_lifetime_secs),
        );
        let key = &keys.links;
        let signer = LinkSigner::portal(&derive(key, "portal-link"));
        let dispatch_wake = Arc::new(tokio::sync::Notify::new());
        let live = live_events(&store, config, &dispatch_wake);
        let alerting = Alerting {
            detector: Arc::new(asset_alerting_detect::Detector::new(Default::default())),
            dispatch_wake,
            webhook_key: derive(key, "webhook"),
            ack_signer: LinkSigner::for_purpose(&derive(key, "ack-link"), "ack"),
            callback_policy: crate::delivery::callback_policy(config),
            live: live.clone(),
        };
        let service = Arc::new(Service::new(
            store.clone(),
            tokens,
            signer,
            config.public_base_url(),
            alerting,
        ));
        let dispatcher = Arc::new(Dispatcher::new(
            service.clone(),
            Arc::new(crate::delivery::channels(config)?),
            Arc::new(crate::delivery::webhooks(config)?),
            DispatchConfig {
                lease: chrono::Duration::seconds(config.dispatch_lease_secs.max(1)),
                retry_base: chrono::Duration::milliseconds(config.retry_base_ms.max(1)),
                breaker: crate::breaker::BreakerConfig::from_retry_base(
                    chrono::Duration::milliseconds(config.retry_base_ms.max(1)),
                ),
                rate_limit: asset_alerting_matching::limits::RateLimit {
                    max_messages: config.rate_limit_per_minute,
                    window: chrono::Duration::seconds(config.rate_limit_window_secs.max(1)),
                },
                ..DispatchConfig::default()
            },
        ));
        let extra = axum::Router::new()
            .route("/healthz", get(healthz))
            .route("/openapi.yaml", get(crate::contract::openapi_yaml))
            .route("/openapi.json", get(crate::contract::openapi_json))
            .route("/docs", get(crate::contract::docs))
            .route("/metrics", get(crate::monitoring::render))
            .route("/portal/{account_id}", get(portal::portal_page))
            .route("/portal/{account_id}/events", get(portal::live_events))
            .route(
                "/ack/{notification_id}",
                get(crate::pages::ack_page).post(crate::pages::ack_submit),
            )
            .with_state(service.clone());
        let gate = TokenGate::new(TokenLimits {
            per_address: config.token_rate_per_address,
            per_client: config.token_rate_per_client,
            in_flight: crate::auth::secret_check_threads() + config.token_queue,
        });
        // Listed innermost first: the request id is set before the span that logs it is opened.
        let router = asset_alerting_server::router(service.clone())
            .merge(extra)
            .layer(axum::middleware::from_fn(token_endpoint_errors))
            .layer(axum::middleware::from_fn_with_state(gate, throttle::guard))
            .layer(axum::middleware::from_fn(crate::monitoring::record_request))
            .layer(
                TraceLayer::new_for_http()
                    .make_span_with(request_span)
                    // A line per request is debug: at info it cost a quarter of GET asset's
                    // throughput; /metrics counts requests, errors are logged in the span.
                    .on_response(
                        DefaultOnResponse::new()
                            .level(Level::DEBUG)
                            .latency_unit(LatencyUnit::Micros),
                    ),
            )
            .layer(PropagateRequestIdLayer::x_request_id())
            .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid));
        Ok(App {
            router,
            store,
            created_root,
            dispatcher,
            trackers,
            service,
            live,
        })
    }

    /// Serves until `shutdown` resolves: stops accepting, lets requests in flight finish and
    /// trackers' packets being stored be acknowledged, stops the dispatcher after its round in
    /// flight, then closes the database.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let dispatcher = tokio::spawn(self.dispatcher.run(stopped));
        let trackers = Trackers::start(self.trackers, self.service);
        let (trackers_stop, trackers_stopped) = tokio::sync::oneshot::channel::<()>();
        let trackers = tokio::spawn(async move {
            let _ = trackers_stopped.await;
            trackers.stop().await;
        });
        let live = self.live.clone();
        let shutdown = async move {
            shutdown.await;
            live.close();
        };
        // Without TCP_NODELAY a stream's small write waits for the client's delayed ACK of the
        // one before it (40 ms on Linux): the live event streams measured it at their p90.
        let listener = listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(error = %e, "TCP_NODELAY not set");
            }
        });
        let served = axum::serve(
            listener,
            self.router
                .into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            shutdown.await;
            // The trackers stop with the API, at the same time.
            let _ = trackers_stop.send(());
        })
        .await;
        let _ = trackers.await;
        let _ = stop.send(true);
        let _ = dispatcher.await;
        self.live.release_all().await;
        self.store.close().await;
        Ok(served?)
    }
}

/// Live streams: in-process wake-ups and counts with one instance (SQLite); with several
/// (PostgreSQL) a listener for every instance's commits and stream leases in the database.
fn live_events(
    store: &Database,
    config: &Config,
    dispatch_wake: &Arc<tokio::sync::Notify>,
) -> Arc<LiveEvents> {
    let Database::Postgres(pg) = store else {
        return Arc::new(LiveEvents::default());
    };
    let ttl = std::time::Duration::from_secs(config.stream_lease_secs.max(1));
    let live = Arc::new(LiveEvents::shared(Leases::start(pg.clone(), ttl)));
    crate::live::listener::spawn(pg.listener_pool(), live.clone(), dispatch_wake.clone());
    live
}

/// On first start (no accounts yet) creates the root account.
async fn bootstrap_root(
    store: &Database,
    config: &Config,
) -> anyhow::Result<Option<RootCredentials>> {
    if store.account_count().await? > 0 {
        return Ok(None);
    }
    let id = config.root_account_id.unwrap_or_else(Uuid::new_v4);
    let secret = config
        .root_client_secret
        .clone()
        .unwrap_or_else(new_client_secret);
    store
        .insert_account(&AccountRecord {
            id,
            parent_id: None,
            name: "root".to_owned(),
            friendly_name: None,
            culture: None,
            technical_email_address: None,
            callback_uri: None,
            secret_hash: hash_secret(&secret),
            created_at: Utc::now(),
        })
        .await?;
    Ok(Some(RootCredentials { id, secret }))
}

/// The token endpoint answers every failure in RFC 6749's shape (section 5.2), also the 405 that
/// the router gives a method other than POST before any operation runs.
async fn token_endpoint_errors(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let at_token_endpoint = request.uri().path() == "/v1/auth/token";
    let response = next.run(request).await;
    if !at_token_endpoint || response.status() != StatusCode::METHOD_NOT_ALLOWED {
        return response;
    }
    let body = asset_alerting_models::OAuthError {
        error: asset_alerting_models::OAuthErrorError::InvalidRequest,
        error_description: Some("the token endpoint accepts POST only".to_owned()),
    };
    let allow = response.headers().get(axum::http::header::ALLOW).cloned();
    let mut answer = (StatusCode::METHOD_NOT_ALLOWED, axum::Json(body)).into_response();
    if let Some(allow) = allow {
        answer
            .headers_mut()
            .insert(axum::http::header::ALLOW, allow);
    }
    answer
}

/// `ok` and the database in use while it answers; 503 when it does not.
async fn healthz(State(service): State<Arc<Service<Database>>>) -> Response {
    let store = service.store();
    // A balancer's check gives up after a few seconds; the pool would wait for a connection longer.
    let answered = tokio::time::timeout(std::time::Duration::from_secs(2), store.ping()).await;
    match answered.unwrap_or_else(|_| Err(StoreError::Failed("no answer within 2 s".into()))) {
        Ok(()) => (
            StatusCode::OK,
            format!("ok\ndatabase: {} ok\n", store.backend()),
        )
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "health check failed");
            let body = format!(
                "database unavailable\ndatabase: {} unreachable\n",
                store.backend()
            );
            (StatusCode::SERVICE_UNAVAILABLE, body).into_response()
        }
    }
}

fn postgres_settings(config: &Config) -> PgSettings {
    PgSettings {
        max_connections: config.database_max_connections,
        statement_timeout: std::time::Duration::from_millis(config.database_statement_timeout_ms),
    }
}

/// The span of one request: what was asked, and the request id (sent by the caller or made here).
fn request_span(request: &axum::extract::Request) -> tracing::Span {
    let id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    tracing::info_span!("request", method = %request.method(), uri = %request.uri(), request_id = %id)
}
