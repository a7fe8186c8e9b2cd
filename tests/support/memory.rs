//! An in-memory implementation of the generated `AssetAlertingApi`, for driving the generated router
//! (and the generated client against it) over real HTTP.
//!
//! - Bearer token [`TOKEN`] is accepted, anything else is rejected; the principal is [`ROOT_ACCOUNT`].
//! - `issueToken` accepts client [`CLIENT_ID`] / [`CLIENT_SECRET`] in the form or with HTTP Basic.
//! - Accounts, assets, alert rules and geofences live in maps behind one mutex; ids are sequential.
//! - Tests can count calls ([`MemoryApi::calls`], [`MemoryApi::token_requests`]), force the next
//!   answers ([`MemoryApi::fail_next`]) and see the last page requested ([`MemoryApi::last_page`]).

use asset_alerting_server::models::{
    Account, AlertRule, AlertRuleInput, Asset, AssetInput, AssetState, ErrorBody, Event, EventType,
    Geofence, GeofenceInput, IngestionToken, OAuthError, OAuthErrorError, PointResult,
    PointResultStatus, PortalLink, Position, TelemetryBatchResult, TelemetryPoint, TokenResponse,
    TokenResponseTokenType, WebhookSecret,
};
use asset_alerting_server::*;
use axum::http::StatusCode;
use chrono::{Duration, Utc};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use uuid::Uuid;

pub use asset_alerting_server::axum;

/// The only bearer token [`MemoryApi`] accepts.
pub const TOKEN: &str = "test-token";
/// The only ingestion token (security scheme `ingestionToken`) it accepts, at `ingestTelemetry` only.
pub const INGESTION_TOKEN: &str = "test-ingestion-token";
pub const CLIENT_ID: &str = "test-client";
pub const CLIENT_SECRET: &str = "test-secret";
/// The account that exists from the start; every token acts for it.
pub const ROOT_ACCOUNT: Uuid = Uuid::from_u128(0x1000);

/// The error codes of the spec's table.
pub mod codes {
    pub const VALIDATION: i64 = 1000;
    pub const MALFORMED_JSON: i64 = 1001;
    pub const UNSUPPORTED_MEDIA_TYPE: i64 = 1002;
    pub const UNAUTHENTICATED: i64 = 1100;
    pub const NOT_FOUND: i64 = 1400;
    pub const CONFLICT: i64 = 1500;
    pub const INTERNAL: i64 = 1900;
}

pub struct MemoryApi {
    state: Mutex<State>,
    next_id: AtomicU64,
    /// Operations called (after authentication and parsing), token requests included.
    pub calls: AtomicUsize,
    /// Calls of `issueToken`.
    pub token_requests: AtomicUsize,
    /// Statuses to answer with next, in order, before doing anything else. A 401 is answered by
    /// `authenticate` (so it carries the Bearer challenge) except at the token endpoint.
    pub fail_next: Mutex<VecDeque<u16>>,
    /// `(skip, take, includeDeleted)` of the last `listAssets` call, as the operation received them.
    pub last_page: Mutex<Option<(i32, i32, bool)>>,
}

#[derive(Default)]
struct State {
    accounts: BTreeMap<Uuid, Account>,
    assets: BTreeMap<Uuid, Asset>,
    rules: BTreeMap<Uuid, AlertRule>,
    geofences: BTreeMap<Uuid, Geofence>,
    /// Telemetry points received, in arrival order.
    telemetry: Vec<TelemetryPoint>,
    /// Events a test put in (the memory API detects nothing).
    events: BTreeMap<Uuid, Event>,
}

impl Default for MemoryApi {
    fn default() -> Self {
        let mut state = State::default();
        let root = Account {
            id: ROOT_ACCOUNT,
            parent_id: None,
            name: "root".to_owned(),
            friendly_name: None,
            culture: None,
            technical_email_address: None,
            callback_uri: None,
            created_at: Utc::now(),
        };
        state.accounts.insert(ROOT_ACCOUNT, root);
        MemoryApi {
            state: Mutex::new(state),
            next_id: AtomicU64::new(1),
            calls: AtomicUsize::new(0),
            token_requests: AtomicUsize::new(0),
            fail_next: Mutex::new(VecDeque::new()),
            last_page: Mutex::new(None),
        }
    }
}

fn error(code: i64, message: impl Into<String>) -> ErrorBody {
    ErrorBody {
        code,
        message: message.into(),
    }
}

fn not_found(what: &str) -> ErrorBody {
    error(codes::NOT_FOUND, format!("{what} not found"))
}

impl MemoryApi {
    /// Puts an event in (the memory API detects none itself).
    pub fn insert_event(&self, event: Event) {
        self.state().events.insert(event.id, event);
    }

    /// The telemetry points received so far.
    pub fn telemetry(&self) -> Vec<TelemetryPoint> {
        self.state().telemetry.clone()
    }

