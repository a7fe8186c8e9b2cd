//! Assembling the service: store, keys, the root account on first start, and the HTTP routes (the
//! generated API router plus `/healthz` and the portal page).

use crate::api::Service;
use crate::auth::{TokenKeys, hash_secret, new_client_secret, random_token};
use crate::config::Config;
use crate::portal::{self, PortalSigner};
use crate::store::sqlite::SqliteStore;
use crate::store::{AccountRecord, Page, Store};
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::future::Future;
use std::sync::Arc;
use tower_http::LatencyUnit;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;
use uuid::Uuid;

/// Credentials of the root account, when this start created it.
pub struct RootCredentials {
    pub id: Uuid,
    pub secret: String,
}

pub struct App {
    pub router: axum::Router,
    pub store: SqliteStore,
    pub created_root: Option<RootCredentials>,
}

/// A key for one purpose, derived from the service's signing key.
fn derive_key(key: &str, purpose: &str) -> Vec<u8> {
    Sha256::digest(format!("{purpose}:{key}").as_bytes()).to_vec()
}

impl App {
    pub async fn build(config: &Config) -> anyhow::Result<App> {
        let store = SqliteStore::open(&config.database_url).await?;
        let key = match &config.signing_key {
            Some(key) => key.clone(),
            None => {
                store
                    .setting_or_insert("signing_key", &random_token(32))
                    .await?
            }
        };
        let created_root = bootstrap_root(&store, config).await?;
        let tokens = TokenKeys::new(
            &derive_key(&key, "access-token"),
            chrono::Duration::seconds(config.token_lifetime_secs),
        );
        let signer = PortalSigner::new(&derive_key(&key, "portal-link"));
        let service = Arc::new(Service::new(
            store.clone(),
            tokens,
            signer,
            config.public_base_url(),
        ));
        let extra = axum::Router::new()
            .route("/healthz", get(healthz))
            .route("/portal/{account_id}", get(portal_page))
            .with_state(service.clone());
        let router = asset_alerting_server::router(service).merge(extra).layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
                .on_response(
                    DefaultOnResponse::new()
                        .level(Level::INFO)
                        .latency_unit(LatencyUnit::Micros),
                ),
        );
        Ok(App {
            router,
            store,
            created_root,
        })
    }

    /// Serves until `shutdown` resolves, lets requests in flight finish, then closes the database.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        axum::serve(listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await?;
        self.store.close().await;
        Ok(())
    }
}

/// On first start (no accounts yet) creates the root account.
async fn bootstrap_root(
    store: &SqliteStore,
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

async fn healthz(State(service): State<Arc<Service<SqliteStore>>>) -> Response {
    match service.store().account_count().await {
        Ok(_) => (StatusCode::OK, "ok\n").into_response(),
        Err(e) => {
            tracing::error!(error = %e, "health check failed");
            (StatusCode::SERVICE_UNAVAILABLE, "database unavailable\n").into_response()
        }
    }
}

/// The page a portal link opens: refused (403) unless the link is authentic and unexpired.
async fn portal_page(
    State(service): State<Arc<Service<SqliteStore>>>,
    Path(account): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let refuse = |why: &str| {
        (
            StatusCode::FORBIDDEN,
            Html(format!(
                "<!doctype html><title>Link refused</title><p>{why}</p>\n"
            )),
        )
            .into_response()
    };
    let Ok(account) = Uuid::parse_str(&account) else {
        return refuse("This link is not valid.");
    };
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let find = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let (Some(Ok(expires)), Some(signature)) =
        (find("expires").map(|e| e.parse::<i64>()), find("signature"))
    else {
        return refuse("This link is not valid.");
    };
    if let Err(why) = service
        .signer()
        .check(account, expires, &signature, Utc::now())
    {
        return refuse(why);
    }
    match service
        .store()
        .list_assets(
            account,
            None,
            false,
            Page {
                skip: 0,
                take: 10_000,
            },
        )
        .await
    {
        Ok(assets) => {
            let until = DateTime::from_timestamp(expires, 0).unwrap_or_default();
            Html(portal::page(account, &assets, until)).into_response()
        }
        Err(e) => {
            tracing::error!(error = %e, "portal page");
            (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response()
        }
    }
}
