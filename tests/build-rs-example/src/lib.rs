//! openapi-gen from `build.rs`: the module generated into `OUT_DIR` (see build.rs), included here,
//! and used by the tests below (the sender of the server part delivers to the receiver of the
//! client part over HTTP on 127.0.0.1).

pub mod api {
    include!(concat!(env!("OUT_DIR"), "/api.rs"));
}

#[cfg(test)]
mod tests {
    use super::api::{client, models, server};
    use std::sync::Arc;

    struct Receiver;

    impl client::webhooks::ShopWebhooks for Receiver {
        fn rejection(&self, rejection: &client::webhooks::Rejection) -> models::Problem {
            models::Problem {
                message: rejection.message.clone(),
            }
        }

        async fn order_shipped(
            &self,
            request: client::webhooks::OrderShippedRequest,
        ) -> client::webhooks::OrderShippedResponse {
            client::webhooks::OrderShippedResponse::Ok(models::OrderShipped200Response {
                received: request.body.parcels == 3,
            })
        }

        async fn order_cancelled(
            &self,
            _request: client::webhooks::OrderCancelledRequest,
        ) -> client::webhooks::OrderCancelledResponse {
            client::webhooks::OrderCancelledResponse::Accepted
        }

        async fn order_updated(
            &self,
            _request: client::webhooks::OrderUpdatedRequest,
        ) -> client::webhooks::OrderUpdatedResponse {
            client::webhooks::OrderUpdatedResponse::NoContent
        }

        async fn subscribe_audit(
            &self,
            _request: client::webhooks::SubscribeAuditRequest,
        ) -> client::webhooks::SubscribeAuditResponse {
            client::webhooks::SubscribeAuditResponse::Ok
        }
    }

    #[tokio::test]
    async fn the_included_module_sends_and_receives() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let app = client::webhooks::router(Arc::new(Receiver));
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

        let sender =
            server::webhooks::Client::new(format!("http://{address}/orderShipped")).unwrap();
        let shipment = models::Shipment {
            order_id: uuid::Uuid::nil().to_string(),
            carrier: "DHL".to_owned(),
            parcels: 3,
            tracking_url: None,
        };
        let answer = sender
            .order_shipped("sig-12345678", shipment.clone())
            .await
            .unwrap();
        assert!(answer.received);
        // The receiver validates like the generated server: 0 parcels break `minimum: 1`.
        let refused = sender
            .order_shipped(
                "sig-12345678",
                models::Shipment {
                    parcels: 0,
                    ..shipment
                },
            )
            .await
            .unwrap_err();
        assert_eq!(refused.status().map(|s| s.as_u16()), Some(400));
    }

    #[test]
    fn the_module_has_every_part() {
        use models::Validate;
        let subscription = models::Subscription {
            order_id: uuid::Uuid::nil().to_string(),
            callback_url: "http://127.0.0.1/hook".to_owned(),
        };
        assert!(subscription.validate().is_ok());
        assert_eq!(
            server::webhooks::urls::subscribe_order_updated(&subscription).as_deref(),
            Some("http://127.0.0.1/hook")
        );
        let _client = client::Client::new("http://127.0.0.1:1").unwrap();
    }
}
