//! Streamed answers: Server-Sent Events (with keep-alive comments while the stream is idle) and
//! line-delimited JSON (JSON Lines, NDJSON, RFC 7464's `application/json-seq`), each item written
//! as the implementation yields it. Written here rather than with axum's `Sse`, which makes an HTTP
//! chunk and several allocations of every event: items that are ready together go out in one chunk
//! written into one buffer, which is what lets small events reach 100,000s a second. Copied
//! verbatim by openapi-gen into servers whose document streams.

use axum::body::Bytes;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use futures_util::Stream;
use serde::Serialize;
use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// One Server-Sent Event: its `data` (written as JSON) and the fields that go with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event<T> {
    /// `event`: the event's type (`message` when `None`).
    pub event: Option<String>,
    /// `id`: what a client that reconnects sends back as `Last-Event-ID`.
    pub id: Option<String>,
    /// `retry`: how long a client waits before it reconnects.
    pub retry: Option<Duration>,
    /// `data`, written as one line of JSON.
    pub data: T,
}

impl<T> Event<T> {
    /// An event of type `message` carrying `data`.
    pub fn new(data: T) -> Self {
        Event {
            event: None,
            id: None,
            retry: None,
            data,
        }
    }

    /// Sets `event`, the event's type. A name with a line break is not written.
    pub fn event(mut self, event: impl Into<String>) -> Self {
        self.event = Some(event.into());
        self
    }

    /// Sets `id`. An id with a line break or NUL is not written.
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Sets `retry`.
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = Some(retry);
        self
    }
}

impl<T> From<T> for Event<T> {
    fn from(data: T) -> Self {
        Event::new(data)
    }
}

/// The events of a `text/event-stream` answer, written as the stream yields them.
pub struct EventStream<T> {
    events: Pin<Box<dyn Stream<Item = Event<T>> + Send>>,
    done: Option<&'static str>,
    keep_alive: Duration,
}

impl<T> EventStream<T> {
    /// The events `events` yields; the answer ends when it does.
    pub fn new(events: impl Stream<Item = Event<T>> + Send + 'static) -> Self {
        EventStream {
            events: Box::pin(events),
            done: None,
            keep_alive: Duration::from_secs(15),
        }
    }

    /// Ends the answer with one more event whose data is `sentinel` as it is (`[DONE]`, as
    /// OpenAI's streams end), which tells clients the stream is complete.
    pub fn done(mut self, sentinel: &'static str) -> Self {
        self.done = Some(sentinel);
        self
    }

    /// How long the stream may stay idle before a keep-alive comment is sent (15 s by default).
    pub fn keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = interval;
        self
    }
}

impl<T> fmt::Debug for EventStream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// The items of a line-delimited answer, written as the stream yields them.
pub struct ItemStream<T> {
    items: Pin<Box<dyn Stream<Item = T> + Send>>,
}

impl<T> ItemStream<T> {
    /// The items `items` yields; the answer ends when it does.
    pub fn new(items: impl Stream<Item = T> + Send + 'static) -> Self {
        ItemStream {
            items: Box::pin(items),
        }
    }
}

impl<T> fmt::Debug for ItemStream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ItemStream").finish_non_exhaustive()
    }
}

fn is_line(text: &str) -> bool {
    !text.contains(['\n', '\r'])
}

