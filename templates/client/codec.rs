//! How parameters are written into requests and how answers are read: the plumbing of the request
//! builders, public so that hand-written extensions can reuse it. Copied verbatim by openapi-gen.

use crate::error::Error;
use futures_util::Stream;
use reqwest::{Response, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// The future of a request builder's `send_full`: the answer with its status and headers.
pub type FullResponseFuture<T, E, H = ()> =
    Pin<Box<dyn Future<Output = Result<ResponseValue<T, H>, Error<E>>> + Send>>;

/// The future of a request builder's `send` (and of awaiting the builder): the answer's body.
/// Every operation shares this type: a builder has one `async fn`, boxed once, and this takes the
/// body out of its answer (an `async fn` per entry point cost a third of the client's build time).
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct ResponseFuture<T, E, H = ()>(FullResponseFuture<T, E, H>);

impl<T, E, H> ResponseFuture<T, E, H> {
    pub fn new(full: FullResponseFuture<T, E, H>) -> Self {
        Self(full)
    }
}

impl<T, E, H> Future for ResponseFuture<T, E, H> {
    type Output = Result<T, Error<E>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let full = &mut self.get_mut().0;
        full.as_mut()
            .poll(cx)
            .map(|answer| answer.map(ResponseValue::into_inner))
    }
}

/// Percent-encodes a path parameter so that it stays one path segment: everything but RFC 3986's
/// unreserved characters is encoded.
pub fn path_segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The path with its parameters written in, unless one of them made a whole segment a
/// dot-segment (`.`, `..`, or either with `%2E`), which URL parsing would resolve away.
pub fn checked_path<E>(path: String) -> Result<String, Error<E>> {
    let dot_segment = |segment: &str| {
        let dots = segment.replace("%2E", ".").replace("%2e", ".");
        dots == "." || dots == ".."
    };
    let segments = path.split(['?', '#']).next().unwrap_or_default().split('/');
    if segments.skip(1).any(dot_segment) {
        return Err(Error::InvalidPath { path });
    }
    Ok(path)
}

/// A path parameter that a mixed segment (`{name}.{ext}`) follows with text starting with one of
/// the unreserved characters `also`: those are percent-encoded too, so the value cannot be taken
/// for the text.
pub fn path_segment_escaping(value: &str, also: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if (byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~'))
            && !also.as_bytes().contains(&byte)
        {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}


/// The parameter codec shared with the server (OpenAPI's `style` and `explode`).
pub use crate::models::style::{
    Style, Value, with_query, write_cookie, write_header, write_path, write_query,
};

/// Appends the most common query parameter, one `form` value: `name=value`, percent-encoded.
pub fn query_pair(query: &mut String, name: &str, value: &str) {
    use crate::models::style::encode;
    if !query.is_empty() {
        query.push('&');
    }
    query.push_str(&encode(name, b""));
    query.push('=');
    query.push_str(&encode(value, b""));
}

/// A form property's Encoding Object: its name, style, explode and allowReserved.
pub type PropertyEncoding<'a> = (&'a str, Style, bool, bool);

/// Sends `body` as `application/x-www-form-urlencoded`. A property with an Encoding Object in
/// `encoding` is written in its style (`deepObject`: `name%5Bkey%5D=value`, nested objects and
/// arrays by key and index, as `qs` and Stripe read them); the others as OpenAPI's default
/// (`form`, exploded): an array repeats its name per item, an object is its JSON text. `null` is
/// left out.
pub fn form_body<T: Serialize + ?Sized>(
    request: reqwest::RequestBuilder,
    body: &T,
    encoding: &[PropertyEncoding<'_>],
) -> reqwest::RequestBuilder {
    let mut text = String::new();
    if let Ok(serde_json::Value::Object(properties)) = serde_json::to_value(body) {
        for (name, value) in &properties {
            if value.is_null() {
                continue;
            }
            match encoding.iter().find(|e| e.0 == name) {
                Some((_, Style::DeepObject, _, reserved)) => deep(&mut text, name, value, *reserved),
                Some((_, style, explode, reserved)) => {
                    write_query(&mut text, *style, *explode, *reserved, name, &style_value(value))
                }
                None => match value {
                    serde_json::Value::Array(items) => {
                        let items = items.iter().map(json_text).collect();
                        write_query(&mut text, Style::Form, true, false, name, &Value::Array(items))
                    }
                    other => query_pair(&mut text, name, &json_text(other)),
                },
            }
        }
    }
    request
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(text)
}

/// A JSON value in the style codec's shapes; nested values are their JSON text.
fn style_value(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Array(items) => Value::Array(items.iter().map(json_text).collect()),
        serde_json::Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), json_text(v)))
                .collect(),
        ),
        other => Value::Primitive(json_text(other)),
    }
}

