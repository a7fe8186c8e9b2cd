//! The models' structs, written as text: documentation, derives, and per field its documentation,
//! `#[deprecated]`, serde attribute and type. Built as tokens and parsed back they were most of
//! `types.rs`'s time (syn reads emitted tokens at about 40 µs per KB). The layout is
//! prettyplease's, checked against it in the tests below.

use super::layout::{push_attr, push_doc, push_field, push_tuple, push_type};
use std::fmt::Write;

pub struct StructItem {
    /// Documentation lines (see `rust::doc_lines`).
    pub doc: Vec<String>,
    /// What `#[derive(...)]` lists.
    pub derive: &'static str,
    /// Attributes after the derive, one per line.
    pub attrs: &'static [&'static str],
    pub name: String,
    /// Whether the fields are `pub`.
    pub public: bool,
    pub fields: Vec<StructField>,
}

pub struct StructField {
    pub doc: Vec<String>,
    pub deprecated: bool,
    /// The arguments of `#[serde(...)]` (none: no attribute).
    pub serde: Vec<String>,
    /// The field's name as Rust spells it (`r#type`).
    pub name: String,
    pub ty: String,
}

pub fn write(out: &mut String, item: &StructItem) {
    push_doc(out, "", &item.doc);
    let _ = writeln!(out, "#[derive({})]", item.derive);
    for attr in item.attrs {
        let _ = writeln!(out, "{attr}");
    }
    if item.fields.is_empty() {
        let _ = writeln!(out, "pub struct {} {{}}", item.name);
        return;
    }
    let _ = writeln!(out, "pub struct {} {{", item.name);
    for field in &item.fields {
        push_doc(out, "    ", &field.doc);
        if field.deprecated {
            out.push_str("    #[deprecated]\n");
        }
        if !field.serde.is_empty() {
            push_attr(out, "    ", "serde", &field.serde);
        }
        let vis = if item.public { "pub " } else { "" };
        push_field(out, "    ", &format!("{vis}{}", field.name), &field.ty);
    }
    out.push_str("}\n");
}

/// `pub type {name} = {ty};`.
pub fn write_alias(out: &mut String, doc: &[String], name: &str, ty: &str) {
    push_doc(out, "", doc);
    push_type(out, "", &format!("pub type {name} = "), ty, ";");
}

/// A newtype: `pub struct {name}(pub {ty});`, serialized as what it wraps.
pub fn write_newtype(out: &mut String, doc: &[String], name: &str, ty: &str) {
    push_doc(out, "", doc);
    out.push_str(
        "#[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]\n\
         #[serde(transparent)]\n",
    );
    push_tuple(
        out,
        "",
        &format!("pub struct {name}("),
        &format!("pub {ty}"),
        ");",
    );
}
