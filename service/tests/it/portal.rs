//! The portal page over real HTTP: what a signed link shows (assets with their state, events, a
//! map), its headers, refusals, paging and search for large fleets, and a real headless browser
//! rendering it.

use crate::support;

use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use asset_alerting_service::auth::LinkSigner;
use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::*;
use uuid::Uuid;

/// The headers every portal answer carries, refusals included.
fn assert_page_headers(response: &reqwest::Response) {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("{name} is missing on {}", response.url()))
            .to_owned()
    };
    assert_eq!(header("cache-control"), "no-store");
    assert_eq!(header("referrer-policy"), "no-referrer");
    let csp = header("content-security-policy");
    for directive in [
        "default-src 'none'",
        "style-src 'unsafe-inline'",
        "img-src data:",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp}");
    }
    // No scripts, or (the portal page) one inline script allowed by its hash, whose only
    // connection is to the page's own origin.
    if let Some(scripts) = csp.split(';').find(|d| d.trim().starts_with("script-src")) {
        let sources: Vec<&str> = scripts.split_whitespace().skip(1).collect();
        assert!(
            sources.len() == 1 && sources[0].starts_with("'sha256-"),
            "only a script allowed by its hash: {csp}"
        );
        assert!(csp.contains("connect-src 'self'"), "{csp}");
    }
    assert!(header("content-type").starts_with("text/html"));
}

