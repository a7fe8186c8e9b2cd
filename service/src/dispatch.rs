//! The dispatcher: drains the notification outbox. It leases due notifications, applies the
//! recipient's rate limit, renders and sends each through its channel, and records the attempt.
//! A crash between send and record leaves the lease to expire, so the notification is sent again
//! with the same idempotency key (at least once; providers that take the key dedupe it).
//!
//! A dispatcher that merely stalls past its lease (a slow group, a pause) must not send what
//! another has taken over: right before each send it confirms its claim in the store, which
//! extends the lease and counts the send for the recipient's rate limit across all instances
//! (where no rate limit applies, during the send before it, at most a quarter lease early).
//! Each send is bounded by half the lease, so the lease outlives the send and its record.
//!
//! Every destination (a webhook's receiver URL; a channel with a recipient address) is a queue of
//! its own: a claim takes a few notifications of each destination nobody holds, destinations
//! taking turns, and one task delivers them in order. So a slow or hanging receiver holds one
//! delivery slot, delays only its own deliveries, and a receiver that keeps failing is backed off
//! as a whole ([`crate::breaker`]) and holds none meanwhile.

use crate::api::Service;
use crate::breaker::{BreakerConfig, Breakers};
use crate::store::alerts::{
    AlertStore, AttemptResult, ChannelKind, Claimed, Destination, Outcome, SendCheck, SendStart,
};
use crate::store::{Store, micros};
use asset_alerting_channels::{
    Address, Channels, DeliveryError, OutgoingMessage, SendError, WebhookDelivery, WebhookSender,
};
use asset_alerting_matching::limits::RateLimit;
use asset_alerting_matching::messages::{
    Message, MessageFacts, render, render_digest, render_digest_spoken, render_spoken,
};
use asset_alerting_models::{Event, WebhookEvent, WebhookEventType};
use chrono::{DateTime, Duration, Utc};
use rand::Rng;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::JoinSet;
use uuid::Uuid;

/// Settings of the dispatcher (see the spec's "Notifications" section for the defaults).
#[derive(Debug, Clone)]
pub struct DispatchConfig {
    /// How long a claimed notification is left to one dispatcher before another may take it.
    pub lease: Duration,
    /// First retry delay; doubled per attempt up to `retry_max`, with ±20 % jitter.
    pub retry_base: Duration,
    pub retry_max: Duration,
    /// A notification not delivered this long after its creation fails for good.
    pub max_age: Duration,
    pub rate_limit: RateLimit,
    /// Destinations being delivered to at once (each one's notifications go one at a time).
    pub concurrency: usize,
    pub breaker: BreakerConfig,
}

impl Default for DispatchConfig {
    fn default() -> Self {
        DispatchConfig {
            lease: Duration::seconds(60),
            retry_base: Duration::seconds(10),
            retry_max: Duration::minutes(30),
            max_age: Duration::hours(24),
            rate_limit: RateLimit::default(),
            concurrency: 16,
            breaker: BreakerConfig::default(),
        }
    }
}

/// Held while one group of a destination is delivered, so its messages go out in order.
type DestinationTurn = Arc<tokio::sync::Mutex<()>>;
/// A send waiting for its confirmation, answered with what to do and the instant it was decided.
type Confirmation = (
    SendCheck,
    tokio::sync::oneshot::Sender<Option<(SendStart, DateTime<Utc>)>>,
);

pub struct Dispatcher<S> {
    pub service: Arc<Service<S>>,
    pub channels: Arc<Channels>,
    pub webhooks: Arc<WebhookSender>,
    pub config: DispatchConfig,
    /// Per destination: locked while it is being served by this dispatcher.
    destinations: std::sync::Mutex<HashMap<Destination, DestinationTurn>>,
    breakers: Breakers,
}

impl<S> Dispatcher<S> {
    pub fn new(
        service: Arc<Service<S>>,
        channels: Arc<Channels>,
        webhooks: Arc<WebhookSender>,
        config: DispatchConfig,
    ) -> Dispatcher<S> {
        Dispatcher {
            service,
            channels,
            webhooks,
            breakers: Breakers::new(config.breaker),
            config,
            destinations: Default::default(),
        }
    }
}

