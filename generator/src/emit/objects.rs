//! The models' `src/decode.rs`: `Deserialize` of each struct through the `object` runtime
//! (`templates/models/object.rs`). The impls are the same few lines for every struct, so they are
//! written as text in the layout prettyplease gives them: built as tokens, parsed back and printed,
//! they cost a large document a quarter of its run.

use super::layout::{impl_header, push_list};
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
    Nullable,
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
        "\n{deserialize}\n\
         \x20   fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {{\n\
         \x20       crate::object::object(d)\n\
         \x20   }}\n\
         }}\n\n",
        deserialize = impl_header("impl<'de> ::serde::Deserialize<'de>", name),
    );
    if object.deprecated {
        out.push_str("#[allow(deprecated)]\n");
    }
    let _ = writeln!(out, "{}", impl_header("impl crate::object::Object", name));
    let _ = writeln!(out, "    const NAME: &'static str = {name:?};");
    // The wire names as Rust string literals.
    let wires: Vec<String> = object
        .fields
        .iter()
        .map(|f| format!("{:?}", f.wire))
        .collect();
    let listed: Vec<&str> = wires.iter().map(String::as_str).collect();
    push_list(
        out,
        "    ",
        "const FIELDS: &'static [&'static str] = &[",
        &listed,
        "];",
    );
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
        for (i, (f, wire)) in object.fields.iter().zip(&wires).enumerate() {
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
    for (i, (f, wire)) in object.fields.iter().zip(&wires).enumerate() {
        let member = &f.member;
        let _ = match &f.value {
            Value::Required => writeln!(out, "            {member}: m.take(f{i}, {wire})?,"),
            Value::Default(function) => writeln!(
                out,
                "            {member}: f{i}.unwrap_or_else(defaults::{function}),"
            ),
            Value::Nullable => writeln!(out, "            {member}: f{i}.unwrap_or_default(),"),
            Value::Slot => writeln!(out, "            {member}: f{i},"),
        };
    }
    if let Others::Keep(member) = &object.others {
        let _ = writeln!(out, "            {member}: extra,");
    }
    out.push_str("        })\n    }\n}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
