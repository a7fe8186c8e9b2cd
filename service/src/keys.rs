//! The service's secret keys, kept out of the database: read access to the database must not
//! be enough to forge a token. They live in a key file (mode 0600) or come from configuration.
//!
//! Key file format, one key per line (`#` comments):
//! ```text
//! links <base64url>                 derives the portal-link, ack-link and webhook keys
//! token <created RFC 3339> <base64url>   token signing keys, newest (current) first
//! ```
//! Rotation puts a new `token` line first and keeps the previous one, which still verifies the
//! tokens it signed for one token lifetime after the rotation. The `links` key is not rotated:
//! webhook secrets derive from it and receivers hold them.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A token signing key and when it became current.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenKey {
    pub created: DateTime<Utc>,
    pub secret: Vec<u8>,
}

impl TokenKey {
    /// The JWT `kid`: a digest of the key, so it names the key without revealing it.
    pub fn kid(&self) -> String {
        let digest = Sha256::digest([b"kid:".as_slice(), &self.secret].concat());
        hex(&digest[..8])
    }
}

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TokenKey({}, created {})", self.kid(), self.created)
    }
}

#[derive(Clone, PartialEq, Eq)]
pub struct Keys {
    /// Base of the link and webhook keys (see `derive`).
    pub links: Vec<u8>,
    /// Newest first; the first signs, the others only verify.
    pub tokens: Vec<TokenKey>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys")
            .field("tokens", &self.tokens)
            .finish()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn random_key() -> Vec<u8> {
    use rand::RngCore;
    let mut key = vec![0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut key);
    key
}

/// A key for one purpose, derived from a base key.
pub fn derive(base: &[u8], purpose: &str) -> Vec<u8> {
    Sha256::digest([purpose.as_bytes(), b":", base].concat()).to_vec()
}

impl Keys {
    pub fn generate(now: DateTime<Utc>) -> Keys {
        Keys {
            links: random_key(),
            tokens: vec![TokenKey {
                created: now,
                secret: random_key(),
            }],
        }
    }

    /// Keys from a configured secret (`--signing-key`); a `--previous-signing-key` keeps
    /// verifying for one token lifetime after `started`.
    pub fn from_config(current: &str, previous: Option<&str>, started: DateTime<Utc>) -> Keys {
        let token = |secret: &str, created| TokenKey {
            created,
            secret: derive(secret.as_bytes(), "access-token"),
        };
        let mut tokens = vec![token(current, started)];
        if let Some(previous) = previous {
            tokens.push(token(previous, DateTime::<Utc>::MIN_UTC));
        }
        Keys {
            links: current.as_bytes().to_vec(),
            tokens,
        }
    }

    /// The keys a database-stored key (before key files existed) stood for, so tokens, links and
    /// webhook secrets issued with it stay valid after the move.
    pub fn from_legacy(stored: &str, now: DateTime<Utc>) -> Keys {
        Keys {
            links: stored.as_bytes().to_vec(),
            tokens: vec![TokenKey {
                created: now,
                secret: derive(stored.as_bytes(), "access-token"),
            }],
        }
    }

    /// A new current token key; keys older than the previous one are dropped.
    pub fn rotated(&self, now: DateTime<Utc>) -> Keys {
        let mut tokens = vec![TokenKey {
            created: now,
            secret: random_key(),
        }];
        tokens.extend(self.tokens.first().cloned());
        Keys {
            links: self.links.clone(),
            tokens,
        }
    }

    pub fn parse(text: &str) -> Result<Keys, String> {
        let mut links = None;
        let mut tokens = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let decode = |s: &str| {
                B64.decode(s)
                    .map_err(|e| format!("line {}: bad base64url key: {e}", n + 1))
            };
            match fields.as_slice() {
                ["links", key] => links = Some(decode(key)?),
                ["token", created, key] => tokens.push(TokenKey {
                    created: DateTime::parse_from_rfc3339(created)
                        .map_err(|e| format!("line {}: bad creation time: {e}", n + 1))?
                        .with_timezone(&Utc),
                    secret: decode(key)?,
                }),
                _ => {
                    return Err(format!(
                        "line {}: expected `links <key>` or `token <created> <key>`",
                        n + 1
                    ));
                }
            }
        }
        let links = links.ok_or("no `links` key")?;
        if tokens.is_empty() {
            return Err("no `token` key".to_owned());
        }
        if tokens.iter().any(|t| t.secret.len() < 32) || links.len() < 32 {
            return Err("keys must be at least 32 bytes".to_owned());
        }
        Ok(Keys { links, tokens })
    }

