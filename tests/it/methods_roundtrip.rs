//! OpenAPI 3.2's request forms (tests/fixtures/methods-3.2.yaml, crates checked in under
//! tests/generated/methods-3.2) between the generated client and server over real HTTP on
//! 127.0.0.1: the `query` method with a body, custom methods from `additionalOperations` (beside
//! fixed ones, and alone on a path), and `in: querystring` (the whole query string as one typed
//! value). Methods a path does not accept are 405, with the API's error body.

use methods_client::Client;
use methods_server::models::{Book, CopyArchiveRange, ListBooksFilter, Problem, Search};
use methods_server::*;
use std::sync::{Arc, Mutex};

/// A shelf of two books that records the `Link` headers it is given.
#[derive(Default)]
struct Shelf {
    links: Mutex<Vec<(i64, String)>>,
}

fn books() -> Vec<Book> {
    vec![
        Book {
            id: 1,
            title: "Dune".to_owned(),
            author: "Frank Herbert".to_owned(),
            year: 1965,
        },
        Book {
            id: 2,
            title: "Solaris".to_owned(),
            author: "Stanisław Lem".to_owned(),
            year: 1961,
        },
    ]
}

impl ShelfApi for Shelf {
    fn rejection(&self, rejection: &Rejection) -> Problem {
        Problem {
            message: rejection.message.clone(),
        }
    }

    async fn list_books(&self, request: ListBooksRequest) -> ListBooksResponse {
        let filter = request.filter.unwrap_or(ListBooksFilter {
            author: None,
            year: None,
        });
        let found = books()
            .into_iter()
            .filter(|b| filter.author.as_ref().is_none_or(|a| b.author == *a))
            .filter(|b| filter.year.is_none_or(|y| b.year == y))
            .collect();
        ListBooksResponse::Ok(found)
    }

    async fn search_books(&self, request: SearchBooksRequest) -> SearchBooksResponse {
        let text = request.body.text.to_lowercase();
        let found = books()
            .into_iter()
            .filter(|b| b.title.to_lowercase().contains(&text))
            .collect();
        SearchBooksResponse::Ok(found)
    }

    async fn get_book(&self, request: GetBookRequest) -> GetBookResponse {
        match books().into_iter().find(|b| b.id == request.id) {
            Some(book) => GetBookResponse::Ok(book),
            None => GetBookResponse::Other(
                axum::http::StatusCode::NOT_FOUND,
                Problem {
                    message: "no such book".to_owned(),
                },
            ),
        }
    }

    async fn link_book(&self, request: LinkBookRequest) -> LinkBookResponse {
        self.links.lock().unwrap().push((request.id, request.link));
        LinkBookResponse::NoContent
    }

    async fn purge_book(&self, _request: PurgeBookRequest) -> PurgeBookResponse {
        PurgeBookResponse::Accepted
    }

    async fn copy_archive(&self, request: CopyArchiveRequest) -> CopyArchiveResponse {
        let copied = request
            .range
            .map_or(0, |r| r.to.unwrap_or(r.from) - r.from + 1);
        CopyArchiveResponse::Ok(models::CopyArchiveResponse { copied })
    }
}

async fn serve(shelf: Arc<Shelf>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        axum::serve(listener, methods_server::router(shelf))
            .await
            .expect("server runs")
    });
    format!("http://{address}")
}

#[tokio::test]
async fn query_and_custom_methods_round_trip() {
    let shelf = Arc::new(Shelf::default());
    let base = serve(shelf.clone()).await;
    let client = Client::new(base).unwrap();

    // QUERY: a safe method with a body, beside GET on the same path.
    let found = client
        .search_books(Search {
            text: "sol".to_owned(),
        })
        .await
        .unwrap();
    assert_eq!(found, [books()[1].clone()]);
    let refused = client
        .search_books(Search {
            text: String::new(),
        })
        .await
        .expect_err("the body is validated");
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(400));

    // Custom methods beside GET, with a header and path parameters.
    assert_eq!(client.get_book(2).await.unwrap().title, "Solaris");
    client
        .link_book(1, "<https://example.com/dune>; rel=related")
        .await
        .unwrap();
    client.purge_book(1).await.unwrap();
    assert_eq!(
        *shelf.links.lock().unwrap(),
        [(1, "<https://example.com/dune>; rel=related".to_owned())]
    );
    let refused = client
        .link_book(0, "<x>")
        .await
        .expect_err("the path parameter is validated");
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(400));

    // A path with custom methods only.
    let copied = client
        .copy_archive()
        .range(CopyArchiveRange {
            from: 3,
            to: Some(7),
        })
        .await
        .unwrap();
    assert_eq!(copied.copied, 5);
}

#[tokio::test]
async fn the_query_string_is_one_typed_value() {
    let base = serve(Arc::default()).await;
    let client = Client::new(base.clone()).unwrap();
    let all = client.list_books().await.unwrap();
    assert_eq!(all, books());
    let filtered = client
        .list_books()
        .filter(ListBooksFilter {
            author: Some("Stanisław Lem".to_owned()),
            year: Some(1961),
        })
        .await
        .unwrap();
    assert_eq!(filtered, [books()[1].clone()]);

    // On the wire: the object's properties are the query string's pairs.
    let http = reqwest::Client::new();
    let answer = http
        .get(format!("{base}/books?author=Frank%20Herbert"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let found: Vec<Book> = answer.json().await.unwrap();
    assert_eq!(found, [books()[0].clone()]);
    // A property is validated as the schema says.
    let answer = http
        .get(format!("{base}/books?year=1200"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);
}

#[tokio::test]
async fn methods_a_path_does_not_accept_are_405() {
    let base = serve(Arc::default()).await;
    let http = reqwest::Client::new();
    for (method, path) in [
        ("LINK", "/books"),
        ("PATCH", "/books"),
        ("QUERY", "/books/1"),
        ("QUERY", "/archive"),
        ("GET", "/archive"),
    ] {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let answer = http
            .request(method.clone(), format!("{base}{path}"))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 405, "{method} {path}");
        let problem: Problem = answer.json().await.expect("the API's error body");
        assert!(problem.message.contains("does not accept"), "{problem:?}");
    }
}

#[test]
fn a_tag_the_mapping_does_not_name_decodes_as_the_default() {
    use methods_server::models::{Holding, Other, Paper};
    use serde_json::json;
    let paper: Holding = serde_json::from_value(json!({"kind": "paper", "pages": 3})).unwrap();
    assert_eq!(
        paper,
        Holding::Paper(Paper {
            kind: "paper".to_owned(),
            pages: 3
        })
    );
    for other in [
        json!({"kind": "video", "note": "VHS"}),
        json!({"note": "no kind"}),
    ] {
        let decoded: Holding = serde_json::from_value(other.clone()).unwrap();
        assert!(matches!(decoded, Holding::Other(_)), "{other}");
        assert_eq!(serde_json::to_value(&decoded).unwrap(), other);
    }
    let sent = Holding::Other(Other {
        kind: None,
        note: Some("bare".to_owned()),
    });
    assert_eq!(
        serde_json::to_value(&sent).unwrap(),
        json!({"note": "bare"})
    );
}