/// Writes one event: its fields, then its data as one line of JSON (JSON escapes line breaks).
fn write_event<T: Serialize>(out: &mut Vec<u8>, event: Event<T>) {
    if let Some(name) = event.event.filter(|name| is_line(name)) {
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
    }
    if let Some(id) = event.id.filter(|id| is_line(id) && !id.contains('\0')) {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    if let Some(retry) = event.retry {
        // Writing a number into a Vec cannot fail.
        let _ = writeln!(out, "retry: {}", retry.as_millis());
    }
    let start = out.len();
    out.extend_from_slice(b"data: ");
    // The models always encode; a value that does not (a map with non-string keys) is sent as an
    // `error` event rather than cutting the stream.
    if let Err(error) = serde_json::to_writer(&mut *out, &event.data) {
        out.truncate(start);
        let message = error.to_string().replace(['\n', '\r'], " ");
        let _ = write!(out, "event: error\ndata: {message}");
    }
    out.extend_from_slice(b"\n\n");
}

/// Writes one item of a line-delimited body.
fn write_line<T: Serialize>(out: &mut Vec<u8>, item: T, delimiter: Delimiter) {
    if delimiter == Delimiter::RecordSeparator {
        out.push(0x1E);
    }
    let start = out.len();
    // As for events: an item the models cannot encode is a `null` rather than a cut stream.
    if serde_json::to_writer(&mut *out, &item).is_err() {
        out.truncate(start);
        out.extend_from_slice(b"null");
    }
    out.push(b'\n');
}

/// Writes one item into a chunk.
type Encode<T> = Box<dyn Fn(&mut Vec<u8>, T) + Send + Sync>;

/// How many bytes of ready items go out in one chunk at most.
const CHUNK: usize = 16 * 1024;

/// The body of a streamed answer: items written as they come, those that are ready together in one
/// chunk (one buffer and one write for many small items, where a chunk an item would cost more
/// than the items themselves), and, while the stream is idle, a keep-alive comment every
/// `keep_alive` interval.
struct Chunks<T> {
    items: Pin<Box<dyn Stream<Item = T> + Send>>,
    write: Encode<T>,
    /// Written after the last item.
    tail: Option<Vec<u8>>,
    keep_alive: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
    done: bool,
}

impl<T> Stream for Chunks<T> {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let mut out = Vec::new();
        loop {
            match this.items.as_mut().poll_next(cx) {
                Poll::Ready(Some(item)) => {
                    (this.write)(&mut out, item);
                    if out.len() >= CHUNK {
                        break;
                    }
                }
                Poll::Ready(None) => {
                    this.done = true;
                    if let Some(tail) = this.tail.take() {
                        out.extend_from_slice(&tail);
                    }
                    break;
                }
                Poll::Pending if !out.is_empty() => break,
                Poll::Pending => {
                    let Some((interval, timer)) = this.keep_alive.as_mut() else {
                        return Poll::Pending;
                    };
                    if timer.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    out.extend_from_slice(b":\n\n");
                    timer
                        .as_mut()
                        .reset(tokio::time::Instant::now() + *interval);
                    return Poll::Ready(Some(Ok(Bytes::from(out))));
                }
            }
        }
        // Something was written: the next keep-alive is an interval from now.
        if let Some((interval, timer)) = this.keep_alive.as_mut() {
            timer
                .as_mut()
                .reset(tokio::time::Instant::now() + *interval);
        }
        if out.is_empty() {
            return Poll::Ready(None);
        }
        Poll::Ready(Some(Ok(Bytes::from(out))))
    }
}

fn streamed(
    status: StatusCode,
    content_type: &'static str,
    body: impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static,
) -> Response {
    let mut response = Response::new(axum::body::Body::from_stream(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A `text/event-stream` answer.
pub fn events<T: Serialize + Send + 'static>(
    status: StatusCode,
    stream: EventStream<T>,
) -> Response {
    let EventStream {
        events,
        done,
        keep_alive,
    } = stream;
    let body = Chunks {
        items: events,
        write: Box::new(write_event),
        // A sentinel with a line break is not written.
        tail: done
            .filter(|sentinel| is_line(sentinel))
            .map(|sentinel| format!("data: {sentinel}\n\n").into_bytes()),
        keep_alive: Some((keep_alive, Box::pin(tokio::time::sleep(keep_alive)))),
        done: false,
    };
    streamed(status, "text/event-stream", body)
}

/// How items are separated in a line-delimited answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delimiter {
    /// JSON Lines and NDJSON: one JSON text a line.
    Line,
    /// RFC 7464 (`application/json-seq`): a record separator (0x1E), the JSON text, a line feed.
    RecordSeparator,
}

/// A JSON Lines, NDJSON or `application/json-seq` answer of media type `content_type`.
pub fn lines<T: Serialize + Send + 'static>(
    status: StatusCode,
    content_type: &'static str,
    delimiter: Delimiter,
    stream: ItemStream<T>,
) -> Response {
    let body = Chunks {
        items: stream.items,
        write: Box::new(move |out: &mut Vec<u8>, item: T| write_line(out, item, delimiter)),
        tail: None,
        keep_alive: None,
        done: false,
    };
    streamed(status, content_type, body)
}