/// Status and body of a page, after checking its headers.
async fn open(url: &str) -> (u16, String) {
    let response = reqwest::get(url).await.unwrap();
    assert_page_headers(&response);
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn portal_url(client: &Client, account: Uuid) -> String {
    client.get_portal_link(account).send().await.unwrap().url
}

/// The rows of the assets table, each starting at its asset id.
fn asset_rows(html: &str) -> Vec<&str> {
    html.split("<tr data-asset=\"")
        .skip(1)
        .map(|row| row.split("</tr>").next().unwrap())
        .collect()
}

/// The href of the first link with this rel, resolved against `url` and unescaped.
fn follow(url: &str, html: &str, rel: &str) -> Option<String> {
    let href = html
        .split(&format!("rel=\"{rel}\" href=\""))
        .nth(1)?
        .split('"')
        .next()?;
    let path = url.split('?').next().unwrap();
    Some(format!("{path}{}", href.replace("&amp;", "&")))
}

fn with_query(url: &str, extra: &str) -> String {
    format!("{url}&{extra}")
}

fn at(asset: Uuid, t: DateTime<Utc>, latitude: f64, longitude: f64) -> TelemetryPoint {
    TelemetryPoint {
        latitude: Some(latitude),
        longitude: Some(longitude),
        ..point_of(Some(asset), None, t)
    }
}

/// A 0.1° square depot at (13.0, 52.0) with a 0.02° square hole (a building) in it.
fn depot_with_hole() -> GeofenceInput {
    let square = |lon: f64, lat: f64, size: f64| {
        vec![
            vec![lon, lat],
            vec![lon + size, lat],
            vec![lon + size, lat + size],
            vec![lon, lat + size],
            vec![lon, lat],
        ]
    };
    GeofenceInput {
        id: None,
        account_id: None,
        polygon: GeoJsonPolygon {
            r#type: GeoJsonPolygonType::Polygon,
            coordinates: vec![square(13.0, 52.0, 0.1), square(13.06, 52.06, 0.02)],
        },
        ..geofence_input("depot", "Depot")
    }
}

/// A fleet with positions, a geofence and an open alarm: the truck inside the depot with its
/// alarm on, a van (with a hostile name) outside it, a spare that never reported.
struct Fleet {
    truck: Asset,
    van: Asset,
    spare: Asset,
    truck_seen: DateTime<Utc>,
}

async fn fleet(service: &TestService) -> Fleet {
    let root = service.root_client();
    let account = service.root;
    let create = |input: AssetInput| {
        let root = root.clone();
        async move { root.create_asset(account, input).send().await.unwrap() }
    };
    let truck = create(AssetInput {
        id: None,
        account_id: None,
        is_deleted: None,
        name: "Truck 1".to_owned(),
        ..asset_input("truck-1")
    })
    .await;
    let van = create(AssetInput {
        id: None,
        account_id: None,
        is_deleted: None,
        name: "<script>alert(1)</script> Van".to_owned(),
        ..asset_input("van-2")
    })
    .await;
    let spare = create(asset_input("spare-3")).await;
    root.create_geofence(account, depot_with_hole())
        .send()
        .await
        .unwrap();
    // Whole seconds, so the page's times compare exactly.
    let truck_seen = DateTime::from_timestamp(Utc::now().timestamp() - 60, 0).unwrap();
    let ingest = service.ingestion_client(&root, account).await;
    let alarm = TelemetryPoint {
        signals: Some(DeviceSignals {
            alarm: Some(true),
            ..no_signals()
        }),
        ..at(truck.id, truck_seen, 52.03, 13.02)
    };
    let result = ingest
        .ingest_telemetry(TelemetryBatch {
            points: vec![
                at(truck.id, truck_seen - Duration::minutes(2), 52.02, 13.01),
                alarm,
                at(van.id, truck_seen, 52.2, 13.3),
            ],
        })
        .send()
        .await
        .unwrap();
    assert_eq!(result.accepted, 3, "{result:?}");
    Fleet {
        truck,
        van,
        spare,
        truck_seen,
    }
}

#[tokio::test]
async fn a_portal_link_shows_state_events_and_a_map() {
    let (_dir, service) = started().await;
    let Fleet {
        truck,
        van,
        spare,
        truck_seen,
    } = fleet(&service).await;
    let root = service.root_client();
    let (status, html) = open(&portal_url(&root, service.root).await).await;
    assert_eq!(status, 200, "{html}");

    let rows = asset_rows(&html);
    assert_eq!(rows.len(), 3);
    let row_of = |asset: &Asset| {
        *rows
            .iter()
            .find(|r| r.starts_with(&asset.id.to_string()))
            .unwrap_or_else(|| panic!("no row for {}", asset.external_id))
    };
    let truck_row = row_of(&truck);
    for expected in [
        "Truck 1".to_owned(),
        truck_seen.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        "52.03000, 13.02000".to_owned(),
        "AlarmTriggered</span> since".to_owned(),
        "Depot".to_owned(),
    ] {
        assert!(truck_row.contains(&expected), "{expected} in {truck_row}");
    }
    // The van is outside the depot; the spare never reported.
    let van_row = row_of(&van);
    assert!(van_row.contains("52.20000, 13.30000") && !van_row.contains("Depot"));
    assert!(row_of(&spare).contains("never"));

    // A name is text, never markup.
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; Van"));
    // The page's one script is its own (the live events), never a name.
    assert_eq!(html.to_lowercase().matches("<script").count(), 1, "{html}");
    assert!(html.contains("<script>(function(){var table=document.getElementById('events')"));

    // The newest events, as the API lists them.
    let events = root.list_events(service.root).send().await.unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.event_type == EventType::AlarmTriggered && e.asset_id == truck.id)
    );
    let listed = html.split("<tr data-event=\"").skip(1).count();
    assert_eq!(listed, events.len().min(20));
    for event in events.iter().take(20) {
        let row = html
            .split(&format!("<tr data-event=\"{}\"", event.id))
            .nth(1)
            .unwrap_or_else(|| panic!("event {event:?} is not on the page"));
        let row = row.split("</tr>").next().unwrap();
        assert!(row.contains(event.event_type.name()), "{row}");
        let asset = if event.asset_id == truck.id {
            "Truck 1"
        } else {
            "&lt;script&gt;"
        };
        assert!(row.contains(asset), "{row}");
    }

    // The map: the depot with its hole, and a marker for each asset with a position.
    let svg = html
        .split("<svg")
        .nth(1)
        .expect("an inline svg map")
        .split("</svg>")
        .next()
        .unwrap();
    let path = svg
        .split("<path class=\"geofence\" d=\"")
        .nth(1)
        .expect("the depot's path");
    let d = path.split('"').next().unwrap();
    assert_eq!(d.matches('M').count(), 2, "outer ring and hole: {d}");
    assert!(path.contains("fill-rule=\"evenodd\"") && path.contains("<title>Depot</title>"));
    assert_eq!(svg.matches("<circle").count(), 2, "{svg}");
    assert!(svg.contains("<title>Truck 1</title>"));
    assert!(
        svg.contains("class=\"asset alerting\""),
        "the truck's alarm is open"
    );
    service.stop().await;
}

