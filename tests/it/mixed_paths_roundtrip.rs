//! The crates generated from tests/fixtures/mixed-paths.yaml (tests/generated/mixed-paths): path
//! segments that mix text and parameters (`{sid}.json`, `{id}:cancel`, `{name}.{ext}`,
//! `v{number}`), the generated client against the generated server over real HTTP, and raw
//! requests for what the router refuses.

use mixed_paths_client::Client;
use mixed_paths_server::models::{Echo, Problem};
use mixed_paths_server::{
    CancelJobRequest, CancelJobResponse, GetAccountJsonRequest, GetAccountJsonResponse,
    GetAccountRequest, GetAccountResponse, GetAccountXmlRequest, GetAccountXmlResponse,
    GetCallRequest, GetCallResponse, GetFileRequest, GetFileResponse, GetJobFullRequest,
    GetJobFullResponse, GetJobRequest, GetJobResponse, GetPageLinesRequest, GetPageLinesResponse,
    ListCallsRequest, ListCallsResponse, MixedPathsApi, Rejection,
};
use std::sync::Arc;

/// Answers every operation with its name and the parameter values it received.
struct Echoes;

fn echo(operation: &str, values: &[&str]) -> Echo {
    Echo {
        operation: operation.to_owned(),
        values: values.iter().map(|v| (*v).to_owned()).collect(),
    }
}

impl MixedPathsApi for Echoes {
    fn rejection(&self, rejection: &Rejection) -> Problem {
        Problem {
            problem: rejection.message.clone(),
        }
    }

    async fn get_account_json(&self, request: GetAccountJsonRequest) -> GetAccountJsonResponse {
        GetAccountJsonResponse::Ok(echo("getAccountJson", &[&request.sid]))
    }

    async fn get_account_xml(&self, request: GetAccountXmlRequest) -> GetAccountXmlResponse {
        GetAccountXmlResponse::Ok(echo("getAccountXml", &[&request.sid]))
    }

    async fn get_account(&self, request: GetAccountRequest) -> GetAccountResponse {
        GetAccountResponse::Ok(echo("getAccount", &[&request.sid]))
    }

    async fn list_calls(&self, request: ListCallsRequest) -> ListCallsResponse {
        ListCallsResponse::Ok(echo("listCalls", &[&request.sid]))
    }

    async fn get_call(&self, request: GetCallRequest) -> GetCallResponse {
        GetCallResponse::Ok(echo("getCall", &[&request.sid, &request.call_sid]))
    }

    async fn cancel_job(&self, request: CancelJobRequest) -> CancelJobResponse {
        CancelJobResponse::Ok(echo("cancelJob", &[&request.id]))
    }

    async fn get_job(&self, request: GetJobRequest) -> GetJobResponse {
        GetJobResponse::Ok(echo("getJob", &[&request.id]))
    }

    async fn get_job_full(&self, request: GetJobFullRequest) -> GetJobFullResponse {
        let fields = request.fields.unwrap_or_default();
        GetJobFullResponse::Ok(echo("getJobFull", &[&request.id, &fields]))
    }

    async fn get_file(&self, request: GetFileRequest) -> GetFileResponse {
        GetFileResponse::Ok(echo("getFile", &[&request.name, &request.ext]))
    }

    async fn get_page_lines(&self, request: GetPageLinesRequest) -> GetPageLinesResponse {
        GetPageLinesResponse::Ok(echo("getPageLines", &[&request.number.to_string()]))
    }
}

/// Serves the whole router on 127.0.0.1; returns its base URL.
pub(crate) async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    let app = mixed_paths_server::router(Arc::new(Echoes));
    tokio::spawn(async move {
        mixed_paths_server::axum::serve(listener, app)
            .await
            .expect("server runs")
    });
    format!("http://{address}")
}

#[tokio::test]
async fn operations_sharing_a_segment_position_are_told_apart_by_its_text() {
    let client = Client::new(start().await).expect("client");
    assert_eq!(
        client.get_account_json("AC1").await.unwrap(),
        echo("getAccountJson", &["AC1"])
    );
    assert_eq!(
        client.get_account_xml("AC1").await.unwrap(),
        echo("getAccountXml", &["AC1"])
    );
    assert_eq!(
        client.get_account("AC1").await.unwrap(),
        echo("getAccount", &["AC1"])
    );
    assert_eq!(
        client.list_calls("AC1").await.unwrap(),
        echo("listCalls", &["AC1"])
    );
    assert_eq!(
        client.get_call("AC1", "CA2").await.unwrap(),
        echo("getCall", &["AC1", "CA2"])
    );
    // Values are percent-encoded inside the segment, the literal text is not.
    assert_eq!(
        client.get_account_json("a b/ü").await.unwrap(),
        echo("getAccountJson", &["a b/ü"])
    );
}

