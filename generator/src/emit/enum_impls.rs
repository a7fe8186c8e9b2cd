//! The impls of a string enum (`ALL`, `as_str`, `Display`, `FromStr`, and serde's for an open
//! enum), written as text in the layout prettyplease gives them, after the enum's definition (which
//! is printed from tokens, with its docs). They are the same lines for every enum, one per value
//! three times over, and large documents hold hundreds of enums (stripe's merchant categories list
//! 300 values): built as tokens and parsed back, they were a tenth of such a run.

use super::layout::{fits, impl_header, push_list};
use std::fmt::Write;

/// A string enum's values: `(variant, value on the wire)`, the variant as a Rust identifier.
pub struct Values<'a> {
    pub name: &'a str,
    pub variants: Vec<(String, &'a str)>,
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
    for (variant, value) in &values.variants {
        let _ = writeln!(out, "                {value:?} => Self::{variant},");
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
         {serialize}\n\
         \x20   fn serialize<S: ::serde::Serializer>(\n\
         \x20       &self,\n\
         \x20       serializer: S,\n\
         \x20   ) -> Result<S::Ok, S::Error> {{\n\
         \x20       serializer.serialize_str(self.as_str())\n\
         \x20   }}\n\
         }}\n\
         {deserialize}\n\
         \x20   fn deserialize<D: ::serde::Deserializer<'de>>(\n\
         \x20       deserializer: D,\n\
         \x20   ) -> Result<Self, D::Error> {{\n\
         \x20       let value = <String as ::serde::Deserialize>::deserialize(deserializer)?;\n\
         \x20       Ok(Self::listed(&value).unwrap_or(Self::{unknown}(value)))\n\
         \x20   }}\n\
         }}\n",
        message = format_message(name),
        from_str = impl_header("impl ::std::str::FromStr", name),
        serialize = impl_header("impl ::serde::Serialize", name),
        deserialize = impl_header("impl<'de> ::serde::Deserialize<'de>", name),
    );
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
    for (variant, value) in &values.variants {
        let _ = writeln!(out, "            Self::{variant} => {value:?},");
    }
}

/// `pub const ALL`.
fn write_all(out: &mut String, values: &Values) {
    let items: Vec<String> = values
        .variants
        .iter()
        .map(|(variant, _)| format!("Self::{variant}"))
        .collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::assert_printed_as_is;

    fn values(count: usize) -> Values<'static> {
        const WIRE: [&str; 12] = [
            "a", "b\"q", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l",
        ];
        Values {
            name: "Colour",
            variants: (0..count).map(|i| (format!("V{i}"), WIRE[i])).collect(),
        }
    }

    #[test]
    fn open_and_closed_impls_are_laid_out_as_prettyplease_would() {
        for count in [1, 3, 12] {
            let mut long = values(count);
            long.name = "ColourOfAVeryLongNameIndeed";
            let mut out = String::new();
            closed(&mut out, &long);
            open(&mut out, &long, "Unknown");
            assert_printed_as_is(&out);

            let mut out = String::new();
            closed(&mut out, &values(count));
            assert_printed_as_is(&out);
            let mut out = String::new();
            open(&mut out, &values(count), "Unknown");
            assert_printed_as_is(&out);
            assert!(
                out.contains("\"b\\\"q\" => Self::V1") || count == 1,
                "{out}"
            );
        }
    }
}
