//! The impls of a string enum (`ALL`, `as_str`, `Display`, `FromStr`, and serde's for an open
//! enum), written as text in the layout prettyplease gives them, after the enum's definition (which
//! is printed from tokens, with its docs). They are the same lines for every enum, one per value
//! three times over, and large documents hold hundreds of enums (stripe's merchant categories list
//! 300 values): built as tokens and parsed back, they were a tenth of such a run.

use super::layout::{fits, impl_header, push_arm, push_attr, push_doc, push_list};
use std::fmt::Write;

/// A string enum's name and variants.
pub struct Values<'a> {
    pub name: &'a str,
    pub variants: Vec<StringVariant<'a>>,
}

/// The impls of a closed enum (serde's are derived on its definition).
pub fn closed(out: &mut String, values: &Values) {
    let name = values.name;
    write_head(out, values, "Every value", "(self) -> &'static str");
    out.push_str("        }\n    }\n}\n");
    write_display(out, name);
    let _ = write!(
        out,
        "{from_str}\n\
         \x20   type Err = String;\n\
         \x20   fn from_str(s: &str) -> Result<Self, Self::Err> {{\n\
         \x20       Self::ALL\n\
         \x20           .into_iter()\n\
         \x20           .find(|v| v.as_str() == s)\n\
         \x20           .ok_or_else(|| {{\n\
         \x20               let listed = crate::wire::listing(Self::ALL.iter().map(|v| v.as_str()));\n\
         {message}\
         \x20           }})\n\
         \x20   }}\n\
         }}\n",
        message = format_message(name),
        from_str = impl_header("impl ::std::str::FromStr", name),
    );
}

/// The impls of an open enum, whose variant `unknown` keeps a value the document does not list.
pub fn open(out: &mut String, values: &Values, unknown: &str) {
    let name = values.name;
    write_head(out, values, "Every listed value", "(&self) -> &str");
    let _ = write!(
        out,
        "            Self::{unknown}(value) => value,\n\
         \x20       }}\n\
         \x20   }}\n\
         \x20   /// Whether the document lists the value.\n\
         \x20   pub fn is_known(&self) -> bool {{\n\
         \x20       !matches!(self, Self::{unknown}(_))\n\
         \x20   }}\n\
         \x20   /// The listed value spelled `s`, if there is one.\n\
         \x20   fn listed(s: &str) -> Option<Self> {{\n\
         \x20       Some(\n\
         \x20           match s {{\n"
    );
    for v in &values.variants {
        // One line whatever its width, unlike prettyplease: kept, as changing it would only
        // move the lines of long values in code already generated.
        let _ = writeln!(out, "                {:?} => Self::{},", v.value, v.variant);
    }
    out.push_str(
        "                _ => return None,\n\
         \x20           },\n\
         \x20       )\n\
         \x20   }\n\
         }\n",
    );
    write_display(out, name);
    let _ = write!(
        out,
        "{from_str}\n\
         \x20   type Err = String;\n\
         \x20   /// Parses a listed value (as in a path or query parameter); others are refused.\n\
         \x20   fn from_str(s: &str) -> Result<Self, Self::Err> {{\n\
         \x20       Self::listed(s)\n\
         \x20           .ok_or_else(|| {{\n\
         \x20               let listed = crate::wire::listing(Self::ALL.iter().map(Self::as_str));\n\
         {message}\
         \x20           }})\n\
         \x20   }}\n\
         }}\n\
         {serialize}\
         \x20       serializer.serialize_str(self.as_str())\n\
         \x20   }}\n\
         }}\n\
         {deserialize}\
         \x20       let value = <String as ::serde::Deserialize>::deserialize(deserializer)?;\n\
         \x20       Ok(Self::listed(&value).unwrap_or(Self::{unknown}(value)))\n\
         \x20   }}\n\
         }}\n",
        message = format_message(name),
        from_str = impl_header("impl ::std::str::FromStr", name),
        serialize = serialize_head(name),
        deserialize = deserialize_head(name),
    );
}

/// A string enum's variant in its definition: documentation lines, the Rust name, the wire value.
pub struct StringVariant<'a> {
    pub doc: Vec<String>,
    pub variant: String,
    pub value: &'a str,
}

