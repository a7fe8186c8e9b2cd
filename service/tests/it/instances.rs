//! Two service processes on one PostgreSQL database, as behind a load balancer: every prefix of
//! several trucks' drives is posted concurrently, in random order, each to either instance, and
//! one instance is killed with SIGKILL mid-run (its requests go to the other, as a balancer
//! retries them). The events and notifications must be exactly those one instance produces from
//! the same drives; each instance has an SMS provider of its own, so the test sees who sent
//! what: no notification was sent by both while both ran, and every one was sent.

use crate::support;

use asset_alerting_channels::testing::TwilioStandIn;
use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use rand::Rng;
use rand::seq::SliceRandom;
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::drive::{DRIVE, points};
use support::process::{free_port, kill9, root_client, spawn_on, wait_ready};
use support::{asset_input, berlin_recipient, empty_rules, plain_rule, sms};
use uuid::Uuid;

const TRUCKS: usize = 4;
/// The event types the drive raises without geofences; each truck has an SMS rule for each.
const NOTIFIED: [EventType; 7] = [
    EventType::IgnitionTurnedOn,
    EventType::MovementStarted,
    EventType::SpeedLimitExceeded,
    EventType::CountryBorderCrossed,
    EventType::MovementStopped,
    EventType::EngineIdling,
    EventType::IgnitionTurnedOff,
];

/// Per truck: its events as (seconds after the start, type), each with its notifications as
/// (channel, status), oldest first.
type Outcome = Vec<
    Vec<(
        (i64, EventType),
        Vec<(NotificationChannel, NotificationStatus)>,
    )>,
>;

struct Instances {
    dir: tempfile::TempDir,
    url: String,
    root: Uuid,
    /// The SMS provider of each instance.
    twilio: Vec<TwilioStandIn>,
}

/// The idempotency keys (notification ids) of the messages a provider created.
fn tokens(twilio: &TwilioStandIn) -> Vec<String> {
    let mut tokens: Vec<String> = twilio
        .messages()
        .into_iter()
        .map(|m| m.idempotency_token.unwrap())
        .collect();
    tokens.sort();
    tokens
}

impl Instances {
    async fn new(url: String, instances: usize) -> Instances {
        let mut twilio = Vec::new();
        for _ in 0..instances {
            let provider = TwilioStandIn::start("AC0001", "token").await.unwrap();
            provider.set_answer_delay(Duration::from_millis(20));
            twilio.push(provider);
        }
        Instances {
            dir: tempfile::tempdir().unwrap(),
            url,
            root: Uuid::new_v4(),
            twilio,
        }
    }

