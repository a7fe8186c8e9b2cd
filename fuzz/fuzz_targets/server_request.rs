//! A generated server's request path: arbitrary request text (method, path, query, headers,
//! cookies, body) through the axum routers generated from tests/fixtures/param-styles.yaml (every
//! parameter style, form and multipart bodies) and errors-formats.yaml (a JSON body, binary
//! bodies), with stub implementations, in process (`oneshot`, no socket).
//!
//! Invariant: never a panic, a hang or a 5xx. The answer is 2xx (the stubs always succeed) or a
//! 4xx from the router carrying the document's error body: param-styles' `Problem` with the
//! status as its `code`; errors-formats' `BasicError`, or, for `POST /documents` whose operation
//! documents its own 4XX text, that text.
#![no_main]

use asset_alerting_fuzz::servers::{Documents, Echoes};
use asset_alerting_fuzz::{Answer, answer, parse_request, runtime};
use libfuzzer_sys::fuzz_target;
use param_styles_server::axum::Router;
use param_styles_server::axum::http::Method;
use std::sync::{Arc, OnceLock};
use tower::ServiceExt;

fn routers() -> &'static (Router, Router) {
    static ROUTERS: OnceLock<(Router, Router)> = OnceLock::new();
    ROUTERS.get_or_init(|| {
        (
            param_styles_server::router(Arc::new(Echoes)),
            errors_formats_server::router(Arc::new(Documents)),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    let (param_styles, errors_formats) = routers();
    for (name, router) in [
        ("param-styles", param_styles),
        ("errors-formats", errors_formats),
    ] {
        let Some(request) = parse_request(data) else {
            return;
        };
        let head = request.method() == Method::HEAD;
        let path = request.uri().path().to_owned();
        let post = request.method() == Method::POST;
        let response = runtime().block_on(async {
            let response = router.clone().oneshot(request).await.expect("infallible");
            answer(response).await
        });
        check(name, &response, head, post && path == "/documents");
    }
});

fn check(server: &str, answer: &Answer, head: bool, own_text: bool) {
    let status = answer.status;
    assert!(
        (200..300).contains(&status) || (400..500).contains(&status),
        "{server} answered {}",
        answer.describe()
    );
    if status < 400 || head {
        return;
    }
    let json = answer.json();
    if server == "param-styles" {
        let problem =
            json.unwrap_or_else(|| panic!("{server}: not a Problem: {}", answer.describe()));
        assert_eq!(
            problem["code"].as_i64(),
            Some(i64::from(status)),
            "{server}: {}",
            answer.describe()
        );
        assert!(
            problem["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{}",
            answer.describe()
        );
    } else if let Some(error) = json {
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{server}: {}",
            answer.describe()
        );
    } else {
        assert!(
            own_text && !answer.body.is_empty(),
            "{server}: no BasicError: {}",
            answer.describe()
        );
    }
}
