//! The crates generated from tests/fixtures/param-styles.yaml (tests/generated/param-styles):
//! every parameter location x style x explode for a primitive, an array and an object.
//!
//! Three checks per construct, so client and server cannot agree on a wrong form:
//! - **client wire**: the generated client's request, caught by a recording server, is byte for
//!   byte the row of OpenAPI 3.1.1's "Style Examples" table (with `color` renamed to each parameter);
//! - **server wire**: that same text, sent raw, is what the generated server decodes;
//! - **round trip**: awkward values (delimiters, spaces, non-ASCII) survive client -> server.

use axum::extract::Request;
use axum::response::IntoResponse;
use param_styles_client::Client;
use param_styles_server::axum::http::StatusCode;
use param_styles_server::models::file::File;
use param_styles_server::models::{
    ChargeInput, ChargeInputShipping, ChargeInputShippingAddress, Color, Coordinates, Filter,
    FilterObject, FilterObjectRole, FormInput, Problem, QueryDeepNested200Response,
    QueryDeepNestedOuter, Received, Sort, Upload, UploadMeta, UploadSummary,
};
use param_styles_server::*;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

fn received(operation: &str) -> Received {
    Received {
        operation: operation.to_owned(),
        prim: None,
        list: None,
        obj: None,
        coords: None,
        free_form: None,
        limit: None,
    }
}

/// Answers every operation with the values it decoded (and keeps the last charge, whose operation
/// answers no body).
#[derive(Default)]
struct Echoes {
    charges: Mutex<Option<ChargeInput>>,
}

macro_rules! echo {
    ($($op:ident: $request:ident => $response:ident ($($field:ident),*) ;)*) => {
        $(
            async fn $op(&self, request: $request) -> $response {
                let mut r = received(stringify!($op));
                $(echo!(@set r, request, $field);)*
                $response::Ok(r)
            }
        )*
    };
    (@set $r:ident, $request:ident, prim) => { $r.prim = $request.prim.clone().into(); };
    (@set $r:ident, $request:ident, list) => { $r.list = $request.list.clone().into(); };
    (@set $r:ident, $request:ident, obj) => { $r.obj = $request.obj.clone().into(); };
    (@set $r:ident, $request:ident, x_prim) => { $r.prim = $request.x_prim.clone(); };
    (@set $r:ident, $request:ident, x_list) => { $r.list = $request.x_list.clone(); };
    (@set $r:ident, $request:ident, x_obj) => { $r.obj = $request.x_obj.clone(); };
}

impl ParamStylesApi for Echoes {
    fn rejection(&self, rejection: &Rejection) -> Problem {
        Problem {
            code: i64::from(rejection.status.as_u16()),
            message: rejection.message.clone(),
        }
    }

    echo! {
        path_simple_flat: PathSimpleFlatRequest => PathSimpleFlatResponse (prim, list, obj);
        path_simple_explode: PathSimpleExplodeRequest => PathSimpleExplodeResponse (prim, list, obj);
        path_label_flat: PathLabelFlatRequest => PathLabelFlatResponse (prim, list, obj);
        path_label_explode: PathLabelExplodeRequest => PathLabelExplodeResponse (prim, list, obj);
        path_matrix_flat: PathMatrixFlatRequest => PathMatrixFlatResponse (prim, list, obj);
        path_matrix_explode: PathMatrixExplodeRequest => PathMatrixExplodeResponse (prim, list, obj);
        query_form_flat: QueryFormFlatRequest => QueryFormFlatResponse (prim, list, obj);
        query_form_explode: QueryFormExplodeRequest => QueryFormExplodeResponse (prim, list, obj);
        query_space_delimited_flat: QuerySpaceDelimitedFlatRequest => QuerySpaceDelimitedFlatResponse (list, obj);
        query_pipe_delimited_flat: QueryPipeDelimitedFlatRequest => QueryPipeDelimitedFlatResponse (list, obj);
        query_deep_object_explode: QueryDeepObjectExplodeRequest => QueryDeepObjectExplodeResponse (obj);
        header_flat: HeaderFlatRequest => HeaderFlatResponse (x_prim, x_list, x_obj);
        header_explode: HeaderExplodeRequest => HeaderExplodeResponse (x_prim, x_list, x_obj);
        cookie_flat: CookieFlatRequest => CookieFlatResponse (prim, list, obj);
        cookie_explode: CookieExplodeRequest => CookieExplodeResponse (prim, list, obj);
        query_reserved: QueryReservedRequest => QueryReservedResponse (prim, list);
        query_deep_array: QueryDeepArrayRequest => QueryDeepArrayResponse (list);
    }

    async fn query_json(&self, request: QueryJsonRequest) -> QueryJsonResponse {
        let mut r = received("query_json");
        r.coords = Some(request.coords);
        QueryJsonResponse::Ok(r)
    }

    async fn post_form(&self, request: PostFormRequest) -> PostFormResponse {
        PostFormResponse::Ok(request.body)
    }

    async fn create(&self, _request: CreateRequest) -> CreateResponse {
        CreateResponse::Created {
            body: received("create"),
            location: "/things/7".into(),
            e_tag: Some("\"v1\"".into()),
            x_rate_limit_remaining: Some(41),
        }
    }

