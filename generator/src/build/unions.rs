//! Unions, once every type is known (a branch may be a component defined later):
//!
//! - A union whose branches are all objects is internally tagged when it has a `discriminator`
//!   (tag values from `mapping`, else the branch's own constant for the property, else the
//!   component name) or when every branch requires one property fixed to a constant of its own
//!   (`const` or a one-value `enum`). Its variants get their tag values.
//! - Any other union stays untagged, and its variants are put in the order decoding tries them:
//!   most specific first (see [`rank`]), so that a value never decodes as a looser branch that
//!   happens to accept it too.

use super::Builder;
use crate::diagnostics::{Diagnostics, child, unescape_token};
use crate::ir::{Additional, Field, Primitive, TypeDef, TypeKind, TypeRef, Union, struct_behind};
use serde_json::Value;
use std::collections::HashMap;

/// Union pointer -> `discriminator.mapping` entries (tag value, the type it names).
pub type Mappings = HashMap<String, Mapping>;

/// A discriminator's `mapping` entries (tag value -> type) and its `defaultMapping` (OpenAPI 3.2:
/// the type of a value the entries do not name, or of a missing tag).
#[derive(Debug, Default)]
pub struct Mapping {
    pub entries: Vec<(String, TypeRef)>,
    pub default: Option<TypeRef>,
}

impl Builder<'_> {
    /// Keeps the mapping of a union's discriminator for [`resolve`]; entries that name no
    /// component schema are reported and dropped.
    pub(super) fn record_mapping(
        &mut self,
        d: &openapiv3::Discriminator,
        site: &super::schema::Site,
    ) {
        let at = child(&site.pointer, "discriminator");
        let mut mapping = Mapping::default();
        for (value, target) in &d.mapping {
            match self.component(target) {
                Some(ty) => mapping.entries.push((value.clone(), ty)),
                None => self.diags.warning(
                    child(&child(&at, "mapping"), value),
                    format!("`{target}` names no component schema; the entry is ignored"),
                ),
            }
        }
        let default = d
            .extensions
            .get(crate::lower::v3_2::DEFAULT_MAPPING)
            .and_then(serde_json::Value::as_str);
        if let Some(target) = default {
            mapping.default = self.component(target);
            if mapping.default.is_none() {
                self.diags.warning(
                    child(&at, "defaultMapping"),
                    format!("`{target}` names no component schema; a value the mapping does not name is refused"),
                );
            }
        }
        self.mappings.insert(site.pointer.clone(), mapping);
    }

    /// The component a mapping value names: a reference or a bare component name.
    fn component(&self, target: &str) -> Option<TypeRef> {
        let name = target
            .strip_prefix("#/components/schemas/")
            .unwrap_or(target);
        self.components
            .get(&unescape_token(name))
            .map(|id| TypeRef::Named(*id))
    }
}

/// Tags every union that has a tag, and orders the variants of the others.
pub fn resolve(types: &mut [TypeDef], mappings: &Mappings, diags: &mut Diagnostics) {
    for i in 0..types.len() {
        let TypeKind::Union(u) = &types[i].kind else {
            continue;
        };
        let pointer = &types[i].pointer;
        let tagging = match &u.discriminator {
            Some(property) => {
                let empty = Mapping::default();
                let mapping = mappings.get(pointer).unwrap_or(&empty);
                explicit(types, u, property, mapping, pointer, diags)
            }
            None => implicit(types, u),
        };
        let TypeKind::Union(u) = &mut types[i].kind else {
            unreachable!("checked above");
        };
        match tagging {
            Some((property, tags, default)) => {
                u.discriminator = Some(property);
                u.default_variant = default;
                for (variant, tags) in u.variants.iter_mut().zip(tags) {
                    variant.tags = tags;
                }
            }
            None => u.discriminator = None,
        }
    }
    for i in 0..types.len() {
        let TypeKind::Union(u) = &mut types[i].kind else {
            continue;
        };
        if u.discriminator.is_some() {
            continue;
        }
        let mut variants = std::mem::take(&mut u.variants);
        variants.sort_by_key(|v| rank(types, &v.ty, 0));
        if let TypeKind::Union(u) = &mut types[i].kind {
            u.variants = variants;
        }
    }
}

/// The tag property, each variant's tag values, and the variant of values no tag names (3.2's
/// `defaultMapping`).
type Tagging = (String, Vec<Vec<Value>>, Option<usize>);

