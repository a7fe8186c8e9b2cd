//! Streaming throughput and allocations (issue 32), through the crates of
//! tests/fixtures/streaming-3.1.yaml on 127.0.0.1. Run with
//! `cargo bench -p integration-tests --bench stream`; it prints one line per measure.
//!
//! - `generated server -> generated client`: small events (`{"seq":N}`) written by the generated
//!   server's `EventStream` and decoded by the generated client's `send_stream`, the server's
//!   events all ready (an iterator: they go out many to a chunk).
//! - `... fed through a channel`: the same, the events sent one by one by another task through a
//!   channel, as a server relaying a producer does.
//! - `raw body -> generated client`: the same events pre-rendered as one body, so the figure is the
//!   client's alone, with the heap allocations made while the client reads them (counted by this
//!   binary's allocator): streaming should add none per event beyond decoding, which for these
//!   events allocates nothing.

use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use futures_util::StreamExt;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use streaming_client::Client;
use streaming_server::stream::{Event, EventStream, ItemStream};
use streaming_server::*;

/// Counts allocations, so the client's per-event cost can be read off.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the counter has no effect on
// the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's pointer, layout and size.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const EVENTS: i64 = 200_000;

/// Answers `GET /ticks` with `limit` small events; the other operations are not measured.
struct Ticks;

impl StreamsApi for Ticks {
    fn rejection(&self, rejection: &Rejection) -> models::Problem {
        models::Problem {
            message: rejection.message.clone(),
        }
    }

    async fn watch_ticks(&self, request: WatchTicksRequest) -> WatchTicksResponse {
        let limit = i64::from(request.limit.unwrap_or(1));
        if request.last_event_id.as_deref() == Some("channel") {
            let (sender, receiver) = tokio::sync::mpsc::channel(256);
            tokio::spawn(async move {
                for seq in 0..limit {
                    let tick = Event::new(models::Tick { seq, note: None });
                    if sender.send(tick).await.is_err() {
                        break;
                    }
                }
            });
            let ticks = futures_util::stream::unfold(receiver, |mut receiver| async move {
                receiver.recv().await.map(|tick| (tick, receiver))
            });
            return WatchTicksResponse::Ok(EventStream::new(ticks).done("[DONE]"));
        }
        let ticks = (0..limit).map(|seq| Event::new(models::Tick { seq, note: None }));
        WatchTicksResponse::Ok(EventStream::new(futures_util::stream::iter(ticks)).done("[DONE]"))
    }

    async fn create_chat(&self, _request: CreateChatRequest) -> CreateChatResponse {
        CreateChatResponse::Ok(models::ChatAnswer {
            text: String::new(),
        })
    }

    async fn export_logs(&self, _request: ExportLogsRequest) -> ExportLogsResponse {
        ExportLogsResponse::Ok(ItemStream::new(futures_util::stream::empty()))
    }

    async fn export_metrics(&self, _request: ExportMetricsRequest) -> ExportMetricsResponse {
        ExportMetricsResponse::Ok(ItemStream::new(futures_util::stream::empty()))
    }

    async fn export_records(&self, _request: ExportRecordsRequest) -> ExportRecordsResponse {
        ExportRecordsResponse::Ok(ItemStream::new(futures_util::stream::empty()))
    }
}

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
    format!("http://{address}")
}

/// Reads `EVENTS` events of `GET /ticks`, fed through a channel if asked; the time and the
/// allocations made meanwhile.
async fn read_all(client: &Client, channel: bool) -> (Duration, u64) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let started = Instant::now();
    let request = client.watch_ticks().limit(EVENTS as i32);
    let request = if channel {
        request.last_event_id("channel")
    } else {
        request
    };
    let mut stream = request.send_stream().await.expect("stream");
    let mut expected = 0;
    while let Some(event) = stream.next().await {
        assert_eq!(event.expect("decoded").data.seq, expected);
        expected += 1;
    }
    assert_eq!(expected, EVENTS);
    (
        started.elapsed(),
        ALLOCATIONS.load(Ordering::Relaxed) - before,
    )
}

fn report(what: &str, runs: &[(Duration, u64)]) {
    let mut rates: Vec<f64> = runs
        .iter()
        .map(|(time, _)| EVENTS as f64 / time.as_secs_f64())
        .collect();
    rates.sort_by(f64::total_cmp);
    let allocations = runs.iter().map(|(_, a)| *a).min().unwrap_or_default();
    println!(
        "{what:<40} {:>9.0} events/s (median of {}; min {:.0}, max {:.0}), {:.3} allocations/event (fewest)",
        rates[rates.len() / 2],
        rates.len(),
        rates[0],
        rates[rates.len() - 1],
        allocations as f64 / EVENTS as f64,
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let generated = Client::new(serve(router(Arc::new(Ticks))).await).expect("client");

        let mut body = Vec::new();
        for seq in 0..EVENTS {
            body.extend_from_slice(format!("data: {{\"seq\":{seq}}}\n\n").as_bytes());
        }
        body.extend_from_slice(b"data: [DONE]\n\n");
        let body = axum::body::Bytes::from(body);
        let raw = axum::Router::new().route(
            "/ticks",
            axum::routing::get(move || {
                let body = body.clone();
                async move {
                    Response::builder()
                        .header(header::CONTENT_TYPE, "text/event-stream")
                        .body(Body::from(body))
                        .expect("response")
                }
            }),
        );
        let raw = Client::new(serve(raw).await).expect("client");

        let mut served = Vec::new();
        let mut relayed = Vec::new();
        let mut client_only = Vec::new();
        for _ in 0..5 {
            served.push(read_all(&generated, false).await);
            relayed.push(read_all(&generated, true).await);
            client_only.push(read_all(&raw, false).await);
        }
        report("generated server -> generated client", &served);
        report("... fed through a channel", &relayed);
        report("raw body -> generated client", &client_only);
    });
}
