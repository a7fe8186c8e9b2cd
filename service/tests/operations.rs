//! Operations over real HTTP: `/metrics` counts what was asked by route template and status (and
//! telemetry points by outcome), request ids are echoed or made, and JSON logs carry them.
//! Metrics are per process, so only the metrics test here makes the requests it counts.
//!
//! A test binary of its own (the others are modules of `tests/it`): the `metrics` recorder is the
//! process's, and its first test counts requests exactly, which other tests' requests would change.

mod support;

use asset_alerting_client::models::TelemetryBatch;
use serde_json::Value;
use std::io::BufRead;
use std::process::{Command, Stdio};
use support::process::{free_port, root_client, wait_ready};
use support::*;
use uuid::Uuid;

async fn metrics(base: &str) -> String {
    let response = reqwest::get(format!("{base}/metrics")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    response.text().await.unwrap()
}

/// The value of the sample named `name` whose labels include all of `labels`, 0 if none.
fn sample(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|line| line.starts_with(&format!("{name}{{")))
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .map(|line| line.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum()
}

#[tokio::test]
async fn metrics_count_requests_by_route_template_and_status() {
    let (_dir, service) = started().await;
    let root = service.root_client();
    let operation = r#"operation="/v1/accounts/{accountId}/geofences/{geofenceId}""#;
    let not_found = [r#"method="GET""#, operation, r#"status="404""#];
    // No other test here asks for geofences, and these requests come before the first scrape.
    for _ in 0..3 {
        root.get_geofence(service.root, Uuid::new_v4())
            .send()
            .await
            .unwrap_err();
    }
    let created = root
        .create_geofence(service.root, geofence_input("depot", "Depot"))
        .send()
        .await
        .unwrap();
    root.get_geofence(service.root, created.id)
        .send()
        .await
        .unwrap();
    let unknown = service.ingestion_client(&root, service.root).await;
    unknown
        .ingest_telemetry(TelemetryBatch {
            points: vec![point_of(Some(Uuid::new_v4()), None, chrono::Utc::now())],
        })
        .send()
        .await
        .unwrap();

    let text = metrics(&service.base).await;
    assert_eq!(
        sample(&text, "http_requests_total", &not_found),
        3.0,
        "{text}"
    );
    let found = [r#"method="GET""#, operation, r#"status="200""#];
    assert!(sample(&text, "http_requests_total", &found) >= 1.0);
    // Raw paths (with ids) never become labels.
    assert!(!text.contains(&created.id.to_string()));
    assert_eq!(
        sample(&text, "http_request_duration_seconds_count", &not_found),
        3.0
    );
    assert!(text.contains(r#"http_request_duration_seconds_bucket{"#));
    assert!(sample(&text, "telemetry_points_total", &[r#"status="rejected""#]) >= 1.0);
    service.stop().await;
}

#[tokio::test]
async fn request_ids_are_echoed_or_made() {
    let (_dir, service) = started().await;
    let http = reqwest::Client::new();
    let echoed = http
        .get(format!("{}/healthz", service.base))
        .header("x-request-id", "caller-chosen-42")
        .send()
        .await
        .unwrap();
    assert_eq!(echoed.headers()["x-request-id"], "caller-chosen-42");
    let made = http
        .get(format!("{}/v1/accounts/{}", service.base, service.root))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 401);
    let id = made.headers()["x-request-id"].to_str().unwrap();
    Uuid::parse_str(id).expect("a made request id is a UUID");
    service.stop().await;
}

#[tokio::test]
async fn json_logs_are_one_object_per_line_with_the_request_id() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let root = Uuid::new_v4();
    let mut child = Command::new(env!("CARGO_BIN_EXE_asset-alerting-service"))
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .arg("--database-url")
        .arg(format!(
            "sqlite://{}",
            dir.path().join("service.db").display()
        ))
        .args(["--root-account-id", &root.to_string()])
        .args(["--root-client-secret", ROOT_SECRET, "--log-format", "json"])
        .env("RUST_LOG", "info,tower_http=debug")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_ready(&base).await;
    root_client(&base, root)
        .get_account(root)
        .send()
        .await
        .unwrap();
    reqwest::Client::new()
        .get(format!("{base}/healthz"))
        .header("x-request-id", "logged-id-7")
        .send()
        .await
        .unwrap();
    assert!(
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let stderr = child.stderr.take().unwrap();
    let lines: Vec<String> = std::io::BufReader::new(stderr)
        .lines()
        .map(Result::unwrap)
        .collect();
    child.wait().unwrap();

    let objects: Vec<Value> = lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert!(
        objects
            .iter()
            .any(|o| o["fields"]["message"] == "listening")
    );
    assert!(
        objects
            .iter()
            .any(|o| o["span"]["request_id"] == "logged-id-7"),
        "no line carries the request id: {lines:#?}"
    );
}
