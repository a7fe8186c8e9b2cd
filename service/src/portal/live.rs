//! The portal page's live events. Its inline script follows this stream with EventSource, which
//! cannot send an access token, so the stream is authorised by the page's signed link; each new
//! event comes as the table row the page itself renders, and the script puts it on top.

use super::PortalQuery;
use super::view::{LIVE_SCRIPT, LinkAuth, event_row};
use crate::api::{ApiError, Service};
use crate::live::{HEARTBEAT, parse_last_event_id, sse_event};
use crate::store::alerts::EventFilter;
use crate::store::{Database, Store};
use asset_alerting_server::stream;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use chrono::Utc;
use futures_util::StreamExt;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use uuid::Uuid;

/// What the page's script receives for one new event.
#[derive(Serialize)]
struct LiveRow {
    id: Uuid,
    /// The row, escaped and rendered as the page renders its table.
    html: String,
}

/// The page's stream (relative to the page), starting after stream position `after`.
pub fn stream_url(account: Uuid, auth: &LinkAuth, after: i64) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("expires", &auth.expires.to_string())
        .append_pair("signature", &auth.signature)
        .append_pair("after", &after.to_string())
        .finish();
    format!("{account}/events?{query}")
}

/// The page's CSP, which allows its one inline script (by hash) and its stream (same origin).
pub fn allow_live_script(mut response: Response) -> Response {
    static POLICY: OnceLock<HeaderValue> = OnceLock::new();
    let policy = POLICY.get_or_init(|| {
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(LIVE_SCRIPT));
        HeaderValue::from_str(&format!(
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; \
             script-src 'sha256-{hash}'; connect-src 'self'; form-action 'self'; \
             frame-ancestors 'none'"
        ))
        .expect("a base64 hash is a valid header value")
    });
    response
        .headers_mut()
        .insert(header::CONTENT_SECURITY_POLICY, policy.clone());
    response
}

fn text(status: StatusCode, message: &str) -> Response {
    let mut response = (status, message.to_owned()).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `GET /portal/{accountId}/events?expires=..&signature=..&after=..`: the account's events after
/// `after` (or after `Last-Event-ID`, when EventSource reconnects) as they are stored.
pub async fn live_events(
    State(service): State<Arc<Service<Database>>>,
    Path(account): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let raw = query.unwrap_or_default();
    let (Ok(account), Some(link)) = (Uuid::parse_str(&account), PortalQuery::parse(&raw)) else {
        return text(StatusCode::FORBIDDEN, "This link is not valid.");
    };
    if let Err(why) = service
        .signer()
        .check(account, link.expires, &link.signature, Utc::now())
    {
        return text(StatusCode::FORBIDDEN, why);
    }
    let after = form_urlencoded::parse(raw.as_bytes())
        .find(|(k, _)| k == "after")
        .map(|(_, v)| v.into_owned());
    let header = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(parse_last_event_id);
    let after = match (header, after.as_deref().map(parse_last_event_id)) {
        // The header wins: EventSource sends it when it reconnects.
        (Some(Ok(Some(position))), _) => Some(position),
        (Some(Err(why)), _) | (_, Some(Err(why))) => {
            return text(StatusCode::BAD_REQUEST, &why);
        }
        (_, Some(Ok(position))) => position,
        (_, None) => None,
    };
    // The stream ends when the link does; the page's EventSource then gets 403 on reconnecting.
    let left = (link.expires - Utc::now().timestamp()).max(0) as u64;
    match rows(service, account, after).await {
        Ok(Some(rows)) => {
            let events = rows
                .take_until(tokio::time::sleep(std::time::Duration::from_secs(left)))
                .enumerate()
                .map(|(i, (position, row))| sse_event(position, row, i == 0));
            let mut response = stream::events(
                StatusCode::OK,
                stream::EventStream::new(events).keep_alive(HEARTBEAT),
            );
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Ok(None) => text(StatusCode::NOT_FOUND, "This account does not exist."),
        Err(e @ ApiError::TooManyStreams) => text(StatusCode::TOO_MANY_REQUESTS, &e.body().message),
        Err(e) => {
            tracing::error!(error = ?e, "portal live events");
            text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Not available; try again.",
            )
        }
    }
}

/// The account's new events as rows of the page; `None` when the account does not exist.
async fn rows(
    service: Arc<Service<Database>>,
    account: Uuid,
    after: Option<i64>,
) -> Result<Option<impl futures_util::Stream<Item = (i64, LiveRow)> + Send>, ApiError> {
    let store = service.store();
    if store.account(account).await?.is_none() {
        return Ok(None);
    }
    let zones: Arc<HashMap<Uuid, String>> = Arc::new(
        store
            .list_geofences(account)
            .await?
            .into_iter()
            .map(|g| (g.id, g.name))
            .collect(),
    );
    let events = service
        .follow_events(account, EventFilter::default(), after)
        .await?;
    Ok(Some(events.then(move |(position, event)| {
        let (service, zones) = (service.clone(), zones.clone());
        async move {
            // A name that cannot be read shows the asset id instead.
            let name = match service.store().asset(account, event.asset_id).await {
                Ok(asset) => asset.map(|a| a.name),
                Err(_) => None,
            };
            let zone_names: HashMap<Uuid, &str> = zones
                .iter()
                .map(|(id, name)| (*id, name.as_str()))
                .collect();
            let html = event_row(&event, name.as_deref(), &zone_names, Utc::now());
            (position, LiveRow { id: event.id, html })
        }
    })))
}
