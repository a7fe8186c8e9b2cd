//! Request bodies: how the router reads an operation's body (JSON, form, multipart part by part,
//! text, bytes) into the request's `body` field.

use super::*;
pub use crate::ir::PartKind;

/// How the router reads a body (`Option` of it when not `required`).
pub struct BodyRead {
    pub required: bool,
    pub kind: BodyKind,
}

pub enum BodyKind {
    Json(TypeRef),
    Form(TypeRef),
    /// A form with `deepObject` properties or required lists (`lists`, absent when empty).
    DeepForm {
        ty: TypeRef,
        lists: Vec<String>,
    },
    Text,
    /// Passed through undecoded.
    Raw,
    /// Read part by part into its struct: the properties that are not files decoded together,
    /// then the files put in, then the struct validated.
    Multipart {
        ty: TypeRef,
        parts: Vec<Part>,
    },
}

/// A property of a multipart body.
pub struct Part {
    pub wire: String,
    pub field: String,
    pub optional: bool,
    /// An array: one part per item.
    pub list: bool,
    pub kind: PartKind,
}

impl<'a> Plan<'a> {
    pub(super) fn body_field(&self, name: &str, body: &RequestBody) -> FieldPlan {
        if body.media == Media::Multipart
            && let Some(fields) = self.api.multipart_fields(&body.ty)
        {
            return self.multipart_field(name, body, fields);
        }
        let (kind, media) = match (&body.media, &body.ty) {
            (Media::Json, ty) => (BodyKind::Json(ty.clone()), "application/json"),
            (Media::Form, ty) if self.api.is_deep_form(body) => {
                let lists = self.api.form_lists(body);
                let lists = lists.into_iter().map(str::to_owned).collect();
                let ty = ty.clone();
                (
                    BodyKind::DeepForm { ty, lists },
                    "application/x-www-form-urlencoded",
                )
            }
            (Media::Form, ty) => (
                BodyKind::Form(ty.clone()),
                "application/x-www-form-urlencoded",
            ),
            (Media::Text, TypeRef::Primitive(Primitive::String)) => (BodyKind::Text, "text/plain"),
            (Media::Text, _) => (BodyKind::Raw, "text/plain"),
            (Media::Multipart, _) => (BodyKind::Raw, "multipart/form-data"),
            (Media::Binary(_), _) => (BodyKind::Raw, "application/octet-stream"),
        };
        let value = match &kind {
            BodyKind::Json(ty) | BodyKind::Form(ty) | BodyKind::DeepForm { ty, .. } => {
                Value::Type(ty.clone())
            }
            BodyKind::Text => Value::Scalar(Scalar::Value(Primitive::String)),
            _ => Value::RawBody,
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
        let required = body.required;
        FieldPlan {
            name: name.to_owned(),
            doc,
            ty: FieldType {
                value,
                optional: !required,
            },
            read: Read::Body(BodyRead { required, kind }),
            source: Source::Body,
        }
    }

    pub(super) fn multipart_field(
        &self,
        name: &str,
        body: &RequestBody,
        fields: &[crate::ir::Field],
    ) -> FieldPlan {
        let parts = fields
            .iter()
            .map(|f| {
                let (optional, inner) = crate::emit::models::field_holding(f, &self.api.types);
                let (list, kind) = match inner {
                    TypeRef::Array(item) => (true, self.api.part_kind(item)),
                    ty => (false, self.api.part_kind(ty)),
                };
                let (wire, field) = (f.wire_name.clone(), f.name.clone());
                Part {
                    wire,
                    field,
                    optional,
                    list,
                    kind,
                }
            })
            .collect();
        let mut doc = body
            .doc
            .clone()
            .unwrap_or_else(|| "The request body.".to_owned());
        push_paragraph(
            &mut doc,
            "Media type: `multipart/form-data`, one part per property (files with their name and content type).",
        );
        let (ty, required) = (body.ty.clone(), body.required);
        FieldPlan {
            name: name.to_owned(),
            doc,
            ty: FieldType {
                value: Value::Type(ty.clone()),
                optional: !required,
            },
            read: Read::Body(BodyRead {
                required,
                kind: BodyKind::Multipart { ty, parts },
            }),
            source: Source::Body,
        }
    }
}
