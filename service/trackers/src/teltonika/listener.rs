//! Teltonika devices over TCP: accepts connections, reads the IMEI handshake and AVL packets, has
//! the [`Ingest`] store each packet's records, and acknowledges a packet only once they are
//! stored, so a device whose packet was not acknowledged sends it again (a duplicate, which the
//! pipeline recognises), and a record is never lost.
//!
//! What a listener open to the internet must bound, it bounds: a length field beyond
//! [`Limits::max_packet`] closes the connection before anything is allocated; a frame that does
//! not complete within [`Limits::frame_timeout`] (a slow-drip sender) and a connection silent
//! for [`Limits::idle_timeout`] are closed; a source address whose handshakes keep failing is
//! refused for a while ([`Limits::failed_handshakes`]); TCP keep-alive finds dead peers. A
//! connection's buffer grows only to the frame it holds.
//!
//! With a [`TlsAcceptor`] the listener speaks TLS (devices that support it, such as FMB models
//! with firmware that has "TLS encryption", connect so); the TLS handshake must complete within
//! the frame timeout, and a failed one counts as a failed handshake of its address.

use super::{Codec, Error, ack, handshake_answer, pings, read_imei, read_packet};
use crate::Ingest;
use crate::failures::Failures;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;
#[cfg(feature = "tls")]
pub use tokio_rustls::TlsAcceptor;

/// Built without feature `tls`: no acceptor exists, so a listener's `tls` is always `None`.
#[cfg(not(feature = "tls"))]
#[derive(Clone)]
pub enum TlsAcceptor {}

/// The bounds of a listener.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The largest AVL packet accepted (its length field); a larger one closes the connection.
    pub max_packet: usize,
    /// How long a frame (handshake or packet) may take from its first byte to its last.
    pub frame_timeout: Duration,
    /// How long a connection may stay silent between frames.
    pub idle_timeout: Duration,
    /// Failed handshakes (unknown IMEI, malformed) one source address may make per
    /// [`failure_window`](Self::failure_window) before its connections are closed at once.
    pub failed_handshakes: u32,
    pub failure_window: Duration,
    /// TCP keep-alive: idle time before the first probe.
    pub keepalive: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            // Codec 8 Extended packets of FMB devices stay far below this.
            max_packet: 64 * 1024,
            frame_timeout: Duration::from_secs(30),
            // Devices send at least every few minutes, and a heartbeat when parked.
            idle_timeout: Duration::from_secs(15 * 60),
            failed_handshakes: 10,
            failure_window: Duration::from_secs(60),
            keepalive: Duration::from_secs(60),
        }
    }
}

/// What a listener counted, for `/metrics`.
#[derive(Debug, Default)]
pub struct Stats {
    pub connections: AtomicU64,
    pub open_connections: AtomicU64,
    pub packets: AtomicU64,
    /// Records acknowledged: stored, duplicates of stored ones, or rejected.
    pub records: AtomicU64,
    pub duplicate_records: AtomicU64,
    /// Records acknowledged without being stored (too old, in the future, out of range), so the
    /// device does not send them forever.
    pub rejected_records: AtomicU64,
    /// Records whose total IO count disagreed with their IO groups (read by the groups).
    pub io_count_mismatches: AtomicU64,
    /// Packets whose record count at the end disagreed with the one at the start (read by the
    /// first).
    pub record_count_mismatches: AtomicU64,
    pub refused_handshakes: AtomicU64,
    pub rate_limited: AtomicU64,
    pub bad_crc: AtomicU64,
    pub malformed: AtomicU64,
    pub too_large: AtomicU64,
    pub timeouts: AtomicU64,
    /// TLS handshakes that failed (a plain-TCP device on a TLS port, a wrong certificate).
    pub tls_failures: AtomicU64,
    pub store_failures: AtomicU64,
}

