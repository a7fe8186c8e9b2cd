//! The models' `src/decode.rs`: `Deserialize` and `Serialize` of each struct through the
//! `object` runtime (`templates/models/object.rs`), the same few items for every struct.

use crate::emit::ident;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// A struct whose `Deserialize` is rendered here.
pub struct Object<'a> {
    /// The Rust type name.
    pub name: &'a str,
    pub fields: Vec<ObjectField<'a>>,
    pub others: Others,
    /// A field is `#[deprecated]`: the struct expression names it.
    pub deprecated: bool,
    /// The crate root as `decode.rs` spells it (see [`crate::emit::Root`]).
    pub root: TokenStream,
}

pub struct ObjectField<'a> {
    /// The Rust field name (`type` for the keyword, spelled `r#type`).
    pub member: &'a str,
    pub wire: &'a str,
    /// The `wire::Decoder` type the value is read with, if not its own `Deserialize`.
    pub decoder: Option<TokenStream>,
    pub value: Value,
    /// The field's Rust type. The slot is declared with its type so that rustc need not infer
    /// it from the struct expression at the end (a pending obligation per field meanwhile).
    pub ty: TokenStream,
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

/// The head of `decode.rs`; `root` as in [`Object::root`].
pub fn head(root: &TokenStream) -> TokenStream {
    let doc = format!(" `Deserialize` and `Serialize` of the structs, through [`{root}::object`].");
    quote! {
        #![doc = #doc]
        use #root::types::*;
    }
}

/// The two impls of `object`: `Deserialize`, and the runtime's `Object`.
pub fn tokens(object: &Object) -> TokenStream {
    let name = ident(object.name);
    let type_name = object.name;
    let wires: Vec<&str> = object.fields.iter().map(|f| f.wire).collect();
    let slots: Vec<_> = (0..object.fields.len())
        .map(|i| format_ident!("f{i}"))
        .collect();
    let key = match object.others {
        // The key is refused as it is read; the `_` arm is never taken.
        Others::Deny => quote! { m.known_key(Self::FIELDS)? },
        _ => quote! { m.key()? },
    };
    let kept = match &object.others {
        Others::Keep(member) => Some(ident(member)),
        _ => None,
    };
    let keep = kept.is_some();
    let extra = keep.then(|| quote! { let mut extra = ::std::collections::BTreeMap::new(); });
    let other = if keep {
        quote! { m.extra(&mut extra, k) }
    } else {
        quote! { m.skip() }
    };
    let reads = if object.fields.is_empty() {
        if keep {
            quote! { while let Some(k) = #key { #other?; } }
        } else {
            quote! { while #key.is_some() { #other?; } }
        }
    } else {
        let arms = object.fields.iter().zip(&slots).map(|(f, slot)| {
            let wire = f.wire;
            match &f.decoder {
                Some(decoder) => quote! { #wire => m.put_with::<#decoder>(&mut #slot, #wire), },
                None => quote! { #wire => m.put(&mut #slot, #wire), },
            }
        });
        // One `?` for the match, not one per arm: each is a branch and a conversion to check.
        quote! {
            while let Some(k) = #key {
                match k.as_str() {
                    #(#arms)*
                    _ => #other,
                }?;
            }
        }
    };
    let values = object.fields.iter().zip(&slots).map(|(f, slot)| {
        let member = ident(f.member);
        let wire = f.wire;
        match &f.value {
            Value::Required => quote! { #member: m.take(#slot, #wire)?, },
            Value::Default(function) => {
                let function = ident(function);
                quote! { #member: #slot.unwrap_or_else(defaults::#function), }
            }
            Value::Flattened => quote! { #member: #slot.unwrap_or_default(), },
            Value::Slot => quote! { #member: #slot, },
        }
    });
    let kept = kept.map(|member| quote! { #member: extra, });
    let slot_types = object.fields.iter().map(|f| match f.value {
        Value::Slot => f.ty.clone(),
        _ => {
            let ty = &f.ty;
            quote! { Option<#ty> }
        }
    });
    let allow = object.deprecated.then(|| quote! { #[allow(deprecated)] });
    let root = &object.root;
    let serialize = serialize(object, &name, &allow);
    quote! {
        #serialize
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #root::object::object(d)
            }
        }
        #allow
        impl #root::object::Object for #name {
            const NAME: &'static str = #type_name;
            const FIELDS: &'static [&'static str] = &[#(#wires),*];
            fn from_map<'de, M: ::serde::de::MapAccess<'de>>(
                m: &mut #root::object::Fields<'de, M>,
            ) -> Result<Self, M::Error> {
                #(let mut #slots: #slot_types = None;)*
                #extra
                #reads
                Ok(Self { #(#values)* #kept })
            }
        }
    }
}

/// `Serialize` through the runtime's `Writer`; `None` for a struct that keeps other properties
/// (its map is flattened into the object by serde's derive).
fn serialize(
    object: &Object,
    name: &proc_macro2::Ident,
    allow: &Option<TokenStream>,
) -> Option<TokenStream> {
    if matches!(object.others, Others::Keep(_)) {
        return None;
    }
    let (root, type_name) = (&object.root, object.name);
    let optional = |f: &&ObjectField| matches!(f.value, Value::Slot | Value::Flattened);
    let always = object.fields.iter().filter(|f| !optional(f)).count();
    let always_lit = proc_macro2::Literal::usize_unsuffixed(always);
    let has_optional = always < object.fields.len();
    let present: Vec<_> = (object.fields.iter().filter(optional))
        .map(|f| {
            let member = ident(f.member);
            quote! { self.#member.is_some() }
        })
        .collect();
    let present = quote! { #root::object::present(&[#(#present),*]) };
    let len = match (always, has_optional) {
        (_, false) => quote! { #always_lit },
        (0, true) => present,
        (_, true) => quote! { #always_lit + #present },
    };
    let writes = object.fields.iter().map(|f| {
        let (member, wire) = (ident(f.member), f.wire);
        if optional(&f) {
            quote! { out.optional(#wire, &self.#member); }
        } else {
            quote! { out.field(#wire, &self.#member); }
        }
    });
    let body = if object.fields.is_empty() {
        quote! { #root::object::Writer::new(s, #type_name, 0).end() }
    } else {
        quote! {
            let mut out = #root::object::Writer::new(s, #type_name, #len);
            #(#writes)*
            out.end()
        }
    };
    Some(quote! {
        #allow
        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                #body
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_struct_loops_without_a_match() {
        for others in [Others::Skip, Others::Deny, Others::Keep("extra_".into())] {
            let object = Object {
                name: "Empty",
                fields: Vec::new(),
                others,
                deprecated: false,
                root: quote! { crate },
            };
            let out = tokens(&object).to_string();
            syn::parse_file(&out).unwrap_or_else(|e| panic!("{e}:\n{out}"));
            assert!(!out.contains("match"), "{out}");
        }
    }
}
