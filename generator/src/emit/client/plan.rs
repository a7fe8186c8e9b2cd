//! What the client does for one operation, decided before any token is printed (see progenitor's
//! `method.rs`): which parameters are arguments and which are setters, what the success value and
//! the error variants are, which status goes where, whether it sends credentials, and whether it pages.

use crate::emit::status::status_variant;
use crate::ir::{
    Api, Media, Operation, ParamLocation, Parameter, Primitive, RequestBody, Response,
    ResponseBody, ResponseStream, SecurityKind, SecurityScheme, Status, StreamFormat, TypeRef,
};
use crate::naming;
use heck::ToUpperCamelCase;
use std::collections::HashSet;

/// How a body is read from (or what kind of value it is on) the wire.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// No body: `()`.
    Empty,
    /// JSON of this type.
    Json(TypeRef),
    /// Text (`text/*`, or a form/binary error body shown as text): `String`.
    Text,
    /// Raw bytes (`application/octet-stream` and other binary media): `Vec<u8>`.
    Bytes,
    /// Bytes of a media range the spec leaves open (`image/*`): `codec::Binary`, with the
    /// content type the server sent.
    TypedBytes,
    /// A stream of items, when the response documents no other body.
    Stream(StreamShape),
}

/// A streamed body: how its items are framed and their type.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamShape {
    pub format: StreamFormat,
    /// The media type asked for in `Accept`.
    pub media: String,
    pub item: TypeRef,
}

/// The stream an operation's success documents (beside another body or alone): the builder's
/// `send_stream`, and `send_stream_reconnecting` when it is resumable.
#[derive(Debug)]
pub struct StreamPlan {
    pub shape: StreamShape,
    /// The builder's field of the optional `Last-Event-ID` header of a GET event stream.
    pub last_event_id: Option<String>,
}

impl StreamShape {
    fn of(stream: &ResponseStream) -> StreamShape {
        StreamShape {
            format: stream.format,
            media: stream.media.clone(),
            item: stream.item.clone(),
        }
    }
}

impl Shape {
    pub fn of(body: Option<&ResponseBody>) -> Shape {
        match body {
            None => Shape::Empty,
            Some(b) => match &b.media {
                Media::Json => Shape::Json(b.ty.clone()),
                Media::Text | Media::Form => Shape::Text,
                Media::Binary(m) if is_media_range(m) => Shape::TypedBytes,
                Media::Binary(_) | Media::Multipart => Shape::Bytes,
            },
        }
    }

    /// The shape of a success: its body, else its stream.
    fn of_success(r: &Response) -> Shape {
        match (&r.body, &r.stream) {
            (None, Some(stream)) => Shape::Stream(StreamShape::of(stream)),
            (body, _) => Shape::of(body.as_ref()),
        }
    }
}

/// A media type with a wildcard (`image/*`, `*/*`): the content type is only known per message.
pub fn is_media_range(media: &str) -> bool {
    media.contains('*')
}

/// The value `send()` returns on success.
#[derive(Debug)]
pub enum Success {
    /// Every documented success status has the same body.
    Single(Shape),
    /// Success statuses with different bodies: an enum in `responses.rs`, one variant per status.
    Enum(Vec<Variant>),
}

/// One documented status: a variant of the operation's enum in `responses.rs` or `errors.rs`.
#[derive(Debug)]
pub struct Variant {
    pub name: String,
    pub status: Status,
    pub shape: Shape,
    /// The headers an error response documents (none for a success).
    pub headers: Vec<Header>,
    pub doc: Option<String>,
    /// Large payloads are boxed so the enum stays small (clippy's `large_enum_variant`).
    pub boxed: bool,
}

/// A header a response documents, read into a field of its variant (or of `send_full`'s typed
/// headers).
#[derive(Debug)]
pub struct Header {
    pub field: String,
    /// Lowercase, as `reqwest` looks it up.
    pub wire: String,
    /// A number, boolean or uuid keeps its type; anything else is read as text.
    pub ty: TypeRef,
    pub doc: Option<String>,
}

