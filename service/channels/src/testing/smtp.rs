//! An SMTP server: the `mailin` crate runs the protocol (commands, replies, dot-unstuffing);
//! this file only moves lines between it and tokio sockets. (`mailin-embedded`, its blocking
//! wrapper, has no way to stop its accept loop, so it could not shut down on drop.)

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use mailin::{Action, AuthMechanism, Handler, Response, SessionBuilder};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

use super::Failures;

/// A message as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedMail {
    /// The EHLO/HELO name.
    pub helo: String,
    /// `MAIL FROM` address.
    pub from: String,
    /// `RCPT TO` addresses.
    pub to: Vec<String>,
    /// The message as sent after DATA (headers and body, CRLF line ends, dots unstuffed).
    pub data: Vec<u8>,
    /// The id given in "250 2.0.0 Ok: queued as <id>".
    pub queue_id: String,
    /// When the message was accepted (end of DATA).
    pub received_at: std::time::SystemTime,
}

impl ReceivedMail {
    pub fn data_text(&self) -> String {
        String::from_utf8_lossy(&self.data).into_owned()
    }

    /// The first header named `name` (case-insensitive), unfolded.
    pub fn header(&self, name: &str) -> Option<String> {
        let text = self.data_text();
        let head = text.split("\r\n\r\n").next()?;
        let mut value: Option<String> = None;
        for line in head.split("\r\n") {
            if let Some(current) = value.as_mut() {
                if line.starts_with([' ', '\t']) {
                    current.push_str(line);
                    continue;
                }
                break;
            }
            if let Some((key, rest)) = line.split_once(':')
                && key.eq_ignore_ascii_case(name)
            {
                value = Some(rest.trim_start().to_owned());
            }
        }
        value
    }

    /// What follows the header block.
    pub fn body(&self) -> String {
        let text = self.data_text();
        text.split_once("\r\n\r\n")
            .map(|(_, body)| body.to_owned())
            .unwrap_or_default()
    }
}

struct Shared {
    received: Mutex<Vec<ReceivedMail>>,
    failures: Failures,
    /// When set, AUTH (PLAIN or LOGIN) with these is required before MAIL.
    credentials: Option<(String, String)>,
}

/// Per connection: collects one transaction at a time.
struct Collector {
    shared: Arc<Shared>,
    helo: String,
    from: String,
    to: Vec<String>,
    data: Vec<u8>,
}

impl Handler for Collector {
    fn helo(&mut self, _ip: IpAddr, domain: &str) -> Response {
        self.helo = domain.to_owned();
        mailin::response::OK
    }

    fn mail(&mut self, _ip: IpAddr, _domain: &str, from: &str) -> Response {
        self.from = from.to_owned();
        self.to.clear();
        self.data.clear();
        mailin::response::OK
    }

    fn rcpt(&mut self, to: &str) -> Response {
        // Scripted failures answer RCPT: mailin stays in its DATA state after an error reply
        // to the end of DATA, which would wedge the session.
        if let Some(code) = self.shared.failures.take() {
            return Response::custom(code, "scripted failure".into());
        }
        self.to.push(to.to_owned());
        mailin::response::OK
    }

    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.data.extend_from_slice(buf);
        Ok(())
    }

    fn auth_plain(&mut self, _authz: &str, username: &str, password: &str) -> Response {
        self.auth_login(username, password)
    }

    fn auth_login(&mut self, username: &str, password: &str) -> Response {
        match &self.shared.credentials {
            Some((u, p)) if u == username && p == password => mailin::response::AUTH_OK,
            _ => mailin::response::INVALID_CREDENTIALS,
        }
    }

    fn data_end(&mut self) -> Response {
        let mut received = self.shared.received.lock().unwrap();
        let queue_id = format!("Q{:08X}", received.len() + 1);
        received.push(ReceivedMail {
            helo: self.helo.clone(),
            from: std::mem::take(&mut self.from),
            to: std::mem::take(&mut self.to),
            data: std::mem::take(&mut self.data),
            queue_id: queue_id.clone(),
            received_at: std::time::SystemTime::now(),
        });
        Response::custom(250, format!("2.0.0 Ok: queued as {queue_id}"))
    }
}

/// A plain-text SMTP server on 127.0.0.1; stops, with its connections, on drop.
pub struct SmtpServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl SmtpServer {
    /// A server that takes mail from anyone.
    pub async fn start() -> std::io::Result<Self> {
        Self::start_inner(None).await
    }

    /// A server that requires AUTH PLAIN or LOGIN with these credentials (offered without TLS,
    /// as this test server has none).
    pub async fn start_with_credentials(username: &str, password: &str) -> std::io::Result<Self> {
        Self::start_inner(Some((username.to_owned(), password.to_owned()))).await
    }

    async fn start_inner(credentials: Option<(String, String)>) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            received: Mutex::default(),
            failures: Failures::default(),
            credentials,
        });
        let task = tokio::spawn(accept(listener, shared.clone()));
        Ok(Self { addr, shared, task })
    }

    pub fn host(&self) -> String {
        self.addr.ip().to_string()
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `smtp://127.0.0.1:<port>`, for symmetry with the HTTP stand-ins.
    pub fn base_url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// The messages accepted after the first `skip` (cheap to poll for new ones).
    pub fn received_since(&self, skip: usize) -> Vec<ReceivedMail> {
        let received = self.shared.received.lock().unwrap();
        received.iter().skip(skip).cloned().collect()
    }

    pub fn received(&self) -> Vec<ReceivedMail> {
        self.shared.received.lock().unwrap().clone()
    }

    /// Answers the next `count` `RCPT TO` commands with `code` (451 transient, 550 permanent,
    /// ...), so those messages are not accepted.
    pub fn fail_next(&self, count: usize, code: u16) {
        self.shared.failures.set(count, code);
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        // Dropping the accept task drops its JoinSet, which aborts every connection.
        self.task.abort();
    }
}

async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    let mut builder = SessionBuilder::new("stand-in.smtp.test");
    if shared.credentials.is_some() {
        builder
            .enable_auth(AuthMechanism::Plain)
            .enable_auth(AuthMechanism::Login)
            .insecure_enable_plaintext_auth();
    }
    let mut connections = JoinSet::new();
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let collector = Collector {
                    shared: shared.clone(),
                    helo: String::new(),
                    from: String::new(),
                    to: Vec::new(),
                    data: Vec::new(),
                };
                let session = builder.build(peer.ip(), collector);
                connections.spawn(serve(stream, session));
            }
            Err(error) => tracing::warn!(%error, "smtp stand-in: accept failed"),
        }
        // Reap finished connections so the set does not grow without bound.
        while connections.try_join_next().is_some() {}
    }
}

async fn serve(stream: TcpStream, mut session: mailin::Session<Collector>) {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut line = Vec::with_capacity(256);
    let reply = |response: &Response| response.buffer().unwrap_or_default();
    if write.write_all(&reply(&session.greeting())).await.is_err() {
        return;
    }
    loop {
        line.clear();
        match read.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let response = session.process(&line);
        match response.action {
            Action::NoReply => {}
            Action::Reply => {
                if write.write_all(&reply(&response)).await.is_err() {
                    return;
                }
            }
            // No STARTTLS is offered, so an upgrade request cannot happen; close either way.
            Action::Close | Action::UpgradeTls => {
                let _ = write.write_all(&reply(&response)).await;
                return;
            }
        }
    }
}
