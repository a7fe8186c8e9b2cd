//! `responses.rs`, `errors.rs` and `headers.rs`: the success enums, error enums and typed success
//! headers of the operations that need them.

use super::*;

impl<'a> RequestEmitter<'a> {
    pub fn responses_rs(&self, plans: &[Plan]) -> TokenStream {
        let enums = plans.iter().filter_map(|p| {
            let Success::Enum(variants) = &p.success else { return None };
            let doc = format!(
                "The success answers of [`Client::{0}`]({root}::Client::{0}), one variant per documented status.",
                p.op.name,
                root = self.root_text,
            );
            Some(super::super::super::gated(self.response_enum(p, &doc, variants), &self.gate(p)))
        });
        quote! {
            //! Success values of operations whose success statuses have different bodies.

            #(#enums)*
        }
    }

    pub fn errors_rs(&self, plans: &[Plan]) -> TokenStream {
        let enums = plans
            .iter()
            .filter(|p| !p.errors.is_empty())
            .map(|p| super::super::super::gated(self.error_enum(p), &self.gate(p)));
        let doc = format!(
            " The documented errors of each operation: the `body` of [`Error::Api`]({}::Error::Api),",
            self.root_text
        );
        quote! {
            #![doc = #doc]
            //! one variant per documented error status with its decoded body and headers.

            #(#enums)*
        }
    }

    fn error_enum(&self, p: &Plan) -> TokenStream {
        let mut text = format!(
            "The documented errors of [`Client::{0}`]({root}::Client::{0}), one variant per status (the status itself is [`Error::status`]({root}::Error::status)).",
            p.op.name,
            root = self.root_text,
        );
        if p.common_error_body.is_some() {
            text.push_str(" Every variant carries the same body, which the enum dereferences to.");
        }
        let name = ident(&p.type_name);
        let deref = p.common_error_body.as_ref().map(|shape| {
            let target = self.shape_type(shape);
            let arms = p.errors.iter().map(|v| {
                let vname = ident(&v.name);
                let pattern = if v.headers.is_empty() {
                    quote! { Self::#vname(body) }
                } else {
                    quote! { Self::#vname { body, .. } }
                };
                // A boxed body derefs to the target by itself (clippy's `explicit_auto_deref`).
                quote! { #pattern => body, }
            });
            quote! {
                impl ::std::ops::Deref for #name {
                    type Target = #target;

                    fn deref(&self) -> &#target {
                        match self {
                            #(#arms)*
                        }
                    }
                }
            }
        });
        let item = self.response_enum(p, &text, &p.errors);
        quote! { #item #deref }
    }

    /// An operation's enum in `responses.rs` or `errors.rs`: one variant per status.
    fn response_enum(&self, p: &Plan, doc: &str, variants: &[Variant]) -> TokenStream {
        let (name, doc) = (ident(&p.type_name), wrapped_doc(doc));
        let variants = variants.iter().map(|v| self.variant(v));
        quote! {
            #doc
            #[derive(Debug, Clone, PartialEq)]
            pub enum #name {
                #(#variants)*
            }
        }
    }

    /// A variant of a response enum: its body (if any) as a tuple variant, or with headers, a
    /// struct variant of them.
    fn variant(&self, v: &Variant) -> TokenStream {
        let vname = ident(&v.name);
        // Its status, then the spec's description of it.
        let mut vdoc = format!("`{}`", v.status.key());
        if let Some(d) = v.doc.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
            vdoc = format!("{vdoc}: {d}");
        }
        let vdoc = doc_attrs(Some(&vdoc));
        let body = (v.shape != Shape::Empty).then(|| {
            let ty = self.shape_type(&v.shape);
            if v.boxed {
                quote! { Box<#ty> }
            } else {
                ty
            }
        });
        if v.headers.is_empty() {
            return match body {
                Some(ty) => quote! { #vdoc #vname(#ty), },
                None => quote! { #vdoc #vname, },
            };
        }
        let body = body.map(|ty| quote! { body: #ty, });
        let headers = v
            .headers
            .iter()
            .map(|h| self.header_field(h, TokenStream::new()));
        quote! { #vdoc #vname { #body #(#headers)* }, }
    }

    /// A documented header as a field (`vis`: its visibility), `None` when absent or malformed.
    fn header_field(&self, h: &Header, vis: TokenStream) -> TokenStream {
        let (field, ty) = (ident(&h.field), self.printer.rust_type(&h.ty));
        let mut doc = format!("The `{}` header (`None` when absent or malformed).", h.wire);
        if let Some(d) = h.doc.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
            doc = format!("{doc} {d}");
        }
        let doc = doc_attrs(Some(&doc));
        quote! { #doc #vis #field: Option<#ty>, }
    }

    /// The typed success headers of each operation that documents some (`send_full`'s
    /// `documented`).
    pub fn headers_rs(&self, plans: &[Plan]) -> TokenStream {
        let structs = plans.iter().filter(|p| !p.success_headers.is_empty()).map(|p| {
            let name = ident(&p.type_name);
            let doc = wrapped_doc(&format!(
                "The headers the successes of [`Client::{0}`]({root}::Client::{0}) document, typed.",
                p.op.name,
                root = self.root_text,
            ));
            let fields = p
                .success_headers
                .iter()
                .map(|h| self.header_field(h, quote! { pub }));
            let item = quote! {
                #doc
                #[derive(Debug, Clone, PartialEq, Default)]
                pub struct #name {
                    #(#fields)*
                }
            };
            super::super::super::gated(item, &self.gate(p))
        });
        let doc = format!(
            " [`ResponseValue`]({}::codec::ResponseValue) (from a builder's `send_full`).",
            self.root_text
        );
        quote! {
            //! The headers each operation's successes document, typed: the `documented` part of
            #![doc = #doc]

            #(#structs)*
        }
    }
}
