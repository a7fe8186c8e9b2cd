//! String and integer enums in the models crate.
//!
//! Closed enums (`Options::open_enums` off) know only the document's values: any other value fails
//! to decode. Open enums (the default) add a variant that keeps a value the document does not list
//! (a server that learned a value after the client was generated), decoded and encoded as it came,
//! so that an API can add values without breaking deployed clients. `Validate` reports such a value
//! (the generated server answers 400, as for any broken constraint), and `FromStr`/`TryFrom` (how
//! parameters are parsed) accept only the listed values.

use super::{doc_attrs, ident};
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

/// The body of an open enum's `validate_at` (see [`unknown_check`]), `None` for other types.
pub fn validate_body(kind: &TypeKind, open_enums: bool) -> Option<TokenStream> {
    if !is_open(kind, open_enums) {
        return None;
    }
    Some(match kind {
        TypeKind::StringEnum(e) => unknown_check(
            &unknown_name(e.variants.iter().map(|v| v.name.as_str())),
            true,
        ),
        TypeKind::IntEnum(e) => unknown_check(
            &unknown_name(e.variants.iter().map(|v| v.name.as_str())),
            false,
        ),
        _ => return None,
    })
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

/// `FromStr`'s error for a value a string enum does not list (`listed`: its values, spelled by
/// the runtime's `listing`).
fn not_listed_message(name: &str) -> String {
    format!("\"{{s}}\" is not a valid {name} (expected one of {{listed}})")
}

fn int_literal(value: i64) -> TokenStream {
    let lit = Literal::i64_unsuffixed(value);
    quote! { #lit }
}

pub fn string_enum_item(name: &str, e: &StringEnum, doc: TokenStream) -> TokenStream {
    let name_ident = ident(name);
    let variants = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let vdoc = doc_attrs(v.doc.as_deref());
        let value = &v.value;
        quote! { #vdoc #[serde(rename = #value)] #vname, }
    });
    let as_str = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let value = &v.value;
        quote! { Self::#vname => #value, }
    });
    let all = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        quote! { Self::#vname }
    });
    let count = Literal::usize_unsuffixed(e.variants.len());
    let err_msg = not_listed_message(name);
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
        pub enum #name_ident {
            #(#variants)*
        }

        impl #name_ident {
            /// Every value, in the spec's order.
            pub const ALL: [Self; #count] = [#(#all),*];

            /// The value on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    #(#as_str)*
                }
            }
        }

        impl ::std::fmt::Display for #name_ident {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for #name_ident {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                // `as_str` is the one list of values; the derived `Deserialize` has its own.
                Self::ALL.into_iter().find(|v| v.as_str() == s).ok_or_else(|| {
                    let listed = crate::wire::listing(Self::ALL.iter().map(|v| v.as_str()));
                    format!(#err_msg)
                })
            }
        }
    }
}

/// A string enum that keeps unlisted values (see the module docs).
pub fn open_string_enum_item(name: &str, e: &StringEnum, doc: TokenStream) -> TokenStream {
    let name_ident = ident(name);
    let unknown = ident(&unknown_name(e.variants.iter().map(|v| v.name.as_str())));
    let variants = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let vdoc = doc_attrs(v.doc.as_deref());
        quote! { #vdoc #vname, }
    });
    let as_str = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let value = &v.value;
        quote! { Self::#vname => #value, }
    });
    let from_str = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let value = &v.value;
        quote! { #value => Self::#vname, }
    });
    let all = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        quote! { Self::#vname }
    });
    let count = Literal::usize_unsuffixed(e.variants.len());
    let err_msg = not_listed_message(name);
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum #name_ident {
            #(#variants)*
            /// A value the document does not list, kept as it came.
            #unknown(String),
        }

        impl #name_ident {
            /// Every listed value, in the spec's order.
            pub const ALL: [Self; #count] = [#(#all),*];

            /// The value on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #(#as_str)*
                    Self::#unknown(value) => value,
                }
            }

            /// Whether the document lists the value.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::#unknown(_))
            }

            /// The listed value spelled `s`, if there is one.
            fn listed(s: &str) -> Option<Self> {
                Some(match s {
                    #(#from_str)*
                    _ => return None,
                })
            }
        }

        impl ::std::fmt::Display for #name_ident {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for #name_ident {
            type Err = String;

            /// Parses a listed value (as in a path or query parameter); others are refused.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::listed(s).ok_or_else(|| {
                    let listed = crate::wire::listing(Self::ALL.iter().map(Self::as_str));
                    format!(#err_msg)
                })
            }
        }

        impl ::serde::Serialize for #name_ident {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name_ident {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <String as ::serde::Deserialize>::deserialize(deserializer)?;
                Ok(Self::listed(&value).unwrap_or(Self::#unknown(value)))
            }
        }
    }
}

