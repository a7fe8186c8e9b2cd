//! Streamed answers: Server-Sent Events (axum's `Sse`, with keep-alive comments while the stream
//! is idle) and line-delimited JSON (JSON Lines, NDJSON, RFC 7464's `application/json-seq`), each
//! item written as the implementation yields it. Copied verbatim by openapi-gen into servers whose
//! document streams.

use axum::body::{Body, Bytes};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::sse::{self, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt};
use serde::Serialize;
use std::convert::Infallible;
use std::fmt;
use std::pin::Pin;
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

fn sse_event<T: Serialize>(event: Event<T>) -> Result<sse::Event, Infallible> {
    // The models always encode; a value that does not (a map with non-string keys) is sent as an
    // `error` event rather than cutting the stream.
    let mut out = match serde_json::to_string(&event.data) {
        Ok(data) => sse::Event::default().data(data),
        Err(error) => sse::Event::default()
            .event("error")
            .data(error.to_string().replace(['\n', '\r'], " ")),
    };
    if let Some(name) = event.event.filter(|name| is_line(name)) {
        out = out.event(name);
    }
    if let Some(id) = event.id.filter(|id| is_line(id) && !id.contains('\0')) {
        out = out.id(id);
    }
    if let Some(retry) = event.retry {
        out = out.retry(retry);
    }
    Ok(out)
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
    let tail =
        futures_util::stream::iter(done.map(|sentinel| Ok(sse::Event::default().data(sentinel))));
    let mut response = Sse::new(events.map(sse_event).chain(tail))
        .keep_alive(KeepAlive::new().interval(keep_alive))
        .into_response();
    *response.status_mut() = status;
    response
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
    let body = Body::from_stream(stream.items.map(move |item| {
        let mut line = Vec::with_capacity(128);
        if delimiter == Delimiter::RecordSeparator {
            line.push(0x1E);
        }
        // As for events: an item the models cannot encode is a `null` rather than a cut stream.
        if serde_json::to_writer(&mut line, &item).is_err() {
            line.truncate(usize::from(delimiter == Delimiter::RecordSeparator));
            line.extend_from_slice(b"null");
        }
        line.push(b'\n');
        Ok::<_, Infallible>(Bytes::from(line))
    }));
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