#[tokio::test]
async fn an_empty_account_says_there_is_nothing_yet() {
    let (_dir, service) = started().await;
    let (status, html) = open(&portal_url(&service.root_client(), service.root).await).await;
    assert_eq!(status, 200);
    assert!(html.contains("This account has no assets yet."));
    assert!(html.contains("No events yet."));
    assert!(html.contains("Nothing to draw yet") && !html.contains("<svg"));
    service.stop().await;
}

#[tokio::test]
async fn expired_and_forged_links_are_refused_with_the_page_headers() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&dir, Uuid::new_v4());
    config.signing_key = Some("portal-test-key".to_owned());
    let service = TestService::start(config).await;
    let url = portal_url(&service.root_client(), service.root).await;
    assert_eq!(open(&url).await.0, 200);

    // A link signed with the service's portal key (derived as the service derives it) but
    // expired: authentic, and still refused.
    let key = Sha256::digest(b"portal-link:portal-test-key");
    let signer = LinkSigner::portal(&key);
    let fresh = signer.link(
        &service.base,
        service.root,
        Utc::now() + Duration::minutes(5),
    );
    assert_eq!(
        open(&fresh).await.0,
        200,
        "the test signs as the service does"
    );
    let expired = signer.link(
        &service.base,
        service.root,
        Utc::now() - Duration::minutes(1),
    );
    let (status, html) = open(&expired).await;
    assert_eq!(status, 403);
    assert!(html.contains("expired"), "{html}");

    let (head, query) = url.split_once('?').unwrap();
    let signature = query.split("signature=").nth(1).unwrap();
    let expires = query.split('&').next().unwrap();
    let flipped: String = signature
        .chars()
        .enumerate()
        .map(|(i, c)| match (i, c) {
            (0, 'A') => 'B',
            (0, _) => 'A',
            _ => c,
        })
        .collect();
    let forged = [
        format!("{head}?{expires}&signature={flipped}"),
        format!(
            "{head}?expires={}&signature={signature}",
            Utc::now().timestamp() + 86_400
        ),
        url.replace(&service.root.to_string(), &Uuid::new_v4().to_string()),
        format!("{head}?{expires}"),
        format!("{}/portal/not-an-account?{query}", service.base),
    ];
    for link in forged {
        let (status, html) = open(&link).await;
        assert_eq!(status, 403, "{link}");
        assert!(html.contains("Link refused"), "{html}");
    }
    service.stop().await;
}