/// What one arm of the status `match` does.
#[derive(Debug, Clone, PartialEq)]
pub enum Handling {
    /// Success; the variant index when the success value is an enum.
    Success(Option<usize>),
    /// A documented error: `Error::Api` with this variant (an index into [`Plan::errors`]).
    Error(usize),
    /// Anything else: `Error::UnexpectedStatus` with the raw body.
    Unexpected,
}

#[derive(Debug)]
pub struct Arm {
    pub statuses: Vec<Status>,
    pub handling: Handling,
}

/// A list operation paged with `skip`/`take` (or `offset`/`limit`) whose success body is an array.
#[derive(Debug)]
pub struct Paging<'a> {
    pub skip: &'a Parameter,
    pub take: &'a Parameter,
    pub number: Primitive,
    pub item: TypeRef,
    /// The page size when the caller sets none: the spec's default for `take`, or 50.
    pub default_take: i64,
}

#[derive(Debug)]
pub struct Plan<'a> {
    pub op: &'a Operation,
    /// The request builder's name (and the success enum's, when there is one).
    pub type_name: String,
    /// Method arguments: path parameters in path order, then the other required parameters.
    pub required: Vec<&'a Parameter>,
    /// Builder setters.
    pub optional: Vec<&'a Parameter>,
    pub body: Option<&'a RequestBody>,
    pub success: Success,
    /// One variant per documented error status; empty when none is documented (the error type is `()`).
    pub errors: Vec<Variant>,
    /// The body every error variant carries, when they all carry the same one: the enum derefs to it.
    pub common_error_body: Option<Shape>,
    pub arms: Vec<Arm>,
    /// Sends the bearer token (static or from client credentials).
    pub bearer: bool,
    pub paging: Option<Paging<'a>>,
    /// The headers the success responses document (`send_full`'s typed `headers`), by wire name.
    pub success_headers: Vec<Header>,
    pub stream: Option<StreamPlan>,
}

/// Names the client's `requests.rs` and `responses.rs` use unqualified beyond the prelude and
/// runtime names every generated crate reserves ([`crate::naming::RESERVED_TYPES`]): a builder may
/// not shadow them.
const CLIENT_TYPE_NAMES: &[&str] = &["Self", "Client", "ResponseValue"];

pub fn plan<'a>(api: &'a Api, op: &'a Operation) -> Plan<'a> {
    let mut type_name = op.name.to_upper_camel_case();
    if naming::RESERVED_TYPES.contains(&type_name.as_str())
        || CLIENT_TYPE_NAMES.contains(&type_name.as_str())
    {
        type_name.push_str("Request");
    }
    let mut required: Vec<&Parameter> = Vec::new();
    for name in op.segments.iter().flat_map(crate::ir::PathSegment::params) {
        if let Some(p) = op
            .parameters
            .iter()
            .find(|p| p.location == ParamLocation::Path && p.wire_name == name)
            && !required.iter().any(|r| std::ptr::eq(*r, p))
        {
            required.push(p);
        }
    }
    // Path parameters the path does not name are never sent; the rest are arguments or setters.
    let others = op
        .parameters
        .iter()
        .filter(|p| p.location != ParamLocation::Path);
    let (others, optional): (Vec<&Parameter>, _) = others.partition(|p| p.required);
    required.extend(others);

    let success = success(api, op);
    let errors = errors(api, op);
    let common_error_body = common_body(&errors);
    let arms = arms(op, &success);
    let paging = paging(api, &optional, &success);
    Plan {
        op,
        type_name,
        required,
        optional,
        body: op.body.as_ref(),
        success,
        errors,
        common_error_body,
        arms,
        bearer: sends_bearer(api, op),
        paging,
        success_headers: success_headers(api, op),
        stream: stream(op),
    }
}

