//! `requests.rs`: the operation methods of `Client` and their request builders, whose `send`
//! writes the parameters ([`parameters`]) and reads the answer ([`answers`]); and the types of
//! those answers ([`outcomes`]: `responses.rs`, `errors.rs`, `headers.rs`).

use super::plan::{
    Arm, Handling, Header, Paging, Plan, Shape, StreamPlan, StreamShape, Success, Variant,
    is_media_range,
};
use crate::emit::rust::{number_literal, primitive};
use crate::emit::{Root, TypePrinter, doc_attrs, ident};
use crate::ir::{
    Api, Media, Method, ParamLocation, ParamStyle, Parameter, PartKind, PathSegment, Primitive,
    RequestBody, SegmentPart, Status, StreamFormat, TypeKind, TypeRef, encode_literal,
};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

mod answers;
mod examples;
mod outcomes;
mod parameters;

use answers::{Source, answers_stream};
use parameters::*;

pub struct RequestEmitter<'a> {
    api: &'a Api,
    printer: TypePrinter<'a>,
    /// The crate's root (`crate`, or `crate::webhooks` for the sender nested in a server).
    root: TokenStream,
    /// [`RequestEmitter::root`] as docs spell it.
    root_text: &'static str,
    /// The crate the methods' doc examples name (`my_api_client`); `None`: no examples.
    example_crate: Option<String>,
    /// The operation groups, when each operation's items are behind its group's feature.
    groups: Option<&'a crate::groups::Groups>,
}

/// A parameter's value in generated code: a place of type `T` (`self.limit`) or a reference `&T`
/// bound to a name (`value`, `item`). Both work as method receivers; functions taking `&T` need to know which.
#[derive(Clone)]
enum Val {
    Place(TokenStream),
    Ref(TokenStream),
}

impl Val {
    fn expr(&self) -> &TokenStream {
        match self {
            Val::Place(expr) | Val::Ref(expr) => expr,
        }
    }

    /// The value as an expression of type `&T`.
    fn by_ref(&self) -> TokenStream {
        match self {
            Val::Place(expr) => quote! { &#expr },
            Val::Ref(expr) => expr.clone(),
        }
    }
}

/// A builder field the caller sets: a parameter, or the request body.
struct Input<'p> {
    /// `None` for the body.
    param: Option<&'p Parameter>,
    field: proc_macro2::Ident,
    /// The field's type (inside `Option` when the input is optional).
    ty: TokenStream,
    /// Whether the argument is `impl Into` the field's type.
    into: bool,
    required: bool,
}

