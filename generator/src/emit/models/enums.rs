//! String and integer enums in the models crate.
//!
//! Closed enums (`Options::open_enums` off) know only the document's values: any other value fails
//! to decode. Open enums (the default) add a variant that keeps a value the document does not list
//! (a server that learned a value after the client was generated), decoded and encoded as it came,
//! so that an API can add values without breaking deployed clients. `Validate` reports such a value
//! (the generated server answers 400, as for any broken constraint), and `FromStr`/`TryFrom` (how
//! parameters are parsed) accept only the listed values.

use crate::emit::{doc_attrs, ident};
use crate::ir::{IntEnum, StringEnum, TypeKind};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// Whether an enum is generated open. A one-value enum is a constant (`const`, the tag of a union,
/// GeoJSON's `type`) and stays closed: it has nothing to evolve, and a union's tag must hold it.
pub fn is_open(kind: &TypeKind, open_enums: bool) -> bool {
    open_enums && variant_names(kind).is_some_and(|names| names.len() > 1)
}

/// The Rust names of an enum's variants; `None` for other types.
fn variant_names(kind: &TypeKind) -> Option<Vec<&str>> {
    match kind {
        TypeKind::StringEnum(e) => Some(e.variants.iter().map(|v| v.name.as_str()).collect()),
        TypeKind::IntEnum(e) => Some(e.variants.iter().map(|v| v.name.as_str()).collect()),
        _ => None,
    }
}

/// The variant of an open enum that holds an unlisted value: `Unknown`, or `Unknown2`... when the
/// document has a value of that name.
fn unknown_name<'a>(names: impl Iterator<Item = &'a str> + Clone) -> String {
    crate::naming::free_variant("Unknown", names)
}

/// The body of an open enum's `validate_at`, `None` for other types: an unlisted value is
/// reported, with the listed ones (spelled from `ALL` by the runtime, not written out again per
/// enum).
/// `root`: the crate root as the models' files spell it (see [`crate::emit::Root`]).
pub fn validate_body(kind: &TypeKind, open_enums: bool, root: &TokenStream) -> Option<TokenStream> {
    if !is_open(kind, open_enums) {
        return None;
    }
    let unknown = ident(&unknown_name(variant_names(kind)?.into_iter()));
    let (value, listed) = match kind {
        TypeKind::StringEnum(_) => (
            quote! { #root::wire::Quoted(value) },
            quote! { Self::ALL.iter().map(Self::as_str) },
        ),
        _ => (
            quote! { value },
            quote! { Self::ALL.iter().map(|v| v.value()) },
        ),
    };
    Some(quote! {
        if let Self::#unknown(value) = self {
            errors.push(ValidationError {
                path: path.to_owned(),
                message: #root::wire::not_listed(#value, #listed),
            });
        }
    })
}

/// A string enum, open (see the module docs) or closed.
pub fn string_enum_item(
    name: &str,
    e: &StringEnum,
    open: bool,
    doc: TokenStream,
    root: &TokenStream,
) -> TokenStream {
    let name_ident = ident(name);
    let vnames: Vec<_> = e.variants.iter().map(|v| ident(&v.name)).collect();
    let docs = e.variants.iter().map(|v| doc_attrs(v.doc.as_deref()));
    let values: Vec<_> = e.variants.iter().map(|v| &v.value).collect();
    let count = Literal::usize_unsuffixed(e.variants.len());
    let display = quote! {
        impl ::std::fmt::Display for #name_ident {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
    if !open {
        return quote! {
            #doc
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub enum #name_ident {
                #(#docs #vnames,)*
            }

            // By hand rather than serde's derive: a visitor and a field enum per enum were a
            // measurable part of a big document's check time.
            impl ::serde::Serialize for #name_ident {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    serializer.serialize_str(self.as_str())
                }
            }

            impl<'de> ::serde::Deserialize<'de> for #name_ident {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    #root::wire::closed(deserializer, &Self::ALL, Self::as_str)
                }
            }

            impl #name_ident {
                /// Every value, in the spec's order.
                pub const ALL: [Self; #count] = [#(Self::#vnames),*];

                /// The value on the wire.
                pub fn as_str(self) -> &'static str {
                    match self {
                        #(Self::#vnames => #values,)*
                    }
                }
            }

            #display

            impl ::std::str::FromStr for #name_ident {
                type Err = String;

                fn from_str(s: &str) -> Result<Self, Self::Err> {
                    // `as_str` is the one list of values; the derived `Deserialize` has its own.
                    Self::ALL.into_iter().find(|v| v.as_str() == s).ok_or_else(|| {
                        #root::wire::not_a_valid(s, #name, Self::ALL.iter().map(|v| v.as_str()))
                    })
                }
            }
        };
    }
    let unknown = ident(&unknown_name(e.variants.iter().map(|v| v.name.as_str())));
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum #name_ident {
            #(#docs #vnames,)*
            /// A value the document does not list, kept as it came.
            #unknown(String),
        }

        impl #name_ident {
            /// Every listed value, in the spec's order.
            pub const ALL: [Self; #count] = [#(Self::#vnames),*];

            /// The value on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #(Self::#vnames => #values,)*
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
                    #(#values => Self::#vnames,)*
                    _ => return None,
                })
            }
        }

        #display

        impl ::std::str::FromStr for #name_ident {
            type Err = String;

            /// Parses a listed value (as in a path or query parameter); others are refused.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::listed(s).ok_or_else(|| {
                    #root::wire::not_a_valid(s, #name, Self::ALL.iter().map(Self::as_str))
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