/// The first stream a success response documents.
fn stream(op: &Operation) -> Option<StreamPlan> {
    let stream = success_responses(op)
        .into_iter()
        .find_map(|r| r.stream.as_ref())?;
    let last_event_id = op.parameters.iter().find(|p| {
        stream.format == StreamFormat::EventStream
            && p.location == ParamLocation::Header
            && !p.required
            && p.wire_name.eq_ignore_ascii_case("last-event-id")
    });
    Some(StreamPlan {
        shape: StreamShape::of(stream),
        last_event_id: last_event_id.map(|p| p.name.clone()),
    })
}

/// The headers of every success response, once each (the first declaration of a name wins).
fn success_headers(api: &Api, op: &Operation) -> Vec<Header> {
    let mut all: Vec<Header> = Vec::new();
    for r in success_responses(op) {
        for h in headers(api, r) {
            if !all.iter().any(|a| a.wire == h.wire) {
                all.push(h);
            }
        }
    }
    // Field names stay unique across responses.
    let mut taken = HashSet::new();
    for h in &mut all {
        h.field = naming::unique(&h.field, &mut taken, "_");
    }
    all
}

/// The responses that describe a success: the 2xx ones, else `default` (an operation documenting
/// only `default` describes its successes with it too).
fn success_responses(op: &Operation) -> Vec<&Response> {
    let any_success = op.responses.iter().any(|r| r.status.is_success());
    let describes =
        |r: &&Response| r.status.is_success() || (!any_success && r.status == Status::Default);
    op.responses.iter().filter(describes).collect()
}

fn success(api: &Api, op: &Operation) -> Success {
    let responses = success_responses(op);
    let mut shapes: Vec<Shape> = responses.iter().map(|r| Shape::of_success(r)).collect();
    let Some(first) = shapes.first() else {
        return Success::Single(Shape::Empty);
    };
    if shapes.iter().all(|s| s == first) {
        return Success::Single(first.clone());
    }
    // A success enum is plain data (`Clone`, `PartialEq`): a status that only streams is read as
    // empty there, and its stream is the builder's `send_stream`.
    for shape in &mut shapes {
        if matches!(shape, Shape::Stream(_)) {
            *shape = Shape::Empty;
        }
    }
    let mut taken = HashSet::new();
    let variants = responses.iter().zip(shapes).map(|(r, shape)| {
        let name = success_variant(r.status);
        variant(api, &mut taken, name, r, shape, Vec::new())
    });
    Success::Enum(variants.collect())
}

/// The variant of response `r`, named `name` (or `name2`, `name3`... when an earlier variant took it).
fn variant(
    api: &Api,
    taken: &mut HashSet<String>,
    name: String,
    r: &Response,
    shape: Shape,
    headers: Vec<Header>,
) -> Variant {
    let name = naming::unique(&name, taken, "");
    Variant {
        name,
        status: r.status,
        boxed: matches!(&shape, Shape::Json(ty) if api.size_estimate(ty) > 128),
        shape,
        headers,
        doc: r.doc.clone(),
    }
}

/// The variant of a success status: named as an error's, but a range or `default` is `Success`.
fn success_variant(status: Status) -> String {
    match status {
        Status::Code(_) => status_variant(status),
        Status::Range(_) | Status::Default => "Success".to_owned(),
    }
}

/// The error variants: one per documented status that is not a success, in document order.
fn errors(api: &Api, op: &Operation) -> Vec<Variant> {
    let mut taken = HashSet::new();
    op.responses
        .iter()
        .filter(|r| !r.status.is_success())
        .map(|r| {
            let (name, shape) = (status_variant(r.status), Shape::of(r.body.as_ref()));
            variant(api, &mut taken, name, r, shape, headers(api, r))
        })
        .collect()
}

