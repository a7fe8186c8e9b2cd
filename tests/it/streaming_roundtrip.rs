//! The crates generated from tests/fixtures/streaming-3.1.yaml (tests/generated/streaming), over
//! real HTTP on 127.0.0.1: an event stream that the client resumes with `Last-Event-ID` after the
//! server closes it, an operation answering JSON or (asked for) an event stream ending in
//! `[DONE]`, items decoded before the server has sent the next, a dropped stream closing the
//! connection, and JSON Lines, NDJSON and JSON text sequences. Every wait is bounded.

use futures_util::StreamExt;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use streaming_client::{Client, Error};
use streaming_server::stream::{Event, EventStream, ItemStream};
use streaming_server::*;
use tokio::sync::{mpsc, oneshot};

/// How long any one step may take before the test fails instead of hanging.
const BOUND: Duration = Duration::from_secs(10);

/// Ticks sent per connection before the server closes the stream (without `[DONE]`).
const PER_CONNECTION: i64 = 3;

#[derive(Default)]
struct Streams {
    /// The `Last-Event-ID` of every `GET /ticks`.
    resumed_after: Mutex<Vec<Option<String>>>,
    /// The chunks of the next streamed chat answer, sent by the test one by one.
    chat_chunks: Mutex<Option<mpsc::Receiver<models::ChatChunk>>>,
    /// Fired when the body of an endless tick stream is dropped (its connection closed).
    dropped: Mutex<Option<oneshot::Sender<()>>>,
}

/// Fires its sender when dropped: the server stopped writing the stream.
struct OnDrop(Option<oneshot::Sender<()>>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(sender) = self.0.take() {
            let _ = sender.send(());
        }
    }
}

fn log_lines() -> Vec<models::LogLine> {
    ["starting", "ready", "line\nbreak \u{1e} and RS"]
        .iter()
        .map(|message| models::LogLine {
            level: "info".into(),
            message: (*message).into(),
        })
        .collect()
}

impl StreamsApi for Streams {
    fn rejection(&self, rejection: &Rejection) -> models::Problem {
        models::Problem {
            message: rejection.message.clone(),
        }
    }

    async fn watch_ticks(&self, request: WatchTicksRequest) -> WatchTicksResponse {
        self.resumed_after
            .lock()
            .unwrap()
            .push(request.last_event_id.clone());
        // `limit: 99` asks for an endless stream, to see it closed when the client drops it.
        if request.limit == Some(99) {
            let guard = OnDrop(self.dropped.lock().unwrap().take());
            let ticks = futures_util::stream::unfold((0, guard), |(seq, guard)| async move {
                tokio::time::sleep(Duration::from_millis(5)).await;
                let tick = Event::new(models::Tick { seq, note: None });
                Some((tick, (seq + 1, guard)))
            });
            return WatchTicksResponse::Ok(EventStream::new(ticks));
        }
        // `limit: 98` idles before its one tick, to see keep-alive comments meanwhile.
        if request.limit == Some(98) {
            let tick = futures_util::stream::once(async {
                tokio::time::sleep(Duration::from_millis(150)).await;
                Event::new(models::Tick { seq: 0, note: None })
            });
            let stream = EventStream::new(tick)
                .keep_alive(Duration::from_millis(20))
                .done("[DONE]");
            return WatchTicksResponse::Ok(stream);
        }
        let limit = i64::from(request.limit.unwrap_or(6));
        let after: i64 = request
            .last_event_id
            .as_deref()
            .map_or(0, |id| id.parse().expect("an id this server sent"));
        let last = limit.min(after + PER_CONNECTION);
        let ticks = (after + 1..=last).map(|seq| {
            let event = Event::new(models::Tick {
                seq,
                note: Some(format!("tick {seq}")),
            })
            .event("tick")
            .id(seq.to_string());
            // The first event asks for a short reconnection delay.
            if seq == 1 {
                event.retry(Duration::from_millis(20))
            } else {
                event
            }
        });
        let stream = EventStream::new(futures_util::stream::iter(ticks.collect::<Vec<_>>()));
        WatchTicksResponse::Ok(if last == limit {
            stream.done("[DONE]")
        } else {
            stream
        })
    }