/// A string enum's definition: an open one (`unknown` names the variant keeping an unlisted
/// value) derives only the std traits, a closed one serde's too, each variant renamed to its
/// value.
pub fn string_definition(
    out: &mut String,
    doc: &[String],
    name: &str,
    variants: &[StringVariant],
    unknown: Option<&str>,
) {
    push_doc(out, "", doc);
    let derive: Vec<String> = match unknown {
        Some(_) => [
            "Debug",
            "Clone",
            "PartialEq",
            "Eq",
            "Hash",
            "PartialOrd",
            "Ord",
        ]
        .map(str::to_owned)
        .to_vec(),
        None => copy_derives(["::serde::Serialize", "::serde::Deserialize"]),
    };
    push_attr(out, "", "derive", &derive);
    let _ = writeln!(out, "pub enum {name} {{");
    for v in variants {
        push_doc(out, "    ", &v.doc);
        if unknown.is_none() {
            push_attr(out, "    ", "serde", &[format!("rename = {:?}", v.value)]);
        }
        let _ = writeln!(out, "    {},", v.variant);
    }
    if let Some(unknown) = unknown {
        let _ = writeln!(
            out,
            "    /// A value the document does not list, kept as it came.\n    {unknown}(String),"
        );
    }
    out.push_str("}\n");
}

/// An open enum's `Validate`: its unlisted value is an error (`quoted`: a string enum's, shown in
/// quotes).
pub fn validate_open(name: &str, unknown: &str, quoted: bool) -> String {
    let (listed, message) = if quoted {
        (
            "Self::as_str",
            r#""\"{value}\" is not one of the listed values ({listed})""#,
        )
    } else {
        (
            "|v| v.value()",
            r#""{value} is not one of the listed values ({listed})""#,
        )
    };
    format!(
        "{head}\n\
         \x20   fn validate_at(&self, path: &str, errors: &mut Vec<ValidationError>) {{\n\
         \x20       if let Self::{unknown}(value) = self {{\n\
         \x20           let listed = crate::wire::listing(Self::ALL.iter().map({listed}));\n\
         \x20           errors\n\
         \x20               .push(ValidationError {{\n\
         \x20                   path: path.to_owned(),\n\
         \x20                   message: format!(\n\
         \x20                       {message}\n\
         \x20                   ),\n\
         \x20               }});\n\
         \x20       }}\n\
         \x20   }}\n\
         }}\n",
        head = impl_header("impl Validate", name),
    )
}

/// An open integer enum, whose definition and impls are written as text.
pub struct IntValues<'a> {
    pub doc: Vec<String>,
    pub name: &'a str,
    /// The integer type.
    pub repr: &'a str,
    pub variants: Vec<IntVariant<'a>>,
}

pub struct IntVariant<'a> {
    pub doc: Vec<String>,
    /// As a Rust identifier (`r#type`).
    pub variant: String,
    /// As the spec names it.
    pub name: &'a str,
    pub value: i64,
}

impl IntVariant<'_> {
    /// `Self::{variant}`.
    fn pattern(&self) -> String {
        format!("Self::{}", self.variant)
    }
}

/// The arms from each listed value to its variant (`2 => Self::High,`).
fn from_values(out: &mut String, e: &IntValues) {
    for v in &e.variants {
        push_arm(out, "                ", &v.value.to_string(), &v.pattern());
    }
}

pub fn open_int(out: &mut String, e: &IntValues, unknown: &str) {
    let (name, repr) = (e.name, e.repr);
    push_doc(out, "", &e.doc);
    out.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n");
    let _ = writeln!(out, "pub enum {name} {{");
    for v in &e.variants {
        push_doc(out, "    ", &v.doc);
        let _ = writeln!(out, "    {},", v.variant);
    }
    let _ = write!(
        out,
        "    /// A value the document does not list, kept as it came.\n\
         \x20   {unknown}({repr}),\n\
         }}\n\
         impl {name} {{\n\
         \x20   /// Every listed value, in the spec's order.\n"
    );
    push_all(out, e.variants.iter().map(|v| v.variant.as_str()));
    let _ = write!(
        out,
        "    /// The value on the wire.\n\
         \x20   pub fn value(self) -> {repr} {{\n\
         \x20       match self {{\n"
    );
    for v in &e.variants {
        push_arm(out, "            ", &v.pattern(), &v.value.to_string());
    }
    let _ = write!(
        out,
        "            Self::{unknown}(value) => value,\n\
         \x20       }}\n\
         \x20   }}\n"
    );
    write_names(out, e);
    let _ = write!(
        out,
        "            Self::{unknown}(_) => {unknown:?},\n\
         \x20       }}\n\
         \x20   }}\n\
         \x20   /// Whether the document lists the value.\n\
         \x20   pub fn is_known(self) -> bool {{\n\
         \x20       !matches!(self, Self::{unknown}(_))\n\
         \x20   }}\n\
         }}\n\
         {try_from}\n\
         \x20   type Error = String;\n\
         \x20   /// A listed value; others are refused.\n\
         \x20   fn try_from(value: {repr}) -> Result<Self, Self::Error> {{\n\
         \x20       Ok(\n\
         \x20           match value {{\n",
        try_from = impl_header(&format!("impl TryFrom<{repr}>"), name),
    );
    from_values(out, e);
    write_refusal(out, "                ", &refusal_message(e), true);
    let _ = write!(
        out,
        "            }},\n\
         \x20       )\n\
         \x20   }}\n\
         }}\n\
         {parsing}\
         {serialize}\
         \x20       ::serde::Serialize::serialize(&self.value(), serializer)\n\
         \x20   }}\n\
         }}\n\
         {deserialize}\
         \x20       let value: {repr} = crate::wire::integer(deserializer)?;\n\
         \x20       Ok(\n\
         \x20           match value {{\n",
        parsing = int_display_and_parse(name, repr, "Parses a listed integer value"),
        serialize = serialize_head(name),
        deserialize = deserialize_head(name),
    );
    from_values(out, e);
    let _ = write!(
        out,
        "                _ => Self::{unknown}(value),\n\
         \x20           }},\n\
         \x20       )\n\
         \x20   }}\n\
         }}\n"
    );
}