/// `deepObject` pairs of `value` under `prefix`: `prefix[key]`, `prefix[key][index]`...
fn deep(text: &mut String, prefix: &str, value: &serde_json::Value, reserved: bool) {
    match value {
        serde_json::Value::Null => {}
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                deep(text, &format!("{prefix}[{key}]"), inner, reserved);
            }
        }
        serde_json::Value::Array(items) => {
            for (index, inner) in items.iter().enumerate() {
                deep(text, &format!("{prefix}[{index}]"), inner, reserved);
            }
        }
        leaf => {
            let leaf = Value::Primitive(json_text(leaf));
            write_query(text, Style::Form, true, reserved, prefix, &leaf);
        }
    }
}

/// The text of a parameter whose type has no plain text form (an object, a union, any JSON): its
/// JSON, without the quotes when it is a JSON string.
pub fn json_text<T: Serialize + ?Sized>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// A success with what came with it: the status, every header, the headers the operation documents
/// (typed, in `documented`; `()` when it documents none) and the decoded body, which the value
/// dereferences to. `send_full` answers it; `send` and `.await` answer the body alone.
#[derive(Debug, Clone)]
pub struct ResponseValue<T, H = ()> {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub documented: H,
    pub body: T,
}

impl<T, H> ResponseValue<T, H> {
    /// The decoded body.
    pub fn into_inner(self) -> T {
        self.body
    }
}

impl<T, H> std::ops::Deref for ResponseValue<T, H> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.body
    }
}

/// What a request sends: the operation's request, with how the client sends it (see
/// `Inner::send`). A builder makes it in a plain function, and [`exchange`] does the sending.
pub struct Sending {
    pub(crate) client: crate::Client,
    pub(crate) request: reqwest::RequestBuilder,
    pub(crate) options: crate::client::RequestOptions,
    pub(crate) bearer: bool,
    pub(crate) idempotent: bool,
    pub(crate) idempotency_key: Option<&'static str>,
}

impl Sending {
    pub(crate) fn new(
        client: crate::Client,
        request: reqwest::RequestBuilder,
        options: crate::client::RequestOptions,
        bearer: bool,
        idempotent: bool,
        idempotency_key: Option<&'static str>,
    ) -> Self {
        Self {
            client,
            request,
            options,
            bearer,
            idempotent,
            idempotency_key,
        }
    }

    /// Sends it; answers the response, of any status.
    pub async fn send<E>(self) -> Result<Response, Error<E>> {
        (self.client.inner)
            .send(
                self.request,
                self.options,
                self.bearer,
                self.idempotent,
                self.idempotency_key,
            )
            .await
    }
}

/// What an operation makes of an [`Answer`]: its body and documented headers.
pub type Decoded<T, E, H = ()> = Result<(T, H), Error<E>>;

/// An operation's decoding of an [`Answer`].
pub type Decode<T, E, H> = fn(&Answer) -> Decoded<T, E, H>;

/// Sends `sending` and reads the whole answer, which `decode` (the operation's plain function)
/// turns into the body and the documented headers. Every operation that answers no stream shares
/// this one `async` body: an `async fn` per operation was most of a client's check time.
pub fn exchange<T, E, H>(
    sending: Result<Sending, Error<E>>,
    keep_headers: bool,
    decode: Decode<T, E, H>,
) -> FullResponseFuture<T, E, H>
where
    T: Send + 'static,
    E: Send + 'static,
    H: Send + 'static,
{
    Box::pin(async move {
        let answer = Answer::read(sending?.send().await?).await?;
        let (body, documented) = decode(&answer)?;
        Ok(ResponseValue {
            status: answer.status,
            headers: if keep_headers {
                answer.headers
            } else {
                reqwest::header::HeaderMap::new()
            },
            documented,
            body,
        })
    })
}