/// The delay before retry number `attempt` (1 = the first retry).
pub fn backoff(config: &DispatchConfig, attempt: i64, jitter: f64) -> Duration {
    let exponent = attempt.clamp(1, 30) - 1;
    let base = config.retry_base.num_milliseconds() as f64 * 2f64.powi(exponent as i32);
    let capped = base.min(config.retry_max.num_milliseconds() as f64);
    Duration::milliseconds((capped * (1.0 + jitter)).round() as i64)
}

/// Notifications claimed per free delivery slot at most, and per destination at most.
const CLAIMS_PER_SLOT: usize = 8;

/// When a claim found nothing it may take: due notifications of destinations held by a
/// delivery are looked at again no sooner than this, unless something wakes the loop (a new
/// notification, a recorded outcome, a finished delivery).
const IDLE_FLOOR: std::time::Duration = std::time::Duration::from_millis(100);

fn destination(c: &Claimed) -> Destination {
    (c.target.channel, c.target.address.clone())
}

/// A confirmation asked for before its send's turn (see `deliver_group`).
struct EarlyConfirmation {
    id: Uuid,
    asked: std::time::Instant,
    answered: ConfirmationAnswer,
}

type ConfirmationAnswer = tokio::sync::oneshot::Receiver<Option<(SendStart, DateTime<Utc>)>>;

/// Asks the confirmer to confirm `c`'s send; `None` once the dispatcher is stopping.
fn ask(
    confirm: &mpsc::UnboundedSender<Confirmation>,
    c: &Claimed,
    limit: Option<RateLimit>,
) -> Option<ConfirmationAnswer> {
    let (answer, answered) = tokio::sync::oneshot::channel();
    confirm.send((SendCheck::of(c, limit), answer)).ok()?;
    Some(answered)
}

/// One destination's notifications go in order, in one task; the claim's order (destinations
/// taking turns) is kept between the groups.
fn by_destination(claimed: Vec<Claimed>) -> Vec<Vec<Claimed>> {
    let mut order: Vec<Destination> = Vec::new();
    let mut groups: HashMap<Destination, Vec<Claimed>> = HashMap::new();
    for c in claimed {
        let key = destination(&c);
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(c);
    }
    order
        .into_iter()
        .filter_map(|key| groups.remove(&key))
        .collect()
}

fn failed(e: &DeliveryError) -> (Option<String>, String) {
    (e.provider_code.clone(), e.message.clone())
}

