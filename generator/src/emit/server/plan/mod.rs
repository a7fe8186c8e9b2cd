//! What the server crate holds, decided once before any token is printed: which operations can be
//! routed ([`routes`]), what credentials each takes ([`auth`]), how each parameter is read and
//! checked ([`parameters`]), how its body is read ([`bodies`]), which status each response variant
//! stands for, and the API's error body ([`responses`]). This module holds the plan itself and
//! builds it from those rooms.

use crate::emit::checks::Checks;
use crate::emit::status::status_variant;
use crate::emit::{Patterns, Root, TypePrinter, ident};
use crate::ir::{
    Additional, Api, Constraints, Media, Method, Operation, ParamLocation, ParamStyle, Parameter,
    PathSegment, Primitive, RequestBody, Response, SecurityKind, Status, StreamFormat, TypeId,
    TypeKind, TypeRef,
};
use crate::naming;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{BTreeSet, HashMap, HashSet};

mod auth;
mod bodies;
mod parameters;
mod responses;
mod routes;

pub use crate::emit::defaults::DefaultValue;
pub use auth::BearerScheme;
pub use bodies::{BodyKind, BodyRead, Part, PartKind};
pub use parameters::{Finish, Get, ParamRead, Scalar, Styled, StyledAt};
use responses::*;
pub use responses::{Body, ResponsePlan, StatusPlan};
use routes::*;
pub use routes::{PathAt, Route, is_distinct, mixed_literals};

pub struct Plan<'a> {
    pub api: &'a Api,
    pub patterns: &'a Patterns,
    pub trait_name: String,
    /// The schema most 4xx responses use: what the router answers its own rejections with.
    pub error_body: Option<TypeId>,
    /// The bearer schemes operations use, each with the trait method that checks its tokens: one
    /// scheme is checked by `authenticate`; with several, the one most operations use (the first
    /// used among equals) keeps `authenticate` and each other gets `authenticate_{scheme}`, so a
    /// token of one scheme is never taken for another.
    pub bearer_schemes: Vec<BearerScheme>,
    pub ops: Vec<OpPlan<'a>>,
    /// `(axum path, [(method, indexes into ops)])`, in document order. Several operations share a
    /// method of a route when mixed segments (`{sid}.json`, `{sid}.xml`) tell them apart: most
    /// literal text first, an operation without mixed segments last.
    pub routes: Vec<Route>,
    /// Operations left out, with the reason (listed in the crate documentation).
    pub skipped: Vec<String>,
    /// The path of the crate's root in generated code: `crate`, or `crate::webhooks` for the
    /// receiver nested in a client, so that its files are printed once with their final paths.
    pub root: Root,
    /// The operation groups, when each operation's items are behind its group's feature (a
    /// crate's own server; the receiver of webhooks is not split).
    pub groups: Option<crate::groups::Groups>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    No,
    Optional,
    Required,
}

pub struct OpPlan<'a> {
    pub op: &'a Operation,
    pub fn_name: String,
    pub request_name: String,
    pub response_name: String,
    pub bearer: Need,
    /// The methods (of [`Plan::bearer_schemes`]) that may accept this operation's bearer token, in
    /// the order of its security alternatives; the router tries them in turn.
    pub bearer_methods: Vec<String>,
    pub basic: Need,
    /// Bearer and Basic are both optional but one of them must be there.
    pub require_some_credentials: bool,
    pub fields: Vec<FieldPlan>,
    pub responses: Vec<ResponsePlan>,
    /// What the generated code does not do for this operation (shown in its documentation).
    pub notes: Vec<String>,
    /// The trait method answering this operation's rejections, when it documents its own error
    /// body for a status the router can refuse it with (see [`Plan::own_rejection_statuses`]).
    pub rejection: Option<OwnRejection>,
}

/// An operation's own answer to the router's rejections (`fn {op}_rejection`).
pub struct OwnRejection {
    pub fn_name: String,
    /// The statuses whose documented body is not the API's error body, for the method's doc.
    pub statuses: Vec<u16>,
}

/// A field of an operation's request struct; its type follows from how it is read.
pub struct FieldPlan {
    pub name: String,
    pub doc: String,
    pub read: Read,
}

/// How the router reads a request field.
pub enum Read {
    /// A parameter or API key (see [`parameters`]).
    Param(Box<ParamRead>),
    /// The request's HTTP Basic credentials (an `Option` unless `required`).
    Basic { required: bool },
    /// The body (see [`bodies`]).
    Body(BodyRead),
}