#[tokio::test]
async fn large_fleets_are_paged_by_fifty_and_searchable() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    for i in 0..120 {
        let mut input = asset_input(&format!("bus-{i:03}"));
        if i == 77 {
            input.name = "Green Hornet".to_owned();
        }
        root.create_asset(account, input).send().await.unwrap();
    }
    let url = portal_url(&root, account).await;
    let external_ids = |html: &str| -> Vec<String> {
        asset_rows(html)
            .iter()
            .map(|r| {
                r.split("<code>")
                    .nth(1)
                    .unwrap()
                    .split("</code>")
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    let expected = |range: std::ops::Range<i64>| -> Vec<String> {
        range.map(|i| format!("bus-{i:03}")).collect()
    };

    let (_, first) = open(&url).await;
    assert_eq!(external_ids(&first), expected(0..50));
    assert!(first.contains("Page 1 of 3 · 120 assets."), "{first}");
    assert!(follow(&url, &first, "prev").is_none());
    // Following the page's own links keeps the link valid.
    let second_url = follow(&url, &first, "next").unwrap();
    let (status, second) = open(&second_url).await;
    assert_eq!(status, 200, "{second_url}");
    assert_eq!(external_ids(&second), expected(50..100));
    let (_, third) = open(&follow(&url, &second, "next").unwrap()).await;
    assert_eq!(external_ids(&third), expected(100..120));
    assert!(third.contains("Page 3 of 3"));
    assert!(follow(&url, &third, "next").is_none());
    assert_eq!(
        external_ids(&open(&follow(&url, &third, "prev").unwrap()).await.1),
        expected(50..100)
    );
    // A page past the end shows the last one.
    assert_eq!(
        external_ids(&open(&with_query(&url, "page=99")).await.1),
        expected(100..120)
    );

    // Search: by name ignoring case, or by part of the externalId; paging keeps the search.
    let (_, found) = open(&with_query(&url, "q=gREEN%20hor")).await;
    assert_eq!(external_ids(&found), ["bus-077"]);
    assert!(found.contains("Green Hornet") && found.contains("1 asset matching"));
    let (_, found) = open(&with_query(&url, "q=bus-11")).await;
    assert_eq!(external_ids(&found), expected(110..120));
    let (_, found) = open(&with_query(&url, "q=bus-")).await;
    assert!(found.contains("Page 1 of 3 · 120 assets matching “bus-”"));
    let next = follow(&url, &found, "next").unwrap();
    assert!(next.contains("q=bus-") && next.contains("signature="));
    let (_, none) = open(&with_query(&url, "q=tram")).await;
    assert!(asset_rows(&none).is_empty() && none.contains("No asset matches “tram”."));
    service.stop().await;
}

#[tokio::test]
async fn search_takes_wildcards_literally_and_skips_deleted_assets() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    for external_id in ["a%b", "a_b", "axb", "a\\b"] {
        root.create_asset(account, asset_input(external_id))
            .send()
            .await
            .unwrap();
    }
    let gone = root
        .create_asset(account, asset_input("a%b-old"))
        .send()
        .await
        .unwrap();
    root.delete_asset(account, gone.id).send().await.unwrap();
    let url = portal_url(&root, account).await;
    for (q, expected) in [
        ("a%25b", "a%b"),
        ("a_b", "a_b"),
        ("a%5Cb", "a\\b"),
        ("AXB", "axb"),
    ] {
        let (_, html) = open(&with_query(&url, &format!("q={q}"))).await;
        let rows = asset_rows(&html);
        assert_eq!(rows.len(), 1, "{q}: {html}");
        assert!(
            rows[0].contains(&format!("<code>{expected}</code>")),
            "{q}: {}",
            rows[0]
        );
    }
    service.stop().await;
}

// ---- a real browser ----

const CHROMIUM: &str = "/usr/bin/chromium";

/// Runs headless chromium with `args` and the usual isolation flags, stdout into `stdout`;
/// panics (with chromium's stderr) if it fails or takes longer than a minute.
async fn chromium(args: &[String], stdout: &Path) {
    let profile = tempfile::tempdir().unwrap();
    let stderr_path = stdout.with_extension("stderr");
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(stdout).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .expect("chromium starts");
    let started = std::time::Instant::now();
    // Polled, not waited for: the service under test runs on this same runtime.
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium took over a minute: {}",
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert!(
        status.success(),
        "chromium failed ({status}): {}",
        std::fs::read_to_string(&stderr_path).unwrap_or_default()
    );
}

/// Width and height from a PNG's IHDR chunk, which must come first.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(
        bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR",
        "not a PNG"
    );
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

async fn screenshot(url: &str, file: &Path) -> Vec<u8> {
    let _ = std::fs::remove_file(file);
    let args = [
        "--window-size=1280,1600".to_owned(),
        format!("--screenshot={}", file.display()),
        url.to_owned(),
    ];
    chromium(&args, &file.with_extension("log")).await;
    std::fs::read(file).unwrap_or_else(|e| panic!("no screenshot at {}: {e}", file.display()))
}

#[tokio::test]
async fn chromium_renders_the_portal() {
    if !Path::new(CHROMIUM).exists() {
        if std::env::var_os("CI").is_some() {
            panic!("{CHROMIUM} is missing; CI must install it (apt-get install chromium)");
        }
        eprintln!("skipped: chromium not installed (apt-get install chromium)");
        return;
    }
    let (_dir, service) = started().await;
    let Fleet { truck, van, .. } = fleet(&service).await;
    let url = portal_url(&service.root_client(), service.root).await;
    // Kept after the run (target/tmp), so a person can look at it.
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("portal-screenshot");
    std::fs::create_dir_all(&out).unwrap();

    let dom_file = out.join("portal.html");
    chromium(&["--dump-dom".to_owned(), url.clone()], &dom_file).await;
    let dom = std::fs::read_to_string(&dom_file).unwrap();
    assert!(dom.contains(&truck.name), "{dom}");
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt; Van"),
        "{dom}"
    );
    assert!(!dom.contains(&van.name), "the van's name stays text");
    assert!(dom.contains("<svg") && dom.contains("class=\"geofence\""));
    assert_eq!(dom.matches("<circle").count(), 2);

    let page = screenshot(&url, &out.join("portal.png")).await;
    assert_eq!(png_size(&page), (1280, 1600));
    // The same browser's screenshot of an empty page is the yardstick for "not blank": text,
    // tables and the map make the page's PNG several times larger.
    let blank = screenshot(
        "data:text/html,<title>blank</title>",
        &out.join("blank.png"),
    )
    .await;
    assert_eq!(png_size(&blank), (1280, 1600));
    assert!(
        page.len() > 4 * blank.len(),
        "the portal's screenshot ({} bytes) is not much more than a blank page's ({} bytes)",
        page.len(),
        blank.len()
    );
    eprintln!("screenshot: {}", out.join("portal.png").display());
    service.stop().await;
}

