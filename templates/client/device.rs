//! OAuth 2.0 device authorization grant (RFC 8628), for clients on devices without a browser or
//! keyboard: the client asks for a device code and a user code, the user approves the request on
//! another device, and meanwhile the client polls the token endpoint. Copied verbatim by
//! openapi-gen, for documents with a `deviceAuthorization` flow.

use std::fmt;
use std::time::Duration;
use tokio::time::Instant;

/// The polling interval when the server names none (section 3.2).
const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);
/// What `slow_down` adds to the interval, for that request and every later one (section 3.5).
const SLOW_DOWN: Duration = Duration::from_secs(5);
/// The grant type of the token requests (section 3.4).
const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// A started device authorization: show the user [`user_code`](Self::user_code) and
/// [`verification_uri`](Self::verification_uri) (or the complete URI, as a link or QR code),
/// then wait for the token with [`token`](Self::token).
#[derive(Clone)]
pub struct DeviceAuthorization {
    /// The code the user enters at the verification URI.
    pub user_code: String,
    /// Where the user goes to approve the request.
    pub verification_uri: String,
    /// The verification URI with the user code in it, when the server gives one.
    pub verification_uri_complete: Option<String>,
    /// How long the codes stay valid.
    pub expires_in: Duration,
    interval: Duration,
    device_code: String,
    token_url: String,
    client_id: String,
    http: reqwest::Client,
}

impl fmt::Debug for DeviceAuthorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The device code is a credential: it is left out.
        f.debug_struct("DeviceAuthorization")
            .field("user_code", &self.user_code)
            .field("verification_uri", &self.verification_uri)
            .field("verification_uri_complete", &self.verification_uri_complete)
            .field("expires_in", &self.expires_in)
            .field("interval", &self.interval)
            .finish_non_exhaustive()
    }
}

/// The token the authorization server issued (RFC 6749 section 5.1); send `access_token` with
/// `ClientBuilder::bearer_token`.
#[derive(Clone, serde::Deserialize)]
pub struct DeviceToken {
    pub access_token: String,
    pub token_type: String,
    /// Seconds until the access token expires, when the server says.
    #[serde(default)]
    pub expires_in: Option<u64>,
    #[serde(default)]
    pub refresh_token: Option<String>,
    #[serde(default)]
    pub scope: Option<String>,
}

impl fmt::Debug for DeviceToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceToken")
            .field("token_type", &self.token_type)
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Why the device flow ended without a token.
#[derive(Debug)]
pub enum DeviceFlowError {
    /// The request could not be sent, or its answer read.
    Transport(reqwest::Error),
    /// The user denied the request (`access_denied`).
    Denied,
    /// The codes expired before the user approved the request (`expired_token`, or
    /// `expires_in` passed).
    Expired,
    /// Any other answer: the status, and the OAuth error code and description when the body
    /// names them (else the body).
    Refused {
        status: u16,
        error: Option<String>,
        description: Option<String>,
    },
}

impl fmt::Display for DeviceFlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceFlowError::Transport(e) => write!(f, "device authorization: {e}"),
            DeviceFlowError::Denied => f.write_str("the user denied the device authorization"),
            DeviceFlowError::Expired => f.write_str("the device code expired before the user approved it"),
            DeviceFlowError::Refused { status, error, description } => {
                write!(f, "device authorization refused ({status}")?;
                if let Some(error) = error {
                    write!(f, ", {error}")?;
                }
                if let Some(description) = description {
                    write!(f, ": {description}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl std::error::Error for DeviceFlowError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DeviceFlowError::Transport(e) => Some(e),
            _ => None,
        }
    }
}

#[derive(serde::Deserialize)]
struct Started {
    device_code: String,
    user_code: String,
    verification_uri: String,
    #[serde(default)]
    verification_uri_complete: Option<String>,
    expires_in: u64,
    #[serde(default)]
    interval: Option<u64>,
}

#[derive(serde::Deserialize)]
struct OAuthError {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

impl DeviceAuthorization {
    /// Section 3.1: `POST device_authorization_url` with the client id and the scopes asked for.
    pub(crate) async fn start(
        http: reqwest::Client,
        device_authorization_url: String,
        token_url: String,
        client_id: String,
        scopes: &[&str],
    ) -> Result<DeviceAuthorization, DeviceFlowError> {
        let mut form = vec![("client_id", client_id.clone())];
        if !scopes.is_empty() {
            form.push(("scope", scopes.join(" ")));
        }
        let response = http
            .post(&device_authorization_url)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&form)
            .send()
            .await
            .map_err(DeviceFlowError::Transport)?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(DeviceFlowError::Transport)?;
        let started = match serde_json::from_slice::<Started>(&bytes) {
            Ok(started) if status.is_success() => started,
            _ => return Err(refused(status.as_u16(), &bytes)),
        };
        Ok(DeviceAuthorization {
            user_code: started.user_code,
            verification_uri: started.verification_uri,
            verification_uri_complete: started.verification_uri_complete,
            expires_in: Duration::from_secs(started.expires_in),
            interval: started.interval.map_or(DEFAULT_INTERVAL, Duration::from_secs),
            device_code: started.device_code,
            token_url,
            client_id,
            http,
        })
    }

    /// Sections 3.4 and 3.5: polls the token endpoint every `interval` (5 s unless the server
    /// named one) until the user approves or denies the request or the codes expire. `slow_down`
    /// adds 5 s to the interval from then on; a request that fails to reach the server doubles
    /// it.
    pub async fn token(self) -> Result<DeviceToken, DeviceFlowError> {
        let deadline = Instant::now() + self.expires_in;
        let mut interval = self.interval;
        loop {
            if Instant::now() + interval >= deadline {
                return Err(DeviceFlowError::Expired);
            }
            tokio::time::sleep(interval).await;
            let sent = self
                .http
                .post(&self.token_url)
                .header(reqwest::header::ACCEPT, "application/json")
                .form(&[
                    ("grant_type", GRANT_TYPE),
                    ("device_code", &self.device_code),
                    ("client_id", &self.client_id),
                ])
                .send()
                .await;
            let response = match sent {
                Ok(response) => response,
                Err(e) if e.is_connect() || e.is_timeout() => {
                    interval *= 2;
                    continue;
                }
                Err(e) => return Err(DeviceFlowError::Transport(e)),
            };
            let status = response.status();
            let bytes = response.bytes().await.map_err(DeviceFlowError::Transport)?;
            if status.is_success() {
                return serde_json::from_slice(&bytes).map_err(|_| refused(status.as_u16(), &bytes));
            }
            match serde_json::from_slice::<OAuthError>(&bytes).map(|e| e.error).as_deref() {
                Ok("authorization_pending") => {}
                Ok("slow_down") => interval += SLOW_DOWN,
                Ok("access_denied") => return Err(DeviceFlowError::Denied),
                Ok("expired_token") => return Err(DeviceFlowError::Expired),
                _ => return Err(refused(status.as_u16(), &bytes)),
            }
        }
    }
}

fn refused(status: u16, body: &[u8]) -> DeviceFlowError {
    let (error, description) = match serde_json::from_slice::<OAuthError>(body) {
        Ok(e) => (Some(e.error), e.error_description),
        Err(_) => (None, Some(String::from_utf8_lossy(body).into_owned())),
    };
    DeviceFlowError::Refused {
        status,
        error,
        description,
    }
}
