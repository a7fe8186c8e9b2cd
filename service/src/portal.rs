//! Portal links: a URL signed with HMAC-SHA256 over the account and the expiry, and the read-only
//! page it opens (the account's assets). The page is outside the API spec: it is for people.

use asset_alerting_models::Asset;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use uuid::Uuid;

type HmacSha256 = Hmac<Sha256>;

#[derive(Clone)]
pub struct PortalSigner {
    key: Vec<u8>,
}

impl PortalSigner {
    pub fn new(key: &[u8]) -> PortalSigner {
        PortalSigner { key: key.to_vec() }
    }

    fn mac(&self, account: Uuid, expires: i64) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC takes keys of any length");
        mac.update(format!("portal:{account}:{expires}").as_bytes());
        mac
    }

    /// `{base}/portal/{account}?expires={unix seconds}&signature={base64url}`.
    pub fn link(&self, base: &str, account: Uuid, expires: DateTime<Utc>) -> String {
        let expires = expires.timestamp();
        let signature = URL_SAFE_NO_PAD.encode(self.mac(account, expires).finalize().into_bytes());
        format!(
            "{}/portal/{account}?expires={expires}&signature={signature}",
            base.trim_end_matches('/')
        )
    }

    /// Whether a link's parts are authentic and unexpired at `now`.
    pub fn check(
        &self,
        account: Uuid,
        expires: i64,
        signature: &str,
        now: DateTime<Utc>,
    ) -> Result<(), &'static str> {
        let Ok(bytes) = URL_SAFE_NO_PAD.decode(signature) else {
            return Err("the link's signature is malformed");
        };
        // verify_slice compares in constant time.
        self.mac(account, expires)
            .verify_slice(&bytes)
            .map_err(|_| "the link's signature is not valid")?;
        if now.timestamp() >= expires {
            return Err("the link has expired; ask for a new one");
        }
        Ok(())
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The portal page: the account's live assets in a table.
pub fn page(account: Uuid, assets: &[Asset], expires: DateTime<Utc>) -> String {
    let rows: String = assets
        .iter()
        .map(|a| {
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                escape(&a.external_id),
                escape(&a.name),
                a.tier.name(),
                a.id
            )
        })
        .collect();
    let empty = if assets.is_empty() {
        "<p>This account has no assets yet.</p>"
    } else {
        ""
    };
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Assets of {account}</title>\
         <style>body{{font-family:sans-serif;margin:2rem}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.3rem .6rem}}</style>\
         </head><body><h1>Assets</h1><p>Account {account}. This link is valid until {expires}.</p>{empty}\
         <table><thead><tr><th>External id</th><th>Name</th><th>Tier</th><th>Id</th></tr></thead><tbody>\n{rows}</tbody></table></body></html>\n",
        expires = expires.to_rfc3339()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_signed_and_expire() {
        let signer = PortalSigner::new(b"key");
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
            PortalSigner::new(b"other")
                .check(account, expires, signature, now)
                .is_err()
        );
    }

    #[test]
    fn page_escapes_names() {
        assert!(escape("<b>&\"'").eq("&lt;b&gt;&amp;&quot;&#39;"));
    }
}