    /// Makes the next call answer `status` (several calls queue up).
    pub fn fail_next(&self, status: u16) {
        self.fail_next.lock().unwrap().push_back(status);
    }

    fn id(&self) -> Uuid {
        Uuid::from_u128(u128::from(self.next_id.fetch_add(1, Ordering::Relaxed)))
    }

    /// Counts the call and takes a forced failure, if one is queued.
    fn enter(&self) -> Option<(StatusCode, ErrorBody)> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let status = self.fail_next.lock().unwrap().pop_front()?;
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        Some((status, error(codes::INTERNAL, format!("forced {status}"))))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    fn asset_from(
        &self,
        id: Uuid,
        account_id: Uuid,
        input: AssetInput,
        is_deleted: Option<bool>,
    ) -> Asset {
        Asset {
            id,
            account_id,
            external_id: input.external_id,
            device_id: input.device_id,
            name: input.name,
            tier: input.tier,
            disabled_events: input.disabled_events.unwrap_or_default(),
            telemetry_rules: input.telemetry_rules,
            is_deleted,
        }
    }
}

impl State {
    fn has_account(&self, id: Uuid) -> bool {
        self.accounts.contains_key(&id)
    }

    fn asset(&self, account_id: Uuid, asset_id: Uuid) -> Option<&Asset> {
        self.assets
            .get(&asset_id)
            .filter(|a| a.account_id == account_id)
    }

    fn external_id_taken(&self, account_id: Uuid, external_id: &str, except: Option<Uuid>) -> bool {
        self.assets.values().any(|a| {
            a.account_id == account_id
                && a.external_id == external_id
                && a.is_deleted != Some(true)
                && Some(a.id) != except
        })
    }

    fn unknown_geofence(&self, account_id: Uuid, input: &AlertRuleInput) -> Option<Uuid> {
        input
            .inside_geofences
            .iter()
            .chain(&input.outside_geofences)
            .find(|id| {
                self.geofences
                    .get(id)
                    .is_none_or(|g| g.account_id != account_id)
            })
            .copied()
    }

    fn geofence_external_id_taken(
        &self,
        account_id: Uuid,
        external_id: &str,
        except: Option<Uuid>,
    ) -> bool {
        self.geofences.values().any(|g| {
            g.account_id == account_id && g.external_id == external_id && Some(g.id) != except
        })
    }
}

fn rule_from(id: Uuid, account_id: Uuid, asset_id: Uuid, input: AlertRuleInput) -> AlertRule {
    AlertRule {
        id,
        account_id,
        asset_id,
        event_type: input.event_type,
        order: input.order,
        recipient: input.recipient,
        channel: input.channel,
        is_disabled: input.is_disabled,
        days_of_week: input.days_of_week,
        time_of_day: input.time_of_day,
        dates: input.dates,
        inside_geofences: input.inside_geofences,
        outside_geofences: input.outside_geofences,
    }
}

fn sorted_rules<'a>(rules: impl Iterator<Item = &'a AlertRule>) -> Vec<AlertRule> {
    let mut rules: Vec<AlertRule> = rules.cloned().collect();
    rules.sort_by_key(|r| (r.order, r.id));
    rules
}

fn sorted_geofences<'a>(geofences: impl Iterator<Item = &'a Geofence>) -> Vec<Geofence> {
    let mut geofences: Vec<Geofence> = geofences.cloned().collect();
    geofences.sort_by(|a, b| (&a.name, a.id).cmp(&(&b.name, b.id)));
    geofences
}

impl AssetAlertingApi for MemoryApi {
    type Principal = Uuid;

    async fn authenticate(&self, bearer_token: &str) -> Result<Uuid, Rejection> {
        {
            let mut fail = self.fail_next.lock().unwrap();
            if fail.front() == Some(&401) {
                fail.pop_front();
                return Err(Rejection::invalid_token("forced 401"));
            }
        }
        if bearer_token == TOKEN {
            Ok(ROOT_ACCOUNT)
        } else {
            Err(Rejection::invalid_token("the bearer token is not valid"))
        }
    }

    async fn authenticate_ingestion_token(&self, bearer_token: &str) -> Result<Uuid, Rejection> {
        if bearer_token == INGESTION_TOKEN {
            Ok(ROOT_ACCOUNT)
        } else {
            Err(Rejection::invalid_token("the ingestion token is not valid"))
        }
    }

    fn rejection(&self, rejection: &Rejection) -> ErrorBody {
        let code = match rejection.kind {
            RejectionKind::InvalidParameter
            | RejectionKind::InvalidBody
            | RejectionKind::PayloadTooLarge => codes::VALIDATION,
            RejectionKind::MalformedBody => codes::MALFORMED_JSON,
            RejectionKind::UnsupportedMediaType => codes::UNSUPPORTED_MEDIA_TYPE,
            RejectionKind::Unauthenticated => codes::UNAUTHENTICATED,
            RejectionKind::NotFound | RejectionKind::MethodNotAllowed => codes::NOT_FOUND,
            _ => codes::INTERNAL,
        };
        error(code, rejection.message.clone())
    }