impl FieldPlan {
    /// Where a parameter or API key is read from.
    pub fn location(&self) -> Option<ParamLocation> {
        match &self.read {
            Read::Param(read) => Some(read.location),
            _ => None,
        }
    }
}

impl<'a> Plan<'a> {
    /// `use {root}::{name};` (see [`Plan::root`]).
    /// The `#[cfg]` of items that any of `ops` needs: the union of their groups (nothing without
    /// groups).
    pub fn gate(&self, ops: &[&OpPlan]) -> TokenStream {
        let Some(groups) = &self.groups else {
            return TokenStream::new();
        };
        let mut names: Vec<&str> = (ops.iter())
            .filter_map(|op| groups.of_operation_id(self.api, &op.op.id))
            .collect();
        names.sort_unstable();
        names.dedup();
        crate::emit::cfg_features(&names)
    }

    pub fn use_item(&self, name: TokenStream) -> TokenStream {
        let root = self.root.path();
        quote! { use #root::#name; }
    }

    /// How the server's code spells the document's types (`models::Pet`).
    pub fn printer(&self) -> TypePrinter<'a> {
        TypePrinter::new(&self.api.types, quote! { models:: })
    }

    /// `root`: where the server's code lives (see [`Plan::root`]).
    pub fn new(api: &'a Api, patterns: &'a Patterns, root: Root) -> Plan<'a> {
        let base = naming::type_ident(&api.title);
        // The receiver of webhooks is emitted for a document titled "{title} webhooks".
        let trait_name = if base.ends_with("Api") || base.ends_with("Webhooks") {
            base
        } else {
            format!("{base}Api")
        };
        let mut plan = Plan {
            api,
            patterns,
            trait_name,
            error_body: error_body(api),
            bearer_schemes: Vec::new(),
            ops: Vec::new(),
            routes: Vec::new(),
            skipped: Vec::new(),
            root,
            groups: None,
        };
        plan.bearer_schemes = plan.used_bearer_schemes();
        let mut route_names: HashMap<String, String> = HashMap::new();
        // Routes and methods taken, with what tells operations there apart: their mixed segments'
        // literals and the query their path carries.
        let mut seen = BTreeSet::new();
        let mut type_names = HashSet::new();
        for op in &api.operations {
            let route = route_path(op, &mut route_names).and_then(|route| {
                let distinction = (mixed_literals(op), op.query.clone());
                let taken = !seen.insert((route.clone(), op.method.clone(), distinction));
                let reason = "another operation already answers this method at the same route";
                if taken {
                    Err(reason.to_owned())
                } else {
                    Ok(route)
                }
            });
            let route = match route {
                Ok(route) => route,
                Err(reason) => {
                    let (method, path, name) = (op.method.as_str(), &op.path, &op.name);
                    let skipped = format!("`{method} {path}` (`{name}`): {reason}.");
                    plan.skipped.push(skipped);
                    continue;
                }
            };
            let index = plan.ops.len();
            plan.ops.push(plan.op_plan(op, &mut type_names));
            match plan.routes.iter_mut().find(|(path, _)| *path == route) {
                Some((_, methods)) => match methods.iter_mut().find(|(m, _)| *m == op.method) {
                    Some((_, ops)) => ops.push(index),
                    None => methods.push((op.method.clone(), vec![index])),
                },
                None => plan
                    .routes
                    .push((route, vec![(op.method.clone(), vec![index])])),
            }
        }
        for (_, ops) in plan.routes.iter_mut().flat_map(|(_, methods)| methods) {
            // Stable: among equals, document order.
            ops.sort_by_key(|i| {
                let op = plan.ops[*i].op;
                let literals = mixed_literals(op);
                let text: usize = literals.iter().flat_map(|(_, l)| l).map(String::len).sum();
                let query: usize = op.query.iter().map(|(n, v)| n.len() + v.len() + 1).sum();
                (!is_distinct(op), std::cmp::Reverse(text + query))
            });
        }
        // `{op}_rejection` must not take the name of an operation (or of another such method):
        // every operation name is known before any is given.
        let mut fn_names: HashSet<String> = plan
            .ops
            .iter()
            .map(|o| ident(&o.fn_name).to_string())
            .collect();
        for i in 0..plan.ops.len() {
            let statuses = plan.own_rejection_statuses(&plan.ops[i]);
            if statuses.is_empty() {
                continue;
            }
            let fn_name = format!("{}_rejection", ident(&plan.ops[i].fn_name));
            let fn_name = unique_field(&fn_name, &mut fn_names);
            plan.ops[i].rejection = Some(OwnRejection { fn_name, statuses });
        }
        plan
    }

    /// The statuses the router can refuse an operation's requests with, for which the operation
    /// documents a body other than the API's error body (RFC 6749's token endpoint answers 400 and
    /// 401 as `{"error": ...}`, for example). Such an operation answers every rejection through its
    /// own response type; the others share the API's `rejection` body.
    ///
    /// The router answers 401 for missing or malformed credentials, 400 for a parameter or body that
    /// does not parse or validate, 413 and 415 for a body too large or of another media type. A
    /// status is looked up as the spec's responses are: the code, then `4XX`, then `default`.
    fn own_rejection_statuses(&self, op: &OpPlan) -> Vec<u16> {
        let credentials = op.bearer != Need::No || op.basic != Need::No;
        let reads = op
            .fields
            .iter()
            .any(|f| !matches!(f.read, Read::Basic { .. }));
        let body = op.fields.iter().any(|f| matches!(f.read, Read::Body(_)));
        let find = |status: Status| op.op.responses.iter().find(|r| r.status == status);
        [(400, reads), (401, credentials), (413, body), (415, body)]
            .into_iter()
            .filter_map(|(code, refused)| refused.then_some(code))
            .filter(|&code| {
                let documented = find(Status::Code(code))
                    .or_else(|| find(Status::Range(code / 100)))
                    .or_else(|| find(Status::Default));
                documented
                    .and_then(|r| r.body.as_ref())
                    .is_some_and(|body| {
                        body.media != Media::Json
                            || !matches!(body.ty, TypeRef::Named(id) if Some(id) == self.error_body)
                    })
            })
            .collect()
    }

    /// A doc link to the trait method of an operation.
    pub fn method_link(&self, op: &OpPlan) -> String {
        let (root, fn_name) = (self.root.text(), ident(&op.fn_name));
        format!(
            "[`{fn_name}`]({root}::{}::{fn_name})",
            ident(&self.trait_name)
        )
    }

    /// The Rust type of the error body (`models::ErrorBody`, or the runtime's `ErrorMessage`).
    pub fn error_type(&self) -> TokenStream {
        match self.error_body {
            Some(id) => self.printer().rust_type(&TypeRef::Named(id)),
            None => quote! { ErrorMessage },
        }
    }

    fn op_plan(&self, op: &'a Operation, type_names: &mut HashSet<String>) -> OpPlan<'a> {
        // Distinct snake names can meet in camel case (`a_1`, `a1`): number the later one.
        let base = naming::type_ident(&op.name);
        let camel = naming::unique(&base, type_names, "");
        // The trait's own methods keep their names; an operation called the same gets a `_`.
        let reserved =
            op.name == "rejection" || self.bearer_schemes.iter().any(|s| s.method == op.name);
        let fn_name = format!("{}{}", op.name, if reserved { "_" } else { "" });
        let (bearer, basic, require_some_credentials) = self.credentials(op);
        let mut notes = Vec::new();
        let names = op.parameters.iter().map(|p| p.name.clone());
        let mut taken: HashSet<String> = names.chain(["body".to_owned()]).collect();
        let mut fields: Vec<FieldPlan> = op
            .parameters
            .iter()
            .filter_map(|p| self.param_field(op, p, &mut notes))
            .collect();
        fields.extend(self.credential_fields(op, basic, &mut taken));
        fields.extend(op.body.as_ref().map(|body| self.body_field("body", body)));
        OpPlan {
            op,
            fn_name,
            request_name: format!("{camel}Request"),
            response_name: format!("{camel}Response"),
            bearer,
            bearer_methods: self.bearer_methods(op),
            basic,
            require_some_credentials,
            fields,
            responses: self.responses(op, &mut notes),
            notes,
            rejection: None,
        }
    }
}

