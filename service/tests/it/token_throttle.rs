//! The token endpoint under pressure, over real HTTP: rates per client id and per source address
//! and a full endpoint are refused with 429 in RFC 6749's error shape with Retry-After, before
//! any secret is checked; correct secrets and other traffic keep working.

use crate::support;

use reqwest::StatusCode;
use serde_json::Value;
use std::num::NonZeroU32;
use support::*;
use uuid::Uuid;

async fn token_request(base: &str, id: Uuid, secret: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{base}/v1/auth/token"))
        .basic_auth(id, Some(secret))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap()
}

/// Checks the 429's shape and returns its Retry-After in seconds.
async fn assert_too_many(response: reqwest::Response) -> u64 {
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .expect("Retry-After is a number of seconds");
    assert!(retry_after >= 1);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "invalid_request");
    assert!(
        body["error_description"]
            .as_str()
            .unwrap()
            .contains("retry after"),
        "{body}"
    );
    retry_after
}

async fn limited(dir: &tempfile::TempDir, per_address: u32, per_client: u32) -> TestService {
    let mut config = config(dir, Uuid::new_v4());
    config.token_rate_per_address = NonZeroU32::new(per_address).unwrap();
    config.token_rate_per_client = NonZeroU32::new(per_client).unwrap();
    TestService::start(config).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_over_its_rate_is_refused_and_others_still_get_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let service = limited(&dir, 1000, 3).await;
    let root = service.root_client();
    let (child, _) = child(&service, &root, service.root, "acme").await;
    for _ in 0..3 {
        let response = token_request(&service.base, child, "wrong").await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    // The fourth in the minute is refused, even with the right secret: nothing is checked.
    let retry_after = assert_too_many(token_request(&service.base, child, "wrong").await).await;
    assert!(retry_after <= 60, "{retry_after}");

    // The root account's correct secret still gets a token, and the token works.
    let response = token_request(&service.base, service.root, ROOT_SECRET).await;
    assert_eq!(response.status(), StatusCode::OK);
    let token: Value = response.json().await.unwrap();
    let by_token = service.with_token(token["access_token"].as_str().unwrap());
    by_token.get_account(service.root).send().await.unwrap();
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_over_its_rate_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let service = limited(&dir, 4, 1000).await;
    // Unknown client ids: each is checked against a dummy hash, and each counts for the address.
    for _ in 0..4 {
        let response = token_request(&service.base, Uuid::new_v4(), "wrong").await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    assert_too_many(token_request(&service.base, service.root, ROOT_SECRET).await).await;
    // Client ids in the form count the same way as in HTTP Basic.
    let response = reqwest::Client::new()
        .post(format!("{}/v1/auth/token", service.base))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", &service.root.to_string()),
            ("client_secret", ROOT_SECRET),
        ])
        .send()
        .await
        .unwrap();
    assert_too_many(response).await;
    service.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_endpoint_refuses_and_other_requests_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&dir, Uuid::new_v4());
    config.token_rate_per_address = NonZeroU32::new(100_000).unwrap();
    config.token_rate_per_client = NonZeroU32::new(100_000).unwrap();
    config.token_queue = 0;
    let service = TestService::start(config).await;
    let root = service.root_client();
    root.get_account(service.root).send().await.unwrap();

    // Many wrong secrets at once: one check per core runs, the rest are refused at the door.
    let flood: Vec<_> = (0..48)
        .map(|_| {
            let base = service.base.clone();
            tokio::spawn(async move { token_request(&base, Uuid::new_v4(), "wrong").await })
        })
        .collect();
    // Requests that check no secret are served meanwhile.
    for _ in 0..20 {
        root.get_account(service.root).send().await.unwrap();
    }
    let (mut refused, mut rejected) = (0, 0);
    for response in flood {
        let response = response.await.unwrap();
        match response.status() {
            StatusCode::TOO_MANY_REQUESTS => {
                assert_eq!(assert_too_many(response).await, 1);
                refused += 1;
            }
            StatusCode::UNAUTHORIZED => rejected += 1,
            other => panic!("unexpected {other}"),
        }
    }
    assert!(refused > 0, "none of the flood was refused");
    assert!(rejected > 0, "every request of the flood was refused");

    // Once the flood is over, the correct secret gets a token again.
    let response = token_request(&service.base, service.root, ROOT_SECRET).await;
    assert_eq!(response.status(), StatusCode::OK);
    service.stop().await;
}
