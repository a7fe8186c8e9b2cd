//! A cargo feature per operation group: the server of tests/fixtures/mixed-paths.yaml generated
//! again as `mixed-paths-slice` and taken with the feature of its group `jobs` only (see
//! tests/Cargo.toml). Its trait has the three `jobs` operations, nothing else (this file would not
//! compile otherwise: an implementation must define every method of the trait, and may define no
//! other); its router answers them, and 404 with the API's error body for every path of the other
//! groups, which the whole crate answers as before.

use super::mixed_paths_roundtrip::start as start_whole;
use mixed_paths_slice_server::models::{Echo, Problem};
use mixed_paths_slice_server::{
    CancelJobRequest, CancelJobResponse, GetJobFullRequest, GetJobFullResponse, GetJobRequest,
    GetJobResponse, MixedPathsApi, Rejection,
};
use std::sync::Arc;

/// The `jobs` operations, answered with their name and the parameter values they received.
struct Jobs;

fn job_echo(operation: &str, values: &[&str]) -> Echo {
    Echo {
        operation: operation.to_owned(),
        values: values.iter().map(|v| (*v).to_owned()).collect(),
    }
}

impl MixedPathsApi for Jobs {
    fn rejection(&self, rejection: &Rejection) -> Problem {
        Problem {
            problem: rejection.message.clone(),
        }
    }

    async fn cancel_job(&self, request: CancelJobRequest) -> CancelJobResponse {
        CancelJobResponse::Ok(job_echo("cancelJob", &[&request.id]))
    }

    async fn get_job(&self, request: GetJobRequest) -> GetJobResponse {
        GetJobResponse::Ok(job_echo("getJob", &[&request.id]))
    }

    async fn get_job_full(&self, request: GetJobFullRequest) -> GetJobFullResponse {
        let fields = request.fields.unwrap_or_default();
        GetJobFullResponse::Ok(job_echo("getJobFull", &[&request.id, &fields]))
    }
}

async fn start_slice() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    let app = mixed_paths_slice_server::router(Arc::new(Jobs));
    tokio::spawn(async move {
        mixed_paths_slice_server::axum::serve(listener, app)
            .await
            .expect("server runs")
    });
    format!("http://{address}")
}

async fn send(method: reqwest::Method, url: String) -> (u16, String) {
    let response = reqwest::Client::new()
        .request(method, url)
        .send()
        .await
        .expect("a response");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// A request of each group but `jobs`: (method, path, the operation the whole crate runs).
const OTHER_GROUPS: [(&str, &str, &str); 6] = [
    ("GET", "/accounts/AC1.json", "getAccountJson"),
    ("GET", "/accounts/AC1.xml", "getAccountXml"),
    ("GET", "/accounts/AC1", "getAccount"),
    ("GET", "/accounts/AC1/calls.json", "listCalls"),
    ("GET", "/files/report.pdf", "getFile"),
    ("GET", "/pages/v3/lines", "getPageLines"),
];

#[tokio::test]
async fn a_slice_answers_its_groups_operations() {
    let base = start_slice().await;
    let (status, body) = send(reqwest::Method::POST, format!("{base}/jobs/abc:cancel")).await;
    assert_eq!(status, 200, "{body}");
    let echoed: Echo = serde_json::from_str(&body).expect("an Echo");
    assert_eq!(echoed, job_echo("cancelJob", &["abc"]));
    // Two operations of the group share a route, told apart by the query (a dispatcher).
    let (status, body) = send(reqwest::Method::GET, format!("{base}/jobs/abc")).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"getJob\""), "{body}");
    let url = format!("{base}/jobs/abc?view=full&fields=a");
    let (status, body) = send(reqwest::Method::GET, url).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"getJobFull\""), "{body}");
}

#[tokio::test]
async fn a_slice_answers_404_outside_its_groups_where_the_whole_crate_answers() {
    let (slice, whole) = (start_slice().await, start_whole().await);
    for (method, path, operation) in OTHER_GROUPS {
        let method: reqwest::Method = method.parse().expect("a method");
        let (status, body) = send(method.clone(), format!("{slice}{path}")).await;
        assert_eq!(status, 404, "{method} {path} in the slice: {body}");
        let problem: Problem = serde_json::from_str(&body).expect("the API's error body");
        assert!(
            problem
                .problem
                .contains(path.split('?').next().unwrap_or(path)),
            "{problem:?}"
        );
        let (status, body) = send(method.clone(), format!("{whole}{path}")).await;
        assert_eq!(status, 200, "{method} {path} in the whole crate: {body}");
        let echoed: mixed_paths_server::models::Echo =
            serde_json::from_str(&body).expect("an Echo");
        assert_eq!(echoed.operation, operation);
    }
}
