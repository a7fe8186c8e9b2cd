//! `errors.rs`, written as text: per operation, the enum of its documented errors (a variant per
//! status, holding the decoded body and headers) and, when every variant holds the same body,
//! `Deref` to it. The layout is prettyplease's, checked against it in the tests below.

use crate::emit::layout::{impl_header, push_doc, push_field, push_tuple};
use std::fmt::Write;

pub struct ErrorEnum {
    pub doc: Vec<String>,
    pub name: String,
    pub variants: Vec<Variant>,
    /// The body every variant holds, which the enum dereferences to.
    pub deref: Option<String>,
}

pub struct Variant {
    pub doc: Vec<String>,
    pub name: String,
    pub body: Option<String>,
    /// `(doc, field, type)` of each documented header.
    pub headers: Vec<(Vec<String>, String, String)>,
}

/// The head of `errors.rs`.
pub const HEAD: &str = "//! The documented errors of each operation: the `body` of [`Error::Api`](crate::Error::Api),\n\
//! one variant per documented error status with its decoded body and headers.\n";

pub fn write(out: &mut String, e: &ErrorEnum) {
    push_doc(out, "", &e.doc);
    out.push_str("#[derive(Debug, Clone, PartialEq)]\n");
    let _ = writeln!(out, "pub enum {} {{", e.name);
    for v in &e.variants {
        push_doc(out, "    ", &v.doc);
        match (&v.body, v.headers.is_empty()) {
            (Some(body), true) => {
                push_tuple(out, "    ", &format!("{}(", v.name), body, "),");
            }
            (None, true) => {
                let _ = writeln!(out, "    {},", v.name);
            }
            (body, false) => {
                let _ = writeln!(out, "    {} {{", v.name);
                if let Some(body) = body {
                    push_field(out, "        ", "body", body);
                }
                for (doc, field, ty) in &v.headers {
                    push_doc(out, "        ", doc);
                    push_field(out, "        ", field, ty);
                }
                out.push_str("    },\n");
            }
        }
    }
    out.push_str("}\n");
    let Some(target) = &e.deref else { return };
    let _ = writeln!(out, "{}", impl_header("impl ::std::ops::Deref", &e.name));
    let _ = writeln!(out, "    type Target = {target};");
    let _ = writeln!(out, "    fn deref(&self) -> &{target} {{");
    out.push_str("        match self {\n");
    for v in &e.variants {
        let pattern = if v.headers.is_empty() {
            format!("Self::{}(body)", v.name)
        } else {
            format!("Self::{} {{ body, .. }}", v.name)
        };
        // A boxed body derefs to the target by itself (clippy's `explicit_auto_deref`).
        let _ = writeln!(out, "            {pattern} => body,");
    }
    out.push_str("        }\n    }\n}\n");
}
