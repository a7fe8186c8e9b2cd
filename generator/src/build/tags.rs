//! The tag property of an inline branch of an internally tagged union lives in the union, not in
//! the branch's struct.
//!
//! An inline branch (`oneOf: [{type: object, properties: {type: {const: started}, ...}}]`) is a
//! struct only its union names, and its tag property can hold one value only: the variant says it
//! already. Keeping it as a field costs a one-value enum type (with its derives and impls) per
//! branch and a field every caller must fill with the only value it can take. The union writes
//! the tag when it encodes such a variant and drops it before decoding the struct (see
//! `emit/models/tagged.rs`), as it does for a component branch that does not declare the property.
//!
//! A branch that something else names too (a component, a type used elsewhere) keeps its field:
//! the struct is the same type wherever it is used, and elsewhere the tag is part of it.

use crate::ir::{Api, TypeId, TypeKind, TypeRef};

/// Takes the tag field out of every inline branch struct whose tag can hold only the variant's
/// own value, and removes the one-value enum types nothing names any longer.
pub fn move_inline_tags_to_unions(api: &mut Api) {
    let uses = api.use_counts();
    let mut strip: Vec<(TypeId, String)> = Vec::new();
    let mut dead: Vec<TypeId> = Vec::new();
    for def in &api.types {
        let TypeKind::Union(u) = &def.kind else {
            continue;
        };
        let Some(property) = &u.discriminator else {
            continue;
        };
        for variant in &u.variants {
            let TypeRef::Named(branch) = &variant.ty else {
                continue;
            };
            let branch_def = &api.types[branch.0];
            let TypeKind::Struct(s) = &branch_def.kind else {
                continue;
            };
            if branch_def.name_hint.pinned || uses[branch.0] != 1 {
                continue;
            }
            let Some(field) = s.fields.iter().find(|f| &f.wire_name == property) else {
                continue;
            };
            let TypeRef::Named(tag) = &field.ty else {
                continue;
            };
            let tag_def = &api.types[tag.0];
            if !field.required || tag_def.name_hint.pinned || uses[tag.0] != 1 {
                continue;
            }
            let Some(only) = tag_def.kind.only_value() else {
                continue;
            };
            if variant.tags != [only] {
                continue;
            }
            strip.push((*branch, property.clone()));
            dead.push(*tag);
        }
    }
    for (branch, property) in strip {
        if let TypeKind::Struct(s) = &mut api.types[branch.0].kind {
            s.fields.retain(|f| f.wire_name != property);
        }
    }
    dead.sort();
    dead.dedup();
    api.remove_types(&dead);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(yaml: &str) -> Api {
        crate::load_api(yaml).expect("the document loads").0
    }

    fn type_names(api: &Api) -> Vec<&str> {
        api.types.iter().map(|t| t.name.as_str()).collect()
    }

    const SHAPES: &str = r#"
openapi: 3.1.0
info: {title: T, version: "1"}
paths: {}
components:
  schemas:
    Circle:
      type: object
      required: [kind, radius]
      properties:
        kind: {const: circle}
        radius: {type: number}
    Shape:
      oneOf:
        - $ref: '#/components/schemas/Circle'
        - type: object
          required: [kind, side]
          properties:
            kind: {const: square}
            side: {type: number}
    Holder:
      type: object
      properties:
        shape: {$ref: '#/components/schemas/Shape'}
"#;

    #[test]
    fn an_inline_branch_loses_its_tag_field_and_type() {
        let api = api(SHAPES);
        let square = api
            .types
            .iter()
            .find(|t| t.name == "ShapeVariant2")
            .expect("the inline branch");
        let TypeKind::Struct(s) = &square.kind else {
            panic!("a struct");
        };
        let fields: Vec<&str> = s.fields.iter().map(|f| f.wire_name.as_str()).collect();
        assert_eq!(fields, ["side"]);
        assert!(!type_names(&api).contains(&"ShapeVariant2Kind"));
    }

    #[test]
    fn a_component_branch_keeps_its_tag_field() {
        let api = api(SHAPES);
        let circle = api.types.iter().find(|t| t.name == "Circle").unwrap();
        let TypeKind::Struct(s) = &circle.kind else {
            panic!("a struct");
        };
        assert!(s.fields.iter().any(|f| f.wire_name == "kind"));
        assert!(type_names(&api).contains(&"CircleKind"));
    }

    #[test]
    fn references_still_point_at_their_types_after_removal() {
        let api = api(SHAPES);
        let holder = api.types.iter().find(|t| t.name == "Holder").unwrap();
        let TypeKind::Struct(s) = &holder.kind else {
            panic!("a struct");
        };
        let TypeRef::Named(id) = &s.fields[0].ty else {
            panic!("a named type");
        };
        assert_eq!(api.types[id.0].name, "Shape");
        let shape = &api.types[id.0];
        let TypeKind::Union(u) = &shape.kind else {
            panic!("a union");
        };
        let names: Vec<String> = u
            .variants
            .iter()
            .map(|v| match &v.ty {
                TypeRef::Named(id) => api.types[id.0].name.clone(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(names, ["Circle", "ShapeVariant2"]);
    }
}
