//! A spec default as a Rust value: planned once ([`DefaultValue::of`]) and rendered by one
//! function, for the models' `defaults` functions and the parameters the server's router defaults.

use super::TypePrinter;
use super::rust::number_literal;
use crate::ir::{Primitive, TypeDef, TypeRef};
use proc_macro2::TokenStream;
use quote::quote;

pub enum DefaultValue {
    Text(String),
    Bool(bool),
    Number(Primitive, serde_json::Number),
    /// An enum's variant.
    Variant(TypeRef, String),
    /// An empty list.
    Empty,
}

impl DefaultValue {
    /// `value` as a Rust value of `ty` (as it is, not through aliases), when it can be written so.
    pub fn of(ty: &TypeRef, value: &serde_json::Value, types: &[TypeDef]) -> Option<DefaultValue> {
        match (ty, value) {
            (TypeRef::Primitive(Primitive::String), serde_json::Value::String(s)) => {
                Some(DefaultValue::Text(s.clone()))
            }
            (TypeRef::Primitive(Primitive::Bool), serde_json::Value::Bool(b)) => {
                Some(DefaultValue::Bool(*b))
            }
            (
                TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. },
                serde_json::Value::Number(n),
            ) => number_literal(*p, n, true).map(|_| DefaultValue::Number(*p, n.clone())),
            (TypeRef::Array(_), serde_json::Value::Array(a)) if a.is_empty() => {
                Some(DefaultValue::Empty)
            }
            (TypeRef::Named(id), v) => {
                let variant = types[id.0].enum_variant(v)?;
                Some(DefaultValue::Variant(ty.clone(), variant.to_owned()))
            }
            _ => None,
        }
    }

    /// The value as an expression; numbers `suffixed` where nothing else fixes their type.
    pub fn render(&self, printer: &TypePrinter, suffixed: bool) -> TokenStream {
        match self {
            DefaultValue::Text(s) => quote! { #s.to_owned() },
            DefaultValue::Bool(b) => quote! { #b },
            DefaultValue::Number(p, n) => {
                number_literal(*p, n, suffixed).expect("checked by DefaultValue::of")
            }
            DefaultValue::Variant(ty, variant) => {
                let (ty, variant) = (printer.rust_type(ty), super::ident(variant));
                quote! { #ty::#variant }
            }
            DefaultValue::Empty => quote! { Vec::new() },
        }
    }
}
