//! The style codec's round trip: arbitrary values of tests/fixtures/param-styles.yaml's parameter
//! types (a string, a list of strings, the `Color` object) sent by its generated client, in every
//! location x style x explode the fixture has, to its generated server over HTTP on 127.0.0.1,
//! whose stub answers what it decoded. Invariant: the server decodes exactly the values the
//! client encoded.
//!
//! Where a style cannot carry a value by its own definition, the value is left out of the domain
//! (each rule below says why); everything else must come back equal.
#![no_main]

use arbitrary::Arbitrary;
use asset_alerting_fuzz::runtime;
use asset_alerting_fuzz::servers::Echoes;
use libfuzzer_sys::fuzz_target;
use param_styles_client::Client;
use param_styles_client::codec::{Style, Value, write_path};
use param_styles_client::models::{Color, Received};
use std::sync::{Arc, OnceLock};

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Row {
    PathSimpleFlat,
    PathSimpleExplode,
    PathLabelFlat,
    PathLabelExplode,
    PathMatrixFlat,
    PathMatrixExplode,
    QueryFormFlat,
    QueryFormExplode,
    QuerySpaceDelimitedFlat,
    QueryPipeDelimitedFlat,
    QueryDeepObjectExplode,
    QueryReserved,
    QueryDeepArray,
    HeaderFlat,
    HeaderExplode,
    CookieFlat,
    CookieExplode,
}

#[derive(Arbitrary, Debug)]
struct Case {
    row: Row,
    prim: String,
    list: Vec<String>,
    /// `Color`'s properties are integers from 0 to 255.
    rgb: (u8, u8, u8),
}

/// The generated server on 127.0.0.1 (served by the fuzzer's runtime while it waits for an
/// answer) and a client pointed at it.
fn client() -> &'static Client {
    static CLIENT: OnceLock<Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        runtime().block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind 127.0.0.1:0");
            let address = listener.local_addr().expect("local address");
            let app = param_styles_server::router(Arc::new(Echoes));
            tokio::spawn(async move {
                param_styles_server::axum::serve(listener, app)
                    .await
                    .expect("server runs")
            });
            Client::new(format!("http://{address}")).expect("client")
        })
    })
}

/// Header values are text as it is (`simple`): a comma delimits, surrounding white space is not
/// part of a field value (RFC 9110), and a field value is visible ASCII.
fn header_text(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_graphic() || b == b' ') && !s.contains(',') && s.trim() == s
}

