//! The portal's map draws country borders behind the assets, from data shipped with the service:
//! headless chromium renders the page, and the pixels of its screenshot are read back (decoded
//! by the same browser, on a blank page) along lines beside two assets on either side of the
//! German-Polish border.

use crate::support;

use asset_alerting_models::*;
use chrono::Utc;
use serde_json::json;
use std::path::{Path, PathBuf};
use support::{asset_input, point_of, started};

const CHROMIUM: &str = "/usr/bin/chromium";

/// The map's border colour (`portal/map.rs`), as RGB.
const BORDER: [i64; 3] = [0x8a, 0x6d, 0x3b];
/// The map's land colour.
const LAND: [i64; 3] = [0xf4, 0xf1, 0xe8];

/// Two assets on one parallel: Germany west of the Oder, Poland east of it. Natural Earth's
/// 1:110m border crosses 52.35 °N at about 14.57 °E.
const LATITUDE: f64 = 52.35;
const WEST: f64 = 14.1;
const EAST: f64 = 15.1;

fn distance(a: [i64; 3], b: [i64; 3]) -> f64 {
    (((a[0] - b[0]).pow(2) + (a[1] - b[1]).pow(2) + (a[2] - b[2]).pow(2)) as f64).sqrt()
}

#[tokio::test]
async fn chromium_shows_country_borders_behind_the_assets() {
    if !Path::new(CHROMIUM).exists() {
        if std::env::var_os("CI").is_some() {
            panic!("{CHROMIUM} is missing; CI must install it (apt-get install chromium)");
        }
        eprintln!("skipped: chromium not installed (apt-get install chromium)");
        return;
    }
    let (_dir, service) = started().await;
    let root = service.root_client();
    let account = service.root;
    let mut points = Vec::new();
    for (external_id, longitude) in [("west-1", WEST), ("east-2", EAST)] {
        let asset = root
            .create_asset(account, asset_input(external_id))
            .send()
            .await
            .unwrap();
        points.push(TelemetryPoint {
            latitude: Some(LATITUDE),
            longitude: Some(longitude),
            ..point_of(
                Some(asset.id),
                None,
                Utc::now() - chrono::Duration::seconds(30),
            )
        });
    }
    let ingest = service.ingestion_client(&root, account).await;
    ingest
        .ingest_telemetry(TelemetryBatch { points })
        .send()
        .await
        .unwrap();
    let url = root.get_portal_link(account).send().await.unwrap().url;

    let mut browser = support::devtools::Browser::start(CHROMIUM).await;
    browser
        .call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1280, "height": 1600, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await;
    browser.navigate(&url).await;
    let started = std::time::Instant::now();
    while browser.evaluate("document.readyState").await != "complete" {
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // The markers' centres and the map's box, in page pixels.
    let layout = browser
        .evaluate(
            "(() => { const box = e => { const r = e.getBoundingClientRect(); \
               return [r.x + scrollX, r.y + scrollY, r.width, r.height]; }; \
             return { map: box(document.querySelector('svg.map')), \
               markers: [...document.querySelectorAll('svg.map circle')].map(box) }; })()",
        )
        .await;
    let map: Vec<f64> = serde_json::from_value(layout["map"].clone()).unwrap();
    let mut markers: Vec<Vec<f64>> = serde_json::from_value(layout["markers"].clone()).unwrap();
    markers.sort_by(|a, b| a[0].total_cmp(&b[0]));
    assert_eq!(markers.len(), 2, "{layout}");
    let centre = |m: &Vec<f64>| (m[0] + m[2] / 2.0 - map[0], m[1] + m[3] / 2.0 - map[1]);
    let ((west_x, y), (east_x, east_y)) = (centre(&markers[0]), centre(&markers[1]));
    assert!(west_x < east_x && (y - east_y).abs() < 1.0, "{layout}");

    // The map as the browser drew it, then its pixels: decoded on a blank page, where no
    // Content-Security-Policy stands in the way of a data: image.
    let shot = browser
        .call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true,
                   "clip": {"x": map[0], "y": map[1], "width": map[2], "height": map[3], "scale": 1}}),
        )
        .await;
    let png = shot["data"].as_str().unwrap().to_owned();
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("portal-borders.png");
    use base64::Engine;
    std::fs::write(
        &out,
        base64::engine::general_purpose::STANDARD
            .decode(&png)
            .unwrap(),
    )
    .unwrap();
    browser.navigate("about:blank").await;
    // Rows 25 px above and below the markers, clear of their circles and labels.
    let rows = [y - 25.0, y + 25.0];
    let (from, to) = (west_x.round() as i64 - 20, east_x.round() as i64);
    let pixels = browser
        .call(
            "Runtime.evaluate",
            json!({
                "expression": format!(
                    "(async () => {{ const img = new Image(); img.src = 'data:image/png;base64,{png}'; \
                     await img.decode(); const c = document.createElement('canvas'); \
                     c.width = img.width; c.height = img.height; const g = c.getContext('2d'); \
                     g.drawImage(img, 0, 0); \
                     return {rows:?}.map(y => Array.from(g.getImageData({from}, Math.round(y), {width}, 1).data)); }})()",
                    width = to - from
                ),
                "awaitPromise": true,
                "returnByValue": true,
            }),
        )
        .await;
    let pixels: Vec<Vec<i64>> = serde_json::from_value(pixels["result"]["value"].clone())
        .unwrap_or_else(|e| panic!("{e}: {pixels}"));
    let longitude = |x: i64| WEST + (x as f64 - west_x) / (east_x - west_x) * (EAST - WEST);
    for (row, y) in pixels.iter().zip(rows) {
        let rgb: Vec<[i64; 3]> = row.chunks(4).map(|p| [p[0], p[1], p[2]]).collect();
        // Beside the western asset: land, not sea.
        assert!(
            distance(rgb[0], LAND) < 12.0,
            "row {y}: not land beside the asset: {:?} (screenshot {})",
            rgb[0],
            out.display()
        );
        let strokes: Vec<f64> = rgb
            .iter()
            .enumerate()
            .filter(|(_, p)| distance(**p, BORDER) < 90.0)
            .map(|(i, _)| longitude(from + i as i64))
            .collect();
        assert!(
            !strokes.is_empty() && strokes.iter().all(|lon| (14.45..14.7).contains(lon)),
            "row {y}: border strokes at longitudes {strokes:?}, expected about 14.57 (screenshot {})",
            out.display()
        );
    }
    eprintln!("screenshot: {}", out.display());
    service.stop().await;
}
