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
use super::{doc_attrs, enum_impls, ident};
use crate::ir::{IntEnum, StringEnum, TypeKind};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

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

/// The variant holding an unlisted value, if `kind` is an open enum.
pub fn open_unknown(kind: &TypeKind, open_enums: bool) -> Option<String> {
    if !is_open(kind, open_enums) {
        return None;
    }
    match kind {
        TypeKind::StringEnum(e) => Some(unknown_name(e.variants.iter().map(|v| v.name.as_str()))),
        TypeKind::IntEnum(e) => Some(unknown_name(e.variants.iter().map(|v| v.name.as_str()))),
        _ => None,
    }
}

/// The variant of an open enum that holds an unlisted value: `Unknown`, or `Unknown2`... when the
/// document has a value of that name.
pub fn unknown_name<'a>(names: impl Iterator<Item = &'a str> + Clone) -> String {
    crate::naming::free_variant("Unknown", names)
}

pub fn int_enum_item(name: &str, e: &IntEnum, doc: TokenStream) -> TokenStream {
    let name_ident = ident(name);
    let repr = super::rust::primitive(e.repr);
    let variants = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let vdoc = doc_attrs(v.doc.as_deref());
        let value = int_literal(v.value);
        quote! { #vdoc #vname = #value, }
    });
    let names = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let text = &v.name;
        quote! { Self::#vname => #text, }
    });
    let from_values = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let value = int_literal(v.value);
        quote! { #value => Ok(Self::#vname), }
    });
    let all = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        quote! { Self::#vname }
    });
    let count = Literal::usize_unsuffixed(e.variants.len());
    let expected = e
        .variants
        .iter()
        .map(|v| v.value.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let err_msg = format!("{{value}} is not a valid {name} (expected one of {expected})");
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde_repr::Serialize_repr, ::serde_repr::Deserialize_repr)]
        #[repr(#repr)]
        pub enum #name_ident {
            #(#variants)*
        }

        impl #name_ident {
            /// Every value, in the spec's order.
            pub const ALL: [Self; #count] = [#(#all),*];

            /// The value on the wire.
            pub fn value(self) -> #repr {
                self as #repr
            }

            /// The name the spec gives this value.
            pub fn name(self) -> &'static str {
                match self {
                    #(#names)*
                }
            }
        }

        impl TryFrom<#repr> for #name_ident {
            type Error = String;

            fn try_from(value: #repr) -> Result<Self, Self::Error> {
                match value {
                    #(#from_values)*
                    _ => Err(format!(#err_msg)),
                }
            }
        }

        impl ::std::fmt::Display for #name_ident {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}", self.value())
            }
        }

        impl ::std::str::FromStr for #name_ident {
            type Err = String;

            /// Parses the integer value (as in a path or query parameter).
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let value: #repr = s.parse().map_err(|_| format!("\"{s}\" is not an integer"))?;
                Self::try_from(value)
            }
        }
    }
}

fn int_literal(value: i64) -> TokenStream {
    let lit = Literal::i64_unsuffixed(value);
    quote! { #lit }
}

/// A string enum, written as text (see `enum_impls`): open (see the module docs) or closed.
pub fn string_enum_item(name: &str, e: &StringEnum, doc: Option<&str>, open: bool) -> String {
    let unknown =
        open.then(|| ident(&unknown_name(e.variants.iter().map(|v| v.name.as_str()))).to_string());
    let mut out = String::new();
    enum_impls::string_definition(
        &mut out,
        &doc_lines(doc),
        &ident(name).to_string(),
        &string_variants(e),
        unknown.as_deref(),
    );
    match &unknown {
        Some(unknown) => enum_impls::open(&mut out, &values(name, e), unknown),
        None => enum_impls::closed(&mut out, &values(name, e)),
    }
    out
}

fn string_variants(e: &StringEnum) -> Vec<enum_impls::StringVariant<'_>> {
    e.variants
        .iter()
        .map(|v| enum_impls::StringVariant {
            doc: doc_lines(v.doc.as_deref()),
            variant: ident(&v.name).to_string(),
            value: &v.value,
        })
        .collect()
}

fn values<'a>(name: &'a str, e: &'a StringEnum) -> enum_impls::Values<'a> {
    enum_impls::Values {
        name,
        variants: e
            .variants
            .iter()
            .map(|v| (ident(&v.name).to_string(), v.value.as_str()))
            .collect(),
    }
}

/// An integer enum that keeps unlisted values (see the module docs), written as text (see
/// `enum_impls::open_int`).
pub fn open_int_enum_item(name: &str, e: &IntEnum, doc: Option<&str>) -> String {
    let unknown = unknown_name(e.variants.iter().map(|v| v.name.as_str()));
    let repr = type_text(super::rust::primitive(e.repr));
    let mut out = String::new();
    enum_impls::open_int(
        &mut out,
        &enum_impls::IntValues {
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
        },
        &ident(&unknown).to_string(),
    );
    out
}