    async fn default_only(&self, _request: DefaultOnlyRequest) -> DefaultOnlyResponse {
        DefaultOnlyResponse::Default(StatusCode::OK, received("default_only"))
    }

    async fn page(&self, request: PageRequest) -> PageResponse {
        let _ = request;
        PageResponse::Ok("<p>hello</p>".into())
    }

    async fn upload(&self, request: UploadRequest) -> UploadResponse {
        let body = request.body;
        UploadResponse::Ok(UploadSummary {
            title: body.title,
            count: body.count,
            tags: body.tags,
            file_name: body.file.file_name.unwrap_or_default(),
            file_type: body.file.content_type.unwrap_or_default(),
            file_text: String::from_utf8_lossy(&body.file.bytes).into_owned(),
            attachment_sizes: body
                .attachments
                .map(|files| files.iter().map(|f| f.len() as i64).collect()),
            meta_source: body.meta.and_then(|m| m.source),
        })
    }

    async fn create_charge(&self, request: CreateChargeRequest) -> CreateChargeResponse {
        *self.charges.lock().unwrap() = Some(request.body);
        CreateChargeResponse::NoContent
    }

    async fn query_deep_nested(&self, request: QueryDeepNestedRequest) -> QueryDeepNestedResponse {
        let (page, sort) = request.outer.map_or((None, None), |o| (o.page, o.sort));
        QueryDeepNestedResponse::Ok(QueryDeepNested200Response {
            deep: request.deep,
            page,
            sort,
        })
    }

    async fn query_map(&self, request: QueryMapRequest) -> QueryMapResponse {
        let mut r = received("query_map");
        r.limit = request.limit;
        r.free_form = request.free_form;
        QueryMapResponse::Ok(r)
    }
}

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("server runs") });
    format!("http://{address}")
}

async fn echo_server() -> String {
    serve(param_styles_server::router(Arc::new(Echoes::default()))).await
}

/// What a request looked like on the wire.
#[derive(Debug, Clone, Default)]
struct Seen {
    target: String,
    headers: BTreeMap<String, String>,
    body: String,
}

/// A server that records each request's target and parameter headers, answering a valid
/// `Received` so the client is satisfied.
async fn recorder() -> (String, Arc<Mutex<Vec<Seen>>>) {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = seen.clone();
    let app = axum::Router::new().fallback(move |request: Request| {
        let log = log.clone();
        async move {
            let headers = request
                .headers()
                .iter()
                .filter(|(name, _)| {
                    name.as_str().starts_with("x-") || *name == "cookie" || *name == "content-type"
                })
                .map(|(name, value)| (name.to_string(), value.to_str().unwrap_or("").to_owned()))
                .collect::<BTreeMap<String, String>>();
            let target = request
                .uri()
                .path_and_query()
                .map(|pq| pq.as_str().to_owned())
                .unwrap_or_default();
            let form = target == "/form";
            let target_seen = target.clone();
            let body = axum::body::to_bytes(request.into_body(), 1 << 20)
                .await
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            log.lock().unwrap().push(Seen {
                target: target_seen,
                headers,
                body,
            });
            if target == "/charges" {
                return axum::http::StatusCode::NO_CONTENT.into_response();
            }
            let answer = match target.as_str() {
                _ if form => r#"{"name":"recorded","tags":[]}"#,
                "/upload" => r#"{"title":"","fileName":"","fileType":"","fileText":""}"#,
                _ => r#"{"operation":"recorded"}"#,
            };
            ([("content-type", "application/json")], answer).into_response()
        }
    });
    (serve(app).await, seen)
}

fn blue() -> String {
    "blue".to_owned()
}

fn colors() -> Vec<String> {
    vec!["blue".into(), "black".into(), "brown".into()]
}

fn rgb() -> Color {
    Color {
        r: 100,
        g: 200,
        b: 150,
    }
}

fn last(seen: &Mutex<Vec<Seen>>) -> Seen {
    seen.lock()
        .unwrap()
        .last()
        .cloned()
        .expect("a request was recorded")
}

/// The path rows of the table: (operation path prefix, expected segments for prim, list, obj).
const PATH_ROWS: &[(&str, &str)] = &[
    (
        "/path/simple/flat",
        "/blue/blue,black,brown/R,100,G,200,B,150",
    ),
    (
        "/path/simple/explode",
        "/blue/blue,black,brown/R=100,G=200,B=150",
    ),
    (
        "/path/label/flat",
        "/.blue/.blue,black,brown/.R,100,G,200,B,150",
    ),
    (
        "/path/label/explode",
        "/.blue/.blue.black.brown/.R=100.G=200.B=150",
    ),
    (
        "/path/matrix/flat",
        "/;prim=blue/;list=blue,black,brown/;obj=R,100,G,200,B,150",
    ),
    (
        "/path/matrix/explode",
        "/;prim=blue/;list=blue;list=black;list=brown/;R=100;G=200;B=150",
    ),
];

