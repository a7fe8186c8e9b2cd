//! Live events over real HTTP with the generated client: events reach open streams as they are
//! stored, filters, resuming with `Last-Event-ID` (by hand, and by the client's reconnecting
//! stream across cut connections) with no gap and no duplicate, tenancy, the per-account limit,
//! and a shutdown that open streams do not hold up. With `TEST_DATABASE=postgres`, two instances
//! on one database behave as one: wake-ups across instances (and across a cut listener), the
//! limit across instances and after an instance is killed, and the dispatcher woken by another
//! instance's commit.

use crate::support;

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

/// Two instances on one PostgreSQL database, as behind a balancer, with the root account
/// created by the first; `lease_secs` sets their stream leases. `None` unless the tests run on
/// PostgreSQL (SQLite has one instance).
async fn two_instances(lease_secs: u64) -> Option<(tempfile::TempDir, TestService, TestService)> {
    if service_backend() != Backend::Postgres {
        eprintln!("one instance: several share a PostgreSQL database (TEST_DATABASE=postgres)");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&dir, Uuid::new_v4());
    config.stream_lease_secs = lease_secs;
    let first = TestService::start(config.clone()).await;
    let second = TestService::start(config).await;
    Some((dir, first, second))
}

/// Posts `points` with an ingestion client; all are accepted.
async fn post(ingestion: &Client, points: Vec<TelemetryPoint>) {
    let count = points.len() as i64;
    let result = ingestion
        .ingest_telemetry(TelemetryBatch { points })
        .send()
        .await
        .unwrap();
    assert_eq!(result.accepted, count, "{result:?}");
}

/// The `q`-quantile of sorted `values`.
fn quantile(values: &[std::time::Duration], q: f64) -> std::time::Duration {
    values[((values.len() - 1) as f64 * q).round() as usize]
}

/// Events stored one at a time through `storing`: the time from each POST's start to the
/// event's arrival on `stream`, sorted, after checking that every event came, once, in order.
async fn latencies(
    storing: &TestService,
    client: &Client,
    account: Uuid,
    stream: &mut EventStream,
) -> Vec<std::time::Duration> {
    let mut truck = Ignition::new(storing, client, account, "truck").await;
    let ingestion = storing.ingestion_client(client, account).await;
    let mut seen = Vec::new();
    let mut times = Vec::new();
    for _ in 0..40 {
        let began = std::time::Instant::now();
        post(&ingestion, truck.points(1)).await;
        seen.extend(take(stream, 1).await);
        times.push(began.elapsed());
        // Idle between events, as a stream mostly is.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let stored = stored(client, account).await;
    assert_eq!(ids(&seen), stored[stored.len() - 40..]);
    assert_quiet(stream).await;
    times.sort();
    times
}

/// Events stored by one instance reach a stream open on another at once, not at a poll; on
/// SQLite, with its one instance, as before.
#[tokio::test]
async fn events_reach_streams_on_every_instance_at_once() {
    let dir;
    let (storing, streaming, label) = match two_instances(30).await {
        Some((d, a, b)) => {
            dir = d;
            (
                a,
                Some(b),
                "PostgreSQL, stored on one instance, streamed on the other",
            )
        }
        None => {
            dir = tempfile::tempdir().unwrap();
            let one = TestService::start(config(&dir, Uuid::new_v4())).await;
            (one, None, "SQLite, one instance")
        }
    };
    let client = storing.root_client();
    let root = storing.root;
    let streamer = streaming.as_ref().unwrap_or(&storing).root_client();
    let mut stream = streamer.stream_events(root).send_stream().await.unwrap();
    let times = latencies(&storing, &client, root, &mut stream).await;
    let (p50, p99) = (quantile(&times, 0.5), quantile(&times, 0.99));
    eprintln!(
        "{label}: stored to streamed p50 {p50:?}, p99 {p99:?}, max {:?}",
        times[times.len() - 1]
    );
    // A poll once a second would put the median near half a second.
    assert!(p50 < std::time::Duration::from_millis(250), "p50 {p50:?}");
    assert!(p99 < std::time::Duration::from_secs(1), "p99 {p99:?}");
    drop(stream);
    if let Some(streaming) = streaming {
        streaming.stop().await;
    }
    storing.stop().await;
    drop(dir);
}

/// Ends the listening connection of every instance on the database; how many it ended.
async fn terminate_listeners(db: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = $1 AND datname = current_database()) ended",
    )
    .bind(asset_alerting_service::store::postgres::live::LISTENER_NAME)
    .fetch_one(db)
    .await
    .unwrap()
}

/// The listening connections on the database.
async fn listeners(db: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1 \
         AND datname = current_database() AND query LIKE 'LISTEN%'",
    )
    .bind(asset_alerting_service::store::postgres::live::LISTENER_NAME)
    .fetch_one(db)
    .await
    .unwrap()
}