    pub fn render(&self) -> String {
        let mut text = String::from(
            "# Asset Alerting Service keys. Secret: keep this file private (mode 0600).\n\
             # `asset-alerting-service --rotate-signing-key` puts a new token key first.\n",
        );
        text.push_str(&format!("links {}\n", B64.encode(&self.links)));
        for t in &self.tokens {
            text.push_str(&format!(
                "token {} {}\n",
                t.created
                    .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
                B64.encode(&t.secret)
            ));
        }
        text
    }
}

/// Where the key file of a database lives when none is configured: beside a SQLite file
/// (`asset-alerting.db` → `asset-alerting.db.keys`), else in the working directory.
/// `None` for an in-memory database (its keys live as long as it does).
pub fn default_key_file(database_url: &str) -> Option<PathBuf> {
    let path = database_url
        .strip_prefix("sqlite://")
        .or_else(|| database_url.strip_prefix("sqlite:"));
    match path {
        Some(path) => {
            if crate::store::sqlite::is_in_memory(path) {
                None
            } else {
                let file = path.split('?').next().unwrap_or_default();
                Some(PathBuf::from(format!("{file}.keys")))
            }
        }
        None => Some(PathBuf::from("asset-alerting.keys")),
    }
}

/// Reads the key file; refuses one that others may read.
pub fn read(path: &Path) -> anyhow::Result<Option<Keys>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => anyhow::bail!("cannot read key file {}: {e}", path.display()),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(path)?.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            anyhow::bail!(
                "key file {} is accessible to other users (mode {mode:o}); run `chmod 600` on it",
                path.display()
            );
        }
    }
    Keys::parse(&text)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("key file {}: {e}", path.display()))
}

/// Writes the key file with mode 0600, atomically (a crash leaves the old file or the new one).
pub fn write(path: &Path, keys: &Keys) -> anyhow::Result<()> {
    let tmp = path.with_extension("keys.tmp");
    let _ = fs::remove_file(&tmp);
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&tmp)
        .map_err(|e| anyhow::anyhow!("cannot create key file {}: {e}", tmp.display()))?;
    file.write_all(keys.render().as_bytes())?;
    file.sync_all()?;
    fs::rename(&tmp, path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_parse_round_trip_and_rotation_keeps_one_previous_key() {
        let t0 = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let keys = Keys::generate(t0);
        assert_eq!(Keys::parse(&keys.render()).unwrap(), keys);
        let once = keys.rotated(t0 + chrono::Duration::hours(1));
        let twice = once.rotated(t0 + chrono::Duration::hours(2));
        assert_eq!(twice.tokens.len(), 2);
        assert_eq!(twice.tokens[1], once.tokens[0]);
        assert_ne!(twice.tokens[0], once.tokens[0]);
        assert_eq!(twice.links, keys.links, "webhook secrets must not change");
        assert_ne!(once.tokens[0].kid(), keys.tokens[0].kid());
    }

    #[test]
    fn malformed_files_are_refused_with_the_line() {
        assert!(Keys::parse("token nope").unwrap_err().contains("line 1"));
        assert!(Keys::parse("").unwrap_err().contains("links"));
        let short = format!(
            "links {}\ntoken 2026-01-01T00:00:00Z AAAA\n",
            B64.encode([1; 32])
        );
        assert!(Keys::parse(&short).unwrap_err().contains("32 bytes"));
    }

    #[test]
    fn default_key_file_sits_beside_the_database() {
        assert_eq!(
            default_key_file("sqlite://data/a.db?mode=rwc"),
            Some(PathBuf::from("data/a.db.keys"))
        );
        assert_eq!(default_key_file("sqlite::memory:"), None);
        assert_eq!(
            default_key_file("postgres://x/y"),
            Some(PathBuf::from("asset-alerting.keys"))
        );
    }

    #[cfg(unix)]
    #[test]
    fn files_are_written_private_and_readable_ones_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.keys");
        let keys = Keys::generate(Utc::now());
        write(&path, &keys).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(read(&path).unwrap(), Some(keys));
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        assert!(read(&path).unwrap_err().to_string().contains("chmod 600"));
    }
}
