//! The OsmAnd endpoint on 127.0.0.1, sent reports as OsmAnd clients and the Traccar Client app
//! send them (Traccar's OsmAnd protocol): query parameters in a GET or POST, a form body, JSON.

use asset_alerting_trackers::{Ingest, Report, Stored, osmand};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Store {
    stored: Mutex<Vec<(String, Report)>>,
    fail: bool,
}

impl Ingest for Store {
    async fn knows(&self, device_id: &str) -> bool {
        device_id != "stranger"
    }

    async fn store(&self, device_id: &str, reports: Vec<Report>) -> Result<Stored, String> {
        if self.fail {
            return Err("database unavailable".to_owned());
        }
        let n = reports.len();
        let mut stored = self.stored.lock().unwrap();
        stored.extend(reports.into_iter().map(|r| (device_id.to_owned(), r)));
        Ok(Stored::accepted(n))
    }
}

async fn serve(store: Arc<Store>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(osmand::serve(listener, store, std::future::pending()));
    format!("http://{address}")
}

#[tokio::test]
async fn reports_in_every_form_are_stored_in_the_service_units() {
    let store = Arc::new(Store::default());
    let base = serve(store.clone()).await;
    let http = reqwest::Client::new();

    // GET with query parameters (the OsmAnd app), speed in knots.
    let answer = http
        .get(format!(
            "{base}/?id=123456&timestamp=1764151200&lat=54.6872&lon=25.2797&speed=10&batt=80"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    // POST with the same parameters in the URL, and as a form body.
    let answer = http
        .post(format!("{base}/?id=123456&lat=1&lon=2"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let answer = http
        .post(format!("{base}/"))
        .form(&[
            ("id", "123456"),
            ("location", "3,4"),
            ("timestamp", "2025-11-26T10:00:00Z"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    // The Traccar Client's JSON, speed in m/s.
    let answer = http
        .post(format!("{base}/"))
        .json(&serde_json::json!({
            "device_id": "phone-1",
            "location": {
                "timestamp": "2025-11-26T10:00:00.000Z",
                "coords": {"latitude": 5.0, "longitude": 6.0, "speed": 10.0, "heading": 180, "accuracy": 3, "altitude": 10},
                "is_moving": true,
                "battery": {"level": 0.5, "is_charging": false}
            }
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);

    let stored = store.stored.lock().unwrap().clone();
    assert_eq!(stored.len(), 4);
    assert_eq!(stored[0].0, "123456");
    assert!((stored[0].1.speed.unwrap() - 18.52).abs() < 1e-9);
    assert_eq!(stored[0].1.battery_percentage, Some(80.0));
    // Without a timestamp: stamped on arrival.
    assert!(stored[1].1.timestamp.is_some());
    assert_eq!(
        (stored[2].1.latitude, stored[2].1.longitude),
        (Some(3.0), Some(4.0))
    );
    assert_eq!(stored[3].0, "phone-1");
    assert_eq!(stored[3].1.speed, Some(36.0));
    assert_eq!(stored[3].1.battery_percentage, Some(50.0));
}

#[tokio::test]
async fn a_flag_that_says_neither_is_ignored_and_the_report_stored() {
    let store = Arc::new(Store::default());
    let base = serve(store.clone()).await;
    let answer = reqwest::get(format!("{base}/?id=1&lat=1&lon=2&ignition=on&motion=True"))
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let stored = store.stored.lock().unwrap().clone();
    assert_eq!(stored.len(), 1);
    let report = &stored[0].1;
    assert_eq!((report.latitude, report.longitude), (Some(1.0), Some(2.0)));
    assert_eq!((report.ignition, report.moving), (None, Some(true)));
}

#[tokio::test]
async fn bad_requests_unknown_devices_and_failed_stores() {
    let base = serve(Arc::default()).await;
    let http = reqwest::Client::new();
    for (url, status) in [
        (format!("{base}/?lat=1&lon=2"), 400),
        (format!("{base}/?id=1&lat=north&lon=2"), 400),
        (format!("{base}/?id=stranger&lat=1&lon=2"), 404),
    ] {
        let answer = http.get(&url).send().await.unwrap();
        assert_eq!(answer.status(), status, "{url}");
    }
    let answer = http
        .post(format!("{base}/"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);

    let failing = serve(Arc::new(Store {
        fail: true,
        ..Store::default()
    }))
    .await;
    let answer = http
        .get(format!("{failing}/?id=1&lat=1&lon=2"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 503);
}

#[tokio::test]
async fn an_address_guessing_ids_is_answered_429_even_for_a_known_one() {
    let base = serve(Arc::default()).await;
    let http = reqwest::Client::new();
    for _ in 0..10 {
        let answer = http
            .get(format!("{base}/?id=stranger&lat=1&lon=2"))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 404);
    }
    for id in ["stranger", "123456"] {
        let answer = http
            .get(format!("{base}/?id={id}&lat=1&lon=2"))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 429, "{id}");
    }
}
