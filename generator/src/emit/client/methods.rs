//! `Client`'s operation methods and each request builder's struct and setters, written as text:
//! built as tokens and parsed back they were a third of a small document's client (syn reads
//! emitted tokens at about 40 µs per KB, prettyplease prints at 15). The layout is prettyplease's,
//! checked against it in the tests below.

use crate::emit::layout::{fits, push_doc, push_list, push_struct_literal};
use crate::emit::struct_items;
use std::fmt::Write;

/// The lint allowance of a method with more than seven parameters, as prettyplease prints it.
const TOO_MANY_ARGUMENTS: &str = "    #[allow(\n\
    \x20       clippy::too_many_arguments,\n\
    \x20       reason = \"one argument per required parameter of the operation\"\n\
    \x20   )]\n";

/// `Client::{name}(&self, {args}) -> {builder}`: the builder with the arguments, the optional
/// fields `None`.
pub struct Method<'a> {
    pub doc: &'a [String],
    pub deprecated: bool,
    pub name: &'a str,
    /// `id: i64`
    pub args: &'a [String],
    pub builder: &'a str,
    /// `client: self.clone()`, `id`, `body: body.into()`, `limit: None`
    pub inits: &'a [String],
}

/// A builder method setting an optional field: `pub fn {name}(mut self, {arg}: {ty}) -> Self`.
pub struct Setter<'a> {
    pub doc: &'a [String],
    pub deprecated: bool,
    pub name: &'a str,
    pub arg: &'a str,
    pub ty: &'a str,
    pub field: &'a str,
    /// What the field is set to: `value`, `value.into()`.
    pub value: &'a str,
}

pub fn write_method(out: &mut String, m: &Method) {
    push_doc(out, "    ", m.doc);
    if m.deprecated {
        out.push_str("    #[deprecated]\n");
    }
    // One argument per required parameter: the signature mirrors the operation.
    if m.args.len() + 1 > 7 {
        out.push_str(TOO_MANY_ARGUMENTS);
    }
    let mut params = vec!["&self"];
    params.extend(m.args.iter().map(String::as_str));
    push_list(
        out,
        "    ",
        &format!("pub fn {}(", m.name),
        &params,
        &format!(") -> {} {{", m.builder),
    );
    push_struct_literal(out, "        ", "", m.builder, m.inits, "");
    out.push_str("    }\n");
}

/// The builder's struct: `doc` as `///` lines, the derives, `must_use`, and one private field
/// per line (`client: crate::Client` first), laid out by `struct_items`.
pub fn write_builder_struct(
    out: &mut String,
    doc: &[String],
    clone: bool,
    name: &str,
    fields: &[(String, String)],
) {
    struct_items::write(
        out,
        &struct_items::StructItem {
            doc: doc.to_vec(),
            derive: if clone { "Debug, Clone" } else { "Debug" },
            attrs: &[
                "#[must_use = \"a request does nothing until it is sent with `.send().await`\"]",
            ],
            name: name.to_owned(),
            public: false,
            fields: fields
                .iter()
                .map(|(field, ty)| struct_items::StructField::plain(field, ty))
                .collect(),
        },
    );
}

pub fn write_setter(out: &mut String, s: &Setter) {
    push_doc(out, "    ", s.doc);
    if s.deprecated {
        out.push_str("    #[deprecated]\n");
    }
    let param = format!("{}: {}", s.arg, s.ty);
    push_list(
        out,
        "    ",
        &format!("pub fn {}(", s.name),
        &["mut self", &param],
        ") -> Self {",
    );
    let assign = format!("        self.{} = Some({});", s.field, s.value);
    if fits(&assign) {
        let _ = writeln!(out, "{assign}");
    } else {
        let _ = writeln!(
            out,
            "        self.{} = Some(\n            {},\n        );",
            s.field, s.value
        );
    }
    out.push_str("        self\n    }\n");
}
