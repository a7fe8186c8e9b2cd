//! The service's behaviour: every operation of the spec as a plain async function returning
//! `Result<T, ApiError>`. `handlers` maps them onto the generated trait's response enums.

use crate::auth::LinkSigner;
use crate::auth::{
    SecretVerifier, TokenKeys, hash_secret, new_client_secret, random_token, sha256_hex,
};
use crate::rules;
use crate::store::{
    AccountRecord, AssetFilter, GeofenceDeletion, IngestionTokenRecord, Page, Store, StoreError,
};
use asset_alerting_models::*;
use chrono::Utc;
use uuid::Uuid;

/// Error codes of the spec's table (ErrorBody.code).
pub mod codes {
    pub const VALIDATION: i32 = 1000;
    pub const MALFORMED_JSON: i32 = 1001;
    pub const UNSUPPORTED_MEDIA_TYPE: i32 = 1002;
    pub const PAYLOAD_TOO_LARGE: i32 = 1003;
    pub const METHOD_NOT_ALLOWED: i32 = 1004;
    pub const UNAUTHORIZED: i32 = 1100;
    pub const FORBIDDEN: i32 = 1300;
    pub const NOT_FOUND: i32 = 1400;
    pub const CONFLICT: i32 = 1500;
    pub const TOO_MANY_STREAMS: i32 = 1600;
    pub const INTERNAL: i32 = 1900;
}

/// How long an ingestion token lives, and how many unexpired ones an account may hold.
const INGESTION_TOKEN_LIFETIME: chrono::Duration = chrono::Duration::hours(1);
const INGESTION_TOKEN_LIMIT: i64 = 10;
const PORTAL_LINK_LIFETIME: chrono::Duration = chrono::Duration::minutes(15);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    Invalid(String),
    NotFound(String),
    Conflict(String),
    /// The account has as many live event streams open as it may.
    TooManyStreams,
    Internal,
}