#[tokio::test]
async fn a_sub_delimiter_suffix_and_two_parameters_in_one_segment_round_trip() {
    let client = Client::new(start().await).expect("client");
    assert_eq!(
        client.cancel_job("abc").await.unwrap(),
        echo("cancelJob", &["abc"])
    );
    assert_eq!(
        client.cancel_job("a:b c").await.unwrap(),
        echo("cancelJob", &["a:b c"])
    );
    // The first value escapes the dot that separates it from the second.
    assert_eq!(
        client.get_file("archive.tar", "gz").await.unwrap(),
        echo("getFile", &["archive.tar", "gz"])
    );
    assert_eq!(
        client.get_file("report", "tar.gz").await.unwrap(),
        echo("getFile", &["report", "tar.gz"])
    );
    assert_eq!(
        client.get_page_lines(2).await.unwrap(),
        echo("getPageLines", &["2"])
    );
}

#[tokio::test]
async fn a_query_the_path_carries_tells_operations_apart() {
    let base = start().await;
    let client = Client::new(base.clone()).expect("client");
    assert_eq!(
        client.get_job("abc").await.unwrap(),
        echo("getJob", &["abc"])
    );
    assert_eq!(
        client.get_job_full("abc").await.unwrap(),
        echo("getJobFull", &["abc", ""])
    );
    assert_eq!(
        client.get_job_full("abc").fields("a,b").await.unwrap(),
        echo("getJobFull", &["abc", "a,b"])
    );
    let (status, body) = raw(reqwest::Method::GET, format!("{base}/jobs/abc?view=other")).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"getJob\""), "{body}");
}

async fn raw(method: reqwest::Method, url: String) -> (u16, String) {
    let response = reqwest::Client::new()
        .request(method, url)
        .send()
        .await
        .expect("a response");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

#[tokio::test]
async fn the_literal_text_of_a_mixed_segment_must_match() {
    let base = start().await;
    let post = |path: &str| raw(reqwest::Method::POST, format!("{base}{path}"));
    let (status, body) = post("/jobs/abc:cancel").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("cancelJob"), "{body}");
    // Refused with the API's error body.
    let (status, body) = post("/jobs/abc:other").await;
    assert_eq!(status, 404, "{body}");
    assert!(
        body.contains(r#"{"problem":"no operation matches POST /jobs/abc:other"}"#),
        "{body}"
    );
    assert_eq!(post("/jobs/:cancel").await.0, 404, "an empty value");
    assert_eq!(post("/jobs/abc").await.0, 404);
    assert_eq!(
        raw(reqwest::Method::DELETE, format!("{base}/jobs/abc:cancel"))
            .await
            .0,
        405
    );
    // GET has no `:cancel` operation: the whole segment is the plain operation's value.
    let (status, body) = raw(reqwest::Method::GET, format!("{base}/jobs/abc:cancel")).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#"["abc:cancel"]"#), "{body}");

    let get = |path: &str| raw(reqwest::Method::GET, format!("{base}{path}"));
    let (status, body) = get("/files/a.b.c").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#"["a","b.c"]"#), "{body}");
    assert_eq!(get("/files/abc").await.0, 404);
    assert_eq!(get("/files/.c").await.0, 404);
    assert_eq!(get("/files/abc.").await.0, 404);
    let (status, body) = get("/accounts/AC1.txt").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("getAccount\""), "the plain operation: {body}");

    // A mixed segment's value is checked like any other parameter, here against the bounds of the
    // component schema (`PageNumber`, 1 to 3) its schema `$ref`s.
    assert_eq!(get("/pages/v1/lines").await.0, 200);
    assert_eq!(get("/pages/v3/lines").await.0, 200);
    for outside in ["/pages/v0/lines", "/pages/v4/lines"] {
        let (status, body) = get(outside).await;
        assert_eq!(status, 400, "{outside}: {body}");
        assert!(body.contains("number"), "{body}");
    }
    assert_eq!(get("/pages/x3/lines").await.0, 404);
    assert_eq!(get("/pages/v/lines").await.0, 404);
}