/// An answer read in full: its status, headers and body.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    /// Reads the whole of `response`.
    pub async fn read<E>(response: Response) -> Result<Answer, Error<E>> {
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await.map_err(Error::Transport)?.into();
        Ok(Answer {
            status,
            headers,
            body,
        })
    }

    /// The body as JSON.
    pub fn json<T: DeserializeOwned, E>(&self) -> Result<T, Error<E>> {
        serde_json::from_slice(&self.body).map_err(|source| Error::Decode {
            status: self.status,
            body: String::from_utf8_lossy(&self.body).into_owned(),
            source,
        })
    }

    /// The body as text.
    pub fn text<E>(&self) -> Result<String, Error<E>> {
        Ok(String::from_utf8_lossy(&self.body).into_owned())
    }

    /// The body's bytes.
    pub fn bytes<E>(&self) -> Result<Vec<u8>, Error<E>> {
        Ok(self.body.clone())
    }

    /// The body's bytes with its content type.
    pub fn binary<E>(&self) -> Result<Binary, Error<E>> {
        Ok(Binary {
            content_type: self.header("content-type"),
            bytes: self.body.clone(),
        })
    }

    /// A body the operation does not document (already read, so the connection can be reused).
    pub fn empty<E>(&self) -> Result<(), Error<E>> {
        Ok(())
    }

    /// A header parsed as `T`; `None` when it is absent or does not parse.
    pub fn header<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
        self.headers.get(name)?.to_str().ok()?.parse().ok()
    }

    /// A documented error status with a JSON body: [`Error::Api`] with the status's variant, or
    /// [`Error::Decode`].
    pub fn api_json<B: DeserializeOwned, E>(&self, variant: impl FnOnce(B) -> E) -> Error<E> {
        self.api(self.json::<B, E>(), variant)
    }

    /// A documented error status with a text body.
    pub fn api_text<E>(&self, variant: impl FnOnce(String) -> E) -> Error<E> {
        self.api(self.text::<E>(), variant)
    }

    /// A documented error status with a binary body.
    pub fn api_bytes<E>(&self, variant: impl FnOnce(Vec<u8>) -> E) -> Error<E> {
        self.api(self.bytes::<E>(), variant)
    }

    /// A documented error status with a binary body of an open media range.
    pub fn api_binary<E>(&self, variant: impl FnOnce(Binary) -> E) -> Error<E> {
        self.api(self.binary::<E>(), variant)
    }

    /// A documented error status without a body.
    pub fn api_empty<E>(&self, variant: E) -> Error<E> {
        self.api(Ok(()), |()| variant)
    }

    fn api<B, E>(&self, body: Result<B, Error<E>>, variant: impl FnOnce(B) -> E) -> Error<E> {
        match body {
            Ok(body) => Error::Api {
                status: self.status,
                body: Box::new(variant(body)),
            },
            Err(error) => error,
        }
    }

    /// A status the operation does not document: [`Error::UnexpectedStatus`] with the raw body.
    pub fn unexpected<E>(&self) -> Error<E> {
        Error::UnexpectedStatus {
            status: self.status,
            body: String::from_utf8_lossy(&self.body).into_owned(),
        }
    }
}

/// A binary body of a media range the spec leaves open (`image/*`), with its content type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Binary {
    /// The `Content-Type` (the server's, or the one to send); `None` when absent or not text.
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

/// Sends a [`Binary`] body: its content type, else the spec's media range with any wildcard
/// replaced by `application/octet-stream`.
pub fn binary_body(
    request: reqwest::RequestBuilder,
    body: Binary,
    range: &str,
) -> reqwest::RequestBuilder {
    let content_type = body.content_type.unwrap_or_else(|| {
        if range.contains('*') {
            "application/octet-stream".to_owned()
        } else {
            range.to_owned()
        }
    });
    request
        .header(reqwest::header::CONTENT_TYPE, content_type)
        .body(body.bytes)
}