impl Stats {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// A running listener: its address and counters; [`Listener::shutdown`] stops it.
pub struct Listener {
    pub local_addr: SocketAddr,
    pub stats: Arc<Stats>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Listener {
    /// Serves `listener` until [`shutdown`](Self::shutdown).
    pub fn start<I: Ingest>(listener: TcpListener, ingest: Arc<I>, limits: Limits) -> Listener {
        Listener::start_with(listener, ingest, limits, None)
    }

    /// Serves `listener` over TLS (when `tls` is given) until [`shutdown`](Self::shutdown).
    pub fn start_with<I: Ingest>(
        listener: TcpListener,
        ingest: Arc<I>,
        limits: Limits,
        tls: Option<TlsAcceptor>,
    ) -> Listener {
        let local_addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let stats = Arc::new(Stats::default());
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(accept_loop(
            listener,
            ingest,
            Arc::new(limits),
            stats.clone(),
            stopped,
            tls,
        ));
        Listener {
            local_addr,
            stats,
            stop,
            task,
        }
    }

    /// Stops accepting, lets every connection finish the packet it is storing (and acknowledge
    /// it), then closes them; returns when all are closed.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

/// Serves one device connection over `stream` as the listener serves each connection it accepts
/// (handshake, packets, acknowledgements, the limits' timeouts), counting into `stats`, and
/// returns when the connection ends. For byte streams the listener does not accept itself: an
/// in-memory pipe in tests and fuzzing, a stream a caller has already unwrapped.
pub async fn serve_connection<I: Ingest, S: AsyncRead + AsyncWrite + Unpin>(
    stream: S,
    peer: SocketAddr,
    ingest: Arc<I>,
    limits: Limits,
    stats: Arc<Stats>,
) {
    let failures = Arc::new(Failures::new(
        limits.failed_handshakes,
        limits.failure_window,
    ));
    // Never stopped: the sender lives as long as the connection.
    let (_stop, stopped) = watch::channel(false);
    let mut connection = Connection {
        ingest,
        limits: Arc::new(limits),
        stats,
        failures,
        stopped,
        peer,
        tls: None,
    };
    connection.serve_stream(stream).await;
}

async fn accept_loop<I: Ingest>(
    listener: TcpListener,
    ingest: Arc<I>,
    limits: Arc<Limits>,
    stats: Arc<Stats>,
    mut stopped: watch::Receiver<bool>,
    tls: Option<TlsAcceptor>,
) {
    let failures = Arc::new(Failures::new(
        limits.failed_handshakes,
        limits.failure_window,
    ));
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = stopped.changed() => break,
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else {
                    // Out of descriptors and the like: wait a moment rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                Stats::add(&stats.connections);
                if failures.limited(peer.ip()) {
                    Stats::add(&stats.rate_limited);
                    continue;
                }
                let connection = Connection {
                    ingest: ingest.clone(),
                    limits: limits.clone(),
                    stats: stats.clone(),
                    failures: failures.clone(),
                    stopped: stopped.clone(),
                    peer,
                    tls: tls.clone(),
                };
                connections.spawn(connection.serve(stream));
            }
            // Reap finished connections as they end, so the set stays as large as what is open.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    while connections.join_next().await.is_some() {}
}

struct Connection<I> {
    ingest: Arc<I>,
    limits: Arc<Limits>,
    stats: Arc<Stats>,
    failures: Arc<Failures>,
    stopped: watch::Receiver<bool>,
    peer: SocketAddr,
    tls: Option<TlsAcceptor>,
}

/// Why a connection ended.
enum End {
    Closed,
    Stopped,
    Timeout,
    Protocol(Error),
    Io,
}

impl<I: Ingest> Connection<I> {
    async fn serve(mut self, stream: TcpStream) {
        self.stats.open_connections.fetch_add(1, Ordering::Relaxed);
        let keepalive = socket2::TcpKeepalive::new().with_time(self.limits.keepalive);
        let _ = socket2::SockRef::from(&stream).set_tcp_keepalive(&keepalive);
        // An acknowledgement is 4 bytes the device waits for: Nagle's algorithm would hold it
        // until the device's delayed ACK of the previous one (up to 40 ms on Linux).
        let _ = stream.set_nodelay(true);
        match self.tls.clone() {
            None => self.serve_stream(stream).await,
            #[cfg(not(feature = "tls"))]
            Some(acceptor) => match acceptor {},
            #[cfg(feature = "tls")]
            Some(acceptor) => {
                let deadline = Instant::now() + self.limits.frame_timeout;
                match tokio::time::timeout_at(deadline, acceptor.accept(stream)).await {
                    Ok(Ok(stream)) => self.serve_stream(stream).await,
                    Ok(Err(e)) => {
                        Stats::add(&self.stats.tls_failures);
                        self.failures.record(self.peer.ip());
                        tracing::info!(peer = %self.peer, error = %e, "teltonika: TLS handshake failed");
                    }
                    Err(_) => Stats::add(&self.stats.timeouts),
                }
            }
        }
        self.stats.open_connections.fetch_sub(1, Ordering::Relaxed);
    }

    async fn serve_stream<S: AsyncRead + AsyncWrite + Unpin>(&mut self, mut stream: S) {
        let end = self.run(&mut stream).await;
        match &end {
            End::Protocol(e) => {
                let counter = match e {
                    Error::Crc { .. } => &self.stats.bad_crc,
                    Error::TooLarge { .. } => &self.stats.too_large,
                    Error::Malformed(_) => &self.stats.malformed,
                };
                Stats::add(counter);
                tracing::warn!(peer = %self.peer, error = %e, "teltonika: closing the connection");
            }
            End::Timeout => Stats::add(&self.stats.timeouts),
            End::Closed | End::Stopped | End::Io => {}
        }
        let _ = stream.shutdown().await;
    }

    async fn run<S: AsyncRead + AsyncWrite + Unpin>(&mut self, stream: &mut S) -> End {
        let mut buf = Vec::with_capacity(64);
        // The handshake, within one frame timeout of the connection.
        let deadline = Instant::now() + self.limits.frame_timeout;
        let imei = loop {
            match read_imei(&buf) {
                Ok(Some((imei, used))) => {
                    buf.drain(..used);
                    break imei;
                }
                Ok(None) => {}
                Err(e) => {
                    self.failures.record(self.peer.ip());
                    return End::Protocol(e);
                }
            }
            if let Some(end) = self.fill(stream, &mut buf, deadline, false).await {
                return end;
            }
        };
        let known = self.ingest.knows(&imei).await;
        if stream.write_all(&handshake_answer(known)).await.is_err() {
            return End::Io;
        }
        if !known {
            Stats::add(&self.stats.refused_handshakes);
            self.failures.record(self.peer.ip());
            tracing::info!(peer = %self.peer, imei, "teltonika: unknown IMEI refused");
            return End::Closed;
        }
        // Packets, each acknowledged once stored. A frame must complete within the frame timeout
        // of its first byte, however slowly its bytes come.
        let mut frame_deadline: Option<Instant> = None;
        loop {
            buf.drain(..pings(&buf));
            match read_packet(&buf, self.limits.max_packet) {
                Ok(Some((packet, used))) => {
                    buf.drain(..used);
                    frame_deadline = None;
                    if let Codec::Command(id) = packet.codec {
                        tracing::debug!(
                            imei,
                            codec = id,
                            "teltonika: a command reply nobody asked for, not answered"
                        );
                        continue;
                    }
                    let count = packet.records.len();
                    let io_mismatches = packet
                        .records
                        .iter()
                        .filter(|r| r.io_total_disagrees())
                        .count();
                    if io_mismatches > 0 || packet.counts_disagree() {
                        tracing::debug!(
                            imei,
                            io_mismatches,
                            counts_disagree = packet.counts_disagree(),
                            "teltonika: miscounted packet, read as its records are"
                        );
                    }
                    let reports = packet.records.iter().map(|r| r.report()).collect();
                    let stored = match self.ingest.store(&imei, reports).await {
                        Ok(stored) => stored,
                        Err(e) => {
                            Stats::add(&self.stats.store_failures);
                            tracing::warn!(peer = %self.peer, imei, error = %e, "teltonika: not stored, not acknowledged");
                            return End::Closed;
                        }
                    };
                    for rejection in &stored.rejected {
                        tracing::info!(imei, reason = %rejection.message, "teltonika: record rejected, acknowledged");
                    }
                    if stream.write_all(&ack(count)).await.is_err() {
                        return End::Io;
                    }
                    Stats::add(&self.stats.packets);
                    let count_of = |counter: &AtomicU64, n: usize| {
                        counter.fetch_add(n as u64, Ordering::Relaxed);
                    };
                    count_of(&self.stats.records, count);
                    count_of(&self.stats.duplicate_records, stored.duplicates);
                    count_of(&self.stats.rejected_records, stored.rejected.len());
                    count_of(&self.stats.io_count_mismatches, io_mismatches);
                    count_of(
                        &self.stats.record_count_mismatches,
                        usize::from(packet.counts_disagree()),
                    );
                    if *self.stopped.borrow() {
                        return End::Stopped;
                    }
                    continue;
                }
                Ok(None) => {}
                Err(e) => return End::Protocol(e),
            }
            let between_frames = buf.is_empty();
            let deadline = if between_frames {
                Instant::now() + self.limits.idle_timeout
            } else {
                *frame_deadline.get_or_insert_with(|| Instant::now() + self.limits.frame_timeout)
            };
            if let Some(end) = self.fill(stream, &mut buf, deadline, between_frames).await {
                return end;
            }
        }
    }

    /// Reads more bytes into `buf` before `deadline`. Between frames, shutdown ends the
    /// connection; `None` means bytes were read.
    async fn fill<S: AsyncRead + Unpin>(
        &mut self,
        stream: &mut S,
        buf: &mut Vec<u8>,
        deadline: Instant,
        between_frames: bool,
    ) -> Option<End> {
        let mut chunk = [0u8; 4096];
        let read = async {
            tokio::select! {
                read = stream.read(&mut chunk) => Some(read),
                _ = self.stopped.wait_for(|stop| *stop), if between_frames => None,
            }
        };
        match tokio::time::timeout_at(deadline, read).await {
            Err(_) => Some(End::Timeout),
            Ok(None) => Some(End::Stopped),
            Ok(Some(Ok(0))) => Some(End::Closed),
            Ok(Some(Ok(n))) => {
                buf.extend_from_slice(&chunk[..n]);
                None
            }
            Ok(Some(Err(_))) => Some(End::Io),
        }
    }
}