fn headers(api: &Api, r: &Response) -> Vec<Header> {
    let mut taken = HashSet::from(["body".to_owned()]);
    let mut headers = Vec::new();
    for h in &r.headers {
        let wire = h.wire_name.to_ascii_lowercase();
        let valid = !wire.is_empty()
            && wire
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if wire == "content-type" || !valid {
            continue;
        }
        let base = naming::field_ident(&h.wire_name);
        let field = naming::unique(&base, &mut taken, "_");
        let ty = match api.resolve(&h.ty) {
            TypeRef::Primitive(p) if p.is_integer() || p.is_float() => *p,
            TypeRef::Primitive(p @ (Primitive::Bool | Primitive::Uuid)) => *p,
            _ => Primitive::String,
        };
        headers.push(Header {
            field,
            wire,
            ty: TypeRef::Primitive(ty),
            doc: h.doc.clone(),
        });
    }
    headers
}

fn common_body(errors: &[Variant]) -> Option<Shape> {
    let first = &errors.first()?.shape;
    let same = errors.iter().all(|e| &e.shape == first);
    (same && *first != Shape::Empty).then(|| first.clone())
}

/// The status `match`: documented codes first, then ranges (`4XX`), then `default` / anything else.
fn arms(op: &Operation, success: &Success) -> Vec<Arm> {
    let mut entries: Vec<(Status, Handling)> = Vec::new();
    let (mut variant, mut error) = (0, 0);
    for r in &op.responses {
        let handling = if !r.status.is_success() {
            error += 1;
            Handling::Error(error - 1)
        } else if let Success::Enum(_) = success {
            variant += 1;
            Handling::Success(Some(variant - 1))
        } else {
            Handling::Success(None)
        };
        entries.push((r.status, handling));
    }
    if !op.responses.iter().any(|r| r.status.is_success()) {
        // Nothing documented as success: any 2xx is, without a body.
        entries.push((Status::Range(2), Handling::Success(None)));
    }
    let default = entries
        .iter()
        .find(|(s, _)| *s == Status::Default)
        .map(|(_, h)| h.clone());
    let rank = |s: &Status| match s {
        Status::Code(_) => 0,
        Status::Range(_) => 1,
        Status::Default => 2,
    };
    entries.sort_by_key(|(s, _)| rank(s));
    let mut arms: Vec<Arm> = Vec::new();
    for (status, handling) in entries.iter().filter(|(s, _)| *s != Status::Default) {
        // Enum variants and errors each need their own arm; plain successes merge within a rank.
        let mergeable = *handling == Handling::Success(None);
        match arms
            .iter_mut()
            .find(|a| mergeable && a.handling == *handling && rank(&a.statuses[0]) == rank(status))
        {
            Some(arm) => arm.statuses.push(*status),
            None => arms.push(Arm {
                statuses: vec![*status],
                handling: handling.clone(),
            }),
        }
    }
    arms.push(Arm {
        statuses: vec![Status::Default],
        handling: default.unwrap_or(Handling::Unexpected),
    });
    arms
}

/// Whether the operation sends the bearer token: it requires a bearer or OAuth 2.0 scheme, and
/// does not also allow anonymous access (as a token endpoint does).
fn sends_bearer(api: &Api, op: &Operation) -> bool {
    let bearer = |name: &String| {
        api.security_schemes.iter().any(|s| {
            &s.name == name
                && matches!(
                    s.kind,
                    SecurityKind::Bearer | SecurityKind::OAuth2ClientCredentials { .. }
                )
        })
    };
    !op.security.iter().any(|r| r.schemes.is_empty())
        && op.security.iter().flat_map(|r| &r.schemes).any(bearer)
}

