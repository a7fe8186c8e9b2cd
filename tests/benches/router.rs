//! What the generated router costs: `GET /v1/accounts/{accountId}/assets` through `router(...)` versus
//! a hand-written axum handler doing the same work (bearer check, path uuid, paging query with its
//! default and bound, the same 10 assets as JSON), in process with `tower::ServiceExt::oneshot`.
//!
//! `cargo bench -p integration-tests --bench router -- --measurement-time 5`; the throughput lines
//! are requests per second.

use asset_alerting_models::{Asset, AssetTier, ErrorBody, TelemetryRules};
use asset_alerting_server::axum::body::{Body, to_bytes};
use asset_alerting_server::axum::extract::{Path, Query, State};
use asset_alerting_server::axum::http::{HeaderMap, Request, StatusCode, header};
use asset_alerting_server::axum::response::{IntoResponse, Response};
use asset_alerting_server::axum::routing::get;
use asset_alerting_server::axum::{Json, Router};
use asset_alerting_server::*;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;
use tower::ServiceExt;
use uuid::Uuid;

const TOKEN: &str = "bench-token";
const ACCOUNT: Uuid = Uuid::from_u128(0x1000);

fn ten_assets() -> Vec<Asset> {
    (0..10u128)
        .map(|i| Asset {
            id: Uuid::from_u128(0x2000 + i),
            account_id: ACCOUNT,
            external_id: format!("TRUCK-{i:04}"),
            device_id: None,
            name: format!("Delivery truck {i}"),
            tier: AssetTier::Premium,
            disabled_events: BTreeMap::new(),
            telemetry_rules: Some(TelemetryRules {
                input_voltage_low_threshold: None,
                battery_voltage_low_threshold: Some(11.8),
                battery_percentage_low_threshold: None,
                speed_limit: Some(90),
                fuel_level_low_threshold: Some(12.5),
                ad_blue_level_low_threshold: None,
                temperature_low_threshold: None,
                temperature_high_threshold: None,
                pressure_low_threshold: None,
                pressure_high_threshold: None,
                engine_speed_limit: None,
            }),
            is_deleted: Some(false),
        })
        .collect()
}

/// The generated side: list assets answers the fixed page; nothing else is benchmarked.
struct BenchApi {
    assets: Vec<Asset>,
}

fn not_benchmarked() -> ErrorBody {
    ErrorBody {
        code: 1900,
        message: "not part of the benchmark".to_owned(),
    }
}

macro_rules! not_benchmarked {
    ($($name:ident($request:ty) -> $response:ident;)*) => {$(
        async fn $name(&self, _principal: Uuid, _request: $request) -> $response {
            $response::Other(StatusCode::NOT_IMPLEMENTED, not_benchmarked())
        }
    )*};
}

impl AssetAlertingApi for BenchApi {
    type Principal = Uuid;

    async fn authenticate(&self, bearer_token: &str) -> Result<Uuid, Rejection> {
        if bearer_token == TOKEN {
            Ok(ACCOUNT)
        } else {
            Err(Rejection::invalid_token("unknown token"))
        }
    }

    async fn authenticate_ingestion_token(&self, _bearer_token: &str) -> Result<Uuid, Rejection> {
        Err(Rejection::invalid_token("not part of the benchmark"))
    }

    fn rejection(&self, rejection: &Rejection) -> ErrorBody {
        ErrorBody {
            code: 1000,
            message: rejection.message.clone(),
        }
    }

    async fn list_assets(
        &self,
        _principal: Uuid,
        request: ListAssetsRequest,
    ) -> ListAssetsResponse {
        let page = self
            .assets
            .iter()
            .skip(request.skip as usize)
            .take(request.take as usize)
            .cloned()
            .collect();
        ListAssetsResponse::Ok(page)
    }

    async fn issue_token(&self, _request: IssueTokenRequest) -> IssueTokenResponse {
        IssueTokenResponse::Other(StatusCode::NOT_IMPLEMENTED, not_benchmarked())
    }

    fn issue_token_rejection(&self, rejection: &Rejection) -> IssueTokenResponse {
        IssueTokenResponse::Other(rejection.status, self.rejection(rejection))
    }

