//! What the server crate holds, decided once before any token is printed: which operations can be
//! routed, what credentials each takes, how each parameter is read and checked, which status each
//! response variant stands for, and the API's error body.

use crate::emit::rust::{number_literal, opt_usize, primitive, range_args};
use crate::emit::status::known_status;
use crate::emit::{Patterns, Root, TypePrinter, ident};
use crate::ir::{
    Api, Constraints, Media, Method, Operation, ParamLocation, ParamStyle, Parameter, PathSegment,
    Primitive, RequestBody, Response, SecurityKind, Status, StreamFormat, TypeId, TypeKind,
    TypeRef,
};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

pub struct Plan<'a> {
    pub api: &'a Api,
    pub patterns: &'a Patterns,
    pub printer: TypePrinter<'a>,
    pub trait_name: Ident,
    /// The schema most 4xx responses use: what the router answers its own rejections with.
    pub error_body: Option<TypeId>,
    /// Some operation takes a bearer token: the trait has `Principal` and `authenticate`.
    pub uses_bearer: bool,
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
}

/// An axum path and, per method, the operations it dispatches to (indexes into [`Plan::ops`]).
pub type Route = (String, Vec<(Method, Vec<usize>)>);

/// The position and encoded literals of each mixed segment of an operation.
type MixedLiterals = Vec<(usize, Vec<String>)>;

/// What tells operations at one route and method apart: mixed segments, the query the path carries.
type Distinction = (MixedLiterals, Vec<(String, String)>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    No,
    Optional,
    Required,
}

/// A bearer scheme and the trait method that checks its tokens.
pub struct BearerScheme {
    pub name: String,
    pub method: Ident,
}

pub struct OpPlan<'a> {
    pub op: &'a Operation,
    pub fn_name: Ident,
    pub request_name: Ident,
    pub response_name: Ident,
    pub bearer: Need,
    /// The methods (of [`Plan::bearer_schemes`]) that may accept this operation's bearer token, in
    /// the order of its security alternatives; the router tries them in turn.
    pub bearer_methods: Vec<Ident>,
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
    pub fn_name: Ident,
    /// The statuses whose documented body is not the API's error body, for the method's doc.
    pub statuses: Vec<u16>,
}

/// Where a request field comes from: decides which reader the generated code sets up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Path,
    Query,
    Header,
    Cookie,
    Basic,
    Body,
}

pub struct FieldPlan {
    pub name: Ident,
    pub doc: String,
    pub ty: TokenStream,
    /// An expression giving the value, with `?` for failures (uses `path`, `query`, `headers`,
    /// `cookies`, `credentials`, `parts`, `raw_body`).
    pub read: TokenStream,
    pub source: Source,
}

/// One variant of an operation's response enum: plain data, rendered by `types::responses_rs`.
pub struct ResponsePlan {
    /// A rough size of the variant in bytes (see [`Plan::size_of`]).
    pub size: usize,
    /// The part of `size` that is the body.
    pub body_size: usize,
    pub variant: String,
    pub status: StatusPlan,
    pub doc: String,
    pub body: Option<Body>,
    pub headers: Vec<HeaderPlan>,
}

#[derive(Clone, Copy)]
pub enum StatusPlan {
    /// A documented code.
    Fixed(u16),
    /// `default` or a range: the implementer picks the status.
    Chosen,
}

/// A response body: its Rust type and how it is written.
pub enum Body {
    /// JSON of this type.
    Json(TypeRef),
    /// A `String` as text: `text/plain`, or the documented text media type.
    Text(Option<String>),
    /// `Bytes` of this media type.
    Bytes(String),
    /// A `text/event-stream` of JSON data of this type.
    Events(TypeRef),
    /// Line-delimited JSON items of this type and media type; `true` for RFC 7464 record
    /// separators.
    Lines(TypeRef, String, bool),
}

#[derive(Clone)]
pub struct HeaderPlan {
    pub field: String,
    /// As the spec spells it.
    pub name: String,
    /// Lowercase, checked to be a valid header name.
    pub wire: String,
    /// A number, boolean or uuid keeps its type; `None`: anything else is sent as a `String`.
    pub ty: Option<Primitive>,
    pub required: bool,
    pub doc: Option<String>,
}