/// Waits until both instances listen (again).
async fn both_listen(db: &sqlx::PgPool) {
    let began = std::time::Instant::now();
    while listeners(db).await < 2 {
        assert!(began.elapsed() < WAIT, "the listeners did not reconnect");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The listeners' connections are ended (`pg_terminate_backend`) twice while one instance
/// stores events one at a time and a stream on the other follows them: every event arrives,
/// once, in order, and both instances listen again.
#[tokio::test]
async fn no_event_is_missed_or_doubled_when_the_listener_is_cut() {
    let Some((dir, storing, streaming)) = two_instances(30).await else {
        return;
    };
    let db = sqlx::PgPool::connect(&config(&dir, storing.root).database_url)
        .await
        .unwrap();
    let client = storing.root_client();
    let root = storing.root;
    let mut truck = Ignition::new(&storing, &client, root, "truck").await;
    let ingestion = storing.ingestion_client(&client, root).await;
    let mut stream = streaming
        .root_client()
        .stream_events(root)
        .send_stream()
        .await
        .unwrap();
    let mut seen = Vec::new();
    for round in 0..30 {
        if round == 10 || round == 20 {
            both_listen(&db).await;
            assert_eq!(terminate_listeners(&db).await, 2);
        }
        post(&ingestion, truck.points(1)).await;
        seen.extend(take(&mut stream, 1).await);
    }
    let stored = stored(&client, root).await;
    assert_eq!(ids(&seen), stored[stored.len() - 30..]);
    assert_quiet(&mut stream).await;
    both_listen(&db).await;
    // Listening again: an event arrives at once, not at a poll.
    let began = std::time::Instant::now();
    post(&ingestion, truck.points(1)).await;
    take(&mut stream, 1).await;
    assert!(
        began.elapsed() < std::time::Duration::from_millis(500),
        "{:?}",
        began.elapsed()
    );
    drop(stream);
    db.close().await;
    streaming.stop().await;
    storing.stop().await;
}

/// 50 openings at once, spread over both instances (on SQLite, its one): exactly 10 are
/// accepted, the others answered 429 with code 1600.
#[tokio::test]
async fn the_stream_limit_holds_across_instances() {
    let dir;
    let instances = match two_instances(30).await {
        Some((d, a, b)) => {
            dir = d;
            vec![a, b]
        }
        None => {
            dir = tempfile::tempdir().unwrap();
            vec![TestService::start(config(&dir, Uuid::new_v4())).await]
        }
    };
    let root = instances[0].root;
    let (account, _) = child(&instances[0], &instances[0].root_client(), root, "fleet").await;
    let clients: Vec<Client> = instances.iter().map(TestService::root_client).collect();
    let openings = (0..50).map(|i| {
        clients[i % clients.len()]
            .stream_events(account)
            .send_stream()
    });
    let answers = futures_util::future::join_all(openings).await;
    let mut open = Vec::new();
    for answer in answers {
        match answer {
            Ok(stream) => open.push(stream),
            Err(asset_alerting_client::Error::Api { status, body }) => {
                assert_eq!((status.as_u16(), body.code), (429, 1600))
            }
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!(open.len(), 10);
    drop(open);
    for instance in instances {
        instance.stop().await;
    }
    drop(dir);
}

/// An instance killed with SIGKILL cannot release its streams' leases: they stop counting once
/// they expire, within the lease (2 s here) after the last renewal.
#[tokio::test]
async fn a_killed_instances_streams_stop_counting_within_the_lease() {
    let Some((dir, alive, other)) = two_instances(2).await else {
        return;
    };
    other.stop().await;
    let root = alive.root;
    let url = config(&dir, root).database_url;
    let port = support::process::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut doomed = support::process::spawn_on(
        &url,
        &dir.path().join("service.db.keys"),
        port,
        root,
        &["--stream-lease-secs".to_owned(), "2".to_owned()],
    );
    support::process::wait_ready(&base).await;
    let on_doomed = support::process::root_client(&base, root);
    let mut open = Vec::new();
    for _ in 0..10 {
        open.push(on_doomed.stream_events(root).send_stream().await.unwrap());
    }
    let client = alive.root_client();
    let refused = client.stream_events(root).send_stream().await;
    assert_eq!(code_of(refused.map(|_| ())), (429, 1600));
    support::process::kill9(&mut doomed);
    let killed = std::time::Instant::now();
    let reopened = loop {
        match client.stream_events(root).send_stream().await {
            Ok(stream) => break stream,
            Err(e) => assert_eq!(code_of(Err::<(), _>(e)), (429, 1600)),
        }
        assert!(
            killed.elapsed() < WAIT,
            "the killed instance's leases still count"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let freed = killed.elapsed();
    eprintln!("a killed instance's streams stopped counting after {freed:?}");
    // Renewed every third of the lease: the last renewal was at most 2/3 s before the kill.
    assert!(freed > std::time::Duration::from_millis(1000), "{freed:?}");
    assert!(freed < std::time::Duration::from_millis(3500), "{freed:?}");
    drop((open, reopened));
    alive.stop().await;
}
/// A stream whose lease expired before its instance renewed it (the instance stalled, and
/// another opening may have counted the lease free) ends at the next renewal; the client then
/// reconnects, and is counted again.
#[tokio::test]
async fn a_stream_whose_lease_expired_ends() {
    let Some((dir, first, second)) = two_instances(3).await else {
        return;
    };
    second.stop().await;
    let db = sqlx::PgPool::connect(&config(&dir, first.root).database_url)
        .await
        .unwrap();
    let client = first.root_client();
    let mut stream = client
        .stream_events(first.root)
        .send_stream()
        .await
        .unwrap();
    let mut kept = client
        .stream_events(first.root)
        .send_stream()
        .await
        .unwrap();
    // As after a stall: one lease has expired.
    let expired = sqlx::query(
        "UPDATE stream_leases SET expires_at = now() - interval '1 second' \
         WHERE id = (SELECT id FROM stream_leases ORDER BY id LIMIT 1)",
    )
    .execute(&db)
    .await
    .unwrap()
    .rows_affected();
    assert_eq!(expired, 1);
    // Renewed every second (a third of 3 s).
    let (a, b) = tokio::join!(
        tokio::time::timeout(std::time::Duration::from_secs(3), stream.next()),
        tokio::time::timeout(std::time::Duration::from_secs(3), kept.next()),
    );
    let ended = [matches!(a, Ok(None)), matches!(b, Ok(None))];
    assert_eq!(ended.iter().filter(|e| **e).count(), 1, "{ended:?}");
    assert!(a.is_err() || b.is_err(), "the other stream stays open");
    // The expired lease is deleted, the other one kept.
    let began = std::time::Instant::now();
    loop {
        let leases: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM stream_leases")
            .fetch_one(&db)
            .await
            .unwrap();
        if leases == 1 {
            break;
        }
        assert!(began.elapsed() < WAIT, "{leases} leases");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    drop((stream, kept));
    db.close().await;
    first.stop().await;
}

/// Notifications stored by an instance without a dispatcher of its own (only its API is
/// served) are delivered by the other instance's idle dispatcher at once: the commit wakes it,
/// where it would otherwise look again only after 30 s.
#[tokio::test]
async fn another_instances_idle_dispatcher_delivers_at_once() {
    if service_backend() != Backend::Postgres {
        eprintln!(
            "skipped: several instances share a PostgreSQL database (TEST_DATABASE=postgres)"
        );
        return;
    }
    let receiver = asset_alerting_channels::testing::WebhookReceiver::start("whsec_AA==")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&dir, Uuid::new_v4());
    config.allow_http_callbacks = true;
    config.allow_private_callbacks = true;
    let delivering = TestService::start(config.clone()).await;
    let storing = asset_alerting_service::app::App::build(&config)
        .await
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = storing.router.clone();
    let api = tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await
    });
    let root = delivering.root;
    let client = support::process::root_client(&base, root);
    let account = client
        .create_account(
            root,
            CreateAccountRequest {
                name: "hooked".to_owned(),
                friendly_name: None,
                culture: None,
                technical_email_address: None,
                callback_uri: Some(receiver.url("/hook")),
            },
        )
        .send()
        .await
        .unwrap()
        .id;
    let secret = client.get_webhook_secret(account).send().await.unwrap();
    receiver.set_secret(&secret.secret);
    // Its first point, which raises no event.
    let mut truck = Ignition::new(&delivering, &delivering.root_client(), account, "truck").await;
    let token = client
        .get_ingestion_token(account)
        .send()
        .await
        .unwrap()
        .token;
    let ingestion = Client::builder(&base).bearer_token(&token).build().unwrap();
    let mut times = Vec::new();
    for _ in 0..20 {
        let before = receiver.received_count();
        let began = std::time::Instant::now();
        post(&ingestion, truck.points(1)).await;
        while receiver.received_count() == before {
            assert!(began.elapsed() < WAIT, "no webhook within {WAIT:?}");
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        times.push(began.elapsed());
    }
    times.sort();
    let (p50, p99) = (quantile(&times, 0.5), quantile(&times, 0.99));
    eprintln!("stored on one instance, delivered by the other: p50 {p50:?}, p99 {p99:?}");
    assert!(p99 < std::time::Duration::from_secs(2), "p99 {p99:?}");
    api.abort();
    delivering.stop().await;
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