fn paging<'a>(api: &Api, optional: &[&'a Parameter], success: &Success) -> Option<Paging<'a>> {
    let Success::Single(Shape::Json(ty)) = success else {
        return None;
    };
    let TypeRef::Array(item) = api.unalias(ty) else {
        return None;
    };
    let integer = |p: &Parameter| match &p.ty {
        TypeRef::Primitive(n) | TypeRef::NumericString { number: n, .. } if n.is_integer() => {
            Some(*n)
        }
        _ => None,
    };
    let find = |name: &str| {
        optional.iter().copied().find(|p| {
            p.location == ParamLocation::Query
                && p.wire_name.eq_ignore_ascii_case(name)
                && integer(p).is_some()
        })
    };
    [("skip", "take"), ("offset", "limit")]
        .into_iter()
        .find_map(|(skip, take)| {
            let (skip, take) = (find(skip)?, find(take)?);
            let number = integer(take).filter(|n| integer(skip) == Some(*n))?;
            let default_take = take
                .default
                .as_ref()
                .and_then(serde_json::Value::as_i64)
                .filter(|n| *n > 0)
                .unwrap_or(50);
            Some(Paging {
                skip,
                take,
                number,
                item: (**item).clone(),
                default_take,
            })
        })
}

/// The schemes the operations require, in operation order (repeats included).
fn used_schemes(api: &Api) -> impl Iterator<Item = &SecurityScheme> {
    let requirements = api.operations.iter().flat_map(|op| &op.security);
    requirements
        .flat_map(|r| &r.schemes)
        .filter_map(|name| api.security_schemes.iter().find(|s| &s.name == name))
}

/// The OAuth 2.0 client-credentials scheme the client's `client_credentials` uses: the first one an
/// operation requires, else the first declared.
pub fn client_credentials_scheme<'a>(api: &'a Api) -> Option<(&'a SecurityScheme, &'a str)> {
    let with_url = |s: &'a SecurityScheme| match &s.kind {
        SecurityKind::OAuth2ClientCredentials { token_url } => Some((s, token_url.as_str())),
        _ => None,
    };
    let used = used_schemes(api).find_map(with_url);
    used.or_else(|| api.security_schemes.iter().find_map(with_url))
}