fuzz_target!(|case: Case| {
    let Case {
        row,
        prim,
        list,
        rgb,
    } = case;
    let obj = Color {
        r: i64::from(rgb.0),
        g: i64::from(rgb.1),
        b: i64::from(rgb.2),
    };
    use Row::*;
    // A list whose only item is empty is written as an empty list in every style but the
    // exploded query, cookie and deepObject forms (each item a pair of its own): the wire text of
    // `[]` and `[""]` is the same.
    let one_empty = list.len() == 1 && list[0].is_empty();
    let in_domain = match row {
        // A path segment cannot be empty (the route would not match), so neither can a simple
        // path's value nor its list.
        PathSimpleFlat | PathSimpleExplode => !prim.is_empty() && !list.is_empty() && !one_empty,
        PathLabelFlat | PathLabelExplode | PathMatrixFlat => !one_empty,
        // An exploded matrix list is `;list=a;list=b`: an empty item is `;list`, read as no item.
        PathMatrixExplode => !list.iter().any(String::is_empty),
        QueryFormFlat | CookieFlat => !one_empty,
        // A delimited style's delimiter is the encoding of a character, which an item cannot hold.
        QuerySpaceDelimitedFlat => !one_empty && !list.iter().any(|i| i.contains(' ')),
        QueryPipeDelimitedFlat => !one_empty && !list.iter().any(|i| i.contains('|')),
        // Absent and empty are one query for an exploded list.
        QueryFormExplode | QueryDeepArray | CookieExplode => !list.is_empty(),
        QueryReserved => !one_empty,
        QueryDeepObjectExplode => true,
        HeaderFlat | HeaderExplode => {
            header_text(&prim)
                && list.iter().all(|i| header_text(i))
                && !list.is_empty()
                && !one_empty
        }
    };
    // A path segment the client writes as `.` or `..` (a label value that is empty, a simple
    // value that is a dot, a label value `.` written `.%2E`) is a dot-segment, which URL parsing
    // removes (RFC 3986 5.2.4; the WHATWG URL standard reads `%2e` as a dot there), so the
    // request would go to another path: the client refuses it, whatever the other values.
    let dot_segment = |segment: &str| {
        let dots = segment.to_ascii_lowercase().replace("%2e", ".");
        dots == "." || dots == ".."
    };
    let path_style = match row {
        PathSimpleFlat | PathSimpleExplode => Some(Style::Simple),
        PathLabelFlat | PathLabelExplode => Some(Style::Label),
        _ => None,
    };
    let dotted = path_style.is_some_and(|style| {
        let explode = matches!(row, PathSimpleExplode | PathLabelExplode);
        [
            write_path(style, explode, "prim", &Value::Primitive(prim.clone())),
            write_path(style, explode, "list", &Value::Array(list.clone())),
        ]
        .iter()
        .any(|s| dot_segment(s))
    });
    if !in_domain && !dotted {
        return;
    }
    let client = client();
    let (p, l, o) = (prim.clone(), list.clone(), obj.clone());
    let got: Result<Received, String> = runtime().block_on(async move {
        macro_rules! send {
            ($request:expr) => {
                $request.await.map_err(|e| format!("{e:?}"))
            };
        }
        match row {
            PathSimpleFlat => send!(client.path_simple_flat(p, l, o)),
            PathSimpleExplode => send!(client.path_simple_explode(p, l, o)),
            PathLabelFlat => send!(client.path_label_flat(p, l, o)),
            PathLabelExplode => send!(client.path_label_explode(p, l, o)),
            PathMatrixFlat => send!(client.path_matrix_flat(p, l, o)),
            PathMatrixExplode => send!(client.path_matrix_explode(p, l, o)),
            QueryFormFlat => send!(client.query_form_flat().prim(p).list(l).obj(o)),
            QueryFormExplode => send!(client.query_form_explode().prim(p).list(l).obj(o)),
            QuerySpaceDelimitedFlat => send!(client.query_space_delimited_flat().list(l).obj(o)),
            QueryPipeDelimitedFlat => send!(client.query_pipe_delimited_flat().list(l).obj(o)),
            QueryDeepObjectExplode => send!(client.query_deep_object_explode(o)),
            QueryReserved => send!(client.query_reserved(p).list(l)),
            QueryDeepArray => send!(client.query_deep_array().list(l)),
            HeaderFlat => send!(client.header_flat().x_prim(p).x_list(l).x_obj(o)),
            HeaderExplode => send!(client.header_explode().x_prim(p).x_list(l).x_obj(o)),
            CookieFlat => send!(client.cookie_flat().prim(p).list(l).obj(o)),
            CookieExplode => send!(client.cookie_explode().prim(p).list(l).obj(o)),
        }
    });
    if dotted {
        match got {
            Err(e) if e.starts_with("InvalidPath") => return,
            other => panic!("{row:?}: a dot-segment path was not refused by the client: {other:?}"),
        }
    }
    let got =
        got.unwrap_or_else(|e| panic!("{row:?}: the server refused what the client sent: {e}"));
    let sends_prim = !matches!(
        row,
        QuerySpaceDelimitedFlat | QueryPipeDelimitedFlat | QueryDeepObjectExplode | QueryDeepArray
    );
    let sends_list = !matches!(row, QueryDeepObjectExplode);
    let sends_obj = !matches!(row, QueryReserved | QueryDeepArray);
    if sends_prim {
        assert_eq!(got.prim.as_deref(), Some(prim.as_str()), "{row:?}: prim");
    }
    if sends_list {
        assert_eq!(got.list.as_ref(), Some(&list), "{row:?}: list");
    }
    if sends_obj {
        assert_eq!(got.obj.as_ref(), Some(&obj), "{row:?}: obj");
    }
});
