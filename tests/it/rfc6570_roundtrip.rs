//! The crates generated from tests/fixtures/rfc6570-paths.yaml (tests/generated/rfc6570), over real
//! HTTP on 127.0.0.1: path templates written the RFC 6570 way (`{param*}`, `{.param}`, `{;id*}`,
//! `{;id}`) name their declared parameters, typed, written and read in the style their operator
//! spells, and checked by the server.

use rfc6570_client::Client;
use rfc6570_server::models::MatrixExplodedObjectId;
use rfc6570_server::*;
use std::sync::Arc;

/// Answers what it read.
struct Echo;

impl TemplatesApi for Echo {
    async fn simple_exploded_list(
        &self,
        request: SimpleExplodedListRequest,
    ) -> SimpleExplodedListResponse {
        SimpleExplodedListResponse::Ok(request.param)
    }

    async fn label_list(&self, request: LabelListRequest) -> LabelListResponse {
        LabelListResponse::Ok(request.param)
    }

    async fn matrix_exploded_object(
        &self,
        request: MatrixExplodedObjectRequest,
    ) -> MatrixExplodedObjectResponse {
        let MatrixExplodedObjectId { role, first_name } = request.id;
        MatrixExplodedObjectResponse::Ok(models::MatrixExplodedObjectResponse { role, first_name })
    }

    async fn matrix_primitive(&self, request: MatrixPrimitiveRequest) -> MatrixPrimitiveResponse {
        MatrixPrimitiveResponse::Ok(request.id.into())
    }
}

async fn server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        axum::serve(listener, router(Arc::new(Echo)))
            .await
            .expect("server runs")
    });
    format!("http://{address}")
}

/// A GET of `path` as written, its status and body.
async fn raw(base: &str, path: &str) -> (u16, String) {
    let response = reqwest::get(format!("{base}{path}")).await.expect("sent");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

#[tokio::test]
async fn the_client_writes_what_the_operator_spells_and_the_server_reads_it() {
    let base = server().await;
    let client = Client::new(base.clone()).expect("client");
    assert_eq!(
        client.simple_exploded_list(vec![3, 4, 5]).await.unwrap(),
        [3, 4, 5]
    );
    let labels = vec!["a".to_owned(), "b".to_owned()];
    assert_eq!(client.label_list(labels.clone()).await.unwrap(), labels);
    let id = MatrixExplodedObjectId {
        role: "admin".to_owned(),
        first_name: "Alex".to_owned(),
    };
    let answer = client.matrix_exploded_object(id).await.unwrap();
    assert_eq!(
        (answer.role.as_str(), answer.first_name.as_str()),
        ("admin", "Alex")
    );
    assert_eq!(client.matrix_primitive(5).await.unwrap(), 5);

    // The wire forms of OpenAPI's "Style Examples", which RFC 6570 gives these expressions.
    assert_eq!(
        raw(&base, "/simple/3,4,5").await,
        (200, "[3,4,5]".to_owned())
    );
    assert_eq!(
        raw(&base, "/label/.a,b").await,
        (200, r#"["a","b"]"#.to_owned())
    );
    let (status, body) = raw(&base, "/matrix/;role=admin;firstName=Alex").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        raw(&base, "/matrixPrimitive/;id=5").await,
        (200, "5".to_owned())
    );
}

#[tokio::test]
async fn the_server_checks_the_declared_parameters() {
    let base = server().await;
    for path in [
        "/matrixPrimitive/garbage",
        "/matrixPrimitive/;id=x",
        "/matrixPrimitive/;id=99999999999",
        "/simple/1,x",
        "/label/a,b",
        "/matrix/;role=admin",
    ] {
        let (status, body) = raw(&base, path).await;
        assert_eq!(status, 400, "{path}: {body}");
    }
}
