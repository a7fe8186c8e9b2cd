//! Portal links: a URL signed with HMAC-SHA256 over the account and the expiry, and the read-only
//! page it opens (the account's assets). The page is outside the API spec: it is for people.

use crate::api::Service;
use crate::store::Page;
use crate::store::Store;
use crate::store::sqlite::SqliteStore;
use asset_alerting_models::Asset;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::sync::Arc;
use uuid::Uuid;

type HmacSha256 = Hmac<Sha256>;

/// Signs links to one kind of page (`purpose`: its path segment, also mixed into the MAC so a
/// link to one kind of page is no link to another).
#[derive(Clone)]
pub struct PortalSigner {
    key: Vec<u8>,
    purpose: &'static str,
}

impl PortalSigner {
    /// Portal links: `{base}/portal/{account}?...`.
    pub fn new(key: &[u8]) -> PortalSigner {
        PortalSigner::for_purpose(key, "portal")
    }

    /// Links to `{base}/{purpose}/{id}?...`.
    pub fn for_purpose(key: &[u8], purpose: &'static str) -> PortalSigner {
        PortalSigner {
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

pub fn escape(text: &str) -> String {
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

/// The page a portal link opens: refused (403) unless the link is authentic and unexpired.
pub async fn portal_page(
    State(service): State<Arc<Service<SqliteStore>>>,
    Path(account): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let refuse = |why: &str| {
        (
            StatusCode::FORBIDDEN,
            Html(format!(
                "<!doctype html><title>Link refused</title><p>{why}</p>\n"
            )),
        )
            .into_response()
    };
    let Ok(account) = Uuid::parse_str(&account) else {
        return refuse("This link is not valid.");
    };
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let find = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let (Some(Ok(expires)), Some(signature)) =
        (find("expires").map(|e| e.parse::<i64>()), find("signature"))
    else {
        return refuse("This link is not valid.");
    };
    if let Err(why) = service
        .signer()
        .check(account, expires, &signature, Utc::now())
    {
        return refuse(why);
    }
    match service
        .store()
        .list_assets(
            account,
            None,
            false,
            Page {
                skip: 0,
                take: 10_000,
            },
        )
        .await
    {
        Ok(assets) => {
            let until = DateTime::from_timestamp(expires, 0).unwrap_or_default();
            Html(page(account, &assets, until)).into_response()
        }
        Err(e) => {
            tracing::error!(error = %e, "portal page");
            (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response()
        }
    }
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
