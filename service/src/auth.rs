//! Credentials: client secrets (argon2 hashes), access tokens (HS256 JWTs that expire), and the
//! random material both are made from.

use argon2::Argon2;
use argon2::password_hash::{
    PasswordHash, PasswordHasher, PasswordVerifier, SaltString, rand_core::OsRng,
};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tokio::sync::Semaphore;
use uuid::Uuid;

/// `n` random bytes from the OS, base64url without padding.
pub fn random_token(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A new client secret: 256 bits.
pub fn new_client_secret() -> String {
    random_token(32)
}

/// The argon2id PHC string of a secret (salted; slow on purpose).
pub fn hash_secret(secret: &str) -> String {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .expect("argon2 with default parameters")
        .to_string()
}

pub fn verify_secret(secret: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(secret.as_bytes(), &hash)
            .is_ok()
    })
}

/// Runs secret checks on the blocking pool, at most one per core at a time: argon2 takes tens of
/// milliseconds and ~19 MiB each, so unbounded checks on the async workers stall every request
/// and let a flood of wrong secrets take memory without limit.
#[derive(Clone)]
pub struct SecretVerifier {
    slots: Arc<Semaphore>,
}

impl SecretVerifier {
    pub fn new(slots: usize) -> SecretVerifier {
        SecretVerifier {
            slots: Arc::new(Semaphore::new(slots.max(1))),
        }
    }

    /// One slot per core.
    pub fn per_core() -> SecretVerifier {
        SecretVerifier::new(std::thread::available_parallelism().map_or(1, usize::from))
    }

    /// [`verify_secret`], waiting for a free slot first.
    pub async fn verify(&self, secret: &str, phc: &str) -> bool {
        let Ok(_slot) = self.slots.acquire().await else {
            return false;
        };
        let (secret, phc) = (secret.to_owned(), phc.to_owned());
        tokio::task::spawn_blocking(move || verify_secret(&secret, &phc))
            .await
            .unwrap_or(false)
    }
}

/// SHA-256 hex of a high-entropy token (ingestion tokens): fast lookups, nothing reversible stored.
pub fn sha256_hex(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    /// The account the token acts for.
    sub: String,
    iss: String,
    iat: i64,
    exp: i64,
}

const ISSUER: &str = "asset-alerting";

/// Issues and checks access tokens.
#[derive(Clone)]
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    pub lifetime: chrono::Duration,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("the access token has expired")]
    Expired,
    #[error("the access token is not valid")]
    Invalid,
}

impl TokenKeys {
    pub fn new(secret: &[u8], lifetime: chrono::Duration) -> TokenKeys {
        TokenKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            lifetime,
        }
    }

    /// A signed token for `account`, and when it expires.
    pub fn issue(&self, account: Uuid, now: DateTime<Utc>) -> (String, DateTime<Utc>) {
        let expires = now + self.lifetime;
        let claims = Claims {
            sub: account.to_string(),
            iss: ISSUER.to_owned(),
            iat: now.timestamp(),
            exp: expires.timestamp(),
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing cannot fail");
        (token, expires)
    }

    /// The account a token acts for, if it is ours, unexpired and untampered.
    pub fn verify(&self, token: &str) -> Result<Uuid, TokenError> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_required_spec_claims(&["exp", "iss", "sub"]);
        validation.leeway = 0;
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &validation).map_err(
            |e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => TokenError::Expired,
                _ => TokenError::Invalid,
            },
        )?;
        Uuid::parse_str(&data.claims.sub).map_err(|_| TokenError::Invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_hash_and_verify() {
        let secret = new_client_secret();
        let hash = hash_secret(&secret);
        assert!(hash.starts_with("$argon2id$"));
        assert!(!hash.contains(&secret));
        assert!(verify_secret(&secret, &hash));
        assert!(!verify_secret("wrong", &hash));
        assert!(!verify_secret(&secret, "not a hash"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn verifier_checks_on_the_blocking_pool_one_per_slot() {
        let secret = new_client_secret();
        let hash = hash_secret(&secret);
        let verifier = SecretVerifier::new(1);
        assert!(verifier.verify(&secret, &hash).await);
        assert!(!verifier.verify("wrong", &hash).await);
        // A slot held elsewhere makes a check wait rather than run alongside.
        let held = verifier.slots.clone().try_acquire_owned().unwrap();
        let waiting = tokio::spawn({
            let verifier = verifier.clone();
            async move { verifier.verify(&secret, &hash).await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert!(!waiting.is_finished());
        drop(held);
        assert!(waiting.await.unwrap());
    }

    #[test]
    fn tokens_verify_expire_and_resist_tampering() {
        let keys = TokenKeys::new(
            b"0123456789abcdef0123456789abcdef",
            chrono::Duration::hours(1),
        );
        let account = Uuid::new_v4();
        let (token, expires) = keys.issue(account, Utc::now());
        assert!(expires > Utc::now());
        assert_eq!(keys.verify(&token), Ok(account));

        let (old, _) = keys.issue(account, Utc::now() - chrono::Duration::hours(2));
        assert_eq!(keys.verify(&old), Err(TokenError::Expired));

        let other = TokenKeys::new(
            b"another key, another key, another",
            chrono::Duration::hours(1),
        );
        assert_eq!(other.verify(&token), Err(TokenError::Invalid));

        let mut tampered = token.clone();
        tampered.insert(tampered.len() / 2, 'x');
        assert_eq!(keys.verify(&tampered), Err(TokenError::Invalid));
        assert_eq!(keys.verify("garbage"), Err(TokenError::Invalid));
    }
}
