//! A document of webhooks only (tests/fixtures/webhooks-only.yaml, crates checked in under
//! tests/generated/webhooks-only): with no operation to call or serve, the server crate is the
//! webhooks' sender and the client crate their receiver, both on by default. The sender delivers to
//! the receiver over real HTTP on 127.0.0.1; what the receiver refuses comes back typed.

use std::sync::{Arc, Mutex};
use uuid::Uuid;
use webhooks_only_client::webhooks as receiver;
use webhooks_only_server::models;
use webhooks_only_server::webhooks as sender;

/// The merchant's receiver: records the payments and refunds it is sent.
#[derive(Default)]
struct Merchant {
    payments: Mutex<Vec<receiver::PaymentSucceededRequest>>,
    refunds: Mutex<Vec<models::RefundIssuedRequest>>,
}

impl receiver::PaymentsWebhooks for Merchant {
    fn rejection(&self, rejection: &receiver::Rejection) -> models::Problem {
        models::Problem {
            message: format!("refused: {}", rejection.message),
        }
    }

    async fn payment_succeeded(
        &self,
        request: receiver::PaymentSucceededRequest,
    ) -> receiver::PaymentSucceededResponse {
        if request.body.amount.minor_units == 0 {
            return receiver::PaymentSucceededResponse::BadRequest(models::Problem {
                message: "an empty payment".to_owned(),
            });
        }
        self.payments.lock().unwrap().push(request);
        receiver::PaymentSucceededResponse::NoContent
    }

    async fn refund_issued(
        &self,
        request: receiver::RefundIssuedRequest,
    ) -> receiver::RefundIssuedResponse {
        self.refunds.lock().unwrap().push(request.body);
        receiver::RefundIssuedResponse::Ok(models::RefundIssuedResponse { acknowledged: true })
    }
}

/// Serves the receiver under `/payments` on an ephemeral port of 127.0.0.1; returns the base URL.
async fn serve(merchant: Arc<Merchant>) -> String {
    let app = receiver::axum::Router::new().nest("/payments", receiver::router(merchant));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        receiver::axum::serve(listener, app)
            .await
            .expect("server runs")
    });
    format!("http://{address}/payments")
}

fn payment(minor_units: i64) -> models::Payment {
    models::Payment {
        id: Uuid::from_u128(42).to_string(),
        amount: models::Money {
            currency: "EUR".to_owned(),
            minor_units,
        },
        captured_at: "2026-11-26T10:00:00Z".parse().unwrap(),
        metadata: Some([("order".to_owned(), "A-17".to_owned())].into()),
    }
}

#[tokio::test]
async fn the_sender_delivers_each_webhook_to_the_receiver() {
    let merchant = Arc::new(Merchant::default());
    let base = serve(merchant.clone()).await;

    sender::Client::new(format!("{base}/paymentSucceeded"))
        .expect("sender")
        .payment_succeeded("msg_1", 1_764_151_200, payment(1250))
        .await
        .expect("delivered");
    assert_eq!(
        *merchant.payments.lock().unwrap(),
        [receiver::PaymentSucceededRequest {
            webhook_id: "msg_1".to_owned(),
            webhook_timestamp: 1_764_151_200,
            body: payment(1250),
        }]
    );

    let refund = models::RefundIssuedRequest {
        payment_id: Uuid::from_u128(42).to_string(),
        amount: models::Money {
            currency: "EUR".to_owned(),
            minor_units: 250,
        },
        reason: None,
    };
    let answer = sender::Client::new(format!("{base}/refundIssued"))
        .expect("sender")
        .refund_issued(refund.clone())
        .await
        .expect("delivered");
    assert_eq!(answer, models::RefundIssuedResponse { acknowledged: true });
    assert_eq!(*merchant.refunds.lock().unwrap(), [refund]);
}

#[tokio::test]
async fn what_the_receiver_refuses_comes_back_typed() {
    let merchant = Arc::new(Merchant::default());
    let base = serve(merchant.clone()).await;
    let to = sender::Client::new(format!("{base}/paymentSucceeded")).expect("sender");

    // The receiver's own documented error.
    let refused = to
        .payment_succeeded("msg_2", 1, payment(0))
        .await
        .expect_err("an empty payment is refused");
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(400));
    assert_eq!(refused.api_body().unwrap().message, "an empty payment");

    // The receiver validates what the document states: a currency of the wrong shape is answered
    // with its error body before the trait sees it.
    let mut wrong = payment(100);
    wrong.amount.currency = "euro".to_owned();
    let refused = to
        .payment_succeeded("msg_3", 1, wrong)
        .await
        .expect_err("the pattern is checked");
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(400));
    assert!(
        refused.api_body().unwrap().message.starts_with("refused: "),
        "{refused:?}"
    );
    assert!(merchant.payments.lock().unwrap().is_empty());
}
