//! Live events over real HTTP with the generated client: events reach open streams as they are
//! stored, filters, resuming with `Last-Event-ID` (by hand, and by the client's reconnecting
//! stream across cut connections) with no gap and no duplicate, tenancy, the per-account limit,
//! and a shutdown that open streams do not hold up.

mod support;

use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use asset_alerting_client::stream::Events;
use chrono::{DateTime, Duration, Utc};
use futures_util::StreamExt;
use std::sync::Arc;
use support::*;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use uuid::Uuid;

/// How long a test waits for one event before it fails.
const WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Drives one asset's ignition on and off: after its first point, every point is one event
/// (IgnitionTurnedOff, IgnitionTurnedOn, ...).
struct Ignition {
    asset: Uuid,
    at: DateTime<Utc>,
    on: bool,
}

impl Ignition {
    /// An asset of `account` whose ignition state is known (on), so the next point is an event.
    async fn new(service: &TestService, client: &Client, account: Uuid, name: &str) -> Ignition {
        let asset = client
            .create_asset(account, asset_input(name))
            .send()
            .await
            .unwrap();
        let mut ignition = Ignition {
            asset: asset.id,
            // Whole seconds: stored instants keep microseconds, and filters compare with them.
            at: DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap(),
            on: false,
        };
        let first = ignition.points(1);
        ingest(service, client, account, first).await;
        ignition
    }

    fn points(&mut self, count: usize) -> Vec<TelemetryPoint> {
        (0..count)
            .map(|_| {
                self.at += Duration::seconds(1);
                self.on = !self.on;
                TelemetryPoint {
                    ignition: Some(self.on),
                    ..point_of(Some(self.asset), None, self.at)
                }
            })
            .collect()
    }
}

async fn ingest(
    service: &TestService,
    client: &Client,
    account: Uuid,
    points: Vec<TelemetryPoint>,
) {
    let result = service
        .ingestion_client(client, account)
        .await
        .ingest_telemetry(TelemetryBatch { points })
        .send()
        .await
        .unwrap();
    assert_eq!(result.rejected, 0, "{result:?}");
}

type EventStream = Events<Event, asset_alerting_client::errors::StreamEvents>;

/// The next `count` events of `stream`, each with its SSE id.
async fn take(stream: &mut EventStream, count: usize) -> Vec<(i64, Event)> {
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let next = tokio::time::timeout(WAIT, stream.next())
            .await
            .unwrap_or_else(|_| panic!("no event within {WAIT:?} after {} of {count}", out.len()))
            .expect("the stream ended early")
            .expect("the event decodes");
        let id = next.id.expect("every event has an id").parse().unwrap();
        out.push((id, next.data));
    }
    out
}

/// Nothing more arrives for a while.
async fn assert_quiet(stream: &mut EventStream) {
    let more = tokio::time::timeout(std::time::Duration::from_millis(300), stream.next()).await;
    assert!(more.is_err(), "unexpected: {more:?}");
}

/// The account's stored events, oldest first (as a stream sends them).
async fn stored(client: &Client, account: Uuid) -> Vec<Uuid> {
    let mut ids: Vec<Uuid> = client
        .list_events(account)
        .take(500)
        .send()
        .await
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    ids.reverse();
    ids
}

fn ids(events: &[(i64, Event)]) -> Vec<Uuid> {
    events.iter().map(|(_, e)| e.id).collect()
}

