//! `requests.rs` (the operation methods of `Client` and their request builders), `responses.rs`
//! (the success enums of operations with several success bodies) and `errors.rs` (the error enum of
//! each operation that documents errors).

use super::plan::{Paging, Plan, Shape, Success, is_media_range};
use super::{error_enums, exchange, methods, sending};
use crate::emit::layout::type_text;
use crate::emit::rust::{doc_lines, primitive};
use crate::emit::struct_items::{self, StructField, StructItem};
use crate::emit::{TypePrinter, ident, laid_out, reprinted};
use crate::ir::{Api, Media, Parameter, Primitive, Status, TypeRef};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::fmt::Write;

/// Builder methods a setter may not replace.
const RESERVED_SETTERS: &[&str] = &[
    "send",
    "send_full",
    "exchange",
    "into_stream",
    "into_future",
    "clone",
    "fmt",
    "body",
];

pub struct RequestEmitter<'a> {
    pub(super) api: &'a Api,
    printer: TypePrinter<'a>,
}

impl<'a> RequestEmitter<'a> {
    pub fn new(api: &'a Api) -> RequestEmitter<'a> {
        RequestEmitter {
            api,
            printer: TypePrinter {
                types: &api.types,
                models: quote! { crate::models:: },
            },
        }
    }

    /// The start of `requests.rs`, as text: the operation methods of `Client`; the builders
    /// follow.
    pub fn requests_head(&self, plans: &[Plan]) -> String {
        let mut out = String::from(
            "//! The operations: one method of [`Client`](crate::Client) each, returning the request builder\n\
             //! defined here. Set optional parameters on the builder, then `.send().await` it (or `.await` it).\n\
             impl crate::Client {\n",
        );
        // Never empty: a document without operations has no client.
        for p in plans {
            self.client_method(&mut out, p);
        }
        out.push_str("}\n");
        out
    }

    /// Part of `requests.rs`, printed: the request builders of `plans`, each followed by its
    /// `send`, `send_full` and `IntoFuture`, written as text (see `sending`).
    pub fn builders(&self, plans: &[Plan]) -> Result<String, String> {
        let mut out = String::new();
        for p in plans {
            self.builder(&mut out, p)?;
        }
        Ok(out)
    }

    fn sending<'p>(&self, p: &'p Plan) -> sending::Sending<'p> {
        sending::Sending {
            builder: &p.type_name,
            ok: type_text(self.success_type(p)),
            err: type_text(self.error_type(p)),
            headers: headers_path(p).map(type_text),
            request: format!("{} {}", p.op.method.as_str(), shown_path(p.op)),
        }
    }

    /// `responses.rs`, as text (laid out by `error_enums`, whose enums have the same shape).
    pub fn responses_rs(&self, plans: &[Plan]) -> String {
        let mut out = String::from(
            "//! Success values of operations whose success statuses have different bodies.\n",
        );
        for p in plans {
            let Success::Enum(variants) = &p.success else {
                continue;
            };
            let variants = variants.iter().map(|v| error_enums::Variant {
                doc: variant_doc_lines(v.status, v.doc.as_deref()),
                name: ident(&v.name).to_string(),
                body: (v.shape != Shape::Empty).then(|| {
                    let ty = type_text(self.shape_type(&v.shape));
                    if v.boxed { format!("Box<{ty}>") } else { ty }
                }),
                headers: Vec::new(),
            });
            let doc = wrap_lines(&format!(
                "The success answers of [`Client::{0}`](crate::Client::{0}), one variant per documented status.",
                p.op.name
            ));
            let e = error_enums::ErrorEnum {
                doc,
                name: ident(&p.type_name).to_string(),
                variants: variants.collect(),
                deref: None,
            };
            error_enums::write(&mut out, &e);
        }
        out
    }

    /// `errors.rs`, as text (see `error_enums`).
    pub fn errors_rs(&self, plans: &[Plan]) -> String {
        let mut out = String::from(error_enums::HEAD);
        for p in plans.iter().filter(|p| !p.errors.is_empty()) {
            error_enums::write(&mut out, &self.error_enum(p));
        }
        out
    }

    fn error_enum(&self, p: &Plan) -> error_enums::ErrorEnum {
        let mut text = format!(
            "The documented errors of [`Client::{0}`](crate::Client::{0}), one variant per status (the status itself is [`Error::status`](crate::Error::status)).",
            p.op.name
        );
        if p.common_error_body.is_some() {
            text.push_str(" Every variant carries the same body, which the enum dereferences to.");
        }
        let variants = p.errors.iter().map(|v| {
            let body = (v.shape != Shape::Empty).then(|| {
                let ty = type_text(self.shape_type(&v.shape));
                if v.boxed { format!("Box<{ty}>") } else { ty }
            });
            let headers = v.headers.iter().map(|h| {
                let ty = type_text(self.printer.rust_type(&h.ty));
                let doc = match h.doc.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
                    Some(d) => format!(
                        "The `{}` header (`None` when absent or malformed). {d}",
                        h.wire
                    ),
                    None => format!("The `{}` header (`None` when absent or malformed).", h.wire),
                };
                (
                    doc_lines(Some(&doc)),
                    ident(&h.field).to_string(),
                    format!("Option<{ty}>"),
                )
            });
            error_enums::Variant {
                doc: variant_doc_lines(v.status, v.doc.as_deref()),
                name: ident(&v.name).to_string(),
                body,
                headers: headers.collect(),
            }
        });
        error_enums::ErrorEnum {
            doc: wrap_lines(&text),
            name: ident(&p.type_name).to_string(),
            variants: variants.collect(),
            deref: p
                .common_error_body
                .as_ref()
                .map(|shape| type_text(self.shape_type(shape))),
        }
    }

    /// `Client::operation(&self, required...) -> Builder`.
    fn client_method(&self, out: &mut String, p: &Plan) {
        let op = p.op;
        let mut args = Vec::new();
        let mut inits = vec!["client: self.clone()".to_owned()];
        for param in &p.required {
            let field = ident(&param.name);
            let (ty, convert) = self.arg_type(&param.ty);
            args.push(format!("{field}: {}", type_text(ty)));
            inits.push(if convert {
                format!("{field}: {field}.into()")
            } else {
                field.to_string()
            });
        }
        if let Some(body) = p.body.filter(|b| b.required) {
            let (ty, convert) = self.body_arg_type(&body.media, &body.ty);
            args.push(format!("body: {}", type_text(ty)));
            inits.push(if convert { "body: body.into()" } else { "body" }.to_owned());
        }
        for param in &p.optional {
            inits.push(format!("{}: None", ident(&param.name)));
        }
        if p.body.is_some_and(|b| !b.required) {
            inits.push("body: None".to_owned());
        }
        methods::write_method(
            out,
            &methods::Method {
                doc: &doc_lines(Some(&self.method_doc(p))),
                deprecated: op.deprecated,
                name: &ident(&op.name).to_string(),
                args: &args,
                builder: &ident(&p.type_name).to_string(),
                inits: &inits,
            },
        );
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
                    format!("the request body, a [`{name}`](crate::models::{name})")
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
                "Documented errors ({}) are [`Error::Api`](crate::Error::Api) holding a [`errors::{1}`](crate::errors::{1}) variant.",
                statuses.join(", "),
                p.type_name
            ));
        }
        if op.deprecated {
            parts.push("Deprecated by the API.".to_owned());
        }
        parts.join("\n\n")
    }

    /// The request builder: its struct and setters as text, then `exchange` and `into_stream`
    /// (when paged) printed from tokens.
    fn builder(&self, out: &mut String, p: &Plan) -> Result<(), String> {
        let op = p.op;
        let name = ident(&p.type_name);
        let mut fields = vec![("client".to_owned(), "crate::Client".to_owned())];
        for param in &p.required {
            let ty = type_text(self.stored_type(&param.ty));
            fields.push((ident(&param.name).to_string(), ty));
        }
        for param in &p.optional {
            let ty = type_text(self.stored_type(strip_nullable(&param.ty)));
            fields.push((ident(&param.name).to_string(), format!("Option<{ty}>")));
        }
        if let Some(body) = p.body {
            let ty = type_text(self.body_stored_type(&body.media, &body.ty));
            let ty = if body.required {
                ty
            } else {
                format!("Option<{ty}>")
            };
            fields.push(("body".to_owned(), ty));
        }
        // A multipart form cannot be cloned.
        let clone = p
            .body
            .is_none_or(|b| b.media != Media::Multipart || self.multipart_struct(&b.ty).is_some());
        let then = if p.optional.is_empty() && p.body.is_none_or(|b| b.required) {
            "Finish it with `.send().await`, or `.await` it."
        } else {
            "Set optional parameters, then `.send().await` it (or `.await` it)."
        };
        let doc = wrap_lines(&format!(
            "Request builder of [`Client::{0}`](crate::Client::{0}): `{1} {2}`. {then}",
            op.name,
            op.method.as_str(),
            shown_path(op)
        ));
        methods::write_builder_struct(out, &doc, clone, &name.to_string(), &fields);

        let sending = self.sending(p);
        let statements = self.statements(p);
        let mut item = format!("impl {name} {{\n");
        exchange::write(
            &mut item,
            &exchange::Exchange {
                ret: sending.exchange_result(),
                documented: !p.success_headers.is_empty(),
                body: !matches!(p.success, Success::Single(Shape::Empty)),
            },
            &statements.request,
            &statements.answer,
        );
        let mut force = statements.force;
        if let Some(paging) = &p.paging {
            // Closures and blocks in a call: laid out by prettyplease.
            let stream = self.stream_method(paging, &self.error_type(p));
            let _ = writeln!(item, "{stream}");
            force = true;
        }
        item.push_str("}\n");
        let printed = if force {
            reprinted(&item, "src/requests.rs")?
        } else {
            laid_out(item, "src/requests.rs")?
        };
        // prettyplease lays out each item of an impl on its own: the setters go in as text after
        // the impl's first line.
        let (head, rest) = printed.split_once('\n').unwrap_or((&printed, ""));
        out.push_str(head);
        out.push('\n');
        for param in &p.optional {
            self.setter(out, param);
        }
        if let Some(body) = p.body.filter(|b| !b.required) {
            let (ty, convert) = self.body_arg_type(&body.media, &body.ty);
            let doc = doc_lines(Some(body.doc.as_deref().unwrap_or("The request body.")));
            methods::write_setter(
                out,
                &methods::Setter {
                    doc: &doc,
                    deprecated: false,
                    name: "body",
                    arg: "body",
                    ty: &type_text(ty),
                    field: "body",
                    value: if convert { "body.into()" } else { "body" },
                },
            );
        }
        out.push_str(rest);
        sending::write(out, &sending);
        Ok(())
    }

    fn setter(&self, out: &mut String, param: &Parameter) {
        let (ty, convert) = self.arg_type(strip_nullable(&param.ty));
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
        methods::write_setter(
            out,
            &methods::Setter {
                doc: &doc_lines(Some(&doc)),
                deprecated: param.deprecated,
                name: &ident(&setter_name(param)).to_string(),
                arg: "value",
                ty: &type_text(ty),
                field: &ident(&param.name).to_string(),
                value: if convert { "value.into()" } else { "value" },
            },
        );
    }

    /// The typed success headers of each operation that documents some (`send_full`'s
    /// `documented`).
    /// `headers.rs`, as text (`struct_items`).
    pub fn headers_rs(&self, plans: &[Plan]) -> String {
        let mut out = String::from(
            "//! The headers each operation's successes document, typed: the `documented` part of\n\
             //! [`ResponseValue`](crate::codec::ResponseValue) (from a builder's `send_full`).\n",
        );
        for p in plans.iter().filter(|p| !p.success_headers.is_empty()) {
            let fields = p.success_headers.iter().map(|h| {
                let ty = type_text(self.printer.rust_type(&h.ty));
                let text = match h.doc.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
                    Some(d) => format!(
                        "The `{}` header (`None` when absent or malformed). {d}",
                        h.wire
                    ),
                    None => format!("The `{}` header (`None` when absent or malformed).", h.wire),
                };
                StructField {
                    doc: doc_lines(Some(&text)),
                    ..StructField::plain(&ident(&h.field).to_string(), &format!("Option<{ty}>"))
                }
            });
            let item = StructItem {
                doc: wrap_lines(&format!(
                    "The headers the successes of [`Client::{0}`](crate::Client::{0}) document, typed.",
                    p.op.name
                )),
                derive: "Debug, Clone, PartialEq, Default",
                attrs: &[],
                name: ident(&p.type_name).to_string(),
                public: true,
                fields: fields.collect(),
            };
            struct_items::write(&mut out, &item);
        }
        out
    }

    fn stream_method(&self, paging: &Paging, err_ty: &TokenStream) -> TokenStream {
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
            pub fn into_stream(self) -> crate::Paged<#item, #err_ty> {
                let take: #number = self.#take.unwrap_or(#default_take);
                let start: #number = self.#skip.unwrap_or(0);
                let pages = ::futures_util::stream::try_unfold(Some((self, start)), move |state| async move {
                    let Some((request, skip)) = state else {
                        return Ok::<_, crate::Error<#err_ty>>(None);
                    };
                    let mut page_request = request.clone();
                    page_request.#skip = Some(skip);
                    page_request.#take = Some(take);
                    let page = page_request.send().await?;
                    let next = match #number::try_from(page.len()) {
                        Ok(length) if length == take && length > 0 => skip.checked_add(length).map(|next| (request, next)),
                        _ => None,
                    };
                    Ok(Some((::futures_util::stream::iter(page.into_iter().map(Ok::<#item, crate::Error<#err_ty>>)), next)))
                });
                crate::Paged::new(::futures_util::TryStreamExt::try_flatten(pages))
            }
        }
    }

    fn success_type(&self, p: &Plan) -> TokenStream {
        match &p.success {
            Success::Single(shape) => self.shape_type(shape),
            Success::Enum(_) => {
                let name = ident(&p.type_name);
                quote! { crate::responses::#name }
            }
        }
    }

    fn error_type(&self, p: &Plan) -> TokenStream {
        if p.errors.is_empty() {
            quote! { () }
        } else {
            let name = ident(&p.type_name);
            quote! { crate::errors::#name }
        }
    }

    fn shape_type(&self, shape: &Shape) -> TokenStream {
        match shape {
            Shape::Empty => quote! { () },
            Shape::Json(ty) => self.printer.rust_type(ty),
            Shape::Text => quote! { String },
            Shape::Bytes => quote! { Vec<u8> },
            Shape::TypedBytes => quote! { crate::codec::Binary },
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
        match media {
            Media::Json | Media::Form => (self.printer.rust_type(ty), false),
            Media::Text => (quote! { impl Into<String> }, true),
            Media::Binary(m) if is_media_range(m) => (quote! { crate::codec::Binary }, false),
            Media::Binary(_) => (quote! { impl Into<Vec<u8>> }, true),
            Media::Multipart if self.multipart_struct(ty).is_some() => {
                (self.printer.rust_type(ty), false)
            }
            Media::Multipart => (quote! { ::reqwest::multipart::Form }, false),
        }
    }

    fn body_stored_type(&self, media: &Media, ty: &TypeRef) -> TokenStream {
        match media {
            Media::Json | Media::Form => self.printer.rust_type(ty),
            Media::Text => quote! { String },
            Media::Binary(m) if is_media_range(m) => quote! { crate::codec::Binary },
            Media::Binary(_) => quote! { Vec<u8> },
            Media::Multipart if self.multipart_struct(ty).is_some() => self.printer.rust_type(ty),
            Media::Multipart => quote! { ::reqwest::multipart::Form },
        }
    }

    /// The fields of a multipart body whose schema is an object: each becomes parts; `None` for
    /// other schemas (the caller then builds the `reqwest` form).
    pub(super) fn multipart_struct(&self, ty: &TypeRef) -> Option<&'a [crate::ir::Field]> {
        crate::emit::multipart_fields(self.api, ty)
    }
}

/// A response variant's doc: its status, then the spec's description of it.
/// A variant's documentation: its status, then the spec's description.
fn variant_doc_lines(status: Status, doc: Option<&str>) -> Vec<String> {
    let mut text = format!("`{}`", status_text(status));
    if let Some(d) = doc.map(str::trim).filter(|d| !d.is_empty()) {
        text.push_str(": ");
        text.push_str(d);
    }
    doc_lines(Some(&text))
}

fn status_text(status: Status) -> String {
    match status {
        Status::Code(code) => code.to_string(),
        Status::Range(first) => format!("{first}XX"),
        Status::Default => "default".to_owned(),
    }
}

pub(super) fn strip_nullable(ty: &TypeRef) -> &TypeRef {
    match ty {
        TypeRef::Nullable(inner) => inner,
        other => other,
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

/// A literal path segment, percent-encoded like a parameter would be (but keeping sub-delimiters
/// such as `:` and `@` that paths carry as they are).
pub(crate) fn encode_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@%".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Braces are `format!` syntax.
pub(super) fn escape_format(text: &str) -> String {
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

/// The typed success headers of an operation that documents some.
fn headers_path(p: &Plan) -> Option<TokenStream> {
    let name = ident(&p.type_name);
    (!p.success_headers.is_empty()).then(|| quote! { crate::headers::#name })
}
