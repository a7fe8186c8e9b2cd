//! The text of parameter values in a builder's statements: how a path, query, header, cookie or
//! multipart value is spelled, for each type and style.

use super::requests::RequestEmitter;
use crate::emit::ident;
use crate::ir::{Field, ParamLocation, Parameter, Primitive, TypeKind, TypeRef};
use proc_macro2::Literal;
use std::fmt::Write;

/// A parameter's value in generated code: a place of type `T` (`self.limit`) or a reference `&T`
/// bound to a name (`value`, `item`). Both work as method receivers; functions taking `&T` need to
/// know which.
#[derive(Clone)]
pub(super) struct Val {
    pub(super) expr: String,
    is_ref: bool,
}

impl Val {
    pub(super) fn place(expr: String) -> Val {
        Val {
            expr,
            is_ref: false,
        }
    }

    pub(super) fn named(name: &str) -> Val {
        Val {
            expr: ident(name).to_string(),
            is_ref: true,
        }
    }

    /// The value as an expression of type `&T`.
    pub(super) fn by_ref(&self) -> String {
        if self.is_ref {
            self.expr.clone()
        } else {
            format!("&{}", self.expr)
        }
    }
}

/// The codec's shapes (see `templates/models/style.rs`).
pub(super) enum ValueKind {
    Primitive,
    Array(TypeRef),
    Object,
}

/// How a multipart body's property travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MultipartKind {
    File,
    Text,
    Json,
}

pub(super) fn lit(text: &str) -> String {
    Literal::string(text).to_string()
}

