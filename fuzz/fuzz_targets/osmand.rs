//! The OsmAnd endpoint: arbitrary request text (a GET or POST with a query, a form body, the
//! Traccar Client's JSON, any headers) through its axum router, in process, with an `Ingest` that
//! knows every device but one and stores whatever it is given.
//!
//! Invariants: never a panic or a hang; never a 5xx (the store never fails here); the answer is
//! 200 (stored), 400 (not a report, with the reason as text) or 404 (the unknown device); and
//! every report stored carries finite numbers and the timestamp the endpoint must
//! stamp when the device sent none.
#![no_main]

use asset_alerting_fuzz::{answer, parse_request, runtime};
use asset_alerting_trackers::osmand;
use asset_alerting_trackers::{Ingest, Report, Stored};
use axum::extract::ConnectInfo;
use libfuzzer_sys::fuzz_target;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tower::ServiceExt;

const UNKNOWN: &str = "unknown";

#[derive(Default)]
struct Recorder {
    stored: Mutex<Vec<(String, Report)>>,
}

impl Ingest for Recorder {
    async fn knows(&self, device_id: &str) -> bool {
        device_id != UNKNOWN
    }

    async fn store(&self, device_id: &str, reports: Vec<Report>) -> Result<Stored, String> {
        let n = reports.len();
        let mut stored = self.stored.lock().expect("lock");
        stored.extend(reports.into_iter().map(|r| (device_id.to_owned(), r)));
        Ok(Stored::accepted(n))
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(mut request) = parse_request(data) else {
        return;
    };
    let peer: SocketAddr = "127.0.0.1:40000".parse().expect("an address");
    request.extensions_mut().insert(ConnectInfo(peer));
    let ingest = Arc::new(Recorder::default());
    let router = osmand::router(ingest.clone());
    let response = runtime().block_on(async {
        let response = router.oneshot(request).await.expect("infallible");
        answer(response).await
    });
    assert!(
        matches!(response.status, 200 | 400 | 404),
        "answered {}",
        response.describe()
    );
    if response.status == 400 {
        assert!(!response.body.is_empty(), "a 400 without its reason");
    }
    let stored = ingest.stored.lock().expect("lock");
    assert_eq!(
        stored.len(),
        usize::from(response.status == 200),
        "{}",
        response.describe()
    );
    for (_, report) in stored.iter() {
        assert!(
            report.timestamp.is_some(),
            "a report stored without a timestamp"
        );
        let numbers = [
            report.latitude,
            report.longitude,
            report.speed,
            report.heading,
            report.altitude,
            report.accuracy,
            report.input_voltage,
            report.battery_voltage,
            report.battery_percentage,
        ];
        assert!(
            numbers.iter().flatten().all(|n| n.is_finite()),
            "{report:?}"
        );
    }
});