impl<'a> Plan<'a> {
    /// `use {root}::{name};` (see [`Plan::root`]).
    pub fn use_item(&self, name: TokenStream) -> TokenStream {
        let root = self.root.path();
        quote! { use #root::#name; }
    }

    /// `root`: where the server's code lives (see [`Plan::root`]).
    pub fn new(api: &'a Api, patterns: &'a Patterns, root: Root) -> Plan<'a> {
        let printer = TypePrinter {
            types: &api.types,
            models: quote! { models:: },
        };
        let base = crate::naming::type_ident(&api.title);
        // The receiver of webhooks is emitted for a document titled "{title} webhooks".
        let trait_name = if base.ends_with("Api") || base.ends_with("Webhooks") {
            base
        } else {
            format!("{base}Api")
        };
        let mut plan = Plan {
            api,
            patterns,
            printer,
            trait_name: format_ident!("{}", trait_name),
            error_body: error_body(api),
            uses_bearer: false,
            bearer_schemes: Vec::new(),
            ops: Vec::new(),
            routes: Vec::new(),
            skipped: Vec::new(),
            root,
        };
        plan.bearer_schemes = plan.used_bearer_schemes();
        let mut route_names: HashMap<String, String> = HashMap::new();
        // What tells operations at the same route and method apart: their mixed segments' literals.
        let mut seen: BTreeSet<(String, Method, Distinction)> = BTreeSet::new();
        let mut type_names = HashSet::new();
        for op in &api.operations {
            let route = match route_path(op, &mut route_names) {
                Ok(route) => route,
                Err(reason) => {
                    plan.skipped.push(format!(
                        "`{} {}` (`{}`): {reason}.",
                        op.method.as_str(),
                        op.path,
                        op.name
                    ));
                    continue;
                }
            };
            let distinction = (mixed_literals(op), op.query.clone());
            if !seen.insert((route.clone(), op.method.clone(), distinction)) {
                plan.skipped.push(format!(
                    "`{} {}` (`{}`): another operation already answers this method at the same route.",
                    op.method.as_str(),
                    op.path,
                    op.name
                ));
                continue;
            }
            let op_plan = plan.op_plan(op, &mut type_names);
            plan.uses_bearer |= op_plan.bearer != Need::No;
            let index = plan.ops.len();
            plan.ops.push(op_plan);
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
        for (_, methods) in &mut plan.routes {
            for (_, ops) in methods {
                let ops_plan = &plan.ops;
                // Stable: among equals, document order.
                ops.sort_by_key(|i| {
                    let op = ops_plan[*i].op;
                    let literals = mixed_literals(op);
                    let text: usize = literals.iter().flat_map(|(_, l)| l).map(String::len).sum();
                    let query: usize = op.query.iter().map(|(n, v)| n.len() + v.len() + 1).sum();
                    (!is_distinct(op), std::cmp::Reverse(text + query))
                });
            }
        }
        // `{op}_rejection` must not take the name of an operation (or of another such method):
        // every operation name is known before any is given.
        let mut fn_names: HashSet<String> =
            plan.ops.iter().map(|o| o.fn_name.to_string()).collect();
        for i in 0..plan.ops.len() {
            let statuses = plan.own_rejection_statuses(&plan.ops[i]);
            if statuses.is_empty() {
                continue;
            }
            let name = unique_field(&format!("{}_rejection", plan.ops[i].fn_name), &mut fn_names);
            plan.ops[i].rejection = Some(OwnRejection {
                fn_name: ident(&name),
                statuses,
            });
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
        let mut statuses = Vec::new();
        if op.bearer != Need::No || op.basic != Need::No {
            statuses.push(401);
        }
        if op.fields.iter().any(|f| f.source != Source::Basic) {
            statuses.push(400);
        }
        if op.fields.iter().any(|f| f.source == Source::Body) {
            statuses.extend([413, 415]);
        }
        statuses.sort_unstable();
        let documented = |code: u16| {
            let find = |status: Status| op.op.responses.iter().find(|r| r.status == status);
            find(Status::Code(code))
                .or_else(|| find(Status::Range(code / 100)))
                .or_else(|| find(Status::Default))
        };
        statuses.retain(|code| {
            documented(*code)
                .and_then(|r| r.body.as_ref())
                .is_some_and(|body| {
                    let api_error = body.media == Media::Json
                        && matches!(body.ty, TypeRef::Named(id) if Some(id) == self.error_body);
                    !api_error
                })
        });
        statuses
    }

    /// The Rust type of the error body (`models::ErrorBody`, or the runtime's `ErrorMessage`).
    pub fn error_type(&self) -> TokenStream {
        match self.error_body {
            Some(id) => self.printer.rust_type(&TypeRef::Named(id)),
            None => quote! { ErrorMessage },
        }
    }

    fn op_plan(&self, op: &'a Operation, type_names: &mut HashSet<String>) -> OpPlan<'a> {
        // Distinct snake names can meet in camel case (`a_1`, `a1`): number the later one.
        let camel = unique_type(&crate::naming::type_ident(&op.name), type_names);
        // The trait's own methods keep their names; an operation called the same gets a `_`.
        let reserved = |name: &str| {
            name == "rejection" || self.bearer_schemes.iter().any(|s| s.method == name)
        };
        let fn_name = if reserved(&op.name) {
            format!("{}_", op.name)
        } else {
            op.name.clone()
        };
        let (bearer, basic, require_some_credentials) = self.credentials(op);
        let mut bearer_methods: Vec<Ident> = Vec::new();
        for scheme in op.security.iter().flat_map(|r| &r.schemes) {
            if let Some(s) = self.bearer_schemes.iter().find(|s| &s.name == scheme)
                && !bearer_methods.contains(&s.method)
            {
                bearer_methods.push(s.method.clone());
            }
        }
        let mut notes = Vec::new();
        let mut taken: HashSet<String> = op.parameters.iter().map(|p| p.name.clone()).collect();
        taken.insert("body".to_owned());
        let mut fields = Vec::new();
        for p in &op.parameters {
            if let Some(field) = self.param_field(op, p, &mut notes) {
                fields.push(field);
            }
        }
        for (scheme, location, key) in self.api_keys(op) {
            let name = unique_field(&crate::naming::field_ident(&scheme), &mut taken);
            fields.push(api_key_field(&name, &scheme, location, &key));
        }
        if basic != Need::No {
            let name = unique_field("basic", &mut taken);
            let (ty, doc) = match basic {
                Need::Required => (
                    quote! { BasicCredentials },
                    "HTTP Basic credentials (`Authorization: Basic`).",
                ),
                _ => (
                    quote! { Option<BasicCredentials> },
                    "HTTP Basic credentials (`Authorization: Basic`), if the request sent them.",
                ),
            };
            fields.push(FieldPlan {
                name: ident(&name),
                doc: doc.to_owned(),
                ty,
                read: quote! { credentials },
                source: Source::Basic,
            });
        }
        if let Some(body) = &op.body {
            fields.push(self.body_field("body", body));
        }
        let responses = self.responses(op, &mut notes);
        OpPlan {
            op,
            fn_name: ident(&fn_name),
            request_name: format_ident!("{}Request", camel),
            response_name: format_ident!("{}Response", camel),
            bearer,
            bearer_methods,
            basic,
            require_some_credentials,
            fields,
            responses,
            notes,
            rejection: None,
        }
    }

    fn is_bearer_scheme(&self, name: &str) -> bool {
        self.api.security_schemes.iter().any(|s| {
            s.name == name
                && matches!(
                    s.kind,
                    SecurityKind::Bearer | SecurityKind::OAuth2ClientCredentials { .. }
                )
        })
    }

    /// See [`Plan::bearer_schemes`].
    fn used_bearer_schemes(&self) -> Vec<BearerScheme> {
        let mut names: Vec<&String> = Vec::new();
        for op in &self.api.operations {
            for name in op.security.iter().flat_map(|r| &r.schemes) {
                if self.is_bearer_scheme(name) && !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        let uses = |name: &String| {
            let named = |op: &&Operation| op.security.iter().any(|r| r.schemes.contains(name));
            self.api.operations.iter().filter(named).count()
        };
        // The most used scheme; `max_by_key` keeps the last of equals, so scan in reverse.
        let default = names
            .iter()
            .rev()
            .max_by_key(|name| uses(name))
            .map(|n| (*n).clone());
        names
            .into_iter()
            .map(|name| {
                let method = if Some(name) == default.as_ref() {
                    "authenticate".to_owned()
                } else {
                    format!("authenticate_{}", crate::naming::field_ident(name))
                };
                BearerScheme {
                    name: name.clone(),
                    method: ident(&method),
                }
            })
            .collect()
    }

    /// Bearer and Basic needs from the operation's security alternatives. A scheme required by every
    /// alternative is required; one named by some is optional. Schemes the router cannot check
    /// (API keys, other HTTP schemes) count as "no credentials" here: the operation checks them.
    fn credentials(&self, op: &Operation) -> (Need, Need, bool) {
        if op.security.is_empty() {
            return (Need::No, Need::No, false);
        }
        let kind = |name: &str| {
            self.api
                .security_schemes
                .iter()
                .find(|s| s.name == name)
                .map(|s| &s.kind)
        };
        let is_bearer = |name: &String| {
            matches!(
                kind(name),
                Some(SecurityKind::Bearer | SecurityKind::OAuth2ClientCredentials { .. })
            )
        };
        let is_basic = |name: &String| matches!(kind(name), Some(SecurityKind::Basic));
        let bearer: Vec<bool> = op
            .security
            .iter()
            .map(|r| r.schemes.iter().any(is_bearer))
            .collect();
        let basic: Vec<bool> = op
            .security
            .iter()
            .map(|r| r.schemes.iter().any(is_basic))
            .collect();
        let need = |found: &[bool]| {
            if found.iter().all(|b| *b) {
                Need::Required
            } else if found.iter().any(|b| *b) {
                Need::Optional
            } else {
                Need::No
            }
        };
        let anonymous = bearer.iter().zip(&basic).any(|(a, b)| !a && !b);
        let (bearer, basic) = (need(&bearer), need(&basic));
        (
            bearer,
            basic,
            !anonymous && bearer == Need::Optional && basic == Need::Optional,
        )
    }

    /// API keys named by the operation's security: passed through raw, the operation checks them.
    fn api_keys(&self, op: &Operation) -> Vec<(String, ParamLocation, String)> {
        let mut keys: Vec<(String, ParamLocation, String)> = Vec::new();
        for requirement in &op.security {
            for name in &requirement.schemes {
                let Some(scheme) = self.api.security_schemes.iter().find(|s| &s.name == name)
                else {
                    continue;
                };
                if let SecurityKind::ApiKey {
                    location,
                    name: key,
                } = &scheme.kind
                    && !keys.iter().any(|(s, _, _)| s == name)
                {
                    keys.push((name.clone(), *location, key.clone()));
                }
            }
        }
        keys
    }

    fn param_field(
        &self,
        op: &Operation,
        p: &Parameter,
        notes: &mut Vec<String>,
    ) -> Option<FieldPlan> {
        let wire = p.wire_name.as_str();
        let mut doc = p.doc.clone().unwrap_or_default();
        if p.deprecated {
            push_paragraph(&mut doc, "**Deprecated.**");
        }
        let (reader, location) = match p.location {
            ParamLocation::Path => (quote! { path }, quote! { params::In::Path }),
            ParamLocation::Query => (quote! { query }, quote! { params::In::Query }),
            ParamLocation::Header => (quote! { headers }, quote! { params::In::Header }),
            ParamLocation::Cookie => (quote! { cookies }, quote! { params::In::Cookie }),
        };
        let path_at = if p.location == ParamLocation::Path {
            match path_position(op, wire) {
                Some(at) => Some(at),
                None => {
                    notes.push(format!("The path parameter `{wire}` does not occur in the path; it is not generated."));
                    return None;
                }
            }
        } else {
            None
        };
        let path_read = |list: bool, parse: &TokenStream| match &path_at {
            Some(PathAt::Capture(index)) if list => {
                quote! { path.required_list(#index, #wire, #parse)? }
            }
            Some(PathAt::Capture(index)) => quote! { path.required(#index, #wire, #parse)? },
            Some(PathAt::Piece {
                segment,
                literals,
                piece,
            }) => {
                let method = if list {
                    quote! { required_piece_list }
                } else {
                    quote! { required_piece }
                };
                quote! { path.#method(#segment, &[#(#literals),*], #piece, #wire, #parse)? }
            }
            None => TokenStream::new(),
        };
        let shape = self.param_shape(&p.ty, p.location);
        let source = match p.location {
            ParamLocation::Path => Source::Path,
            ParamLocation::Query => Source::Query,
            ParamLocation::Header => Source::Header,
            ParamLocation::Cookie => Source::Cookie,
        };
        let name = ident(&p.name);
        if let Some(styled) = self.styled_read(op, p, &shape, &path_at, &mut doc, notes) {
            let (ty, read) = styled;
            return Some(FieldPlan {
                name,
                doc,
                ty,
                read,
                source,
            });
        }
        let (value_ty, parse, check, list) = match &shape {
            ParamShape::Scalar(scalar, check) => {
                (scalar.ty.clone(), scalar.parse.clone(), *check, false)
            }
            ParamShape::List(scalar, check) => {
                let t = &scalar.ty;
                (quote! { Vec<#t> }, scalar.parse.clone(), *check, true)
            }
            ParamShape::Raw(reason) => {
                push_paragraph(
                    &mut doc,
                    &format!("Passed through as the raw text: {reason}."),
                );
                let read = match p.location {
                    ParamLocation::Path => {
                        let read = path_read(false, &quote! { params::value::<String> });
                        quote! { Some(#read) }
                    }
                    _ => quote! { #reader.optional(#wire, params::value::<String>)? },
                };
                return Some(FieldPlan {
                    name,
                    doc,
                    ty: quote! { Option<String> },
                    read,
                    source,
                });
            }
        };
        let explode = p.explode;
        let default = p
            .default
            .as_ref()
            .and_then(|d| self.default_value(&p.ty, d, list));
        if let (Some(value), None) = (&p.default, &default) {
            push_paragraph(
                &mut doc,
                &format!("Default (not applied by the router): `{value}`."),
            );
        } else if let Some(value) = &p.default {
            push_paragraph(&mut doc, &format!("Default: `{value}`."));
        }
        let required = p.required || p.location == ParamLocation::Path;
        let (ty, read, optional) = match (p.location, list) {
            (ParamLocation::Path, list) => (value_ty, path_read(list, &parse), false),
            (ParamLocation::Query, true) => {
                let optional = quote! { query.optional_list(#wire, #explode, #parse)? };
                match (&default, required) {
                    (_, true) => (
                        value_ty,
                        quote! { query.required_list(#wire, #explode, #parse)? },
                        false,
                    ),
                    (Some(default), false) => (value_ty, default.apply(optional), false),
                    (None, false) => (quote! { Option<#value_ty> }, optional, true),
                }
            }
            (_, true) => {
                let optional = quote! { #reader.optional_list(#wire, #parse)? };
                match (&default, required) {
                    (_, true) => (
                        value_ty,
                        quote! { #reader.required_list(#wire, #parse)? },
                        false,
                    ),
                    (Some(default), false) => (value_ty, default.apply(optional), false),
                    (None, false) => (quote! { Option<#value_ty> }, optional, true),
                }
            }
            (_, false) => {
                let optional = quote! { #reader.optional(#wire, #parse)? };
                match (&default, required) {
                    (_, true) => (value_ty, quote! { #reader.required(#wire, #parse)? }, false),
                    (Some(default), false) => (value_ty, default.apply(optional), false),
                    (None, false) => (quote! { Option<#value_ty> }, optional, true),
                }
            }
        };
        let checks = self.checks(&quote! { value }, check, list, self.param_constraints(p));
        let read = if checks.is_empty() {
            read
        } else if optional {
            quote! {{
                let value = #read;
                if let Some(value) = &value {
                    params::check(#location, #wire, |path, errors| { #(#checks)* })?;
                }
                value
            }}
        } else {
            quote! {{
                let value = #read;
                params::check(#location, #wire, |path, errors| { let value = &value; #(#checks)* })?;
                value
            }}
        };
        Some(FieldPlan {
            name,
            doc,
            ty,
            read,
            source,
        })
    }

    /// The type and read of a parameter that the style codec reads (`label`, `matrix`, the
    /// delimited styles, `deepObject`, objects, exploded cookie lists) or that is JSON text;
    /// `None` for the plain forms the readers take directly.
    fn styled_read(
        &self,
        op: &Operation,
        p: &Parameter,
        shape: &ParamShape,
        path_at: &Option<PathAt>,
        doc: &mut String,
        notes: &mut Vec<String>,
    ) -> Option<(TokenStream, TokenStream)> {
        let wire = p.wire_name.as_str();
        let location = location_tokens(p.location);
        let required = p.required || p.location == ParamLocation::Path;
        let finish = |ty: TokenStream, optional: TokenStream| {
            if required {
                (
                    ty,
                    quote! { params::required(#location, #wire, #optional)? },
                )
            } else {
                (quote! { Option<#ty> }, optional)
            }
        };
        if p.json {
            let t = self.printer.rust_type(p.ty.strip_nullable());
            let parse = quote! { params::json::<#t> };
            let read = match (p.location, path_at) {
                (ParamLocation::Path, Some(PathAt::Capture(index))) => {
                    quote! { Some(path.required(#index, #wire, #parse)?) }
                }
                (ParamLocation::Path, _) => return None,
                (ParamLocation::Query, _) => quote! { query.optional(#wire, #parse)? },
                (ParamLocation::Header, _) => quote! { headers.optional(#wire, #parse)? },
                (ParamLocation::Cookie, _) => quote! { cookies.optional(#wire, #parse)? },
            };
            push_paragraph(doc, "Sent as JSON text (`content: application/json`).");
            return Some(finish(t, read));
        }
        let object = self.object_fields(&p.ty);
        let plain_style = match p.location {
            ParamLocation::Path => p.style == ParamStyle::Simple,
            ParamLocation::Query => p.style == ParamStyle::Form,
            _ => true,
        };
        // Lists whose items are split from encoded text (so an encoded `,` stays in its item), and
        // cookie lists, which the plain readers do not take.
        let split_list = matches!(self.api.resolve(&p.ty), TypeRef::Array(_))
            && match p.location {
                ParamLocation::Path => true,
                ParamLocation::Query => !p.explode,
                ParamLocation::Header => false,
                ParamLocation::Cookie => true,
            };
        if plain_style && object.is_none() && !split_list {
            return None;
        }
        let style = format_ident!("{}", p.style.variant());
        let explode = p.explode;
        // The shape the codec reads, and the conversion of its value: (shape, function, parse).
        let (shape_tokens, convert, parse) = match (&object, shape) {
            // Objects with objects or arrays inside are read as a tree (`deep_form`).
            (Some(_), _) if self.nests(&p.ty) => {
                let t = self.printer.rust_type(p.ty.strip_nullable());
                (
                    quote! { models::style::Shape::Object },
                    quote! { deep_form::object::<#t> },
                    None,
                )
            }
            (Some(_), _) => {
                let t = self.printer.rust_type(p.ty.strip_nullable());
                (
                    quote! { models::style::Shape::Object },
                    quote! { params::object::<#t> },
                    None,
                )
            }
            (None, ParamShape::Scalar(scalar, _)) => (
                quote! { models::style::Shape::Primitive },
                quote! { params::primitive },
                Some(scalar.parse.clone()),
            ),
            (None, ParamShape::List(scalar, _)) => (
                quote! { models::style::Shape::Array },
                quote! { params::list },
                Some(scalar.parse.clone()),
            ),
            (None, ParamShape::Raw(_)) => {
                let item = match self.api.resolve(&p.ty) {
                    TypeRef::Array(inner) => self.scalar(self.api.resolve(inner)),
                    _ => None,
                };
                let (scalar, _) = item?;
                (
                    quote! { models::style::Shape::Array },
                    quote! { params::list },
                    Some(scalar.parse),
                )
            }
        };
        let fields = match &object {
            Some(Some(names)) => quote! { Some(&[#(#names),*]) },
            _ => quote! { None },
        };
        let others: Vec<&str> = op
            .parameters
            .iter()
            .filter(|o| o.location == p.location && o.wire_name != p.wire_name)
            .map(|o| o.wire_name.as_str())
            .collect();
        let raw = match (p.location, path_at) {
            (ParamLocation::Path, Some(PathAt::Capture(_))) => {
                let segment = op
                    .segments
                    .iter()
                    .position(|s| matches!(s, PathSegment::Param(n) if n == wire))
                    .map(Literal::usize_unsuffixed)?;
                quote! { Some(path.styled(#segment, #wire, models::style::Style::#style, #explode, #shape_tokens)?) }
            }
            (ParamLocation::Path, _) => {
                notes.push(format!(
                    "The path parameter `{wire}` shares its segment with text: its style `{}` is not applied (simple is).",
                    p.style.spec_name()
                ));
                return None;
            }
            (ParamLocation::Query, _) => quote! {
                query.styled(#wire, models::style::Style::#style, #explode, #shape_tokens, #fields, &[#(#others),*])?
            },
            (ParamLocation::Header, _) => {
                quote! { headers.styled(#wire, #explode, #shape_tokens)? }
            }
            (ParamLocation::Cookie, _) => quote! {
                cookies.styled(#wire, #explode, #shape_tokens, #fields, &[#(#others),*])?
            },
        };
        let value_ty = match (&object, shape) {
            (Some(_), _) => self.printer.rust_type(p.ty.strip_nullable()),
            (None, ParamShape::Scalar(scalar, _)) => scalar.ty.clone(),
            (None, _) => {
                let item = match self.api.resolve(&p.ty) {
                    TypeRef::Array(inner) => {
                        self.scalar(self.api.resolve(inner)).map(|(s, _)| s.ty)
                    }
                    _ => None,
                }?;
                quote! { Vec<#item> }
            }
        };
        let parse = parse.map(|parse| quote! { , #parse });
        let read = quote! { #convert(#location, #wire, #raw #parse)? };
        // Constraints beyond the type (objects are validated as they are decoded).
        let check = match shape {
            ParamShape::Scalar(_, check) | ParamShape::List(_, check) if object.is_none() => *check,
            _ => Check::None,
        };
        let list = matches!(self.api.resolve(&p.ty), TypeRef::Array(_));
        let checks = if object.is_some() {
            Vec::new()
        } else {
            self.checks(&quote! { value }, check, list, self.param_constraints(p))
        };
        let read = if checks.is_empty() {
            read
        } else {
            quote! {{
                let value = #read;
                if let Some(value) = &value {
                    params::check(#location, #wire, |path, errors| { #(#checks)* })?;
                }
                value
            }}
        };
        let default = p
            .default
            .as_ref()
            .and_then(|d| self.default_value(&p.ty, d, list));
        match (&default, required) {
            (Some(default), false) => {
                push_paragraph(doc, &format!("Default: `{}`.", p.default.as_ref()?));
                Some((value_ty, default.apply(read)))
            }
            _ => Some(finish(value_ty, read)),
        }
    }

    /// The property names of an object parameter (`None` inside for a map, whose names are open),
    /// or `None` when the parameter is not a struct or map.
    fn object_fields(&self, ty: &TypeRef) -> Option<Option<Vec<String>>> {
        match self.api.resolve(ty) {
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Struct(st)
                    if st.additional.is_none()
                        || matches!(st.additional, Some(crate::ir::Additional::Deny)) =>
                {
                    Some(Some(
                        st.fields.iter().map(|f| f.wire_name.clone()).collect(),
                    ))
                }
                _ => None,
            },
            TypeRef::Map(_) => Some(None),
            _ => None,
        }
    }

    /// Whether an object parameter has a property (or map value) that is not a primitive: an
    /// object or array, which `deepObject` nests in brackets and other styles send as JSON text.
    fn nests(&self, ty: &TypeRef) -> bool {
        let nested = |t: &TypeRef| self.scalar(self.api.resolve(t)).is_none();
        match self.api.resolve(ty) {
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Struct(st) => st.fields.iter().any(|f| nested(&f.ty)),
                _ => false,
            },
            TypeRef::Map(inner) => nested(inner),
            _ => false,
        }
    }

    /// A parameter's constraints: its own, else those of the constrained alias it names
    /// (`schema: {$ref: '#/components/schemas/Name'}` with `Name: {type: string, pattern: ...}`).
    fn param_constraints<'c>(&'c self, p: &'c Parameter) -> &'c Constraints {
        if !p.constraints.is_empty() {
            return &p.constraints;
        }
        let mut ty = &p.ty;
        for _ in 0..16 {
            match ty {
                TypeRef::Nullable(inner) => ty = inner,
                TypeRef::Named(id) => match &self.api.types[id.0] {
                    def if !def.constraints.is_empty() => return &def.constraints,
                    def => match &def.kind {
                        TypeKind::Alias(inner) => ty = inner,
                        _ => break,
                    },
                },
                _ => break,
            }
        }
        &p.constraints
    }

    /// How a parameter's value is spelled and parsed.
    fn param_shape(&self, ty: &TypeRef, location: ParamLocation) -> ParamShape {
        let ty = self.api.resolve(ty);
        if let Some((scalar, check)) = self.scalar(ty) {
            return ParamShape::Scalar(scalar, check);
        }
        match ty {
            TypeRef::Array(inner) if location != ParamLocation::Cookie => {
                match self.scalar(self.api.resolve(inner)) {
                    Some((scalar, check)) => ParamShape::List(scalar, check),
                    None => ParamShape::Raw(
                        "the generator does not decode lists of this item type".to_owned(),
                    ),
                }
            }
            TypeRef::Array(_) => {
                ParamShape::Raw("the generator does not decode list cookies".to_owned())
            }
            TypeRef::Map(_) => {
                ParamShape::Raw("the generator does not decode object parameters".to_owned())
            }
            TypeRef::Named(id) => ParamShape::Raw(format!(
                "the generator does not decode `{}` from a parameter",
                self.api.types[id.0].name
            )),
            _ => ParamShape::Raw(
                "the generator does not decode this schema from a parameter".to_owned(),
            ),
        }
    }

    /// A rough size in bytes of the Rust type of `ty` (what clippy's `large_enum_variant` compares).
    pub fn size_of(&self, ty: &TypeRef, depth: usize) -> usize {
        if depth > 8 {
            return 8;
        }
        match ty {
            TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => match p {
                Primitive::String | Primitive::Bytes | Primitive::Base64 => 24,
                Primitive::Url => 88,
                Primitive::Uuid => 16,
                Primitive::DateTime => 12,
                Primitive::I64 | Primitive::U64 | Primitive::F64 => 8,
                _ => 4,
            },
            TypeRef::Array(_) | TypeRef::Map(_) => 24,
            TypeRef::Nullable(inner) => self.size_of(inner, depth + 1) + 8,
            TypeRef::Any => 80,
            TypeRef::Null => 0,
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Struct(s) => {
                    let fields: usize = s
                        .fields
                        .iter()
                        .map(|f| {
                            if f.boxed {
                                8
                            } else {
                                self.size_of(&f.ty, depth + 1) + if f.required { 0 } else { 8 }
                            }
                        })
                        .sum();
                    fields
                        + if matches!(s.additional, Some(crate::ir::Additional::Map(_))) {
                            24
                        } else {
                            0
                        }
                }
                TypeKind::Union(u) => {
                    u.variants
                        .iter()
                        .map(|v| {
                            if v.boxed {
                                8
                            } else {
                                self.size_of(&v.ty, depth + 1)
                            }
                        })
                        .max()
                        .unwrap_or(0)
                        + 8
                }
                TypeKind::Alias(inner) | TypeKind::Newtype(inner) => self.size_of(inner, depth + 1),
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => 4,
            },
        }
    }

    fn scalar(&self, ty: &TypeRef) -> Option<(Scalar, Check)> {
        match ty {
            TypeRef::Primitive(Primitive::Bytes) => None,
            TypeRef::Primitive(Primitive::String) => {
                Some((Scalar::value(quote! { String }), Check::Str))
            }
            TypeRef::Primitive(p) if p.is_integer() || p.is_float() => {
                Some((Scalar::value(primitive(*p)), Check::Number(*p)))
            }
            // Parsed by their own `FromStr` (the runtime's `FromParam` cannot name the models' types).
            TypeRef::Primitive(Primitive::Base64 | Primitive::Url) => {
                let t = self.printer.rust_type(ty);
                let parse = quote! { params::from_str::<#t> };
                Some((Scalar { ty: t, parse }, Check::None))
            }
            TypeRef::Primitive(p) => Some((Scalar::value(primitive(*p)), Check::None)),
            TypeRef::NumericString { number, pattern } => {
                let t = primitive(*number);
                let pattern = self.patterns.numeric_static(pattern);
                let parse = quote! { params::numeric::<#t>(&models::patterns::#pattern) };
                Some((Scalar { ty: t, parse }, Check::Number(*number)))
            }
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {
                    let t = self.printer.rust_type(ty);
                    let parse = quote! { params::from_str::<#t> };
                    Some((Scalar { ty: t, parse }, Check::None))
                }
                // A union of primitives (`oneOf: [Name, Uuid]`): the text is the branch's value.
                TypeKind::Union(u)
                    if u.variants
                        .iter()
                        .all(|v| self.scalar(self.api.resolve(&v.ty)).is_some()) =>
                {
                    let t = self.printer.rust_type(ty);
                    let parse = quote! { params::union_text::<#t> };
                    Some((Scalar { ty: t, parse }, Check::None))
                }
                _ => None,
            },
            TypeRef::Any => Some((Scalar::value(quote! { String }), Check::None)),
            _ => None,
        }
    }

    /// Checks of the constraints beyond the type; `value` is an expression of type `&T`.
    fn checks(
        &self,
        value: &TokenStream,
        check: Check,
        list: bool,
        c: &Constraints,
    ) -> Vec<TokenStream> {
        if !list {
            return self.scalar_checks(value, check, c);
        }
        let mut checks = Vec::new();
        if c.min_items.is_some() || c.max_items.is_some() {
            let (min, max) = (opt_usize(c.min_items), opt_usize(c.max_items));
            checks.push(
                quote! { models::validation::items(#value.len(), path, #min, #max, errors); },
            );
        }
        if c.unique_items {
            checks.push(quote! { models::validation::unique(#value, path, errors); });
        }
        if let Some(items) = &c.items {
            let item_checks = self.scalar_checks(&quote! { item }, check, items);
            if !item_checks.is_empty() {
                checks.push(quote! {
                    for (i, item) in #value.iter().enumerate() {
                        let path = models::validation::index(path, i);
                        let path = path.as_str();
                        #(#item_checks)*
                    }
                });
            }
        }
        checks
    }

    fn scalar_checks(
        &self,
        value: &TokenStream,
        check: Check,
        c: &Constraints,
    ) -> Vec<TokenStream> {
        let mut checks = Vec::new();
        match check {
            Check::Str => {
                if c.min_length.is_some() || c.max_length.is_some() {
                    let (min, max) = (opt_usize(c.min_length), opt_usize(c.max_length));
                    checks.push(
                        quote! { models::validation::length(#value, path, #min, #max, errors); },
                    );
                }
                if let Some(source) = &c.pattern
                    && let Some(regex) = self.patterns.regex(source)
                {
                    checks.push(quote! { models::validation::pattern(#value, path, &models::patterns::#regex, #source, errors); });
                }
            }
            Check::Number(p) => {
                if let Some((as_f64, min, max)) = range_args(p, value, c) {
                    checks.push(
                        quote! { models::validation::range(#as_f64, path, #min, #max, errors); },
                    );
                }
            }
            Check::None => {}
        }
        checks
    }

    /// The spec's default as a Rust value, when it can be written as one.
    fn default_value(
        &self,
        ty: &TypeRef,
        value: &serde_json::Value,
        list: bool,
    ) -> Option<DefaultValue> {
        if list {
            return value
                .as_array()
                .is_some_and(Vec::is_empty)
                .then_some(DefaultValue::Empty);
        }
        match (self.api.resolve(ty), value) {
            (TypeRef::Primitive(Primitive::String), serde_json::Value::String(s)) => {
                Some(DefaultValue::Owned(quote! { #s.to_owned() }))
            }
            (TypeRef::Primitive(Primitive::Bool), serde_json::Value::Bool(b)) => {
                Some(DefaultValue::Copy(quote! { #b }))
            }
            (
                TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. },
                serde_json::Value::Number(n),
            ) => number_literal(*p, n, true).map(DefaultValue::Copy),
            (named @ TypeRef::Named(id), v) => {
                let def = &self.api.types[id.0];
                let variant = match &def.kind {
                    TypeKind::StringEnum(e) => e
                        .variants
                        .iter()
                        .find(|x| Some(x.value.as_str()) == v.as_str())
                        .map(|x| &x.name),
                    TypeKind::IntEnum(e) => e
                        .variants
                        .iter()
                        .find(|x| Some(x.value) == v.as_i64())
                        .map(|x| &x.name),
                    _ => None,
                }?;
                let t = self.printer.rust_type(named);
                let variant = ident(variant);
                Some(DefaultValue::Copy(quote! { #t::#variant }))
            }
            _ => None,
        }
    }

    fn body_field(&self, name: &str, body: &RequestBody) -> FieldPlan {
        if body.media == Media::Multipart
            && let Some(fields) = crate::emit::multipart_fields(self.api, &body.ty)
        {
            return self.multipart_field(name, body, fields);
        }
        let required = body.required;
        let (ty, reader, media) = match (&body.media, &body.ty) {
            (Media::Json, ty) => (self.printer.rust_type(ty), "json", "application/json"),
            (Media::Form, ty) => (
                self.printer.rust_type(ty),
                "form",
                "application/x-www-form-urlencoded",
            ),
            (Media::Text, TypeRef::Primitive(Primitive::String)) => {
                (quote! { String }, "text", "text/plain")
            }
            (Media::Text, _) => (quote! { RawBody }, "raw", "text/plain"),
            (Media::Multipart, _) => (quote! { RawBody }, "raw", "multipart/form-data"),
            (Media::Binary(_), _) => (quote! { RawBody }, "raw", "application/octet-stream"),
        };
        let reader = if required {
            format_ident!("{}", reader)
        } else {
            format_ident!("{}_optional", reader)
        };
        let generic =
            if reader.to_string().starts_with("json") || reader.to_string().starts_with("form") {
                quote! { ::<#ty> }
            } else {
                TokenStream::new()
            };
        let read = if crate::emit::is_deep_form(self.api, body) {
            let reader = if required {
                quote! { form_with }
            } else {
                quote! { form_with_optional }
            };
            let lists = crate::emit::form_lists(self.api, body);
            let decode = if lists.is_empty() {
                quote! { deep_form::decode }
            } else {
                quote! { |bytes: &[u8]| deep_form::decode_lists(bytes, &[#(#lists),*]) }
            };
            quote! { body::#reader::<#ty>(Request::from_parts(parts, raw_body), #decode).await? }
        } else {
            quote! { body::#reader #generic(Request::from_parts(parts, raw_body)).await? }
        };
        let ty = if required {
            ty
        } else {
            quote! { Option<#ty> }
        };
        let mut doc = body
            .doc
            .clone()
            .unwrap_or_else(|| "The request body.".to_owned());
        let raw = matches!(body.media, Media::Multipart | Media::Binary(_))
            || matches!((&body.media, &body.ty), (Media::Text, t) if *t != TypeRef::Primitive(Primitive::String));
        let note = match (raw, &body.media) {
            (true, Media::Binary(declared)) => {
                format!("Media type: `{declared}` (any is accepted); passed through undecoded.")
            }
            (true, _) => format!("Media type: `{media}`; passed through undecoded."),
            (false, _) => format!("Media type: `{media}`."),
        };
        push_paragraph(&mut doc, &note);
        if !body.alternatives.is_empty() {
            let others: Vec<String> = body.alternatives.iter().map(|m| format!("`{m}`")).collect();
            push_paragraph(
                &mut doc,
                &format!(
                    "Also documented but not accepted by the router: {}.",
                    others.join(", ")
                ),
            );
        }
        FieldPlan {
            name: ident(name),
            doc,
            ty,
            read,
            source: Source::Body,
        }
    }

    /// A multipart body read part by part into its struct: the properties that are not files
    /// decoded together, then the files put in, then the struct validated.
    fn multipart_field(
        &self,
        name: &str,
        body: &RequestBody,
        fields: &[crate::ir::Field],
    ) -> FieldPlan {
        let ty = self.printer.rust_type(&body.ty);
        let mut kinds = Vec::new();
        let mut files = Vec::new();
        for f in fields {
            let (optional, inner) = crate::emit::models::field_holding(f, &self.api.types);
            let wire = &f.wire_name;
            let field = ident(&f.name);
            let kind = match inner {
                TypeRef::Array(item) => match self.part_kind(item) {
                    PartKind::File => {
                        files.push(if optional {
                            quote! { if value.#field.is_some() { value.#field = Some(form.files(#wire)); } }
                        } else {
                            quote! { value.#field = form.files(#wire); }
                        });
                        quote! { FileList }
                    }
                    PartKind::Text => quote! { TextList },
                    PartKind::Value => quote! { ValueList },
                    PartKind::Json => quote! { Json },
                },
                ty => match self.part_kind(ty) {
                    PartKind::File => {
                        files.push(if optional {
                            quote! { value.#field = form.file(#wire); }
                        } else {
                            quote! { value.#field = form.file(#wire).unwrap_or_default(); }
                        });
                        quote! { File }
                    }
                    PartKind::Text => quote! { Text },
                    PartKind::Value => quote! { Value },
                    PartKind::Json => quote! { Json },
                },
            };
            kinds.push(quote! { (#wire, multipart::PartKind::#kind) });
        }
        let binding = if files.is_empty() {
            quote! { value }
        } else {
            quote! { mut value }
        };
        let decode = quote! {{
            let #binding: #ty = form.decode(&[#(#kinds),*])?;
            #(#files)*
            body::validated(value)?
        }};
        let (read, ty) = if body.required {
            (
                quote! {{
                    let form = multipart::read(Request::from_parts(parts, raw_body)).await?;
                    #decode
                }},
                ty,
            )
        } else {
            (
                quote! {
                    match multipart::read_optional(Request::from_parts(parts, raw_body)).await? {
                        Some(form) => Some(#decode),
                        None => None,
                    }
                },
                quote! { Option<#ty> },
            )
        };
        let mut doc = body
            .doc
            .clone()
            .unwrap_or_else(|| "The request body.".to_owned());
        push_paragraph(
            &mut doc,
            "Media type: `multipart/form-data`, one part per property (files with their name and content type).",
        );
        FieldPlan {
            name: ident(name),
            doc,
            ty,
            read,
            source: Source::Body,
        }
    }

    fn part_kind(&self, ty: &TypeRef) -> PartKind {
        match ty {
            TypeRef::Primitive(Primitive::Bytes) => PartKind::File,
            TypeRef::Primitive(Primitive::String) => PartKind::Text,
            TypeRef::Primitive(_) | TypeRef::NumericString { .. } => PartKind::Value,
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Alias(inner) => self.part_kind(inner),
                TypeKind::StringEnum(_) => PartKind::Text,
                TypeKind::IntEnum(_) => PartKind::Value,
                _ => PartKind::Json,
            },
            _ => PartKind::Json,
        }
    }

    fn responses(&self, op: &Operation, notes: &mut Vec<String>) -> Vec<ResponsePlan> {
        let mut plans = Vec::new();
        for r in &op.responses {
            if let Status::Code(code) = r.status
                && !(100..=999).contains(&code)
            {
                notes.push(format!(
                    "The response `{code}` is not a valid HTTP status; it is not generated."
                ));
                continue;
            }
            let plan = self.response(r, notes);
            let streamed = r.stream.as_ref().map(|stream| {
                // The stream is its own variant beside the other body (`OkStream`), or the
                // response's only one.
                let variant = if plan.body.is_some() {
                    format!("{}Stream", plan.variant)
                } else {
                    plan.variant.clone()
                };
                let item = stream.item.clone();
                let body = match stream.format {
                    StreamFormat::EventStream => Body::Events(item),
                    StreamFormat::JsonLines => Body::Lines(item, stream.media.clone(), false),
                    StreamFormat::JsonSeq => Body::Lines(item, stream.media.clone(), true),
                };
                ResponsePlan {
                    size: 16 + plan.size - plan.body.as_ref().map_or(0, |_| plan.body_size),
                    variant,
                    status: plan.status,
                    doc: format!("{} Streamed as `{}`.", plan.doc, stream.media),
                    body: Some(body),
                    headers: plan.headers.clone(),
                    body_size: 16,
                }
            });
            match streamed {
                Some(streamed) if plan.body.is_none() => plans.push(streamed),
                Some(streamed) => plans.extend([plan, streamed]),
                None => plans.push(plan),
            }
        }
        plans
    }

    fn response(&self, r: &Response, notes: &mut Vec<String>) -> ResponsePlan {
        let (variant, status, label) = match r.status {
            Status::Code(code) => {
                let variant = match known_status(code) {
                    Some((variant, _)) => variant.to_owned(),
                    None => format!("Status{code}"),
                };
                (variant, StatusPlan::Fixed(code), code.to_string())
            }
            Status::Range(digit) => (
                format!("Status{digit}xx"),
                StatusPlan::Chosen,
                format!("{digit}XX"),
            ),
            Status::Default => (
                "Default".to_owned(),
                StatusPlan::Chosen,
                "default".to_owned(),
            ),
        };
        let body = r.body.as_ref().map(|b| match (&b.media, &b.ty) {
            (Media::Json, ty) => Body::Json(ty.clone()),
            (Media::Text, TypeRef::Primitive(Primitive::String)) => Body::Text(
                b.text_type
                    .clone()
                    .filter(|t| is_header_value(t))
                    .map(|t| format!("{t}; charset=utf-8")),
            ),
            (media, _) => {
                let content_type = match media {
                    Media::Binary(m) if is_header_value(m) && !m.contains('*') => m.clone(),
                    Media::Text => b
                        .text_type
                        .clone()
                        .unwrap_or_else(|| "text/plain".to_owned()),
                    Media::Form => "application/x-www-form-urlencoded".to_owned(),
                    Media::Multipart => "multipart/form-data".to_owned(),
                    _ => "application/octet-stream".to_owned(),
                };
                Body::Bytes(content_type)
            }
        });
        let mut taken: HashSet<String> = ["body", "status", "response", "value"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let mut headers = Vec::new();
        for h in &r.headers {
            let wire = h.wire_name.to_ascii_lowercase();
            if wire == "content-type" {
                continue;
            }
            if !is_header_name(&wire) {
                notes.push(format!(
                    "The response header `{}` is not a valid header name; it is not generated.",
                    h.wire_name
                ));
                continue;
            }
            let field = unique_field(&crate::naming::field_ident(&h.wire_name), &mut taken);
            // Numbers, booleans and uuids keep their type; anything else is sent as text.
            let ty = match self.api.resolve(&h.ty) {
                TypeRef::Primitive(p)
                    if p.is_integer()
                        || p.is_float()
                        || matches!(p, Primitive::Bool | Primitive::Uuid) =>
                {
                    Some(*p)
                }
                _ => None,
            };
            headers.push(HeaderPlan {
                field,
                name: h.wire_name.clone(),
                wire,
                ty,
                required: h.required,
                doc: h.doc.clone(),
            });
        }
        // An open media range (`image/*`): the implementer names the body's actual type.
        if let Some(b) = &r.body
            && let Media::Binary(range) = &b.media
            && range.contains('*')
        {
            let field = unique_field("content_type", &mut taken);
            headers.push(HeaderPlan {
                field,
                name: "Content-Type".to_owned(),
                wire: "content-type".to_owned(),
                ty: None,
                required: true,
                doc: Some(format!("The media type of the body, within `{range}`.")),
            });
        }
        let doc = match &r.doc {
            Some(d) => format!("`{label}`: {}", d.trim()),
            None => format!("`{label}`."),
        };
        let body_size = r.body.as_ref().map_or(0, |b| match b.media {
            Media::Json => self.size_of(&b.ty, 0),
            _ => 32,
        });
        let status_size = if matches!(status, StatusPlan::Chosen) {
            2
        } else {
            0
        };
        let size = body_size + status_size + 24 * headers.len();
        ResponsePlan {
            size,
            body_size,
            variant,
            status,
            doc,
            body,
            headers,
        }
    }
}

/// The schema most 4xx responses carry (then `default` and 5xx ones, for specs with no 4xx bodies).
fn error_body(api: &Api) -> Option<TypeId> {
    let count = |select: &dyn Fn(Status) -> bool| {
        let mut counts: BTreeMap<TypeId, usize> = BTreeMap::new();
        for r in api.operations.iter().flat_map(|op| &op.responses) {
            if let (true, Some(body)) = (select(r.status), &r.body)
                && body.media == Media::Json
                && let TypeRef::Named(id) = body.ty
            {
                *counts.entry(id).or_default() += 1;
            }
        }
        // Most uses wins; a tie goes to the type declared first.
        counts
            .into_iter()
            .max_by_key(|(id, n)| (*n, std::cmp::Reverse(*id)))
            .map(|(id, _)| id)
    };
    count(&|s| matches!(s, Status::Code(400..=499) | Status::Range(4))).or_else(|| {
        count(&|s| {
            matches!(
                s,
                Status::Default | Status::Code(500..=599) | Status::Range(5)
            )
        })
    })
}

/// Where the router finds a path parameter.
enum PathAt {
    /// The route's capture at this index: a whole segment.
    Capture(Literal),
    /// A piece of the mixed segment at `segment` (counting from 0), which the route captures whole:
    /// the text between `literals[piece]` and `literals[piece + 1]` (as the client encodes them).
    Piece {
        segment: Literal,
        literals: Vec<String>,
        piece: Literal,
    },
}

fn path_position(op: &Operation, wire: &str) -> Option<PathAt> {
    let mut capture = 0;
    for (i, segment) in op.segments.iter().enumerate() {
        match segment {
            PathSegment::Literal(_) => continue,
            PathSegment::Param(name) if name == wire => {
                return Some(PathAt::Capture(Literal::usize_unsuffixed(capture)));
            }
            PathSegment::Mixed(_) => {
                if let Some(piece) = segment.params().iter().position(|name| *name == wire) {
                    return Some(PathAt::Piece {
                        segment: Literal::usize_unsuffixed(i),
                        literals: encoded_literals(segment),
                        piece: Literal::usize_unsuffixed(piece),
                    });
                }
            }
            PathSegment::Param(_) => {}
        }
        capture += 1;
    }
    None
}

/// Whether requests to an operation's route must be told from others' by their text (mixed
/// segments, or a query the path carries).
pub fn is_distinct(op: &Operation) -> bool {
    !op.query.is_empty()
        || op
            .segments
            .iter()
            .any(|s| matches!(s, PathSegment::Mixed(_)))
}

/// The position and encoded literals of each mixed segment of an operation.
pub fn mixed_literals(op: &Operation) -> MixedLiterals {
    op.segments
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, PathSegment::Mixed(_)))
        .map(|(i, s)| (i, encoded_literals(s)))
        .collect()
}

/// A mixed segment's literal texts as requests carry them.
pub fn encoded_literals(segment: &PathSegment) -> Vec<String> {
    segment
        .literals()
        .into_iter()
        .map(crate::emit::client::requests::encode_literal)
        .collect()
}

/// The axum route of an operation. axum (matchit) requires one name per parameter position after
/// the same prefix (`/a/{id}` and `/a/{name}/b` conflict), so the first name seen at a position is
/// used by every route through it; handlers read path parameters by position, not by name.
/// Appends a `{name}` capture to `route`: the name already chosen at this position by another
/// route, else `candidate` made unique within this route.
fn capture(
    route: &mut String,
    key: &mut String,
    names: &mut HashMap<String, String>,
    used: &mut HashSet<String>,
    candidate: String,
) -> Result<(), String> {
    key.push_str("/{}");
    let chosen = match names.get(key.as_str()) {
        Some(name) => name.clone(),
        None => {
            let mut name = candidate;
            while used.contains(&name) {
                name.push('_');
            }
            names.insert(key.clone(), name.clone());
            name
        }
    };
    if !used.insert(chosen.clone()) {
        return Err("the path repeats a parameter name".to_owned());
    }
    route.push('{');
    route.push_str(&chosen);
    route.push('}');
    Ok(())
}

fn route_path(op: &Operation, names: &mut HashMap<String, String>) -> Result<String, String> {
    let mut key = String::new();
    let mut route = String::new();
    let mut used = HashSet::new();
    for (i, segment) in op.segments.iter().enumerate() {
        route.push('/');
        match segment {
            PathSegment::Literal(text) => {
                if text.starts_with(':') || text.starts_with('*') {
                    return Err(format!(
                        "axum cannot match a literal path segment starting with `{}`",
                        &text[..1]
                    ));
                }
                route.push_str(&text.replace('{', "{{").replace('}', "}}"));
                key.push('/');
                key.push_str(text);
            }
            PathSegment::Param(name) => {
                let clean =
                    name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.is_empty();
                let candidate = if clean { name.clone() } else { format!("p{i}") };
                capture(&mut route, &mut key, names, &mut used, candidate)?;
            }
            // Captured whole (matchit cannot match text around a parameter); the handler splits it.
            PathSegment::Mixed(_) => {
                capture(&mut route, &mut key, names, &mut used, format!("p{i}"))?;
            }
        }
    }
    // The segments drop a trailing slash; axum matches it literally, so keep the spec's.
    if route.is_empty() || (op.path_only().ends_with('/') && !route.ends_with('/')) {
        route.push('/');
    }
    Ok(route)
}

enum ParamShape {
    Scalar(Scalar, Check),
    List(Scalar, Check),
    /// Not decoded: the reason.
    Raw(String),
}

/// How a multipart property travels (the runtime's `multipart::PartKind`, item kinds for arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PartKind {
    File,
    Text,
    Value,
    Json,
}

struct Scalar {
    ty: TokenStream,
    /// An expression of type `impl Fn(&str) -> Result<T, String>`.
    parse: TokenStream,
}

impl Scalar {
    fn value(ty: TokenStream) -> Scalar {
        let parse = quote! { params::value::<#ty> };
        Scalar { ty, parse }
    }
}

#[derive(Debug, Clone, Copy)]
enum Check {
    Str,
    Number(Primitive),
    None,
}

enum DefaultValue {
    Copy(TokenStream),
    Owned(TokenStream),
    Empty,
}

impl DefaultValue {
    fn apply(&self, optional: TokenStream) -> TokenStream {
        match self {
            DefaultValue::Copy(v) => quote! { #optional.unwrap_or(#v) },
            DefaultValue::Owned(v) => quote! { #optional.unwrap_or_else(|| #v) },
            DefaultValue::Empty => quote! { #optional.unwrap_or_default() },
        }
    }
}

fn location_tokens(location: ParamLocation) -> TokenStream {
    match location {
        ParamLocation::Path => quote! { params::In::Path },
        ParamLocation::Query => quote! { params::In::Query },
        ParamLocation::Header => quote! { params::In::Header },
        ParamLocation::Cookie => quote! { params::In::Cookie },
    }
}

fn api_key_field(name: &str, scheme: &str, location: ParamLocation, key: &str) -> FieldPlan {
    let (read, source, place) = match location {
        ParamLocation::Query => (
            quote! { query.optional(#key, params::value::<String>)? },
            Source::Query,
            "query parameter",
        ),
        ParamLocation::Cookie => (
            quote! { cookies.optional(#key, params::value::<String>)? },
            Source::Cookie,
            "cookie",
        ),
        _ => (
            quote! { headers.optional(#key, params::value::<String>)? },
            Source::Header,
            "header",
        ),
    };
    let doc = format!(
        "The API key of the `{scheme}` scheme (the `{key}` {place}), if sent. The router does not check it."
    );
    FieldPlan {
        name: ident(name),
        doc,
        ty: quote! { Option<String> },
        read,
        source,
    }
}

fn unique_type(base: &str, taken: &mut HashSet<String>) -> String {
    let mut name = base.to_owned();
    let mut n = 2;
    while !taken.insert(name.clone()) {
        name = format!("{base}{n}");
        n += 1;
    }
    name
}

fn unique_field(base: &str, taken: &mut HashSet<String>) -> String {
    let mut name = base.to_owned();
    while taken.contains(&name) || crate::naming::is_keyword(&name) {
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

/// RFC 9110 token characters, lowercase (what `HeaderName::from_static` accepts).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || b"!#$%&'*+-.^_`|~".contains(&b)
        })
}

fn is_header_value(value: &str) -> bool {
    value.bytes().all(|b| (0x20..0x7f).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(path: &str) -> Operation {
        Operation {
            id: String::new(),
            name: String::new(),
            method: Method::Get,
            path: path.to_owned(),
            query: Vec::new(),
            segments: path
                .split('/')
                .filter(|s| !s.is_empty())
                .map(
                    |s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                        Some(name) => PathSegment::Param(name.to_owned()),
                        None => PathSegment::Literal(s.to_owned()),
                    },
                )
                .collect(),
            pointer: String::new(),
            summary: None,
            description: None,
            tags: Vec::new(),
            deprecated: false,
            parameters: Vec::new(),
            body: None,
            responses: Vec::new(),
            security: Vec::new(),
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
        let mixed = |path: &str| Operation {
            segments: crate::build::operations::parse_path(path).unwrap(),
            ..op(path)
        };
        assert_eq!(route_path(&op("/x/{id}"), &mut names).unwrap(), "/x/{id}");
        let json = mixed("/x/{sid}.json");
        assert_eq!(route_path(&json, &mut names).unwrap(), "/x/{id}");
        assert_eq!(
            route_path(&mixed("/y/{a}:b"), &mut names).unwrap(),
            "/y/{p1}"
        );
        assert_eq!(
            mixed_literals(&mixed("/f/{name}.{ext}/v{n}")),
            vec![
                (1, vec![String::new(), ".".into(), String::new()]),
                (2, vec!["v".into(), String::new()])
            ]
        );
        assert!(matches!(
            path_position(&mixed("/f/{name}.{ext}/{v}"), "v"),
            Some(PathAt::Capture(_))
        ));
        assert!(matches!(
            path_position(&mixed("/f/{name}.{ext}/{v}"), "ext"),
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

    #[test]
    fn status_names() {
        assert_eq!(
            known_status(415),
            Some(("UnsupportedMediaType", "UNSUPPORTED_MEDIA_TYPE"))
        );
        assert_eq!(known_status(299), None);
    }
}