impl RequestEmitter<'_> {
    /// A parameter's value as the style codec's `Value` expression.
    pub(super) fn style_value(&self, param: &Parameter, ty: &TypeRef, value: Val) -> String {
        if param.json {
            return format!(
                "crate::codec::Value::Primitive(::serde_json::to_string({}).unwrap_or_default())",
                value.by_ref()
            );
        }
        let v = &value.expr;
        match self.value_kind(ty) {
            ValueKind::Object => format!("crate::codec::Value::object({})", value.by_ref()),
            ValueKind::Array(inner) if self.is_string(&inner) => {
                format!("crate::codec::Value::Array({v}.clone())")
            }
            ValueKind::Array(inner) => format!(
                "crate::codec::Value::Array({v}.iter().map({}).collect())",
                self.item_text(&inner)
            ),
            ValueKind::Primitive => {
                format!("crate::codec::Value::Primitive({})", self.text(ty, value))
            }
        }
    }

    /// Which of the codec's shapes a type takes: objects of properties, arrays of items, or one
    /// text (primitives, and what has no better form: unions, nested values as JSON text).
    pub(super) fn value_kind(&self, ty: &TypeRef) -> ValueKind {
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
    pub(super) fn header_text(&self, param: &Parameter, ty: &TypeRef, value: Val) -> String {
        if param.json || matches!(self.value_kind(ty), ValueKind::Object) {
            format!(
                "crate::codec::write_header({}, &{})",
                param.explode,
                self.style_value(param, ty, value)
            )
        } else {
            self.text(ty, value)
        }
    }

    /// Types whose `Display` never needs percent-encoding in a path segment.
    pub(super) fn url_safe(&self, ty: &TypeRef) -> bool {
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
    pub(super) fn text(&self, ty: &TypeRef, value: Val) -> String {
        let v = &value.expr;
        match ty {
            TypeRef::Primitive(Primitive::String) => format!("{v}.clone()"),
            TypeRef::Primitive(Primitive::DateTime) => {
                format!("{v}.to_rfc3339_opts(::chrono::SecondsFormat::AutoSi, true)")
            }
            TypeRef::Primitive(Primitive::Bytes) => json_text(&value),
            TypeRef::Primitive(_) | TypeRef::NumericString { .. } => format!("{v}.to_string()"),
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => format!("{v}.to_string()"),
                TypeKind::Alias(inner) => self.text(inner, value),
                TypeKind::Newtype(inner) => self.text(inner, Val::place(format!("{v}.0"))),
                TypeKind::Struct(_) | TypeKind::Union(_) => json_text(&value),
            },
            TypeRef::Array(inner) if self.is_string(inner) => format!("{v}.join(\",\")"),
            TypeRef::Array(inner) => format!(
                "{v}.iter().map({}).collect::<Vec<_>>().join(\",\")",
                self.item_text(inner)
            ),
            TypeRef::Nullable(inner) => format!(
                "{v}.as_ref().map({}).unwrap_or_default()",
                self.item_text(inner)
            ),
            TypeRef::Map(_) | TypeRef::Any | TypeRef::Null => json_text(&value),
        }
    }

    /// A required parameter with exactly one value (not nullable, not a repeated query key).
    pub(super) fn is_plain(&self, param: &Parameter) -> bool {
        param.required
            && !matches!(param.ty, TypeRef::Nullable(_))
            && !(param.location == ParamLocation::Query
                && param.explode
                && matches!(param.ty, TypeRef::Array(_)))
    }

    /// The text of an item (`&T`) as a closure, or as the function itself where a closure would
    /// only forward to it (clippy's `redundant_closure`).
    pub(super) fn item_text(&self, ty: &TypeRef) -> String {
        let text = self.text(ty, Val::named("item"));
        if text == "crate::codec::json_text(item)" {
            "crate::codec::json_text".to_owned()
        } else {
            format!("|item| {text}")
        }
    }

    /// Whether the text of `ty` is a `String` field itself (a path segment can borrow it).
    pub(super) fn is_string(&self, ty: &TypeRef) -> bool {
        match ty {
            TypeRef::Primitive(Primitive::String) => true,
            TypeRef::Named(id) => {
                matches!(&self.api.types[id.0].kind, TypeKind::Alias(inner) if self.is_string(inner))
            }
            _ => false,
        }
    }

    /// A `reqwest::multipart::Form` block of a body (`body`: a reference to the struct): files as
    /// file parts (name and content type), primitives as text parts, arrays as one part per item,
    /// anything else as a JSON part. Written flat: prettyplease lays it out.
    pub(super) fn multipart_form(&self, fields: &[Field], body: &str) -> String {
        let mut out =
            format!("{{ let body = {body}; let mut form = ::reqwest::multipart::Form::new();");
        for f in fields {
            let (optional, inner) = crate::emit::models::field_holding(f, &self.api.types);
            let field = ident(&f.name);
            let wire = lit(&f.wire_name);
            // A deprecated property is still the caller's to send: read once, where the lint is
            // allowed, rather than through the field each time.
            let read = if f.deprecated {
                let local = format!("deprecated_{}", f.name.trim_start_matches("r#"));
                let _ = write!(
                    out,
                    " #[allow(deprecated, reason = \"the caller's value is sent, deprecated or not\")] let {local} = &body.{field};"
                );
                Val::named(&local)
            } else {
                Val::place(format!("body.{field}"))
            };
            let value = if optional {
                Val::named("value")
            } else {
                read.clone()
            };
            let add = |ty: &TypeRef, value: Val| -> String {
                let v = value.by_ref();
                match self.multipart_kind(ty) {
                    MultipartKind::File => {
                        format!(
                            "form = form.part({wire}, crate::multipart::file_part({wire}, {v}));"
                        )
                    }
                    MultipartKind::Text => {
                        format!("form = form.text({wire}, {});", self.text(ty, value))
                    }
                    MultipartKind::Json => {
                        format!("form = form.part({wire}, crate::multipart::json_part({v}));")
                    }
                }
            };
            let step = match inner {
                TypeRef::Array(item)
                    if self.multipart_kind(item.as_ref()) != MultipartKind::Json =>
                {
                    let each = add(item.as_ref(), Val::named("item"));
                    format!("for item in {} {{ {each} }}", value.by_ref())
                }
                ty => add(ty, value),
            };
            if optional {
                let _ = write!(out, " if let Some(value) = {} {{ {step} }}", read.by_ref());
            } else {
                let _ = write!(out, " {step}");
            }
        }
        out.push_str(" form }");
        out
    }

    pub(super) fn multipart_kind(&self, ty: &TypeRef) -> MultipartKind {
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

fn json_text(value: &Val) -> String {
    format!("crate::codec::json_text({})", value.by_ref())
}
