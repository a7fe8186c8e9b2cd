use asset_alerting_channels::testing::SmtpServer;
use asset_alerting_channels::{
    Address, Channel, SmtpChannel, SmtpConfig, SmtpCredentials, SmtpTls,
};

use crate::message;

const FROM: &str = "Asset Alerts <alerts@alerting.example>";

fn config(server: &SmtpServer) -> SmtpConfig {
    SmtpConfig {
        port: server.port(),
        helo_name: Some("service.alerting.example".into()),
        ..SmtpConfig::new(server.host(), SmtpTls::None, FROM)
    }
}

fn email(key: &str) -> asset_alerting_channels::OutgoingMessage {
    message(
        key,
        Address::Email {
            address: "dispatch@fleet.example".into(),
        },
    )
}

#[tokio::test]
async fn sends_a_plain_text_email_with_a_stable_message_id() {
    let server = SmtpServer::start().await.unwrap();
    let channel = SmtpChannel::new(config(&server)).unwrap();
    let key = "0b9e4a1c-7f3e-4c55-9d63-1a2b3c4d5e6f";
    let delivered = channel.send(&email(key)).await.unwrap();

    let received = server.received();
    assert_eq!(received.len(), 1);
    let mail = &received[0];
    assert_eq!(delivered.provider_code.as_deref(), Some("250"));
    assert_eq!(
        delivered.provider_id.as_deref(),
        Some(mail.queue_id.as_str())
    );
    assert_eq!(mail.helo, "service.alerting.example");
    assert_eq!(mail.from, "alerts@alerting.example");
    assert_eq!(mail.to, ["dispatch@fleet.example"]);
    assert_eq!(
        mail.header("Subject").as_deref(),
        Some("Truck 1 left Depot")
    );
    assert_eq!(
        mail.header("From").as_deref(),
        Some("\"Asset Alerts\" <alerts@alerting.example>")
    );
    assert_eq!(mail.header("To").as_deref(), Some("dispatch@fleet.example"));
    assert_eq!(
        mail.header("Message-ID").as_deref(),
        Some(format!("<{key}@alerting.example>").as_str())
    );
    assert!(
        mail.header("Content-Type")
            .is_some_and(|v| v.starts_with("text/plain"))
    );
    assert!(mail.header("Date").is_some());
    assert_eq!(
        mail.body().trim_end(),
        "Truck 1 left the geofence Depot at 10:42."
    );

    // A resend of the same notification carries the same Message-ID.
    channel.send(&email(key)).await.unwrap();
    let again = &server.received()[1];
    assert_eq!(again.header("Message-ID"), mail.header("Message-ID"));
}

#[tokio::test]
async fn non_ascii_subjects_and_bodies_survive() {
    let server = SmtpServer::start().await.unwrap();
    let channel = SmtpChannel::new(config(&server)).unwrap();
    let mut message = email("n1");
    message.subject = "LKW 1 hat das Depot verlassen – Zone Süd".into();
    message.text = "Größe: 5 t\n.\nEnde".into();
    channel.send(&message).await.unwrap();
    let mail = &server.received()[0];
    // RFC 2047 words in the header; quoted-printable in the body, where the lone dot line was
    // dot-stuffed on the wire and did not end DATA early.
    assert_eq!(
        mail.header("Subject").as_deref(),
        Some("LKW 1 hat das Depot verlassen =?utf-8?b?4oCT?= Zone =?utf-8?b?U8O8ZA==?=")
    );
    assert_eq!(
        mail.header("Content-Transfer-Encoding").as_deref(),
        Some("quoted-printable")
    );
    assert_eq!(mail.body(), "Gr=C3=B6=C3=9Fe: 5 t\r\n.\r\nEnde\r\n");
}

#[tokio::test]
async fn authenticates_when_credentials_are_configured() {
    let server = SmtpServer::start_with_credentials("mailer", "s3cret")
        .await
        .unwrap();
    let with = |password: &str| {
        SmtpChannel::new(SmtpConfig {
            credentials: Some(SmtpCredentials {
                username: "mailer".into(),
                password: password.into(),
            }),
            ..config(&server)
        })
        .unwrap()
    };
    with("s3cret").send(&email("n1")).await.unwrap();
    assert_eq!(server.received().len(), 1);

    let error = with("wrong").send(&email("n2")).await.unwrap_err();
    assert!(!error.retryable, "{error}");
    assert_eq!(error.provider_code.as_deref(), Some("535"));
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn transient_replies_are_retryable_and_permanent_ones_are_not() {
    let server = SmtpServer::start().await.unwrap();
    let channel = SmtpChannel::new(config(&server)).unwrap();

    server.fail_next(1, 451);
    let error = channel.send(&email("n1")).await.unwrap_err();
    assert!(error.retryable, "{error}");
    assert_eq!(error.provider_code.as_deref(), Some("451"));

    server.fail_next(1, 550);
    let error = channel.send(&email("n1")).await.unwrap_err();
    assert!(!error.retryable, "{error}");
    assert_eq!(error.provider_code.as_deref(), Some("550"));

    assert!(server.received().is_empty());
    channel.send(&email("n1")).await.unwrap();
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn an_unreachable_server_is_retryable() {
    let server = SmtpServer::start().await.unwrap();
    let config = config(&server);
    drop(server);
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let error = SmtpChannel::new(config)
        .unwrap()
        .send(&email("n1"))
        .await
        .unwrap_err();
    assert!(error.retryable, "{error}");
    assert_eq!(error.provider_code, None);
}

#[tokio::test]
async fn bad_addresses_are_not_retryable() {
    let server = SmtpServer::start().await.unwrap();
    let channel = SmtpChannel::new(config(&server)).unwrap();
    let error = channel
        .send(&message(
            "n1",
            Address::Email {
                address: "not an address".into(),
            },
        ))
        .await
        .unwrap_err();
    assert!(!error.retryable);
    let error = channel
        .send(&message("n1", Address::Telegram { chat_id: 1 }))
        .await
        .unwrap_err();
    assert!(!error.retryable);
    assert!(server.received().is_empty());
    assert!(SmtpChannel::new(SmtpConfig::new("smtp.example", SmtpTls::StartTls, "nope")).is_err());
}