#[tokio::test]
async fn open_streams_receive_new_events_with_the_filters_of_list_events() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let mut truck = Ignition::new(&service, &root, account, "truck").await;
    let mut van = Ignition::new(&service, &root, account, "van").await;
    // Events stored before a stream opens are not sent without Last-Event-ID.
    ingest(&service, &root, account, truck.points(2)).await;
    let before = stored(&root, account).await;

    let mut all = root.stream_events(account).send_stream().await.unwrap();
    let mut trucks_off = root
        .stream_events(account)
        .asset_id(truck.asset)
        .event_type(EventType::IgnitionTurnedOff)
        .send_stream()
        .await
        .unwrap();
    let mut any = root
        .stream_events(account)
        .event_type(EventType::Any)
        .send_stream()
        .await
        .unwrap();
    let window_start = van.at + Duration::seconds(1);
    let mut window = root
        .stream_events(account)
        .asset_id(van.asset)
        .from(window_start)
        .to(window_start + Duration::seconds(2))
        .send_stream()
        .await
        .unwrap();

    ingest(&service, &root, account, truck.points(4)).await;
    ingest(&service, &root, account, van.points(3)).await;

    let received = take(&mut all, 7).await;
    let positions: Vec<i64> = received.iter().map(|(p, _)| *p).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    let mut sent = ids(&received);
    let mut listed: Vec<Uuid> = stored(&root, account)
        .await
        .into_iter()
        .filter(|id| !before.contains(id))
        .collect();
    sent.sort();
    listed.sort();
    assert_eq!(
        sent, listed,
        "the stream sends exactly the events stored after it opened"
    );
    assert_quiet(&mut all).await;

    let off = take(&mut trucks_off, 2).await;
    assert!(off.iter().all(|(_, e)| e.asset_id == truck.asset
        && e.event_type == EventType::IgnitionTurnedOff));
    assert_quiet(&mut trucks_off).await;
    assert_eq!(ids(&take(&mut any, 7).await), ids(&received));
    let windowed = take(&mut window, 2).await;
    assert!(windowed.iter().all(|(_, e)| e.asset_id == van.asset
        && e.occurred_at >= window_start
        && e.occurred_at < window_start + Duration::seconds(2)));
    assert_quiet(&mut window).await;

    // A stream still open does not hold up a graceful shutdown; it ends.
    tokio::time::timeout(std::time::Duration::from_secs(10), service.stop())
        .await
        .expect("the service stops with streams open");
    let end = tokio::time::timeout(WAIT, all.next()).await.unwrap();
    assert!(end.is_none(), "{end:?}");
}

#[tokio::test]
async fn last_event_id_resumes_with_no_gap_and_no_duplicate() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let mut truck = Ignition::new(&service, &root, account, "truck").await;
    ingest(&service, &root, account, truck.points(5)).await;

    // From the beginning of the stream: the stored events, oldest first.
    let mut first = root
        .stream_events(account)
        .last_event_id("0")
        .send_stream()
        .await
        .unwrap();
    let early = take(&mut first, 2).await;
    drop(first);
    ingest(&service, &root, account, truck.points(3)).await;

    let mut resumed = root
        .stream_events(account)
        .last_event_id(early[1].0.to_string())
        .send_stream()
        .await
        .unwrap();
    let rest = take(&mut resumed, 6).await;
    assert_quiet(&mut resumed).await;
    let mut seen = ids(&early);
    seen.extend(ids(&rest));
    assert_eq!(seen, stored(&root, account).await);
    // The first event of a stream tells the client to reconnect after a second.
    let mut again = root
        .stream_events(account)
        .last_event_id("0")
        .send_stream()
        .await
        .unwrap();
    let event = tokio::time::timeout(WAIT, again.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(event.retry, Some(std::time::Duration::from_secs(1)));
    // Resuming after the newest event waits for new ones.
    let newest = rest.last().unwrap().0;
    let mut caught_up = root
        .stream_events(account)
        .last_event_id(newest.to_string())
        .send_stream()
        .await
        .unwrap();
    assert_quiet(&mut caught_up).await;
    ingest(&service, &root, account, truck.points(1)).await;
    let next = take(&mut caught_up, 1).await;
    assert!(next[0].0 > newest);
    drop((again, caught_up, resumed));
    service.stop().await;
}

/// A TCP relay to `target` whose connections can all be cut at once, as a network failure or a
/// restarting balancer would.
struct Relay {
    address: String,
    cut: watch::Sender<u64>,
}

