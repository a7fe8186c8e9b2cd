//! The dispatcher: drains the notification outbox. It leases due notifications, applies the
//! recipient's rate limit, renders and sends each through its channel, and records the attempt.
//! A crash between send and record leaves the lease to expire, so the notification is sent again
//! with the same idempotency key (at least once; providers that take the key dedupe it).

use crate::api::Service;
use crate::store::alerts::{AlertStore, AttemptResult, ChannelKind, Claimed};
use crate::store::{Store, StoreResult};
use asset_alerting_channels::{
    Address, Channels, DeliveryError, OutgoingMessage, SendError, WebhookDelivery, WebhookSender,
};
use asset_alerting_matching::limits::{Decision, RateLimit, decide};
use asset_alerting_matching::messages::{
    Message, MessageFacts, render, render_digest, render_digest_spoken, render_spoken,
};
use asset_alerting_models::{Event, WebhookEvent, WebhookEventType};
use chrono::{DateTime, Duration, Utc};
use futures_util::StreamExt;
use rand::Rng;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::watch;

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
    /// Notifications claimed per round, and recipients served at once.
    pub batch: i64,
    pub concurrency: usize,
}

impl Default for DispatchConfig {
    fn default() -> Self {
        DispatchConfig {
            lease: Duration::seconds(60),
            retry_base: Duration::seconds(10),
            retry_max: Duration::minutes(30),
            max_age: Duration::hours(24),
            rate_limit: RateLimit::default(),
            batch: 64,
            concurrency: 8,
        }
    }
}

pub struct Dispatcher<S> {
    pub service: Arc<Service<S>>,
    pub channels: Arc<Channels>,
    pub webhooks: Arc<WebhookSender>,
    pub config: DispatchConfig,
}

/// The delay before retry number `attempt` (1 = the first retry).
pub fn backoff(config: &DispatchConfig, attempt: i64, jitter: f64) -> Duration {
    let exponent = attempt.clamp(1, 30) - 1;
    let base = config.retry_base.num_milliseconds() as f64 * 2f64.powi(exponent as i32);
    let capped = base.min(config.retry_max.num_milliseconds() as f64);
    Duration::milliseconds((capped * (1.0 + jitter)).round() as i64)
}

fn failed(e: &DeliveryError) -> (Option<String>, String) {
    (e.provider_code.clone(), e.message.clone())
}

impl<S: Store + AlertStore> Dispatcher<S> {
    /// Runs until `shutdown` turns true; finishes the round in flight first.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        let wake = self.service.alerting().dispatch_wake.clone();
        loop {
            if *shutdown.borrow() {
                return;
            }
            let worked = match self.round().await {
                Ok(n) => n > 0,
                Err(e) => {
                    tracing::error!(error = %e, "dispatcher round failed");
                    false
                }
            };
            if worked {
                continue;
            }
            let sleep = match self.service.store().next_due().await {
                Ok(Some(due)) => (due - Utc::now())
                    .to_std()
                    .unwrap_or_default()
                    .min(std::time::Duration::from_secs(30)),
                _ => std::time::Duration::from_secs(30),
            };
            tokio::select! {
                _ = tokio::time::sleep(sleep) => {}
                _ = wake.notified() => {}
                _ = shutdown.changed() => {}
            }
        }
    }

    /// Claims what is due and delivers it; one recipient's notifications in order, different
    /// recipients at once. Returns how many were claimed.
    pub async fn round(&self) -> StoreResult<usize> {
        let now = Utc::now();
        let claimed = self
            .service
            .store()
            .claim_due(now, now + self.config.lease, self.config.batch)
            .await?;
        let count = claimed.len();
        let mut by_recipient: BTreeMap<(ChannelKind, String), Vec<Claimed>> = BTreeMap::new();
        for c in claimed {
            let key = (c.target.channel, c.target.address.clone());
            by_recipient.entry(key).or_default().push(c);
        }
        futures_util::stream::iter(by_recipient.into_values())
            .for_each_concurrent(self.config.concurrency, |group| async move {
                for c in group {
                    if let Err(e) = self.deliver(&c).await {
                        tracing::error!(error = %e, notification = %c.id, "delivery not recorded");
                    }
                }
            })
            .await;
        Ok(count)
    }

    async fn deliver(&self, c: &Claimed) -> StoreResult<()> {
        let store = self.service.store();
        let now = Utc::now();
        if now - c.created_at > self.config.max_age {
            let result = AttemptResult::Failed {
                provider_code: None,
                message: "not delivered within 24 hours".to_owned(),
            };
            return store.record_attempt(c.id, now, &result).await;
        }
        if c.target.channel != ChannelKind::Webhook && !c.is_digest {
            let window = self.config.rate_limit.window;
            let recent = store
                .recent_sends(c.target.channel, &c.target.address, now - window)
                .await?;
            if let Decision::Coalesce { send_at } = decide(&self.config.rate_limit, &recent, now) {
                return store.coalesce(c, send_at, now).await;
            }
        }
        let outcome = if c.target.channel == ChannelKind::Webhook {
            self.send_webhook(c).await
        } else {
            self.send_message(c, now).await
        };
        let result = match outcome {
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
        };
        store.record_attempt(c.id, now, &result).await
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
        let secret = self.service.alerting().webhook_secret(account);
        let id = c.id.to_string();
        let delivery = WebhookDelivery {
            callback_uri: &c.target.address,
            secrets: &[secret.as_bytes()],
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
