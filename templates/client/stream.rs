//! Streamed answers, decoded item by item as their bytes arrive: Server-Sent Events
//! (`text/event-stream`, read as the WHATWG HTML standard says an `EventSource` reads them) and
//! line-delimited JSON (JSON Lines, NDJSON, RFC 7464's `application/json-seq`). Dropping a stream
//! drops its response, which closes the connection. Copied verbatim by openapi-gen into clients
//! whose document streams.

use crate::error::Error;
use futures_util::Stream;
use reqwest::{Response, StatusCode};
use serde::de::DeserializeOwned;
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// The `data` that ends an event stream cleanly, as OpenAI's streams end (`data: [DONE]`).
pub const DONE: &[u8] = b"[DONE]";

/// How long a reconnecting stream waits before it reconnects, until the server sends `retry`.
pub const DEFAULT_RETRY: Duration = Duration::from_secs(3);

/// One Server-Sent Event, its `data` decoded as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Event<T> {
    /// `event`: the event's type, when the server named one (`message` when it did not).
    pub event: Option<String>,
    /// `id`, when this event set one (the stream's last event id, sent back when it reconnects).
    pub id: Option<String>,
    /// `retry`, when this event carried one: how long to wait before reconnecting.
    pub retry: Option<Duration>,
    /// `data` (its lines joined with `\n`), decoded as JSON.
    pub data: T,
}

/// A stream of `I`, boxed once per response.
type Boxed<I> = Pin<Box<dyn Stream<Item = I> + Send>>;

/// Opens the stream again (a reconnecting [`Events`]): sends the request with `Last-Event-ID`
/// set to the id given, when there is one, and answers the successful response.
pub type Connect<E> = Box<
    dyn FnMut(Option<String>) -> Pin<Box<dyn Future<Output = Result<Response, Error<E>>> + Send>>
        + Send,
>;

/// The events of a `text/event-stream` answer, decoded as they arrive. The stream ends when the
/// server closes it or sends `data: [DONE]` (see [`DONE`]); a reconnecting stream (a GET
/// operation's `send_stream_reconnecting`) instead waits `retry` and asks again with
/// `Last-Event-ID`, until `[DONE]`, a `204` or a failed attempt. An event whose data does not
/// decode is an [`Error::Decode`] item; the stream goes on after it.
pub struct Events<T, E> {
    inner: Boxed<Result<Event<T>, Error<E>>>,
}

impl<T, E> Events<T, E>
where
    T: DeserializeOwned + Send + 'static,
    E: Send + 'static,
{
    /// The events of `response`, which ends the stream when it ends.
    pub fn new(response: Response) -> Self {
        Self::start(response, None)
    }

    /// The events of `response`, then of the responses `connect` answers each time the server
    /// closes the stream before `[DONE]` (or the connection fails), `retry` later.
    pub fn reconnecting(response: Response, connect: Connect<E>) -> Self {
        Self::start(response, Some(connect))
    }

    fn start(response: Response, connect: Option<Connect<E>>) -> Self {
        let state = Reader {
            status: response.status(),
            response: Some(response),
            framing: SseParser::default(),
            connect,
            finished: false,
            item: PhantomData,
        };
        Events {
            inner: Box::pin(futures_util::stream::unfold(state, Reader::next_event)),
        }
    }
}

impl<T, E> Stream for Events<T, E> {
    type Item = Result<Event<T>, Error<E>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl<T, E> fmt::Debug for Events<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Events").finish_non_exhaustive()
    }
}

/// How the items of a line-delimited answer are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delimiter {
    /// JSON Lines and NDJSON: one JSON text a line (`\n` or `\r\n`); blank lines are skipped.
    Line,
    /// RFC 7464 (`application/json-seq`): each JSON text after a record separator (0x1E).
    RecordSeparator,
}

/// The items of a JSON Lines, NDJSON or `application/json-seq` answer, decoded as they arrive.
/// An item that does not decode is an [`Error::Decode`] item; the stream goes on after it.
pub struct Lines<T, E> {
    inner: Boxed<Result<T, Error<E>>>,
}

