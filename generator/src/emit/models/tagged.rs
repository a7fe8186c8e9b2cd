//! Internally tagged unions in the models crate: an enum of the branch types with hand-written
//! serde impls over the `tagged` runtime (templates/models/tagged.rs).
//!
//! serde's own `#[serde(tag = "...")]` strips the tag before decoding a variant, so a branch struct
//! that declares the tag property (as the document says it does) would miss it, and encoding
//! would write it twice. Here the tag only picks the variant: the whole object, tag included, is
//! decoded as the branch's struct, and a variant encodes as its struct. A branch that does not
//! declare the property gets the tag added when encoded and removed before it is decoded.

use super::unions::{union_doc, variant};
use crate::emit::fields::field_holding;
use crate::emit::{TypePrinter, ident};
use crate::ir::{TypeDef, TypeRef, Union, UnionVariant, struct_behind};
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use serde_json::Value;

/// Whether a document has an internally tagged union (and so needs the `tagged` runtime).
pub fn any(types: &[TypeDef]) -> bool {
    types
        .iter()
        .any(|t| matches!(&t.kind, crate::ir::TypeKind::Union(u) if u.discriminator.is_some()))
}

pub fn item(
    printer: &TypePrinter,
    name: &str,
    u: &Union,
    property: &str,
    doc: TokenStream,
) -> TokenStream {
    let (name_ident, types) = (ident(name), printer.types);
    let runtime = &printer.runtime;
    let integer = u.variants.iter().flat_map(|v| &v.tags).all(Value::is_i64);
    let variants = u.variants.iter().map(|v| variant(printer, v));
    let mut listing = u
        .variants
        .iter()
        .filter(|v| !v.tags.is_empty())
        .map(|v| {
            let tags: Vec<String> = v.tags.iter().map(|t| format!("`{t}`")).collect();
            format!("{} for [`{}`]", tags.join(" or "), v.name)
        })
        .collect::<Vec<_>>()
        .join(", ");
    let default = u.default_variant.map(|i| &u.variants[i]);
    if let Some(v) = default {
        listing.push_str(&format!("; any other value, or none, for [`{}`]", v.name));
    }
    let doc = union_doc(
        doc,
        u,
        &format!("told apart by the tag `{property}`: {listing}"),
    );
    let declares = |v: &UnionVariant| {
        struct_behind(types, &v.ty)
            .is_some_and(|s| s.fields.iter().any(|f| f.wire_name == property))
    };
    let serialize_arms = u.variants.iter().map(|v| {
        let vname = ident(&v.name);
        if let Some(check) = free_tag_check(types, v, property, runtime) {
            return quote! {
                Self::#vname(value) => {
                    #check
                    ::serde::Serialize::serialize(value, serializer)
                }
            };
        }
        // A variant without tags of its own (the default) is sent as it is.
        if declares(v) || v.tags.is_empty() {
            return quote! { Self::#vname(value) => ::serde::Serialize::serialize(value, serializer), };
        }
        let tag = tag_literal(&v.tags[0], true);
        quote! {
            Self::#vname(value) => #runtime tagged::with_tag(serializer, #property, #tag, value),
        }
    });
    let decode = |v: &UnionVariant| {
        let vname = ident(&v.name);
        let value = if declares(v) {
            quote! { value }
        } else {
            quote! { #runtime tagged::without(value, #property) }
        };
        let wrap = if v.boxed {
            quote! { |v| Self::#vname(Box::new(v)) }
        } else {
            quote! { Self::#vname }
        };
        quote! { #runtime tagged::variant(#value).map(#wrap) }
    };
    let deserialize_arms = u.variants.iter().filter(|v| !v.tags.is_empty()).map(|v| {
        let patterns = v.tags.iter().map(|t| tag_literal(t, false));
        let decoded = decode(v);
        quote! { Some(#(#patterns)|*) => #decoded, }
    });
    let (expected, find_tag, otherwise) = match default {
        Some(v) => (
            None,
            quote! { let tag = value.get(#property).unwrap_or(&::serde_json::Value::Null); },
            decode(v),
        ),
        // Without a default, a missing or unknown tag is an error naming the tag and its values.
        None => {
            let tags = u.variants.iter().flat_map(|v| &v.tags);
            let expected = tags.map(ToString::to_string).collect::<Vec<_>>().join(", ");
            (
                Some(quote! { const EXPECTED: &str = #expected; }),
                quote! { let tag = #runtime tagged::tag(&value, #property, EXPECTED)?; },
                quote! { Err(#runtime tagged::unknown(tag, #property, EXPECTED)) },
            )
        }
    };
    let as_kind = if integer {
        quote! { as_i64 }
    } else {
        quote! { as_str }
    };
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq)]
        pub enum #name_ident {
            #(#variants)*
        }

        impl ::serde::Serialize for #name_ident {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    #(#serialize_arms)*
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name_ident {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                #expected
                let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                #find_tag
                match tag.#as_kind() {
                    #(#deserialize_arms)*
                    _ => #otherwise,
                }
            }
        }
    }
}

/// Where the branch struct's tag property may hold other values than the variant's tags (a
/// plain string, an optional one, an enum of several values): a check before encoding.
fn free_tag_check(
    types: &[TypeDef],
    v: &UnionVariant,
    property: &str,
    runtime: &TokenStream,
) -> Option<TokenStream> {
    // The default variant (no tags of its own) holds whatever the others' tags do not name.
    if v.tags.is_empty() {
        return None;
    }
    let field = struct_behind(types, &v.ty)?
        .fields
        .iter()
        .find(|f| f.wire_name == property)?;
    // How the struct holds the property: an optional one with a default is no `Option`.
    let (optional, held) = field_holding(field, types);
    if !optional
        && let TypeRef::Named(id) = held
        && types[id.0].kind.only_value().is_some()
    {
        return None;
    }
    // Compared as text: a string as it is, an integer as JSON writes it.
    let tags = v.tags.iter().map(|t| match t {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    let fname = ident(&field.name);
    let allow = field.deprecated.then(|| quote! { #[allow(deprecated)] });
    // An optional tag property left empty: the variant's tag is written for it.
    let absent = optional.then(|| {
        let tag = tag_literal(&v.tags[0], true);
        quote! {
            #allow
            if value.#fname.is_none() {
                return #runtime tagged::with_tag(serializer, #property, #tag, value);
            }
        }
    });
    Some(quote! {
        #absent
        #allow
        let held = &value.#fname;
        #runtime tagged::check(held, #property, &[#(#tags),*]).map_err(::serde::ser::Error::custom)?;
    })
}

/// The literal of a tag value: a string, or an integer (`2i64` where it is encoded, so that its
/// type is fixed; `2` as a pattern).
fn tag_literal(tag: &Value, suffixed: bool) -> TokenStream {
    match tag {
        Value::Number(n) => {
            let n = n.as_i64().unwrap_or_default();
            let lit = if suffixed {
                Literal::i64_suffixed(n)
            } else {
                Literal::i64_unsuffixed(n)
            };
            quote! { #lit }
        }
        other => {
            let s = other.as_str().unwrap_or_default();
            quote! { #s }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Part, emit::Options};

    /// The text of the models' `types.rs` generated from the fixture `name`.
    fn types_of(name: &str) -> String {
        let path = format!("{}/../tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("fixture");
        let opts = Options::new("t", name, "test");
        let generated = crate::generate(&text, &opts, &[Part::Models]).expect("generates");
        let files = &generated.crates[0].1;
        let types = files.iter().find(|f| f.path == "src/types.rs");
        types.expect("types.rs").contents.clone()
    }

    #[test]
    fn a_tag_defaulted_by_the_branch_is_held_and_encoded_as_itself() {
        let types = types_of("union-defaulted-tag.yaml");
        // A one-value enum is always the tag: encoded as it is. A free string is checked.
        assert!(!types.contains("is_none()"), "{types}");
        assert!(
            types.contains(
                "Self::LocalTarget(value) => ::serde::Serialize::serialize(value, serializer)"
            ),
            "{types}"
        );
        assert!(
            types.contains("crate::tagged::check(held, \"type\", &[\"sgRemote\"])"),
            "{types}"
        );
    }
}