/// Tag values from `discriminator`: the mapping's entries for a branch, else the constant the
/// branch fixes the property to, else (a `$ref` branch) the component's name.
fn explicit(
    types: &[TypeDef],
    u: &Union,
    property: &str,
    mapping: &Mapping,
    pointer: &str,
    diags: &mut Diagnostics,
) -> Option<Tagging> {
    let at = child(pointer, "discriminator");
    let default = mapping
        .default
        .as_ref()
        .and_then(|d| u.variants.iter().position(|v| v.ty == *d));
    if mapping.default.is_some() && default.is_none() {
        diags.warning(
            child(&at, "defaultMapping"),
            "names a schema that is not a branch of the union; a value the mapping does not name is refused",
        );
    }
    let mapping = &mapping.entries;
    let mut all = Vec::new();
    for (i, variant) in u.variants.iter().enumerate() {
        let Some(s) = struct_behind(types, &variant.ty) else {
            diags.warning(
                at.clone(),
                format!("branch {} is not an object schema, so `{property}` cannot tag it; the union is decoded untagged", i + 1),
            );
            return None;
        };
        // A mapping key is the property's value as text: `"0"` is the integer 0 where the branch's
        // property is an integer (as ASP.NET writes integer discriminators).
        let integer = s
            .fields
            .iter()
            .find(|f| f.wire_name == property)
            .is_some_and(|f| is_integer(types, &f.ty));
        let mut tags: Vec<Value> = mapping
            .iter()
            .filter(|(_, target)| *target == variant.ty)
            .map(|(value, _)| match value.parse::<i64>() {
                Ok(n) if integer => Value::from(n),
                _ => Value::String(value.clone()),
            })
            .collect();
        if tags.is_empty() {
            let own = s.fields.iter().find(|f| f.wire_name == property);
            match (own.and_then(|f| constant(types, f)), &variant.ty) {
                (Some(value), _) => tags.push(value),
                // The default variant needs no tag of its own.
                _ if default == Some(i) => {}
                (None, TypeRef::Named(id)) if types[id.0].name_hint.pinned => {
                    tags.push(Value::String(types[id.0].name_hint.base.clone()))
                }
                _ => {
                    diags.warning(
                        at.clone(),
                        format!("branch {} has no tag value (no `mapping` entry, no constant `{property}`, not a component); the union is decoded untagged", i + 1),
                    );
                    return None;
                }
            }
        }
        all.push(tags);
    }
    for (value, target) in mapping {
        if !u.variants.iter().any(|v| v.ty == *target) {
            diags.warning(
                child(&child(&at, "mapping"), value),
                "names a schema that is not a branch of the union; the entry is ignored",
            );
        }
    }
    if let Some(duplicate) = first_duplicate(&all) {
        diags.warning(
            at,
            format!("the tag value {duplicate} selects more than one branch; the union is decoded untagged"),
        );
        return None;
    }
    Some((property.to_owned(), all, default))
}

/// A property every branch requires and fixes to a constant of its own (all strings or all
/// integers, no two equal); the first such property of the first branch.
fn implicit(types: &[TypeDef], u: &Union) -> Option<Tagging> {
    let structs: Vec<_> = u
        .variants
        .iter()
        .map(|v| struct_behind(types, &v.ty))
        .collect::<Option<_>>()?;
    if structs.len() < 2 {
        return None;
    }
    structs[0]
        .fields
        .iter()
        .filter(|f| f.required)
        .find_map(|candidate| {
            let tags: Vec<Vec<Value>> = structs
                .iter()
                .map(|s| {
                    let f = s
                        .fields
                        .iter()
                        .find(|f| f.wire_name == candidate.wire_name && f.required)?;
                    Some(vec![constant(types, f)?])
                })
                .collect::<Option<_>>()?;
            let strings = tags.iter().all(|t| t[0].is_string());
            let integers = tags.iter().all(|t| t[0].is_i64());
            ((strings || integers) && first_duplicate(&tags).is_none())
                .then(|| (candidate.wire_name.clone(), tags, None))
        })
}

/// Whether a property holds integers: an integer type, or an enum of integers.
fn is_integer(types: &[TypeDef], ty: &TypeRef) -> bool {
    match ty {
        TypeRef::Primitive(p) => p.is_integer(),
        TypeRef::Nullable(inner) => is_integer(types, inner),
        TypeRef::Named(id) => match &types[id.0].kind {
            TypeKind::IntEnum(_) => true,
            TypeKind::Alias(inner) => is_integer(types, inner),
            _ => false,
        },
        _ => false,
    }
}

/// The one value a field admits: a one-value string or integer enum (`const`, `enum: [x]`).
fn constant(types: &[TypeDef], f: &Field) -> Option<Value> {
    let TypeRef::Named(id) = &f.ty else {
        return None;
    };
    types[id.0].kind.only_value()
}

fn first_duplicate(tags: &[Vec<Value>]) -> Option<&Value> {
    let all: Vec<&Value> = tags.iter().flatten().collect();
    all.iter()
        .enumerate()
        .find(|(i, v)| all[..*i].contains(v))
        .map(|(_, v)| *v)
}

