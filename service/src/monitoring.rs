//! Metrics in the Prometheus text format at `GET /metrics`: requests by operation (the matched
//! route template, so the label set stays bounded) and status, their latency, telemetry points by
//! outcome, notification attempts by channel and outcome, and the open live event streams.

use crate::store::alerts::AttemptResult;
use asset_alerting_trackers::teltonika;
use axum::extract::{MatchedPath, Request};
use axum::http::header::CONTENT_TYPE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

const REQUESTS: &str = "http_requests_total";
const REQUEST_SECONDS: &str = "http_request_duration_seconds";
const TELEMETRY_POINTS: &str = "telemetry_points_total";
const NOTIFICATIONS: &str = "notification_attempts_total";
const LIVE_STREAMS: &str = "live_event_streams_open";

const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The process's recorder (the `metrics` facade has one per process), installed on first use.
pub fn handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(install).clone()
}

fn install() -> PrometheusHandle {
    let builder = || {
        PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(REQUEST_SECONDS.to_owned()), LATENCY_BUCKETS)
            .expect("the bucket list is not empty")
    };
    let handle = match builder().install_recorder() {
        Ok(handle) => handle,
        Err(e) => {
            // Another recorder was installed by whoever embeds the service: /metrics stays empty.
            tracing::warn!(error = %e, "metrics go to the recorder installed before ours");
            builder().build_recorder().handle()
        }
    };
    // Histogram samples wait in a buffer until drained; without scrapes it would grow without end.
    let upkeep = handle.clone();
    std::thread::Builder::new()
        .name("metrics-upkeep".to_owned())
        .spawn(move || {
            loop {
                std::thread::sleep(Duration::from_secs(5));
                upkeep.run_upkeep();
            }
        })
        .expect("a thread can be started");
    handle
}

/// The Teltonika listeners' counters, shown by `/metrics` (one listener a process, but an
/// embedding or a test may start several: their counts add up).
static TELTONIKA: Mutex<Vec<Arc<teltonika::Stats>>> = Mutex::new(Vec::new());

pub fn teltonika_stats(stats: Arc<teltonika::Stats>) {
    TELTONIKA
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(stats);
}

/// One of a listener's counters.
type Counter = fn(&teltonika::Stats) -> &AtomicU64;

/// Copies the listeners' counters into the recorder (they are counted where they happen, in the
/// trackers crate, which knows nothing of metrics).
fn record_teltonika() {
    let listeners = TELTONIKA
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    if listeners.is_empty() {
        return;
    }
    let sum = |counter: Counter| -> u64 {
        listeners
            .iter()
            .map(|s| counter(s).load(Ordering::Relaxed))
            .sum()
    };
    metrics::gauge!("teltonika_open_connections").set(sum(|s| &s.open_connections) as f64);
    let totals: [(&str, Counter); 7] = [
        ("connections", |s| &s.connections),
        ("packets", |s| &s.packets),
        ("records", |s| &s.records),
        ("duplicate_records", |s| &s.duplicate_records),
        ("rejected_records", |s| &s.rejected_records),
        // Miscounted by the device's firmware, read and acknowledged all the same.
        ("io_count_mismatch", |s| &s.io_count_mismatches),
        ("record_count_mismatch", |s| &s.record_count_mismatches),
    ];
    for (name, counter) in totals {
        metrics::counter!(format!("teltonika_{name}_total")).absolute(sum(counter));
    }
    // Connections closed for a reason, by reason.
    let closed: [(&str, Counter); 7] = [
        ("unknown_imei", |s| &s.refused_handshakes),
        ("rate_limited", |s| &s.rate_limited),
        ("bad_crc", |s| &s.bad_crc),
        ("malformed", |s| &s.malformed),
        ("too_large", |s| &s.too_large),
        ("timeout", |s| &s.timeouts),
        ("store_failed", |s| &s.store_failures),
    ];
    for (reason, counter) in closed {
        metrics::counter!("teltonika_closed_total", "reason" => reason).absolute(sum(counter));
    }
}

/// `GET /metrics`.
pub async fn render() -> Response {
    record_teltonika();
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        handle().render(),
    )
        .into_response()
}

/// Counts and times every request by method, operation and status.
pub async fn record_request(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let operation = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |path| path.as_str().to_owned());
    let response = next.run(request).await;
    let labels = [
        ("method", method.as_str().to_owned()),
        ("operation", operation),
        ("status", response.status().as_str().to_owned()),
    ];
    metrics::counter!(REQUESTS, &labels).increment(1);
    metrics::histogram!(REQUEST_SECONDS, &labels).record(started.elapsed().as_secs_f64());
    response
}

/// The points of one telemetry batch, by outcome.
pub fn telemetry_points(accepted: i64, duplicate: i64, rejected: i64) {
    for (status, n) in [
        ("accepted", accepted),
        ("duplicate", duplicate),
        ("rejected", rejected),
    ] {
        metrics::counter!(TELEMETRY_POINTS, "status" => status).increment(n.max(0) as u64);
    }
}

/// One notification handled by the dispatcher: an attempt's result, or `coalesced` into a digest.
pub fn notification(channel: &'static str, result: Option<&AttemptResult>) {
    let outcome = match result {
        None => "coalesced",
        Some(AttemptResult::Delivered { .. }) => "delivered",
        Some(AttemptResult::Retry { .. }) => "retry",
        Some(AttemptResult::Failed { .. }) => "failed",
        Some(AttemptResult::Skipped { .. }) => "skipped",
    };
    metrics::counter!(NOTIFICATIONS, "channel" => channel, "outcome" => outcome).increment(1);
}

/// A live event stream opened (`1.0`) or closed (`-1.0`).
pub fn live_streams(delta: f64) {
    metrics::gauge!(LIVE_STREAMS).increment(delta);
}