impl<T, E> Lines<T, E>
where
    T: DeserializeOwned + Send + 'static,
    E: Send + 'static,
{
    /// The items of `response`, which ends the stream when it ends.
    pub fn new(response: Response, delimiter: Delimiter) -> Self {
        let state = Reader {
            status: response.status(),
            response: Some(response),
            framing: LineParser {
                delimiter,
                buf: Vec::new(),
                pos: 0,
                scanned: 0,
            },
            connect: None,
            finished: false,
            item: PhantomData,
        };
        Lines {
            inner: Box::pin(futures_util::stream::unfold(state, Reader::next_line)),
        }
    }
}

impl<T, E> Stream for Lines<T, E> {
    type Item = Result<T, Error<E>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl<T, E> fmt::Debug for Lines<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lines").finish_non_exhaustive()
    }
}

/// A stream being read: the response, the bytes not yet framed, and how to reconnect.
struct Reader<F, T, E> {
    status: StatusCode,
    response: Option<Response>,
    framing: F,
    connect: Option<Connect<E>>,
    finished: bool,
    item: PhantomData<fn() -> T>,
}

fn decode<T: DeserializeOwned, E>(status: StatusCode, bytes: &[u8]) -> Result<T, Error<E>> {
    serde_json::from_slice(bytes).map_err(|source| Error::Decode {
        status,
        body: String::from_utf8_lossy(bytes).into_owned(),
        source,
    })
}

impl<T: DeserializeOwned, E> Reader<SseParser, T, E> {
    async fn next_event(mut self) -> Option<(Result<Event<T>, Error<E>>, Self)> {
        loop {
            if self.finished {
                return None;
            }
            if let Some(fields) = self.framing.next_event() {
                if self.framing.data.as_slice() == DONE {
                    self.finished = true;
                    return None;
                }
                let event = decode(self.status, &self.framing.data).map(|data| Event {
                    event: fields.event,
                    id: fields.id,
                    retry: fields.retry,
                    data,
                });
                return Some((event, self));
            }
            let failure = match self.response.as_mut() {
                Some(response) => match response.chunk().await {
                    Ok(Some(bytes)) => {
                        self.framing.push(&bytes);
                        continue;
                    }
                    Ok(None) => None,
                    Err(error) => Some(Error::Transport(error)),
                },
                None => None,
            };
            // The body ended (or broke): an event it left unfinished is dropped, as browsers do.
            self.response = None;
            self.framing.restart();
            let Some(connect) = self.connect.as_mut() else {
                self.finished = true;
                return failure.map(|error| (Err(error), self));
            };
            tokio::time::sleep(self.framing.retry).await;
            match connect(self.framing.last_event_id.clone()).await {
                Ok(response) if response.status() == StatusCode::NO_CONTENT => {
                    self.finished = true;
                    return None;
                }
                Ok(response) => {
                    self.status = response.status();
                    self.response = Some(response);
                }
                Err(error) => {
                    self.finished = true;
                    return Some((Err(error), self));
                }
            }
        }
    }
}

impl<T: DeserializeOwned, E> Reader<LineParser, T, E> {
    async fn next_line(mut self) -> Option<(Result<T, Error<E>>, Self)> {
        loop {
            if let Some((start, end)) = self.framing.next_item(self.finished) {
                let item = decode(self.status, &self.framing.buf[start..end]);
                return Some((item, self));
            }
            if self.finished {
                return None;
            }
            match self.response.as_mut()?.chunk().await {
                Ok(Some(bytes)) => self.framing.push(&bytes),
                // What follows the last delimiter is the last item.
                Ok(None) => self.finished = true,
                Err(error) => {
                    self.finished = true;
                    self.response = None;
                    self.framing.buf.clear();
                    self.framing.pos = 0;
                    self.framing.scanned = 0;
                    return Some((Err(Error::Transport(error)), self));
                }
            }
        }
    }
}

/// The fields of an event other than its data (which stays in [`SseParser::data`]).
struct Fields {
    event: Option<String>,
    id: Option<String>,
    retry: Option<Duration>,
}

