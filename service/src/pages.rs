//! Pages for people outside the JSON API: the acknowledgement page an interactive message links
//! to. Opening the link (GET) only shows the alert; its button (POST) acknowledges it, so mail
//! scanners and link previews that fetch URLs cannot acknowledge anything.

use crate::api::Service;
use crate::store::Database;
use crate::web::{escape, page_headers};
use asset_alerting_models::Event;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use std::sync::Arc;
use uuid::Uuid;

type App = State<Arc<Service<Database>>>;

fn html(status: StatusCode, title: &str, body: &str) -> Response {
    page_headers(
        (
            status,
            Html(format!(
                "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
                 <meta name=\"viewport\" content=\"width=device-width\">\
                 <style>body{{font-family:sans-serif;margin:2rem;max-width:40rem}}button{{font-size:1.1rem;padding:.5rem 1rem}}</style>\
                 </head><body><h1>{title}</h1>{body}</body></html>\n",
                title = escape(title)
            )),
        )
            .into_response(),
    )
}

/// The link's parts: `expires` and `signature` from the query.
fn link_parts(query: Option<String>) -> Option<(i64, String)> {
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let find = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    Some((find("expires")?.parse().ok()?, find("signature")?))
}

async fn verified(
    service: &Service<Database>,
    id: &str,
    query: Option<String>,
) -> Result<(Event, Option<Uuid>), Response> {
    let refuse = |why: &str| {
        html(
            StatusCode::FORBIDDEN,
            "Link refused",
            &format!("<p>{}</p>", escape(why)),
        )
    };
    let Ok(id) = Uuid::parse_str(id) else {
        return Err(refuse("This link is not valid."));
    };
    let Some((expires, signature)) = link_parts(query) else {
        return Err(refuse("This link is not valid."));
    };
    service
        .acknowledge_link_event(id, expires, &signature)
        .await
        .map_err(|why| refuse(&why))
}

fn summary(event: &Event) -> String {
    let position = event
        .position
        .as_ref()
        .map(|p| format!("<p>Position: {:.5}, {:.5}</p>", p.latitude, p.longitude))
        .unwrap_or_default();
    format!(
        "<p><strong>{}</strong> of asset <code>{}</code> at {}.</p>{position}",
        event.event_type.name(),
        event.asset_id,
        event.occurred_at.to_rfc3339()
    )
}

pub async fn ack_page(
    State(service): App,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let (event, _) = match verified(&service, &id, query.clone()).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let action = match &event.acknowledged_at {
        Some(at) => format!(
            "<p>Acknowledged at {} by {}.</p>",
            at.to_rfc3339(),
            escape(event.acknowledged_by.as_deref().unwrap_or(""))
        ),
        None => format!(
            "<form method=\"post\" action=\"?{}\"><button type=\"submit\">Acknowledge</button></form>\
             <p>Acknowledging stops the escalation to further recipients.</p>",
            escape(&query.unwrap_or_default())
        ),
    };
    html(
        StatusCode::OK,
        "Alert",
        &format!("{}{action}", summary(&event)),
    )
}

pub async fn ack_submit(
    State(service): App,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    let (event, rule) = match verified(&service, &id, query).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    match service.acknowledge_by_link(&event, rule).await {
        Ok(event) => html(
            StatusCode::OK,
            "Alert acknowledged",
            &format!(
                "{}<p>Acknowledged at {}. Thank you.</p>",
                summary(&event),
                event
                    .acknowledged_at
                    .map(|t| t.to_rfc3339())
                    .unwrap_or_default()
            ),
        ),
        Err(_) => html(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Not acknowledged",
            "<p>The alert could not be acknowledged; try again.</p>",
        ),
    }
}
