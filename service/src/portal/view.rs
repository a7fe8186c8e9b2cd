//! The portal page as HTML: a pure function of what the handler gathered, so every part of it is
//! tested without a server. Everything that comes from data is escaped.

use super::map::{Marker, svg_map};
use crate::web::escape;
use asset_alerting_models::{Asset, AssetState, Event, EventDetailsQuantity, EventType, Geofence};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::fmt::Write;
use uuid::Uuid;

/// An asset on the page with its last known state.
pub struct AssetRow {
    pub asset: Asset,
    pub state: AssetState,
}

/// The link's credentials, repeated in every link the page makes: the signature covers only the
/// account and the expiry, so paging and search ride along in the same signed URL.
pub struct LinkAuth {
    pub expires: i64,
    pub signature: String,
}

/// Where the page is in the account's (possibly searched) list of assets.
pub struct Paging {
    /// 1-based.
    pub page: i64,
    pub pages: i64,
    /// Assets matching the search (all live assets without one).
    pub total: i64,
    pub search: Option<String>,
}

pub struct PortalView {
    pub account_id: Uuid,
    pub account_name: String,
    pub now: DateTime<Utc>,
    pub auth: LinkAuth,
    pub paging: Paging,
    pub assets: Vec<AssetRow>,
    pub geofences: Vec<Geofence>,
    /// The account's newest events, newest first.
    pub events: Vec<Event>,
    /// Names of the assets the events concern (they may be on other pages).
    pub asset_names: HashMap<Uuid, String>,
    /// The page's live event stream (relative), starting after the events listed.
    pub live_url: String,
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5rem auto;max-width:75rem;padding:0 1rem;color:#222}\
h1{margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}\
table{border-collapse:collapse;width:100%;font-size:.9rem}\
th,td{border-bottom:1px solid #e2e2e2;padding:.35rem .5rem;text-align:left;vertical-align:top}\
th{background:#f3f6f9}.muted{color:#666}.alert{color:#c62828;font-weight:600}.status{font-weight:600}\
.map{width:100%;max-width:960px;border:1px solid #ccd;display:block}\
.paging{margin:.6rem 0}.paging a{margin-right:.8rem}form.search{margin:.6rem 0}tr.live{background:#fff8e1}";

fn document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{}</title>\
         <style>{STYLE}</style></head><body>\n{body}</body></html>\n",
        escape(title)
    )
}

/// A page with one message, e.g. why a link was refused.
pub fn message_page(title: &str, message: &str) -> String {
    document(
        title,
        &format!("<h1>{}</h1><p>{}</p>\n", escape(title), escape(message)),
    )
}

/// The portal page.
pub fn render(view: &PortalView) -> String {
    let until = DateTime::from_timestamp(view.auth.expires, 0).unwrap_or_default();
    let mut body = format!(
        "<h1>{}</h1><p class=\"muted\">Account <code>{}</code>. A read-only view as of {}; \
         this link is valid until {}.</p>\n",
        escape(&view.account_name),
        view.account_id,
        clock(view.now),
        clock(until)
    );
    let zone_names: HashMap<Uuid, &str> = view
        .geofences
        .iter()
        .map(|g| (g.id, g.name.as_str()))
        .collect();
    let markers: Vec<Marker> = view
        .assets
        .iter()
        .filter_map(|row| {
            Some(Marker {
                label: &row.asset.name,
                position: row.state.position.as_ref()?,
                alerting: row
                    .state
                    .open_episodes
                    .iter()
                    .any(|e| is_condition(e.event_type)),
            })
        })
        .collect();
    body.push_str("<h2>Map</h2><p class=\"muted\">The account's geofences and the last positions of the assets on this page.</p>\n");
    body.push_str(&svg_map(&view.geofences, &markers));
    body.push_str("<h2>Assets</h2>\n");
    body.push_str(&search_form(&view.auth, view.paging.search.as_deref()));
    let nav = paging_nav(&view.auth, &view.paging);
    body.push_str(&nav);
    body.push_str(&asset_table(view, &zone_names));
    if !view.assets.is_empty() {
        body.push_str(&nav);
    }
    body.push_str("<h2>Latest events</h2>\n");
    body.push_str(&event_table(view, &zone_names));
    document(&format!("Assets of {}", view.account_name), &body)
}

/// Whether an open episode is a condition someone may need to act on; moving, standing, and
/// ignition on or off are just what the asset is doing.
fn is_condition(event_type: EventType) -> bool {
    use EventType as E;
    !matches!(
        event_type,
        E::MovementStarted | E::MovementStopped | E::IgnitionTurnedOn | E::IgnitionTurnedOff
    )
}

/// `2024-05-01 12:00:00 UTC`, machine-readable in a `<time>` element.
fn clock(t: DateTime<Utc>) -> String {
    format!(
        "<time datetime=\"{}\">{} UTC</time>",
        t.to_rfc3339(),
        t.format("%Y-%m-%d %H:%M:%S")
    )
}

/// How long ago `t` was, roughly (points may be a little in the future: "just now").
fn ago(now: DateTime<Utc>, t: DateTime<Utc>) -> String {
    match (now - t).num_seconds() {
        s if s < 60 => "just now".to_owned(),
        s if s < 3_600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3_600),
        s => format!("{} d ago", s / 86_400),
    }
}

fn when(now: DateTime<Utc>, t: DateTime<Utc>) -> String {
    format!(
        "{}<br><span class=\"muted\">{}</span>",
        clock(t),
        ago(now, t)
    )
}

/// A reading without float noise: at most two decimals.
fn number(v: f64) -> String {
    ((v * 100.0).round() / 100.0).to_string()
}

fn unit(quantity: EventDetailsQuantity) -> &'static str {
    use EventDetailsQuantity as Q;
    match quantity {
        Q::InputVoltage | Q::BatteryVoltage => " V",
        Q::BatteryPercentage | Q::FuelLevel | Q::AdBlueLevel => " %",
        Q::Temperature => " °C",
        Q::Pressure => " kPa",
        Q::Speed => " km/h",
        Q::EngineSpeed => " rpm",
    }
}

/// The readings the state has, e.g. `speed 42 km/h · fuel 55 %`.
fn readings(state: &AssetState) -> String {
    use EventDetailsQuantity as Q;
    let values = [
        ("speed", state.speed, Q::Speed),
        ("input", state.input_voltage, Q::InputVoltage),
        ("battery", state.battery_voltage, Q::BatteryVoltage),
        ("battery", state.battery_percentage, Q::BatteryPercentage),
        ("fuel", state.fuel_level, Q::FuelLevel),
        ("AdBlue", state.ad_blue_level, Q::AdBlueLevel),
        ("temperature", state.temperature, Q::Temperature),
        ("pressure", state.pressure, Q::Pressure),
        ("engine", state.engine_speed, Q::EngineSpeed),
    ];
    let mut parts: Vec<String> = values
        .into_iter()
        .filter_map(|(label, v, q)| Some(format!("{label} {}{}", number(v?), unit(q))))
        .collect();
    if let Some(heading) = state.heading {
        parts.push(format!("heading {}°", number(heading)));
    }
    if let Some(on) = state.ignition {
        parts.push(format!("ignition {}", if on { "on" } else { "off" }));
    }
    parts.join(" · ")
}

fn zone_name(zone_names: &HashMap<Uuid, &str>, id: Uuid) -> String {
    match zone_names.get(&id) {
        Some(name) => escape(name),
        None => format!("<code>{id}</code>"),
    }
}

fn asset_table(view: &PortalView, zone_names: &HashMap<Uuid, &str>) -> String {
    if view.assets.is_empty() {
        return match &view.paging.search {
            Some(q) => format!("<p class=\"note\">No asset matches “{}”.</p>\n", escape(q)),
            None => "<p class=\"note\">This account has no assets yet.</p>\n".to_owned(),
        };
    }
    let mut html = String::from(
        "<table class=\"assets\"><thead><tr><th>Asset</th><th>Last report</th><th>Position</th>\
         <th>Open episodes</th><th>Inside geofences</th><th>Readings</th></tr></thead><tbody>\n",
    );
    let none = "<span class=\"muted\">none</span>";
    for AssetRow { asset, state } in &view.assets {
        let last_report = state
            .last_report_at
            .map(|t| when(view.now, t))
            .unwrap_or_else(|| "<span class=\"muted\">never</span>".to_owned());
        let position = match &state.position {
            Some(p) => format!(
                "{:.5}, {:.5}{}",
                p.latitude,
                p.longitude,
                state
                    .country
                    .as_deref()
                    .map(|c| format!(" <span class=\"muted\">({})</span>", escape(c)))
                    .unwrap_or_default()
            ),
            None => "<span class=\"muted\">unknown</span>".to_owned(),
        };
        let episodes: Vec<String> = state
            .open_episodes
            .iter()
            .map(|e| {
                let class = if is_condition(e.event_type) {
                    "alert"
                } else {
                    "status"
                };
                format!(
                    "<span class=\"{class}\">{}</span> since {}",
                    e.event_type.name(),
                    clock(e.since)
                )
            })
            .collect();
        let zones: Vec<String> = state
            .inside_geofences
            .iter()
            .map(|id| zone_name(zone_names, *id))
            .collect();
        let _ = writeln!(
            html,
            "<tr data-asset=\"{}\"><td><strong>{}</strong><br><code>{}</code> \
             <span class=\"muted\">{}</span>{}</td><td>{last_report}</td><td>{position}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>",
            asset.id,
            escape(&asset.name),
            escape(&asset.external_id),
            asset.tier.name(),
            match &asset.device_id {
                Some(device) => format!(
                    "<br><span class=\"muted\">device</span> <code>{}</code>",
                    escape(device)
                ),
                None => String::new(),
            },
            if episodes.is_empty() {
                none.to_owned()
            } else {
                episodes.join("<br>")
            },
            if zones.is_empty() {
                none.to_owned()
            } else {
                zones.join(", ")
            },
            match readings(state) {
                r if r.is_empty() => none.to_owned(),
                r => r,
            },
        );
    }
    html.push_str("</tbody></table>\n");
    html
}

/// What triggered the event, e.g. `speed 120 km/h (threshold 80 km/h)`.
fn event_details(event: &Event, zone_names: &HashMap<Uuid, &str>) -> String {
    let d = &event.details;
    let mut parts = Vec::new();
    let (label, unit) = match d.quantity {
        Some(q) => (format!("{} ", q.as_str()), unit(q)),
        None => (String::new(), ""),
    };
    match (d.value, d.threshold) {
        (Some(v), Some(t)) => parts.push(format!(
            "{label}{}{unit} (threshold {}{unit})",
            number(v),
            number(t)
        )),
        (Some(v), None) => parts.push(format!("{label}{}{unit}", number(v))),
        (None, Some(t)) => parts.push(format!("{label}threshold {}{unit}", number(t))),
        (None, None) => {}
    }
    if let Some(zone) = d.geofence_id {
        parts.push(format!("geofence {}", zone_name(zone_names, zone)));
    }
    if d.from_country.is_some() || d.to_country.is_some() {
        let country = |c: &Option<String>| escape(c.as_deref().unwrap_or("?"));
        parts.push(format!(
            "{} → {}",
            country(&d.from_country),
            country(&d.to_country)
        ));
    }
    // Only worth saying when the condition had to last a while before it became an event.
    if let Some(start) = d.episode_started_at.filter(|s| *s != event.occurred_at) {
        parts.push(format!("began {}", clock(start)));
    }
    if let Some(p) = &event.position {
        parts.push(format!("at {:.5}, {:.5}", p.latitude, p.longitude));
    }
    parts.join("; ")
}

/// One row of the events table; the live stream sends new ones rendered by the same function.
pub fn event_row(
    event: &Event,
    asset_name: Option<&str>,
    zone_names: &HashMap<Uuid, &str>,
    now: DateTime<Utc>,
) -> String {
    let asset = match asset_name {
        Some(name) => escape(name),
        None => format!("<code>{}</code>", event.asset_id),
    };
    let mut status = match (&event.acknowledged_at, &event.acknowledged_by) {
        (Some(at), by) => format!(
            "acknowledged {} by {}",
            clock(*at),
            escape(by.as_deref().unwrap_or("?"))
        ),
        (None, _) if is_condition(event.event_type) => {
            "<span class=\"alert\">not acknowledged</span>".to_owned()
        }
        (None, _) => "not acknowledged".to_owned(),
    };
    if event.notifications_suppressed {
        status.push_str("<br><span class=\"muted\">notifications snoozed</span>");
    }
    format!(
        "<tr data-event=\"{}\"><td>{}</td><td>{}</td><td>{asset}</td><td>{}</td><td>{status}</td></tr>",
        event.id,
        when(now, event.occurred_at),
        event.event_type.name(),
        event_details(event, zone_names),
    )
}

/// The newest events, and the table new ones are added to as the live stream brings them (the
/// table is there, hidden, while there are none).
fn event_table(view: &PortalView, zone_names: &HashMap<Uuid, &str>) -> String {
    let mut html = if view.events.is_empty() {
        "<p class=\"note\" id=\"no-events\">No events yet.</p>\n".to_owned()
    } else {
        format!(
            "<p class=\"muted\">The newest {} events of the account, newest first; new ones \
             appear as they happen.</p>\n",
            view.events.len()
        )
    };
    let _ = writeln!(
        html,
        "<table class=\"events\" id=\"events\" data-stream=\"{}\"{}><thead><tr><th>Occurred</th>\
         <th>Event</th><th>Asset</th><th>Details</th><th>Status</th></tr></thead><tbody>",
        escape(&view.live_url),
        if view.events.is_empty() {
            " hidden"
        } else {
            ""
        }
    );
    for event in &view.events {
        let name = view.asset_names.get(&event.asset_id).map(String::as_str);
        html.push_str(&event_row(event, name, zone_names, view.now));
        html.push('\n');
    }
    html.push_str("</tbody></table>\n");
    html.push_str(&format!("<script>{LIVE_SCRIPT}</script>\n"));
    html
}

/// Adds the rows the page's live stream sends on top of the events table. Inline, because the
/// page loads nothing from elsewhere; the page's CSP allows exactly this script by its hash.
pub const LIVE_SCRIPT: &str = "(function(){\
var table=document.getElementById('events');\
if(!table||!window.EventSource)return;\
var body=table.tBodies[0];\
var source=new EventSource(table.getAttribute('data-stream'));\
source.onmessage=function(m){\
var row=JSON.parse(m.data);\
if(body.querySelector('tr[data-event=\"'+row.id+'\"]'))return;\
body.insertAdjacentHTML('afterbegin',row.html);\
body.firstElementChild.classList.add('live');\
table.hidden=false;\
var none=document.getElementById('no-events');\
if(none)none.hidden=true;\
};\
})();";

/// A link to another page of the list, keeping the credentials and the search (HTML-escaped,
/// ready for an attribute). Relative, so it works behind any base URL.
pub fn page_link(auth: &LinkAuth, search: Option<&str>, page: i64) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    query
        .append_pair("expires", &auth.expires.to_string())
        .append_pair("signature", &auth.signature);
    if let Some(q) = search {
        query.append_pair("q", q);
    }
    if page > 1 {
        query.append_pair("page", &page.to_string());
    }
    escape(&format!("?{}", query.finish()))
}