/// Whether the page has an open EventSource, asked of the browser (DevTools' `queryObjects` finds
/// the page script's own). The `live_event_streams_open` gauge of `/metrics` would not do: it is
/// the process's, and other tests of this binary open streams too.
async fn page_stream_open(browser: &mut support::devtools::Browser) -> bool {
    let prototype = browser
        .call(
            "Runtime.evaluate",
            serde_json::json!({ "expression": "EventSource.prototype" }),
        )
        .await;
    let streams = browser
        .call(
            "Runtime.queryObjects",
            serde_json::json!({ "prototypeObjectId": prototype["result"]["objectId"] }),
        )
        .await;
    let open = browser
        .call(
            "Runtime.callFunctionOn",
            serde_json::json!({
                "objectId": streams["objects"]["objectId"],
                "functionDeclaration": "function() { return this.some(s => s.readyState === 1); }",
                "returnByValue": true,
            }),
        )
        .await;
    open["result"]["value"] == true
}

#[tokio::test]
async fn chromium_shows_a_new_event_without_reloading() {
    if !Path::new(CHROMIUM).exists() {
        if std::env::var_os("CI").is_some() {
            panic!("{CHROMIUM} is missing; CI must install it (apt-get install chromium)");
        }
        eprintln!("skipped: chromium not installed (apt-get install chromium)");
        return;
    }
    let (_dir, service) = started().await;
    let Fleet {
        truck, truck_seen, ..
    } = fleet(&service).await;
    let root = service.root_client();
    let url = portal_url(&root, service.root).await;
    let mut browser = support::devtools::Browser::start(CHROMIUM).await;
    browser.navigate(&url).await;
    // Once the page has loaded and opened its stream, an event is stored.
    let started = std::time::Instant::now();
    while browser.evaluate("document.readyState").await != "complete"
        || !page_stream_open(&mut browser).await
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the page never opened its live stream"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // A mark that a reload would wipe.
    browser.evaluate("window.notReloaded = true").await;
    let crash = TelemetryPoint {
        signals: Some(DeviceSignals {
            accident: Some(true),
            ..no_signals()
        }),
        ..at(truck.id, truck_seen + Duration::seconds(10), 52.03, 13.02)
    };
    let ingest = service.ingestion_client(&root, service.root).await;
    ingest
        .ingest_telemetry(TelemetryBatch {
            points: vec![crash],
        })
        .send()
        .await
        .unwrap();
    let accident = root
        .list_events(service.root)
        .event_type(EventType::AccidentOccurred)
        .send()
        .await
        .unwrap()[0]
        .id;
    let top_row = "document.querySelector('#events tbody').firstElementChild.outerHTML";
    let row = loop {
        let row = browser.evaluate(top_row).await;
        let row = row.as_str().unwrap_or_default().to_owned();
        if row.contains(&accident.to_string()) {
            break row;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the new event never showed: the top row is {row}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(
        row.contains("class=\"live\""),
        "added by the page's script: {row}"
    );
    assert!(
        row.contains("AccidentOccurred") && row.contains(&truck.name),
        "{row}"
    );
    assert_eq!(browser.evaluate("window.notReloaded").await, true);
    // Once: the event is not added again.
    let rows = format!("document.querySelectorAll('tr[data-event=\"{accident}\"]').length");
    assert_eq!(browser.evaluate(&rows).await, 1);
    drop(browser);
    service.stop().await;
}

#[tokio::test]
async fn the_page_stream_takes_the_page_link_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&dir, Uuid::new_v4());
    config.signing_key = Some("portal-test-key".to_owned());
    let service = TestService::start(config).await;
    let page = portal_url(&service.root_client(), service.root).await;
    let (base, query) = page.split_once('?').unwrap();
    let stream = format!("{base}/events?{query}");
    let get = |url: String, last: Option<&'static str>| async move {
        let mut request = reqwest::Client::new().get(url);
        if let Some(last) = last {
            request = request.header("last-event-id", last);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let cache = response.headers().get("cache-control").cloned();
        (status, cache)
    };
    // Refused without the link's signature, with another account's, or with a forged one.
    assert_eq!(get(format!("{base}/events"), None).await.0, 403);
    let other = base.replace(&service.root.to_string(), &Uuid::new_v4().to_string());
    assert_eq!(get(format!("{other}/events?{query}"), None).await.0, 403);
    let forged = stream.replace("signature=", "signature=x");
    assert_eq!(get(forged, None).await.0, 403);
    // An unknown account signed as the service signs: 404.
    let key = Sha256::digest(b"portal-link:portal-test-key");
    let ghost = LinkSigner::portal(&key).link(
        &service.base,
        Uuid::new_v4(),
        Utc::now() + Duration::minutes(5),
    );
    let (ghost_base, ghost_query) = ghost.split_once('?').unwrap();
    assert_eq!(
        get(format!("{ghost_base}/events?{ghost_query}"), None)
            .await
            .0,
        404
    );
    // A bad position, in the query or from a reconnecting EventSource: 400.
    assert_eq!(get(format!("{stream}&after=-3"), None).await.0, 400);
    assert_eq!(get(stream.clone(), Some("x")).await.0, 400);
    // The link is a credential: nothing of the stream is cached.
    let open = reqwest::Client::new().get(&stream).send().await.unwrap();
    assert_eq!(open.status(), 200);
    assert_eq!(open.headers()["cache-control"], "no-store");
    assert_eq!(open.headers()["content-type"], "text/event-stream");
    drop(open);
    service.stop().await;
}