impl<S: Store + AlertStore> Dispatcher<S> {
    /// Runs until `shutdown` turns true, then lets deliveries in flight finish and records them.
    ///
    /// Claims are made only while delivery slots are free, a few per slot, so a slow receiver
    /// holds one slot, not the others, and nothing claimed waits long for a slot. Outcomes go to one
    /// recorder task, which writes whatever has accumulated in one transaction.
    pub async fn run(self: Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let wake = self.service.alerting().dispatch_wake.clone();
        let slots = Arc::new(Semaphore::new(self.config.concurrency.max(1)));
        let (outcomes, received) = mpsc::unbounded_channel::<Outcome>();
        let recorder = tokio::spawn(self.clone().record(received));
        let (confirm, to_confirm) = mpsc::unbounded_channel::<Confirmation>();
        let confirmer = tokio::spawn(self.clone().confirm(to_confirm));
        let mut deliveries = JoinSet::new();
        while !*shutdown.borrow() {
            while deliveries.try_join_next().is_some() {}
            let free = slots.available_permits();
            let claimed = if free == 0 {
                Ok(Vec::new())
            } else {
                let now = Utc::now();
                let store = self.service.store();
                // A few per free slot: a claim waits for the writer lock (behind ingestion), so
                // each should carry work for a while; few enough that none waits long for a slot.
                let limit = (free * CLAIMS_PER_SLOT) as i64;
                let lease_until = now + self.config.lease;
                store
                    .claim_due(now, lease_until, CLAIMS_PER_SLOT as i64, limit)
                    .await
            };
            let claimed = claimed.unwrap_or_else(|e| {
                tracing::error!(error = %e, "claiming due notifications failed");
                Vec::new()
            });
            let idle = claimed.is_empty();
            for group in by_destination(claimed) {
                let Ok(slot) = slots.clone().acquire_owned().await else {
                    break;
                };
                let (dispatcher, outcomes) = (self.clone(), outcomes.clone());
                let confirm = confirm.clone();
                deliveries.spawn(async move {
                    for outcome in dispatcher.deliver_group(group, &confirm).await {
                        drop(outcomes.send(outcome));
                    }
                    drop(slot);
                });
            }
            if !idle && slots.available_permits() > 0 {
                continue;
            }
            let sleep = if slots.available_permits() == 0 {
                std::time::Duration::from_secs(1)
            } else {
                match self.service.store().next_due().await {
                    Ok(Some(due)) => (due - Utc::now())
                        .to_std()
                        .unwrap_or_default()
                        .clamp(IDLE_FLOOR, std::time::Duration::from_secs(30)),
                    _ => std::time::Duration::from_secs(30),
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(sleep) => {}
                _ = wake.notified() => {}
                _ = shutdown.changed() => {}
                Some(_) = deliveries.join_next(), if !deliveries.is_empty() => {}
            }
        }
        while deliveries.join_next().await.is_some() {}
        drop((outcomes, confirm));
        let _ = tokio::join!(recorder, confirmer);
    }

    /// Writes outcomes as they come, all that have accumulated in one transaction, then wakes
    /// the claim loop: a retry or a digest may now be due sooner than it planned to look.
    async fn record(self: Arc<Self>, mut received: mpsc::UnboundedReceiver<Outcome>) {
        let wake = self.service.alerting().dispatch_wake.clone();
        let mut batch = Vec::new();
        while received.recv_many(&mut batch, 512).await > 0 {
            if let Err(e) = self.service.store().record_round(&batch, Utc::now()).await {
                // The leases lapse and the notifications are sent again: at least once.
                tracing::error!(error = %e, "recording deliveries failed");
            }
            batch.clear();
            wake.notify_one();
        }
    }

    /// Confirms sends as they come, all that have accumulated in one transaction, as outcomes are
    /// recorded: one writer transaction for many sends instead of one each.
    async fn confirm(self: Arc<Self>, mut received: mpsc::UnboundedReceiver<Confirmation>) {
        let mut batch = Vec::new();
        while received.recv_many(&mut batch, 256).await > 0 {
            let (checks, answers): (Vec<SendCheck>, Vec<_>) = batch.drain(..).unzip();
            let now = micros(Utc::now());
            let lease_until = now + self.config.lease;
            let store = self.service.store();
            match store.start_sends(&checks, now, lease_until).await {
                Ok(started) => {
                    for (answer, start) in answers.into_iter().zip(started) {
                        let _ = answer.send(Some((start, now)));
                    }
                }
                Err(e) => {
                    // Unstarted: the leases lapse and the notifications are tried again.
                    tracing::error!(error = %e, "confirming claims failed");
                    for answer in answers {
                        let _ = answer.send(None);
                    }
                }
            }
        }
    }

    /// How old an early confirmation may be when its send begins: the lease it extended must
    /// outlive the send (bounded by half the lease) and its record.
    fn early_enough(&self) -> std::time::Duration {
        (self.config.lease / 4).to_std().unwrap_or_default()
    }

    /// The destination's turn: two groups of one destination never run at once in this
    /// dispatcher (the store's claims keep them apart across dispatchers).
    fn destination_turn(&self, key: &Destination) -> DestinationTurn {
        let mut turns = self
            .destinations
            .lock()
            .expect("the destination map is never poisoned");
        // Forget destinations nobody is sending to (the map would grow with every one).
        if turns.len() > 4096 {
            turns.retain(|_, turn| Arc::strong_count(turn) > 1);
        }
        turns.entry(key.clone()).or_default().clone()
    }

    /// One destination's claimed notifications, in order. Returns what became of each one it
    /// started; the rest (lease lost, or the store failing) are left to their leases, or, when
    /// the destination's circuit opens, postponed with the destination's other notifications.
    async fn deliver_group(
        &self,
        group: Vec<Claimed>,
        confirm: &mpsc::UnboundedSender<Confirmation>,
    ) -> Vec<Outcome> {
        let Some(first) = group.first() else {
            return Vec::new();
        };
        let limited = first.target.channel != ChannelKind::Webhook;
        let (key, lease) = (destination(first), first.lease);
        let turn = self.destination_turn(&key);
        let _turn = turn.lock().await;
        let mut outcomes = Vec::with_capacity(group.len());
        let mut group = group.into_iter().peekable();
        let mut early: Option<EarlyConfirmation> = None;
        while let Some(c) = group.next() {
            // A digest is the overflow itself: it goes when due, and counts as one send.
            let limit = (limited && !c.is_digest).then_some(self.config.rate_limit);
            let answered = match early.take() {
                Some(early) if early.id == c.id && early.asked.elapsed() < self.early_enough() => {
                    early.answered
                }
                _ => match ask(confirm, &c, limit) {
                    Some(answered) => answered,
                    None => break,
                },
            };
            let Ok(Some((start, now))) = answered.await else {
                // Unconfirmed: the rest of the group waits for its leases to lapse.
                break;
            };
            // Without a rate limit the next confirmation cannot depend on this send: ask for it
            // now, so it is answered while this send is in flight (a confirmation waits its
            // turn at the store's writer; one per send would slow a slow receiver further).
            if !limited && let Some(next) = group.peek() {
                early = ask(confirm, next, None).map(|answered| EarlyConfirmation {
                    id: next.id,
                    asked: std::time::Instant::now(),
                    answered,
                });
            }
            match start {
                SendStart::Send => {}
                SendStart::Coalesce { send_at } => {
                    crate::monitoring::notification(c.target.channel.as_str(), None);
                    outcomes.push(Outcome::Coalesced {
                        claimed: Box::new(c),
                        digest_due: send_at,
                    });
                    continue;
                }
                SendStart::LeaseLost => {
                    tracing::info!(notification = %c.id, "lease lost before sending; left to its holder");
                    continue;
                }
            }
            let mut result = self.deliver(&c, now).await;
            crate::monitoring::notification(c.target.channel.as_str(), Some(&result));
            let opened = self.breakers.record(&key, &result, Utc::now());
            if let (Some(until), AttemptResult::Retry { retry_at, .. }) = (opened, &mut result) {
                *retry_at = (*retry_at).max(until);
            }
            outcomes.push(Outcome::Attempt {
                id: c.id,
                lease: c.lease,
                at: now,
                result,
            });
            if let Some(until) = opened {
                let unsent: Vec<Uuid> = group.by_ref().map(|c| c.id).collect();
                self.back_off(&key, until, (lease, &unsent)).await;
                break;
            }
        }
        outcomes
    }

    /// The destination's circuit opened: its pending notifications wait until `until`, for
    /// every dispatcher (the store's due times say so), holding no delivery slot meanwhile.
    async fn back_off(&self, key: &Destination, until: DateTime<Utc>, unsent: (Uuid, &[Uuid])) {
        tracing::warn!(
            channel = key.0.as_str(),
            destination = %key.1,
            %until,
            "deliveries keep failing; the destination is backed off"
        );
        let store = self.service.store();
        if let Err(e) = store
            .postpone_destination(key, until, Utc::now(), unsent)
            .await
        {
            // The unsent ones are left to their leases; the breaker opens again if need be.
            tracing::error!(error = %e, "postponing a destination failed");
        }
    }

    async fn deliver(&self, c: &Claimed, now: DateTime<Utc>) -> AttemptResult {
        if now - c.created_at > self.config.max_age {
            return AttemptResult::Failed {
                provider_code: None,
                message: "not delivered within 24 hours".to_owned(),
            };
        }
        let send = async {
            if c.target.channel == ChannelKind::Webhook {
                self.send_webhook(c).await
            } else {
                self.send_message(c, now).await
            }
        };
        // Within half the lease: the claim still holds when the outcome is recorded.
        let bound = (self.config.lease / 2).to_std().unwrap_or_default();
        let outcome = match tokio::time::timeout(bound, send).await {
            Ok(outcome) => outcome,
            Err(_) => Err(SendError::Failed(DeliveryError::retryable(format!(
                "no answer within {} s",
                bound.as_secs()
            )))),
        };
        match outcome {
            Ok(delivered) => AttemptResult::Delivered {
                provider_code: delivered,
            },
            Err(SendError::NotConfigured(reason)) => AttemptResult::Skipped {
                reason: reason.to_string(),
            },
            Err(SendError::Failed(e)) if e.retryable => {
                let jitter = rand::thread_rng().gen_range(-0.2..=0.2);
                let mut delay = backoff(&self.config, c.attempts + 1, jitter);
                if let Some(after) = e.retry_after.and_then(|a| Duration::from_std(a).ok()) {
                    delay = delay.max(after);
                }
                let retry_at = now + delay;
                let (provider_code, message) = failed(&e);
                if retry_at - c.created_at > self.config.max_age {
                    AttemptResult::Failed {
                        provider_code,
                        message: format!("{message}; no retry within 24 hours"),
                    }
                } else {
                    AttemptResult::Retry {
                        provider_code,
                        message,
                        retry_at,
                    }
                }
            }
            Err(SendError::Failed(e)) => {
                let (provider_code, message) = failed(&e);
                AttemptResult::Failed {
                    provider_code,
                    message,
                }
            }
        }
    }

    async fn send_webhook(&self, c: &Claimed) -> Result<Option<String>, SendError> {
        let (Some((event, _)), Some(account)) = (c.events.first(), c.webhook_account_id) else {
            return Err(SendError::Failed(DeliveryError::permanent(
                "the webhook's event is gone",
            )));
        };
        let body = WebhookEvent {
            id: c.id,
            r#type: WebhookEventType::Event,
            created_at: c.created_at,
            event: event.clone(),
        };
        let body = serde_json::to_vec(&body).expect("models always serialize");
        let key = self.service.alerting().webhook_key(account);
        let id = c.id.to_string();
        let delivery = WebhookDelivery {
            callback_uri: &c.target.address,
            secrets: &[&key],
            webhook_id: &id,
            body: &body,
        };
        self.webhooks
            .send(&delivery)
            .await
            .map(|d| d.provider_code)
            .map_err(SendError::Failed)
    }

    async fn geofence_name(&self, event: &Event) -> Option<String> {
        let id = event.details.geofence_id?;
        let found = self
            .service
            .store()
            .geofence(event.account_id, id)
            .await
            .ok()??;
        Some(found.name)
    }

    async fn send_message(
        &self,
        c: &Claimed,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, SendError> {
        let t = &c.target;
        let tz: chrono_tz::Tz = t.time_zone.parse().unwrap_or(chrono_tz::UTC);
        let ack = (t.interactive && !c.is_digest).then(|| self.service.acknowledge_link(c.id, now));
        let mut names = Vec::with_capacity(c.events.len());
        for (event, _) in &c.events {
            names.push(self.geofence_name(event).await);
        }
        let facts: Vec<MessageFacts> = c
            .events
            .iter()
            .zip(&names)
            .map(|((event, asset), geofence)| facts(event, asset, geofence.as_deref(), None))
            .collect();
        let (message, spoken): (Message, String) = match facts.as_slice() {
            [] => {
                return Err(SendError::Failed(DeliveryError::permanent(
                    "the notification's event is gone",
                )));
            }
            [one] if !c.is_digest => {
                let one = MessageFacts {
                    acknowledge_url: ack.as_deref(),
                    ..one.clone()
                };
                (
                    render(&t.culture, tz, &one),
                    render_spoken(&t.culture, tz, &one),
                )
            }
            many => (
                render_digest(&t.culture, tz, many),
                render_digest_spoken(&t.culture, tz, many),
            ),
        };
        let to = match t.channel {
            ChannelKind::Email => Address::Email {
                address: t.address.clone(),
            },
            ChannelKind::Sms => Address::Sms {
                phone: t.address.clone(),
            },
            ChannelKind::Call => Address::Call {
                phone: t.address.clone(),
            },
            ChannelKind::Telegram => Address::Telegram {
                chat_id: t.address.parse().unwrap_or_default(),
            },
            ChannelKind::Webhook => unreachable!("webhooks are sent by send_webhook"),
        };
        let outgoing = OutgoingMessage {
            idempotency_key: c.id.to_string(),
            to,
            subject: message.subject,
            text: message.text,
            spoken_text: spoken,
        };
        self.channels.send(&outgoing).await.map(|d| d.provider_code)
    }
}

/// What a message says about one event.
pub fn facts<'a>(
    event: &'a Event,
    asset_name: &'a str,
    geofence_name: Option<&'a str>,
    acknowledge_url: Option<&'a str>,
) -> MessageFacts<'a> {
    MessageFacts {
        event_type: event.event_type.value(),
        asset_name,
        occurred_at: event.occurred_at,
        value: event.details.value,
        threshold: event.details.threshold,
        quantity: event.details.quantity.map(|q| q.as_str()),
        geofence_name,
        from_country: event.details.from_country.as_deref(),
        to_country: event.details.to_country.as_deref(),
        latitude: event.position.as_ref().map(|p| p.latitude),
        longitude: event.position.as_ref().map(|p| p.longitude),
        acknowledge_url,
    }
}