fn unique_field(base: &str, taken: &mut HashSet<String>) -> String {
    let mut name = base.to_owned();
    while taken.contains(&name) || naming::is_keyword(&name) {
        name.push('_');
    }
    taken.insert(name.clone());
    name
}

pub fn push_paragraph(doc: &mut String, text: &str) {
    if !doc.trim().is_empty() {
        doc.push_str("\n\n");
    }
    doc.push_str(text);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plans are plain data: files render from one plan on several threads.
    #[test]
    fn plans_cross_threads() {
        fn plain_data<T: Send + Sync>() {}
        plain_data::<Plan>();
    }

    fn op(path: &str) -> Operation {
        Operation {
            id: String::new(),
            name: String::new(),
            method: Method::Get,
            path: path.to_owned(),
            query: Vec::new(),
            segments: crate::build::operations::parse_path(path).unwrap(),
            pointer: String::new(),
            summary: None,
            description: None,
            tags: Vec::new(),
            deprecated: false,
            parameters: Vec::new(),
            body: None,
            responses: Vec::new(),
            security: Vec::new(),
            idempotency_key: None,
        }
    }

    #[test]
    fn route_parameters_share_one_name_per_position() {
        let mut names = HashMap::new();
        assert_eq!(
            route_path(&op("/pets/{id}"), &mut names).unwrap(),
            "/pets/{id}"
        );
        assert_eq!(
            route_path(&op("/pets/{petId}/toys"), &mut names).unwrap(),
            "/pets/{id}/toys"
        );
        assert_eq!(
            route_path(&op("/pets/mine"), &mut names).unwrap(),
            "/pets/mine"
        );
        assert_eq!(route_path(&op("/"), &mut names).unwrap(), "/");
    }

    #[test]
    fn mixed_segments_are_captured_whole_and_split_by_their_literals() {
        let mut names = HashMap::new();
        assert_eq!(route_path(&op("/x/{id}"), &mut names).unwrap(), "/x/{id}");
        let json = op("/x/{sid}.json");
        assert_eq!(route_path(&json, &mut names).unwrap(), "/x/{id}");
        assert_eq!(route_path(&op("/y/{a}:b"), &mut names).unwrap(), "/y/{p1}");
        assert_eq!(
            mixed_literals(&op("/f/{name}.{ext}/v{n}")),
            vec![
                (1, vec![String::new(), ".".into(), String::new()]),
                (2, vec!["v".into(), String::new()])
            ]
        );
        assert!(matches!(
            path_position(&op("/f/{name}.{ext}/{v}"), "v"),
            Some(PathAt::Capture(_))
        ));
        assert!(matches!(
            path_position(&op("/f/{name}.{ext}/{v}"), "ext"),
            Some(PathAt::Piece { .. })
        ));
    }

    #[test]
    fn segments_axum_cannot_match_are_refused() {
        let mut names = HashMap::new();
        assert!(route_path(&op("/a/:b"), &mut names).is_err());
        assert!(route_path(&op("/a/*b"), &mut names).is_err());
        assert_eq!(
            route_path(&op("/a/{id}/{id}"), &mut names).unwrap(),
            "/a/{id}/{id_}"
        );
        assert_eq!(route_path(&op("/files/"), &mut names).unwrap(), "/files/");
    }

    /// An operation gets `{op}_rejection` when a status the router may refuse it with is
    /// documented (here through `4XX`) with another body than the API's error body; the name
    /// steps aside for an operation already called so.
    #[test]
    fn operations_with_their_own_error_body_answer_rejections_themselves() {
        let spec = r##"
openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /login:
    post:
      operationId: login
      requestBody:
        required: true
        content: {application/json: {schema: {type: object}}}
      responses:
        '204': {description: in}
        4XX:
          description: its own error
          content: {application/json: {schema: {$ref: '#/components/schemas/OAuth'}}}
    get:
      operationId: loginRejection
      parameters: [{name: q, in: query, schema: {type: string}}]
      responses:
        '204': {description: ok}
        '400': {$ref: '#/components/responses/Error'}
        '404': {$ref: '#/components/responses/Error'}
  /plain:
    get:
      operationId: plain
      responses:
        '204': {description: nothing to refuse}
        '400':
          description: text
          content: {text/plain: {schema: {type: string}}}
components:
  responses:
    Error:
      description: the API's error
      content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
  schemas:
    Error: {type: object, properties: {message: {type: string}}}
    OAuth: {type: object, properties: {error: {type: string}}}
"##;
        let (api, mut diags) = crate::load_api(spec).unwrap();
        let patterns = Patterns::collect(&api, &mut diags);
        let plan = Plan::new(&api, &patterns, Root::Crate);
        let own: Vec<_> = plan
            .ops
            .iter()
            .map(|op| {
                let own = op.rejection.as_ref();
                (
                    op.fn_name.to_string(),
                    own.map(|o| o.fn_name.to_string()),
                    own.map(|o| o.statuses.clone()),
                )
            })
            .collect();
        let name = |s: &str| Some(s.to_owned());
        assert_eq!(
            own,
            [
                ("login_rejection".to_owned(), None, None),
                (
                    "login".to_owned(),
                    name("login_rejection_"),
                    Some(vec![400, 413, 415])
                ),
                ("plain".to_owned(), None, None),
            ]
        );
    }
}