    async fn create_chat(&self, request: CreateChatRequest) -> CreateChatResponse {
        if request.body.stream != Some(true) {
            return CreateChatResponse::Ok(models::ChatAnswer {
                text: format!("echo: {}", request.body.prompt),
            });
        }
        let chunks = self.chat_chunks.lock().unwrap().take().expect("chunks");
        let events = futures_util::stream::unfold(chunks, |mut chunks| async move {
            chunks.recv().await.map(|chunk| (Event::new(chunk), chunks))
        });
        CreateChatResponse::OkStream(EventStream::new(events).done("[DONE]"))
    }

    async fn export_logs(&self, _request: ExportLogsRequest) -> ExportLogsResponse {
        ExportLogsResponse::Ok(ItemStream::new(futures_util::stream::iter(log_lines())))
    }

    async fn export_metrics(&self, _request: ExportMetricsRequest) -> ExportMetricsResponse {
        let metrics = (0..3).map(|i| models::ExportMetricsStreamItem {
            name: format!("m{i}"),
            value: f64::from(i) / 2.0,
        });
        ExportMetricsResponse::Ok(ItemStream::new(futures_util::stream::iter(
            metrics.collect::<Vec<_>>(),
        )))
    }

    async fn export_records(&self, _request: ExportRecordsRequest) -> ExportRecordsResponse {
        ExportRecordsResponse::Ok(ItemStream::new(futures_util::stream::iter(log_lines())))
    }
}

async fn serve(api: Arc<Streams>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        axum::serve(listener, router(api))
            .await
            .expect("server runs")
    });
    format!("http://{address}")
}

async fn bounded<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, future)
        .await
        .unwrap_or_else(|_| panic!("{what} took more than {BOUND:?}"))
}

#[tokio::test]
async fn an_event_stream_resumes_after_the_last_id_and_ends_at_done() {
    let api = Arc::new(Streams::default());
    let client = Client::new(serve(api.clone()).await).expect("client");

    // Without reconnecting, the stream ends where the server closed it.
    let ticks: Vec<_> = bounded("a stream", async {
        client
            .watch_ticks()
            .send_stream()
            .await
            .expect("stream")
            .collect::<Vec<_>>()
            .await
    })
    .await;
    let first = ticks[0].as_ref().expect("decoded");
    assert_eq!(first.event.as_deref(), Some("tick"));
    assert_eq!(first.id.as_deref(), Some("1"));
    assert_eq!(first.retry, Some(Duration::from_millis(20)));
    assert_eq!(first.data.note.as_deref(), Some("tick 1"));
    let seqs: Vec<i64> = ticks.iter().map(|t| t.as_ref().unwrap().data.seq).collect();
    assert_eq!(seqs, [1, 2, 3]);

    // Reconnecting, it asks again after the last id it saw, `retry` later, until `[DONE]`.
    api.resumed_after.lock().unwrap().clear();
    let ticks: Vec<_> = bounded("a reconnecting stream", async {
        client
            .watch_ticks()
            .limit(7)
            .send_stream_reconnecting()
            .await
            .expect("stream")
            .collect::<Vec<_>>()
            .await
    })
    .await;
    let seqs: Vec<i64> = ticks.iter().map(|t| t.as_ref().unwrap().data.seq).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(
        *api.resumed_after.lock().unwrap(),
        [None, Some("3".to_owned()), Some("6".to_owned())]
    );

    // A stream-only operation answers the stream when awaited, and a set `Last-Event-ID` is sent.
    let ticks: Vec<_> = bounded("an awaited stream", async {
        let stream = client
            .watch_ticks()
            .limit(5)
            .last_event_id("4")
            .await
            .expect("stream");
        stream.collect::<Vec<_>>().await
    })
    .await;
    let seqs: Vec<i64> = ticks.iter().map(|t| t.as_ref().unwrap().data.seq).collect();
    assert_eq!(seqs, [5]);

    // A documented error status is the operation's error, before any stream.
    match client.watch_ticks().limit(0).send_stream().await {
        Err(Error::Api { status, body }) => {
            assert_eq!(status.as_u16(), 400);
            assert!(!body.message.is_empty());
        }
        other => panic!("expected the documented 400, got {other:?}"),
    }
}

