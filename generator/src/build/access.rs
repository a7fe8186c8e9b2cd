//! `readOnly` and `writeOnly`, decided by usage. One models struct serves both directions (the
//! client encodes requests and decodes responses, the server the other way round), so a property
//! cannot be left out of one direction only. Instead:
//!
//! - a **required `readOnly`** property of a schema that a request body reaches (through refs,
//!   arrays, maps, unions, allOf, flattened parts) is **not required** when decoding: the client may
//!   leave it out, and a body obtained by GET can be sent back as it came (the server receives
//!   what was sent and ignores it);
//! - symmetrically, a **required `writeOnly`** property of a schema that a response body reaches is
//!   not required.
//!
//! "Not required" is the ordinary optional shape: `Option<T>` (absent is `None`, `None` is not
//! sent), or `T` filled in from the spec's `default` when it has one. A schema used only in
//! responses keeps its read-only properties required (the common case, unchanged), and one used
//! only in requests its write-only ones. The field's doc says when a property was relaxed.

use crate::ir::{Operation, TypeDef, TypeKind, TypeRef};

/// Which types a request body and a response body reach, per [`TypeDef`] index.
pub struct Usage {
    pub in_request: Vec<bool>,
    pub in_response: Vec<bool>,
}

impl Usage {
    pub fn of(types: &[TypeDef], operations: &[Operation]) -> Usage {
        let requests = operations
            .iter()
            .filter_map(|op| op.body.as_ref().map(|b| &b.ty));
        let responses = operations
            .iter()
            .flat_map(|op| &op.responses)
            .filter_map(|r| r.body.as_ref().map(|b| &b.ty));
        Usage {
            in_request: reached(types, requests),
            in_response: reached(types, responses),
        }
    }
}

/// Relaxes the required `readOnly` properties of request-side structs and the required
/// `writeOnly` properties of response-side ones (see the module docs).
pub fn relax(types: &mut [TypeDef], operations: &[Operation]) {
    let usage = Usage::of(types, operations);
    for (i, def) in types.iter_mut().enumerate() {
        let TypeKind::Struct(s) = &mut def.kind else {
            continue;
        };
        for f in &mut s.fields {
            if !f.required || f.flatten {
                continue;
            }
            let note = if f.read_only && usage.in_request[i] {
                "Read-only: always present in responses, optional in requests (where it is ignored)."
            } else if f.write_only && usage.in_response[i] {
                // Where requests carry it too, `Validate` (which the server runs on requests)
                // still demands it.
                f.constraints.present = usage.in_request[i];
                "Write-only: required in requests (`Validate` reports it missing), optional in responses (which leave it out)."
            } else {
                continue;
            };
            f.required = false;
            f.doc = Some(match f.doc.take() {
                Some(doc) if !doc.is_empty() => format!("{doc}\n\n{note}"),
                _ => note.to_owned(),
            });
        }
    }
}

/// Marks every type that `roots` reach.
fn reached<'a>(types: &[TypeDef], roots: impl Iterator<Item = &'a TypeRef>) -> Vec<bool> {
    let mut seen = vec![false; types.len()];
    let mut stack: Vec<&TypeRef> = roots.collect();
    while let Some(ty) = stack.pop() {
        match ty {
            TypeRef::Named(id) => {
                if std::mem::replace(&mut seen[id.0], true) {
                    continue;
                }
                stack.extend(types[id.0].kind.refs());
            }
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                stack.push(inner)
            }
            TypeRef::Primitive(_)
            | TypeRef::NumericString { .. }
            | TypeRef::Any
            | TypeRef::Null => {}
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use crate::ir::{Api, TypeKind};

    fn api(text: &str) -> Api {
        crate::load_api(text).unwrap_or_else(|d| panic!("{d}")).0
    }

    /// `(required, doc)` of `field` of the type named `ty`.
    fn field(api: &Api, ty: &str, field: &str) -> (bool, String) {
        let def = api.types.iter().find(|t| t.name == ty).expect(ty);
        let TypeKind::Struct(s) = &def.kind else {
            panic!("{ty} is no struct")
        };
        let f = s.fields.iter().find(|f| f.wire_name == field).expect(field);
        (f.required, f.doc.clone().unwrap_or_default())
    }

    const DOC: &str = r##"openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /things:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Thing'}}
    put:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                things: {type: object, additionalProperties: {$ref: '#/components/schemas/Wrapper'}}
      responses:
        '204': {description: done}
  /only-out:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/OnlyOut'}
  /only-in:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/OnlyIn'}
      responses:
        '204': {description: done}
components:
  schemas:
    Wrapper:
      oneOf:
        - {$ref: '#/components/schemas/Thing'}
        - {type: string}
    Thing:
      type: object
      required: [id, name, secret]
      properties:
        id: {type: string, readOnly: true, description: The id.}
        name: {type: string}
        secret: {type: string, writeOnly: true}
    OnlyOut:
      type: object
      required: [id, secret]
      properties:
        id: {type: string, readOnly: true}
        secret: {type: string, writeOnly: true}
    OnlyIn:
      type: object
      required: [id, secret]
      properties:
        id: {type: string, readOnly: true}
        secret: {type: string, writeOnly: true}
"##;

    #[test]
    fn required_read_and_write_only_properties_are_relaxed_where_the_schema_is_used() {
        let api = api(DOC);
        // Thing is reached from a request (through an inline object, a map and a union) and
        // from a response: both relaxed, the plain property untouched.
        let (required, doc) = field(&api, "Thing", "id");
        assert!(!required);
        assert!(doc.starts_with("The id.\n\nRead-only:"), "{doc}");
        let (required, doc) = field(&api, "Thing", "secret");
        assert!(!required);
        assert!(doc.starts_with("Write-only:"), "{doc}");
        assert!(field(&api, "Thing", "name").0);
        // Only in responses: read-only stays required, write-only is relaxed.
        assert_eq!(field(&api, "OnlyOut", "id"), (true, String::new()));
        assert!(!field(&api, "OnlyOut", "secret").0);
        // Only in requests: the other way round.
        assert!(!field(&api, "OnlyIn", "id").0);
        assert_eq!(field(&api, "OnlyIn", "secret"), (true, String::new()));
    }
}
