//! Writing the parameters: setters, and how each value is spelled in the path, query, headers
//! and cookies (style, explode, reserved characters).

use super::*;

/// Builder methods a setter may not replace.
pub(super) const RESERVED_SETTERS: &[&str] = &[
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
    "timeout",
    "header",
];

/// The codec's shapes (see `templates/models/style.rs`).
pub(super) enum ValueKind {
    Primitive,
    Array(TypeRef),
    Object,
}

pub(super) fn json_text(root: &TokenStream, value: &Val) -> TokenStream {
    let value = value.by_ref();
    quote! { #root::codec::json_text(#value) }
}

pub(super) fn setter_name(param: &Parameter) -> String {
    if RESERVED_SETTERS.contains(&param.name.as_str()) {
        format!("{}_param", param.name)
    } else {
        param.name.clone()
    }
}

/// "`limit` query parameter".
pub(super) fn param_words(param: &Parameter) -> String {
    format!("`{}` {} parameter", param.wire_name, param.location.word())
}

/// A required parameter that is not nullable: it always has its one value.
pub(super) fn has_one_value(param: &Parameter) -> bool {
    param.required && !matches!(param.ty, TypeRef::Nullable(_))
}

/// Literal text in a `format!` template: percent-encoded, its braces doubled.
fn template_text(text: &str) -> String {
    encode_literal(text).replace('{', "{{").replace('}', "}}")
}

impl<'a> RequestEmitter<'a> {
    /// The setter of an optional input (`body`: the operation's).
    pub(super) fn setter(&self, input: &Input, body: Option<&RequestBody>) -> TokenStream {
        let (setter, arg, doc, deprecated) = match input.param {
            Some(param) => {
                let mut doc = param
                    .doc
                    .clone()
                    .unwrap_or_else(|| format!("The {}.", param_words(param)));
                if let Some(default) = &param.default {
                    doc.push_str(&format!(
                        "\n\nWhen not set, the server applies its default: `{default}`."
                    ));
                }
                (setter_name(param), "value", doc, param.deprecated)
            }
            None => {
                let doc = body.and_then(|b| b.doc.as_deref());
                let doc = doc.unwrap_or("The request body.").to_owned();
                ("body".to_owned(), "body", doc, false)
            }
        };
        let (field, ty, value) = (&input.field, input.arg_type(), input.value(arg));
        let (setter, arg) = (ident(&setter), ident(arg));
        let doc = doc_attrs(Some(&doc));
        let deprecated = deprecated.then(|| quote! { #[deprecated] });
        quote! {
            #doc
            #deprecated
            pub fn #setter(mut self, #arg: #ty) -> Self {
                self.#field = Some(#value);
                self
            }
        }
    }

    /// Code run with each value of a parameter: once when required, when set when optional, when
    /// not null when nullable.
    pub(super) fn for_value(
        &self,
        param: &Parameter,
        body: impl Fn(Val, &TypeRef) -> TokenStream,
    ) -> TokenStream {
        let field = ident(&param.name);
        let inner = param.ty.strip_nullable();
        if has_one_value(param) {
            body(Val::Place(quote! { self.#field }), inner)
        } else {
            let run = body(Val::Ref(quote! { value }), inner);
            quote! { if let Some(value) = &self.#field { #run } }
        }
    }

    /// The request path: a literal, or `format!` with each parameter bound to a local before it
    /// (`let id = ...;`), so the template names its arguments (`"/things/{id}"`) and the macro
    /// holds only a literal, which prettyplease lays out like any other expression.
    pub(super) fn path_expr(&self, p: &Plan) -> (Vec<TokenStream>, TokenStream) {
        let op = p.op;
        let mut template = String::new();
        let mut lets: Vec<TokenStream> = Vec::new();
        for segment in &op.segments {
            template.push('/');
            match segment {
                PathSegment::Literal(text) => template.push_str(&template_text(text)),
                PathSegment::Param(wire) => {
                    template.push_str(&self.path_param(op, wire, None, &mut lets));
                }
                PathSegment::Mixed(parts) => {
                    for (k, part) in parts.iter().enumerate() {
                        match part {
                            SegmentPart::Literal(text) => template.push_str(&template_text(text)),
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
            template.push_str(&template_text(name));
            if !value.is_empty() {
                template.push('=');
                template.push_str(&template_text(value));
            }
        }
        // A text value can make a segment `.` or `..`: refused before the URL resolves it away.
        // Digits, uuids and booleans cannot.
        let dots_possible = op.parameters.iter().any(|param| {
            param.location == ParamLocation::Path
                && (param.style != ParamStyle::Simple
                    || param.json
                    || !matches!(self.value_kind(&param.ty), ValueKind::Primitive)
                    || !self.url_safe(&param.ty))
        });
        let root = &self.root;
        match (lets.is_empty(), dots_possible) {
            (true, _) => (lets, quote! { #template }),
            (false, false) => (lets, quote! { &format!(#template) }),
            (false, true) => (
                lets,
                quote! { &#root::codec::checked_path(format!(#template))? },
            ),
        }
    }

    /// A path parameter's place in the `format!` template (`{id}`), binding its encoded value to a
    /// local; `escape` is a character the value must percent-encode too (it separates the value
    /// from the next one in a mixed segment).
    pub(super) fn path_param(
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
        let place = Val::Place(quote! { self.#field });
        let styled = param.style != ParamStyle::Simple
            || param.json
            || !matches!(self.value_kind(&param.ty), ValueKind::Primitive);
        let value = match escape {
            None if styled => {
                let style = format_ident!("{}", param.style.variant());
                let explode = param.explode;
                let value = self.style_value(param, &param.ty, place);
                quote! { #root::codec::write_path(#root::codec::Style::#style, #explode, #wire, &#value) }
            }
            Some(c) => {
                let (text, also) = (self.text_ref(&param.ty, place), c.to_string());
                quote! { #root::codec::path_segment_escaping(#text, #also) }
            }
            // Digits, uuids, booleans: nothing to encode.
            None if self.url_safe(&param.ty) => quote! { &self.#field },
            None => {
                let text = self.text_ref(&param.ty, place);
                quote! { #root::codec::path_segment(#text) }
            }
        };
        let local_ident = ident(&local);
        lets.push(quote! { let #local_ident = #value; });
        format!("{{{local}}}")
    }

    /// A parameter's value as the style codec's `Value` expression.
    pub(super) fn style_value(&self, param: &Parameter, ty: &TypeRef, value: Val) -> TokenStream {
        let root = &self.root;
        let (v, by_ref) = (value.expr(), value.by_ref());
        if param.json {
            return quote! { #root::codec::Value::Primitive(::serde_json::to_string(#by_ref).unwrap_or_default()) };
        }
        match self.value_kind(ty) {
            // `deepObject` nests objects and arrays in brackets; other styles define no nesting.
            ValueKind::Object if param.style == ParamStyle::DeepObject => {
                quote! { #root::codec::Value::deep_object(#by_ref) }
            }
            ValueKind::Object => quote! { #root::codec::Value::object(#by_ref) },
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
    pub(super) fn value_kind(&self, ty: &TypeRef) -> ValueKind {
        match self.api.unalias(ty) {
            TypeRef::Array(inner) => ValueKind::Array((**inner).clone()),
            TypeRef::Map(_) => ValueKind::Object,
            TypeRef::Named(id) if matches!(self.api.types[id.0].kind, TypeKind::Struct(_)) => {
                ValueKind::Object
            }
            _ => ValueKind::Primitive,
        }
    }

    /// A header's text: `simple` style (arrays comma-joined, objects as `k,v` or `k=v` items).
    pub(super) fn header_text(&self, param: &Parameter, ty: &TypeRef, value: Val) -> TokenStream {
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
    pub(super) fn url_safe(&self, ty: &TypeRef) -> bool {
        match self.api.unalias(ty) {
            TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => {
                p.is_integer() || matches!(p, Primitive::Bool | Primitive::Uuid | Primitive::Date)
            }
            TypeRef::Named(id) => matches!(self.api.types[id.0].kind, TypeKind::IntEnum(_)),
            _ => false,
        }
    }

    /// The text of a value in a path, query, header or cookie, as a `String` expression.
    pub(super) fn text(&self, ty: &TypeRef, value: Val) -> TokenStream {
        let root = &self.root;
        let v = value.expr();
        match self.api.unalias(ty) {
            TypeRef::Primitive(Primitive::String) => quote! { #v.clone() },
            TypeRef::Primitive(Primitive::DateTime) => {
                quote! { #v.to_rfc3339_opts(::chrono::SecondsFormat::AutoSi, true) }
            }
            TypeRef::Primitive(Primitive::Bytes) => json_text(root, &value),
            TypeRef::Primitive(_) | TypeRef::NumericString { .. } => quote! { #v.to_string() },
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => quote! { #v.to_string() },
                TypeKind::Newtype(inner) => self.text(inner, Val::Place(quote! { #v.0 })),
                // Aliases are looked through above.
                TypeKind::Struct(_) | TypeKind::Union(_) | TypeKind::Alias(_) => {
                    json_text(root, &value)
                }
            },
            TypeRef::Array(inner) if self.is_string(inner) => quote! { #v.join(",") },
            TypeRef::Array(inner) => {
                let item = self.item_text(inner);
                quote! { #v.iter().map(#item).collect::<Vec<_>>().join(",") }
            }
            // A string is its own text: cloned whole (clippy's `useless_asref`).
            TypeRef::Nullable(inner) if self.is_string(inner) => {
                quote! { #v.clone().unwrap_or_default() }
            }
            TypeRef::Nullable(inner) => {
                let item = self.item_text(inner);
                quote! { #v.as_ref().map(#item).unwrap_or_default() }
            }
            TypeRef::Map(_) | TypeRef::Any | TypeRef::Null => json_text(root, &value),
        }
    }

    /// The text of a value as `&str`: a `String` value itself, else its text, borrowed.
    pub(super) fn text_ref(&self, ty: &TypeRef, value: Val) -> TokenStream {
        if self.is_string(ty) {
            value.by_ref()
        } else {
            let text = self.text(ty, value);
            quote! { &#text }
        }
    }

    /// The text of an item (`&T`) as a closure, or as the function itself where a closure would only
    /// forward to it (clippy's `redundant_closure`).
    pub(super) fn item_text(&self, ty: &TypeRef) -> TokenStream {
        let root = &self.root;
        let text = self.text(ty, Val::Ref(quote! { item }));
        if text.to_string() == quote! { #root::codec::json_text(item) }.to_string() {
            quote! { #root::codec::json_text }
        } else {
            quote! { |item| #text }
        }
    }

    /// Whether the text of `ty` is a `String` field itself (a path segment can borrow it).
    pub(super) fn is_string(&self, ty: &TypeRef) -> bool {
        matches!(self.api.unalias(ty), TypeRef::Primitive(Primitive::String))
    }
}

#[cfg(test)]
mod tests {
    use crate::{Part, emit::Options};

    #[test]
    fn a_nullable_string_parameter_is_cloned_whole() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/nullable-ref-query.yaml"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        let opts = Options::new("t", "nullable-ref-query.yaml", "test");
        let generated = crate::generate(&text, &opts, &[Part::Client]).expect("generates");
        let requests = (generated.crates[0].1.iter())
            .find(|f| f.path == "src/requests.rs")
            .expect("requests.rs");
        let code = &requests.contents;
        assert!(!code.contains("map(|item| item.clone())"), "{code}");
        assert_eq!(
            code.matches("value.clone().unwrap_or_default()").count(),
            2,
            "{code}"
        );
        // Other types still write each value's text.
        assert!(code.contains("map(|item| item.to_string())"), "{code}");
    }
}
