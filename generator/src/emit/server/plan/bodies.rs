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
        let form = "application/x-www-form-urlencoded";
        let multipart = (body.media == Media::Multipart)
            .then(|| self.api.multipart_fields(&body.ty))
            .flatten();
        let by_parts = "Media type: `multipart/form-data`, one part per property (files with their name and content type).";
        let (kind, note) = match (&body.media, &body.ty, multipart) {
            (_, ty, Some(fields)) => {
                let parts = self.parts(fields);
                let ty = ty.clone();
                (BodyKind::Multipart { ty, parts }, by_parts.to_owned())
            }
            (Media::Json, ty, _) => (
                BodyKind::Json(ty.clone()),
                "Media type: `application/json`.".to_owned(),
            ),
            (Media::Form, ty, _) if self.api.is_deep_form(body) => {
                let lists = self.api.form_lists(body);
                let lists = lists.into_iter().map(str::to_owned).collect();
                let ty = ty.clone();
                (
                    BodyKind::DeepForm { ty, lists },
                    format!("Media type: `{form}`."),
                )
            }
            (Media::Form, ty, _) => (BodyKind::Form(ty.clone()), format!("Media type: `{form}`.")),
            (Media::Text, TypeRef::Primitive(Primitive::String), _) => {
                (BodyKind::Text, "Media type: `text/plain`.".to_owned())
            }
            (media, _, _) => {
                let media = match media {
                    Media::Binary(declared) => format!("`{declared}` (any is accepted)"),
                    Media::Multipart => "`multipart/form-data`".to_owned(),
                    _ => "`text/plain`".to_owned(),
                };
                let note = format!("Media type: {media}; passed through undecoded.");
                (BodyKind::Raw, note)
            }
        };
        let mut doc = body
            .doc
            .clone()
            .unwrap_or_else(|| "The request body.".to_owned());
        push_paragraph(&mut doc, &note);
        // (A multipart body read part by part does not list them.)
        if !body.alternatives.is_empty() && !matches!(kind, BodyKind::Multipart { .. }) {
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
            read: Read::Body(BodyRead {
                required: body.required,
                kind,
            }),
        }
    }

    /// The parts of a multipart body, one per property of its struct.
    fn parts(&self, fields: &[crate::ir::Field]) -> Vec<Part> {
        fields
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
            .collect()
    }
}
