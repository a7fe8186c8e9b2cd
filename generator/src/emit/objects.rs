//! The models' `src/decode.rs`: `Deserialize` of each struct through the `object` runtime
//! (`templates/models/object.rs`). The impls are the same few lines for every struct, so they are
//! written as text in the layout prettyplease gives them: built as tokens, parsed back and printed,
//! they cost a large document a quarter of its run.

use std::fmt::Write;

/// A struct whose `Deserialize` is written here.
pub struct Object<'a> {
    /// The Rust type name.
    pub name: &'a str,
    pub fields: Vec<ObjectField<'a>>,
    pub others: Others,
    /// A field is `#[deprecated]`: the struct expression names it.
    pub deprecated: bool,
}

pub struct ObjectField<'a> {
    /// The Rust field name (`r#type` for a keyword).
    pub member: String,
    pub wire: &'a str,
    /// The `wire::Decoder` type the value is read with, if not its own `Deserialize`.
    pub decoder: Option<String>,
    pub value: Value,
}

/// How a field's value comes out of its slot (an `Option` of what was read).
pub enum Value {
    /// Required: absent is an error.
    Required,
    /// Absent is this function's value (a spec default, in `types::defaults`).
    Default(String),
    /// The slot holds an `Option` (a nullable property): absent is `None`.
    Flattened,
    /// The slot is the field.
    Slot,
}

/// What a property the struct does not name does.
pub enum Others {
    Skip,
    /// `additionalProperties: false`.
    Deny,
    /// Kept in the map field of this name.
    Keep(String),
}

/// The head of `decode.rs`.
pub fn head() -> &'static str {
    "//! `Deserialize` of the structs, through [`crate::object`].\n\
     use crate::types::*;\n"
}

/// Appends the two impls of `object` to `out`.
pub fn write(out: &mut String, object: &Object) {
    let name = object.name;
    // `write!` to a String cannot fail.
    let _ = write!(
        out,
        "\nimpl<'de> ::serde::Deserialize<'de> for {name} {{\n\
         \x20   fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {{\n\
         \x20       crate::object::object(d)\n\
         \x20   }}\n\
         }}\n\n"
    );
    if object.deprecated {
        out.push_str("#[allow(deprecated)]\n");
    }
    let _ = writeln!(out, "impl crate::object::Object for {name} {{");
    let _ = writeln!(out, "    const NAME: &'static str = {name:?};");
    write_fields(out, &object.fields);
    out.push_str(
        "    fn from_map<'de, M: ::serde::de::MapAccess<'de>>(\n\
         \x20       m: &mut crate::object::Fields<'de, M>,\n\
         \x20   ) -> Result<Self, M::Error> {\n",
    );
    for i in 0..object.fields.len() {
        let _ = writeln!(out, "        let mut f{i} = None;");
    }
    let key = match object.others {
        // The key is refused as it is read; the `_` arm is never taken.
        Others::Deny => "m.known_key(Self::FIELDS)?",
        _ => "m.key()?",
    };
    let other = match &object.others {
        Others::Keep(_) => {
            out.push_str("        let mut extra = ::std::collections::BTreeMap::new();\n");
            "m.extra(&mut extra, k)?"
        }
        _ => "m.skip()?",
    };
    if object.fields.is_empty() {
        match object.others {
            Others::Keep(_) => {
                let _ = writeln!(out, "        while let Some(k) = {key} {{");
            }
            _ => {
                let _ = writeln!(out, "        while {key}.is_some() {{");
            }
        }
        let _ = writeln!(out, "            {other}");
    } else {
        let _ = writeln!(out, "        while let Some(k) = {key} {{");
        out.push_str("            match k.as_str() {\n");
        for (i, f) in object.fields.iter().enumerate() {
            let wire = format!("{:?}", f.wire);
            let _ = match &f.decoder {
                Some(decoder) => writeln!(
                    out,
                    "                {wire} => m.put_with::<{decoder}>(&mut f{i}, {wire})?,"
                ),
                None => writeln!(out, "                {wire} => m.put(&mut f{i}, {wire})?,"),
            };
        }
        let _ = writeln!(out, "                _ => {other},");
        out.push_str("            }\n");
    }
    out.push_str("        }\n");
    if object.fields.is_empty() && !matches!(object.others, Others::Keep(_)) {
        out.push_str("        Ok(Self {})\n    }\n}\n");
        return;
    }
    out.push_str("        Ok(Self {\n");
    for (i, f) in object.fields.iter().enumerate() {
        let member = &f.member;
        let _ = match &f.value {
            Value::Required => writeln!(out, "            {member}: m.take(f{i}, {:?})?,", f.wire),
            Value::Default(function) => writeln!(
                out,
                "            {member}: f{i}.unwrap_or_else(defaults::{function}),"
            ),
            Value::Flattened => writeln!(out, "            {member}: f{i}.unwrap_or_default(),"),
            Value::Slot => writeln!(out, "            {member}: f{i},"),
        };
    }
    if let Others::Keep(member) = &object.others {
        let _ = writeln!(out, "            {member}: extra,");
    }
    out.push_str("        })\n    }\n}\n");
}