impl ApiError {
    /// The HTTP status that answers it.
    pub fn status(&self) -> axum::http::StatusCode {
        use axum::http::StatusCode;
        match self {
            ApiError::Invalid(_) => StatusCode::BAD_REQUEST,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::TooManyStreams => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn body(&self) -> ErrorBody {
        let (code, message) = match self {
            ApiError::Invalid(m) => (codes::VALIDATION, m.clone()),
            ApiError::NotFound(m) => (codes::NOT_FOUND, m.clone()),
            ApiError::Conflict(m) => (codes::CONFLICT, m.clone()),
            ApiError::TooManyStreams => (
                codes::TOO_MANY_STREAMS,
                format!(
                    "the account already has {} open event streams; close one first",
                    crate::live::STREAMS_PER_ACCOUNT
                ),
            ),
            ApiError::Internal => (codes::INTERNAL, "internal error".to_owned()),
        };
        ErrorBody {
            code: code.into(),
            message,
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict(m) => ApiError::Conflict(m),
            StoreError::Invalid(m) => ApiError::Invalid(m),
            other => {
                tracing::error!(error = %other, "store failure");
                ApiError::Internal
            }
        }
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// An OAuth 2.0 token-endpoint failure (RFC 6749 section 5.2): 400, or 401 for `invalid_client`.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenFailure(pub OAuthError);

impl TokenFailure {
    fn new(error: OAuthErrorError, description: &str) -> TokenFailure {
        TokenFailure(OAuthError {
            error,
            error_description: Some(description.to_owned()),
        })
    }

    pub fn is_client_error(&self) -> bool {
        self.0.error == OAuthErrorError::InvalidClient
    }
}

mod alerting;
mod live;

pub use alerting::{Alerting, state_view};

pub struct Service<S> {
    store: S,
    tokens: TokenKeys,
    verifier: SecretVerifier,
    signer: LinkSigner,
    public_base_url: String,
    alerting: Alerting,
}

fn account_view(a: AccountRecord) -> Account {
    Account {
        id: a.id,
        parent_id: a.parent_id,
        name: a.name,
        friendly_name: a.friendly_name,
        culture: a.culture,
        technical_email_address: a.technical_email_address,
        callback_uri: a.callback_uri,
        created_at: a.created_at,
    }
}

fn not_found(what: &str, id: Uuid) -> ApiError {
    ApiError::NotFound(format!("{what} {id} not found"))
}

/// What the store answers about one thing that may be missing: a read's `Option`, or a write's
/// `bool` (whether it found its row).
trait Found {
    type Value;
    fn found(self) -> Option<Self::Value>;
}

impl<T> Found for Option<T> {
    type Value = T;
    fn found(self) -> Option<T> {
        self
    }
}

impl Found for bool {
    type Value = ();
    fn found(self) -> Option<()> {
        self.then_some(())
    }
}

/// The store's answer about `what` `id`, or "`what` `id` not found".
fn found<F: Found>(answer: F, what: &str, id: Uuid) -> ApiResult<F::Value> {
    answer.found().ok_or_else(|| not_found(what, id))
}

fn check_technical_email(address: Option<&str>) -> ApiResult<()> {
    address.map_or(Ok(()), |a| {
        rules::email_address("technicalEmailAddress", a).map_err(ApiError::Invalid)
    })
}

impl<S: Store> Service<S> {
    pub fn new(
        store: S,
        tokens: TokenKeys,
        signer: LinkSigner,
        public_base_url: String,
        alerting: Alerting,
    ) -> Service<S> {
        Service {
            store,
            tokens,
            verifier: SecretVerifier::half_the_cores(),
            signer,
            public_base_url,
            alerting,
        }
    }

    pub fn alerting(&self) -> &Alerting {
        &self.alerting
    }

    pub fn public_base_url(&self) -> &str {
        &self.public_base_url
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn signer(&self) -> &LinkSigner {
        &self.signer
    }

    pub fn tokens(&self) -> &TokenKeys {
        &self.tokens
    }

    /// The caller may act on `account` only if it is the caller's own account or a descendant;
    /// anything else answers exactly like a missing account, so other tenants' ids cannot be probed.
    async fn visible(&self, principal: Uuid, account: Uuid) -> ApiResult<()> {
        found(
            self.store.is_within(principal, account).await?,
            "account",
            account,
        )
    }

    /// Reads or writes `what` `id` of `account` with `op` once the caller may see `account`: not
    /// found for the account when it may not (`op` is not run), for `what` when `op` finds nothing.
    async fn in_visible<F: Found>(
        &self,
        principal: Uuid,
        account: Uuid,
        (what, id): (&str, Uuid),
        op: impl Future<Output = Result<F, StoreError>>,
    ) -> ApiResult<F::Value> {
        self.visible(principal, account).await?;
        found(op.await?, what, id)
    }

    /// A callbackUri must pass the service's callback policy (https, public address by default).
    fn check_callback_uri(&self, uri: Option<&str>) -> ApiResult<()> {
        match uri {
            Some(uri) => self
                .alerting
                .check_callback_uri(uri)
                .map_err(|why| ApiError::Invalid(format!("callbackUri: {why}"))),
            None => Ok(()),
        }
    }

    /// The asset, if the caller may see its account.
    async fn asset_of(&self, principal: Uuid, account: Uuid, asset: Uuid) -> ApiResult<Asset> {
        let read = self.store.asset(account, asset);
        self.in_visible(principal, account, ("asset", asset), read)
            .await
    }

    // ---- auth ----

    /// RFC 6749 section 4.4: the client credentials grant, credentials by HTTP Basic or in the form.
    pub async fn issue_token(
        &self,
        basic: Option<(String, String)>,
        form: &TokenRequest,
    ) -> Result<TokenResponse, TokenFailure> {
        use OAuthErrorError as E;
        match form.grant_type.as_deref() {
            None | Some("") => {
                return Err(TokenFailure::new(
                    E::InvalidRequest,
                    "grant_type is required",
                ));
            }
            Some("client_credentials") => {}
            Some(_) => {
                return Err(TokenFailure::new(
                    E::UnsupportedGrantType,
                    "only grant_type=client_credentials is supported",
                ));
            }
        }
        let in_form = form.client_id.is_some() || form.client_secret.is_some();
        let (client_id, client_secret) = match (basic, in_form) {
            (Some(_), true) => {
                return Err(TokenFailure::new(
                    E::InvalidRequest,
                    "send client credentials either with HTTP Basic or in the form, not both",
                ));
            }
            (Some(pair), false) => pair,
            (None, true) => (
                form.client_id.clone().unwrap_or_default(),
                form.client_secret.clone().unwrap_or_default(),
            ),
            (None, false) => {
                return Err(TokenFailure::new(
                    E::InvalidClient,
                    "client credentials are missing",
                ));
            }
        };
        if form.scope.as_deref().is_some_and(|s| !s.trim().is_empty()) {
            return Err(TokenFailure::new(
                E::InvalidScope,
                "this service defines no scopes",
            ));
        }
        let rejected = || TokenFailure::new(E::InvalidClient, "client authentication failed");
        let id = Uuid::parse_str(&client_id).map_err(|_| rejected())?;
        let account = match self.store.account(id).await {
            Ok(Some(account)) => account,
            Ok(None) => {
                // Spend the same time as a real check, so unknown ids cannot be told apart by timing.
                let _ = self.verifier.verify(&client_secret, &DUMMY_HASH).await;
                return Err(rejected());
            }
            Err(e) => {
                tracing::error!(error = %e, "token endpoint store failure");
                return Err(TokenFailure::new(
                    E::InvalidRequest,
                    "the request could not be processed; try again",
                ));
            }
        };
        if !self
            .verifier
            .verify(&client_secret, &account.secret_hash)
            .await
        {
            return Err(rejected());
        }
        let (access_token, _) = self.tokens.issue(account.id, Utc::now());
        let expires_in = self.tokens.lifetime.num_seconds();
        Ok(TokenResponse {
            access_token,
            token_type: TokenResponseTokenType::Bearer,
            expires_in,
        })
    }

    // ---- accounts ----

    pub async fn get_account(&self, principal: Uuid, id: Uuid) -> ApiResult<Account> {
        let a = self
            .in_visible(principal, id, ("account", id), self.store.account(id))
            .await?;
        Ok(account_view(a))
    }

    /// Replaces the writable fields; read-only fields in the body (id, parentId, createdAt) are
    /// ignored, so what GET returned can be sent back.
    pub async fn update_account(
        &self,
        principal: Uuid,
        id: Uuid,
        body: AccountInput,
    ) -> ApiResult<Account> {
        self.visible(principal, id).await?;
        self.check_callback_uri(body.callback_uri.as_deref())?;
        check_technical_email(body.technical_email_address.as_deref())?;
        let mut record = found(self.store.account(id).await?, "account", id)?;
        record.name = body.name;
        record.friendly_name = body.friendly_name;
        record.culture = body.culture;
        record.technical_email_address = body.technical_email_address;
        record.callback_uri = body.callback_uri;
        found(self.store.update_account(&record).await?, "account", id)?;
        Ok(account_view(record))
    }

    /// Deletes the account's whole subtree with its data. Never the caller's own account: the
    /// parent deletes it, so the root account (nobody's descendant) always stays.
    pub async fn delete_account(&self, principal: Uuid, id: Uuid) -> ApiResult<()> {
        self.visible(principal, id).await?;
        if id == principal {
            return Err(ApiError::Conflict(
                "an account cannot delete itself; its parent account can".to_owned(),
            ));
        }
        found(self.store.delete_account_tree(id).await?, "account", id)
    }

    pub async fn list_child_accounts(
        &self,
        principal: Uuid,
        id: Uuid,
        page: Page,
    ) -> ApiResult<Vec<Account>> {
        self.visible(principal, id).await?;
        let children = self.store.child_accounts(id, page).await?;
        Ok(children.into_iter().map(account_view).collect())
    }

    /// A new secret, effective at once: the old one no longer authenticates.
    pub async fn rotate_client_secret(&self, principal: Uuid, id: Uuid) -> ApiResult<ClientSecret> {
        self.visible(principal, id).await?;
        let secret = new_client_secret();
        let hash = hash_secret(&secret);
        found(self.store.set_secret_hash(id, &hash).await?, "account", id)?;
        Ok(ClientSecret {
            client_id: id,
            client_secret: secret,
        })
    }

    /// Creates a child of `parent`; the secret is returned this once and stored only as a hash.
    pub async fn create_account(
        &self,
        principal: Uuid,
        parent: Uuid,
        body: CreateAccountRequest,
    ) -> ApiResult<CreateAccountResponse> {
        self.visible(principal, parent).await?;
        self.check_callback_uri(body.callback_uri.as_deref())?;
        check_technical_email(body.technical_email_address.as_deref())?;
        let secret = new_client_secret();
        let record = AccountRecord {
            id: Uuid::new_v4(),
            parent_id: Some(parent),
            name: body.name,
            friendly_name: body.friendly_name,
            culture: body.culture,
            technical_email_address: body.technical_email_address,
            callback_uri: body.callback_uri,
            secret_hash: hash_secret(&secret),
            created_at: Utc::now(),
        };
        self.store.insert_account(&record).await?;
        Ok(CreateAccountResponse {
            id: record.id,
            client_secret: secret,
        })
    }

    pub async fn get_ingestion_token(
        &self,
        principal: Uuid,
        account: Uuid,
    ) -> ApiResult<IngestionToken> {
        self.visible(principal, account).await?;
        let token = random_token(32);
        let now = Utc::now();
        let record = IngestionTokenRecord {
            id: Uuid::new_v4(),
            account_id: account,
            issued_by: principal,
            created_at: now,
            expires_at: now + INGESTION_TOKEN_LIFETIME,
        };
        if !self
            .store
            .insert_ingestion_token(&record, &sha256_hex(&token), now, INGESTION_TOKEN_LIMIT)
            .await?
        {
            return Err(ApiError::Conflict(format!(
                "you already hold {INGESTION_TOKEN_LIMIT} unexpired ingestion tokens of this account; \
                 revoke one or wait for one to expire"
            )));
        }
        Ok(IngestionToken {
            id: record.id,
            token,
            expires_at: record.expires_at,
        })
    }

    pub async fn list_ingestion_tokens(
        &self,
        principal: Uuid,
        account: Uuid,
    ) -> ApiResult<Vec<IngestionTokenInfo>> {
        self.visible(principal, account).await?;
        let tokens = self.store.ingestion_tokens(account, Utc::now()).await?;
        Ok(tokens
            .into_iter()
            .map(|t| IngestionTokenInfo {
                id: t.id,
                account_id: t.account_id,
                issued_by: t.issued_by,
                created_at: t.created_at,
                expires_at: t.expires_at,
            })
            .collect())
    }

    pub async fn revoke_ingestion_token(
        &self,
        principal: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> ApiResult<()> {
        self.in_visible(
            principal,
            account,
            ("ingestion token", id),
            self.store.revoke_ingestion_token(account, id),
        )
        .await
    }

    pub async fn get_portal_link(&self, principal: Uuid, account: Uuid) -> ApiResult<PortalLink> {
        self.visible(principal, account).await?;
        let expires_at = Utc::now() + PORTAL_LINK_LIFETIME;
        Ok(PortalLink {
            url: self.signer.link(&self.public_base_url, account, expires_at),
            expires_at,
        })
    }

    // ---- assets ----

    pub async fn list_assets(
        &self,
        principal: Uuid,
        account: Uuid,
        filter: AssetFilter<'_>,
        page: Page,
    ) -> ApiResult<Vec<Asset>> {
        let assets = self
            .store
            .list_assets_within(principal, account, filter, page)
            .await?;
        if assets.is_empty() {
            // Nothing to show, or nothing the caller may see: only then is it worth a second read.
            self.visible(principal, account).await?;
        }
        Ok(assets)
    }

    pub async fn get_asset(&self, principal: Uuid, account: Uuid, id: Uuid) -> ApiResult<Asset> {
        // The visibility check and the read in one statement (the hot path).
        let within = self.store.asset_within(principal, account, id).await?;
        found(found(within, "account", account)?, "asset", id)
    }

    /// An asset from its input. The keys of `disabledEvents` (event type names) are checked by the
    /// router against the spec's `propertyNames` pattern before any handler runs.
    fn asset_from(id: Uuid, account: Uuid, input: AssetInput, is_deleted: bool) -> Asset {
        Asset {
            id,
            account_id: account,
            external_id: input.external_id,
            device_id: input.device_id,
            name: input.name,
            tier: input.tier,
            disabled_events: input.disabled_events.unwrap_or_default(),
            telemetry_rules: input.telemetry_rules,
            is_deleted: Some(is_deleted),
        }
    }

    pub async fn create_asset(
        &self,
        principal: Uuid,
        account: Uuid,
        input: AssetInput,
    ) -> ApiResult<Asset> {
        self.visible(principal, account).await?;
        let asset = Self::asset_from(Uuid::new_v4(), account, input, false);
        self.store.insert_asset(&asset).await?;
        Ok(asset)
    }

    /// Full replacement; the deleted flag is kept (an update does not undelete).
    pub async fn update_asset(
        &self,
        principal: Uuid,
        account: Uuid,
        id: Uuid,
        input: AssetInput,
    ) -> ApiResult<Asset> {
        let existing = self.asset_of(principal, account, id).await?;
        let asset = Self::asset_from(id, account, input, existing.is_deleted.unwrap_or(false));
        found(self.store.update_asset(&asset).await?, "asset", id)?;
        Ok(asset)
    }

    pub async fn delete_asset(&self, principal: Uuid, account: Uuid, id: Uuid) -> ApiResult<()> {
        self.in_visible(
            principal,
            account,
            ("asset", id),
            self.store.soft_delete_asset(account, id),
        )
        .await
    }

    // ---- alert rules ----

    pub async fn list_alert_rules(
        &self,
        principal: Uuid,
        account: Uuid,
        asset: Uuid,
        event_type: EventType,
    ) -> ApiResult<Vec<AlertRule>> {
        self.asset_of(principal, account, asset).await?;
        Ok(self
            .store
            .list_alert_rules(account, asset, event_type)
            .await?)
    }

    pub async fn list_alert_rule_geofences(
        &self,
        principal: Uuid,
        account: Uuid,
        asset: Uuid,
        event_type: EventType,
    ) -> ApiResult<Vec<Geofence>> {
        self.asset_of(principal, account, asset).await?;
        Ok(self
            .store
            .alert_rule_geofences(account, asset, event_type)
            .await?)
    }

    /// The rule's own checks, and that every geofence it names belongs to the same account.
    async fn check_rule(&self, account: Uuid, input: &AlertRuleInput) -> ApiResult<()> {
        rules::alert_rule(input).map_err(ApiError::Invalid)?;
        let mut ids: Vec<Uuid> = input
            .inside_geofences
            .iter()
            .chain(&input.outside_geofences)
            .copied()
            .collect();
        ids.sort();
        ids.dedup();
        let found = self.store.existing_geofences(account, &ids).await?;
        if let Some(missing) = ids.iter().find(|id| !found.contains(id)) {
            return Err(ApiError::Invalid(format!(
                "geofence {missing} does not exist in this account"
            )));
        }
        Ok(())
    }

    fn rule_from(id: Uuid, account: Uuid, asset: Uuid, input: AlertRuleInput) -> AlertRule {
        AlertRule {
            id,
            account_id: account,
            asset_id: asset,
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

    pub async fn create_alert_rule(
        &self,
        principal: Uuid,
        account: Uuid,
        asset: Uuid,
        input: AlertRuleInput,
    ) -> ApiResult<AlertRule> {
        self.asset_of(principal, account, asset).await?;
        self.check_rule(account, &input).await?;
        let rule = Self::rule_from(Uuid::new_v4(), account, asset, input);
        self.store.insert_alert_rule(&rule).await?;
        Ok(rule)
    }

    pub async fn get_alert_rule(
        &self,
        principal: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> ApiResult<AlertRule> {
        self.in_visible(
            principal,
            account,
            ("alert rule", id),
            self.store.alert_rule(account, id),
        )
        .await
    }

    /// Full replacement; a rule stays with its asset.
    pub async fn update_alert_rule(
        &self,
        principal: Uuid,
        account: Uuid,
        id: Uuid,
        input: AlertRuleInput,
    ) -> ApiResult<AlertRule> {
        let existing = self.get_alert_rule(principal, account, id).await?;
        self.check_rule(account, &input).await?;
        let rule = Self::rule_from(id, account, existing.asset_id, input);
        found(self.store.update_alert_rule(&rule).await?, "alert rule", id)?;
        Ok(rule)
    }

    pub async fn delete_alert_rule(
        &self,
        principal: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> ApiResult<()> {
        self.in_visible(
            principal,
            account,
            ("alert rule", id),
            self.store.delete_alert_rule(account, id),
        )
        .await
    }

    // ---- geofences ----

    pub async fn list_geofences(&self, principal: Uuid, account: Uuid) -> ApiResult<Vec<Geofence>> {
        self.visible(principal, account).await?;
        Ok(self.store.list_geofences(account).await?)
    }

    pub async fn get_geofence(
        &self,
        principal: Uuid,
        account: Uuid,
        id: Uuid,
    ) -> ApiResult<Geofence> {
        self.in_visible(
            principal,
            account,
            ("geofence", id),
            self.store.geofence(account, id),
        )
        .await
    }

    pub async fn create_geofence(
        &self,
        principal: Uuid,
        account: Uuid,
        input: GeofenceInput,
    ) -> ApiResult<Geofence> {
        self.visible(principal, account).await?;
        rules::polygon(&input.polygon).map_err(ApiError::Invalid)?;
        let geofence = Geofence {
            id: Uuid::new_v4(),
            account_id: account,
            external_id: input.external_id,
            name: input.name,
            polygon: input.polygon,
        };
        self.store.insert_geofence(&geofence).await?;
        Ok(geofence)
    }

    pub async fn update_geofence(
        &self,
        principal: Uuid,
        account: Uuid,
        id: Uuid,
        input: GeofenceInput,
    ) -> ApiResult<Geofence> {
        self.visible(principal, account).await?;
        rules::polygon(&input.polygon).map_err(ApiError::Invalid)?;
        let geofence = Geofence {
            id,
            account_id: account,
            external_id: input.external_id,
            name: input.name,
            polygon: input.polygon,
        };
        found(self.store.update_geofence(&geofence).await?, "geofence", id)?;
        Ok(geofence)
    }

    /// Refused (409) while alert rules reference the geofence: deleting never changes a rule's meaning.
    pub async fn delete_geofence(&self, principal: Uuid, account: Uuid, id: Uuid) -> ApiResult<()> {
        self.visible(principal, account).await?;
        match self.store.delete_geofence(account, id).await? {
            GeofenceDeletion::Deleted => Ok(()),
            GeofenceDeletion::NotFound => Err(not_found("geofence", id)),
            GeofenceDeletion::Referenced(n) => Err(ApiError::Conflict(format!(
                "geofence {id} is referenced by {n} alert rule(s); remove it from those rules first"
            ))),
        }
    }
}

/// A real argon2 hash, verified against when the client id is unknown.
static DUMMY_HASH: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| hash_secret(&random_token(16)));