    /// RFC 6749 section 5.2 errors: `invalid_client` for credentials the router refused (its
    /// challenge is added by the router), `invalid_request` for a missing or malformed form or
    /// another media type; a status the operation does not document (413) gets the API's body.
    fn issue_token_rejection(&self, rejection: &Rejection) -> IssueTokenResponse {
        let body = |error| OAuthError {
            error,
            error_description: Some(rejection.message.clone()),
        };
        match rejection.kind {
            RejectionKind::Unauthenticated => IssueTokenResponse::Unauthorized {
                body: body(OAuthErrorError::InvalidClient),
                www_authenticate: None,
            },
            RejectionKind::InvalidParameter
            | RejectionKind::MalformedBody
            | RejectionKind::InvalidBody
            | RejectionKind::UnsupportedMediaType => {
                IssueTokenResponse::BadRequest(body(OAuthErrorError::InvalidRequest))
            }
            _ => IssueTokenResponse::Other(rejection.status, self.rejection(rejection)),
        }
    }

    async fn issue_token(&self, request: IssueTokenRequest) -> IssueTokenResponse {
        self.token_requests.fetch_add(1, Ordering::Relaxed);
        if let Some((status, body)) = self.enter() {
            if status == StatusCode::UNAUTHORIZED {
                let body = OAuthError {
                    error: OAuthErrorError::InvalidClient,
                    error_description: Some(body.message),
                };
                return IssueTokenResponse::Unauthorized {
                    body,
                    www_authenticate: Some("Basic".to_owned()),
                };
            }
            return IssueTokenResponse::Other(status, body);
        }
        let oauth_error = |error, description: &str| OAuthError {
            error,
            error_description: Some(description.to_owned()),
        };
        let form = request.body;
        let from_form = (form.client_id.clone(), form.client_secret.clone());
        let (client_id, secret) = match (request.basic, from_form) {
            (Some(_), (Some(_), _) | (_, Some(_))) => {
                let body = oauth_error(OAuthErrorError::InvalidRequest, "credentials given twice");
                return IssueTokenResponse::BadRequest(body);
            }
            (Some(basic), _) => (Some(basic.user_id), Some(basic.password)),
            (None, (id, secret)) => (id, secret),
        };
        if form.grant_type.as_deref() != Some("client_credentials") {
            let body = oauth_error(
                OAuthErrorError::UnsupportedGrantType,
                "grant_type must be client_credentials",
            );
            return IssueTokenResponse::BadRequest(body);
        }
        if form.scope.as_deref().is_some_and(|s| !s.is_empty()) {
            return IssueTokenResponse::BadRequest(oauth_error(
                OAuthErrorError::InvalidScope,
                "no scopes are defined",
            ));
        }
        if client_id.as_deref() != Some(CLIENT_ID) || secret.as_deref() != Some(CLIENT_SECRET) {
            return IssueTokenResponse::Unauthorized {
                body: oauth_error(
                    OAuthErrorError::InvalidClient,
                    "unknown client or wrong secret",
                ),
                www_authenticate: Some(r#"Basic realm="asset-alerting""#.to_owned()),
            };
        }
        let body = TokenResponse {
            access_token: TOKEN.to_owned(),
            token_type: TokenResponseTokenType::Bearer,
            expires_in: 3600,
        };
        IssueTokenResponse::Ok {
            body,
            cache_control: Some("no-store".to_owned()),
        }
    }

    async fn get_account(
        &self,
        _principal: Uuid,
        request: GetAccountRequest,
    ) -> GetAccountResponse {
        if let Some((status, body)) = self.enter() {
            return GetAccountResponse::Other(status, body);
        }
        match self.state().accounts.get(&request.account_id) {
            Some(account) => GetAccountResponse::Ok(account.clone()),
            None => GetAccountResponse::NotFound(not_found("account")),
        }
    }

    async fn create_account(
        &self,
        _principal: Uuid,
        request: CreateAccountRequest,
    ) -> CreateAccountResponse {
        if let Some((status, body)) = self.enter() {
            return CreateAccountResponse::Other(status, body);
        }
        let mut state = self.state();
        if !state.has_account(request.account_id) {
            return CreateAccountResponse::NotFound(not_found("account"));
        }
        let id = self.id();
        let input = request.body;
        let account = Account {
            id,
            parent_id: Some(request.account_id),
            name: input.name,
            friendly_name: input.friendly_name,
            culture: input.culture,
            technical_email_address: input.technical_email_address,
            callback_uri: input.callback_uri,
            created_at: Utc::now(),
        };
        state.accounts.insert(id, account);
        let body = asset_alerting_server::models::CreateAccountResponse {
            id,
            client_secret: format!("secret-{id}"),
        };
        CreateAccountResponse::Created {
            body,
            cache_control: Some("no-store".to_owned()),
        }
    }

    async fn update_account(
        &self,
        _principal: Uuid,
        request: UpdateAccountRequest,
    ) -> UpdateAccountResponse {
        if let Some((status, body)) = self.enter() {
            return UpdateAccountResponse::Other(status, body);
        }
        let mut state = self.state();
        let Some(account) = state.accounts.get_mut(&request.account_id) else {
            return UpdateAccountResponse::NotFound(not_found("account"));
        };
        let input = request.body;
        account.name = input.name;
        account.friendly_name = input.friendly_name;
        account.culture = input.culture;
        account.technical_email_address = input.technical_email_address;
        account.callback_uri = input.callback_uri;
        UpdateAccountResponse::Ok(account.clone())
    }

    /// Deletes the account alone (the memory API keeps no subtree data to cascade).
    async fn delete_account(
        &self,
        _principal: Uuid,
        request: DeleteAccountRequest,
    ) -> DeleteAccountResponse {
        if let Some((status, body)) = self.enter() {
            return DeleteAccountResponse::Other(status, body);
        }
        match self.state().accounts.remove(&request.account_id) {
            Some(_) => DeleteAccountResponse::NoContent,
            None => DeleteAccountResponse::NotFound(not_found("account")),
        }
    }

    async fn list_child_accounts(
        &self,
        _principal: Uuid,
        request: ListChildAccountsRequest,
    ) -> ListChildAccountsResponse {
        if let Some((status, body)) = self.enter() {
            return ListChildAccountsResponse::Other(status, body);
        }
        let state = self.state();
        if !state.has_account(request.account_id) {
            return ListChildAccountsResponse::NotFound(not_found("account"));
        }
        let children = state
            .accounts
            .values()
            .filter(|a| a.parent_id == Some(request.account_id))
            .skip(request.skip as usize)
            .take(request.take as usize)
            .cloned()
            .collect();
        ListChildAccountsResponse::Ok(children)
    }

    async fn rotate_client_secret(
        &self,
        _principal: Uuid,
        request: RotateClientSecretRequest,
    ) -> RotateClientSecretResponse {
        if let Some((status, body)) = self.enter() {
            return RotateClientSecretResponse::Other(status, body);
        }
        if !self.state().has_account(request.account_id) {
            return RotateClientSecretResponse::NotFound(not_found("account"));
        }
        RotateClientSecretResponse::Ok {
            body: asset_alerting_server::models::ClientSecret {
                client_id: request.account_id,
                client_secret: format!("secret-{}", self.id()),
            },
            cache_control: Some("no-store".to_owned()),
        }
    }

    async fn list_assets(
        &self,
        _principal: Uuid,
        request: ListAssetsRequest,
    ) -> ListAssetsResponse {
        if let Some((status, body)) = self.enter() {
            return ListAssetsResponse::Other(status, body);
        }
        *self.last_page.lock().unwrap() =
            Some((request.skip, request.take, request.include_deleted));
        let state = self.state();
        if !state.has_account(request.account_id) {
            return ListAssetsResponse::NotFound(not_found("account"));
        }
        let mut assets: Vec<Asset> = state
            .assets
            .values()
            .filter(|a| a.account_id == request.account_id)
            .filter(|a| request.include_deleted || a.is_deleted != Some(true))
            .filter(|a| {
                request
                    .external_id
                    .as_ref()
                    .is_none_or(|e| *e == a.external_id)
            })
            .cloned()
            .collect();
        assets.sort_by(|a, b| (&a.external_id, a.id).cmp(&(&b.external_id, b.id)));
        let page = assets
            .into_iter()
            .skip(request.skip as usize)
            .take(request.take as usize)
            .collect();
        ListAssetsResponse::Ok(page)
    }

    async fn create_asset(
        &self,
        _principal: Uuid,
        request: CreateAssetRequest,
    ) -> CreateAssetResponse {
        if let Some((status, body)) = self.enter() {
            return CreateAssetResponse::Other(status, body);
        }
        let mut state = self.state();
        if !state.has_account(request.account_id) {
            return CreateAssetResponse::NotFound(not_found("account"));
        }
        if state.external_id_taken(request.account_id, &request.body.external_id, None) {
            return CreateAssetResponse::Conflict(error(
                codes::CONFLICT,
                "externalId is already used",
            ));
        }
        let asset = self.asset_from(self.id(), request.account_id, request.body, None);
        state.assets.insert(asset.id, asset.clone());
        CreateAssetResponse::Created(asset)
    }

    async fn get_asset(&self, _principal: Uuid, request: GetAssetRequest) -> GetAssetResponse {
        if let Some((status, body)) = self.enter() {
            return GetAssetResponse::Other(status, body);
        }
        match self.state().asset(request.account_id, request.asset_id) {
            Some(asset) => GetAssetResponse::Ok(asset.clone()),
            None => GetAssetResponse::NotFound(not_found("asset")),
        }
    }

    async fn update_asset(
        &self,
        _principal: Uuid,
        request: UpdateAssetRequest,
    ) -> UpdateAssetResponse {
        if let Some((status, body)) = self.enter() {
            return UpdateAssetResponse::Other(status, body);
        }
        let mut state = self.state();
        let Some(existing) = state.asset(request.account_id, request.asset_id) else {
            return UpdateAssetResponse::NotFound(not_found("asset"));
        };
        let is_deleted = existing.is_deleted;
        if state.external_id_taken(
            request.account_id,
            &request.body.external_id,
            Some(request.asset_id),
        ) {
            return UpdateAssetResponse::Conflict(error(
                codes::CONFLICT,
                "externalId is already used",
            ));
        }
        let asset = self.asset_from(
            request.asset_id,
            request.account_id,
            request.body,
            is_deleted,
        );
        state.assets.insert(asset.id, asset.clone());
        UpdateAssetResponse::Ok(asset)
    }

    async fn delete_asset(
        &self,
        _principal: Uuid,
        request: DeleteAssetRequest,
    ) -> DeleteAssetResponse {
        if let Some((status, body)) = self.enter() {
            return DeleteAssetResponse::Other(status, body);
        }
        let mut state = self.state();
        match state
            .assets
            .get_mut(&request.asset_id)
            .filter(|a| a.account_id == request.account_id)
        {
            Some(asset) => {
                asset.is_deleted = Some(true);
                DeleteAssetResponse::NoContent
            }
            None => DeleteAssetResponse::NotFound(not_found("asset")),
        }
    }

    async fn create_alert_rule(
        &self,
        _principal: Uuid,
        request: CreateAlertRuleRequest,
    ) -> CreateAlertRuleResponse {
        if let Some((status, body)) = self.enter() {
            return CreateAlertRuleResponse::Other(status, body);
        }
        let mut state = self.state();
        if state.asset(request.account_id, request.asset_id).is_none() {
            return CreateAlertRuleResponse::NotFound(not_found("asset"));
        }
        if let Some(id) = state.unknown_geofence(request.account_id, &request.body) {
            return CreateAlertRuleResponse::BadRequest(error(
                codes::VALIDATION,
                format!("geofence {id} does not exist"),
            ));
        }
        let rule = rule_from(
            self.id(),
            request.account_id,
            request.asset_id,
            request.body,
        );
        state.rules.insert(rule.id, rule.clone());
        CreateAlertRuleResponse::Created(rule)
    }

    async fn list_alert_rules(
        &self,
        _principal: Uuid,
        request: ListAlertRulesRequest,
    ) -> ListAlertRulesResponse {
        if let Some((status, body)) = self.enter() {
            return ListAlertRulesResponse::Other(status, body);
        }
        let state = self.state();
        if state.asset(request.account_id, request.asset_id).is_none() {
            return ListAlertRulesResponse::NotFound(not_found("asset"));
        }
        let rules = state
            .rules
            .values()
            .filter(|r| r.asset_id == request.asset_id && r.event_type == request.event_type);
        ListAlertRulesResponse::Ok(sorted_rules(rules))
    }

    async fn list_alert_rule_geofences(
        &self,
        _principal: Uuid,
        request: ListAlertRuleGeofencesRequest,
    ) -> ListAlertRuleGeofencesResponse {
        if let Some((status, body)) = self.enter() {
            return ListAlertRuleGeofencesResponse::Other(status, body);
        }
        let state = self.state();
        if state.asset(request.account_id, request.asset_id).is_none() {
            return ListAlertRuleGeofencesResponse::NotFound(not_found("asset"));
        }
        let event_type: EventType = request.event_type;
        let mut ids: Vec<Uuid> = state
            .rules
            .values()
            .filter(|r| r.asset_id == request.asset_id && r.event_type == event_type)
            .flat_map(|r| {
                r.inside_geofences
                    .iter()
                    .chain(&r.outside_geofences)
                    .copied()
            })
            .collect();
        ids.sort();
        ids.dedup();
        ListAlertRuleGeofencesResponse::Ok(sorted_geofences(
            ids.iter().filter_map(|id| state.geofences.get(id)),
        ))
    }

    async fn get_alert_rule(
        &self,
        _principal: Uuid,
        request: GetAlertRuleRequest,
    ) -> GetAlertRuleResponse {
        if let Some((status, body)) = self.enter() {
            return GetAlertRuleResponse::Other(status, body);
        }
        match self
            .state()
            .rules
            .get(&request.alert_rule_id)
            .filter(|r| r.account_id == request.account_id)
        {
            Some(rule) => GetAlertRuleResponse::Ok(rule.clone()),
            None => GetAlertRuleResponse::NotFound(not_found("alert rule")),
        }
    }

    async fn update_alert_rule(
        &self,
        _principal: Uuid,
        request: UpdateAlertRuleRequest,
    ) -> UpdateAlertRuleResponse {
        if let Some((status, body)) = self.enter() {
            return UpdateAlertRuleResponse::Other(status, body);
        }
        let mut state = self.state();
        let Some(existing) = state
            .rules
            .get(&request.alert_rule_id)
            .filter(|r| r.account_id == request.account_id)
        else {
            return UpdateAlertRuleResponse::NotFound(not_found("alert rule"));
        };
        let asset_id = existing.asset_id;
        if let Some(id) = state.unknown_geofence(request.account_id, &request.body) {
            return UpdateAlertRuleResponse::BadRequest(error(
                codes::VALIDATION,
                format!("geofence {id} does not exist"),
            ));
        }
        let rule = rule_from(
            request.alert_rule_id,
            request.account_id,
            asset_id,
            request.body,
        );
        state.rules.insert(rule.id, rule.clone());
        UpdateAlertRuleResponse::Ok(rule)
    }

    async fn delete_alert_rule(
        &self,
        _principal: Uuid,
        request: DeleteAlertRuleRequest,
    ) -> DeleteAlertRuleResponse {
        if let Some((status, body)) = self.enter() {
            return DeleteAlertRuleResponse::Other(status, body);
        }
        let mut state = self.state();
        let owned = state
            .rules
            .get(&request.alert_rule_id)
            .is_some_and(|r| r.account_id == request.account_id);
        if !owned {
            return DeleteAlertRuleResponse::NotFound(not_found("alert rule"));
        }
        state.rules.remove(&request.alert_rule_id);
        DeleteAlertRuleResponse::NoContent
    }

    async fn list_geofences(
        &self,
        _principal: Uuid,
        request: ListGeofencesRequest,
    ) -> ListGeofencesResponse {
        if let Some((status, body)) = self.enter() {
            return ListGeofencesResponse::Other(status, body);
        }
        let state = self.state();
        if !state.has_account(request.account_id) {
            return ListGeofencesResponse::NotFound(not_found("account"));
        }
        ListGeofencesResponse::Ok(sorted_geofences(
            state
                .geofences
                .values()
                .filter(|g| g.account_id == request.account_id),
        ))
    }

    async fn create_geofence(
        &self,
        _principal: Uuid,
        request: CreateGeofenceRequest,
    ) -> CreateGeofenceResponse {
        if let Some((status, body)) = self.enter() {
            return CreateGeofenceResponse::Other(status, body);
        }
        let mut state = self.state();
        if !state.has_account(request.account_id) {
            return CreateGeofenceResponse::NotFound(not_found("account"));
        }
        if state.geofence_external_id_taken(request.account_id, &request.body.external_id, None) {
            return CreateGeofenceResponse::Conflict(error(
                codes::CONFLICT,
                "externalId is already used",
            ));
        }
        let geofence = geofence_from(self.id(), request.account_id, request.body);
        state.geofences.insert(geofence.id, geofence.clone());
        CreateGeofenceResponse::Created(geofence)
    }

    async fn get_geofence(
        &self,
        _principal: Uuid,
        request: GetGeofenceRequest,
    ) -> GetGeofenceResponse {
        if let Some((status, body)) = self.enter() {
            return GetGeofenceResponse::Other(status, body);
        }
        match self
            .state()
            .geofences
            .get(&request.geofence_id)
            .filter(|g| g.account_id == request.account_id)
        {
            Some(geofence) => GetGeofenceResponse::Ok(geofence.clone()),
            None => GetGeofenceResponse::NotFound(not_found("geofence")),
        }
    }

    async fn update_geofence(
        &self,
        _principal: Uuid,
        request: UpdateGeofenceRequest,
    ) -> UpdateGeofenceResponse {
        if let Some((status, body)) = self.enter() {
            return UpdateGeofenceResponse::Other(status, body);
        }
        let mut state = self.state();
        let owned = state
            .geofences
            .get(&request.geofence_id)
            .is_some_and(|g| g.account_id == request.account_id);
        if !owned {
            return UpdateGeofenceResponse::NotFound(not_found("geofence"));
        }
        if state.geofence_external_id_taken(
            request.account_id,
            &request.body.external_id,
            Some(request.geofence_id),
        ) {
            return UpdateGeofenceResponse::Conflict(error(
                codes::CONFLICT,
                "externalId is already used",
            ));
        }
        let geofence = geofence_from(request.geofence_id, request.account_id, request.body);
        state.geofences.insert(geofence.id, geofence.clone());
        UpdateGeofenceResponse::Ok(geofence)
    }

    async fn delete_geofence(
        &self,
        _principal: Uuid,
        request: DeleteGeofenceRequest,
    ) -> DeleteGeofenceResponse {
        if let Some((status, body)) = self.enter() {
            return DeleteGeofenceResponse::Other(status, body);
        }
        let mut state = self.state();
        let owned = state
            .geofences
            .get(&request.geofence_id)
            .is_some_and(|g| g.account_id == request.account_id);
        if !owned {
            return DeleteGeofenceResponse::NotFound(not_found("geofence"));
        }
        let id = request.geofence_id;
        if state
            .rules
            .values()
            .any(|r| r.inside_geofences.contains(&id) || r.outside_geofences.contains(&id))
        {
            return DeleteGeofenceResponse::Conflict(error(
                codes::CONFLICT,
                "the geofence is referenced by an alert rule",
            ));
        }
        state.geofences.remove(&id);
        DeleteGeofenceResponse::NoContent
    }

    async fn get_ingestion_token(
        &self,
        _principal: Uuid,
        request: GetIngestionTokenRequest,
    ) -> GetIngestionTokenResponse {
        if let Some((status, body)) = self.enter() {
            return GetIngestionTokenResponse::Other(status, body);
        }
        if !self.state().has_account(request.account_id) {
            return GetIngestionTokenResponse::NotFound(not_found("account"));
        }
        let token = IngestionToken {
            id: self.id(),
            token: format!("ingest-{}", self.id().simple()),
            expires_at: Utc::now() + Duration::hours(1),
        };
        GetIngestionTokenResponse::Ok {
            body: token,
            cache_control: Some("no-store".to_owned()),
        }
    }

    /// The memory API keeps no tokens: the list is empty and nothing can be revoked.
    async fn list_ingestion_tokens(
        &self,
        _principal: Uuid,
        request: ListIngestionTokensRequest,
    ) -> ListIngestionTokensResponse {
        if let Some((status, body)) = self.enter() {
            return ListIngestionTokensResponse::Other(status, body);
        }
        if !self.state().has_account(request.account_id) {
            return ListIngestionTokensResponse::NotFound(not_found("account"));
        }
        ListIngestionTokensResponse::Ok(Vec::new())
    }

    async fn revoke_ingestion_token(
        &self,
        _principal: Uuid,
        request: RevokeIngestionTokenRequest,
    ) -> RevokeIngestionTokenResponse {
        if let Some((status, body)) = self.enter() {
            return RevokeIngestionTokenResponse::Other(status, body);
        }
        RevokeIngestionTokenResponse::NotFound(not_found(&format!(
            "ingestion token {}",
            request.token_id
        )))
    }

    async fn get_portal_link(
        &self,
        _principal: Uuid,
        request: GetPortalLinkRequest,
    ) -> GetPortalLinkResponse {
        if let Some((status, body)) = self.enter() {
            return GetPortalLinkResponse::Other(status, body);
        }
        if !self.state().has_account(request.account_id) {
            return GetPortalLinkResponse::NotFound(not_found("account"));
        }
        let expires_at = Utc::now() + Duration::minutes(15);
        let url = format!(
            "http://localhost/portal/{}?expires={}&signature=test",
            request.account_id,
            expires_at.timestamp()
        );
        GetPortalLinkResponse::Ok {
            body: PortalLink { url, expires_at },
            cache_control: Some("no-store".to_owned()),
        }
    }

    /// Stores every point and accepts it (the memory API checks nothing beyond the router).
    async fn ingest_telemetry(
        &self,
        _account: Uuid,
        request: IngestTelemetryRequest,
    ) -> IngestTelemetryResponse {
        if let Some((status, body)) = self.enter() {
            return IngestTelemetryResponse::Other(status, body);
        }
        let mut state = self.state();
        let results = request
            .body
            .points
            .iter()
            .enumerate()
            .map(|(index, point)| PointResult {
                index: index as i64,
                status: PointResultStatus::Accepted,
                asset_id: point.asset_id,
                reason: None,
                message: None,
            })
            .collect::<Vec<_>>();
        state.telemetry.extend(request.body.points);
        IngestTelemetryResponse::Accepted(TelemetryBatchResult {
            accepted: results.len() as i64,
            duplicates: 0,
            rejected: 0,
            results,
        })
    }

    /// The newest point received for the asset.
    async fn get_asset_state(
        &self,
        _principal: Uuid,
        request: GetAssetStateRequest,
    ) -> GetAssetStateResponse {
        if let Some((status, body)) = self.enter() {
            return GetAssetStateResponse::Other(status, body);
        }
        let state = self.state();
        if !state.assets.contains_key(&request.asset_id) {
            return GetAssetStateResponse::NotFound(not_found("asset"));
        }
        let last = state
            .telemetry
            .iter()
            .filter(|p| p.asset_id == Some(request.asset_id))
            .max_by_key(|p| p.timestamp);
        GetAssetStateResponse::Ok(AssetState {
            asset_id: request.asset_id,
            last_report_at: last.map(|p| p.timestamp),
            position: last.and_then(|p| {
                Some(Position {
                    latitude: p.latitude?,
                    longitude: p.longitude?,
                })
            }),
            speed: last.and_then(|p| p.speed),
            heading: None,
            altitude: None,
            satellites: None,
            ignition: last.and_then(|p| p.ignition),
            input_voltage: None,
            battery_voltage: None,
            battery_percentage: None,
            fuel_level: None,
            ad_blue_level: None,
            temperature: None,
            pressure: None,
            engine_speed: None,
            country: None,
            inside_geofences: Vec::new(),
            open_episodes: Vec::new(),
        })
    }

    async fn list_events(
        &self,
        _principal: Uuid,
        request: ListEventsRequest,
    ) -> ListEventsResponse {
        if let Some((status, body)) = self.enter() {
            return ListEventsResponse::Other(status, body);
        }
        let state = self.state();
        let mut events: Vec<Event> = state
            .events
            .values()
            .filter(|e| e.account_id == request.account_id)
            .filter(|e| {
                request
                    .event_type
                    .is_none_or(|t| t == EventType::Any || t == e.event_type)
            })
            .cloned()
            .collect();
        events.sort_by_key(|e| std::cmp::Reverse((e.occurred_at, e.id)));
        let page = events
            .into_iter()
            .skip(request.skip as usize)
            .take(request.take as usize)
            .collect();
        ListEventsResponse::Ok(page)
    }

    async fn stream_events(
        &self,
        _principal: Uuid,
        request: StreamEventsRequest,
    ) -> StreamEventsResponse {
        if let Some((status, body)) = self.enter() {
            return StreamEventsResponse::Other(status, body);
        }
        // The events stored so far, oldest first; then the stream ends (nothing here is live).
        let mut events: Vec<Event> = self
            .state()
            .events
            .values()
            .filter(|e| e.account_id == request.account_id)
            .filter(|e| {
                request
                    .event_type
                    .is_none_or(|t| t == EventType::Any || t == e.event_type)
            })
            .cloned()
            .collect();
        events.sort_by_key(|e| (e.occurred_at, e.id));
        let events = events
            .into_iter()
            .map(|e| stream::Event::new(e.clone()).id(e.id.to_string()));
        StreamEventsResponse::Ok(stream::EventStream::new(futures_util::stream::iter(events)))
    }

    async fn get_event(&self, _principal: Uuid, request: GetEventRequest) -> GetEventResponse {
        if let Some((status, body)) = self.enter() {
            return GetEventResponse::Other(status, body);
        }
        match self.state().events.get(&request.event_id) {
            Some(event) => GetEventResponse::Ok(event.clone()),
            None => GetEventResponse::NotFound(not_found("event")),
        }
    }

    async fn acknowledge_event(
        &self,
        principal: Uuid,
        request: AcknowledgeEventRequest,
    ) -> AcknowledgeEventResponse {
        if let Some((status, body)) = self.enter() {
            return AcknowledgeEventResponse::Other(status, body);
        }
        match self.state().events.get_mut(&request.event_id) {
            Some(event) => {
                event.acknowledged_at.get_or_insert_with(Utc::now);
                event
                    .acknowledged_by
                    .get_or_insert_with(|| format!("account:{principal}"));
                AcknowledgeEventResponse::Ok(event.clone())
            }
            None => AcknowledgeEventResponse::NotFound(not_found("event")),
        }
    }

    async fn list_event_notifications(
        &self,
        _principal: Uuid,
        request: ListEventNotificationsRequest,
    ) -> ListEventNotificationsResponse {
        if let Some((status, body)) = self.enter() {
            return ListEventNotificationsResponse::Other(status, body);
        }
        if self.state().events.contains_key(&request.event_id) {
            ListEventNotificationsResponse::Ok(Vec::new())
        } else {
            ListEventNotificationsResponse::NotFound(not_found("event"))
        }
    }

    async fn get_webhook_secret(
        &self,
        _principal: Uuid,
        request: GetWebhookSecretRequest,
    ) -> GetWebhookSecretResponse {
        if let Some((status, body)) = self.enter() {
            return GetWebhookSecretResponse::Other(status, body);
        }
        if !self.state().has_account(request.account_id) {
            return GetWebhookSecretResponse::NotFound(not_found("account"));
        }
        GetWebhookSecretResponse::Ok {
            body: WebhookSecret {
                secret: format!("whsec-{}", request.account_id),
            },
            cache_control: Some("no-store".to_owned()),
        }
    }
}

fn geofence_from(id: Uuid, account_id: Uuid, input: GeofenceInput) -> Geofence {
    Geofence {
        id,
        account_id,
        external_id: input.external_id,
        name: input.name,
        polygon: input.polygon,
    }
}
