//! Stand-ins speaking each provider's protocol on 127.0.0.1 (OS-chosen port), for tests of this
//! crate and of the service. Each records what it received and stops when its handle drops.

mod smtp;
mod telegram;
mod twilio;
mod webhook;

use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub use smtp::{ReceivedMail, SmtpServer};
pub use telegram::{TelegramRequest, TelegramStandIn};
pub use twilio::{TwilioRequest, TwilioResource, TwilioStandIn};
pub use webhook::{ReceivedWebhook, WebhookReceiver};

/// A running axum server; stops (gracefully) on drop.
struct HttpServer {
    addr: SocketAddr,
    _stop: oneshot::Sender<()>,
}

impl HttpServer {
    async fn start(router: Router) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let shutdown = async {
                // Dropping the sender ends the wait as well.
                let _ = stopped.await;
            };
            if let Err(error) = axum::serve(listener, router)
                .with_graceful_shutdown(shutdown)
                .await
            {
                tracing::warn!(%error, "stand-in server stopped");
            }
        });
        Ok(Self { addr, _stop: stop })
    }

    fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// "Answer the next N requests with this status."
#[derive(Default)]
struct Failures {
    remaining: AtomicUsize,
    status: Mutex<u16>,
}

impl Failures {
    fn set(&self, count: usize, status: u16) {
        *self.status.lock().unwrap() = status;
        self.remaining.store(count, Ordering::SeqCst);
    }

    /// The status to fail this request with, if one is scripted.
    fn take(&self) -> Option<u16> {
        self.remaining
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .ok()
            .map(|_| *self.status.lock().unwrap())
    }
}
