//! The parts of a union's enum that untagged and internally tagged unions share (the variants and
//! the doc saying how they are told apart), and the untagged union's enum, which serde's derive
//! decodes. The tagged one is `tagged.rs`'s.

use crate::emit::fields::boxed;
use crate::emit::{TypePrinter, doc_attrs, ident};
use crate::ir::{TypeRef, Union, UnionVariant};
use proc_macro2::TokenStream;
use quote::quote;

/// The enum of an untagged union.
pub fn untagged_item(
    printer: &TypePrinter,
    name: &str,
    u: &Union,
    doc: TokenStream,
) -> TokenStream {
    let name = ident(name);
    // Untagged decoding tries variants in order: a catch-all JSON value must come last.
    let mut variants: Vec<_> = u.variants.iter().collect();
    variants.sort_by_key(|v| matches!(v.ty, TypeRef::Any));
    let variants = variants.iter().map(|v| variant(printer, v));
    let doc = union_doc(
        doc,
        u,
        "untagged: decoded as the first that matches, tried most specific first",
    );
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(untagged)]
        pub enum #name {
            #(#variants)*
        }
    }
}

/// The variant of a union's enum.
pub fn variant(printer: &TypePrinter, v: &UnionVariant) -> TokenStream {
    let vname = ident(&v.name);
    let vdoc = doc_attrs(v.doc.as_deref());
    let ty = boxed(printer.rust_type(&v.ty), v.boxed);
    quote! { #vdoc #vname(#ty), }
}

/// A union's doc attributes: the document's, then which of the variants a value is and `how`
/// they are told apart.
pub fn union_doc(doc: TokenStream, u: &Union, how: &str) -> TokenStream {
    let note = if u.exclusive {
        format!(" Exactly one of the variants (`oneOf`), {how}.")
    } else {
        format!(" One or more of the variants (`anyOf`), {how}.")
    };
    let sep = (!doc.is_empty()).then(|| quote! { #[doc = ""] });
    quote! { #doc #sep #[doc = #note] }
}
