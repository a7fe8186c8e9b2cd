//! `requests.rs` (the operation methods of `Client` and their request builders), `responses.rs`
//! (the success enums of operations with several success bodies) and `errors.rs` (the error enum of
//! each operation that documents errors).

use super::plan::{
    Arm, Handling, Paging, Plan, Shape, StreamPlan, StreamShape, Success, is_media_range,
};
use super::sending;
use crate::emit::rust::primitive;
use crate::emit::{Root, TypePrinter, doc_attrs, ident};
use crate::ir::{
    Api, Media, Method, ParamLocation, ParamStyle, Parameter, PathSegment, Primitive, SegmentPart,
    Status, StreamFormat, TypeKind, TypeRef, encode_literal,
};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// Builder methods a setter may not replace.
const RESERVED_SETTERS: &[&str] = &[
    "send",
    "send_full",
    "send_stream",
    "send_stream_reconnecting",
    "exchange",
    "open_stream",
    "into_stream",
    "into_future",
    "clone",
    "fmt",
    "body",
];

pub struct RequestEmitter<'a> {
    api: &'a Api,
    printer: TypePrinter<'a>,
    /// The crate's root (`crate`, or `crate::webhooks` for the sender nested in a server).
    root: TokenStream,
    /// [`RequestEmitter::root`] as docs spell it.
    root_text: &'static str,
}

/// A parameter's value in generated code: a place of type `T` (`self.limit`) or a reference `&T`
/// bound to a name (`value`, `item`). Both work as method receivers; functions taking `&T` need to know which.
#[derive(Clone)]
struct Val {
    expr: TokenStream,
    is_ref: bool,
}

impl Val {
    fn place(expr: TokenStream) -> Val {
        Val {
            expr,
            is_ref: false,
        }
    }

