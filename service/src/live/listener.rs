//! Hearing other instances' commits (PostgreSQL): one listening connection per instance. A
//! notification of new events wakes the account's streams here; one of new notifications wakes
//! the dispatcher, so whichever instance is free first claims them.
//!
//! NOTIFY reaches only sessions that are listening, so when the connection drops the streams
//! look every second until it is back, and once more after `LISTEN`: nothing is missed, and
//! since streams read by position, nothing is sent twice.

use super::LiveEvents;
use crate::store::postgres::live::{EVENTS_CHANNEL, OUTBOX_CHANNEL};
use sqlx::PgPool;
use sqlx::postgres::{PgListener, PgNotification};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// First wait before reconnecting; doubled per failure up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(10);
/// How often the listening connection is asked to answer: a connection that died without a
/// word (a network partition, a dropped NAT entry) delivers nothing and reports no error.
const CHECK: Duration = Duration::from_secs(30);
const CHECK_WAIT: Duration = Duration::from_secs(5);

/// Listens on `pool` (a pool of its own, of one connection) until the service stops.
pub fn spawn(pool: PgPool, hub: Arc<LiveEvents>, dispatch: Arc<Notify>) {
    tokio::spawn(async move {
        tokio::select! {
            _ = run(&pool, &hub, &dispatch) => {}
            _ = hub.closed() => {}
        }
    });
}

async fn run(pool: &PgPool, hub: &LiveEvents, dispatch: &Notify) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        match listen(pool).await {
            Ok(mut listener) => {
                // Whatever was stored while nobody listened is read now.
                hub.set_heard(true);
                dispatch.notify_one();
                let since = Instant::now();
                let why = hear(&mut listener, hub, dispatch).await;
                hub.set_heard(false);
                tracing::warn!(%why, "live events: the listening connection was lost; streams look every second until it is back");
                if since.elapsed() > MAX_BACKOFF {
                    backoff = FIRST_BACKOFF;
                }
            }
            Err(e) => tracing::warn!(error = %e, "live events: listening failed"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

async fn listen(pool: &PgPool) -> sqlx::Result<PgListener> {
    let mut listener = PgListener::connect_with(pool).await?;
    // A lost connection is reconnected here, with backoff, not inside the listener.
    listener.eager_reconnect(false);
    listener
        .listen_all([EVENTS_CHANNEL, OUTBOX_CHANNEL])
        .await?;
    Ok(listener)
}

/// Hands notifications on until the connection is lost; why it was.
async fn hear(listener: &mut PgListener, hub: &LiveEvents, dispatch: &Notify) -> String {
    let mut check = tokio::time::interval_at(tokio::time::Instant::now() + CHECK, CHECK);
    loop {
        // `try_recv` is cancel-safe (sqlx keeps a partly read message in its buffer).
        let heard = tokio::select! {
            heard = listener.try_recv() => Some(heard),
            _ = check.tick() => None,
        };
        match heard {
            Some(Ok(Some(notification))) => handle(&notification, hub, dispatch),
            Some(Ok(None)) => return "the connection closed".to_owned(),
            Some(Err(e)) => return e.to_string(),
            None => {
                let answer = tokio::time::timeout(
                    CHECK_WAIT,
                    sqlx::query("SELECT 1").execute(&mut *listener),
                )
                .await;
                match answer {
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => return e.to_string(),
                    Err(_) => return format!("no answer within {CHECK_WAIT:?}"),
                }
            }
        }
    }
}

fn handle(notification: &PgNotification, hub: &LiveEvents, dispatch: &Notify) {
    match notification.channel() {
        EVENTS_CHANNEL => match parse(notification.payload()) {
            Some((account, _position)) => hub.wake(account),
            None => tracing::warn!(
                payload = notification.payload(),
                "live events: unreadable notification"
            ),
        },
        OUTBOX_CHANNEL => dispatch.notify_one(),
        _ => {}
    }
}

/// `"<account id> <stream position>"`.
fn parse(payload: &str) -> Option<(uuid::Uuid, i64)> {
    let (account, position) = payload.split_once(' ')?;
    Some((account.parse().ok()?, position.parse().ok()?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn payloads_name_an_account_and_a_position() {
        let account = uuid::Uuid::new_v4();
        assert_eq!(super::parse(&format!("{account} 42")), Some((account, 42)));
        assert_eq!(super::parse(&account.to_string()), None);
        assert_eq!(super::parse("x 1"), None);
    }
}
