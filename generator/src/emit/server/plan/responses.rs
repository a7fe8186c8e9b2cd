//! Responses: each variant of an operation's response enum as plain data (status, body type and
//! writer, headers), and the API's error body the router answers rejections with.

use super::*;

/// One variant of an operation's response enum: plain data, rendered by `types::responses_rs`.
pub struct ResponsePlan {
    pub variant: String,
    pub status: StatusPlan,
    pub doc: String,
    pub body: Option<Body>,
    pub headers: Vec<HeaderPlan>,
}

#[derive(Clone, Copy)]
pub enum StatusPlan {
    /// A documented code.
    Fixed(u16),
    /// `default` or a range: the implementer picks the status.
    Chosen,
}

/// A response body: its Rust type and how it is written.
pub enum Body {
    /// JSON of this type.
    Json(TypeRef),
    /// A `String` as text: `text/plain`, or the documented text media type.
    Text(Option<String>),
    /// `Bytes` of this media type.
    Bytes(String),
    /// A `text/event-stream` of JSON data of this type.
    Events(TypeRef),
    /// Line-delimited JSON items of this type and media type; `true` for RFC 7464 record
    /// separators.
    Lines(TypeRef, String, bool),
}

#[derive(Clone)]
pub struct HeaderPlan {
    pub field: String,
    /// Lowercase, checked to be a valid header name.
    pub wire: String,
    /// A number, boolean or uuid keeps its type; `None`: anything else is sent as a `String`.
    pub ty: Option<Primitive>,
    pub required: bool,
    pub doc: String,
}

/// The schema most 4xx responses carry (then `default` and 5xx ones, for specs with no 4xx bodies).
pub(super) fn error_body(api: &Api) -> Option<TypeId> {
    api.error_body()
}

/// RFC 9110 token characters, lowercase (what `HeaderName::from_static` accepts).
pub(super) fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || b"!#$%&'*+-.^_`|~".contains(&b)
        })
}

pub(super) fn is_header_value(value: &str) -> bool {
    value.bytes().all(|b| (0x20..0x7f).contains(&b))
}

impl<'a> Plan<'a> {
    pub(super) fn responses(&self, op: &Operation, notes: &mut Vec<String>) -> Vec<ResponsePlan> {
        let mut plans = Vec::new();
        for r in &op.responses {
            if let Status::Code(code) = r.status
                && !(100..=999).contains(&code)
            {
                notes.push(format!(
                    "The response `{code}` is not a valid HTTP status; it is not generated."
                ));
                continue;
            }
            let plan = self.response(r, notes);
            let Some(stream) = &r.stream else {
                plans.push(plan);
                continue;
            };
            let item = stream.item.clone();
            let body = Some(match stream.format {
                StreamFormat::EventStream => Body::Events(item),
                StreamFormat::JsonLines => Body::Lines(item, stream.media.clone(), false),
                StreamFormat::JsonSeq => Body::Lines(item, stream.media.clone(), true),
            });
            let doc = format!("{} Streamed as `{}`.", plan.doc, stream.media);
            // The stream is its own variant beside the other body (`OkStream`), or the response's
            // only one.
            if plan.body.is_none() {
                plans.push(ResponsePlan { doc, body, ..plan });
            } else {
                let streamed = ResponsePlan {
                    variant: format!("{}Stream", plan.variant),
                    status: plan.status,
                    doc,
                    body,
                    headers: plan.headers.clone(),
                };
                plans.extend([plan, streamed]);
            }
        }
        plans
    }

    pub(super) fn response(&self, r: &Response, notes: &mut Vec<String>) -> ResponsePlan {
        let variant = status_variant(r.status);
        let status = match r.status {
            Status::Code(code) => StatusPlan::Fixed(code),
            Status::Range(_) | Status::Default => StatusPlan::Chosen,
        };
        let body = r.body.as_ref().map(|b| match (&b.media, &b.ty) {
            (Media::Json, ty) => Body::Json(ty.clone()),
            (Media::Text, TypeRef::Primitive(Primitive::String)) => Body::Text(
                b.text_type
                    .clone()
                    .filter(|t| is_header_value(t))
                    .map(|t| format!("{t}; charset=utf-8")),
            ),
            (media, _) => {
                let content_type = match media {
                    Media::Binary(m) if is_header_value(m) && !m.contains('*') => m.clone(),
                    Media::Text => b
                        .text_type
                        .clone()
                        .unwrap_or_else(|| "text/plain".to_owned()),
                    Media::Form => "application/x-www-form-urlencoded".to_owned(),
                    Media::Multipart => "multipart/form-data".to_owned(),
                    _ => "application/octet-stream".to_owned(),
                };
                Body::Bytes(content_type)
            }
        });
        let mut taken: HashSet<String> = ["body", "status", "response", "value"]
            .map(str::to_owned)
            .into();
        let mut headers = Vec::new();
        for h in &r.headers {
            let wire = h.wire_name.to_ascii_lowercase();
            if wire == "content-type" {
                continue;
            }
            if !is_header_name(&wire) {
                notes.push(format!(
                    "The response header `{}` is not a valid header name; it is not generated.",
                    h.wire_name
                ));
                continue;
            }
            let field = unique_field(&naming::field_ident(&h.wire_name), &mut taken);
            // Numbers, booleans and uuids keep their type; anything else is sent as text.
            let ty = match self.api.resolve(&h.ty) {
                TypeRef::Primitive(p @ (Primitive::Bool | Primitive::Uuid)) => Some(*p),
                TypeRef::Primitive(p) if p.is_integer() || p.is_float() => Some(*p),
                _ => None,
            };
            let mut doc = format!("The `{}` header.", h.wire_name);
            if let Some(d) = &h.doc {
                doc = format!("{doc} {}", d.trim());
            }
            headers.push(HeaderPlan {
                field,
                wire,
                ty,
                required: h.required,
                doc,
            });
        }
        // An open media range (`image/*`): the implementer names the body's actual type.
        if let Some(b) = &r.body
            && let Media::Binary(range) = &b.media
            && range.contains('*')
        {
            let field = unique_field("content_type", &mut taken);
            headers.push(HeaderPlan {
                field,
                wire: "content-type".to_owned(),
                ty: None,
                required: true,
                doc: format!(
                    "The `Content-Type` header. The media type of the body, within `{range}`."
                ),
            });
        }
        let label = r.status.key();
        let doc = match &r.doc {
            Some(d) => format!("`{label}`: {}", d.trim()),
            None => format!("`{label}`."),
        };
        ResponsePlan {
            variant,
            status,
            doc,
            body,
            headers,
        }
    }
}
