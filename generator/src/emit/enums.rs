//! String and integer enums in the models crate.
//!
//! Closed enums (`Options::open_enums` off) know only the document's values: any other value fails
//! to decode. Open enums (the default) add a variant that keeps a value the document does not list
//! (a server that learned a value after the client was generated), decoded and encoded as it came,
//! so that an API can add values without breaking deployed clients. `Validate` reports such a value
//! (the generated server answers 400, as for any broken constraint), and `FromStr`/`TryFrom` (how
//! parameters are parsed) accept only the listed values.

use super::layout::type_text;
use super::rust::doc_lines;
use super::{enum_impls, ident};
use crate::ir::{IntEnum, StringEnum, TypeKind};

/// Whether an enum is generated open. A one-value enum is a constant (`const`, the tag of a union,
/// GeoJSON's `type`) and stays closed: it has nothing to evolve, and a union's tag must hold it.
pub fn is_open(kind: &TypeKind, open_enums: bool) -> bool {
    open_enums
        && match kind {
            TypeKind::StringEnum(e) => e.variants.len() > 1,
            TypeKind::IntEnum(e) => e.variants.len() > 1,
            _ => false,
        }
}

/// The variant holding an unlisted value (as Rust spells it), if `kind` is an open enum.
pub fn open_unknown(kind: &TypeKind, open_enums: bool) -> Option<String> {
    if !is_open(kind, open_enums) {
        return None;
    }
    let unknown = match kind {
        TypeKind::StringEnum(e) => unknown_name(e.variants.iter().map(|v| v.name.as_str())),
        TypeKind::IntEnum(e) => unknown_name(e.variants.iter().map(|v| v.name.as_str())),
        _ => return None,
    };
    Some(ident(&unknown).to_string())
}

/// The variant of an open enum that holds an unlisted value: `Unknown`, or `Unknown2`... when the
/// document has a value of that name.
pub fn unknown_name<'a>(names: impl Iterator<Item = &'a str> + Clone) -> String {
    crate::naming::free_variant("Unknown", names)
}

/// A string enum, written as text (see `enum_impls`): open when `unknown` names the variant
/// keeping unlisted values (see the module docs and [`open_unknown`]), else closed.
pub fn string_enum_item(
    name: &str,
    e: &StringEnum,
    doc: Option<&str>,
    unknown: Option<&str>,
) -> String {
    let name = ident(name).to_string();
    let values = enum_impls::Values {
        name: &name,
        variants: e
            .variants
            .iter()
            .map(|v| enum_impls::StringVariant {
                doc: doc_lines(v.doc.as_deref()),
                variant: ident(&v.name).to_string(),
                value: &v.value,
            })
            .collect(),
    };
    let mut out = String::new();
    enum_impls::string_definition(&mut out, &doc_lines(doc), &name, &values.variants, unknown);
    match unknown {
        Some(unknown) => enum_impls::open(&mut out, &values, unknown),
        None => enum_impls::closed(&mut out, &values),
    }
    out
}

/// An integer enum, written as text (see `enum_impls::open_int` and `closed_int`): open when
/// `unknown` names the variant keeping unlisted values, else closed.
pub fn int_enum_item(name: &str, e: &IntEnum, doc: Option<&str>, unknown: Option<&str>) -> String {
    let repr = type_text(super::rust::primitive(e.repr));
    let values = enum_impls::IntValues {
        doc: doc_lines(doc),
        name: &ident(name).to_string(),
        repr: &repr,
        variants: e
            .variants
            .iter()
            .map(|v| enum_impls::IntVariant {
                doc: doc_lines(v.doc.as_deref()),
                variant: ident(&v.name).to_string(),
                name: &v.name,
                value: v.value,
            })
            .collect(),
    };
    let mut out = String::new();
    match unknown {
        Some(unknown) => enum_impls::open_int(&mut out, &values, unknown),
        None => enum_impls::closed_int(&mut out, &values),
    }
    out
}
