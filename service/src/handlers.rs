//! The generated `AssetAlertingApi` trait, implemented by mapping [`Service`]'s results onto each
//! operation's response enum. All behaviour lives in `api`; this file only translates.

use crate::api::{ApiError, Service, codes};
use crate::live::{HEARTBEAT, sse_event};
use crate::store::alerts::EventFilter;
use crate::store::{AlertStore, AssetFilter, Page, Store};
use asset_alerting_models::{ErrorBody, OAuthErrorError};
use asset_alerting_server::respond::ErrorResponse;
use asset_alerting_server::*;
use axum::http::StatusCode;
use futures_util::StreamExt;
use uuid::Uuid;

/// The operation's answer: the success as the caller built it, a failure as the variant the
/// operation documents for its status, or `Other` (the generated `ErrorResponse`).
fn respond<R: ErrorResponse<Error = ErrorBody>>(result: Result<R, ApiError>) -> R {
    result.unwrap_or_else(|e| R::error(e.status(), e.body()))
}

/// `Cache-Control` of every response that carries a secret.
fn no_store() -> Option<String> {
    Some("no-store".to_owned())
}

impl<S: Store + AlertStore + Clone + Send> AssetAlertingApi for Service<S> {
    /// The account the access token acts for.
    type Principal = Uuid;

    async fn authenticate(&self, bearer_token: &str) -> Result<Uuid, Rejection> {
        self.tokens()
            .verify(bearer_token)
            .map_err(|e| Rejection::invalid_token(e.to_string()))
    }

    /// Ingestion tokens are checked here only: `authenticate` (access tokens) never accepts one,
    /// and this never accepts an access token.
    async fn authenticate_ingestion_token(&self, bearer_token: &str) -> Result<Uuid, Rejection> {
        match self.ingestion_account(bearer_token).await {
            Ok(Some(account)) => Ok(account),
            Ok(None) => Err(Rejection::invalid_token(
                "the ingestion token is unknown or expired; get one from GET /v1/accounts/{accountId}/ingestionToken",
            )),
            Err(e) => Err(
                Rejection::new(RejectionKind::Unauthenticated, e.body().message)
                    .with_status(StatusCode::INTERNAL_SERVER_ERROR),
            ),
        }
    }

    fn rejection(&self, rejection: &Rejection) -> ErrorBody {
        let code = match rejection.kind {
            RejectionKind::MalformedBody => codes::MALFORMED_JSON,
            RejectionKind::UnsupportedMediaType => codes::UNSUPPORTED_MEDIA_TYPE,
            RejectionKind::PayloadTooLarge => codes::PAYLOAD_TOO_LARGE,
            RejectionKind::MethodNotAllowed => codes::METHOD_NOT_ALLOWED,
            RejectionKind::Unauthenticated => codes::UNAUTHORIZED,
            RejectionKind::NotFound => codes::NOT_FOUND,
            _ if rejection.status.is_server_error() => codes::INTERNAL,
            _ => codes::VALIDATION,
        };
        ErrorBody {
            code: code.into(),
            message: rejection.message.clone(),
        }
    }