/// The device authorization flow (RFC 8628) of a scheme the operations use, if any: the client
/// gets a method that runs it.
pub fn device_flow_scheme(api: &Api) -> Option<&SecurityScheme> {
    used_schemes(api).find(|s| s.device_flow.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plans are plain data: files render from them on several threads.
    #[test]
    fn plans_cross_threads() {
        fn plain_data<T: Send + Sync>() {}
        plain_data::<Plan>();
    }

    fn api(paths: &str) -> Api {
        let text = format!(
            "openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\n\
             components:\n  schemas:\n    Problem: {{type: object, properties: {{m: {{type: string}}}}}}\n    Other: {{type: object, properties: {{x: {{type: string}}}}}}\n\
             \x20 securitySchemes:\n    oauth2: {{type: oauth2, flows: {{clientCredentials: {{tokenUrl: /token, scopes: {{}}}}}}}}\n\
             security: [{{oauth2: []}}]\npaths:\n{paths}"
        );
        crate::load_api(&text).unwrap_or_else(|d| panic!("{d}")).0
    }

    fn plan_of(api: &Api, index: usize) -> Plan<'_> {
        plan(api, &api.operations[index])
    }

    const PROBLEM: &str = "{content: {application/json: {schema: {$ref: '#/components/schemas/Problem'}}}, description: p}";
    const OTHER: &str = "{content: {application/json: {schema: {$ref: '#/components/schemas/Other'}}}, description: o}";

    #[test]
    fn each_error_status_is_a_variant_with_its_own_body() {
        let paths = format!(
            "  /a:\n    get:\n      responses:\n        '200': {{description: ok}}\n        '404': {PROBLEM}\n        '409': {OTHER}\n        '5XX':\n          description: down\n          headers: {{Retry-After: {{schema: {{type: integer}}}}}}\n        default: {{description: other}}\n"
        );
        let api = api(&paths);
        let p = plan_of(&api, 0);
        let variants: Vec<(&str, Status)> = p
            .errors
            .iter()
            .map(|e| (e.name.as_str(), e.status))
            .collect();
        assert_eq!(
            variants,
            [
                ("NotFound", Status::Code(404)),
                ("Conflict", Status::Code(409)),
                ("Status5xx", Status::Range(5)),
                ("Default", Status::Default),
            ]
        );
        assert!(
            matches!(&p.errors[1].shape, Shape::Json(TypeRef::Named(id)) if api.types[id.0].name == "Other")
        );
        let header = &p.errors[2].headers[0];
        assert_eq!(
            (header.field.as_str(), header.wire.as_str(), &header.ty),
            (
                "retry_after",
                "retry-after",
                &TypeRef::Primitive(Primitive::I64)
            )
        );
        // Different bodies: no common body to deref to.
        assert_eq!(p.common_error_body, None);
        let handlings: Vec<(&[Status], &Handling)> = p
            .arms
            .iter()
            .map(|a| (a.statuses.as_slice(), &a.handling))
            .collect();
        assert_eq!(
            handlings,
            vec![
                (&[Status::Code(200)][..], &Handling::Success(None)),
                (&[Status::Code(404)][..], &Handling::Error(0)),
                (&[Status::Code(409)][..], &Handling::Error(1)),
                (&[Status::Range(5)][..], &Handling::Error(2)),
                (&[Status::Default][..], &Handling::Error(3)),
            ]
        );
    }

    #[test]
    fn one_shared_error_body_is_the_common_body() {
        let paths = format!(
            "  /a:\n    get:\n      responses: {{'200': {{description: ok}}, '400': {PROBLEM}, '404': {PROBLEM}}}\n"
        );
        let api = api(&paths);
        let p = plan_of(&api, 0);
        assert!(
            matches!(&p.common_error_body, Some(Shape::Json(TypeRef::Named(id))) if api.types[id.0].name == "Problem")
        );
        // Without a `default`, an undocumented status is `UnexpectedStatus`.
        assert_eq!(
            p.arms.last().map(|a| &a.handling),
            Some(&Handling::Unexpected)
        );
    }

    #[test]
    fn different_success_bodies_make_an_enum() {
        let paths = format!(
            "  /a:\n    put:\n      responses: {{'200': {PROBLEM}, '202': {{description: later}}}}\n"
        );
        let api = api(&paths);
        let p = plan_of(&api, 0);
        let Success::Enum(variants) = &p.success else {
            panic!("expected an enum, got {:?}", p.success)
        };
        let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["Ok", "Accepted"]);
    }

    #[test]
    fn anonymous_access_sends_no_bearer() {
        let paths = "  /token:\n    post:\n      security: [{}]\n      responses: {'200': {description: ok}}\n\
                     \x20 /a:\n    get:\n      responses: {'200': {description: ok}}\n";
        let api = api(paths);
        assert!(!plan_of(&api, 0).bearer);
        assert!(plan_of(&api, 1).bearer);
        assert_eq!(
            client_credentials_scheme(&api).map(|(_, url)| url),
            Some("/token")
        );
    }

    #[test]
    fn skip_and_take_page_array_bodies_only() {
        let params = "      parameters:\n        - {name: skip, in: query, schema: {type: integer, format: int32}}\n        - {name: take, in: query, schema: {type: integer, format: int32, default: 25}}\n";
        let paths = format!(
            "  /list:\n    get:\n{params}      responses: {{'200': {{description: ok, content: {{application/json: {{schema: {{type: array, items: {{type: string}}}}}}}}}}}}\n\
             \x20 /one:\n    get:\n{params}      responses: {{'200': {PROBLEM}}}\n"
        );
        let api = api(&paths);
        let paging = plan_of(&api, 0).paging.expect("paged");
        assert_eq!(
            (paging.default_take, paging.item),
            (25, TypeRef::Primitive(Primitive::String))
        );
        assert!(plan_of(&api, 1).paging.is_none());
    }
}