impl Relay {
    async fn start(target: &str) -> Relay {
        let target = target.trim_start_matches("http://").to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let (cut, _) = watch::channel(0u64);
        let cuts = Arc::new(cut.subscribe());
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let target = target.clone();
                let mut cut = (*cuts).clone();
                cut.borrow_and_update();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(&target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Relay { address, cut }
    }

    fn cut_all(&self) {
        self.cut.send_modify(|n| *n += 1);
    }
}

#[tokio::test]
async fn the_reconnecting_client_resumes_across_cut_connections() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let mut truck = Ignition::new(&service, &root, account, "truck").await;
    let relay = Relay::start(&service.base).await;
    let relayed = Client::builder(&relay.address)
        .client_credentials(account.to_string(), ROOT_SECRET)
        .build()
        .unwrap();
    let mut stream = relayed
        .stream_events(account)
        .send_stream_reconnecting()
        .await
        .unwrap();
    let mut received = Vec::new();
    for round in 0..3 {
        ingest(&service, &root, account, truck.points(3)).await;
        received.extend(take(&mut stream, 2).await);
        // Cut with one event of the round still unread (in flight or buffered): it must come
        // once, either before the cut or after the reconnection.
        relay.cut_all();
        ingest(&service, &root, account, truck.points(2)).await;
        received.extend(take(&mut stream, 3).await);
        eprintln!("round {round}: {} events", received.len());
    }
    assert_quiet(&mut stream).await;
    assert_eq!(ids(&received), stored(&root, account).await);
    drop(stream);
    service.stop().await;
}

