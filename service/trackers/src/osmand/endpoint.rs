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
//! - `503` when the report could not be stored (the app sends it again).
//!
//! A report without a timestamp is stamped with the time it arrived, as Traccar does.

use super::{DeviceReport, from_json, from_query};
use crate::Ingest;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::any;
use chrono::Utc;
use std::sync::Arc;

/// The largest body read (a Traccar Client report is a few hundred bytes).
const MAX_BODY: usize = 64 * 1024;

/// The router: every path, GET or POST, as OsmAnd clients are configured with a bare URL.
pub fn router<I: Ingest>(ingest: Arc<I>) -> Router {
    Router::new()
        .fallback(any(report::<I>))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(ingest)
}

async fn report<I: Ingest>(
    State(ingest): State<Arc<I>>,
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
    if !ingest.knows(&device_id).await {
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
