//! Portal links: a URL signed with HMAC-SHA256 over the account and the expiry, and the read-only
//! page it opens: the account's assets with their last state (paged, searchable), its newest
//! events, and a map. The page is outside the API spec: it is for people.

mod borders;
mod live;
mod map;
mod view;

pub use live::live_events;

use crate::api::{ApiError, ApiResult, Service, state_view};
use crate::store::alerts::{AlertStore, EventFilter};
use crate::store::{Database, Page, Store};
use crate::web::{html, page_headers};
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::Utc;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;
use view::{AssetRow, LinkAuth, Paging, PortalView};

/// Assets per page of the portal's list.
pub const ASSETS_PER_PAGE: i64 = 50;
/// How many of the account's newest events the portal shows.
pub const LATEST_EVENTS: i64 = 20;
/// Longer search texts are cut: a URL should not be able to ask for an arbitrarily long pattern.
const MAX_SEARCH_CHARS: usize = 100;

/// What a portal URL's query carries: the link's credentials, and where in the list to look.
#[derive(Debug, PartialEq)]
struct PortalQuery {
    expires: i64,
    signature: String,
    /// 1-based; a missing or unusable `page` is the first.
    page: i64,
    search: Option<String>,
}

impl PortalQuery {
    /// `None` unless the query has the link's `expires` and `signature`.
    fn parse(raw: &str) -> Option<PortalQuery> {
        let pairs: Vec<(String, String)> = form_urlencoded::parse(raw.as_bytes())
            .into_owned()
            .collect();
        let find = |key: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
        };
        Some(PortalQuery {
            expires: find("expires")?.parse().ok()?,
            signature: find("signature")?.to_owned(),
            page: find("page")
                .and_then(|p| p.trim().parse::<i64>().ok())
                .unwrap_or(1)
                .max(1),
            search: find("q")
                .map(|q| q.trim().chars().take(MAX_SEARCH_CHARS).collect::<String>())
                .filter(|q| !q.is_empty()),
        })
    }
}

/// The page a portal link opens: refused (403) unless the link is authentic and unexpired. Every
/// answer, refusals too, carries the page headers (no caching: the URL is a credential).
pub async fn portal_page(
    State(service): State<Arc<Service<Database>>>,
    Path(account): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let page =
        page_headers(portal_response(&service, &account, query.as_deref().unwrap_or("")).await);
    // Only the page itself runs its script; refusals and errors stay script-free.
    if page.status() == StatusCode::OK {
        live::allow_live_script(page)
    } else {
        page
    }
}

async fn portal_response(service: &Service<Database>, account: &str, query: &str) -> Response {
    let refuse = |why: &str| {
        html(
            StatusCode::FORBIDDEN,
            view::message_page("Link refused", why),
        )
    };
    let (Ok(account), Some(query)) = (Uuid::parse_str(account), PortalQuery::parse(query)) else {
        return refuse("This link is not valid.");
    };
    if let Err(why) = service
        .signer()
        .check(account, query.expires, &query.signature, Utc::now())
    {
        return refuse(why);
    }
    match gather(service, account, query).await {
        Ok(Some(view)) => html(StatusCode::OK, view::render(&view)),
        Ok(None) => html(
            StatusCode::NOT_FOUND,
            view::message_page("No such account", "This account does not exist."),
        ),
        // Text the database cannot hold, such as a NUL in the search (PostgreSQL).
        Err(ApiError::Invalid(why)) => html(
            StatusCode::BAD_REQUEST,
            view::message_page("Search refused", &why),
        ),
        Err(e) => {
            tracing::error!(error = ?e, "portal page");
            html(
                StatusCode::INTERNAL_SERVER_ERROR,
                view::message_page("Not available", "The page could not be loaded; try again."),
            )
        }
    }
}

/// What the page shows; `None` when the account does not exist.
async fn gather(
    service: &Service<Database>,
    account: Uuid,
    query: PortalQuery,
) -> ApiResult<Option<PortalView>> {
    let store = service.store();
    let Some(record) = store.account(account).await? else {
        return Ok(None);
    };
    let search = query.search.as_deref();
    let page_of = |page: i64| Page {
        skip: (page - 1).saturating_mul(ASSETS_PER_PAGE),
        take: ASSETS_PER_PAGE,
    };
    let mut page = query.page;
    let (mut assets, total) = store.search_assets(account, search, page_of(page)).await?;
    let pages = ((total + ASSETS_PER_PAGE - 1) / ASSETS_PER_PAGE).max(1);
    if page > pages {
        // Past the end (the list shrank, or the URL was edited): the last page instead.
        page = pages;
        assets = store.search_assets(account, search, page_of(page)).await?.0;
    }
    let ids: Vec<Uuid> = assets.iter().map(|a| a.id).collect();
    let stored = store.asset_states(&ids).await?;
    let states: Vec<_> = ids
        .iter()
        .map(|id| state_view(*id, stored.iter().find(|s| s.asset_id == *id)))
        .collect();
    let geofences = store.list_geofences(account).await?;
    // Read before the events: one stored in between is in both, and the page skips the repeat.
    let stream_after = store.event_stream_head().await?;
    let latest = Page {
        skip: 0,
        take: LATEST_EVENTS,
    };
    let events = store
        .list_events(account, &EventFilter::default(), latest)
        .await?;
    let mut asset_names: HashMap<Uuid, String> =
        assets.iter().map(|a| (a.id, a.name.clone())).collect();
    for event in &events {
        if !asset_names.contains_key(&event.asset_id)
            && let Some(asset) = store.asset(account, event.asset_id).await?
        {
            asset_names.insert(asset.id, asset.name);
        }
    }
    let query_auth = LinkAuth {
        expires: query.expires,
        signature: query.signature.clone(),
    };
    Ok(Some(PortalView {
        account_id: account,
        account_name: record.friendly_name.unwrap_or(record.name),
        now: Utc::now(),
        auth: LinkAuth {
            expires: query.expires,
            signature: query.signature,
        },
        paging: Paging {
            page,
            pages,
            total,
            search: query.search,
        },
        assets: assets
            .into_iter()
            .zip(states)
            .map(|(asset, state)| AssetRow { asset, state })
            .collect(),
        geofences,
        events,
        asset_names,
        live_url: live::stream_url(account, &query_auth, stream_after),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_carries_credentials_page_and_search() {
        let parsed = PortalQuery::parse("expires=42&signature=a%2Bb&page=3&q=+Van+%26+Co+");
        assert_eq!(
            parsed,
            Some(PortalQuery {
                expires: 42,
                signature: "a+b".to_owned(),
                page: 3,
                search: Some("Van & Co".to_owned()),
            })
        );
        let plain = PortalQuery::parse("signature=s&expires=7").unwrap();
        assert_eq!((plain.page, plain.search), (1, None));
        // Unusable pages are the first; blank searches are none; long ones are cut.
        for page in ["0", "-4", "x", ""] {
            let q = PortalQuery::parse(&format!("expires=1&signature=s&page={page}&q=%20"));
            assert_eq!(q.map(|q| (q.page, q.search)), Some((1, None)), "{page}");
        }
        let long = PortalQuery::parse(&format!("expires=1&signature=s&q={}", "é".repeat(500)));
        assert_eq!(
            long.unwrap().search.unwrap().chars().count(),
            MAX_SEARCH_CHARS
        );
        // Without the link's credentials there is nothing to show.
        assert_eq!(PortalQuery::parse("expires=1"), None);
        assert_eq!(PortalQuery::parse("signature=s&expires=soon"), None);
    }
}