/// Where an untagged union tries a branch: lower first, ties in the document's order. Only
/// branches that accept the same JSON kind compete, so the order is, per kind:
///
/// 0. enums (a fixed set of values);
/// 1. strings with a format (uuid, date-time, date, uri, byte), booleans, integers (narrowest
///    first: u8, i8, u16, ... i64);
/// 2. floats (f32 before f64), then numbers that may be spelled as strings;
/// 3. plain strings;
/// 4. objects with required properties or closed to others: more required properties first,
///    then closed before open, then more properties first;
/// 5. objects that accept any object of their kind: typed maps, then objects with nothing
///    required, then maps of any value, then nested unions and lists of anything;
/// 6. any JSON value.
///
/// A list ranks as its items, a nullable value as the value.
pub fn rank(types: &[TypeDef], ty: &TypeRef, depth: usize) -> (u8, i64) {
    match ty {
        TypeRef::Named(id) if depth < 32 => match &types[id.0].kind {
            TypeKind::StringEnum(_) | TypeKind::IntEnum(_) => (0, 0),
            TypeKind::Struct(s) => {
                let required = s.fields.iter().filter(|f| f.required).count() as i64;
                let closed = matches!(s.additional, Some(Additional::Deny));
                if required == 0 && !closed {
                    (5, 1)
                } else {
                    (
                        4,
                        -(required * 1000 + i64::from(closed) * 500 + s.fields.len() as i64),
                    )
                }
            }
            TypeKind::Union(u) if u.discriminator.is_some() => (4, -1000),
            TypeKind::Union(_) => (5, 3),
            TypeKind::Alias(inner) | TypeKind::Newtype(inner) => rank(types, inner, depth + 1),
        },
        TypeRef::Named(_) => (6, 0),
        TypeRef::Primitive(p) => primitive_rank(*p),
        TypeRef::NumericString { .. } => (2, 10),
        TypeRef::Array(inner) => match rank(types, inner, depth + 1) {
            (6, _) => (5, 4),
            r => r,
        },
        TypeRef::Nullable(inner) => rank(types, inner, depth + 1),
        TypeRef::Map(inner) if **inner == TypeRef::Any => (5, 2),
        TypeRef::Map(_) => (5, 0),
        TypeRef::Any => (6, 0),
        TypeRef::Null => (0, 0),
    }
}

fn primitive_rank(p: Primitive) -> (u8, i64) {
    use Primitive::*;
    match p {
        Uuid | DateTime | Date | Url | Base64 | Bool => (1, 0),
        U8 => (1, 1),
        I8 => (1, 2),
        U16 => (1, 3),
        I16 => (1, 4),
        U32 => (1, 5),
        I32 => (1, 6),
        U64 => (1, 7),
        I64 => (1, 8),
        F32 => (2, 0),
        F64 => (2, 1),
        String | Bytes => (3, 0),
    }
}

/// clippy's `large_enum_variant` limit: a variant this many bytes larger than the next largest
/// makes every value of the enum as large as it.
const LARGE_VARIANT: usize = 200;