/// An integer enum, open (see the module docs) or closed.
pub fn int_enum_item(
    name: &str,
    e: &IntEnum,
    open: bool,
    doc: TokenStream,
    root: &TokenStream,
) -> TokenStream {
    let name_ident = ident(name);
    let repr = crate::emit::rust::primitive(e.repr);
    let vnames: Vec<_> = e.variants.iter().map(|v| ident(&v.name)).collect();
    let docs = e.variants.iter().map(|v| doc_attrs(v.doc.as_deref()));
    let values: Vec<_> = e
        .variants
        .iter()
        .map(|v| Literal::i64_unsuffixed(v.value))
        .collect();
    let texts: Vec<_> = e.variants.iter().map(|v| &v.name).collect();
    let count = Literal::usize_unsuffixed(e.variants.len());
    let expected = e
        .variants
        .iter()
        .map(|v| v.value.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let err_msg = format!("{{value}} is not a valid {name} (expected one of {expected})");
    let text_impls = |parses: &str| {
        quote! {
            impl ::std::fmt::Display for #name_ident {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    write!(f, "{}", self.value())
                }
            }

            impl ::std::str::FromStr for #name_ident {
                type Err = String;

                #[doc = #parses]
                fn from_str(s: &str) -> Result<Self, Self::Err> {
                    let value: #repr = s.parse().map_err(|_| format!("\"{s}\" is not an integer"))?;
                    Self::try_from(value)
                }
            }
        }
    };
    if !open {
        let text_impls = text_impls(" Parses the integer value (as in a path or query parameter).");
        return quote! {
            #doc
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde_repr::Serialize_repr, ::serde_repr::Deserialize_repr)]
            #[repr(#repr)]
            pub enum #name_ident {
                #(#docs #vnames = #values,)*
            }

            impl #name_ident {
                /// Every value, in the spec's order.
                pub const ALL: [Self; #count] = [#(Self::#vnames),*];

                /// The value on the wire.
                pub fn value(self) -> #repr {
                    self as #repr
                }

                /// The name the spec gives this value.
                pub fn name(self) -> &'static str {
                    match self {
                        #(Self::#vnames => #texts,)*
                    }
                }
            }

            impl TryFrom<#repr> for #name_ident {
                type Error = String;

                fn try_from(value: #repr) -> Result<Self, Self::Error> {
                    match value {
                        #(#values => Ok(Self::#vnames),)*
                        _ => Err(format!(#err_msg)),
                    }
                }
            }

            #text_impls
        };
    }
    let unknown_text = unknown_name(e.variants.iter().map(|v| v.name.as_str()));
    let unknown = ident(&unknown_text);
    let text_impls =
        text_impls(" Parses a listed integer value (as in a path or query parameter).");
    quote! {
        #doc
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum #name_ident {
            #(#docs #vnames,)*
            /// A value the document does not list, kept as it came.
            #unknown(#repr),
        }

        impl #name_ident {
            /// Every listed value, in the spec's order.
            pub const ALL: [Self; #count] = [#(Self::#vnames),*];

            /// The value on the wire.
            pub fn value(self) -> #repr {
                match self {
                    #(Self::#vnames => #values,)*
                    Self::#unknown(value) => value,
                }
            }

            /// The name the spec gives this value.
            pub fn name(self) -> &'static str {
                match self {
                    #(Self::#vnames => #texts,)*
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
                    #(#values => Self::#vnames,)*
                    _ => return Err(format!(#err_msg)),
                })
            }
        }

        #text_impls

        impl ::serde::Serialize for #name_ident {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(&self.value(), serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name_ident {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                // `2.0` is the integer 2, as in JSON Schema.
                let value: #repr = #root::wire::integer(deserializer)?;
                Ok(match value {
                    #(#values => Self::#vnames,)*
                    _ => Self::#unknown(value),
                })
            }
        }
    }
}