/// The event stream interpretation of the HTML standard: lines end in CRLF, LF or CR; a blank line
/// dispatches the event; `:` starts a comment; one space after a field's colon is dropped; `data`
/// lines join with `\n`; `id` without NUL sets the last event id; `retry` takes ASCII digits only;
/// a leading BOM is skipped. Its buffers are reused from event to event.
struct SseParser {
    buf: Vec<u8>,
    /// Where the bytes not yet read start in `buf`.
    pos: usize,
    /// The BOM was looked for.
    started: bool,
    /// The last line ended in CR: a LF starting the next bytes belongs to it.
    after_cr: bool,
    data: Vec<u8>,
    has_data: bool,
    event: Option<String>,
    id: Option<String>,
    retry_field: Option<Duration>,
    last_event_id: Option<String>,
    retry: Duration,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser {
            buf: Vec::new(),
            pos: 0,
            started: false,
            after_cr: false,
            data: Vec::new(),
            has_data: false,
            event: None,
            id: None,
            retry_field: None,
            last_event_id: None,
            retry: DEFAULT_RETRY,
        }
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseParser {
    fn push(&mut self, bytes: &[u8]) {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Forgets a partly read event and the bytes of a closed connection; the last event id and
    /// `retry` stay, for the next connection.
    fn restart(&mut self) {
        self.buf.clear();
        self.pos = 0;
        self.started = false;
        self.after_cr = false;
        self.data.clear();
        self.has_data = false;
        self.event = None;
        self.id = None;
        self.retry_field = None;
    }

    /// The next complete event in the bytes read so far; its data is left in `self.data`.
    fn next_event(&mut self) -> Option<Fields> {
        if !self.started {
            let rest = &self.buf[self.pos..];
            if rest.len() < BOM.len() && BOM.starts_with(rest) {
                return None;
            }
            if rest.starts_with(BOM) {
                self.pos += BOM.len();
            }
            self.started = true;
        }
        if !self.has_data {
            self.data.clear();
        }
        loop {
            if self.after_cr && self.pos < self.buf.len() {
                if self.buf[self.pos] == b'\n' {
                    self.pos += 1;
                }
                self.after_cr = false;
            }
            let rest = &self.buf[self.pos..];
            let end = rest.iter().position(|&b| b == b'\n' || b == b'\r')?;
            let start = self.pos;
            self.pos += end + 1;
            if rest[end] == b'\r' {
                self.after_cr = true;
            }
            if end == 0 {
                // A blank line: dispatch, unless no data came (then only the type is reset).
                self.event = self.event.take().filter(|_| self.has_data);
                if !self.has_data {
                    self.id = None;
                    self.retry_field = None;
                    continue;
                }
                self.has_data = false;
                if self.data.last() == Some(&b'\n') {
                    self.data.pop();
                }
                return Some(Fields {
                    event: self.event.take(),
                    id: self.id.take(),
                    retry: self.retry_field.take(),
                });
            }
            self.field(start, start + end);
        }
    }

    fn field(&mut self, start: usize, end: usize) {
        let line = &self.buf[start..end];
        if line[0] == b':' {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &line[line.len()..]),
        };
        match name {
            b"data" => {
                if !self.has_data {
                    self.data.clear();
                    self.has_data = true;
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => self.event = Some(String::from_utf8_lossy(value).into_owned()),
            b"id" if !value.contains(&0) => {
                let id = String::from_utf8_lossy(value).into_owned();
                self.last_event_id = Some(id.clone()).filter(|id| !id.is_empty());
                self.id = Some(id);
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Some(ms) = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse::<u64>().ok())
                {
                    self.retry = Duration::from_millis(ms);
                    self.retry_field = Some(self.retry);
                }
            }
            _ => {}
        }
    }
}

/// Splits a line-delimited body into its JSON texts; its buffer is reused from item to item.
struct LineParser {
    delimiter: Delimiter,
    buf: Vec<u8>,
    /// Where the bytes not yet read start in `buf`.
    pos: usize,
    /// How far past `pos` no delimiter ends an item (so bytes are scanned once).
    scanned: usize,
}

impl LineParser {
    fn push(&mut self, bytes: &[u8]) {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The bounds in `buf` of the next complete item; at the end of the body (`last`), what is
    /// left is one too.
    fn next_item(&mut self, last: bool) -> Option<(usize, usize)> {
        loop {
            let rest = &self.buf[self.pos..];
            let (start, end, next) = match self.delimiter {
                Delimiter::Line => match rest[self.scanned..].iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        let end = self.scanned + i;
                        (0, end, end + 1)
                    }
                    None if last && !rest.is_empty() => (0, rest.len(), rest.len()),
                    None => {
                        self.scanned = rest.len();
                        return None;
                    }
                },
                // RFC 7464: RS, a JSON text, LF. A text may hold LFs, so it ends at the next RS,
                // or at a LF after which it is complete JSON (then it is decoded without waiting).
                Delimiter::RecordSeparator => {
                    let start = usize::from(rest.first() == Some(&0x1E));
                    match rest[start.max(self.scanned)..]
                        .iter()
                        .position(|&b| b == 0x1E || b == b'\n')
                        .map(|i| start.max(self.scanned) + i)
                    {
                        Some(end) if rest[end] == 0x1E => (start, end, end),
                        Some(end) if is_complete(&rest[start..end]) => (start, end, end + 1),
                        Some(end) => {
                            self.scanned = end + 1;
                            continue;
                        }
                        None if last && !rest.is_empty() => (start, rest.len(), rest.len()),
                        None => {
                            self.scanned = rest.len();
                            return None;
                        }
                    }
                }
            };
            let (start, end) = (self.pos + start, self.pos + end);
            self.pos += next;
            self.scanned = 0;
            let text = trim(&self.buf[start..end]);
            if !text.is_empty() {
                let offset = text.as_ptr() as usize - self.buf.as_ptr() as usize;
                return Some((offset, offset + text.len()));
            }
            if self.pos >= self.buf.len() {
                return None;
            }
        }
    }
}

/// Whether `text` is one whole JSON text (not cut short).
fn is_complete(text: &[u8]) -> bool {
    let text = trim(text);
    if text.is_empty() {
        return false;
    }
    let mut values =
        serde_json::Deserializer::from_slice(text).into_iter::<serde::de::IgnoredAny>();
    matches!(values.next(), Some(Ok(_))) && values.byte_offset() == text.len()
}

fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(chunks: &[&[u8]]) -> Vec<(Option<String>, Option<String>, String)> {
        let mut parser = SseParser::default();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.push(chunk);
            while let Some(fields) = parser.next_event() {
                out.push((
                    fields.event,
                    fields.id,
                    String::from_utf8(parser.data.clone()).unwrap(),
                ));
            }
        }
        out
    }

    #[test]
    fn events_split_anywhere_read_the_same() {
        let text: &[u8] =
            b"\xEF\xBB\xBF: hi\r\nevent: a\r\ndata: 1\r\ndata:2\r\rid: 7\ndata\n\nretry: 5\nfoo\n\n";
        let whole = events(&[text]);
        for split in 0..text.len() {
            assert_eq!(events(&[&text[..split], &text[split..]]), whole, "{split}");
        }
        assert_eq!(
            whole,
            vec![
                (Some("a".into()), None, "1\n2".into()),
                (None, Some("7".into()), "".into()),
            ]
        );
    }

    fn lines(delimiter: Delimiter, chunks: &[&[u8]]) -> Vec<String> {
        let mut parser = LineParser {
            delimiter,
            buf: Vec::new(),
            pos: 0,
            scanned: 0,
        };
        let mut out = Vec::new();
        for (i, chunk) in chunks.iter().enumerate() {
            parser.push(chunk);
            while let Some((start, end)) = parser.next_item(i + 1 == chunks.len()) {
                out.push(String::from_utf8(parser.buf[start..end].to_vec()).unwrap());
            }
        }
        out
    }

    #[test]
    fn lines_and_records_split_anywhere_read_the_same() {
        let text: &[u8] = b"{\"a\":1}\r\n\n[2,\n3]\n4";
        for split in 0..text.len() {
            let got = lines(Delimiter::Line, &[&text[..split], &text[split..]]);
            assert_eq!(got, ["{\"a\":1}", "[2,", "3]", "4"], "{split}");
        }
        let seq: &[u8] = b"\x1e{\"a\":1}\n\x1e[2,\n3]\n\x1e4\n";
        for split in 0..seq.len() {
            let got = lines(Delimiter::RecordSeparator, &[&seq[..split], &seq[split..]]);
            assert_eq!(got, ["{\"a\":1}", "[2,\n3]", "4"], "{split}");
        }
    }
}