/// The query rows: (operation path, expected query).
const QUERY_ROWS: &[(&str, &str)] = &[
    (
        "/query/form/flat",
        "prim=blue&list=blue,black,brown&obj=R,100,G,200,B,150",
    ),
    (
        "/query/form/explode",
        "prim=blue&list=blue&list=black&list=brown&R=100&G=200&B=150",
    ),
    (
        "/query/spaceDelimited/flat",
        "list=blue%20black%20brown&obj=R%20100%20G%20200%20B%20150",
    ),
    (
        "/query/pipeDelimited/flat",
        "list=blue%7Cblack%7Cbrown&obj=R%7C100%7CG%7C200%7CB%7C150",
    ),
    (
        "/query/deepObject/explode",
        "obj%5BR%5D=100&obj%5BG%5D=200&obj%5BB%5D=150",
    ),
];

#[tokio::test]
async fn the_client_writes_path_parameters_as_the_table_shows() {
    let (base, seen) = recorder().await;
    let client = Client::new(base).expect("client");
    macro_rules! row {
        ($op:ident, $index:literal) => {{
            client.$op(blue(), colors(), rgb()).await.unwrap();
            let (path, segments) = PATH_ROWS[$index];
            assert_eq!(last(&seen).target, format!("{path}{segments}"));
        }};
    }
    row!(path_simple_flat, 0);
    row!(path_simple_explode, 1);
    row!(path_label_flat, 2);
    row!(path_label_explode, 3);
    row!(path_matrix_flat, 4);
    row!(path_matrix_explode, 5);
}

/// Found by the style round-trip fuzz target: a value that makes a whole segment `.` or `..`
/// would be resolved away by URL parsing, and the request would reach another path.
#[tokio::test]
async fn the_client_refuses_a_path_value_that_makes_a_dot_segment_and_sends_nothing() {
    let (base, seen) = recorder().await;
    let client = Client::new(base).expect("client");
    // The refused path, or what came instead.
    fn refused<T: std::fmt::Debug, E: std::fmt::Debug>(
        outcome: Result<T, param_styles_client::Error<E>>,
    ) -> String {
        match outcome {
            Err(param_styles_client::Error::InvalidPath { path }) => path,
            other => panic!("expected InvalidPath, got {other:?}"),
        }
    }
    let dotted = [
        // simple: the value itself is the segment.
        (
            refused(client.path_simple_flat("..", colors(), rgb()).await),
            "/../",
        ),
        (
            refused(client.path_simple_explode(".", colors(), rgb()).await),
            "/./",
        ),
        // label: an empty value is written `.`; a value `.` is written `.%2E`, read as `..`.
        (
            refused(client.path_label_flat(String::new(), colors(), rgb()).await),
            "/./",
        ),
        (
            refused(client.path_label_explode(".", colors(), rgb()).await),
            "/.%2E/",
        ),
    ];
    for (path, segment) in dotted {
        assert!(path.contains(segment), "{path} lacks {segment}");
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "a refused request reached the server"
    );
    // Dots inside a segment are ordinary text.
    client
        .path_simple_flat("...", colors(), rgb())
        .await
        .expect("`...` is not a dot-segment");
    client
        .path_simple_flat("a.b", colors(), rgb())
        .await
        .expect("`a.b` is not a dot-segment");
}

#[tokio::test]
async fn the_client_writes_query_parameters_as_the_table_shows() {
    let (base, seen) = recorder().await;
    let client = Client::new(base).expect("client");
    let expect = |row: (&str, &str)| format!("{}?{}", row.0, row.1);
    client
        .query_form_flat()
        .prim(blue())
        .list(colors())
        .obj(rgb())
        .await
        .unwrap();
    assert_eq!(last(&seen).target, expect(QUERY_ROWS[0]));
    client
        .query_form_explode()
        .prim(blue())
        .list(colors())
        .obj(rgb())
        .await
        .unwrap();
    assert_eq!(last(&seen).target, expect(QUERY_ROWS[1]));
    client
        .query_space_delimited_flat()
        .list(colors())
        .obj(rgb())
        .await
        .unwrap();
    assert_eq!(last(&seen).target, expect(QUERY_ROWS[2]));
    client
        .query_pipe_delimited_flat()
        .list(colors())
        .obj(rgb())
        .await
        .unwrap();
    assert_eq!(last(&seen).target, expect(QUERY_ROWS[3]));
    client.query_deep_object_explode(rgb()).await.unwrap();
    assert_eq!(last(&seen).target, expect(QUERY_ROWS[4]));
    // Unset optional parameters leave no trace; `form` of an empty string is `name=`.
    client.query_form_flat().prim("").await.unwrap();
    assert_eq!(last(&seen).target, "/query/form/flat?prim=");
    client.query_form_explode().await.unwrap();
    assert_eq!(last(&seen).target, "/query/form/explode");
}

