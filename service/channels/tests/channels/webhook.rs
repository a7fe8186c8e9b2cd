use std::net::SocketAddr;
use std::sync::Arc;

use asset_alerting_channels::testing::WebhookReceiver;
use asset_alerting_channels::webhook::sign_with_all;
use asset_alerting_channels::{
    SignedHeaders, UrlPolicy, WebhookConfig, WebhookDelivery, WebhookSender, secret_key, verify,
};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// As shown to an account: `whsec_` and the base64 of the key ("account 1 signing key").
const SECRET: &str = "whsec_YWNjb3VudCAxIHNpZ25pbmcga2V5";
const KEY: &[u8] = b"account 1 signing key";
const BODY: &[u8] = br#"{"eventType":10,"assetId":"a1"}"#;

/// Test policy: the receiver is on 127.0.0.1 over http.
const LOCAL: UrlPolicy = UrlPolicy {
    allow_http: true,
    allow_private: true,
};

fn sender(policy: UrlPolicy) -> WebhookSender {
    WebhookSender::new(WebhookConfig::new(policy)).unwrap()
}

fn delivery<'a>(uri: &'a str, id: &'a str) -> WebhookDelivery<'a> {
    WebhookDelivery {
        callback_uri: uri,
        secrets: &[KEY],
        webhook_id: id,
        body: BODY,
    }
}

#[tokio::test]
async fn delivers_a_signed_webhook_once_per_id() {
    let receiver = WebhookReceiver::start(SECRET).await.unwrap();
    let sender = sender(LOCAL);
    let uri = receiver.url("/hooks/alerts");
    let delivered = sender.send(&delivery(&uri, "n1")).await.unwrap();
    assert_eq!(delivered.provider_code.as_deref(), Some("200"));
    // A resend after a crash: the receiver dedupes on the webhook id.
    sender.send(&delivery(&uri, "n1")).await.unwrap();

    let received = receiver.received();
    assert_eq!(received.len(), 1);
    assert_eq!(receiver.duplicates(), 1);
    assert_eq!(received[0].path, "/hooks/alerts");
    assert_eq!(received[0].webhook_id, "n1");
    assert_eq!(received[0].body, BODY);
    assert_eq!(received[0].json()["eventType"], 10);
    assert_eq!(secret_key(SECRET).as_deref(), Some(KEY));
    let signed = SignedHeaders {
        id: &received[0].webhook_id,
        timestamp: &received[0].timestamp,
        signature: &received[0].signature,
    };
    assert!(received[0].signature.starts_with("v1,"));
    assert_eq!(verify(signed, BODY, KEY, chrono_free_now(), 60), Ok(()));
}

#[tokio::test]
async fn a_wrong_secret_is_rejected_by_the_receiver() {
    let receiver = WebhookReceiver::start(SECRET).await.unwrap();
    let uri = receiver.url("/");
    let error = sender(LOCAL)
        .send(&WebhookDelivery {
            secrets: &[b"another account's secret"],
            ..delivery(&uri, "n1")
        })
        .await
        .unwrap_err();
    assert!(!error.retryable);
    assert_eq!(error.provider_code.as_deref(), Some("401"));
    assert_eq!(receiver.rejected(), 1);
    assert!(receiver.received().is_empty());
}

#[tokio::test]
async fn during_a_rotation_either_secret_verifies() {
    let receiver = WebhookReceiver::start(SECRET).await.unwrap();
    let uri = receiver.url("/");
    sender(LOCAL)
        .send(&WebhookDelivery {
            secrets: &[b"the new secret", KEY],
            ..delivery(&uri, "n1")
        })
        .await
        .unwrap();
    let received = receiver.received();
    assert_eq!(received[0].signature.matches("v1,").count(), 2);
    let signature = sign_with_all(&[b"the new secret", KEY], "n1", 1, BODY);
    let signed = SignedHeaders {
        id: "n1",
        timestamp: "1",
        signature: &signature,
    };
    assert_eq!(verify(signed, BODY, b"the new secret", 1, 0), Ok(()));
}

#[tokio::test]
async fn failures_are_classified() {
    let receiver = WebhookReceiver::start(SECRET).await.unwrap();
    let sender = sender(LOCAL);
    let uri = receiver.url("/");
    for (status, retryable) in [
        (500, true),
        (503, true),
        (429, true),
        (408, true),
        (400, false),
        (404, false),
        (410, false),
        (302, false),
    ] {
        receiver.fail_next(1, status);
        let error = sender.send(&delivery(&uri, "n1")).await.unwrap_err();
        assert_eq!(error.retryable, retryable, "{status}: {error}");
        assert_eq!(error.provider_code, Some(status.to_string()));
    }
    // Nothing was recorded, the redirect was not followed, and the retry now goes through.
    assert!(receiver.received().is_empty());
    sender.send(&delivery(&uri, "n1")).await.unwrap();
    assert_eq!(receiver.received().len(), 1);
}

#[tokio::test]
async fn an_unreachable_receiver_is_retryable() {
    let receiver = WebhookReceiver::start(SECRET).await.unwrap();
    let uri = receiver.url("/");
    drop(receiver);
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let error = sender(LOCAL).send(&delivery(&uri, "n1")).await.unwrap_err();
    assert!(error.retryable, "{error}");
    assert_eq!(error.provider_code, None);
}

#[tokio::test]
async fn refused_callback_uris_are_not_contacted() {
    let receiver = WebhookReceiver::start(SECRET).await.unwrap();
    let strict = sender(UrlPolicy::default());
    for uri in [
        receiver.url("/"),
        format!("https://127.0.0.1:{}/", receiver.port()),
        format!("https://localhost:{}/", receiver.port()),
        format!("https://[::ffff:127.0.0.1]:{}/", receiver.port()),
    ] {
        let error = strict.send(&delivery(&uri, "n1")).await.unwrap_err();
        assert!(!error.retryable, "{uri}: {error}");
        assert!(error.message.contains("callbackUri refused"), "{error}");
    }
    assert_eq!(receiver.rejected() + receiver.received().len(), 0);
}

/// A DNS server that answers every name with one address, as a rebinding attacker's would.
struct Rebinding(SocketAddr);

impl Resolve for Rebinding {
    fn resolve(&self, _name: Name) -> Resolving {
        let addr = self.0;
        Box::pin(async move { Ok(Box::new(std::iter::once(addr)) as Addrs) })
    }
}

#[tokio::test]
async fn a_name_resolving_to_loopback_is_refused_at_send_time() {
    let receiver = WebhookReceiver::start(SECRET).await.unwrap();
    let loopback: SocketAddr = ([127, 0, 0, 1], 0).into();
    // Passes validation: a public-looking name.
    let uri = format!("http://hooks.customer.example:{}/", receiver.port());
    let http_only = UrlPolicy {
        allow_http: true,
        allow_private: false,
    };
    let guarded =
        WebhookSender::with_dns(WebhookConfig::new(http_only), Arc::new(Rebinding(loopback)))
            .unwrap();
    let error = guarded.send(&delivery(&uri, "n1")).await.unwrap_err();
    assert!(!error.retryable, "{error}");
    assert!(error.message.contains("refused at send time"), "{error}");
    assert!(receiver.received().is_empty());

    // The same resolver with private targets allowed reaches the receiver: the refusal above
    // was the guard's doing.
    let open =
        WebhookSender::with_dns(WebhookConfig::new(LOCAL), Arc::new(Rebinding(loopback))).unwrap();
    open.send(&delivery(&uri, "n1")).await.unwrap();
    assert_eq!(receiver.received().len(), 1);
}

fn chrono_free_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}