fn search_form(auth: &LinkAuth, search: Option<&str>) -> String {
    let clear = match search {
        Some(_) => format!(" <a href=\"{}\">Show all</a>", page_link(auth, None, 1)),
        None => String::new(),
    };
    // A GET form without an action reloads this path; the hidden fields keep the link valid.
    format!(
        "<form class=\"search\" method=\"get\"><input type=\"hidden\" name=\"expires\" value=\"{}\">\
         <input type=\"hidden\" name=\"signature\" value=\"{}\">\
         <label>Find an asset <input type=\"search\" name=\"q\" value=\"{}\" \
         placeholder=\"name or external id\"></label> <button type=\"submit\">Search</button>{clear}</form>\n",
        auth.expires,
        escape(&auth.signature),
        escape(search.unwrap_or(""))
    )
}

fn paging_nav(auth: &LinkAuth, paging: &Paging) -> String {
    let Paging {
        page,
        pages,
        total,
        search,
    } = paging;
    let search = search.as_deref();
    let matching = match search {
        Some(q) => format!(" matching “{}”", escape(q)),
        None => String::new(),
    };
    let noun = if *total == 1 { "asset" } else { "assets" };
    let mut nav =
        format!("<nav class=\"paging\">Page {page} of {pages} · {total} {noun}{matching}. ");
    let mut link = |rel: &str, to: i64, text: &str| {
        let _ = write!(
            nav,
            "<a rel=\"{rel}\" href=\"{}\">{text}</a>",
            page_link(auth, search, to)
        );
    };
    if *page > 1 {
        link("first", 1, "« First");
        link("prev", page - 1, "‹ Previous");
    }
    if page < pages {
        link("next", page + 1, "Next ›");
        link("last", *pages, "Last »");
    }
    nav.push_str("</nav>\n");
    nav
}