/// `/openapi.yaml` and `/openapi.json` serve the spec the service was generated from; `/docs`
/// renders it in a browser without fetching anything.
#[tokio::test]
async fn the_contract_is_served_and_readable_in_a_browser() {
    let (_dir, service) = started().await;
    let spec = include_str!("../../../spec/asset-alerting.yaml");
    let yaml = reqwest::get(format!("{}/openapi.yaml", service.base))
        .await
        .unwrap();
    assert_eq!(yaml.headers()["content-type"], "application/yaml");
    assert_eq!(yaml.text().await.unwrap(), spec);
    let json: serde_json::Value = reqwest::get(format!("{}/openapi.json", service.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let expected: serde_json::Value = serde_yaml::from_str(spec).unwrap();
    assert_eq!(json, expected);

    let docs_url = format!("{}/docs", service.base);
    let docs = reqwest::get(&docs_url).await.unwrap();
    assert_page_headers(&docs);
    let html = docs.text().await.unwrap();
    for loads in ["<script", "src=", "<link", "@import"] {
        assert!(!html.contains(loads), "the page loads nothing: {loads}");
    }

    if !Path::new(CHROMIUM).exists() {
        if std::env::var_os("CI").is_some() {
            panic!("{CHROMIUM} is missing; CI must install it (apt-get install chromium)");
        }
        eprintln!("skipped the browser part: chromium not installed");
        return service.stop().await;
    }
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs-screenshot");
    std::fs::create_dir_all(&out).unwrap();
    let dom_file = out.join("docs.html");
    chromium(&["--dump-dom".to_owned(), docs_url.clone()], &dom_file).await;
    let dom = std::fs::read_to_string(&dom_file).unwrap();
    for operation in [
        "listAssets",
        "ingestTelemetry",
        "deleteAccount",
        "issueToken",
    ] {
        assert!(
            dom.contains(&format!("id=\"op-{operation}\"")),
            "{operation}"
        );
    }
    assert!(dom.contains("id=\"schema-Asset\""));
    let page = screenshot(&docs_url, &out.join("docs.png")).await;
    let blank = screenshot(
        "data:text/html,<title>blank</title>",
        &out.join("blank.png"),
    )
    .await;
    assert!(page.len() > 4 * blank.len(), "the docs page is not blank");
    service.stop().await;
}

/// A search for text with a NUL character is answered, never with a server error (PostgreSQL
/// cannot hold such text: 400 there; SQLite searches for it and finds nothing).
#[tokio::test]
async fn a_search_with_a_nul_character_is_not_a_server_error() {
    let (_dir, service) = started().await;
    let url = portal_url(&service.root_client(), service.root).await;
    let (status, _) = open(&format!("{url}&q=a%00b")).await;
    let expected = match service_backend() {
        Backend::Sqlite => 200,
        Backend::Postgres => 400,
    };
    assert_eq!(status, expected);
    service.stop().await;
}
