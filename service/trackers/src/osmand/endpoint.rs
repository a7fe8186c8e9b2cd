//! The OsmAnd endpoint: an axum router that takes a report in any of the forms Traccar's OsmAnd
//! protocol reads (a GET or POST with query parameters, a form body, or the Traccar Client's
//! JSON), has the [`Ingest`] store it, and answers:
//!
//! - `200` once the report is stored, or judged and not stored for a reason the device cannot
//!   change by sending it again (too old, too far in the future), or a duplicate;
//! - `400` for a request that is not a report, or whose values are out of range (the reason in
//!   the body, as text);
//! - `404` for an `id` that is no asset's `deviceId` (Traccar answers 400 or 404 by form; one
//!   answer for both here, so a client can tell a typo from a bad request);
//! - `429` to an address that sent more than 10 unknown ids in a minute, until the minute ends
//!   (ids cannot be guessed quickly);
//! - `503` when the report could not be stored (the app sends it again).
//!
//! A report without a timestamp is stamped with the time it arrived, as Traccar does.

use super::{DeviceReport, from_json, from_query};
use crate::Ingest;
use crate::failures::Failures;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::any;
use axum::serve::ListenerExt;
use chrono::Utc;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// The largest body read (a Traccar Client report is a few hundred bytes).
const MAX_BODY: usize = 64 * 1024;

/// Unknown ids one address may send per window before it is answered 429.
const UNKNOWN_IDS: u32 = 10;
const UNKNOWN_WINDOW: Duration = Duration::from_secs(60);

/// Serves reports on `listener` until `shutdown` resolves, then lets requests in flight finish.
pub async fn serve<I: Ingest>(
    listener: TcpListener,
    ingest: Arc<I>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = router(ingest).into_make_service_with_connect_info::<SocketAddr>();
    // A small answer must not wait for the client's delayed ACK of the one before (Nagle).
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
}

/// The router: every path, GET or POST, as OsmAnd clients are configured with a bare URL.
/// Served with the peer's address ([`serve`]), which the limit on unknown ids needs: a request
/// that reaches it otherwise (tests, fuzzing) carries a [`ConnectInfo<SocketAddr>`] extension.
pub fn router<I: Ingest>(ingest: Arc<I>) -> Router {
    let failures = Arc::new(Failures::new(UNKNOWN_IDS, UNKNOWN_WINDOW));
    Router::new()
        .fallback(any(report::<I>))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state((ingest, failures))
}

async fn report<I: Ingest>(
    State((ingest, failures)): State<(Arc<I>, Arc<Failures>)>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, String) {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let parsed = if json {
        from_json(&body)
    } else {
        match query.as_deref().filter(|q| !q.is_empty()) {
            Some(query) => from_query(query),
            // A form body, as some clients POST it.
            None => from_query(&String::from_utf8_lossy(&body)),
        }
    };
    let DeviceReport {
        device_id,
        mut report,
    } = match parsed {
        Ok(report) => report,
        Err(e) => return (StatusCode::BAD_REQUEST, e.to_string()),
    };
    if failures.limited(peer.ip()) {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "too many unknown ids from this address; try again in a minute".to_owned(),
        );
    }
    if !ingest.knows(&device_id).await {
        failures.record(peer.ip());
        return (
            StatusCode::NOT_FOUND,
            format!("unknown device `{device_id}`"),
        );
    }
    report.timestamp.get_or_insert_with(Utc::now);
    match ingest.store(&device_id, vec![report]).await {
        Ok(stored) => match stored.rejected.into_iter().next() {
            Some(rejection) if rejection.invalid => (StatusCode::BAD_REQUEST, rejection.message),
            _ => (StatusCode::OK, String::new()),
        },
        Err(e) => {
            tracing::warn!(device_id, error = %e, "osmand: report not stored");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "not stored; send it again".to_owned(),
            )
        }
    }
}