/// Boxes the variants of unions that are much larger than the others (clippy's
/// `large_enum_variant`), largest first, until no variant exceeds the next by [`LARGE_VARIANT`]
/// bytes (by [`crate::ir::size_estimate`], which errs large; a box costs 8). Runs after `box_cycles`.
pub fn box_large_variants(types: &mut [TypeDef]) {
    for i in 0..types.len() {
        let TypeKind::Union(u) = &types[i].kind else {
            continue;
        };
        let mut sizes: Vec<usize> = u
            .variants
            .iter()
            .map(|v| {
                if v.boxed {
                    8
                } else {
                    crate::ir::size_estimate(types, &v.ty)
                }
            })
            .collect();
        let mut boxed = Vec::new();
        loop {
            let mut order: Vec<usize> = (0..sizes.len()).collect();
            order.sort_by_key(|&j| std::cmp::Reverse(sizes[j]));
            let [largest, next, ..] = order[..] else {
                break;
            };
            // Leave a margin: the estimate is not rustc's layout.
            if sizes[largest] < sizes[next] + LARGE_VARIANT * 3 / 4 {
                break;
            }
            sizes[largest] = 8;
            boxed.push(largest);
        }
        if let TypeKind::Union(u) = &mut types[i].kind {
            for j in boxed {
                u.variants[j].boxed = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{TypeKind, TypeRef};

    fn union_of(text: &str, name: &str) -> (crate::ir::Api, crate::ir::Union) {
        let (api, _) = crate::load_api(text).unwrap_or_else(|d| panic!("{d}"));
        let def = api.types.iter().find(|t| t.name == name).expect(name);
        let TypeKind::Union(u) = def.kind.clone() else {
            panic!("{name} is not a union");
        };
        (api, u)
    }

    const HEAD: &str =
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n";

    #[test]
    fn a_much_larger_variant_is_boxed() {
        let fields: String = (0..12)
            .map(|i| format!("f{i}: {{type: string}}, "))
            .collect();
        let text = format!(
            "{HEAD}    Big: {{type: object, required: [f0], properties: {{{fields}}}}}\n    U:\n      oneOf: [{{type: integer}}, {{$ref: '#/components/schemas/Big'}}]\n    V:\n      oneOf: [{{type: integer}}, {{type: string}}]\n"
        );
        let (api, u) = union_of(&text, "U");
        let boxed: Vec<bool> = u.variants.iter().map(|v| v.boxed).collect();
        assert_eq!(
            boxed,
            [false, true],
            "{:?}",
            api.types.iter().map(|t| &t.name).collect::<Vec<_>>()
        );
        let (_, v) = union_of(&text, "V");
        assert!(v.variants.iter().all(|v| !v.boxed));
    }

    #[test]
    fn untagged_branches_are_tried_most_specific_first() {
        let text = format!(
            "{HEAD}    Loose: {{type: object, properties: {{a: {{type: string}}}}}}\n    Strict:\n      type: object\n      required: [a, b]\n      properties: {{a: {{type: string}}, b: {{type: integer}}}}\n    U:\n      oneOf:\n        - {{}}\n        - {{type: string}}\n        - {{type: number}}\n        - $ref: '#/components/schemas/Loose'\n        - {{type: string, format: uuid}}\n        - {{type: integer}}\n        - $ref: '#/components/schemas/Strict'\n"
        );
        let (api, u) = union_of(&text, "U");
        let order: Vec<String> = u
            .variants
            .iter()
            .map(|v| match &v.ty {
                TypeRef::Named(id) => api.types[id.0].name.clone(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            order,
            [
                "Primitive(Uuid)",
                "Primitive(I64)",
                "Primitive(F64)",
                "Primitive(String)",
                "Strict",
                "Loose",
                "Any"
            ]
        );
        assert_eq!(u.discriminator, None);
    }

    #[test]
    fn a_property_every_branch_fixes_is_an_implicit_tag() {
        let text = format!(
            "{HEAD}    A:\n      type: object\n      required: [kind, x]\n      properties: {{kind: {{const: a}}, x: {{type: string}}}}\n    B:\n      type: object\n      required: [kind]\n      properties: {{kind: {{type: string, enum: [b]}}}}\n    U:\n      oneOf: [{{$ref: '#/components/schemas/A'}}, {{$ref: '#/components/schemas/B'}}]\n"
        );
        let (_, u) = union_of(&text, "U");
        assert_eq!(u.discriminator.as_deref(), Some("kind"));
        let tags: Vec<_> = u.variants.iter().map(|v| v.tags.clone()).collect();
        assert_eq!(
            tags,
            [vec![serde_json::json!("a")], vec![serde_json::json!("b")]]
        );
    }

    #[test]
    fn an_optional_or_shared_constant_is_no_tag() {
        for (a, b) in [
            ("required: [x]", "required: [kind]"),
            ("required: [kind]", "required: [kind]"),
        ] {
            let same = if a == b { "a" } else { "b" };
            let text = format!(
                "{HEAD}    A:\n      type: object\n      {a}\n      properties: {{kind: {{const: a}}, x: {{type: string}}}}\n    B:\n      type: object\n      {b}\n      properties: {{kind: {{const: {same}}}}}\n    U:\n      oneOf: [{{$ref: '#/components/schemas/A'}}, {{$ref: '#/components/schemas/B'}}]\n"
            );
            let (_, u) = union_of(&text, "U");
            assert_eq!(u.discriminator, None, "{a} / {b}");
        }
    }

    #[test]
    fn bad_discriminators_are_reported_with_their_pointer() {
        let text = format!(
            "{HEAD}    A: {{type: object, properties: {{k: {{type: string}}}}}}\n    U:\n      oneOf: [{{$ref: '#/components/schemas/A'}}, {{type: string}}]\n      discriminator: {{propertyName: k, mapping: {{x: '#/components/schemas/Nope'}}}}\n"
        );
        let (_, diags) = crate::load_api(&text).unwrap_or_else(|d| panic!("{d}"));
        let warnings: Vec<String> = diags.warnings().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "warning: /components/schemas/U/discriminator/mapping/x: `#/components/schemas/Nope` names no component schema; the entry is ignored",
                "warning: /components/schemas/U/discriminator: branch 2 is not an object schema, so `k` cannot tag it; the union is decoded untagged",
            ]
        );
    }
}