// The `async` readers below serve the operations that may answer a stream, whose `send` keeps
// the response until it knows the status; every other operation decodes an [`Answer`].

/// Reads a JSON body.
pub async fn json<T: DeserializeOwned, E>(response: Response) -> Result<T, Error<E>> {
    Answer::read(response).await?.json()
}

/// Reads a text body.
pub async fn text<E>(response: Response) -> Result<String, Error<E>> {
    Answer::read(response).await?.text()
}

/// Reads a binary body.
pub async fn bytes<E>(response: Response) -> Result<Vec<u8>, Error<E>> {
    Ok(Answer::read(response).await?.body)
}

/// Reads a binary body with its content type.
pub async fn binary<E>(response: Response) -> Result<Binary, Error<E>> {
    Answer::read(response).await?.binary()
}

/// Reads (and drops) a body the operation does not document, so the connection can be reused.
pub async fn empty<E>(response: Response) -> Result<(), Error<E>> {
    Answer::read(response).await.map(drop)
}

/// A documented error status of an operation that answers a stream (read in full, as an
/// [`Answer`]).
pub async fn api_json<B: DeserializeOwned, E>(
    response: Response,
    variant: impl FnOnce(B) -> E,
) -> Error<E> {
    match Answer::read(response).await {
        Ok(answer) => answer.api_json(variant),
        Err(error) => error,
    }
}

/// A documented error status with a text body, of an operation that answers a stream.
pub async fn api_text<E>(response: Response, variant: impl FnOnce(String) -> E) -> Error<E> {
    match Answer::read(response).await {
        Ok(answer) => answer.api_text(variant),
        Err(error) => error,
    }
}

/// A documented error status with a binary body, of an operation that answers a stream.
pub async fn api_bytes<E>(response: Response, variant: impl FnOnce(Vec<u8>) -> E) -> Error<E> {
    match Answer::read(response).await {
        Ok(answer) => answer.api_bytes(variant),
        Err(error) => error,
    }
}

/// A documented error status with a binary body of an open media range, of an operation that
/// answers a stream.
pub async fn api_binary<E>(response: Response, variant: impl FnOnce(Binary) -> E) -> Error<E> {
    match Answer::read(response).await {
        Ok(answer) => answer.api_binary(variant),
        Err(error) => error,
    }
}

/// A documented error status without a body, of an operation that answers a stream.
pub async fn api_empty<E>(response: Response, variant: E) -> Error<E> {
    match Answer::read(response).await {
        Ok(answer) => answer.api_empty(variant),
        Err(error) => error,
    }
}

/// A header of the answer parsed as `T`; `None` when it is absent or does not parse.
pub fn header<T: std::str::FromStr>(response: &Response, name: &str) -> Option<T> {
    response.headers().get(name)?.to_str().ok()?.parse().ok()
}

/// A status the operation does not document: [`Error::UnexpectedStatus`] with the raw body.
pub async fn unexpected<E>(response: Response) -> Error<E> {
    let status: StatusCode = response.status();
    match response.bytes().await {
        Ok(bytes) => Error::UnexpectedStatus {
            status,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        },
        Err(error) => Error::Transport(error),
    }
}

/// The items of a paged list operation, fetched page after page as the stream is read.
pub struct Paged<T, E> {
    pages: Pin<Box<dyn Stream<Item = Result<T, Error<E>>> + Send>>,
}

impl<T, E> Paged<T, E> {
    pub fn new(items: impl Stream<Item = Result<T, Error<E>>> + Send + 'static) -> Paged<T, E> {
        Paged {
            pages: Box::pin(items),
        }
    }
}

impl<T, E> Stream for Paged<T, E> {
    type Item = Result<T, Error<E>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.pages.as_mut().poll_next(cx)
    }
}

impl<T, E> fmt::Debug for Paged<T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Paged").finish_non_exhaustive()
    }
}
