//! Rust spelling shared by the emitters: identifiers, doc comments, and the Rust type of a `TypeRef`.

use crate::ir::{Primitive, TypeDef, TypeRef};
use proc_macro2::{Ident, Span, TokenStream};
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
    let Some(doc) = doc.map(str::trim).filter(|d| !d.is_empty()) else {
        return TokenStream::new();
    };
    let lines = markdown_lines(doc);
    quote! { #( #[doc = #lines] )* }
}

/// `#![doc = "..."]` lines: the same, for a module's own documentation.
pub fn inner_doc_attrs(doc: Option<&str>) -> TokenStream {
    let Some(doc) = doc.map(str::trim).filter(|d| !d.is_empty()) else {
        return TokenStream::new();
    };
    let lines = markdown_lines(doc);
    quote! { #( #![doc = #lines] )* }
}

/// Each line prefixed with a space (`/// text`), list continuations indented under their item
/// (clippy's `doc_lazy_continuation`), trailing blanks trimmed.
fn markdown_lines(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut list_indent: Option<usize> = None;
    let mut in_fence = false;
    for raw in doc.lines() {
        let line = raw.trim_end().replace('\t', "    ");
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            list_indent = None;
            out.push(format!(" {line}"));
            continue;
        }
        if in_fence {
            out.push(format!(" {line}"));
            continue;
        }
        if trimmed.is_empty() {
            list_indent = None;
            out.push(String::new());
            continue;
        }
        let leading = line.len() - trimmed.len();
        if let Some(marker) = list_marker_width(trimmed) {
            list_indent = Some(leading + marker);
            out.push(format!(" {line}"));
            continue;
        }
        match list_indent {
            Some(indent) if leading < indent => {
                out.push(format!(" {}{trimmed}", " ".repeat(indent)))
            }
            _ => out.push(format!(" {line}")),
        }
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// The width of a Markdown list marker and its space (`- `, `* `, `12. `), if the line starts with one.
fn list_marker_width(line: &str) -> Option<usize> {
    if line.starts_with("- ") || line.starts_with("* ") || line.starts_with("+ ") {
        return Some(2);
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let rest = &line[digits..];
        if rest.starts_with(". ") || rest.starts_with(") ") {
            return Some(digits + 2);
        }
    }
    None
}

/// Prints the Rust type of a `TypeRef`; `models` is the path prefix of named types (empty inside the models crate).
pub struct TypePrinter<'a> {
    pub types: &'a [TypeDef],
    pub models: TokenStream,
}

impl TypePrinter<'_> {
    pub fn rust_type(&self, ty: &TypeRef) -> TokenStream {
        match ty {
            TypeRef::Named(id) => {
                let name = ident(&self.types[id.0].name);
                let models = &self.models;
                quote! { #models #name }
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
        Primitive::Bytes => quote! { Vec<u8> },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_continuations_are_indented() {
        let lines = markdown_lines("Intro:\n- first item\ncontinued\n\nAfter.");
        assert_eq!(
            lines,
            vec![" Intro:", " - first item", "   continued", "", " After."]
        );
    }

    #[test]
    fn fenced_code_is_kept() {
        let lines = markdown_lines("- a\n```\n- x\ny\n```");
        assert_eq!(lines, vec![" - a", " ```", " - x", " y", " ```"]);
    }

    #[test]
    fn keywords_become_raw_identifiers() {
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("name").to_string(), "name");
    }
}
