use std::time::Duration;

use asset_alerting_channels::testing::TelegramStandIn;
use asset_alerting_channels::{Address, Channel, TelegramChannel, TelegramConfig};

use crate::message;

const TOKEN: &str = "123456:ABC-test-token";

fn channel(stand_in: &TelegramStandIn, token: &str) -> TelegramChannel {
    TelegramChannel::new(TelegramConfig {
        base_url: stand_in.base_url(),
        ..TelegramConfig::new(token)
    })
    .unwrap()
}

#[tokio::test]
async fn sends_a_message_and_reports_its_id() {
    let stand_in = TelegramStandIn::start(TOKEN).await.unwrap();
    let channel = channel(&stand_in, TOKEN);
    let to = Address::Telegram { chat_id: -1001234 };
    let first = channel.send(&message("n1", to.clone())).await.unwrap();
    let second = channel.send(&message("n2", to)).await.unwrap();
    assert_eq!(first.provider_code.as_deref(), Some("200"));
    assert_eq!(first.provider_id.as_deref(), Some("1"));
    assert_eq!(second.provider_id.as_deref(), Some("2"));
    let sent = stand_in.messages();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].chat_id, -1001234);
    assert_eq!(sent[0].text, "Truck 1 left the geofence Depot at 10:42.");
}

#[tokio::test]
async fn server_errors_and_rate_limits_are_retryable() {
    let stand_in = TelegramStandIn::start(TOKEN).await.unwrap();
    let channel = channel(&stand_in, TOKEN);
    let to = Address::Telegram { chat_id: 7 };

    stand_in.fail_next(1, 502);
    let error = channel.send(&message("n1", to.clone())).await.unwrap_err();
    assert!(error.retryable, "{error}");
    assert_eq!(error.provider_code.as_deref(), Some("502"));

    stand_in.fail_next(1, 429);
    let error = channel.send(&message("n1", to.clone())).await.unwrap_err();
    assert!(error.retryable, "{error}");
    assert_eq!(error.provider_code.as_deref(), Some("429"));
    assert_eq!(error.retry_after, Some(Duration::from_secs(3)));

    assert!(stand_in.messages().is_empty());
    channel.send(&message("n1", to)).await.unwrap();
    assert_eq!(stand_in.messages().len(), 1);
}

#[tokio::test]
async fn client_errors_are_not_retryable_and_hide_the_token() {
    let stand_in = TelegramStandIn::start(TOKEN).await.unwrap();
    let to = Address::Telegram { chat_id: 7 };

    stand_in.fail_next(1, 403);
    let error = channel(&stand_in, TOKEN)
        .send(&message("n1", to.clone()))
        .await
        .unwrap_err();
    assert!(!error.retryable);
    assert_eq!(error.provider_code.as_deref(), Some("403"));
    assert!(error.message.contains("blocked"), "{error}");

    let wrong = "999:wrong-token";
    let error = channel(&stand_in, wrong)
        .send(&message("n1", to))
        .await
        .unwrap_err();
    assert!(!error.retryable);
    assert_eq!(error.provider_code.as_deref(), Some("401"));
    assert!(!error.message.contains(wrong));
}

#[tokio::test]
async fn unreachable_api_is_retryable_and_hides_the_token() {
    let stand_in = TelegramStandIn::start(TOKEN).await.unwrap();
    let channel = channel(&stand_in, TOKEN);
    drop(stand_in);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let error = channel
        .send(&message("n1", Address::Telegram { chat_id: 7 }))
        .await
        .unwrap_err();
    assert!(error.retryable, "{error}");
    assert_eq!(error.provider_code, None);
    assert!(!error.message.contains(TOKEN), "{error}");
    assert!(!format!("{channel:?}").contains(TOKEN));
}

#[tokio::test]
async fn other_address_kinds_are_refused() {
    let stand_in = TelegramStandIn::start(TOKEN).await.unwrap();
    let error = channel(&stand_in, TOKEN)
        .send(&message(
            "n1",
            Address::Sms {
                phone: "+4915112345678".into(),
            },
        ))
        .await
        .unwrap_err();
    assert!(!error.retryable);
    assert!(stand_in.messages().is_empty());
}