#[tokio::test]
async fn the_client_writes_headers_and_cookies_as_simple_and_form() {
    let (base, seen) = recorder().await;
    let client = Client::new(base).expect("client");
    client
        .header_flat()
        .x_prim(blue())
        .x_list(colors())
        .x_obj(rgb())
        .await
        .unwrap();
    let headers = last(&seen).headers;
    assert_eq!(headers["x-prim"], "blue");
    assert_eq!(headers["x-list"], "blue,black,brown");
    assert_eq!(headers["x-obj"], "R,100,G,200,B,150");
    client.header_explode().x_obj(rgb()).await.unwrap();
    assert_eq!(last(&seen).headers["x-obj"], "R=100,G=200,B=150");

    client
        .cookie_flat()
        .prim(blue())
        .list(colors())
        .obj(rgb())
        .await
        .unwrap();
    assert_eq!(
        last(&seen).headers["cookie"],
        "prim=blue; list=blue,black,brown; obj=R,100,G,200,B,150"
    );
    client
        .cookie_explode()
        .prim(blue())
        .list(colors())
        .obj(rgb())
        .await
        .unwrap();
    assert_eq!(
        last(&seen).headers["cookie"],
        "prim=blue; list=blue; list=black; list=brown; R=100; G=200; B=150"
    );
}

#[tokio::test]
async fn the_client_keeps_reserved_characters_only_where_allowed_and_sends_json_text() {
    let (base, seen) = recorder().await;
    let client = Client::new(base).expect("client");
    client
        .query_reserved("a/b:c?d@e")
        .list(vec!["x/y".into(), "z".into()])
        .await
        .unwrap();
    assert_eq!(
        last(&seen).target,
        "/query/reserved?prim=a/b:c?d@e&list=x/y,z"
    );
    // Without allowReserved the same characters are encoded (the form query of another operation).
    client.query_form_flat().prim("a/b:c").await.unwrap();
    assert_eq!(last(&seen).target, "/query/form/flat?prim=a%2Fb%3Ac");
    client
        .query_json(Coordinates {
            lat: 1.5,
            long: -2.25,
        })
        .await
        .unwrap();
    assert_eq!(
        last(&seen).target,
        "/query/json?coords=%7B%22lat%22%3A1.5%2C%22long%22%3A-2.25%7D"
    );
    let mut free = BTreeMap::new();
    free.insert("a".to_owned(), 1);
    free.insert("b".to_owned(), 2);
    client.query_map().limit(3).free_form(free).await.unwrap();
    assert_eq!(last(&seen).target, "/query/map?limit=3&a=1&b=2");
}