impl Input<'_> {
    fn arg_type(&self) -> TokenStream {
        let ty = &self.ty;
        if self.into {
            quote! { impl Into<#ty> }
        } else {
            ty.clone()
        }
    }

    /// The field's value, from the argument `arg`.
    fn value(&self, arg: &str) -> TokenStream {
        let arg = ident(arg);
        if self.into {
            quote! { #arg.into() }
        } else {
            quote! { #arg }
        }
    }
}

impl<'a> RequestEmitter<'a> {
    pub fn new(api: &'a Api, root: Root) -> RequestEmitter<'a> {
        let path = root.path();
        RequestEmitter {
            api,
            printer: TypePrinter::new(&api.types, quote! { #path::models:: }),
            root: path,
            root_text: root.text(),
            example_crate: None,
            groups: None,
        }
    }

    /// Each operation's items behind the feature of its group.
    pub fn with_groups(mut self, groups: Option<&'a crate::groups::Groups>) -> RequestEmitter<'a> {
        self.groups = groups;
        self
    }

    /// The `#[cfg]` of the items of `p`'s operation (nothing without groups).
    pub(super) fn gate(&self, p: &Plan) -> TokenStream {
        let group = (self.groups).and_then(|g| g.of_operation_id(self.api, &p.op.id));
        super::super::cfg_features(group.as_slice())
    }

    /// Doc examples on the methods, naming the client crate `krate` (a crate whose doc tests run).
    pub fn with_examples(mut self, krate: String) -> RequestEmitter<'a> {
        self.example_crate = Some(krate);
        self
    }

    /// The start of `requests.rs`: the operation methods of `Client`; the builders follow.
    pub fn requests_head(&self, plans: &[Plan]) -> TokenStream {
        let methods = plans
            .iter()
            .map(|p| super::super::gated_fn(self.client_method(p), &self.gate(p)));
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

    /// Part of `requests.rs`: the request builders of `plans`.
    pub fn builders(&self, plans: &[Plan]) -> TokenStream {
        (plans.iter())
            .map(|p| super::super::gated(self.builder(p), &self.gate(p)))
            .collect()
    }

    /// The inputs of an operation in field order: its parameters, required first, then its body.
    fn inputs<'p>(&self, p: &Plan<'p>) -> Vec<Input<'p>> {
        let params = p.required.iter().chain(&p.optional).map(|param| {
            // A nullable required parameter keeps its `Option`.
            let ty = if param.required {
                &param.ty
            } else {
                param.ty.strip_nullable()
            };
            Input {
                param: Some(param),
                field: ident(&param.name),
                ty: self.printer.rust_type(ty),
                into: *ty == TypeRef::Primitive(Primitive::String),
                required: param.required,
            }
        });
        let body = p.body.map(|body| {
            let root = &self.root;
            let (ty, into) = match &body.media {
                Media::Text => (quote! { String }, true),
                Media::Binary(m) if is_media_range(m) => (quote! { #root::codec::Binary }, false),
                Media::Binary(_) => (quote! { Vec<u8> }, true),
                Media::Multipart if self.api.multipart_fields(&body.ty).is_none() => {
                    (quote! { ::reqwest::multipart::Form }, false)
                }
                Media::Json | Media::Form | Media::Multipart => {
                    (self.printer.rust_type(&body.ty), false)
                }
            };
            Input {
                param: None,
                field: ident("body"),
                ty,
                into,
                required: body.required,
            }
        });
        params.chain(body).collect()
    }

    /// `Client::operation(&self, required...) -> Builder`.
    fn client_method(&self, p: &Plan) -> TokenStream {
        let (name, builder) = (ident(&p.op.name), ident(&p.type_name));
        let inputs = self.inputs(p);
        let (required, optional): (Vec<&Input>, Vec<&Input>) =
            inputs.iter().partition(|input| input.required);
        let args = required.iter().map(|input| {
            let (field, ty) = (&input.field, input.arg_type());
            quote! { #field: #ty }
        });
        let inits = required.iter().map(|input| {
            let field = &input.field;
            if input.into {
                quote! { #field: #field.into() }
            } else {
                quote! { #field }
            }
        });
        let nones = optional.iter().map(|input| &input.field);
        let doc = doc_attrs(Some(&self.method_doc(p)));
        // The example is the generator's own Markdown: its code block stays a doc test.
        let example = self.example_doc(p).map(|text| {
            let lines = text.lines().map(|line| {
                if line.is_empty() {
                    String::new()
                } else {
                    format!(" {line}")
                }
            });
            quote! { #[doc = ""] #( #[doc = #lines] )* }
        });
        let deprecated = p.op.deprecated.then(|| quote! { #[deprecated] });
        // One argument per required parameter: the signature mirrors the operation.
        let many = (required.len() + 1 > 7).then(|| {
            quote! { #[allow(clippy::too_many_arguments, reason = "one argument per required parameter of the operation")] }
        });
        quote! {
            #doc
            #example
            #deprecated
            #many
            pub fn #name(&self, #(#args),*) -> #builder {
                #builder { client: self.clone(), options: ::std::default::Default::default(), #(#inits,)* #(#nones: None),* }
            }
        }
    }

    fn method_doc(&self, p: &Plan) -> String {
        let op = p.op;
        let mut parts: Vec<String> = [&op.summary, &op.description]
            .into_iter()
            .filter_map(|text| text.as_deref().map(str::trim).filter(|t| !t.is_empty()))
            .map(str::to_owned)
            .collect();
        parts.push(format!("`{}`", request_line(op)));
        let mut args: Vec<String> = p
            .required
            .iter()
            .map(|param| {
                let doc = one_line(param.doc.as_deref())
                    .unwrap_or_else(|| format!("the {}.", param_words(param)));
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
        let mut setters: Vec<String> = p
            .optional
            .iter()
            .map(|param| format!("`.{}()`", setter_name(param)))
            .collect();
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
        if let Some(key) = &op.idempotency_key {
            parts.push(format!(
                "Each call sends a fresh idempotency key (a UUID v4) in `{key}` unless one is set, and \
                 repeats it when the call is retried: the operation is retried like a `GET`."
            ));
        }
        if !p.errors.is_empty() {
            let statuses: Vec<String> = p
                .errors
                .iter()
                .map(|e| format!("`{}`", e.status.key()))
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
        let inputs = self.inputs(p);
        let fields = inputs.iter().map(|input| {
            let (field, ty) = (&input.field, &input.ty);
            if input.required {
                quote! { #field: #ty }
            } else {
                quote! { #field: Option<#ty> }
            }
        });
        let setters = inputs
            .iter()
            .filter(|input| !input.required)
            .map(|input| self.setter(input, p.body));
        let (ok_ty, err_ty) = (self.success_type(p), self.error_type(p));
        let headers_ty = headers_type(p, root);
        let options = self.option_setters();
        let exchange = self.exchange(p, &ok_ty, &err_ty);
        let paged = p
            .paging
            .as_ref()
            .map(|paging| self.paged_stream(paging, &err_ty));
        // A multipart form cannot be cloned.
        let cloned = p.body.is_none_or(|b| {
            b.media != Media::Multipart || self.api.multipart_fields(&b.ty).is_some()
        });
        let clone = cloned.then(|| quote! { Clone, });
        let streamed = p.stream.as_ref().map(|stream| {
            let open = self.open_stream(p, &err_ty);
            let methods = self.stream_methods(p, stream, &err_ty, cloned);
            quote! { #open #methods }
        });
        let then = if inputs.iter().all(|input| input.required) {
            "Finish it with `.send().await`, or `.await` it."
        } else {
            "Set optional parameters, then `.send().await` it (or `.await` it)."
        };
        let request = request_line(op);
        let doc = wrapped_doc(&format!(
            "Request builder of [`Client::{0}`]({root}::Client::{0}): `{request}`. {then}",
            op.name,
            root = self.root_text,
        ));
        let send_doc = format!(" Sends the request: `{request}`.");
        let full_doc = format!(
            " Sends the request (`{request}`) and answers the body with the status and headers."
        );
        // `send` answers `ResponseFuture<ok, err>`, or `<ok, err, headers>`.
        let args = quote! { #ok_ty, #err_ty #headers_ty };
        // `exchange` answers the boxed future itself unless it is an `async fn` (a stream's).
        let (exchange_part, exchange_full) = if answers_stream(p) {
            (
                quote! { Box::pin(self.exchange(false)) },
                quote! { Box::pin(self.exchange(true)) },
            )
        } else {
            (
                quote! { self.exchange(false) },
                quote! { self.exchange(true) },
            )
        };
        quote! {
            #doc
            #[derive(Debug, #clone)]
            #[must_use = "a request does nothing until it is sent with `.send().await`"]
            pub struct #name {
                client: #root::Client,
                options: #root::client::RequestOptions,
                #(#fields),*
            }

            impl #name {
                #(#setters)*
                #options
                #exchange
                #paged
                #streamed
            }

            impl #name {
                #[doc = #send_doc]
                pub fn send(self) -> #root::codec::ResponseFuture<#args> {
                    #root::codec::ResponseFuture::new(#exchange_part)
                }
                #[doc = #full_doc]
                pub fn send_full(self) -> #root::codec::FullResponseFuture<#args> {
                    #exchange_full
                }
            }
            impl ::std::future::IntoFuture for #name {
                type Output = Result<#ok_ty, #root::Error<#err_ty>>;
                type IntoFuture = #root::codec::ResponseFuture<#args>;
                fn into_future(self) -> Self::IntoFuture {
                    self.send()
                }
            }
        }
    }

    /// The steps of `exchange` (`stream`: of `open_stream`) up to the response: the request's
    /// path, query, headers, cookies and body, then sending it.
    fn request_steps(&self, p: &Plan, stream: bool) -> Vec<TokenStream> {
        let root = &self.root;
        let op = p.op;
        let method = method_tokens(&op.method);
        let (mut steps, path) = self.path_expr(p);

        // Query parameters: written by the style codec into one query string, so delimiters and
        // percent-encoding are exactly OpenAPI's (reqwest's own query encoding would escape `,`).
        let located = |location| op.parameters.iter().filter(move |q| q.location == location);
        let writes: Vec<TokenStream> = located(ParamLocation::Query)
            .map(|param| {
                let (wire, explode, reserved) = (&param.wire_name, param.explode, param.allow_reserved);
                let style = format_ident!("{}", param.style.variant());
                self.for_value(param, |value, ty| {
                    let plain = param.style == ParamStyle::Form
                        && !reserved
                        && !param.json
                        && matches!(self.value_kind(ty), ValueKind::Primitive);
                    if plain {
                        let text = self.text_ref(ty, value);
                        return quote! { #root::codec::query_pair(&mut query, #wire, #text); };
                    }
                    let value = self.style_value(param, ty, value);
                    quote! {
                        #root::codec::write_query(&mut query, #root::codec::Style::#style, #explode, #reserved, #wire, &#value);
                    }
                })
            })
            .collect();
        steps.push(if writes.is_empty() {
            quote! { let request = self.client.inner.request(#method, #path); }
        } else {
            quote! {
                let mut query = String::new();
                #(#writes)*
                let request = self.client.inner.request(#method, &#root::codec::with_query(#path, &query));
            }
        });

        for param in located(ParamLocation::Header) {
            let wire = &param.wire_name;
            let field = ident(&param.name);
            steps.push(if has_one_value(param) {
                let text = self.header_text(param, &param.ty, Val::Place(quote! { self.#field }));
                quote! { let request = request.header(#wire, #text); }
            } else {
                let text =
                    self.header_text(param, param.ty.strip_nullable(), Val::Ref(quote! { value }));
                quote! {
                    let request = match &self.#field {
                        Some(value) => request.header(#wire, #text),
                        None => request,
                    };
                }
            });
        }

        // Cookie parameters: one `Cookie` header.
        let pushes: Vec<TokenStream> = located(ParamLocation::Cookie)
            .map(|param| {
                let (wire, explode) = (&param.wire_name, param.explode);
                self.for_value(param, |value, ty| {
                    let value = self.style_value(param, ty, value);
                    quote! { cookies.extend(#root::codec::write_cookie(#explode, #wire, &#value)); }
                })
            })
            .collect();
        if !pushes.is_empty() {
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
            let value = if body.required {
                quote! { self.body }
            } else {
                quote! { body }
            };
            let by_ref = quote! { &#value };
            let set = match &body.media {
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
                Media::Multipart => match self.api.multipart_fields(&body.ty) {
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
            steps.push(if body.required {
                quote! { let request = #set; }
            } else {
                quote! {
                    let request = match self.body {
                        Some(body) => #set,
                        None => request,
                    };
                }
            });
        }

        // Where the success may be a stream or another body, `Accept` says which one is wanted.
        let accept = match (&p.stream, &p.success) {
            (Some(stream_plan), _) if stream => Some(stream_plan.shape.media.as_str()),
            (_, Success::Single(Shape::Stream(shape))) => Some(shape.media.as_str()),
            (Some(_), Success::Single(Shape::Json(_))) => Some("application/json"),
            _ => None,
        };
        if let Some(accept) = accept {
            steps
                .push(quote! { let request = request.header(::reqwest::header::ACCEPT, #accept); });
        }
        steps
    }

    /// How the client sends the request of `p`: the bearer token, retries, the idempotency key
    /// (the arguments after the options of `Inner::send` and `codec::Sending::new`).
    fn send_arguments(&self, p: &Plan) -> TokenStream {
        let bearer = p.bearer;
        let idempotent = p.op.method.is_idempotent();
        // The client sends a fresh key unless the caller set one (its name in lower case, as
        // `HeaderName::from_static` wants it).
        let key = match &p.op.idempotency_key {
            Some(name) => {
                let name = name.to_ascii_lowercase();
                quote! { Some(#name) }
            }
            None => quote! { None },
        };
        quote! { #bearer, #idempotent, #key }
    }

    /// The steps of an `async` send: the request, then `response`.
    fn send_steps(&self, p: &Plan, stream: bool) -> Vec<TokenStream> {
        let mut steps = self.request_steps(p, stream);
        let arguments = self.send_arguments(p);
        steps.push(quote! {
            let response = self.client.inner.send(request, self.options, #arguments).await?;
        });
        steps
    }

    /// `.timeout(..)` and `.header(..)`, the options every request builder takes.
    fn option_setters(&self) -> TokenStream {
        let error = format!(
            " an invalid name or value is the call's [`Error::Transport`]({}::Error::Transport).",
            self.root_text
        );
        quote! {
            /// Gives up on this request (each try of it) after `timeout`, in place of the client's
            /// timeout.
            pub fn timeout(mut self, timeout: ::std::time::Duration) -> Self {
                self.options.timeout(timeout);
                self
            }
            /// Sends header `name` with `value` in place of the headers of that name the client and
            /// the builder set (call it again with the same name to send several values);
            #[doc = #error]
            pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
                self.options.header(name.into(), value.into());
                self
            }
        }
    }

    fn open_stream(&self, p: &Plan, err_ty: &TokenStream) -> TokenStream {
        let root = &self.root;
        let steps = self.send_steps(p, true);
        let arms = self.arms(p, true, Source::Response);
        quote! {
            /// Sends the request asking for its stream; answers the response of a success status.
            async fn open_stream(self) -> Result<::reqwest::Response, #root::Error<#err_ty>> {
                #(#steps)*
                match response.status().as_u16() { #arms }
            }
        }
    }

    /// `exchange`, which sends the request and decodes the answer into the body and documented
    /// headers. An operation that answers no stream builds its request and decodes its answer in
    /// plain functions around the one shared `codec::exchange`; one that may answer a stream keeps
    /// an `async fn` of its own, which reads the response as the status says.
    fn exchange(&self, p: &Plan, ok_ty: &TokenStream, err_ty: &TokenStream) -> TokenStream {
        let root = &self.root;
        let headers_ty = headers_type(p, root);
        let source = if answers_stream(p) {
            Source::Response
        } else {
            Source::Answer
        };
        // Unit values go straight into the struct (clippy's `let_unit_value`); a named value is
        // a field shorthand there (clippy's `redundant_field_names`).
        let (documented_let, documented_value, documented_field) = if p.success_headers.is_empty() {
            (TokenStream::new(), quote! { () }, quote! { documented: () })
        } else {
            let name = ident(&p.type_name);
            let fields = p.success_headers.iter().map(|h| ident(&h.field));
            let values = p.success_headers.iter().map(|h| {
                let wire = &h.wire;
                match source {
                    Source::Answer => quote! { answer.header(#wire) },
                    Source::Response => quote! { #root::codec::header(&response, #wire) },
                }
            });
            let documented = quote! {
                let documented = #root::headers::#name { #(#fields: #values),* };
            };
            (documented, quote! { documented }, quote! { documented })
        };
        let arms = self.arms(p, false, source);
        let matched = match source {
            Source::Answer => quote! { match answer.status.as_u16() { #arms } },
            Source::Response => quote! { match status.as_u16() { #arms } },
        };
        let (body_let, body_value, body_field) =
            if matches!(p.success, Success::Single(Shape::Empty)) {
                (quote! { #matched?; }, quote! { () }, quote! { body: () })
            } else {
                (
                    quote! { let body = #matched?; },
                    quote! { body },
                    quote! { body },
                )
            };
        if source == Source::Answer {
            let steps = self.request_steps(p, false);
            let arguments = self.send_arguments(p);

            return quote! {
                /// The request, as the client is to send it.
                fn sending(self) -> Result<#root::codec::Sending, #root::Error<#err_ty>> {
                    #(#steps)*
                    Ok(#root::codec::Sending::new(self.client, request, self.options, #arguments))
                }

                /// The body and documented headers of an answer.
                fn decode(
                    answer: &#root::codec::Answer,
                ) -> #root::codec::Decoded<#ok_ty, #err_ty #headers_ty> {
                    #documented_let
                    #body_let
                    Ok((#body_value, #documented_value))
                }

                /// Sends the request; the answer's headers are kept only for `send_full`.
                fn exchange(self, keep_headers: bool) -> #root::codec::FullResponseFuture<#ok_ty, #err_ty #headers_ty> {
                    #root::codec::exchange(self.sending(), keep_headers, Self::decode)
                }
            };
        }
        let steps = self.send_steps(p, false);
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
                Ok(#root::codec::ResponseValue { status, headers, #documented_field, #body_field })
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

    /// A `reqwest::multipart::Form` expression of a body (`body`: a reference to the struct):
    /// files as file parts (name and content type), primitives as text parts, arrays as one part
    /// per item, anything else as a JSON part.
    fn multipart_form(&self, fields: &[crate::ir::Field], body: TokenStream) -> TokenStream {
        let root = &self.root;
        let parts = fields.iter().map(|f| {
            let (optional, inner) = crate::emit::fields::field_holding(f, &self.api.types);
            let (field, wire) = (ident(&f.name), &f.wire_name);
            // A deprecated property is still the caller's to send: read once, where the lint is
            // allowed, rather than through the field each time.
            let local = format_ident!("deprecated_{}", f.name.trim_start_matches("r#"));
            let read_deprecated = f.deprecated.then(|| {
                quote! {
                    #[allow(deprecated, reason = "the caller's value is sent, deprecated or not")]
                    let #local = &body.#field;
                }
            });
            let read = if f.deprecated {
                Val::Ref(quote! { #local })
            } else {
                Val::Place(quote! { body.#field })
            };
            let value = if optional {
                Val::Ref(quote! { value })
            } else {
                read.clone()
            };
            let add = |ty: &TypeRef, value: Val| -> TokenStream {
                let v = value.by_ref();
                let part = match self.api.part_kind(ty) {
                    PartKind::File => quote! { file_part(#wire, #v) },
                    PartKind::Json => quote! { json_part(#v) },
                    PartKind::Text | PartKind::Value => {
                        let text = self.text(ty, value);
                        return quote! { form = form.text(#wire, #text); };
                    }
                };
                quote! { form = form.part(#wire, #root::multipart::#part); }
            };
            let step = match inner {
                TypeRef::Array(item) if self.api.part_kind(item) != PartKind::Json => {
                    let each = add(item.as_ref(), Val::Ref(quote! { item }));
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

/// The request as docs show it (`GET /albums/{id}`): a hook's sender (no path) sends to the
/// client's URL.
fn request_line(op: &crate::ir::Operation) -> String {
    let path = if op.path.is_empty() {
        "{url}"
    } else {
        &op.path
    };
    format!("{} {path}", op.method.as_str())
}

/// `, {root}::headers::{Op}` when the operation documents success headers (the `H` of its
/// `ResponseValue` and futures), else nothing (`H` defaults to `()`).
fn headers_type(p: &Plan, root: &TokenStream) -> TokenStream {
    let name = ident(&p.type_name);
    if p.success_headers.is_empty() {
        TokenStream::new()
    } else {
        quote! { , #root::headers::#name }
    }
}
