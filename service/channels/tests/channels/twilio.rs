use std::time::Duration;

use asset_alerting_channels::testing::{TwilioResource, TwilioStandIn};
use asset_alerting_channels::{Address, Channel, Secret, TwilioChannel, TwilioConfig};

use crate::message;

const SID: &str = "AC00000000000000000000000000000001";
const TOKEN: &str = "auth-token-1";
const FROM: &str = "+15005550006";
const TO: &str = "+4915112345678";

fn channel(stand_in: &TwilioStandIn) -> TwilioChannel {
    TwilioChannel::new(TwilioConfig {
        base_url: stand_in.base_url(),
        ..TwilioConfig::new(SID, TOKEN, FROM)
    })
    .unwrap()
}

#[tokio::test]
async fn sends_an_sms() {
    let stand_in = TwilioStandIn::start(SID, TOKEN).await.unwrap();
    let delivered = channel(&stand_in)
        .send(&message("n1", Address::Sms { phone: TO.into() }))
        .await
        .unwrap();
    assert_eq!(delivered.provider_code.as_deref(), Some("201"));
    let messages = stand_in.messages();
    assert_eq!(messages.len(), 1);
    let sms = &messages[0];
    assert_eq!(delivered.provider_id.as_deref(), Some(sms.sid.as_str()));
    assert!(sms.sid.starts_with("SM"));
    assert_eq!(sms.field("To"), Some(TO));
    assert_eq!(sms.field("From"), Some(FROM));
    assert_eq!(
        sms.field("Body"),
        Some("Truck 1 left the geofence Depot at 10:42.")
    );
    assert_eq!(sms.idempotency_token.as_deref(), Some("n1"));
}

#[tokio::test]
async fn places_a_call_that_reads_the_escaped_message() {
    let stand_in = TwilioStandIn::start(SID, TOKEN).await.unwrap();
    let mut call = message("n1", Address::Call { phone: TO.into() });
    call.spoken_text = "Truck <1> & trailer left Depot".into();
    let delivered = channel(&stand_in).send(&call).await.unwrap();
    let calls = stand_in.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].resource, TwilioResource::Calls);
    assert!(calls[0].sid.starts_with("CA"));
    assert_eq!(
        delivered.provider_id.as_deref(),
        Some(calls[0].sid.as_str())
    );
    assert_eq!(
        calls[0].field("Twiml"),
        Some("<Response><Say>Truck &lt;1&gt; &amp; trailer left Depot</Say></Response>")
    );
    assert!(stand_in.messages().is_empty());
}

#[tokio::test]
async fn a_retried_request_with_the_same_token_is_not_a_second_sms() {
    let stand_in = TwilioStandIn::start(SID, TOKEN).await.unwrap();
    let channel = channel(&stand_in);
    let sms = message("notification-7", Address::Sms { phone: TO.into() });
    let first = channel.send(&sms).await.unwrap();
    let again = channel.send(&sms).await.unwrap();
    assert_eq!(first, again);
    assert_eq!(stand_in.attempts(), 2);
    assert_eq!(stand_in.messages().len(), 1);
    channel
        .send(&message(
            "notification-8",
            Address::Sms { phone: TO.into() },
        ))
        .await
        .unwrap();
    assert_eq!(stand_in.messages().len(), 2);
}

#[tokio::test]
async fn server_errors_are_retryable_and_the_retry_goes_through() {
    let stand_in = TwilioStandIn::start(SID, TOKEN).await.unwrap();
    let channel = channel(&stand_in);
    let sms = message("n1", Address::Sms { phone: TO.into() });
    stand_in.fail_next(2, 500);
    for _ in 0..2 {
        let error = channel.send(&sms).await.unwrap_err();
        assert!(error.retryable, "{error}");
        assert_eq!(error.provider_code.as_deref(), Some("500"));
        assert!(error.message.contains("20500"), "{error}");
    }
    stand_in.fail_next(1, 429);
    let error = channel.send(&sms).await.unwrap_err();
    assert!(error.retryable);
    assert_eq!(error.retry_after, Some(Duration::from_secs(2)));
    channel.send(&sms).await.unwrap();
    assert_eq!(stand_in.messages().len(), 1);
    assert_eq!(stand_in.attempts(), 4);
}

#[tokio::test]
async fn client_errors_are_not_retryable() {
    let stand_in = TwilioStandIn::start(SID, TOKEN).await.unwrap();
    let error = channel(&stand_in)
        .send(&message(
            "n1",
            Address::Sms {
                phone: "015112345678".into(),
            },
        ))
        .await
        .unwrap_err();
    assert!(!error.retryable);
    assert_eq!(error.provider_code.as_deref(), Some("400"));
    assert!(error.message.contains("21211"), "{error}");

    let wrong = TwilioChannel::new(TwilioConfig {
        base_url: stand_in.base_url(),
        auth_token: Secret::new("wrong"),
        ..TwilioConfig::new(SID, TOKEN, FROM)
    })
    .unwrap();
    let error = wrong
        .send(&message("n2", Address::Call { phone: TO.into() }))
        .await
        .unwrap_err();
    assert!(!error.retryable);
    assert_eq!(error.provider_code.as_deref(), Some("401"));
    assert!(stand_in.requests().is_empty());
}

#[tokio::test]
async fn other_address_kinds_are_refused_and_secrets_stay_out_of_debug() {
    let stand_in = TwilioStandIn::start(SID, TOKEN).await.unwrap();
    let channel = channel(&stand_in);
    let error = channel
        .send(&message(
            "n1",
            Address::Email {
                address: "a@example.com".into(),
            },
        ))
        .await
        .unwrap_err();
    assert!(!error.retryable);
    assert_eq!(stand_in.attempts(), 0);
    assert!(!format!("{channel:?}").contains(TOKEN));
    assert!(!format!("{:?}", TwilioConfig::new(SID, TOKEN, FROM)).contains(TOKEN));
}
