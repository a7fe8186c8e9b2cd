//! Rust spelling shared by the emitters: identifiers, doc comments, and the Rust type of a `TypeRef`.

use crate::ir::{Primitive, TypeDef, TypeRef};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

/// An identifier, raw (`r#type`) when it is a keyword.
pub fn ident(name: &str) -> Ident {
    if crate::naming::is_keyword(name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// `#[doc = "..."]` lines for a description, shaped so rustdoc and clippy read it as the author meant.
pub fn doc_attrs(doc: Option<&str>) -> TokenStream {
    let lines = doc_lines(doc);
    quote! { #( #[doc = #lines] )* }
}

/// `#![doc = "..."]` lines: the same, for a module's own documentation.
pub fn inner_doc_attrs(doc: Option<&str>) -> TokenStream {
    let lines = doc_lines(doc);
    quote! { #( #![doc = #lines] )* }
}

/// The lines of [`doc_attrs`], for code written as text (none for a missing or blank text).
pub fn doc_lines(doc: Option<&str>) -> Vec<String> {
    match doc.map(str::trim).filter(|d| !d.is_empty()) {
        Some(doc) => super::markdown::lines(doc),
        None => Vec::new(),
    }
}

/// Prints the Rust type of a `TypeRef`; `models` is the path prefix of named types (empty inside the models crate).
pub struct TypePrinter<'a> {
    /// The API's types ([`crate::ir::Api::types`]), for the names [`TypeRef::Named`] points at.
    pub types: &'a [TypeDef],
    /// The path to the models crate before a named type (`models::`), or nothing inside it.
    pub models: TokenStream,
    /// The path before the models' runtime modules (`bytes`, `file`): the same as `models`
    /// outside the crate, its root inside (`crate::`, see [`super::Root`]).
    pub runtime: TokenStream,
}

impl<'a> TypePrinter<'a> {
    /// A printer for code outside the models crate, which it names `models` (`models::`).
    pub fn new(types: &'a [TypeDef], models: TokenStream) -> TypePrinter<'a> {
        TypePrinter {
            types,
            runtime: models.clone(),
            models,
        }
    }

    /// A printer for the models crate's own code, whose root it spells `root` (`crate`).
    pub fn inside(types: &'a [TypeDef], root: TokenStream) -> TypePrinter<'a> {
        TypePrinter {
            types,
            models: TokenStream::new(),
            runtime: quote! { #root:: },
        }
    }

    /// The Rust type of `ty`: a named type by its [`TypeDef::name`], arrays as `Vec`, maps as
    /// `BTreeMap<String, _>`, nullables as `Option`, any JSON value as `serde_json::Value`.
    pub fn rust_type(&self, ty: &TypeRef) -> TokenStream {
        match ty {
            TypeRef::Named(id) => {
                let name = ident(&self.types[id.0].name);
                let models = &self.models;
                quote! { #models #name }
            }
            TypeRef::Primitive(Primitive::Base64) => {
                let runtime = &self.runtime;
                quote! { #runtime bytes::Base64 }
            }
            TypeRef::Primitive(Primitive::Bytes) => {
                let runtime = &self.runtime;
                quote! { #runtime file::File }
            }
            TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => primitive(*p),
            TypeRef::Array(inner) => {
                let inner = self.rust_type(inner);
                quote! { Vec<#inner> }
            }
            TypeRef::Map(inner) => {
                let inner = self.rust_type(inner);
                quote! { ::std::collections::BTreeMap<String, #inner> }
            }
            TypeRef::Nullable(inner) => {
                let inner = self.rust_type(inner);
                quote! { Option<#inner> }
            }
            TypeRef::Any => quote! { ::serde_json::Value },
            TypeRef::Null => quote! { () },
        }
    }
}

/// The Rust type of a primitive, as the models crate spells it (its own `Base64` and `File`).
pub fn primitive(p: Primitive) -> TokenStream {
    match p {
        Primitive::String => quote! { String },
        Primitive::Bool => quote! { bool },
        Primitive::I8 => quote! { i8 },
        Primitive::I16 => quote! { i16 },
        Primitive::I32 => quote! { i32 },
        Primitive::I64 => quote! { i64 },
        Primitive::U8 => quote! { u8 },
        Primitive::U16 => quote! { u16 },
        Primitive::U32 => quote! { u32 },
        Primitive::U64 => quote! { u64 },
        Primitive::F32 => quote! { f32 },
        Primitive::F64 => quote! { f64 },
        Primitive::Uuid => quote! { ::uuid::Uuid },
        Primitive::DateTime => quote! { ::chrono::DateTime<::chrono::Utc> },
        Primitive::Date => quote! { ::chrono::NaiveDate },
        // The models crate's own path, like `Base64`.
        Primitive::Bytes => quote! { crate::file::File },
        // The models crate's own path; other crates print it through `TypePrinter`.
        Primitive::Base64 => quote! { crate::bytes::Base64 },
        Primitive::Url => quote! { ::url::Url },
    }
}

/// `Some(n)` / `None` for an optional count.
pub fn opt_usize(v: Option<usize>) -> TokenStream {
    match v {
        Some(n) => {
            let n = Literal::usize_unsuffixed(n);
            quote! { Some(#n) }
        }
        None => quote! { None },
    }
}

/// A JSON number as a literal of `p`, if it fits. Suffixed (`50i32`) where nothing else fixes the
/// type; unsuffixed where the surrounding code does (a function's return type).
pub fn number_literal(p: Primitive, n: &serde_json::Number, suffixed: bool) -> Option<TokenStream> {
    macro_rules! int {
        ($t:ty, $get:ident, $suffixed:ident, $wide:ident) => {{
            let v = <$t>::try_from(n.$get()?).ok()?;
            if suffixed {
                Literal::$suffixed(v)
            } else {
                Literal::$wide(v.into())
            }
        }};
    }
    let lit = match p {
        Primitive::I8 => int!(i8, as_i64, i8_suffixed, i64_unsuffixed),
        Primitive::I16 => int!(i16, as_i64, i16_suffixed, i64_unsuffixed),
        Primitive::I32 => int!(i32, as_i64, i32_suffixed, i64_unsuffixed),
        Primitive::I64 => int!(i64, as_i64, i64_suffixed, i64_unsuffixed),
        Primitive::U8 => int!(u8, as_u64, u8_suffixed, u64_unsuffixed),
        Primitive::U16 => int!(u16, as_u64, u16_suffixed, u64_unsuffixed),
        Primitive::U32 => int!(u32, as_u64, u32_suffixed, u64_unsuffixed),
        Primitive::U64 => int!(u64, as_u64, u64_suffixed, u64_unsuffixed),
        Primitive::F32 if suffixed => Literal::f32_suffixed(n.as_f64()? as f32),
        Primitive::F64 if suffixed => Literal::f64_suffixed(n.as_f64()?),
        Primitive::F32 | Primitive::F64 => Literal::f64_unsuffixed(n.as_f64()?),
        _ => return None,
    };
    Some(quote! { #lit })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_become_raw_identifiers() {
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("name").to_string(), "name");
    }
}