    not_benchmarked! {
        get_account(GetAccountRequest) -> GetAccountResponse;
        create_account(CreateAccountRequest) -> CreateAccountResponse;
        update_account(UpdateAccountRequest) -> UpdateAccountResponse;
        delete_account(DeleteAccountRequest) -> DeleteAccountResponse;
        list_child_accounts(ListChildAccountsRequest) -> ListChildAccountsResponse;
        rotate_client_secret(RotateClientSecretRequest) -> RotateClientSecretResponse;
        list_ingestion_tokens(ListIngestionTokensRequest) -> ListIngestionTokensResponse;
        revoke_ingestion_token(RevokeIngestionTokenRequest) -> RevokeIngestionTokenResponse;
        create_asset(CreateAssetRequest) -> CreateAssetResponse;
        get_asset(GetAssetRequest) -> GetAssetResponse;
        update_asset(UpdateAssetRequest) -> UpdateAssetResponse;
        delete_asset(DeleteAssetRequest) -> DeleteAssetResponse;
        create_alert_rule(CreateAlertRuleRequest) -> CreateAlertRuleResponse;
        list_alert_rules(ListAlertRulesRequest) -> ListAlertRulesResponse;
        list_alert_rule_geofences(ListAlertRuleGeofencesRequest) -> ListAlertRuleGeofencesResponse;
        get_alert_rule(GetAlertRuleRequest) -> GetAlertRuleResponse;
        update_alert_rule(UpdateAlertRuleRequest) -> UpdateAlertRuleResponse;
        delete_alert_rule(DeleteAlertRuleRequest) -> DeleteAlertRuleResponse;
        list_geofences(ListGeofencesRequest) -> ListGeofencesResponse;
        create_geofence(CreateGeofenceRequest) -> CreateGeofenceResponse;
        get_geofence(GetGeofenceRequest) -> GetGeofenceResponse;
        update_geofence(UpdateGeofenceRequest) -> UpdateGeofenceResponse;
        delete_geofence(DeleteGeofenceRequest) -> DeleteGeofenceResponse;
        get_ingestion_token(GetIngestionTokenRequest) -> GetIngestionTokenResponse;
        get_portal_link(GetPortalLinkRequest) -> GetPortalLinkResponse;
        ingest_telemetry(IngestTelemetryRequest) -> IngestTelemetryResponse;
        get_asset_state(GetAssetStateRequest) -> GetAssetStateResponse;
        list_events(ListEventsRequest) -> ListEventsResponse;
        stream_events(StreamEventsRequest) -> StreamEventsResponse;
        get_event(GetEventRequest) -> GetEventResponse;
        acknowledge_event(AcknowledgeEventRequest) -> AcknowledgeEventResponse;
        list_event_notifications(ListEventNotificationsRequest) -> ListEventNotificationsResponse;
        get_webhook_secret(GetWebhookSecretRequest) -> GetWebhookSecretResponse;
    }
}

/// The hand-written side: what one would write with axum's extractors.
#[derive(serde::Deserialize)]
struct Paging {
    skip: Option<i32>,
    take: Option<i32>,
}

async fn hand_written(
    State(assets): State<Arc<Vec<Asset>>>,
    Path(account_id): Path<Uuid>,
    Query(paging): Query<Paging>,
    headers: HeaderMap,
) -> Response {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if token != Some(TOKEN) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let (skip, take) = (paging.skip.unwrap_or(0), paging.take.unwrap_or(50));
    if skip < 0 || !(1..=500).contains(&take) || account_id != ACCOUNT {
        return StatusCode::BAD_REQUEST.into_response();
    }
    let page: Vec<Asset> = assets
        .iter()
        .skip(skip as usize)
        .take(take as usize)
        .cloned()
        .collect();
    Json(page).into_response()
}

fn request() -> Request<Body> {
    Request::builder()
        .uri(format!("/v1/accounts/{ACCOUNT}/assets"))
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .body(Body::empty())
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let generated = router(Arc::new(BenchApi {
        assets: ten_assets(),
    }));
    let by_hand = Router::new()
        .route("/v1/accounts/{accountId}/assets", get(hand_written))
        .with_state(Arc::new(ten_assets()));

    // Both answer the same bytes.
    let body = |app: &Router| {
        runtime.block_on(async {
            let response = app.clone().oneshot(request()).await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            to_bytes(response.into_body(), usize::MAX).await.unwrap()
        })
    };
    assert_eq!(body(&generated), body(&by_hand));

    let mut group = c.benchmark_group("list_assets");
    group.throughput(Throughput::Elements(1));
    for (name, app) in [("generated", &generated), ("hand_written", &by_hand)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let response = app.clone().oneshot(request()).await.unwrap();
                    black_box(to_bytes(response.into_body(), usize::MAX).await.unwrap())
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
