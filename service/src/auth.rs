//! Credentials: client secrets (argon2 hashes), access tokens (HS256 JWTs that expire), and the
//! random material both are made from.

use argon2::Argon2;
use argon2::password_hash::{
    PasswordHash, PasswordHasher, PasswordVerifier, SaltString, rand_core::OsRng,
};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::{Arc, Mutex, mpsc};
use tokio::sync::oneshot;
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

/// Checks secrets on a few threads of its own: argon2 takes tens of milliseconds and
/// ~19 MiB each, so checks on the async workers stall every request, and checks on tokio's
/// blocking pool (up to 512 threads) keep that much memory in each thread's malloc arena.
#[derive(Clone)]
pub struct SecretVerifier {
    jobs: mpsc::Sender<Check>,
}

struct Check {
    secret: String,
    phc: String,
    answer: oneshot::Sender<bool>,
}

/// Makes the calling thread yield the CPU to request handling: a flood of wrong secrets keeps a
/// checking thread busy, and at equal priority it took half of GET asset's throughput.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only changes the scheduling weight of the calling thread (Linux keeps
    // a nice value per thread).
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

/// How many secrets [`SecretVerifier::half_the_cores`] checks at once.
pub fn secret_check_threads() -> usize {
    (std::thread::available_parallelism().map_or(1, usize::from) / 2).max(1)
}

impl SecretVerifier {
    /// Starts `threads` checking threads; they end when the last clone is dropped.
    pub fn new(threads: usize) -> SecretVerifier {
        let (jobs, queue) = mpsc::channel::<Check>();
        let queue = Arc::new(Mutex::new(queue));
        for n in 0..threads.max(1) {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("secret-check-{n}"))
                .spawn(move || {
                    lower_priority();
                    loop {
                        let next = queue.lock().map(|q| q.recv());
                        let Ok(Ok(check)) = next else { break };
                        let _ = check.answer.send(verify_secret(&check.secret, &check.phc));
                    }
                })
                .expect("a thread can be started");
        }
        SecretVerifier { jobs }
    }

    /// One thread per two cores: checks on every core left GET asset's p99 under a flood of
    /// wrong secrets at 4.8 times its p99 without (2 cores, measured by service/bench/http.sh).
    pub fn half_the_cores() -> SecretVerifier {
        SecretVerifier::new(secret_check_threads())
    }

    /// [`verify_secret`] on a checking thread, in turn with the checks before it.
    pub async fn verify(&self, secret: &str, phc: &str) -> bool {
        let (answer, answered) = oneshot::channel();
        let check = Check {
            secret: secret.to_owned(),
            phc: phc.to_owned(),
            answer,
        };
        self.jobs.send(check).is_ok() && answered.await.unwrap_or(false)
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

/// A key that verifies tokens, and the limits of its use.
#[derive(Clone)]
struct Verifier {
    kid: String,
    key: DecodingKey,
    /// For a previous key: it verifies only tokens issued before the rotation (`iat` before
    /// this), and only until one token lifetime after it.
    retired_at: Option<DateTime<Utc>>,
}

/// Issues and checks access tokens. Tokens name their key (`kid`), so a rotation can keep
/// the previous key verifying for one token lifetime.
#[derive(Clone)]
pub struct TokenKeys {
    kid: String,
    encoding: EncodingKey,
    verifiers: Vec<Verifier>,
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
    /// One key, no rotation.
    pub fn new(secret: &[u8], lifetime: chrono::Duration) -> TokenKeys {
        let key = crate::keys::TokenKey {
            created: DateTime::<Utc>::MIN_UTC,
            secret: secret.to_vec(),
        };
        TokenKeys::rotating(std::slice::from_ref(&key), lifetime)
    }

    /// `keys` newest first: the first signs; the others verify what they signed before the
    /// first one replaced them.
    pub fn rotating(keys: &[crate::keys::TokenKey], lifetime: chrono::Duration) -> TokenKeys {
        let current = keys.first().expect("at least one token key");
        let verifiers = keys
            .iter()
            .enumerate()
            .map(|(i, k)| Verifier {
                kid: k.kid(),
                key: DecodingKey::from_secret(&k.secret),
                retired_at: (i > 0).then_some(current.created),
            })
            .collect();
        TokenKeys {
            kid: current.kid(),
            encoding: EncodingKey::from_secret(&current.secret),
            verifiers,
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
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(self.kid.clone());
        let token = jsonwebtoken::encode(&header, &claims, &self.encoding)
            .expect("HS256 signing cannot fail");
        (token, expires)
    }

    /// The account a token acts for, if it is ours, unexpired and untampered.
    pub fn verify(&self, token: &str) -> Result<Uuid, TokenError> {
        self.verify_at(token, Utc::now())
    }

    fn verify_at(&self, token: &str, now: DateTime<Utc>) -> Result<Uuid, TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Invalid)?;
        // Tokens from before `kid` existed were signed by the current key, if by any.
        let verifier = match header.kid {
            Some(kid) => self.verifiers.iter().find(|v| v.kid == kid),
            None => self.verifiers.first(),
        }
        .ok_or(TokenError::Invalid)?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_required_spec_claims(&["exp", "iss", "sub"]);
        validation.leeway = 0;
        let data = jsonwebtoken::decode::<Claims>(token, &verifier.key, &validation).map_err(
            |e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => TokenError::Expired,
                _ => TokenError::Invalid,
            },
        )?;
        if let Some(retired) = verifier.retired_at {
            // A leaked previous key must not mint new tokens, nor live on forever.
            if data.claims.iat > retired.timestamp() || now > retired + self.lifetime {
                return Err(TokenError::Invalid);
            }
        }
        Uuid::parse_str(&data.claims.sub).map_err(|_| TokenError::Invalid)
    }
}

