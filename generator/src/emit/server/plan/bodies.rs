//! Request bodies: how the router reads an operation's body (JSON, form, multipart part by part,
//! text, bytes) into the request's `body` field.

use super::*;

/// How a multipart property travels (the runtime's `multipart::PartKind`, item kinds for arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PartKind {
    File,
    Text,
    Value,
    Json,
}

impl<'a> Plan<'a> {
    pub(super) fn body_field(&self, name: &str, body: &RequestBody) -> FieldPlan {
        if body.media == Media::Multipart
            && let Some(fields) = self.api.multipart_fields(&body.ty)
        {
            return self.multipart_field(name, body, fields);
        }
        let required = body.required;
        let (ty, reader, media) = match (&body.media, &body.ty) {
            (Media::Json, ty) => (self.printer.rust_type(ty), "json", "application/json"),
            (Media::Form, ty) => (
                self.printer.rust_type(ty),
                "form",
                "application/x-www-form-urlencoded",
            ),
            (Media::Text, TypeRef::Primitive(Primitive::String)) => {
                (quote! { String }, "text", "text/plain")
            }
            (Media::Text, _) => (quote! { RawBody }, "raw", "text/plain"),
            (Media::Multipart, _) => (quote! { RawBody }, "raw", "multipart/form-data"),
            (Media::Binary(_), _) => (quote! { RawBody }, "raw", "application/octet-stream"),
        };
        let reader = if required {
            format_ident!("{}", reader)
        } else {
            format_ident!("{}_optional", reader)
        };
        let generic =
            if reader.to_string().starts_with("json") || reader.to_string().starts_with("form") {
                quote! { ::<#ty> }
            } else {
                TokenStream::new()
            };
        let read = if self.api.is_deep_form(body) {
            let reader = if required {
                quote! { form_with }
            } else {
                quote! { form_with_optional }
            };
            let lists = self.api.form_lists(body);
            let decode = if lists.is_empty() {
                quote! { deep_form::decode }
            } else {
                quote! { |bytes: &[u8]| deep_form::decode_lists(bytes, &[#(#lists),*]) }
            };
            quote! { body::#reader::<#ty>(Request::from_parts(parts, raw_body), #decode).await? }
        } else {
            quote! { body::#reader #generic(Request::from_parts(parts, raw_body)).await? }
        };
        let ty = if required {
            ty
        } else {
            quote! { Option<#ty> }
        };
        let mut doc = body
            .doc
            .clone()
            .unwrap_or_else(|| "The request body.".to_owned());
        let raw = matches!(body.media, Media::Multipart | Media::Binary(_))
            || matches!((&body.media, &body.ty), (Media::Text, t) if *t != TypeRef::Primitive(Primitive::String));
        let note = match (raw, &body.media) {
            (true, Media::Binary(declared)) => {
                format!("Media type: `{declared}` (any is accepted); passed through undecoded.")
            }
            (true, _) => format!("Media type: `{media}`; passed through undecoded."),
            (false, _) => format!("Media type: `{media}`."),
        };
        push_paragraph(&mut doc, &note);
        if !body.alternatives.is_empty() {
            let others: Vec<String> = body.alternatives.iter().map(|m| format!("`{m}`")).collect();
            push_paragraph(
                &mut doc,
                &format!(
                    "Also documented but not accepted by the router: {}.",
                    others.join(", ")
                ),
            );
        }
        FieldPlan {
            name: name.to_owned(),
            doc,
            ty,
            read,
            source: Source::Body,
        }
    }

    /// A multipart body read part by part into its struct: the properties that are not files
    /// decoded together, then the files put in, then the struct validated.
    pub(super) fn multipart_field(
        &self,
        name: &str,
        body: &RequestBody,
        fields: &[crate::ir::Field],
    ) -> FieldPlan {
        let ty = self.printer.rust_type(&body.ty);
        let mut kinds = Vec::new();
        let mut files = Vec::new();
        for f in fields {
            let (optional, inner) = crate::emit::models::field_holding(f, &self.api.types);
            let wire = &f.wire_name;
            let field = ident(&f.name);
            let kind = match inner {
                TypeRef::Array(item) => match self.part_kind(item) {
                    PartKind::File => {
                        files.push(if optional {
                            quote! { if value.#field.is_some() { value.#field = Some(form.files(#wire)); } }
                        } else {
                            quote! { value.#field = form.files(#wire); }
                        });
                        quote! { FileList }
                    }
                    PartKind::Text => quote! { TextList },
                    PartKind::Value => quote! { ValueList },
                    PartKind::Json => quote! { Json },
                },
                ty => match self.part_kind(ty) {
                    PartKind::File => {
                        files.push(if optional {
                            quote! { value.#field = form.file(#wire); }
                        } else {
                            quote! { value.#field = form.file(#wire).unwrap_or_default(); }
                        });
                        quote! { File }
                    }
                    PartKind::Text => quote! { Text },
                    PartKind::Value => quote! { Value },
                    PartKind::Json => quote! { Json },
                },
            };
            kinds.push(quote! { (#wire, multipart::PartKind::#kind) });
        }
        let binding = if files.is_empty() {
            quote! { value }
        } else {
            quote! { mut value }
        };
        let decode = quote! {{
            let #binding: #ty = form.decode(&[#(#kinds),*])?;
            #(#files)*
            body::validated(value)?
        }};
        let (read, ty) = if body.required {
            (
                quote! {{
                    let form = multipart::read(Request::from_parts(parts, raw_body)).await?;
                    #decode
                }},
                ty,
            )
        } else {
            (
                quote! {
                    match multipart::read_optional(Request::from_parts(parts, raw_body)).await? {
                        Some(form) => Some(#decode),
                        None => None,
                    }
                },
                quote! { Option<#ty> },
            )
        };
        let mut doc = body
            .doc
            .clone()
            .unwrap_or_else(|| "The request body.".to_owned());
        push_paragraph(
            &mut doc,
            "Media type: `multipart/form-data`, one part per property (files with their name and content type).",
        );
        FieldPlan {
            name: name.to_owned(),
            doc,
            ty,
            read,
            source: Source::Body,
        }
    }

    pub(super) fn part_kind(&self, ty: &TypeRef) -> PartKind {
        match ty {
            TypeRef::Primitive(Primitive::Bytes) => PartKind::File,
            TypeRef::Primitive(Primitive::String) => PartKind::Text,
            TypeRef::Primitive(_) | TypeRef::NumericString { .. } => PartKind::Value,
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Alias(inner) => self.part_kind(inner),
                TypeKind::StringEnum(_) => PartKind::Text,
                TypeKind::IntEnum(_) => PartKind::Value,
                _ => PartKind::Json,
            },
            _ => PartKind::Json,
        }
    }
}