#[tokio::test]
async fn items_are_decoded_as_they_arrive_and_json_stays_the_default() {
    let api = Arc::new(Streams::default());
    let client = Client::new(serve(api.clone()).await).expect("client");
    let request = |stream| models::ChatRequest {
        prompt: "hi".into(),
        stream,
    };

    // The JSON alternative stays what `.await` answers.
    let answer = client.create_chat(request(None)).await.expect("answer");
    assert_eq!(answer.text, "echo: hi");

    // The stream, chosen explicitly: each chunk is decoded before the server sends the next.
    let (sender, chunks) = mpsc::channel(1);
    *api.chat_chunks.lock().unwrap() = Some(chunks);
    let mut stream = client
        .create_chat(request(Some(true)))
        .send_stream()
        .await
        .expect("stream");
    for index in 0..3 {
        let chunk = models::ChatChunk {
            index,
            delta: format!("part {index}"),
        };
        sender.send(chunk.clone()).await.expect("server reads");
        let event = bounded("a chunk", stream.next()).await.expect("an event");
        assert_eq!(event.expect("decoded").data, chunk);
    }
    drop(sender);
    // `[DONE]` ends the stream: no event for it.
    assert!(bounded("the end", stream.next()).await.is_none());
}

#[tokio::test]
async fn dropping_a_stream_closes_the_connection() {
    let api = Arc::new(Streams::default());
    let client = Client::new(serve(api.clone()).await).expect("client");
    let (closed, dropped) = oneshot::channel();
    *api.dropped.lock().unwrap() = Some(closed);
    let mut stream = client
        .watch_ticks()
        .limit(99)
        .send_stream()
        .await
        .expect("stream");
    let first = bounded("a tick", stream.next()).await.expect("an event");
    assert_eq!(first.expect("decoded").data.seq, 0);
    drop(stream);
    bounded("the server to stop writing", dropped)
        .await
        .expect("the stream's guard fired");
}

#[tokio::test]
async fn an_idle_event_stream_sends_keep_alive_comments() {
    let base = serve(Arc::new(Streams::default())).await;
    let response = bounded("the answer", reqwest::get(format!("{base}/ticks?limit=98")))
        .await
        .expect("sent");
    assert_eq!(
        response.headers()[reqwest::header::CONTENT_TYPE],
        "text/event-stream"
    );
    let text = bounded("the body", response.text()).await.expect("body");
    let (idle, rest) = text.split_once("data: ").expect("an event");
    assert!(idle.starts_with(":\n\n:\n\n"), "{text:?}");
    assert_eq!(rest, "{\"seq\":0}\n\ndata: [DONE]\n\n");
}

#[tokio::test]
async fn json_lines_ndjson_and_json_text_sequences_round_trip() {
    let client = Client::new(serve(Arc::new(Streams::default())).await).expect("client");
    let logs: Vec<_> = bounded("JSON Lines", async {
        client.export_logs().await.expect("stream").collect().await
    })
    .await;
    let logs: Vec<_> = logs.into_iter().map(|l| l.expect("decoded")).collect();
    assert_eq!(logs, log_lines());

    let records: Vec<_> = bounded("a JSON text sequence", async {
        client
            .export_records()
            .await
            .expect("stream")
            .collect()
            .await
    })
    .await;
    let records: Vec<_> = records.into_iter().map(|l| l.expect("decoded")).collect();
    assert_eq!(records, log_lines());

    let metrics: Vec<_> = bounded("NDJSON", async {
        client
            .export_metrics()
            .await
            .expect("stream")
            .collect()
            .await
    })
    .await;
    let values: Vec<(String, f64)> = metrics
        .into_iter()
        .map(|m| m.expect("decoded"))
        .map(|m| (m.name, m.value))
        .collect();
    assert_eq!(
        values,
        [("m0".into(), 0.0), ("m1".into(), 0.5), ("m2".into(), 1.0)]
    );
}
