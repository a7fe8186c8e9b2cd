//! Stub implementations of the traits of two generated servers, each answering every operation
//! with a success built from what the router decoded. So a 4xx comes from the router alone
//! (a request it refused), and a 5xx from nothing but a bug.

use errors_formats_server::axum::body::Bytes;
use errors_formats_server::models::BasicError;
use errors_formats_server::{
    CreateDocumentRequest, CreateDocumentResponse, ErrorsAndFormatsApi, GetContentRequest,
    GetContentResponse, GetPreviewRequest, GetPreviewResponse, PutContentRequest,
    PutContentResponse, PutPreviewRequest, PutPreviewResponse,
};
use param_styles_server::axum::http::StatusCode;
use param_styles_server::models::{Problem, QueryDeepNested200Response, Received, UploadSummary};
use param_styles_server::*;

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

/// tests/fixtures/param-styles.yaml: every parameter style, form and multipart bodies. Answers
/// each operation with the values it decoded (as tests/param_styles_roundtrip.rs does).
#[derive(Default)]
pub struct Echoes;

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

    async fn page(&self, _request: PageRequest) -> PageResponse {
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

    async fn create_charge(&self, _request: CreateChargeRequest) -> CreateChargeResponse {
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

/// tests/fixtures/errors-formats.yaml: a JSON body with formats and patterns, binary bodies, an
/// operation whose rejections take its own error shape. Every operation succeeds.
#[derive(Default)]
pub struct Documents;

impl ErrorsAndFormatsApi for Documents {
    fn rejection(&self, rejection: &errors_formats_server::Rejection) -> BasicError {
        BasicError {
            message: rejection.message.clone(),
        }
    }

    async fn create_document(&self, request: CreateDocumentRequest) -> CreateDocumentResponse {
        CreateDocumentResponse::Created(request.body)
    }

    fn create_document_rejection(
        &self,
        rejection: &errors_formats_server::Rejection,
    ) -> CreateDocumentResponse {
        CreateDocumentResponse::Status4xx(rejection.status, rejection.message.clone())
    }

    async fn get_content(&self, request: GetContentRequest) -> GetContentResponse {
        GetContentResponse::Ok(Bytes::from(request.name.into_bytes()))
    }

    async fn put_content(&self, _request: PutContentRequest) -> PutContentResponse {
        PutContentResponse::NoContent
    }

    async fn get_preview(&self, request: GetPreviewRequest) -> GetPreviewResponse {
        GetPreviewResponse::Ok {
            body: Bytes::from(request.name.into_bytes()),
            content_type: "image/png".to_owned(),
        }
    }

    async fn put_preview(&self, _request: PutPreviewRequest) -> PutPreviewResponse {
        PutPreviewResponse::NoContent
    }
}