    /// Instance `i`, with the i-th SMS provider.
    fn spawn(&self, i: usize) -> (Child, String) {
        let extra: Vec<String> = [
            "--twilio-account-sid",
            "AC0001",
            "--twilio-auth-token",
            "token",
            "--twilio-from",
            "+15005550006",
            "--twilio-api-url",
            &self.twilio[i].base_url(),
            "--rate-limit-per-minute",
            "1000",
            "--dispatch-lease-secs",
            "2",
            "--database-max-connections",
            "8",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect();
        let port = free_port();
        let key_file = self.dir.path().join("service.keys");
        let child = spawn_on(&self.url, &key_file, port, self.root, &extra);
        (child, format!("http://127.0.0.1:{port}"))
    }

    /// The trucks, each with a speed limit and an SMS rule per notified event type.
    async fn prepare(&self, admin: &Client) -> Vec<Uuid> {
        let mut trucks = Vec::new();
        for i in 0..TRUCKS {
            let mut input = asset_input(&format!("truck-{i}"));
            input.telemetry_rules = Some(TelemetryRules {
                speed_limit: Some(90),
                ..empty_rules()
            });
            let truck = admin
                .create_asset(self.root, input)
                .send()
                .await
                .unwrap()
                .id;
            for (order, kind) in NOTIFIED.into_iter().enumerate() {
                let mut recipient = berlin_recipient();
                recipient.phone_number = Some(format!("+49151000000{i}"));
                admin
                    .create_alert_rule(
                        self.root,
                        truck,
                        plain_rule(kind, order as i64, recipient, sms(false)),
                    )
                    .send()
                    .await
                    .unwrap();
            }
            trucks.push(truck);
        }
        trucks
    }

    /// Waits until no notification is pending, then reads what happened to each truck.
    async fn outcome(&self, admin: &Client, trucks: &[Uuid], start: DateTime<Utc>) -> Outcome {
        let began = Instant::now();
        loop {
            let mut outcome = Vec::new();
            let mut pending = false;
            for truck in trucks {
                let mut events = admin
                    .list_events(self.root)
                    .asset_id(*truck)
                    .take(500)
                    .send()
                    .await
                    .unwrap();
                events.reverse();
                let mut per_truck = Vec::new();
                for event in events {
                    let notifications = admin
                        .list_event_notifications(self.root, event.id)
                        .send()
                        .await
                        .unwrap();
                    pending |= notifications
                        .iter()
                        .any(|n| n.status == NotificationStatus::Pending);
                    per_truck.push((
                        ((event.occurred_at - start).num_seconds(), event.event_type),
                        notifications
                            .iter()
                            .map(|n| (n.channel, n.status))
                            .collect(),
                    ));
                }
                outcome.push(per_truck);
            }
            if !pending {
                return outcome;
            }
            assert!(
                began.elapsed() < Duration::from_secs(90),
                "notifications still pending"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Every notification is recorded as sent; the messages the providers created are those
    /// notifications, each once; no instance sent one message twice.
    async fn assert_each_message_created_once(&self, admin: &Client) {
        let mut sent = Vec::new();
        for event in admin.list_events(self.root).take(500).send().await.unwrap() {
            for n in admin
                .list_event_notifications(self.root, event.id)
                .send()
                .await
                .unwrap()
            {
                assert_eq!(n.status, NotificationStatus::Sent, "{n:?}");
                sent.push(n.id.to_string());
            }
        }
        let mut created: Vec<String> = self.twilio.iter().flat_map(tokens).collect();
        for twilio in &self.twilio {
            assert_eq!(
                twilio.attempts(),
                twilio.messages().len(),
                "an instance sent twice"
            );
        }
        created.sort();
        created.dedup();
        sent.sort();
        assert_eq!(created, sent, "each notification created one message");
        assert_eq!(sent.len(), TRUCKS * NOTIFIED.len());
    }
}

fn start_time() -> DateTime<Utc> {
    DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).unwrap()
}

/// One instance, each truck's drive in one batch: the reference.
async fn single_instance(url: String, start: DateTime<Utc>) -> Outcome {
    let run = Instances::new(url, 1).await;
    let (mut child, base) = run.spawn(0);
    wait_ready(&base).await;
    let admin = root_client(&base, run.root);
    let trucks = run.prepare(&admin).await;
    let token = admin
        .get_ingestion_token(run.root)
        .send()
        .await
        .unwrap()
        .token;
    let ingest = Client::builder(&base).bearer_token(&token).build().unwrap();
    for truck in &trucks {
        let result = ingest
            .ingest_telemetry(TelemetryBatch {
                points: points(*truck, start),
            })
            .send()
            .await
            .unwrap();
        assert_eq!(result.accepted, DRIVE.len() as i64);
    }
    let outcome = run.outcome(&admin, &trucks, start).await;
    run.assert_each_message_created_once(&admin).await;
    kill9(&mut child);
    outcome
}

#[tokio::test]
async fn two_instances_one_killed_give_what_one_instance_gives() {
    let (Some(reference_db), Some(shared_db)) =
        (support::postgres::database(), support::postgres::database())
    else {
        return;
    };
    let start = start_time();
    let expected = single_instance(reference_db, start).await;
    assert!(
        expected.iter().all(|truck| truck.len() >= NOTIFIED.len()),
        "the drive raises every notified event: {expected:?}"
    );

    // Both instances start at once on an empty database: one migrates and creates the root
    // account, the other waits and finds them.
    let run = Instances::new(shared_db, 2).await;
    let (first, first_base) = run.spawn(0);
    let (second, second_base) = run.spawn(1);
    wait_ready(&first_base).await;
    wait_ready(&second_base).await;
    for base in [&first_base, &second_base] {
        let health = reqwest::get(format!("{base}/healthz")).await.unwrap();
        assert_eq!(health.text().await.unwrap(), "ok\ndatabase: postgres ok\n");
    }
    let survivor = Arc::new(Mutex::new(first));
    let doomed = Arc::new(Mutex::new(second));
    let admin = root_client(&first_base, run.root);
    let trucks = run.prepare(&admin).await;
    let token = admin
        .get_ingestion_token(run.root)
        .send()
        .await
        .unwrap()
        .token;
    let clients: Vec<Client> = [&first_base, &second_base]
        .iter()
        .map(|base| {
            Client::builder(base.as_str())
                .bearer_token(&token)
                .build()
                .unwrap()
        })
        .collect();

    // Every prefix of every drive: whichever order they are stored in, each adds only points
    // newer than those stored, so one instance would see each drive in order.
    let mut posts: Vec<(Uuid, usize)> = trucks
        .iter()
        .flat_map(|truck| (1..=DRIVE.len()).map(move |n| (*truck, n)))
        .collect();
    posts.shuffle(&mut rand::thread_rng());
    let total = posts.len();
    let done = Arc::new(AtomicUsize::new(0));
    let killed = Arc::new(AtomicBool::new(false));
    let served = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    // The kill, and what the survivor had sent by then.
    let kill = async {
        while done.load(Ordering::SeqCst) < total / 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        kill9(&mut doomed.lock().unwrap());
        killed.store(true, Ordering::SeqCst);
        tokens(&run.twilio[0])
    };
    let posting = futures_util::stream::iter(posts)
        .map(|(truck, n)| {
            let (clients, done, killed, served) =
                (&clients, done.clone(), killed.clone(), served.clone());
            async move {
                let batch = TelemetryBatch {
                    points: points(truck, start)[..n].to_vec(),
                };
                let first_choice = if killed.load(Ordering::SeqCst) {
                    0
                } else {
                    rand::thread_rng().gen_range(0..2)
                };
                let sent = clients[first_choice]
                    .ingest_telemetry(batch.clone())
                    .send()
                    .await;
                let result = match sent {
                    Ok(result) => {
                        served[first_choice].fetch_add(1, Ordering::SeqCst);
                        result
                    }
                    // The killed instance: the balancer sends the request to the other.
                    Err(_) if first_choice == 1 => {
                        clients[0].ingest_telemetry(batch).send().await.unwrap()
                    }
                    Err(e) => panic!("the surviving instance failed: {e:?}"),
                };
                done.fetch_add(1, Ordering::SeqCst);
                result
            }
        })
        .buffer_unordered(8)
        .collect::<Vec<TelemetryBatchResult>>();
    let (survivor_sent_before_kill, results) = tokio::join!(kill, posting);
    assert!(results.iter().all(|r| r.rejected == 0), "{results:?}");
    let served = [0, 1].map(|i| served[i].load(Ordering::SeqCst));
    assert!(
        served[1] > 0 && served[0] > served[1],
        "both took requests: {served:?}"
    );

    let outcome = run.outcome(&admin, &trucks, start).await;
    assert_eq!(outcome, expected);
    run.assert_each_message_created_once(&admin).await;
    // While both ran, no notification went out from both (a message the killed one was sending
    // may be sent again by the survivor once its lease expires: the provider dedupes that).
    let killed_sent = tokens(&run.twilio[1]);
    let both: Vec<&String> = killed_sent
        .iter()
        .filter(|t| survivor_sent_before_kill.contains(t))
        .collect();
    assert!(both.is_empty(), "sent by both instances: {both:?}");
    let taken_over = killed_sent
        .iter()
        .filter(|t| tokens(&run.twilio[0]).contains(t))
        .count();
    eprintln!(
        "requests served {served:?}; messages sent by the killed instance {}, sent again after \
         its lease expired {taken_over}",
        killed_sent.len()
    );
    kill9(&mut survivor.lock().unwrap());
}

/// `/healthz` says when the database is gone (503, for a balancer to take the instance out),
/// and says so within its own deadline.
#[tokio::test]
async fn healthz_answers_503_when_the_database_is_gone() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.create_database();
    let run = Instances::new(url.clone(), 1).await;
    let (instance, base) = run.spawn(0);
    let _instance = KillOnDrop(instance);
    wait_ready(&base).await;
    let health = reqwest::get(format!("{base}/healthz")).await.unwrap();
    assert_eq!(health.status(), 200);
    cluster.drop_database(&url);
    let asked = Instant::now();
    let health = reqwest::get(format!("{base}/healthz")).await.unwrap();
    assert_eq!(health.status(), 503);
    assert_eq!(
        health.text().await.unwrap(),
        "database unavailable\ndatabase: postgres unreachable\n"
    );
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "answered within its deadline"
    );
}

/// Kills the instance when the test ends, passed or not.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        kill9(&mut self.0);
    }
}
