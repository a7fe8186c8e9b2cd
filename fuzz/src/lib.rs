//! What the fuzz targets share: one tokio runtime, stub implementations of the generated servers'
//! traits (tests/fixtures/param-styles.yaml and errors-formats.yaml), a reader of raw HTTP request
//! text, and the check of a generated server's answer.

pub mod servers;
pub mod teltonika;

use param_styles_server::axum::body::Body;
use param_styles_server::axum::http::{self, HeaderName, HeaderValue, Method, Request, Response};
use std::sync::OnceLock;

/// The one current-thread runtime every target runs its futures on, built once.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime")
    })
}

/// Reads `bytes` as the text of an HTTP/1.1 request (`METHOD target HTTP/1.1`, header lines, an
/// empty line, the body), leniently: a line ending is `\n` or `\r\n`, the version may be left out.
/// `None` where hyper would refuse the request before any router sees it (a method, target,
/// header name or value that is not valid HTTP).
pub fn parse_request(bytes: &[u8]) -> Option<Request<Body>> {
    let (head, body) = match find(bytes, b"\r\n\r\n") {
        Some(at) => (&bytes[..at], &bytes[at + 4..]),
        None => match find(bytes, b"\n\n") {
            Some(at) => (&bytes[..at], &bytes[at + 2..]),
            None => (bytes, &[][..]),
        },
    };
    let head = std::str::from_utf8(head).ok()?;
    let mut lines = head.lines();
    let mut first = lines.next()?.split(' ');
    let method = Method::from_bytes(first.next()?.as_bytes()).ok()?;
    let target = first.next()?;
    if !target.starts_with('/') {
        return None;
    }
    let uri: http::Uri = target.parse().ok()?;
    let mut request = Request::builder().method(method).uri(uri);
    for line in lines {
        let (name, value) = line.split_once(':')?;
        let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
        let value = HeaderValue::from_str(value.trim_start()).ok()?;
        request = request.header(name, value);
    }
    request.body(Body::from(body.to_vec())).ok()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A response read whole: its status, content type and body.
pub struct Answer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// Reads a response's body whole.
pub async fn answer(response: Response<Body>) -> Answer {
    use http_body_util::BodyExt;
    let (parts, body) = response.into_parts();
    let body = body
        .collect()
        .await
        .expect("a generated server's response body can be read")
        .to_bytes()
        .to_vec();
    Answer {
        status: parts.status.as_u16(),
        content_type: parts
            .headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body,
    }
}

impl Answer {
    /// The body as JSON, when the response says it is JSON.
    pub fn json(&self) -> Option<serde_json::Value> {
        let json = self
            .content_type
            .as_deref()
            .is_some_and(|t| t.starts_with("application/json"));
        if json {
            serde_json::from_slice(&self.body).ok()
        } else {
            None
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "{} ({}): {}",
            self.status,
            self.content_type.as_deref().unwrap_or("no content type"),
            String::from_utf8_lossy(&self.body)
        )
    }
}