/// `const FIELDS`, on one line when it fits in prettyplease's 89 columns.
fn write_fields(out: &mut String, fields: &[ObjectField]) {
    let names: Vec<String> = fields.iter().map(|f| format!("{:?}", f.wire)).collect();
    let one_line = format!(
        "    const FIELDS: &'static [&'static str] = &[{}];",
        names.join(", ")
    );
    if one_line.len() <= 89 {
        out.push_str(&one_line);
        out.push('\n');
        return;
    }
    out.push_str("    const FIELDS: &'static [&'static str] = &[\n");
    for name in names {
        let _ = writeln!(out, "        {name},");
    }
    out.push_str("    ];\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field<'a>(member: &str, wire: &'a str, value: Value) -> ObjectField<'a> {
        ObjectField {
            member: member.to_owned(),
            wire,
            decoder: None,
            value,
        }
    }

    /// The text is Rust that prettyplease prints back unchanged, but for the blank lines between
    /// items, which the file's assembly adds (`space_items`).
    fn assert_printed_as_is(text: &str) {
        let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
        let lines = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(lines(&prettyplease::unparse(&file)), lines(text));
    }

    #[test]
    fn every_shape_is_written_as_prettyplease_would_print_it() {
        let mut out = String::new();
        let mut count = field("count", "count", Value::Required);
        count.decoder = Some("crate::wire::AsInteger<i64>".into());
        let object = Object {
            name: "Limits",
            fields: vec![
                count,
                field("r#type", "type", Value::Default("limits_type".into())),
                field("note", "a \"quoted\" name", Value::Flattened),
                field("tags", "tags", Value::Slot),
            ],
            others: Others::Keep("additional_properties".into()),
            deprecated: true,
        };
        write(&mut out, &object);
        assert_printed_as_is(&out);
        assert!(
            out.contains("\"a \\\"quoted\\\" name\" => m.put(&mut f2"),
            "{out}"
        );
    }

    #[test]
    fn an_empty_struct_loops_without_a_match() {
        for others in [Others::Skip, Others::Deny, Others::Keep("extra_".into())] {
            let mut out = String::new();
            let object = Object {
                name: "Empty",
                fields: Vec::new(),
                others,
                deprecated: false,
            };
            write(&mut out, &object);
            syn::parse_file(&out).unwrap_or_else(|e| panic!("{e}:\n{out}"));
            assert!(!out.contains("match"), "{out}");
        }
    }

    #[test]
    fn a_long_field_list_is_one_name_per_line() {
        let wires: Vec<String> = (0..12).map(|i| format!("property{i}")).collect();
        let object = Object {
            name: "Wide",
            fields: wires.iter().map(|w| field(w, w, Value::Slot)).collect(),
            others: Others::Deny,
            deprecated: false,
        };
        let mut out = String::new();
        write(&mut out, &object);
        assert_printed_as_is(&out);
        assert!(out.contains("        \"property11\",\n    ];"), "{out}");
    }
}