async fn get(url: &str, headers: &[(&str, &str)]) -> (u16, serde_json::Value) {
    let mut request = reqwest::Client::new().get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

fn decoded(prim: bool, list: bool, obj: bool) -> serde_json::Value {
    let mut value = serde_json::Map::new();
    if prim {
        value.insert("prim".into(), "blue".into());
    }
    if list {
        value.insert("list".into(), serde_json::json!(["blue", "black", "brown"]));
    }
    if obj {
        value.insert(
            "obj".into(),
            serde_json::json!({"R": 100, "G": 200, "B": 150}),
        );
    }
    serde_json::Value::Object(value)
}

fn without_operation(mut body: serde_json::Value) -> serde_json::Value {
    body.as_object_mut().unwrap().remove("operation");
    body
}

#[tokio::test]
async fn the_server_reads_the_table_rows_sent_by_hand() {
    let base = echo_server().await;
    for (path, segments) in PATH_ROWS {
        let (status, body) = get(&format!("{base}{path}{segments}"), &[]).await;
        assert_eq!(status, 200, "{path}{segments}: {body}");
        assert_eq!(without_operation(body), decoded(true, true, true), "{path}");
    }
    for (path, query) in QUERY_ROWS {
        let (status, body) = get(&format!("{base}{path}?{query}"), &[]).await;
        assert_eq!(status, 200, "{path}?{query}: {body}");
        let prim = path.starts_with("/query/form");
        let list = !path.contains("deepObject");
        assert_eq!(without_operation(body), decoded(prim, list, true), "{path}");
    }
    // What other clients also send: `+` for a space, a literal `|`, `,` encoded in a form list.
    let (_, body) = get(&format!("{base}/query/pipeDelimited/flat?list=a+b|c"), &[]).await;
    assert_eq!(body["list"], serde_json::json!(["a b", "c"]));
    let (_, body) = get(&format!("{base}/query/spaceDelimited/flat?list=a+b"), &[]).await;
    assert_eq!(body["list"], serde_json::json!(["a", "b"]));
    let (_, body) = get(&format!("{base}/query/form/flat?list=a%2Cb,c"), &[]).await;
    assert_eq!(body["list"], serde_json::json!(["a,b", "c"]));

    let header_rows = [
        ("/header/flat", "R,100,G,200,B,150"),
        ("/header/explode", "R=100,G=200,B=150"),
    ];
    for (path, obj) in header_rows {
        let headers = [
            ("x-prim", "blue"),
            ("x-list", "blue,black,brown"),
            ("x-obj", obj),
        ];
        let (status, body) = get(&format!("{base}{path}"), &headers).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(without_operation(body), decoded(true, true, true), "{path}");
    }
    let cookie_rows = [
        (
            "/cookie/flat",
            "prim=blue; list=blue,black,brown; obj=R,100,G,200,B,150",
        ),
        (
            "/cookie/explode",
            "prim=blue; list=blue; list=black; list=brown; R=100; G=200; B=150",
        ),
    ];
    for (path, cookie) in cookie_rows {
        let (status, body) = get(&format!("{base}{path}"), &[("cookie", cookie)]).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(without_operation(body), decoded(true, true, true), "{path}");
    }
    let (status, body) = get(
        &format!("{base}/query/json?coords=%7B%22lat%22%3A1.5%2C%22long%22%3A-2.25%7D"),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["coords"],
        serde_json::json!({"lat": 1.5, "long": -2.25})
    );
    let (status, body) = get(&format!("{base}/query/map?limit=3&a=1&b=2"), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["freeForm"], serde_json::json!({"a": 1, "b": 2}));
    assert_eq!(body["limit"], 3);
}

#[tokio::test]
async fn the_server_refuses_what_a_style_does_not_allow_with_the_error_body() {
    let base = echo_server().await;
    let refused = [
        // A required deepObject that is missing.
        "/query/deepObject/explode",
        // A property that is not an integer, one out of its bounds, one missing.
        "/query/deepObject/explode?obj%5BR%5D=x&obj%5BG%5D=2&obj%5BB%5D=3",
        "/query/deepObject/explode?obj%5BR%5D=256&obj%5BG%5D=2&obj%5BB%5D=3",
        "/query/deepObject/explode?obj%5BR%5D=1&obj%5BG%5D=2",
        // An unknown property of a closed object.
        "/query/form/flat?obj=R,1,G,2,B,3,A,4",
        // Names without values.
        "/query/form/flat?obj=R,1,G",
        // Label text without its dot, matrix text naming another parameter.
        "/path/label/flat/blue/.a/.R,1,G,2,B,3",
        "/path/matrix/flat/;other=blue/;list=a/;obj=R,1,G,2,B,3",
        // JSON that is not the schema's.
        "/query/json?coords=%7B%22lat%22%3A1%7D",
        "/query/json?coords=notjson",
        // A free-form value that is not an integer.
        "/query/map?a=x",
    ];
    for target in refused {
        let (status, body) = get(&format!("{base}{target}"), &[]).await;
        assert_eq!(status, 400, "{target}: {body}");
        assert_eq!(body["code"], 400, "{target}: {body}");
        assert!(
            body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{target}: {body}"
        );
    }
    let (status, body) = get(&format!("{base}/header/flat"), &[("x-obj", "R,1,G")]).await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test]
async fn awkward_values_survive_the_round_trip_in_every_style() {
    let client = Client::new(echo_server().await).expect("client");
    let prim = "a,b;c=d.e f|g&h/ü%".to_owned();
    let list: Vec<String> = vec!["x,y".into(), "p.q".into(), "r;s=t".into(), "u v|w".into()];
    let obj = Color { r: 0, g: 255, b: 7 };
    macro_rules! path_case {
        ($op:ident) => {{
            let got = client
                .$op(prim.clone(), list.clone(), obj.clone())
                .await
                .unwrap();
            assert_eq!(got.prim.as_deref(), Some(prim.as_str()), stringify!($op));
            assert_eq!(got.list.as_ref(), Some(&list), stringify!($op));
            assert_eq!(got.obj.as_ref(), Some(&obj), stringify!($op));
        }};
    }
    path_case!(path_simple_flat);
    path_case!(path_simple_explode);
    path_case!(path_label_flat);
    path_case!(path_label_explode);
    path_case!(path_matrix_flat);
    path_case!(path_matrix_explode);

    let got = client
        .query_form_flat()
        .prim(prim.clone())
        .list(list.clone())
        .obj(obj.clone())
        .await
        .unwrap();
    assert_eq!(
        (got.prim, got.list, got.obj),
        (Some(prim.clone()), Some(list.clone()), Some(obj.clone()))
    );
    let got = client
        .query_form_explode()
        .prim(prim.clone())
        .list(list.clone())
        .obj(obj.clone())
        .await
        .unwrap();
    assert_eq!(
        (got.prim, got.list, got.obj),
        (Some(prim.clone()), Some(list.clone()), Some(obj.clone()))
    );
    // The delimited styles' delimiter is the encoding of a character (`%20`, `%7C`): an item cannot
    // hold that character, by the style's own definition.
    let list: Vec<String> = list.iter().map(|i| i.replace([' ', '|'], "_")).collect();
    let got = client
        .query_space_delimited_flat()
        .list(list.clone())
        .obj(obj.clone())
        .await
        .unwrap();
    assert_eq!((got.list, got.obj), (Some(list.clone()), Some(obj.clone())));
    let got = client
        .query_pipe_delimited_flat()
        .list(list.clone())
        .obj(obj.clone())
        .await
        .unwrap();
    assert_eq!((got.list, got.obj), (Some(list.clone()), Some(obj.clone())));
    let got = client.query_deep_object_explode(obj.clone()).await.unwrap();
    assert_eq!(got.obj, Some(obj.clone()));

    // Headers carry text as it is: values without the delimiter.
    let plain: Vec<String> = vec!["x y".into(), "p.q".into()];
    let got = client
        .header_explode()
        .x_prim("a b;c")
        .x_list(plain.clone())
        .x_obj(obj.clone())
        .await
        .unwrap();
    assert_eq!(
        (got.prim, got.list, got.obj),
        (Some("a b;c".to_owned()), Some(plain), Some(obj.clone()))
    );
    for explode in [false, true] {
        let got = if explode {
            client
                .cookie_explode()
                .prim(prim.clone())
                .list(list.clone())
                .obj(obj.clone())
                .send()
                .await
                .unwrap()
        } else {
            client
                .cookie_flat()
                .prim(prim.clone())
                .list(list.clone())
                .obj(obj.clone())
                .send()
                .await
                .unwrap()
        };
        assert_eq!(
            (got.prim, got.list, got.obj),
            (Some(prim.clone()), Some(list.clone()), Some(obj.clone())),
            "explode {explode}"
        );
    }
    let got = client
        .query_reserved("a/b:c?d")
        .list(vec!["x/y".into(), "z".into()])
        .await
        .unwrap();
    assert_eq!(got.prim.as_deref(), Some("a/b:c?d"));
    assert_eq!(got.list, Some(vec!["x/y".to_owned(), "z".to_owned()]));
    let coords = Coordinates {
        lat: -33.9,
        long: 18.4,
    };
    assert_eq!(
        client.query_json(coords.clone()).await.unwrap().coords,
        Some(coords)
    );
}

#[tokio::test]
async fn form_bodies_repeat_the_name_of_an_array_property() {
    let (base, seen) = recorder().await;
    let client = Client::new(base).expect("client");
    let form = FormInput {
        name: "a b&c".into(),
        tags: vec!["x".into(), "y,z".into()],
        counts: Some(vec![1, 2]),
        note: None,
    };
    client.post_form(form.clone()).await.unwrap();
    let request = last(&seen);
    assert_eq!(
        request.headers["content-type"],
        "application/x-www-form-urlencoded"
    );
    assert_eq!(
        request.body,
        "name=a%20b%26c&tags=x&tags=y%2Cz&counts=1&counts=2"
    );

    let client = Client::new(echo_server().await).expect("client");
    assert_eq!(client.post_form(form.clone()).await.unwrap(), form);
    // One item is still a list; what browsers send (`+` for a space) is read too.
    let one = FormInput {
        tags: vec!["only".into()],
        counts: None,
        ..form
    };
    assert_eq!(client.post_form(one.clone()).await.unwrap(), one);
    // An empty list has no pairs on the wire; the required list reads back empty.
    let none = FormInput {
        tags: Vec::new(),
        ..one.clone()
    };
    assert_eq!(client.post_form(none.clone()).await.unwrap(), none);
    let response = reqwest::Client::new()
        .post(format!("{}/form", client.base_url()))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=a+b&tags=p&tags=q&counts=3&note=hi")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let got: FormInput = response.json().await.unwrap();
    assert_eq!(
        got,
        FormInput {
            name: "a b".into(),
            tags: vec!["p".into(), "q".into()],
            counts: Some(vec![3]),
            note: Some("hi".into()),
        }
    );
    // An item that is not an integer is the spec's 400.
    let response = reqwest::Client::new()
        .post(format!("{}/form", client.base_url()))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=a&tags=p&counts=x")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

#[tokio::test]
async fn success_headers_default_only_bodies_and_text_media_types_reach_the_caller() {
    let client = Client::new(echo_server().await).expect("client");
    // `send_full`: the status, every header, the documented ones typed, and the body.
    let created = client.create().send_full().await.unwrap();
    assert_eq!(created.status, 201);
    assert_eq!(created.documented.location.as_deref(), Some("/things/7"));
    assert_eq!(created.documented.e_tag.as_deref(), Some("\"v1\""));
    assert_eq!(created.documented.x_rate_limit_remaining, Some(41));
    assert_eq!(created.headers["x-rate-limit-remaining"], "41");
    assert_eq!(created.operation, "create", "the value derefs to the body");
    // `.await` still answers the body alone.
    assert_eq!(client.create().await.unwrap().operation, "create");

    // An operation that documents only `default` describes its success with it: the body is kept.
    assert_eq!(
        client.default_only().await.unwrap().operation,
        "default_only"
    );

    // A `text/html` answer is served as `text/html`, not `text/plain`.
    let response = reqwest::get(format!("{}/page", client.base_url()))
        .await
        .unwrap();
    assert_eq!(
        response.headers()["content-type"],
        "text/html; charset=utf-8"
    );
    assert_eq!(client.page().await.unwrap(), "<p>hello</p>");
}

#[tokio::test]
async fn multipart_bodies_travel_as_typed_parts_with_file_names_and_types() {
    let upload = Upload {
        title: "report".into(),
        count: Some(3),
        tags: Some(vec!["a".into(), "b c".into()]),
        file: File::new(b"hello, file".to_vec())
            .with_name("notes.txt")
            .with_content_type("text/plain"),
        attachments: Some(vec![
            File::new(vec![0u8, 159, 146, 150]),
            File::new(vec![1u8; 70_000]),
        ]),
        meta: Some(UploadMeta {
            source: Some("scanner".into()),
        }),
    };

    // On the wire: one part per property, one per list item, files named and typed, JSON typed.
    let (base, seen) = recorder().await;
    Client::new(base)
        .unwrap()
        .upload(upload.clone())
        .await
        .unwrap();
    let request = last(&seen);
    assert!(request.headers["content-type"].starts_with("multipart/form-data; boundary="));
    let body = &request.body;
    for expected in [
        "Content-Disposition: form-data; name=\"title\"\r\n\r\nreport\r\n",
        "Content-Disposition: form-data; name=\"count\"\r\n\r\n3\r\n",
        "Content-Disposition: form-data; name=\"tags\"\r\n\r\nb c\r\n",
        "Content-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nhello, file\r\n",
        "Content-Disposition: form-data; name=\"attachments\"; filename=\"attachments\"\r\nContent-Type: application/octet-stream\r\n",
        "Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"source\":\"scanner\"}\r\n",
    ] {
        assert!(body.contains(expected), "{expected:?} not in {body:?}");
    }
    assert_eq!(body.matches("form-data; name=\"attachments\"").count(), 2);

    // Client to server: every part back in its field.
    let client = Client::new(echo_server().await).unwrap();
    let summary = client.upload(upload.clone()).await.unwrap();
    assert_eq!(
        summary,
        UploadSummary {
            title: "report".into(),
            count: Some(3),
            tags: Some(vec!["a".into(), "b c".into()]),
            file_name: "notes.txt".into(),
            file_type: "text/plain".into(),
            file_text: "hello, file".into(),
            attachment_sizes: Some(vec![4, 70_000]),
            meta_source: Some("scanner".into()),
        }
    );
    // Optional properties left out stay out.
    let bare = Upload {
        count: None,
        tags: None,
        attachments: None,
        meta: None,
        ..upload.clone()
    };
    let summary = client.upload(bare).await.unwrap();
    assert_eq!(
        (
            summary.count,
            summary.tags,
            summary.attachment_sizes,
            summary.meta_source
        ),
        (None, None, None, None)
    );

    // What the server refuses, with the spec's 400: a missing required part, a number that is
    // not one, a title below its minLength, a JSON part that is not JSON.
    let url = format!("{}/upload", client.base_url());
    let send = |form: reqwest::multipart::Form| {
        let url = url.clone();
        async move {
            reqwest::Client::new()
                .post(url)
                .multipart(form)
                .send()
                .await
                .unwrap()
        }
    };
    let file = || reqwest::multipart::Part::bytes(b"x".to_vec()).file_name("x");
    let refused = [
        reqwest::multipart::Form::new().text("title", "t"),
        reqwest::multipart::Form::new()
            .text("title", "t")
            .text("count", "many")
            .part("file", file()),
        reqwest::multipart::Form::new()
            .text("title", "")
            .part("file", file()),
        reqwest::multipart::Form::new()
            .text("title", "t")
            .text("meta", "{oops")
            .part("file", file()),
    ];
    for form in refused {
        let response = send(form).await;
        assert_eq!(response.status(), 400);
        let problem: Problem = response.json().await.unwrap();
        assert_eq!(problem.code, 400, "{}", problem.message);
    }
}

#[tokio::test]
async fn form_properties_encoded_as_deep_objects_travel_by_key_and_index() {
    let (base, seen) = recorder().await;
    let client = Client::new(base).unwrap();
    let mut metadata = BTreeMap::new();
    metadata.insert("order".to_owned(), "6735".to_owned());
    let charge = ChargeInput {
        amount: 2000,
        metadata: Some(metadata),
        expand: Some(vec!["customer".into(), "invoice".into()]),
        shipping: Some(ChargeInputShipping {
            name: Some("Jenny Rosen".into()),
            address: Some(ChargeInputShippingAddress {
                city: Some("Berlin".into()),
                lines: Some(vec!["a".into(), "b".into()]),
            }),
        }),
    };
    client.create_charge(charge.clone()).await.unwrap();
    let request = last(&seen);
    assert_eq!(
        request.body,
        "amount=2000\
         &metadata%5Border%5D=6735\
         &expand%5B0%5D=customer&expand%5B1%5D=invoice\
         &shipping%5Bname%5D=Jenny%20Rosen\
         &shipping%5Baddress%5D%5Bcity%5D=Berlin\
         &shipping%5Baddress%5D%5Blines%5D%5B0%5D=a&shipping%5Baddress%5D%5Blines%5D%5B1%5D=b"
    );

    // The generated server reads it back, numbers included; so it does what qs and Stripe send.
    let echoes = Arc::new(Echoes::default());
    let base = serve(param_styles_server::router(echoes.clone())).await;
    Client::new(base.clone())
        .unwrap()
        .create_charge(charge.clone())
        .await
        .unwrap();
    assert_eq!(echoes.charges.lock().unwrap().clone(), Some(charge));
    let response = reqwest::Client::new()
        .post(format!("{base}/charges"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("amount=5&expand[]=customer&expand[]=invoice&metadata[a]=1&shipping[address][lines][1]=y&shipping[address][lines][0]=x")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    let got = echoes.charges.lock().unwrap().clone().unwrap();
    assert_eq!(got.amount, 5);
    assert_eq!(
        got.expand,
        Some(vec!["customer".to_owned(), "invoice".to_owned()])
    );
    assert_eq!(got.metadata.unwrap()["a"], "1");
    assert_eq!(
        got.shipping.unwrap().address.unwrap().lines,
        Some(vec!["x".to_owned(), "y".to_owned()])
    );
    // A number that is not one is the spec's 400.
    let response = reqwest::Client::new()
        .post(format!("{base}/charges"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("amount=lots")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

#[tokio::test]
async fn arrays_in_deep_object_style_go_by_index() {
    let (base, seen) = recorder().await;
    Client::new(base)
        .unwrap()
        .query_deep_array()
        .list(colors())
        .await
        .unwrap();
    assert_eq!(
        last(&seen).target,
        "/query/deepArray?list%5B0%5D=blue&list%5B1%5D=black&list%5B2%5D=brown"
    );
    let base = echo_server().await;
    let client = Client::new(base.clone()).unwrap();
    assert_eq!(
        client.query_deep_array().list(colors()).await.unwrap().list,
        Some(colors())
    );
    // Indexes out of order, and the `name[]` form, read as well.
    let (_, body) = get(&format!("{base}/query/deepArray?list[1]=b&list[0]=a"), &[]).await;
    assert_eq!(body["list"], serde_json::json!(["a", "b"]));
    let (_, body) = get(&format!("{base}/query/deepArray?list[]=a&list[]=b"), &[]).await;
    assert_eq!(body["list"], serde_json::json!(["a", "b"]));
}

fn filter() -> Filter {
    Filter {
        object: FilterObject {
            role: FilterObjectRole::Admin,
            first_name: Some("Alex Doe".to_owned()),
        },
        id: 12,
        tags: Some(vec!["a,b".to_owned(), "c".to_owned()]),
    }
}

#[tokio::test]
async fn nested_deep_objects_go_out_in_brackets_and_read_back() {
    // On the wire: brackets in brackets, as qs, Rails and Stripe write them; a form object's
    // nested value is its JSON text (form defines no nesting).
    let (base, seen) = recorder().await;
    let client = Client::new(base).expect("client");
    // The recorder answers another body: only the request matters here.
    let _ = client
        .query_deep_nested(filter())
        .outer(QueryDeepNestedOuter {
            page: Some(2),
            sort: Some(Sort {
                by: "name".to_owned(),
                descending: None,
            }),
        })
        .await;
    assert_eq!(
        last(&seen).target,
        "/query/deepObject/nested?deep%5BObject%5D%5Brole%5D=admin\
         &deep%5BObject%5D%5BfirstName%5D=Alex%20Doe&deep%5BId%5D=12\
         &deep%5Btags%5D%5B0%5D=a%2Cb&deep%5Btags%5D%5B1%5D=c\
         &page=2&sort=%7B%22by%22%3A%22name%22%7D"
    );

    // Client to server and back.
    let base = echo_server().await;
    let client = Client::new(base.clone()).unwrap();
    let sort = Sort {
        by: "name".to_owned(),
        descending: Some(true),
    };
    let got = client
        .query_deep_nested(filter())
        .outer(QueryDeepNestedOuter {
            page: None,
            sort: Some(sort.clone()),
        })
        .await
        .unwrap();
    assert_eq!(got.deep, filter());
    assert_eq!(got.sort, Some(sort));

    // The standard nested form, written by hand; numbers arrive as text.
    let url = format!("{base}/query/deepObject/nested");
    let (status, body) = get(&format!("{url}?deep[Object][role]=user&deep[Id]=7"), &[]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["deep"],
        serde_json::json!({"Object": {"role": "user"}, "Id": 7})
    );
    // The inner object as JSON text (what clients without nesting send) reads as well.
    let (status, body) = get(
        &format!("{url}?deep%5BObject%5D=%7B%22role%22%3A%22admin%22%7D&deep%5BId%5D=3"),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["deep"]["Object"], serde_json::json!({"role": "admin"}));

    // An array given as a repeated name (as qs and schemathesis write it) reads as well.
    let (status, body) = get(
        &format!("{url}?deep[Object][role]=user&deep[Id]=7&deep[tags]=a&deep[tags]=b"),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["deep"]["tags"], serde_json::json!(["a", "b"]));
    let (status, body) = get(
        &format!("{url}?deep[Object][role]=user&deep[Id]=7&deep[tags]="),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["deep"]["tags"], serde_json::json!([""]));

    // A required parameter missing, or missing a required property, or breaking a constraint.
    for (query, problem) in [
        ("", "is required"),
        ("?other=1", "is required"),
        ("?deep[Id]=7", "Object"),
        ("?deep[Object][role]=root&deep[Id]=7", "role"),
        ("?deep[Object][role]=user&deep[Id]=0", "Id"),
        ("?deep[Object][role=user&deep[Id]=1", "deep[property]"),
    ] {
        let (status, body) = get(&format!("{url}{query}"), &[]).await;
        assert_eq!(status, 400, "{query}: {body}");
        let message = body["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("`deep`") && message.contains(problem),
            "{query}: {message}"
        );
    }
}