    async fn issue_token(&self, request: IssueTokenRequest) -> IssueTokenResponse {
        let basic = request.basic.map(|b| (b.user_id, b.password));
        match Service::issue_token(self, basic, &request.body).await {
            Ok(body) => IssueTokenResponse::Ok {
                body,
                cache_control: no_store(),
            },
            Err(failure) if failure.0.error == OAuthErrorError::InvalidClient => {
                IssueTokenResponse::Unauthorized {
                    body: failure.0,
                    www_authenticate: Some(r#"Basic realm="asset-alerting""#.to_owned()),
                }
            }
            Err(failure) => IssueTokenResponse::BadRequest(failure.0),
        }
    }

    /// What the router refused at the token endpoint, in RFC 6749's error shape (section 5.2):
    /// credentials it could not read are `invalid_client` (401), everything else the client got
    /// wrong `invalid_request` (400), a too large body included.
    fn issue_token_rejection(&self, rejection: &Rejection) -> IssueTokenResponse {
        use asset_alerting_models::OAuthError;
        let body = |error| OAuthError {
            error,
            error_description: Some(rejection.message.clone()),
        };
        match rejection.kind {
            RejectionKind::Unauthenticated => IssueTokenResponse::Unauthorized {
                body: body(OAuthErrorError::InvalidClient),
                www_authenticate: Some(r#"Basic realm="asset-alerting""#.to_owned()),
            },
            _ if rejection.status.is_server_error() => {
                IssueTokenResponse::Other(rejection.status, self.rejection(rejection))
            }
            // RFC 6749 knows 400 and 401 only: a body too large is an invalid request too.
            _ => IssueTokenResponse::BadRequest(body(OAuthErrorError::InvalidRequest)),
        }
    }

    async fn get_account(&self, principal: Uuid, r: GetAccountRequest) -> GetAccountResponse {
        respond(
            Service::get_account(self, principal, r.account_id)
                .await
                .map(GetAccountResponse::Ok),
        )
    }

    async fn create_account(
        &self,
        principal: Uuid,
        r: CreateAccountRequest,
    ) -> CreateAccountResponse {
        respond(
            Service::create_account(self, principal, r.account_id, r.body)
                .await
                .map(|body| CreateAccountResponse::Created {
                    body,
                    cache_control: no_store(),
                }),
        )
    }

    async fn update_account(
        &self,
        principal: Uuid,
        r: UpdateAccountRequest,
    ) -> UpdateAccountResponse {
        respond(
            Service::update_account(self, principal, r.account_id, r.body)
                .await
                .map(UpdateAccountResponse::Ok),
        )
    }

    async fn delete_account(
        &self,
        principal: Uuid,
        r: DeleteAccountRequest,
    ) -> DeleteAccountResponse {
        respond(
            Service::delete_account(self, principal, r.account_id)
                .await
                .map(|()| DeleteAccountResponse::NoContent),
        )
    }

    async fn list_child_accounts(
        &self,
        principal: Uuid,
        r: ListChildAccountsRequest,
    ) -> ListChildAccountsResponse {
        let page = Page {
            skip: r.skip.into(),
            take: r.take.into(),
        };
        respond(
            Service::list_child_accounts(self, principal, r.account_id, page)
                .await
                .map(ListChildAccountsResponse::Ok),
        )
    }

    async fn rotate_client_secret(
        &self,
        principal: Uuid,
        r: RotateClientSecretRequest,
    ) -> RotateClientSecretResponse {
        respond(
            Service::rotate_client_secret(self, principal, r.account_id)
                .await
                .map(|body| RotateClientSecretResponse::Ok {
                    body,
                    cache_control: no_store(),
                }),
        )
    }

    async fn list_assets(&self, principal: Uuid, r: ListAssetsRequest) -> ListAssetsResponse {
        let page = Page {
            skip: r.skip.into(),
            take: r.take.into(),
        };
        let result = Service::list_assets(
            self,
            principal,
            r.account_id,
            AssetFilter {
                external_id: r.external_id.as_deref(),
                device_id: r.device_id.as_deref(),
                include_deleted: r.include_deleted,
            },
            page,
        )
        .await;
        respond(result.map(ListAssetsResponse::Ok))
    }

    async fn create_asset(&self, principal: Uuid, r: CreateAssetRequest) -> CreateAssetResponse {
        respond(
            Service::create_asset(self, principal, r.account_id, r.body)
                .await
                .map(CreateAssetResponse::Created),
        )
    }

    async fn get_asset(&self, principal: Uuid, r: GetAssetRequest) -> GetAssetResponse {
        respond(
            Service::get_asset(self, principal, r.account_id, r.asset_id)
                .await
                .map(GetAssetResponse::Ok),
        )
    }

    async fn update_asset(&self, principal: Uuid, r: UpdateAssetRequest) -> UpdateAssetResponse {
        respond(
            Service::update_asset(self, principal, r.account_id, r.asset_id, r.body)
                .await
                .map(UpdateAssetResponse::Ok),
        )
    }

    async fn delete_asset(&self, principal: Uuid, r: DeleteAssetRequest) -> DeleteAssetResponse {
        respond(
            Service::delete_asset(self, principal, r.account_id, r.asset_id)
                .await
                .map(|()| DeleteAssetResponse::NoContent),
        )
    }

    async fn create_alert_rule(
        &self,
        principal: Uuid,
        r: CreateAlertRuleRequest,
    ) -> CreateAlertRuleResponse {
        let result =
            Service::create_alert_rule(self, principal, r.account_id, r.asset_id, r.body).await;
        respond(result.map(CreateAlertRuleResponse::Created))
    }

    async fn list_alert_rules(
        &self,
        principal: Uuid,
        r: ListAlertRulesRequest,
    ) -> ListAlertRulesResponse {
        let result =
            Service::list_alert_rules(self, principal, r.account_id, r.asset_id, r.event_type)
                .await;
        respond(result.map(ListAlertRulesResponse::Ok))
    }

    async fn list_alert_rule_geofences(
        &self,
        principal: Uuid,
        r: ListAlertRuleGeofencesRequest,
    ) -> ListAlertRuleGeofencesResponse {
        let result = Service::list_alert_rule_geofences(
            self,
            principal,
            r.account_id,
            r.asset_id,
            r.event_type,
        )
        .await;
        respond(result.map(ListAlertRuleGeofencesResponse::Ok))
    }

    async fn get_alert_rule(
        &self,
        principal: Uuid,
        r: GetAlertRuleRequest,
    ) -> GetAlertRuleResponse {
        respond(
            Service::get_alert_rule(self, principal, r.account_id, r.alert_rule_id)
                .await
                .map(GetAlertRuleResponse::Ok),
        )
    }

    async fn update_alert_rule(
        &self,
        principal: Uuid,
        r: UpdateAlertRuleRequest,
    ) -> UpdateAlertRuleResponse {
        let result =
            Service::update_alert_rule(self, principal, r.account_id, r.alert_rule_id, r.body)
                .await;
        respond(result.map(UpdateAlertRuleResponse::Ok))
    }

    async fn delete_alert_rule(
        &self,
        principal: Uuid,
        r: DeleteAlertRuleRequest,
    ) -> DeleteAlertRuleResponse {
        respond(
            Service::delete_alert_rule(self, principal, r.account_id, r.alert_rule_id)
                .await
                .map(|()| DeleteAlertRuleResponse::NoContent),
        )
    }

    async fn list_geofences(
        &self,
        principal: Uuid,
        r: ListGeofencesRequest,
    ) -> ListGeofencesResponse {
        respond(
            Service::list_geofences(self, principal, r.account_id)
                .await
                .map(ListGeofencesResponse::Ok),
        )
    }

    async fn create_geofence(
        &self,
        principal: Uuid,
        r: CreateGeofenceRequest,
    ) -> CreateGeofenceResponse {
        respond(
            Service::create_geofence(self, principal, r.account_id, r.body)
                .await
                .map(CreateGeofenceResponse::Created),
        )
    }

    async fn get_geofence(&self, principal: Uuid, r: GetGeofenceRequest) -> GetGeofenceResponse {
        respond(
            Service::get_geofence(self, principal, r.account_id, r.geofence_id)
                .await
                .map(GetGeofenceResponse::Ok),
        )
    }

    async fn update_geofence(
        &self,
        principal: Uuid,
        r: UpdateGeofenceRequest,
    ) -> UpdateGeofenceResponse {
        let result =
            Service::update_geofence(self, principal, r.account_id, r.geofence_id, r.body).await;
        respond(result.map(UpdateGeofenceResponse::Ok))
    }

    async fn delete_geofence(
        &self,
        principal: Uuid,
        r: DeleteGeofenceRequest,
    ) -> DeleteGeofenceResponse {
        respond(
            Service::delete_geofence(self, principal, r.account_id, r.geofence_id)
                .await
                .map(|()| DeleteGeofenceResponse::NoContent),
        )
    }

    async fn get_ingestion_token(
        &self,
        principal: Uuid,
        r: GetIngestionTokenRequest,
    ) -> GetIngestionTokenResponse {
        respond(
            Service::get_ingestion_token(self, principal, r.account_id)
                .await
                .map(|body| GetIngestionTokenResponse::Ok {
                    body,
                    cache_control: no_store(),
                }),
        )
    }

    async fn list_ingestion_tokens(
        &self,
        principal: Uuid,
        r: ListIngestionTokensRequest,
    ) -> ListIngestionTokensResponse {
        respond(
            Service::list_ingestion_tokens(self, principal, r.account_id)
                .await
                .map(ListIngestionTokensResponse::Ok),
        )
    }

    async fn revoke_ingestion_token(
        &self,
        principal: Uuid,
        r: RevokeIngestionTokenRequest,
    ) -> RevokeIngestionTokenResponse {
        respond(
            Service::revoke_ingestion_token(self, principal, r.account_id, r.token_id)
                .await
                .map(|()| RevokeIngestionTokenResponse::NoContent),
        )
    }

    async fn get_portal_link(
        &self,
        principal: Uuid,
        r: GetPortalLinkRequest,
    ) -> GetPortalLinkResponse {
        respond(
            Service::get_portal_link(self, principal, r.account_id)
                .await
                .map(|body| GetPortalLinkResponse::Ok {
                    body,
                    cache_control: no_store(),
                }),
        )
    }

    async fn ingest_telemetry(
        &self,
        account: Uuid,
        r: IngestTelemetryRequest,
    ) -> IngestTelemetryResponse {
        // Per-point problems are results, not failures: only a store failure is left.
        respond(
            Service::ingest_telemetry(self, account, r.body)
                .await
                .map(IngestTelemetryResponse::Accepted),
        )
    }

    async fn get_asset_state(
        &self,
        principal: Uuid,
        r: GetAssetStateRequest,
    ) -> GetAssetStateResponse {
        respond(
            Service::get_asset_state(self, principal, r.account_id, r.asset_id)
                .await
                .map(GetAssetStateResponse::Ok),
        )
    }

    async fn list_events(&self, principal: Uuid, r: ListEventsRequest) -> ListEventsResponse {
        let filter = EventFilter {
            asset_id: r.asset_id,
            event_type: r
                .event_type
                .filter(|t| *t != asset_alerting_models::EventType::Any),
            from: r.from,
            to: r.to,
        };
        let page = Page {
            skip: r.skip.into(),
            take: r.take.into(),
        };
        respond(
            Service::list_events(self, principal, r.account_id, filter, page)
                .await
                .map(ListEventsResponse::Ok),
        )
    }

    async fn stream_events(&self, principal: Uuid, r: StreamEventsRequest) -> StreamEventsResponse {
        let filter = EventFilter {
            asset_id: r.asset_id,
            event_type: r
                .event_type
                .filter(|t| *t != asset_alerting_models::EventType::Any),
            from: r.from,
            to: r.to,
        };
        let opened = Service::stream_events(
            self,
            principal,
            r.account_id,
            filter,
            r.last_event_id.as_deref(),
        )
        .await;
        match opened {
            Ok(events) => StreamEventsResponse::Ok(
                stream::EventStream::new(
                    events
                        // No token outlives its lifetime, so no stream outlives the token it was
                        // opened with by more than that; the client resumes with a current one.
                        .take_until(tokio::time::sleep(
                            self.tokens().lifetime.to_std().unwrap_or_default(),
                        ))
                        .enumerate()
                        .map(|(i, (position, event))| sse_event(position, event, i == 0)),
                )
                .keep_alive(HEARTBEAT),
            ),
            Err(e) => respond(Err(e)),
        }
    }

    async fn get_event(&self, principal: Uuid, r: GetEventRequest) -> GetEventResponse {
        respond(
            Service::get_event(self, principal, r.account_id, r.event_id)
                .await
                .map(GetEventResponse::Ok),
        )
    }

    async fn acknowledge_event(
        &self,
        principal: Uuid,
        r: AcknowledgeEventRequest,
    ) -> AcknowledgeEventResponse {
        respond(
            Service::acknowledge_event(self, principal, r.account_id, r.event_id)
                .await
                .map(AcknowledgeEventResponse::Ok),
        )
    }

    async fn list_event_notifications(
        &self,
        principal: Uuid,
        r: ListEventNotificationsRequest,
    ) -> ListEventNotificationsResponse {
        respond(
            Service::list_event_notifications(self, principal, r.account_id, r.event_id)
                .await
                .map(ListEventNotificationsResponse::Ok),
        )
    }

    async fn get_webhook_secret(
        &self,
        principal: Uuid,
        r: GetWebhookSecretRequest,
    ) -> GetWebhookSecretResponse {
        respond(
            Service::get_webhook_secret(self, principal, r.account_id)
                .await
                .map(|body| GetWebhookSecretResponse::Ok {
                    body,
                    cache_control: no_store(),
                }),
        )
    }
}