type HmacSha256 = Hmac<Sha256>;

/// Signs links to one kind of page (`purpose`: its path segment, also mixed into the MAC so a
/// link to one kind of page is no link to another).
#[derive(Clone)]
pub struct LinkSigner {
    key: Vec<u8>,
    purpose: &'static str,
}

impl LinkSigner {
    /// Portal links: `{base}/portal/{account}?...`.
    pub fn portal(key: &[u8]) -> LinkSigner {
        LinkSigner::for_purpose(key, "portal")
    }

    /// Links to `{base}/{purpose}/{id}?...`.
    pub fn for_purpose(key: &[u8], purpose: &'static str) -> LinkSigner {
        LinkSigner {
            key: key.to_vec(),
            purpose,
        }
    }

    fn mac(&self, id: Uuid, expires: i64) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC takes keys of any length");
        mac.update(format!("{}:{id}:{expires}", self.purpose).as_bytes());
        mac
    }

    /// `{base}/{purpose}/{id}?expires={unix seconds}&signature={base64url}`.
    pub fn link(&self, base: &str, id: Uuid, expires: DateTime<Utc>) -> String {
        let expires = expires.timestamp();
        let signature = URL_SAFE_NO_PAD.encode(self.mac(id, expires).finalize().into_bytes());
        format!(
            "{}/{}/{id}?expires={expires}&signature={signature}",
            base.trim_end_matches('/'),
            self.purpose
        )
    }

    /// Whether a link's parts are authentic and unexpired at `now`.
    pub fn check(
        &self,
        id: Uuid,
        expires: i64,
        signature: &str,
        now: DateTime<Utc>,
    ) -> Result<(), &'static str> {
        let Ok(bytes) = URL_SAFE_NO_PAD.decode(signature) else {
            return Err("the link's signature is malformed");
        };
        // verify_slice compares in constant time.
        self.mac(id, expires)
            .verify_slice(&bytes)
            .map_err(|_| "the link's signature is not valid")?;
        if now.timestamp() >= expires {
            return Err("the link has expired; ask for a new one");
        }
        Ok(())
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

    /// On a single-threaded runtime: while checks run, the runtime's one thread stays free.
    #[tokio::test(flavor = "current_thread")]
    async fn verifier_checks_off_the_async_thread() {
        let secret = new_client_secret();
        let hash = hash_secret(&secret);
        let verifier = SecretVerifier::new(1);
        assert!(verifier.verify(&secret, &hash).await);
        assert!(!verifier.verify("wrong", &hash).await);
        let checks =
            futures_util::future::join_all((0..4).map(|_| verifier.verify("wrong", &hash)));
        let ticks = std::cell::Cell::new(0);
        let ticker = async {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                ticks.set(ticks.get() + 1);
            }
        };
        tokio::select! {
            results = checks => assert_eq!(results, [false; 4]),
            () = ticker => unreachable!(),
        }
        assert!(
            ticks.get() >= 10,
            "the thread was blocked: {} ticks",
            ticks.get()
        );
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

    #[test]
    fn a_previous_key_verifies_its_own_tokens_for_one_lifetime_only() {
        use crate::keys::Keys;
        let hour = chrono::Duration::hours(1);
        let t0 = Utc::now() - chrono::Duration::minutes(30);
        let before = Keys::generate(t0 - hour);
        let after = before.rotated(t0);
        let old_keys = TokenKeys::rotating(&before.tokens, hour);
        let new_keys = TokenKeys::rotating(&after.tokens, hour);
        let account = Uuid::new_v4();

        let (old_token, _) = old_keys.issue(account, t0 - chrono::Duration::minutes(5));
        assert_eq!(
            new_keys.verify(&old_token),
            Ok(account),
            "within one lifetime"
        );
        assert_eq!(
            new_keys.verify_at(&old_token, t0 + hour + chrono::Duration::seconds(1)),
            Err(TokenError::Invalid),
            "after one lifetime the previous key is gone"
        );
        // Someone holding the retired key cannot mint a token after the rotation.
        let (forged, _) = old_keys.issue(account, t0 + chrono::Duration::minutes(1));
        assert_eq!(new_keys.verify(&forged), Err(TokenError::Invalid));
        // New tokens carry the new kid; the old key set does not know it.
        let (new_token, _) = new_keys.issue(account, Utc::now());
        assert_eq!(new_keys.verify(&new_token), Ok(account));
        assert_eq!(old_keys.verify(&new_token), Err(TokenError::Invalid));
        let header = jsonwebtoken::decode_header(&new_token).unwrap();
        assert_eq!(header.kid, Some(after.tokens[0].kid()));
    }

    #[test]
    fn links_are_signed_and_expire() {
        let signer = LinkSigner::portal(b"key");
        let account = Uuid::new_v4();
        let now = Utc::now();
        let link = signer.link(
            "http://127.0.0.1:8080/",
            account,
            now + chrono::Duration::minutes(15),
        );
        let query = link.split_once('?').unwrap().1;
        let (expires, signature) = query.split_once('&').unwrap();
        let expires: i64 = expires.trim_start_matches("expires=").parse().unwrap();
        let signature = signature.trim_start_matches("signature=");
        assert!(link.starts_with(&format!("http://127.0.0.1:8080/portal/{account}?")));
        assert_eq!(signer.check(account, expires, signature, now), Ok(()));
        assert!(
            signer
                .check(
                    account,
                    expires,
                    signature,
                    now + chrono::Duration::minutes(16)
                )
                .is_err()
        );
        assert!(
            signer
                .check(Uuid::new_v4(), expires, signature, now)
                .is_err()
        );
        assert!(signer.check(account, expires + 60, signature, now).is_err());
        assert!(
            LinkSigner::portal(b"other")
                .check(account, expires, signature, now)
                .is_err()
        );
    }
}