#[cfg(test)]
mod tests {
    use super::*;
    use asset_alerting_models::{
        AssetTier, EventDetails, GeoJsonPolygon, GeoJsonPolygonType, OpenEpisode, Position,
    };
    use chrono::Duration;

    fn asset(external_id: &str, name: &str) -> Asset {
        Asset {
            id: Uuid::new_v4(),
            account_id: Uuid::nil(),
            external_id: external_id.to_owned(),
            device_id: None,
            name: name.to_owned(),
            tier: AssetTier::Basic,
            disabled_events: Default::default(),
            telemetry_rules: None,
            is_deleted: Some(false),
        }
    }

    /// The state of an asset that never reported.
    fn blank_state(asset: Uuid) -> AssetState {
        serde_json::from_value(serde_json::json!({
            "assetId": asset, "insideGeofences": [], "openEpisodes": []
        }))
        .unwrap()
    }

    fn view(assets: Vec<AssetRow>, paging: Paging) -> PortalView {
        PortalView {
            account_id: Uuid::nil(),
            account_name: "Fleet & Co".to_owned(),
            now: DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
            auth: LinkAuth {
                expires: 1_700_000_900,
                signature: "s1g_-x".to_owned(),
            },
            paging,
            assets,
            geofences: vec![],
            events: vec![],
            asset_names: HashMap::new(),
            live_url: "x/events?after=7".to_owned(),
        }
    }