/// An integer enum that keeps unlisted values (see the module docs).
pub fn open_int_enum_item(name: &str, e: &IntEnum, doc: TokenStream) -> TokenStream {
    let name_ident = ident(name);
    let unknown_text = unknown_name(e.variants.iter().map(|v| v.name.as_str()));
    let unknown = ident(&unknown_text);
    let repr = super::rust::primitive(e.repr);
    let variants = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let vdoc = doc_attrs(v.doc.as_deref());
        quote! { #vdoc #vname, }
    });
    let values = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let value = int_literal(v.value);
        quote! { Self::#vname => #value, }
    });
    let names = e.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let text = &v.name;
        quote! { Self::#vname => #text, }
    });
    let from_values: Vec<TokenStream> = e
        .variants
        .iter()
        .map(|v| {
            let vname = ident(&v.name);
            let value = int_literal(v.value);
            quote! { #value => Self::#vname, }
        })
        .collect();
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
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum #name_ident {
            #(#variants)*
            /// A value the document does not list, kept as it came.
            #unknown(#repr),
        }

        impl #name_ident {
            /// Every listed value, in the spec's order.
            pub const ALL: [Self; #count] = [#(#all),*];

            /// The value on the wire.
            pub fn value(self) -> #repr {
                match self {
                    #(#values)*
                    Self::#unknown(value) => value,
                }
            }

            /// The name the spec gives this value.
            pub fn name(self) -> &'static str {
                match self {
                    #(#names)*
                    Self::#unknown(_) => #unknown_text,
                }
            }

            /// Whether the document lists the value.
            pub fn is_known(self) -> bool {
                !matches!(self, Self::#unknown(_))
            }
        }

        impl TryFrom<#repr> for #name_ident {
            type Error = String;

            /// A listed value; others are refused.
            fn try_from(value: #repr) -> Result<Self, Self::Error> {
                Ok(match value {
                    #(#from_values)*
                    _ => return Err(format!(#err_msg)),
                })
            }
        }

        impl ::std::fmt::Display for #name_ident {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}", self.value())
            }
        }

        impl ::std::str::FromStr for #name_ident {
            type Err = String;

            /// Parses a listed integer value (as in a path or query parameter).
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let value: #repr = s.parse().map_err(|_| format!("\"{s}\" is not an integer"))?;
                Self::try_from(value)
            }
        }

        impl ::serde::Serialize for #name_ident {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(&self.value(), serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name_ident {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                // `2.0` is the integer 2, as in JSON Schema.
                let value: #repr = crate::wire::integer(deserializer)?;
                Ok(match value {
                    #(#from_values)*
                    _ => Self::#unknown(value),
                })
            }
        }
    }
}

/// The body of an open enum's `validate_at`: an unlisted value is reported, with the listed ones
/// (spelled from `ALL` by the runtime, not written out again per enum).
pub fn unknown_check(unknown: &str, quoted: bool) -> TokenStream {
    let unknown = ident(unknown);
    let (message, listed) = if quoted {
        (
            "\"{value}\" is not one of the listed values ({listed})",
            quote! { Self::ALL.iter().map(Self::as_str) },
        )
    } else {
        (
            "{value} is not one of the listed values ({listed})",
            quote! { Self::ALL.iter().map(|v| v.value()) },
        )
    };
    quote! {
        if let Self::#unknown(value) = self {
            let listed = crate::wire::listing(#listed);
            errors.push(ValidationError {
                path: path.to_owned(),
                message: format!(#message),
            });
        }
    }
}