/// The last arm of `try_from`: `_ => return Err(format!(message))` (an open enum's, in `Ok(match
/// ..)`), or `_ => Err(format!(message))` (a closed enum's), broken as prettyplease breaks it as the
/// message grows. `indent` is the arm's.
fn write_refusal(out: &mut String, indent: &str, message: &str, returns: bool) {
    let (keyword, semicolon) = if returns { ("return ", ";") } else { ("", "") };
    // The comma after an arm does not count toward the width (see `push_arm`).
    let arm = format!("{indent}_ => {keyword}Err(format!({message}))");
    if fits(&arm) {
        out.push_str(&arm);
        out.push_str(",\n");
        return;
    }
    let _ = writeln!(out, "{indent}_ => {{");
    let inner = format!("{indent}    ");
    let statement = format!("{inner}{keyword}Err(format!({message})){semicolon}");
    if fits(&statement) {
        out.push_str(&statement);
        out.push('\n');
    } else {
        let call = format!("{inner}    format!({message})");
        if fits(&call) {
            let _ = writeln!(out, "{inner}{keyword}Err(\n{call},\n{inner}){semicolon}");
        } else {
            let _ = writeln!(
                out,
                "{inner}{keyword}Err(\n{inner}    format!(\n{inner}        {message}\n{inner}    ),\n{inner}){semicolon}"
            );
        }
    }
    let _ = writeln!(out, "{indent}}}");
}

/// The derives of a closed enum: the std traits of a `Copy` value, then its serde pair.
fn copy_derives(serde: [&str; 2]) -> Vec<String> {
    [
        "Debug",
        "Clone",
        "Copy",
        "PartialEq",
        "Eq",
        "Hash",
        "PartialOrd",
        "Ord",
    ]
    .iter()
    .chain(&serde)
    .map(|d| (*d).to_owned())
    .collect()
}

/// A closed integer enum (`serde_repr` encodes it), written as text.
pub fn closed_int(out: &mut String, e: &IntValues) {
    let (name, repr) = (e.name, e.repr);
    push_doc(out, "", &e.doc);
    let derive = copy_derives([
        "::serde_repr::Serialize_repr",
        "::serde_repr::Deserialize_repr",
    ]);
    push_attr(out, "", "derive", &derive);
    let _ = writeln!(out, "#[repr({repr})]\npub enum {name} {{");
    for v in &e.variants {
        push_doc(out, "    ", &v.doc);
        let _ = writeln!(out, "    {} = {},", v.variant, v.value);
    }
    let _ = writeln!(
        out,
        "}}\nimpl {name} {{\n    /// Every value, in the spec's order."
    );
    push_all(out, e.variants.iter().map(|v| v.variant.as_str()));
    let _ = write!(
        out,
        "    /// The value on the wire.\n\
         \x20   pub fn value(self) -> {repr} {{\n\
         \x20       self as {repr}\n\
         \x20   }}\n"
    );
    write_names(out, e);
    let _ = write!(
        out,
        "        }}\n\
         \x20   }}\n\
         }}\n\
         {try_from}\n\
         \x20   type Error = String;\n\
         \x20   fn try_from(value: {repr}) -> Result<Self, Self::Error> {{\n\
         \x20       match value {{\n",
        try_from = impl_header(&format!("impl TryFrom<{repr}>"), name),
    );
    for v in &e.variants {
        push_arm(
            out,
            "            ",
            &v.value.to_string(),
            &format!("Ok({})", v.pattern()),
        );
    }
    write_refusal(out, "            ", &refusal_message(e), false);
    let _ = write!(
        out,
        "        }}\n\
         \x20   }}\n\
         }}\n\
         {parsing}",
        parsing = int_display_and_parse(name, repr, "Parses the integer value"),
    );
}