    fn one_page() -> Paging {
        Paging {
            page: 1,
            pages: 1,
            total: 1,
            search: None,
        }
    }

    fn event(asset: Uuid, at: DateTime<Utc>, details: EventDetails) -> Event {
        Event {
            id: Uuid::new_v4(),
            account_id: Uuid::nil(),
            asset_id: asset,
            event_type: EventType::GeofenceEntered,
            occurred_at: at,
            detected_at: at,
            position: Some(Position {
                latitude: 52.05,
                longitude: 13.05,
            }),
            details,
            notifications_suppressed: false,
            acknowledged_at: None,
            acknowledged_by: None,
        }
    }

    fn no_details() -> EventDetails {
        EventDetails {
            value: None,
            threshold: None,
            quantity: None,
            geofence_id: None,
            from_country: None,
            to_country: None,
            episode_started_at: None,
        }
    }

    #[test]
    fn names_from_data_render_as_text() {
        let mut truck = asset("t<1>", "<script>alert(1)</script>");
        truck.device_id = Some("imei<2>".to_owned());
        let state = blank_state(truck.id);
        let html = render(&view(
            vec![AssetRow {
                asset: truck,
                state,
            }],
            one_page(),
        ));
        // The one script is the page's own live-events script.
        assert_eq!(html.matches("<script>").count(), 1, "{html}");
        assert!(html.contains(&format!("<script>{LIVE_SCRIPT}</script>")));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("t&lt;1&gt;"));
        assert!(html.contains("device</span> <code>imei&lt;2&gt;</code>"));
        assert!(html.contains("<h1>Fleet &amp; Co</h1>"));
    }

    #[test]
    fn an_asset_row_shows_its_state() {
        let truck = asset("truck-1", "Truck 1");
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let zone = Uuid::new_v4();
        let mut state = blank_state(truck.id);
        state.last_report_at = Some(now - Duration::minutes(5));
        state.position = Some(Position {
            latitude: 52.123456,
            longitude: 13.5,
        });
        state.country = Some("DE".to_owned());
        state.speed = Some(42.0);
        state.fuel_level = Some(55.555);
        state.ignition = Some(true);
        state.inside_geofences = vec![zone];
        state.open_episodes = vec![
            OpenEpisode {
                event_type: EventType::AlarmTriggered,
                since: now - Duration::minutes(3),
            },
            OpenEpisode {
                event_type: EventType::MovementStarted,
                since: now - Duration::minutes(9),
            },
        ];
        let mut v = view(
            vec![AssetRow {
                asset: truck,
                state,
            }],
            one_page(),
        );
        v.geofences = vec![Geofence {
            id: zone,
            account_id: Uuid::nil(),
            external_id: "depot".to_owned(),
            name: "Depot".to_owned(),
            polygon: GeoJsonPolygon {
                r#type: GeoJsonPolygonType::Polygon,
                coordinates: vec![vec![
                    vec![13.0, 52.0],
                    vec![13.1, 52.0],
                    vec![13.1, 52.1],
                    vec![13.0, 52.0],
                ]],
            },
        }];
        let html = render(&v);
        let row = html.split("<tr data-asset=").nth(1).unwrap();
        for expected in [
            "2023-11-14 22:08:20 UTC",
            "5 min ago",
            "52.12346, 13.50000",
            "(DE)",
            "<span class=\"alert\">AlarmTriggered</span> since",
            "<span class=\"status\">MovementStarted</span> since <time datetime=\"2023-11-14T22:04:20+00:00\">",
            "<td>Depot</td>",
            "speed 42 km/h · fuel 55.56 % · ignition on",
        ] {
            assert!(row.contains(expected), "{expected} in {row}");
        }
        // On the map: the geofence and the asset, alerting since it has an open episode.
        assert!(html.contains("<svg") && html.contains("class=\"geofence\""));
        assert!(html.contains("class=\"asset alerting\""));
    }

    #[test]
    fn only_open_conditions_make_a_marker_red() {
        let moving = asset("bus-1", "Bus");
        let mut state = blank_state(moving.id);
        state.position = Some(Position {
            latitude: 48.1,
            longitude: 11.6,
        });
        state.open_episodes = vec![OpenEpisode {
            event_type: EventType::MovementStarted,
            since: DateTime::from_timestamp(1_699_999_000, 0).unwrap(),
        }];
        let row = |state: &AssetState| AssetRow {
            asset: moving.clone(),
            state: state.clone(),
        };
        let html = render(&view(vec![row(&state)], one_page()));
        assert!(html.contains("class=\"asset\"") && !html.contains("asset alerting"));
        state.open_episodes.push(OpenEpisode {
            event_type: EventType::BatteryLow,
            since: DateTime::from_timestamp(1_699_999_500, 0).unwrap(),
        });
        let html = render(&view(vec![row(&state)], one_page()));
        assert!(html.contains("class=\"asset alerting\""));
    }

    #[test]
    fn events_show_type_asset_time_and_details() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let truck = Uuid::new_v4();
        let zone = Uuid::new_v4();
        let stranger = Uuid::new_v4();
        let mut speeding = event(
            truck,
            now - Duration::hours(2),
            EventDetails {
                value: Some(120.0),
                threshold: Some(80.0),
                quantity: Some(EventDetailsQuantity::Speed),
                episode_started_at: Some(now - Duration::hours(2) - Duration::seconds(30)),
                ..no_details()
            },
        );
        speeding.event_type = EventType::SpeedLimitExceeded;
        speeding.acknowledged_at = Some(now);
        speeding.acknowledged_by = Some("rule:<x>".to_owned());
        let entered_at = now - Duration::days(3);
        let entered = event(
            stranger,
            entered_at,
            EventDetails {
                geofence_id: Some(zone),
                episode_started_at: Some(entered_at),
                ..no_details()
            },
        );
        let mut v = view(vec![], one_page());
        v.events = vec![speeding, entered];
        v.asset_names = [(truck, "Truck <1>".to_owned())].into();
        let html = render(&v);
        let rows: Vec<&str> = html.split("<tr data-event=").skip(1).collect();
        assert_eq!(rows.len(), 2);
        for expected in [
            "SpeedLimitExceeded",
            "Truck &lt;1&gt;",
            "2 h ago",
            "speed 120 km/h (threshold 80 km/h); began <time datetime=\"2023-11-14T20:12:50+00:00\">",
            "acknowledged",
            "rule:&lt;x&gt;",
        ] {
            assert!(rows[0].contains(expected), "{expected} in {}", rows[0]);
        }
        // An unknown geofence and an asset of no listed name still show, by id.
        assert!(!rows[1].contains("began"), "{}", rows[1]);
        for expected in [
            "GeofenceEntered".to_owned(),
            format!("<code>{stranger}</code>"),
            format!("geofence <code>{zone}</code>"),
            "3 d ago".to_owned(),
            "at 52.05000, 13.05000".to_owned(),
            "not acknowledged".to_owned(),
        ] {
            assert!(rows[1].contains(&expected), "{expected} in {}", rows[1]);
        }
    }

    #[test]
    fn links_keep_the_credentials_and_the_search() {
        let auth = LinkAuth {
            expires: 42,
            signature: "a_b-c".to_owned(),
        };
        assert_eq!(
            page_link(&auth, Some("van & <co>"), 3),
            "?expires=42&amp;signature=a_b-c&amp;q=van+%26+%3Cco%3E&amp;page=3"
        );
        assert_eq!(page_link(&auth, None, 1), "?expires=42&amp;signature=a_b-c");
    }

    #[test]
    fn paging_offers_only_the_pages_that_exist() {
        let paging = |page| Paging {
            page,
            pages: 3,
            total: 120,
            search: Some("bus".to_owned()),
        };
        let auth = LinkAuth {
            expires: 42,
            signature: "sig".to_owned(),
        };
        let first = paging_nav(&auth, &paging(1));
        assert!(
            first.contains("Page 1 of 3 · 120 assets matching “bus”"),
            "{first}"
        );
        assert!(!first.contains("rel=\"prev\""));
        assert!(
            first.contains(
                "rel=\"next\" href=\"?expires=42&amp;signature=sig&amp;q=bus&amp;page=2\""
            )
        );
        let middle = paging_nav(&auth, &paging(2));
        assert!(middle.contains("rel=\"prev\" href=\"?expires=42&amp;signature=sig&amp;q=bus\""));
        assert!(middle.contains("rel=\"next\""));
        let last = paging_nav(&auth, &paging(3));
        assert!(last.contains("rel=\"prev\"") && !last.contains("rel=\"next\""));
    }

    #[test]
    fn empty_lists_say_so() {
        let paging = |search: Option<&str>| Paging {
            page: 1,
            pages: 1,
            total: 0,
            search: search.map(str::to_owned),
        };
        let html = render(&view(vec![], paging(None)));
        assert!(html.contains("This account has no assets yet."));
        assert!(html.contains("No events yet."));
        assert!(html.contains("Nothing to draw yet"));
        let html = render(&view(vec![], paging(Some("<zz>"))));
        assert!(html.contains("No asset matches “&lt;zz&gt;”."), "{html}");
        // The search box keeps the text and the link's credentials.
        assert!(html.contains("name=\"q\" value=\"&lt;zz&gt;\""));
        assert!(html.contains("name=\"signature\" value=\"s1g_-x\""));
    }

    #[test]
    fn refusals_are_escaped_pages() {
        let html = message_page("Link refused", "the <link> has expired");
        assert!(html.contains("<h1>Link refused</h1><p>the &lt;link&gt; has expired</p>"));
    }
}