#[tokio::test]
async fn streams_follow_tenancy_and_refuse_bad_requests() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let (a, client_a) = child(&service, &root, service.root, "fleet-a").await;
    let (b, client_b) = child(&service, &root, service.root, "fleet-b").await;
    let mut truck = Ignition::new(&service, &client_a, a, "truck-a").await;

    // The parent follows its child's events.
    let mut parent = root.stream_events(a).send_stream().await.unwrap();
    // A sibling, and a child looking up at its parent, find no such account.
    let (status, code) = code_of(client_b.stream_events(a).send_stream().await.map(|_| ()));
    assert_eq!((status, code), (404, 1400));
    let (status, code) = code_of(
        client_a
            .stream_events(service.root)
            .send_stream()
            .await
            .map(|_| ()),
    );
    assert_eq!((status, code), (404, 1400));
    // Without a token, or with a wrong one: 401.
    let (status, code) = code_of(
        service
            .anonymous()
            .stream_events(a)
            .send_stream()
            .await
            .map(|_| ()),
    );
    assert_eq!((status, code), (401, 1100));
    let (status, code) = code_of(
        service
            .with_token("not-a-token")
            .stream_events(a)
            .send_stream()
            .await
            .map(|_| ()),
    );
    assert_eq!((status, code), (401, 1100));
    // Malformed Last-Event-ID and filters: 400.
    for bad in ["-1", "abc", "1.5", "99999999999999999999"] {
        let (status, code) = code_of(
            client_a
                .stream_events(a)
                .last_event_id(bad)
                .send_stream()
                .await
                .map(|_| ()),
        );
        assert_eq!((status, code), (400, 1000), "{bad}");
    }
    // An empty one is no position (an SSE `id:` line can reset it to empty): the stream opens.
    assert!(
        client_a
            .stream_events(a)
            .last_event_id("")
            .send_stream()
            .await
            .is_ok()
    );
    let http = reqwest::Client::new();
    let token: serde_json::Value = http
        .post(format!("{}/v1/auth/token", service.base))
        .basic_auth(service.root, Some(ROOT_SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let raw = http
        .get(format!(
            "{}/v1/accounts/{a}/events/stream?eventType=99",
            service.base
        ))
        .bearer_auth(token["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 400);
    let body: ErrorBody = raw.json().await.unwrap();
    assert_eq!(body.code, 1000);

    // The sibling's own stream stays empty while fleet-a's events flow.
    let mut sibling = client_b.stream_events(b).send_stream().await.unwrap();
    ingest(&service, &client_a, a, truck.points(2)).await;
    assert_eq!(take(&mut parent, 2).await.len(), 2);
    assert_quiet(&mut sibling).await;
    drop((parent, sibling));
    service.stop().await;
}

#[tokio::test]
async fn an_account_may_hold_ten_streams_at_once() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let (a, client_a) = child(&service, &root, service.root, "fleet-a").await;
    let mut truck = Ignition::new(&service, &client_a, a, "truck-a").await;
    let mut open = Vec::new();
    for _ in 0..10 {
        open.push(client_a.stream_events(a).send_stream().await.unwrap());
    }
    let refused = client_a.stream_events(a).send_stream().await;
    let Err(asset_alerting_client::Error::Api { status, body }) = refused else {
        panic!("the eleventh stream is refused");
    };
    assert_eq!((status.as_u16(), body.code), (429, 1600));
    assert!(body.message.contains("10"), "{}", body.message);
    // The limit is per account: the parent's own streams are not counted against fleet-a.
    let mut root_stream = root
        .stream_events(service.root)
        .send_stream()
        .await
        .unwrap();
    assert_quiet(&mut root_stream).await;

    // A closed stream frees its slot once the service notices, at the latest when it next
    // writes to it (here: an event).
    drop(open.pop());
    ingest(&service, &client_a, a, truck.points(1)).await;
    let mut reopened = None;
    for _ in 0..50 {
        match client_a.stream_events(a).send_stream().await {
            Ok(stream) => {
                reopened = Some(stream);
                break;
            }
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
    assert!(reopened.is_some(), "a slot is freed when a stream closes");
    drop((open, reopened, root_stream));
    service.stop().await;
}

#[tokio::test]
async fn events_another_instance_stored_arrive_within_its_poll() {
    if service_backend() != Backend::Postgres {
        eprintln!(
            "skipped: several instances share a PostgreSQL database (TEST_DATABASE=postgres)"
        );
        return;
    }
    // Two instances on one database, as behind a balancer: the stream is on one, ingestion on
    // the other, so no wake-up reaches the stream; its periodic look finds the events.
    let dir = tempfile::tempdir().unwrap();
    let root = Uuid::new_v4();
    let ingesting = TestService::start(config(&dir, root)).await;
    let streaming = TestService::start(config(&dir, root)).await;
    let client = ingesting.root_client();
    let mut truck = Ignition::new(&ingesting, &client, root, "truck").await;
    let mut stream = streaming
        .root_client()
        .stream_events(root)
        .send_stream()
        .await
        .unwrap();
    let started = std::time::Instant::now();
    ingest(&ingesting, &client, root, truck.points(3)).await;
    let received = take(&mut stream, 3).await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(ids(&received), stored(&client, root).await);
    drop(stream);
    streaming.stop().await;
    ingesting.stop().await;
}

/// A stream ends one access-token lifetime after it opened, so it never outlives the token it
/// was opened with by more than that; a client with a current token resumes where it ended.
#[tokio::test]
async fn a_stream_ends_after_one_token_lifetime_and_resumes_with_a_new_token() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&dir, Uuid::new_v4());
    config.token_lifetime_secs = 2;
    let service = TestService::start(config).await;
    let root = service.root_client();
    let account = service.root;
    let mut truck = Ignition::new(&service, &root, account, "truck").await;
    let mut stream = root
        .stream_events(account)
        .last_event_id("0")
        .send_stream()
        .await
        .unwrap();
    ingest(&service, &root, account, truck.points(1)).await;
    let first = take(&mut stream, 1).await;
    // The stream ends within the lifetime (2 s), well before WAIT.
    let end = tokio::time::timeout(WAIT, stream.next()).await.unwrap();
    assert!(end.is_none(), "the stream ended: {end:?}");
    ingest(&service, &root, account, truck.points(1)).await;
    // The client's token was renewed meanwhile (client credentials); it resumes after the last.
    let mut resumed = root
        .stream_events(account)
        .last_event_id(first[0].0.to_string())
        .send_stream()
        .await
        .unwrap();
    let next = take(&mut resumed, 1).await;
    assert!(next[0].0 > first[0].0);
    service.stop().await;
}