    fn named(name: &str) -> Val {
        let name = ident(name);
        Val {
            expr: quote! { #name },
            is_ref: true,
        }
    }

    /// The value as an expression of type `&T`.
    fn by_ref(&self) -> TokenStream {
        let expr = &self.expr;
        if self.is_ref {
            quote! { #expr }
        } else {
            quote! { &#expr }
        }
    }
}

impl<'a> RequestEmitter<'a> {
    pub fn new(api: &'a Api, root: Root) -> RequestEmitter<'a> {
        RequestEmitter {
            api,
            root: root.path(),
            root_text: root.text(),
            printer: TypePrinter {
                types: &api.types,
                models: {
                    let root = root.path();
                    quote! { #root::models:: }
                },
            },
        }
    }

    /// The start of `requests.rs`: the operation methods of `Client`; the builders follow.
    pub fn requests_head(&self, plans: &[Plan]) -> TokenStream {
        let methods = plans.iter().map(|p| self.client_method(p));
        let root = &self.root;
        let doc = format!(
            " The operations: one method of [`Client`]({}::Client) each, returning the request builder",
            self.root_text
        );
        quote! {
            #![doc = #doc]
            //! defined here. Set optional parameters on the builder, then `.send().await` it (or `.await` it).

            impl #root::Client {
                #(#methods)*
            }
        }
    }

    /// Part of `requests.rs`: the request builders of `plans`, each followed by its `send`,
    /// `send_full` and `IntoFuture` (see `sending`).
    pub fn builders(&self, plans: &[Plan]) -> TokenStream {
        let mut out = TokenStream::new();
        for p in plans {
            out.extend(self.builder(p));
            out.extend(sending::tokens(&self.sending(p)));
        }
        out
    }

    fn sending<'p>(&'p self, p: &'p Plan) -> sending::Sending<'p> {
        sending::Sending {
            builder: &p.type_name,
            ok: self.success_type(p),
            err: self.error_type(p),
            headers: headers_path(p, &self.root),
            root: &self.root,
            request: format!("{} {}", p.op.method.as_str(), shown_path(p.op)),
        }
    }

    pub fn responses_rs(&self, plans: &[Plan]) -> TokenStream {
        let enums = plans.iter().filter_map(|p| {
            let Success::Enum(variants) = &p.success else { return None };
            let name = ident(&p.type_name);
            let doc = wrapped_doc(&format!(
                "The success answers of [`Client::{0}`]({root}::Client::{0}), one variant per documented status.",
                p.op.name,
                root = self.root_text,
            ));
            let variants = variants.iter().map(|v| {
                let vname = ident(&v.name);
                let vdoc = variant_doc(v.status, v.doc.as_deref());
                match &v.shape {
                    Shape::Empty => quote! { #vdoc #vname, },
                    shape => {
                        let ty = self.shape_type(shape);
                        let ty = if v.boxed { quote! { Box<#ty> } } else { ty };
                        quote! { #vdoc #vname(#ty), }
                    }
                }
            });
            Some(quote! {
                #doc
                #[derive(Debug, Clone, PartialEq)]
                pub enum #name {
                    #(#variants)*
                }
            })
        });
        quote! {
            //! Success values of operations whose success statuses have different bodies.

            #(#enums)*
        }
    }

    pub fn errors_rs(&self, plans: &[Plan]) -> TokenStream {
        let enums = plans
            .iter()
            .filter(|p| !p.errors.is_empty())
            .map(|p| self.error_enum(p));
        let doc = format!(
            " The documented errors of each operation: the `body` of [`Error::Api`]({}::Error::Api),",
            self.root_text
        );
        quote! {
            #![doc = #doc]
            //! one variant per documented error status with its decoded body and headers.

            #(#enums)*
        }
    }

    fn error_enum(&self, p: &Plan) -> TokenStream {
        let name = ident(&p.type_name);
        let mut text = format!(
            "The documented errors of [`Client::{0}`]({root}::Client::{0}), one variant per status (the status itself is [`Error::status`]({root}::Error::status)).",
            p.op.name,
            root = self.root_text,
        );
        if p.common_error_body.is_some() {
            text.push_str(" Every variant carries the same body, which the enum dereferences to.");
        }
        let doc = wrapped_doc(&text);
        let variants = p.errors.iter().map(|v| {
            let vname = ident(&v.name);
            let vdoc = variant_doc(v.status, v.doc.as_deref());
            let body = (v.shape != Shape::Empty).then(|| {
                let ty = self.shape_type(&v.shape);
                if v.boxed {
                    quote! { Box<#ty> }
                } else {
                    ty
                }
            });
            if v.headers.is_empty() {
                return match body {
                    Some(ty) => quote! { #vdoc #vname(#ty), },
                    None => quote! { #vdoc #vname, },
                };
            }
            let body = body.map(|ty| quote! { body: #ty, });
            let headers = v.headers.iter().map(|h| {
                let field = ident(&h.field);
                let ty = self.printer.rust_type(&h.ty);
                let doc = match h.doc.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
                    Some(d) => format!(
                        "The `{}` header (`None` when absent or malformed). {d}",
                        h.wire
                    ),
                    None => format!("The `{}` header (`None` when absent or malformed).", h.wire),
                };
                let doc = doc_attrs(Some(&doc));
                quote! { #doc #field: Option<#ty>, }
            });
            quote! { #vdoc #vname { #body #(#headers)* }, }
        });
        let deref = p.common_error_body.as_ref().map(|shape| {
            let target = self.shape_type(shape);
            let arms = p.errors.iter().map(|v| {
                let vname = ident(&v.name);
                let pattern = if v.headers.is_empty() {
                    quote! { Self::#vname(body) }
                } else {
                    quote! { Self::#vname { body, .. } }
                };
                // A boxed body derefs to the target by itself (clippy's `explicit_auto_deref`).
                quote! { #pattern => body, }
            });
            quote! {
                impl ::std::ops::Deref for #name {
                    type Target = #target;

                    fn deref(&self) -> &#target {
                        match self {
                            #(#arms)*
                        }
                    }
                }
            }
        });
        quote! {
            #doc
            #[derive(Debug, Clone, PartialEq)]
            pub enum #name {
                #(#variants)*
            }

            #deref
        }
    }

    /// `Client::operation(&self, required...) -> Builder`.
    fn client_method(&self, p: &Plan) -> TokenStream {
        let op = p.op;
        let name = ident(&op.name);
        let builder = ident(&p.type_name);
        let mut args = Vec::new();
        let mut inits = Vec::new();
        for param in &p.required {
            let field = ident(&param.name);
            let (ty, convert) = self.arg_type(&param.ty);
            args.push(quote! { #field: #ty });
            inits.push(if convert {
                quote! { #field: #field.into() }
            } else {
                quote! { #field }
            });
        }
        if let Some(body) = p.body.filter(|b| b.required) {
            let (ty, convert) = self.body_arg_type(&body.media, &body.ty);
            args.push(quote! { body: #ty });
            inits.push(if convert {
                quote! { body: body.into() }
            } else {
                quote! { body }
            });
        }
        for param in &p.optional {
            let field = ident(&param.name);
            inits.push(quote! { #field: None });
        }
        if p.body.is_some_and(|b| !b.required) {
            inits.push(quote! { body: None });
        }
        let doc = doc_attrs(Some(&self.method_doc(p)));
        let deprecated = op.deprecated.then(|| quote! { #[deprecated] });
        // One argument per required parameter: the signature mirrors the operation.
        let many = (args.len() + 1 > 7).then(|| {
            quote! { #[allow(clippy::too_many_arguments, reason = "one argument per required parameter of the operation")] }
        });
        quote! {
            #doc
            #deprecated
            #many
            pub fn #name(&self, #(#args),*) -> #builder {
                #builder { client: self.clone(), #(#inits),* }
            }
        }
    }

    fn method_doc(&self, p: &Plan) -> String {
        let op = p.op;
        let mut parts: Vec<String> = Vec::new();
        if let Some(summary) = op
            .summary
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            parts.push(summary.to_owned());
        }
        if let Some(description) = op
            .description
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            parts.push(description.to_owned());
        }
        parts.push(format!("`{} {}`", op.method.as_str(), shown_path(op)));
        let mut args: Vec<String> = p
            .required
            .iter()
            .map(|param| {
                let doc = one_line(param.doc.as_deref()).unwrap_or_else(|| {
                    format!(
                        "the `{}` {} parameter.",
                        param.wire_name,
                        param.location.word()
                    )
                });
                format!("- `{}`: {doc}", param.name)
            })
            .collect();
        if let Some(body) = p.body.filter(|b| b.required) {
            let what = match (&body.media, &body.ty) {
                (Media::Json | Media::Form, TypeRef::Named(id)) => {
                    let name = &self.api.types[id.0].name;
                    format!(
                        "the request body, a [`{name}`]({}::models::{name})",
                        self.root_text
                    )
                }
                _ => "the request body".to_owned(),
            };
            let doc = one_line(body.doc.as_deref())
                .map(|d| format!(": {d}"))
                .unwrap_or_else(|| ".".to_owned());
            args.push(format!("- `body`: {what}{doc}"));
        }
        if !args.is_empty() {
            parts.push(format!("Arguments:\n{}", args.join("\n")));
        }
        let setters: Vec<String> = p
            .optional
            .iter()
            .map(|param| format!("`.{}()`", setter_name(param)))
            .collect();
        let mut setters = setters;
        if p.body.is_some_and(|b| !b.required) {
            setters.push("`.body()`".to_owned());
        }
        if !setters.is_empty() {
            parts.push(format!(
                "Optional parameters are set on the builder: {}.",
                setters.join(", ")
            ));
        }
        if p.paging.is_some() {
            parts.push("`.into_stream()` on the builder walks every page.".to_owned());
        }
        if !p.errors.is_empty() {
            let statuses: Vec<String> = p
                .errors
                .iter()
                .map(|e| format!("`{}`", status_text(e.status)))
                .collect();
            parts.push(format!(
                "Documented errors ({}) are [`Error::Api`]({root}::Error::Api) holding a [`errors::{1}`]({root}::errors::{1}) variant.",
                statuses.join(", "),
                p.type_name,
                root = self.root_text,
            ));
        }
        if op.deprecated {
            parts.push("Deprecated by the API.".to_owned());
        }
        parts.join("\n\n")
    }

    /// The request builder: fields, setters, `send`, `IntoFuture`, and `into_stream` when paged.
    fn builder(&self, p: &Plan) -> TokenStream {
        let root = &self.root;
        let op = p.op;
        let name = ident(&p.type_name);
        let mut fields = vec![quote! { client: #root::Client }];
        for param in &p.required {
            let field = ident(&param.name);
            let ty = self.stored_type(&param.ty);
            fields.push(quote! { #field: #ty });
        }
        for param in &p.optional {
            let field = ident(&param.name);
            let ty = self.stored_type(param.ty.strip_nullable());
            fields.push(quote! { #field: Option<#ty> });
        }
        if let Some(body) = p.body {
            let ty = self.body_stored_type(&body.media, &body.ty);
            fields.push(if body.required {
                quote! { body: #ty }
            } else {
                quote! { body: Option<#ty> }
            });
        }
        let setters = p.optional.iter().map(|param| self.setter(param));
        let body_setter = p.body.filter(|b| !b.required).map(|body| {
            let (ty, convert) = self.body_arg_type(&body.media, &body.ty);
            let value = if convert {
                quote! { body.into() }
            } else {
                quote! { body }
            };
            let doc = doc_attrs(Some(body.doc.as_deref().unwrap_or("The request body.")));
            quote! {
                #doc
                pub fn body(mut self, body: #ty) -> Self {
                    self.body = Some(#value);
                    self
                }
            }
        });
        let (ok_ty, err_ty) = (self.success_type(p), self.error_type(p));
        let headers_ty = headers_type(p, root);
        let send = self.send_fn(p, &ok_ty, &err_ty, &headers_ty, false);
        let stream = p
            .paging
            .as_ref()
            .map(|paging| self.stream_method(paging, &err_ty));
        // A multipart form cannot be cloned.
        let cloned = p
            .body
            .is_none_or(|b| b.media != Media::Multipart || self.multipart_struct(&b.ty).is_some());
        let clone = cloned.then(|| quote! { Clone, });
        let streamed = p.stream.as_ref().map(|stream| {
            let open = self.send_fn(p, &ok_ty, &err_ty, &headers_ty, true);
            let methods = self.stream_methods(p, stream, &err_ty, cloned);
            quote! { #open #methods }
        });
        let then = if p.optional.is_empty() && p.body.is_none_or(|b| b.required) {
            "Finish it with `.send().await`, or `.await` it."
        } else {
            "Set optional parameters, then `.send().await` it (or `.await` it)."
        };
        let doc = wrapped_doc(&format!(
            "Request builder of [`Client::{0}`]({root}::Client::{0}): `{1} {2}`. {then}",
            op.name,
            op.method.as_str(),
            shown_path(op),
            root = self.root_text,
        ));
        quote! {
            #doc
            #[derive(Debug, #clone)]
            #[must_use = "a request does nothing until it is sent with `.send().await`"]
            pub struct #name {
                #(#fields),*
            }

            impl #name {
                #(#setters)*
                #body_setter
                #send
                #stream
                #streamed
            }


        }
    }

    /// The type of a stream's items, in `Events` or `Lines`.
    fn stream_type(&self, shape: &StreamShape, err_ty: &TokenStream) -> TokenStream {
        let root = &self.root;
        let item = self.printer.rust_type(&shape.item);
        match shape.format {
            StreamFormat::EventStream => quote! { #root::stream::Events<#item, #err_ty> },
            StreamFormat::JsonLines | StreamFormat::JsonSeq => {
                quote! { #root::stream::Lines<#item, #err_ty> }
            }
        }
    }

    /// `send_stream`, and `send_stream_reconnecting` for a resumable event stream.
    fn stream_methods(
        &self,
        p: &Plan,
        stream: &StreamPlan,
        err_ty: &TokenStream,
        cloned: bool,
    ) -> TokenStream {
        let root = &self.root;
        let ty = self.stream_type(&stream.shape, err_ty);
        let media = &stream.shape.media;
        let wrap = stream_reader(
            root,
            &stream.shape.format,
            quote! { self.open_stream().await? },
        );
        let doc = wrapped_doc(&format!(
            "Sends the request asking for `{media}` and answers the stream of its items, each decoded as it arrives{}. Dropping the stream closes the connection.",
            match stream.shape.format {
                StreamFormat::EventStream =>
                    " (an event stream ends at `data: [DONE]` or when the server closes it)",
                _ => "",
            }
        ));
        let reconnecting = stream.last_event_id.as_ref().filter(|_| cloned).map(|field| {
            let field = ident(field);
            let doc = wrapped_doc(&format!(
                "Like [`send_stream`](Self::send_stream), but when the server closes the stream before `data: [DONE]` (or the connection breaks), waits the `retry` it last sent (3 s until it sends one) and sends the request again with `Last-Event-ID` set to the last event id it sent. `{} {}` answering `204 No Content`, or an error, ends the stream.",
                p.op.method.as_str(),
                shown_path(p.op)
            ));
            quote! {
                #doc
                pub async fn send_stream_reconnecting(self) -> Result<#ty, #root::Error<#err_ty>> {
                    let again = self.clone();
                    let first = self.open_stream().await?;
                    Ok(#root::stream::Events::reconnecting(
                        first,
                        Box::new(move |last_event_id| {
                            let mut request = again.clone();
                            if last_event_id.is_some() {
                                request.#field = last_event_id;
                            }
                            Box::pin(request.open_stream())
                        }),
                    ))
                }
            }
        });
        quote! {
            #doc
            pub async fn send_stream(self) -> Result<#ty, #root::Error<#err_ty>> {
                Ok(#wrap)
            }
            #reconnecting
        }
    }

    fn setter(&self, param: &Parameter) -> TokenStream {
        let field = ident(&param.name);
        let setter = ident(&setter_name(param));
        let (ty, convert) = self.arg_type(param.ty.strip_nullable());
        let value = if convert {
            quote! { value.into() }
        } else {
            quote! { value }
        };
        let mut doc = param.doc.clone().unwrap_or_else(|| {
            format!(
                "The `{}` {} parameter.",
                param.wire_name,
                param.location.word()
            )
        });
        if let Some(default) = &param.default {
            doc.push_str(&format!(
                "\n\nWhen not set, the server applies its default: `{default}`."
            ));
        }
        let doc = doc_attrs(Some(&doc));
        let deprecated = param.deprecated.then(|| quote! { #[deprecated] });
        quote! {
            #doc
            #deprecated
            pub fn #setter(mut self, value: #ty) -> Self {
                self.#field = Some(#value);
                self
            }
        }
    }

    fn send_fn(
        &self,
        p: &Plan,
        ok_ty: &TokenStream,
        err_ty: &TokenStream,
        headers_ty: &TokenStream,
        open_stream: bool,
    ) -> TokenStream {
        let root = &self.root;
        let op = p.op;
        let mut steps: Vec<TokenStream> = Vec::new();
        let method = method_tokens(&op.method);
        let (path_lets, path) = self.path_expr(p);
        steps.extend(path_lets);

        // Query parameters: written by the style codec into one query string, so delimiters and
        // percent-encoding are exactly OpenAPI's (reqwest's own query encoding would escape `,`).
        let query_params: Vec<&Parameter> = op
            .parameters
            .iter()
            .filter(|q| q.location == ParamLocation::Query)
            .collect();
        let request = if query_params.is_empty() {
            quote! { let request = self.client.inner.request(#method, #path); }
        } else {
            let writes = query_params.iter().map(|param| {
                let wire = &param.wire_name;
                let style = format_ident!("{}", param.style.variant());
                let explode = param.explode;
                let reserved = param.allow_reserved;
                self.for_value(param, |value, ty| {
                    let plain = param.style == ParamStyle::Form
                        && !reserved
                        && !param.json
                        && matches!(self.value_kind(ty), ValueKind::Primitive);
                    if plain {
                        let text = if self.is_string(ty) {
                            value.by_ref()
                        } else {
                            let text = self.text(ty, value);
                            quote! { &#text }
                        };
                        return quote! { #root::codec::query_pair(&mut query, #wire, #text); };
                    }
                    let value = self.style_value(param, ty, value);
                    quote! {
                        #root::codec::write_query(&mut query, #root::codec::Style::#style, #explode, #reserved, #wire, &#value);
                    }
                })
            });
            quote! {
                let mut query = String::new();
                #(#writes)*
                let request = self.client.inner.request(#method, &#root::codec::with_query(#path, &query));
            }
        };
        steps.push(request);

        // Header parameters.
        for param in op
            .parameters
            .iter()
            .filter(|h| h.location == ParamLocation::Header)
        {
            let wire = &param.wire_name;
            let field = ident(&param.name);
            steps.push(if self.is_plain(param) {
                let text = self.header_text(param, &param.ty, Val::place(quote! { self.#field }));
                quote! { let request = request.header(#wire, #text); }
            } else {
                let text = self.header_text(param, param.ty.strip_nullable(), Val::named("value"));
                quote! {
                    let request = match &self.#field {
                        Some(value) => request.header(#wire, #text),
                        None => request,
                    };
                }
            });
        }

        // Cookie parameters: one `Cookie` header.
        let cookies: Vec<&Parameter> = op
            .parameters
            .iter()
            .filter(|c| c.location == ParamLocation::Cookie)
            .collect();
        if !cookies.is_empty() {
            let pushes = cookies.iter().map(|param| {
                let wire = &param.wire_name;
                let explode = param.explode;
                self.for_value(param, |value, ty| {
                    let value = self.style_value(param, ty, value);
                    quote! { cookies.extend(#root::codec::write_cookie(#explode, #wire, &#value)); }
                })
            });
            steps.push(quote! {
                let mut cookies: Vec<String> = Vec::new();
                #(#pushes)*
                let request = if cookies.is_empty() {
                    request
                } else {
                    request.header(::reqwest::header::COOKIE, cookies.join("; "))
                };
            });
        }

        if let Some(body) = p.body {
            let apply = |value: TokenStream, by_ref: TokenStream| match &body.media {
                Media::Json => quote! { request.json(#by_ref) },
                Media::Form => {
                    let encoding = body.encoding.iter().map(|e| {
                        let property = &e.property;
                        let style = format_ident!("{}", e.style.variant());
                        let (explode, reserved) = (e.explode, e.allow_reserved);
                        quote! { (#property, #root::codec::Style::#style, #explode, #reserved) }
                    });
                    quote! { #root::codec::form_body(request, #by_ref, &[#(#encoding),*]) }
                }
                Media::Multipart => match self.multipart_struct(&body.ty) {
                    Some(fields) => {
                        let form = self.multipart_form(fields, by_ref);
                        quote! { request.multipart(#form) }
                    }
                    None => quote! { request.multipart(#value) },
                },
                Media::Text => {
                    quote! { request.header(::reqwest::header::CONTENT_TYPE, "text/plain; charset=utf-8").body(#value) }
                }
                // The caller names the content type within the spec's range (`image/png` for `image/*`).
                Media::Binary(media) if is_media_range(media) => {
                    quote! { #root::codec::binary_body(request, #value, #media) }
                }
                Media::Binary(media) => {
                    quote! { request.header(::reqwest::header::CONTENT_TYPE, #media).body(#value) }
                }
            };
            if body.required {
                let set = apply(quote! { self.body }, quote! { &self.body });
                steps.push(quote! { let request = #set; });
            } else {
                let set = apply(quote! { body }, quote! { &body });
                steps.push(quote! {
                    let request = match self.body {
                        Some(body) => #set,
                        None => request,
                    };
                });
            }
        }

        // Where the success may be a stream or another body, `Accept` says which one is wanted.
        let accept = match (&p.stream, &p.success) {
            (Some(stream), _) if open_stream => Some(stream.shape.media.as_str()),
            (_, Success::Single(Shape::Stream(shape))) => Some(shape.media.as_str()),
            (Some(_), Success::Single(Shape::Json(_))) => Some("application/json"),
            _ => None,
        };
        if let Some(accept) = accept {
            steps
                .push(quote! { let request = request.header(::reqwest::header::ACCEPT, #accept); });
        }
        let bearer = p.bearer;
        let idempotent = op.method.is_idempotent();
        steps.push(
            quote! { let response = self.client.inner.send(request, #bearer, #idempotent).await?; },
        );
        if open_stream {
            let arms = p.arms.iter().enumerate().map(|(i, arm)| {
                let Some(pattern) = arm_pattern(&arm.statuses, &claimed_codes(&p.arms[..i])) else {
                    return TokenStream::new();
                };
                let action = match &arm.handling {
                    Handling::Success(_) => quote! { Ok(response) },
                    Handling::Error(index) => self.error_arm(p, *index),
                    Handling::Unexpected => {
                        quote! { Err(#root::codec::unexpected(response).await) }
                    }
                };
                quote! { #pattern => #action, }
            });
            return quote! {
                /// Sends the request asking for its stream; answers the response of a success status.
                async fn open_stream(self) -> Result<::reqwest::Response, #root::Error<#err_ty>> {
                    #(#steps)*
                    match response.status().as_u16() { #(#arms)* }
                }
            };
        }
        let arms = p
            .arms
            .iter()
            .enumerate()
            .map(|(i, arm)| self.arm(p, arm, &claimed_codes(&p.arms[..i])));
        let documented = if p.success_headers.is_empty() {
            quote! { () }
        } else {
            let name = ident(&p.type_name);
            let fields = p.success_headers.iter().map(|h| {
                let field = ident(&h.field);
                let wire = &h.wire;
                quote! { #field: #root::codec::header(&response, #wire) }
            });
            quote! { #root::headers::#name { #(#fields),* } }
        };
        // Unit values go straight into the struct (clippy's `let_unit_value`).
        let (documented_let, documented_value) = if p.success_headers.is_empty() {
            (TokenStream::new(), quote! { documented: () })
        } else {
            (
                quote! { let documented = #documented; },
                quote! { documented },
            )
        };
        let matched = quote! { match status.as_u16() { #(#arms)* } };
        let (body_let, body_value) = if matches!(p.success, Success::Single(Shape::Empty)) {
            (quote! { #matched?; }, quote! { body: () })
        } else {
            (quote! { let body = #matched?; }, quote! { body })
        };
        quote! {

            /// Sends the request; the answer's headers are copied only for `send_full`.
            async fn exchange(
                self,
                keep_headers: bool,
            ) -> Result<#root::codec::ResponseValue<#ok_ty #headers_ty>, #root::Error<#err_ty>> {
                #(#steps)*
                let status = response.status();
                let headers = if keep_headers {
                    response.headers().clone()
                } else {
                    ::reqwest::header::HeaderMap::new()
                };
                #documented_let
                #body_let
                Ok(#root::codec::ResponseValue { status, headers, #documented_value, #body_value })
            }
        }
    }

    /// The typed success headers of each operation that documents some (`send_full`'s
    /// `documented`).
    pub fn headers_rs(&self, plans: &[Plan]) -> TokenStream {
        let structs = plans.iter().filter(|p| !p.success_headers.is_empty()).map(|p| {
            let name = ident(&p.type_name);
            let doc = wrapped_doc(&format!(
                "The headers the successes of [`Client::{0}`]({root}::Client::{0}) document, typed.",
                p.op.name,
                root = self.root_text,
            ));
            let fields = p.success_headers.iter().map(|h| {
                let field = ident(&h.field);
                let ty = self.printer.rust_type(&h.ty);
                let text = match h.doc.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
                    Some(d) => format!("The `{}` header (`None` when absent or malformed). {d}", h.wire),
                    None => format!("The `{}` header (`None` when absent or malformed).", h.wire),
                };
                let doc = doc_attrs(Some(&text));
                quote! { #doc pub #field: Option<#ty>, }
            });
            quote! {
                #doc
                #[derive(Debug, Clone, PartialEq, Default)]
                pub struct #name {
                    #(#fields)*
                }
            }
        });
        let doc = format!(
            " [`ResponseValue`]({}::codec::ResponseValue) (from a builder's `send_full`).",
            self.root_text
        );
        quote! {
            //! The headers each operation's successes document, typed: the `documented` part of
            #![doc = #doc]

            #(#structs)*
        }
    }

    /// Code run with each value of a parameter: once when required, when set when optional, when
    /// not null when nullable.
    fn for_value(
        &self,
        param: &Parameter,
        body: impl Fn(Val, &TypeRef) -> TokenStream,
    ) -> TokenStream {
        let field = ident(&param.name);
        let inner = param.ty.strip_nullable();
        if param.required && !matches!(param.ty, TypeRef::Nullable(_)) {
            body(Val::place(quote! { self.#field }), inner)
        } else {
            let run = body(Val::named("value"), inner);
            quote! { if let Some(value) = &self.#field { #run } }
        }
    }

    /// The request path argument (path parameters percent-encoded): a literal, or `&format!(...)`.
    /// The request path: a literal, or `format!` with each parameter bound to a local before it
    /// (`let id = ...;`), so the template names its arguments (`"/things/{id}"`) and the macro
    /// holds only a literal, which prettyplease lays out like any other expression.
    fn path_expr(&self, p: &Plan) -> (Vec<TokenStream>, TokenStream) {
        let op = p.op;
        let mut template = String::new();
        let mut lets: Vec<TokenStream> = Vec::new();
        for segment in &op.segments {
            template.push('/');
            match segment {
                PathSegment::Literal(text) => {
                    template.push_str(&escape_format(&encode_literal(text)))
                }
                PathSegment::Param(wire) => {
                    template.push_str(&self.path_param(op, wire, None, &mut lets));
                }
                PathSegment::Mixed(parts) => {
                    for (k, part) in parts.iter().enumerate() {
                        match part {
                            SegmentPart::Literal(text) => {
                                template.push_str(&escape_format(&encode_literal(text)))
                            }
                            SegmentPart::Param(wire) => {
                                // The text between two parameters is found by its first occurrence
                                // after the first one's value: that value escapes the text's first
                                // character (when not escaped anyway).
                                let before = match (parts.get(k + 1), parts.get(k + 2)) {
                                    (Some(SegmentPart::Literal(text)), Some(_)) => text
                                        .bytes()
                                        .next()
                                        .filter(|b| b"-._~".contains(b))
                                        .map(char::from),
                                    _ => None,
                                };
                                template.push_str(&self.path_param(op, wire, before, &mut lets));
                            }
                        }
                    }
                }
            }
        }
        // A hook's sender has no path: it sends to the URL it was given, as it is.
        if (op.path_only().ends_with('/') && !op.segments.is_empty())
            || (template.is_empty() && !op.path.is_empty())
        {
            template.push('/');
        }
        // The query the path carries (`?beta=true`); other query parameters are appended to it.
        for (i, (name, value)) in op.query.iter().enumerate() {
            template.push(if i == 0 { '?' } else { '&' });
            template.push_str(&escape_format(&encode_literal(name)));
            if !value.is_empty() {
                template.push('=');
                template.push_str(&escape_format(&encode_literal(value)));
            }
        }
        if lets.is_empty() {
            (lets, quote! { #template })
        } else {
            (lets, quote! { &format!(#template) })
        }
    }

    /// A path parameter's place in the `format!` template (`{id}`), binding its encoded value to a
    /// local; `escape` is a character the value must percent-encode too (it separates the value
    /// from the next one in a mixed segment).
    fn path_param(
        &self,
        op: &crate::ir::Operation,
        wire: &str,
        escape: Option<char>,
        lets: &mut Vec<TokenStream>,
    ) -> String {
        let root = &self.root;
        let param = op
            .parameters
            .iter()
            .find(|q| q.location == ParamLocation::Path && q.wire_name == wire);
        let Some(param) = param else {
            return String::new();
        };
        // A keyword (`r#type`) cannot be named in a format string; `type_` can.
        let local = if crate::naming::is_keyword(&param.name) {
            format!("{}_", param.name)
        } else {
            param.name.clone()
        };
        let field = ident(&param.name);
        let local_ident = ident(&local);
        if escape.is_none()
            && (param.style != ParamStyle::Simple
                || param.json
                || !matches!(self.value_kind(&param.ty), ValueKind::Primitive))
        {
            let style = format_ident!("{}", param.style.variant());
            let explode = param.explode;
            let value = self.style_value(param, &param.ty, Val::place(quote! { self.#field }));
            lets.push(quote! {
                let #local_ident = #root::codec::write_path(#root::codec::Style::#style, #explode, #wire, &#value);
            });
            return format!("{{{local}}}");
        }
        let text = if self.is_string(&param.ty) {
            quote! { &self.#field }
        } else {
            let text = self.text(&param.ty, Val::place(quote! { self.#field }));
            quote! { &#text }
        };
        let value = match escape {
            Some(c) => {
                let also = c.to_string();
                quote! { #root::codec::path_segment_escaping(#text, #also) }
            }
            // Digits, uuids, booleans: nothing to encode.
            None if self.url_safe(&param.ty) => quote! { &self.#field },
            None => quote! { #root::codec::path_segment(#text) },
        };
        lets.push(quote! { let #local_ident = #value; });
        format!("{{{local}}}")
    }

    /// A parameter's value as the style codec's `Value` expression.
    fn style_value(&self, param: &Parameter, ty: &TypeRef, value: Val) -> TokenStream {
        let root = &self.root;
        let v = &value.expr;
        if param.json {
            let by_ref = value.by_ref();
            return quote! { #root::codec::Value::Primitive(::serde_json::to_string(#by_ref).unwrap_or_default()) };
        }
        match self.value_kind(ty) {
            // `deepObject` nests objects and arrays in brackets; other styles define no nesting.
            ValueKind::Object if param.style == ParamStyle::DeepObject => {
                let by_ref = value.by_ref();
                quote! { #root::codec::Value::deep_object(#by_ref) }
            }
            ValueKind::Object => {
                let by_ref = value.by_ref();
                quote! { #root::codec::Value::object(#by_ref) }
            }
            ValueKind::Array(inner) if self.is_string(&inner) => {
                quote! { #root::codec::Value::Array(#v.clone()) }
            }
            ValueKind::Array(inner) => {
                let item = self.item_text(&inner);
                quote! { #root::codec::Value::Array(#v.iter().map(#item).collect()) }
            }
            ValueKind::Primitive => {
                let text = self.text(ty, value);
                quote! { #root::codec::Value::Primitive(#text) }
            }
        }
    }

    /// Which of the codec's shapes a type takes: objects of properties, arrays of items, or one
    /// text (primitives, and what has no better form: unions, nested values as JSON text).
    fn value_kind(&self, ty: &TypeRef) -> ValueKind {
        match ty {
            TypeRef::Array(inner) => ValueKind::Array((**inner).clone()),
            TypeRef::Map(_) => ValueKind::Object,
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Alias(inner) => self.value_kind(inner),
                TypeKind::Struct(_) => ValueKind::Object,
                _ => ValueKind::Primitive,
            },
            _ => ValueKind::Primitive,
        }
    }

    /// A header's text: `simple` style (arrays comma-joined, objects as `k,v` or `k=v` items).
    fn header_text(&self, param: &Parameter, ty: &TypeRef, value: Val) -> TokenStream {
        let root = &self.root;
        if param.json || matches!(self.value_kind(ty), ValueKind::Object) {
            let explode = param.explode;
            let value = self.style_value(param, ty, value);
            quote! { #root::codec::write_header(#explode, &#value) }
        } else {
            self.text(ty, value)
        }
    }

    /// Types whose `Display` never needs percent-encoding in a path segment.
    fn url_safe(&self, ty: &TypeRef) -> bool {
        match ty {
            TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => {
                p.is_integer() || matches!(p, Primitive::Bool | Primitive::Uuid | Primitive::Date)
            }
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::IntEnum(_) => true,
                TypeKind::Alias(inner) => self.url_safe(inner),
                _ => false,
            },
            _ => false,
        }
    }

    /// The text of a value in a path, query, header or cookie, as a `String` expression.
    fn text(&self, ty: &TypeRef, value: Val) -> TokenStream {
        let root = &self.root;
        let v = &value.expr;
        match ty {
            TypeRef::Primitive(Primitive::String) => quote! { #v.clone() },
            TypeRef::Primitive(Primitive::DateTime) => {
                quote! { #v.to_rfc3339_opts(::chrono::SecondsFormat::AutoSi, true) }
            }
            TypeRef::Primitive(Primitive::Bytes) => json_text(root, &value),
            TypeRef::Primitive(_) | TypeRef::NumericString { .. } => quote! { #v.to_string() },
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => quote! { #v.to_string() },
                TypeKind::Alias(inner) => self.text(inner, value),
                TypeKind::Newtype(inner) => self.text(inner, Val::place(quote! { #v.0 })),
                TypeKind::Struct(_) | TypeKind::Union(_) => json_text(root, &value),
            },
            TypeRef::Array(inner) if self.is_string(inner) => quote! { #v.join(",") },
            TypeRef::Array(inner) => {
                let item = self.item_text(inner);
                quote! { #v.iter().map(#item).collect::<Vec<_>>().join(",") }
            }
            TypeRef::Nullable(inner) => {
                let item = self.item_text(inner);
                quote! { #v.as_ref().map(#item).unwrap_or_default() }
            }
            TypeRef::Map(_) | TypeRef::Any | TypeRef::Null => json_text(root, &value),
        }
    }

    /// A required parameter with exactly one value (not nullable, not a repeated query key).
    fn is_plain(&self, param: &Parameter) -> bool {
        param.required
            && !matches!(param.ty, TypeRef::Nullable(_))
            && !(param.location == ParamLocation::Query
                && param.explode
                && matches!(param.ty, TypeRef::Array(_)))
    }

    /// The text of an item (`&T`) as a closure, or as the function itself where a closure would only
    /// forward to it (clippy's `redundant_closure`).
    fn item_text(&self, ty: &TypeRef) -> TokenStream {
        let root = &self.root;
        let text = self.text(ty, Val::named("item"));
        if text.to_string() == quote! { #root::codec::json_text(item) }.to_string() {
            quote! { #root::codec::json_text }
        } else {
            quote! { |item| #text }
        }
    }

    /// Whether the text of `ty` is a `String` field itself (a path segment can borrow it).
    fn is_string(&self, ty: &TypeRef) -> bool {
        match ty {
            TypeRef::Primitive(Primitive::String) => true,
            TypeRef::Named(id) => {
                matches!(&self.api.types[id.0].kind, TypeKind::Alias(inner) if self.is_string(inner))
            }
            _ => false,
        }
    }

    /// One arm of the status `match`; `claimed` are the codes earlier arms match.
    fn arm(&self, p: &Plan, arm: &Arm, claimed: &[u16]) -> TokenStream {
        let root = &self.root;
        let Some(pattern) = arm_pattern(&arm.statuses, claimed) else {
            return TokenStream::new();
        };
        let action = match &arm.handling {
            Handling::Success(None) => match &p.success {
                Success::Single(shape) => read_shape(root, shape),
                Success::Enum(_) => unreachable!("enum success arms carry their variant"),
            },
            Handling::Success(Some(index)) => {
                let Success::Enum(variants) = &p.success else {
                    unreachable!("variant index without enum")
                };
                let variant = &variants[*index];
                let path = {
                    let enum_name = ident(&p.type_name);
                    let vname = ident(&variant.name);
                    quote! { #root::responses::#enum_name::#vname }
                };
                match &variant.shape {
                    Shape::Empty => quote! {{
                        #root::codec::empty(response).await?;
                        Ok(#path)
                    }},
                    shape => {
                        let read = read_shape(root, shape);
                        let value = if variant.boxed {
                            quote! { Box::new(#read?) }
                        } else {
                            quote! { #read? }
                        };
                        quote! { Ok(#path(#value)) }
                    }
                }
            }
            Handling::Error(index) => self.error_arm(p, *index),
            Handling::Unexpected => quote! { Err(#root::codec::unexpected(response).await) },
        };
        quote! { #pattern => #action, }
    }

    /// Reads a documented error: its headers, then its body, into its variant of `Error::Api`.
    fn error_arm(&self, p: &Plan, index: usize) -> TokenStream {
        let root = &self.root;
        let variant = &p.errors[index];
        let path = {
            let enum_name = ident(&p.type_name);
            let vname = ident(&variant.name);
            quote! { #root::errors::#enum_name::#vname }
        };
        let headers: Vec<TokenStream> = variant
            .headers
            .iter()
            .map(|h| {
                let field = ident(&h.field);
                let wire = &h.wire;
                quote! { let #field = #root::codec::header(&response, #wire); }
            })
            .collect();
        let fields: Vec<_> = variant.headers.iter().map(|h| ident(&h.field)).collect();
        let read = match &variant.shape {
            Shape::Empty => {
                let value = if fields.is_empty() {
                    quote! { #path }
                } else {
                    quote! { #path { #(#fields),* } }
                };
                quote! { #root::codec::api_empty(response, #value) }
            }
            shape => {
                let reader = match shape {
                    Shape::Text => quote! { api_text },
                    Shape::Bytes => quote! { api_bytes },
                    Shape::TypedBytes => quote! { api_binary },
                    _ => quote! { api_json },
                };
                let body = if variant.boxed {
                    quote! { Box::new(body) }
                } else {
                    quote! { body }
                };
                // A tuple variant's constructor is itself the function (clippy's `redundant_closure`).
                let variant = match (fields.is_empty(), variant.boxed) {
                    (true, false) => quote! { #path },
                    (true, true) => quote! { |body| #path(#body) },
                    (false, false) => quote! { |body| #path { body, #(#fields),* } },
                    (false, true) => quote! { |body| #path { body: #body, #(#fields),* } },
                };
                quote! { #root::codec::#reader(response, #variant) }
            }
        };
        if headers.is_empty() {
            quote! { Err(#read.await) }
        } else {
            quote! {{
                #(#headers)*
                Err(#read.await)
            }}
        }
    }

    fn stream_method(&self, paging: &Paging, err_ty: &TokenStream) -> TokenStream {
        let root = &self.root;
        let skip = ident(&paging.skip.name);
        let take = ident(&paging.take.name);
        let number = primitive(paging.number);
        let item = self.printer.rust_type(&paging.item);
        let default_take = int_literal(paging.number, paging.default_take);
        let doc = wrapped_doc(&format!(
            "Every item, page after page: sends the request with `{skip}` advanced by the length of each page and `{take}` as the page size (the value set, else {}), until a page comes back shorter than that. A failed page ends the stream with its error.",
            paging.default_take,
            skip = paging.skip.wire_name,
            take = paging.take.wire_name,
        ));
        quote! {
            #doc
            pub fn into_stream(self) -> #root::Paged<#item, #err_ty> {
                let take: #number = self.#take.unwrap_or(#default_take);
                let start: #number = self.#skip.unwrap_or(0);
                let pages = ::futures_util::stream::try_unfold(Some((self, start)), move |state| async move {
                    let Some((request, skip)) = state else {
                        return Ok::<_, #root::Error<#err_ty>>(None);
                    };
                    let mut page_request = request.clone();
                    page_request.#skip = Some(skip);
                    page_request.#take = Some(take);
                    let page = page_request.send().await?;
                    let next = match #number::try_from(page.len()) {
                        Ok(length) if length == take && length > 0 => skip.checked_add(length).map(|next| (request, next)),
                        _ => None,
                    };
                    Ok(Some((::futures_util::stream::iter(page.into_iter().map(Ok::<#item, #root::Error<#err_ty>>)), next)))
                });
                #root::Paged::new(::futures_util::TryStreamExt::try_flatten(pages))
            }
        }
    }

    fn success_type(&self, p: &Plan) -> TokenStream {
        let root = &self.root;
        match &p.success {
            Success::Single(Shape::Stream(shape)) => self.stream_type(shape, &self.error_type(p)),
            Success::Single(shape) => self.shape_type(shape),
            Success::Enum(_) => {
                let name = ident(&p.type_name);
                quote! { #root::responses::#name }
            }
        }
    }

    fn error_type(&self, p: &Plan) -> TokenStream {
        let root = &self.root;
        if p.errors.is_empty() {
            quote! { () }
        } else {
            let name = ident(&p.type_name);
            quote! { #root::errors::#name }
        }
    }

    fn shape_type(&self, shape: &Shape) -> TokenStream {
        let root = &self.root;
        match shape {
            Shape::Empty => quote! { () },
            Shape::Json(ty) => self.printer.rust_type(ty),
            Shape::Text => quote! { String },
            Shape::Bytes => quote! { Vec<u8> },
            Shape::TypedBytes => quote! { #root::codec::Binary },
            Shape::Stream(_) => unreachable!("streams are typed by `stream_type`"),
        }
    }

    /// The argument type of a parameter, and whether the value is converted with `.into()`.
    fn arg_type(&self, ty: &TypeRef) -> (TokenStream, bool) {
        match ty {
            TypeRef::Primitive(Primitive::String) => (quote! { impl Into<String> }, true),
            other => (self.printer.rust_type(other), false),
        }
    }

    fn stored_type(&self, ty: &TypeRef) -> TokenStream {
        self.printer.rust_type(ty)
    }

    fn body_arg_type(&self, media: &Media, ty: &TypeRef) -> (TokenStream, bool) {
        let root = &self.root;
        match media {
            Media::Json | Media::Form => (self.printer.rust_type(ty), false),
            Media::Text => (quote! { impl Into<String> }, true),
            Media::Binary(m) if is_media_range(m) => (quote! { #root::codec::Binary }, false),
            Media::Binary(_) => (quote! { impl Into<Vec<u8>> }, true),
            Media::Multipart if self.multipart_struct(ty).is_some() => {
                (self.printer.rust_type(ty), false)
            }
            Media::Multipart => (quote! { ::reqwest::multipart::Form }, false),
        }
    }

    fn body_stored_type(&self, media: &Media, ty: &TypeRef) -> TokenStream {
        let root = &self.root;
        match media {
            Media::Json | Media::Form => self.printer.rust_type(ty),
            Media::Text => quote! { String },
            Media::Binary(m) if is_media_range(m) => quote! { #root::codec::Binary },
            Media::Binary(_) => quote! { Vec<u8> },
            Media::Multipart if self.multipart_struct(ty).is_some() => self.printer.rust_type(ty),
            Media::Multipart => quote! { ::reqwest::multipart::Form },
        }
    }

    /// The fields of a multipart body whose schema is an object: each becomes parts; `None` for
    /// other schemas (the caller then builds the `reqwest` form).
    fn multipart_struct(&self, ty: &TypeRef) -> Option<&'a [crate::ir::Field]> {
        crate::emit::multipart_fields(self.api, ty)
    }

    /// A `reqwest::multipart::Form` expression of a body (`body`: a reference to the struct):
    /// files as file parts (name and content type), primitives as text parts, arrays as one part
    /// per item, anything else as a JSON part.
    fn multipart_form(&self, fields: &[crate::ir::Field], body: TokenStream) -> TokenStream {
        let root = &self.root;
        let parts = fields.iter().map(|f| {
            let (optional, inner) = crate::emit::models::field_holding(f, &self.api.types);
            let field = ident(&f.name);
            let wire = &f.wire_name;
            // A deprecated property is still the caller's to send: read once, where the lint is
            // allowed, rather than through the field each time.
            let (read_deprecated, read) = if f.deprecated {
                let local = format_ident!("deprecated_{}", f.name.trim_start_matches("r#"));
                (
                    quote! {
                        #[allow(deprecated, reason = "the caller's value is sent, deprecated or not")]
                        let #local = &body.#field;
                    },
                    Val::named(&local.to_string()),
                )
            } else {
                (TokenStream::new(), Val::place(quote! { body.#field }))
            };
            let value = if optional {
                Val::named("value")
            } else {
                read.clone()
            };
            let add = |ty: &TypeRef, value: Val| -> TokenStream {
                let v = value.by_ref();
                match self.multipart_kind(ty) {
                    MultipartKind::File => {
                        quote! { form = form.part(#wire, #root::multipart::file_part(#wire, #v)); }
                    }
                    MultipartKind::Text => {
                        let text = self.text(ty, value);
                        quote! { form = form.text(#wire, #text); }
                    }
                    MultipartKind::Json => {
                        quote! { form = form.part(#wire, #root::multipart::json_part(#v)); }
                    }
                }
            };
            let step = match inner {
                TypeRef::Array(item)
                    if self.multipart_kind(item.as_ref()) != MultipartKind::Json =>
                {
                    let each = add(item.as_ref(), Val::named("item"));
                    let items = value.by_ref();
                    quote! { for item in #items { #each } }
                }
                ty => add(ty, value),
            };
            let read_ref = read.by_ref();
            if optional {
                quote! { #read_deprecated if let Some(value) = #read_ref { #step } }
            } else {
                quote! { #read_deprecated #step }
            }
        });
        quote! {{
            let body = #body;
            let mut form = ::reqwest::multipart::Form::new();
            #(#parts)*
            form
        }}
    }

    fn multipart_kind(&self, ty: &TypeRef) -> MultipartKind {
        match ty {
            TypeRef::Primitive(Primitive::Bytes) => MultipartKind::File,
            TypeRef::Array(_)
            | TypeRef::Map(_)
            | TypeRef::Any
            | TypeRef::Null
            | TypeRef::Nullable(_) => MultipartKind::Json,
            TypeRef::Primitive(_) | TypeRef::NumericString { .. } => MultipartKind::Text,
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Alias(inner) => self.multipart_kind(inner),
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => MultipartKind::Text,
                _ => MultipartKind::Json,
            },
        }
    }
}

/// How a multipart body's property travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MultipartKind {
    File,
    Text,
    Json,
}

/// The codec's shapes (see `templates/models/style.rs`).
enum ValueKind {
    Primitive,
    Array(TypeRef),
    Object,
}

fn json_text(root: &TokenStream, value: &Val) -> TokenStream {
    let value = value.by_ref();
    quote! { #root::codec::json_text(#value) }
}

fn read_shape(root: &TokenStream, shape: &Shape) -> TokenStream {
    match shape {
        Shape::Empty => quote! { #root::codec::empty(response).await },
        Shape::Json(_) => quote! { #root::codec::json(response).await },
        Shape::Text => quote! { #root::codec::text(response).await },
        Shape::Bytes => quote! { #root::codec::bytes(response).await },
        Shape::TypedBytes => quote! { #root::codec::binary(response).await },
        Shape::Stream(shape) => {
            let read = stream_reader(root, &shape.format, quote! { response });
            quote! { Ok(#read) }
        }
    }
}

/// The status codes that earlier arms match.
fn claimed_codes(earlier: &[Arm]) -> Vec<u16> {
    earlier
        .iter()
        .flat_map(|a| &a.statuses)
        .filter_map(|s| match s {
            Status::Code(code) => Some(*code),
            _ => None,
        })
        .collect()
}

/// A stream's reader over the response `response` evaluates to.
fn stream_reader(root: &TokenStream, format: &StreamFormat, response: TokenStream) -> TokenStream {
    match format {
        StreamFormat::EventStream => quote! { #root::stream::Events::new(#response) },
        StreamFormat::JsonLines => {
            quote! { #root::stream::Lines::new(#response, #root::stream::Delimiter::Line) }
        }
        StreamFormat::JsonSeq => {
            quote! { #root::stream::Lines::new(#response, #root::stream::Delimiter::RecordSeparator) }
        }
    }
}

/// The statuses of one arm as a pattern, or `None` when earlier arms claim them all. A range leaves
/// out the codes earlier arms match (clippy's `match_overlapping_arm`), and an arm covering one
/// contiguous span is written as one range (clippy's `manual_range_patterns`: `4XX` and `5XX`
/// together are `400..=599`).
fn arm_pattern(statuses: &[Status], claimed: &[u16]) -> Option<TokenStream> {
    if statuses == [Status::Default] {
        return Some(quote! { _ });
    }
    let mut spans: Vec<(u16, u16)> = Vec::new();
    for status in statuses {
        match *status {
            Status::Code(code) => spans.push((code, code)),
            Status::Range(first) => {
                let (mut low, high) = (first * 100, first * 100 + 99);
                let mut cuts: Vec<u16> = claimed
                    .iter()
                    .copied()
                    .filter(|c| (low..=high).contains(c))
                    .collect();
                cuts.sort_unstable();
                for cut in cuts {
                    if cut > low {
                        spans.push((low, cut - 1));
                    }
                    low = cut + 1;
                }
                if low <= high {
                    spans.push((low, high));
                }
            }
            Status::Default => {}
        }
    }
    if spans.is_empty() {
        return None;
    }
    spans.sort_unstable();
    let has_range = spans.iter().any(|(low, high)| low != high);
    let contiguous = spans.windows(2).all(|w| w[1].0 <= w[0].1.saturating_add(1));
    if spans.len() > 1 && contiguous && (spans.len() >= 3 || has_range) {
        spans = vec![(
            spans[0].0,
            spans.iter().map(|s| s.1).max().unwrap_or(spans[0].1),
        )];
    }
    let patterns = spans.iter().map(|&(low, high)| {
        let (low_lit, high_lit) = (Literal::u16_unsuffixed(low), Literal::u16_unsuffixed(high));
        if low == high {
            quote! { #low_lit }
        } else {
            quote! { #low_lit..=#high_lit }
        }
    });
    Some(quote! { #(#patterns)|* })
}

/// A response variant's doc: its status, then the spec's description of it.
fn variant_doc(status: Status, doc: Option<&str>) -> TokenStream {
    let mut text = format!("`{}`", status_text(status));
    if let Some(d) = doc.map(str::trim).filter(|d| !d.is_empty()) {
        text.push_str(": ");
        text.push_str(d);
    }
    doc_attrs(Some(&text))
}

fn status_text(status: Status) -> String {
    match status {
        Status::Code(code) => code.to_string(),
        Status::Range(first) => format!("{first}XX"),
        Status::Default => "default".to_owned(),
    }
}

fn method_tokens(method: &Method) -> TokenStream {
    if method.is_standard() {
        let name = format_ident!("{}", method.as_str());
        quote! { ::reqwest::Method::#name }
    } else {
        // `QUERY` and custom methods: the generator checked the name is an HTTP token.
        let name = proc_macro2::Literal::byte_string(method.as_str().as_bytes());
        quote! { ::reqwest::Method::from_bytes(#name).expect("an HTTP token") }
    }
}

fn setter_name(param: &Parameter) -> String {
    if RESERVED_SETTERS.contains(&param.name.as_str()) {
        format!("{}_param", param.name)
    } else {
        param.name.clone()
    }
}

/// Doc attributes of the generator's own prose, wrapped like hand-written comments.
pub(super) fn wrapped_doc(text: &str) -> TokenStream {
    let lines = wrap_lines(text);
    quote! { #( #[doc = #lines] )* }
}

/// The lines of `wrapped_doc` (paragraphs separated by blank lines).
pub(super) fn wrap_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for paragraph in text.split("\n\n") {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        let mut line = String::new();
        for word in words(paragraph) {
            if !line.is_empty() && line.len() + 1 + word.len() > 96 {
                lines.push(std::mem::take(&mut line));
            }
            line.push(' ');
            line.push_str(&word);
        }
        lines.push(line);
    }
    lines
}

/// The words of a paragraph, a `code span` counting as one word.
fn words(paragraph: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for word in paragraph.split_whitespace() {
        match out.last_mut() {
            Some(last) if open => {
                last.push(' ');
                last.push_str(word);
            }
            _ => out.push(word.to_owned()),
        }
        if word.matches('`').count() % 2 == 1 {
            open = !open;
        }
    }
    out
}

fn one_line(doc: Option<&str>) -> Option<String> {
    let doc = doc?.split_whitespace().collect::<Vec<_>>().join(" ");
    (!doc.is_empty()).then_some(doc)
}

fn int_literal(number: Primitive, value: i64) -> TokenStream {
    let lit = match number {
        Primitive::I8 => i8::try_from(value).ok().map(Literal::i8_suffixed),
        Primitive::I16 => i16::try_from(value).ok().map(Literal::i16_suffixed),
        Primitive::I32 => i32::try_from(value).ok().map(Literal::i32_suffixed),
        Primitive::I64 => Some(Literal::i64_suffixed(value)),
        Primitive::U8 => u8::try_from(value).ok().map(Literal::u8_suffixed),
        Primitive::U16 => u16::try_from(value).ok().map(Literal::u16_suffixed),
        Primitive::U32 => u32::try_from(value).ok().map(Literal::u32_suffixed),
        Primitive::U64 => u64::try_from(value).ok().map(Literal::u64_suffixed),
        _ => None,
    };
    let lit = lit.unwrap_or_else(|| Literal::u8_unsuffixed(50));
    quote! { #lit }
}

/// Braces are `format!` syntax.
fn escape_format(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// The path as docs show it: a hook's sender (no path) sends to the client's URL.
fn shown_path(op: &crate::ir::Operation) -> &str {
    if op.path.is_empty() {
        "{url}"
    } else {
        &op.path
    }
}

/// `, {root}::headers::{Op}` when the operation documents success headers (the `H` of its
/// `ResponseValue` and futures), else nothing (`H` defaults to `()`).
fn headers_type(p: &Plan, root: &TokenStream) -> TokenStream {
    match headers_path(p, root) {
        Some(path) => quote! { , #path },
        None => TokenStream::new(),
    }
}

/// The typed success headers of an operation that documents some.
fn headers_path(p: &Plan, root: &TokenStream) -> Option<TokenStream> {
    let name = ident(&p.type_name);
    (!p.success_headers.is_empty()).then(|| quote! { #root::headers::#name })
}
