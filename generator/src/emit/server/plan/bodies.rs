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
        let (kind, media) = match (&body.media, &body.ty, multipart) {
            (_, ty, Some(fields)) => {
                let (ty, parts) = (ty.clone(), self.parts(fields));
                (BodyKind::Multipart { ty, parts }, "multipart/form-data")
            }
            (Media::Json, ty, _) => (BodyKind::Json(ty.clone()), "application/json"),
            (Media::Form, ty, _) if self.api.is_deep_form(body) => {
                let lists = self.api.form_lists(body);
                let (ty, lists) = (ty.clone(), lists.into_iter().map(str::to_owned).collect());
                (BodyKind::DeepForm { ty, lists }, form)
            }
            (Media::Form, ty, _) => (BodyKind::Form(ty.clone()), form),
            (Media::Text, TypeRef::Primitive(Primitive::String), _) => {
                (BodyKind::Text, "text/plain")
            }
            (Media::Binary(declared), _, _) => (BodyKind::Raw, declared.as_str()),
            (Media::Multipart, _, _) => (BodyKind::Raw, "multipart/form-data"),
            _ => (BodyKind::Raw, "text/plain"),
        };
        let note = match (&kind, &body.media) {
            (BodyKind::Multipart { .. }, _) => format!(
                "Media type: `{media}`, one part per property (files with their name and content type)."
            ),
            (BodyKind::Raw, Media::Binary(_)) => {
                format!("Media type: `{media}` (any is accepted); passed through undecoded.")
            }
            (BodyKind::Raw, _) => format!("Media type: `{media}`; passed through undecoded."),
            _ => format!("Media type: `{media}`."),
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
                let (optional, inner) = crate::emit::fields::field_holding(f, &self.api.types);
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