/// `name()`: the name the spec gives each listed value.
fn write_names(out: &mut String, e: &IntValues) {
    out.push_str(
        "    /// The name the spec gives this value.\n\
         \x20   pub fn name(self) -> &'static str {\n\
         \x20       match self {\n",
    );
    for v in &e.variants {
        push_arm(out, "            ", &v.pattern(), &format!("{:?}", v.name));
    }
}

/// An integer enum's `Display` (its value) and `FromStr` (documented `{parses} (as in a path or
/// query parameter)`, through `TryFrom`).
fn int_display_and_parse(name: &str, repr: &str, parses: &str) -> String {
    format!(
        "{display}\n\
         \x20   fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {{\n\
         \x20       write!(f, \"{{}}\", self.value())\n\
         \x20   }}\n\
         }}\n\
         {from_str}\n\
         \x20   type Err = String;\n\
         \x20   /// {parses} (as in a path or query parameter).\n\
         \x20   fn from_str(s: &str) -> Result<Self, Self::Err> {{\n\
         \x20       let value: {repr} = s.parse().map_err(|_| format!(\"\\\"{{s}}\\\" is not an integer\"))?;\n\
         \x20       Self::try_from(value)\n\
         \x20   }}\n\
         }}\n",
        display = impl_header("impl ::std::fmt::Display", name),
        from_str = impl_header("impl ::std::str::FromStr", name),
    )
}

/// `try_from`'s error for a value the enum does not list, as a string literal.
fn refusal_message(e: &IntValues) -> String {
    let expected: Vec<String> = e.variants.iter().map(|v| v.value.to_string()).collect();
    let message = format!(
        "{{value}} is not a valid {} (expected one of {})",
        e.name,
        expected.join(", ")
    );
    format!("{message:?}")
}

/// `impl Serialize for {name}` up to the body of `serialize`.
fn serialize_head(name: &str) -> String {
    format!(
        "{}\n    fn serialize<S: ::serde::Serializer>(\n        &self,\n        serializer: S,\n    ) -> Result<S::Ok, S::Error> {{\n",
        impl_header("impl ::serde::Serialize", name)
    )
}

/// `impl Deserialize for {name}` up to the body of `deserialize`.
fn deserialize_head(name: &str) -> String {
    format!(
        "{}\n    fn deserialize<D: ::serde::Deserializer<'de>>(\n        deserializer: D,\n    ) -> Result<Self, D::Error> {{\n",
        impl_header("impl<'de> ::serde::Deserialize<'de>", name)
    )
}

/// The line of `FromStr`'s error for a value a string enum does not list (`listed`: its values,
/// spelled by the runtime's `listing`), broken as prettyplease breaks it past 89 columns.
fn format_message(name: &str) -> String {
    let message = format!("\"{{s}}\" is not a valid {name} (expected one of {{listed}})");
    let one_line = format!("                format!({message:?})\n");
    if fits(one_line.trim_end()) {
        return one_line;
    }
    format!("                format!(\n                    {message:?}\n                )\n")
}

/// `impl Name {`, `ALL` (documented as `every`) and `as_str` (of `signature`) up to its last
/// listed arm.
fn write_head(out: &mut String, values: &Values, every: &str, signature: &str) {
    let _ = writeln!(out, "impl {} {{", values.name);
    let _ = writeln!(out, "    /// {every}, in the spec's order.");
    write_all(out, values);
    let _ = write!(
        out,
        "    /// The value on the wire.\n\
         \x20   pub fn as_str{signature} {{\n\
         \x20       match self {{\n"
    );
    for v in &values.variants {
        // One line whatever its width (see `open`).
        let _ = writeln!(out, "            Self::{} => {:?},", v.variant, v.value);
    }
}

/// `pub const ALL`.
fn write_all(out: &mut String, values: &Values) {
    push_all(out, values.variants.iter().map(|v| v.variant.as_str()));
}

/// `pub const ALL: [Self; n] = [Self::A, ...];` of the variants named.
fn push_all<'a>(out: &mut String, variants: impl Iterator<Item = &'a str>) {
    let items: Vec<String> = variants.map(|v| format!("Self::{v}")).collect();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let open = format!("pub const ALL: [Self; {}] = [", items.len());
    push_list(out, "    ", &open, &items, "];");
}

fn write_display(out: &mut String, name: &str) {
    let _ = write!(
        out,
        "{display}\n\
         \x20   fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {{\n\
         \x20       f.write_str(self.as_str())\n\
         \x20   }}\n\
         }}\n",
        display = impl_header("impl ::std::fmt::Display", name),
    );
}
