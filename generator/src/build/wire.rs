//! Warnings for what the generated codecs approximate on the wire: never silence (issue of
//! parameter styles, form and multipart bodies). Each names the construct and what is done instead.

use crate::diagnostics::Diagnostics;
use crate::ir::{Api, Media, ParamLocation, ParamStyle, Parameter, PathSegment, TypeKind, TypeRef};

/// What a value is to the style rules.
#[derive(Debug, PartialEq, Eq)]
enum Shape {
    Primitive,
    /// Items are primitives.
    Array,
    /// An array of objects or arrays.
    NestedArray,
    /// Properties are primitives.
    Object,
    /// An object with an object or array property.
    NestedObject,
    /// A union or any JSON value.
    Other,
}

fn resolve<'a>(api: &'a Api, mut ty: &'a TypeRef) -> &'a TypeRef {
    for _ in 0..16 {
        match ty {
            TypeRef::Nullable(inner) => ty = inner,
            TypeRef::Named(id) => match &api.types[id.0].kind {
                TypeKind::Alias(inner) | TypeKind::Newtype(inner) => ty = inner,
                _ => return ty,
            },
            _ => return ty,
        }
    }
    ty
}

fn is_primitive(api: &Api, ty: &TypeRef) -> bool {
    match resolve(api, ty) {
        // Any JSON value as a parameter is read as its text.
        TypeRef::Primitive(_) | TypeRef::NumericString { .. } | TypeRef::Any => true,
        TypeRef::Named(id) => match &api.types[id.0].kind {
            TypeKind::StringEnum(_) | TypeKind::IntEnum(_) => true,
            // Read by trying the branches on the text.
            TypeKind::Union(u) => u.variants.iter().all(|v| is_primitive(api, &v.ty)),
            _ => false,
        },
        _ => false,
    }
}

fn shape(api: &Api, ty: &TypeRef) -> Shape {
    if is_primitive(api, ty) {
        return Shape::Primitive;
    }
    match resolve(api, ty) {
        TypeRef::Array(item) if is_primitive(api, item) => Shape::Array,
        TypeRef::Array(_) => Shape::NestedArray,
        TypeRef::Map(value) if is_primitive(api, value) => Shape::Object,
        TypeRef::Map(_) => Shape::NestedObject,
        TypeRef::Named(id) => match &api.types[id.0].kind {
            TypeKind::Struct(s) if s.fields.iter().all(|f| is_primitive(api, &f.ty)) => {
                Shape::Object
            }
            TypeKind::Struct(_) => Shape::NestedObject,
            _ => Shape::Other,
        },
        _ => Shape::Other,
    }
}

/// Reports every parameter and body whose wire form the generated code approximates.
pub fn report(api: &Api, diags: &mut Diagnostics) {
    for op in api.all_operations() {
        let at = format!("{}/parameters", op.pointer);
        for p in &op.parameters {
            if let Some(problem) = parameter_problem(api, op, p) {
                diags.warning(
                    &at,
                    format!(
                        "{} parameter `{}`: {problem}",
                        p.location.word(),
                        p.wire_name
                    ),
                );
            }
        }
        if let Some(body) = &op.body
            && body.media == Media::Form
            && let TypeRef::Named(id) = resolve(api, &body.ty)
            && let TypeKind::Struct(s) = &api.types[id.0].kind
        {
            for f in &s.fields {
                let encoded = body.encoding.iter().any(|e| e.property == f.wire_name);
                if !encoded && !matches!(shape(api, &f.ty), Shape::Primitive | Shape::Array) {
                    diags.warning(
                        format!("{}/requestBody", op.pointer),
                        format!(
                            "form property `{}` is not a primitive or a list of them: the client sends its JSON text, which the server's form decoder does not read back",
                            f.wire_name
                        ),
                    );
                }
            }
        }
    }
}

fn parameter_problem(api: &Api, op: &crate::ir::Operation, p: &Parameter) -> Option<String> {
    if p.json {
        return None;
    }
    let shape = shape(api, &p.ty);
    let style = p.style.spec_name();
    let in_mixed_segment = p.location == ParamLocation::Path
        && op.segments.iter().any(|s| {
            matches!(s, PathSegment::Mixed(_)) && s.params().contains(&p.wire_name.as_str())
        });
    if in_mixed_segment && (p.style != ParamStyle::Simple || shape != Shape::Primitive) {
        return Some(format!(
            "its segment mixes text and parameters, where only a primitive in style simple is read (style {style} and lists are written, not read)"
        ));
    }
    match (p.style, &shape) {
        // Brackets in brackets, as qs, Rails and Stripe write them: read back as written.
        (ParamStyle::DeepObject, Shape::NestedObject) => None,
        (_, Shape::NestedObject) => Some(format!(
            "style {style} defines no nesting: an object or array inside is written as its JSON text, which the generated server reads back (another server may expect another form)"
        )),
        (_, Shape::NestedArray | Shape::Other) => Some(
            "a style can carry primitives, lists of primitives and objects of primitives only: the client writes nested values as JSON text and the server passes the parameter through as raw text".to_owned(),
        ),
        (ParamStyle::DeepObject, Shape::Primitive) => Some(
            "style deepObject applies to objects: the value is written and read as style form".to_owned(),
        ),
        (ParamStyle::SpaceDelimited | ParamStyle::PipeDelimited, Shape::Primitive) => Some(format!(
            "style {style} applies to arrays and objects: the value is written and read as style form"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    fn warnings(paths: &str) -> Vec<String> {
        let doc = format!(
            "openapi: 3.1.1\ninfo: {{title: t, version: '1'}}\npaths:\n{paths}\ncomponents:\n  schemas:\n    Flat: {{type: object, properties: {{a: {{type: string}}, b: {{type: integer}}}}}}\n    Nested: {{type: object, properties: {{inner: {{$ref: '#/components/schemas/Flat'}}}}}}\n    NameOrId: {{oneOf: [{{type: string, format: uuid}}, {{type: string, pattern: '^[a-z]+$'}}]}}\n"
        );
        let (_, diags) = crate::load_api(&doc).unwrap_or_else(|d| panic!("{d}"));
        diags.warnings().map(|d| d.to_string()).collect()
    }

    fn op(params: &str) -> String {
        format!(
            "  /things/{{id}}:\n    get:\n      parameters:\n{params}      responses: {{'204': {{description: ok}}}}\n"
        )
    }

    const ID: &str = "      - {name: id, in: path, required: true, schema: {type: string}}\n";

    #[test]
    fn styles_that_carry_their_value_are_silent() {
        let params = format!(
            "{ID}      - {{name: f, in: query, style: deepObject, schema: {{$ref: '#/components/schemas/Flat'}}}}\n      - {{name: u, in: query, schema: {{$ref: '#/components/schemas/NameOrId'}}}}\n      - {{name: l, in: query, style: pipeDelimited, schema: {{type: array, items: {{type: integer}}}}}}\n      - {{name: j, in: query, content: {{application/json: {{schema: {{$ref: '#/components/schemas/Nested'}}}}}}}}\n"
        );
        assert_eq!(warnings(&op(&params)), Vec::<String>::new());
    }

    #[test]
    fn approximations_are_named() {
        let params = format!(
            "{ID}      - {{name: n, in: query, schema: {{$ref: '#/components/schemas/Nested'}}}}\n      - {{name: d, in: query, style: deepObject, schema: {{type: string}}}}\n      - {{name: s, in: query, style: spaceDelimited, schema: {{type: integer}}}}\n"
        );
        let found = warnings(&op(&params));
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found[0].contains("query parameter `n`") && found[0].contains("JSON text"));
        assert!(found[1].contains("query parameter `d`") && found[1].contains("deepObject"));
        assert!(found[2].contains("query parameter `s`") && found[2].contains("spaceDelimited"));
        assert!(found[0].starts_with("warning: /paths/~1things~1{id}/get/parameters"));
        // In deepObject, objects nest in brackets: nothing is approximated.
        let deep = format!(
            "{ID}      - {{name: n, in: query, style: deepObject, explode: true, schema: {{$ref: '#/components/schemas/Nested'}}}}\n"
        );
        assert_eq!(warnings(&op(&deep)), Vec::<String>::new());
    }

    #[test]
    fn a_styled_parameter_in_a_mixed_segment_is_named() {
        let paths = "  /files/{name}.json:\n    get:\n      parameters:\n      - {name: name, in: path, required: true, style: label, schema: {type: string}}\n      responses: {'204': {description: ok}}\n";
        let found = warnings(paths);
        assert!(
            found
                .iter()
                .any(|w| w.contains("path parameter `name`") && w.contains("mixes text")),
            "{found:#?}"
        );
    }

    #[test]
    fn form_properties_and_encodings_the_server_cannot_read_back_are_named() {
        let form = |encoding: &str| {
            format!(
                "  /forms:\n    post:\n      requestBody:\n        content:\n          application/x-www-form-urlencoded:\n            schema: {{$ref: '#/components/schemas/Nested'}}\n{encoding}      responses: {{'204': {{description: ok}}}}\n"
            )
        };
        let plain = warnings(&form(""));
        assert!(
            plain
                .iter()
                .any(|w| w.contains("form property `inner`") && w.contains("JSON text")),
            "{plain:#?}"
        );
        // deepObject is written and read back by both sides; pipeDelimited only written.
        let deep = warnings(&form(
            "            encoding: {inner: {style: deepObject, explode: true}}\n",
        ));
        assert_eq!(deep, Vec::<String>::new());
        let piped = warnings(&form(
            "            encoding: {inner: {style: pipeDelimited}}\n",
        ));
        assert!(
            piped
                .iter()
                .any(|w| w.contains("writes inner as its encoding says")
                    && w.contains("does not read these back")),
            "{piped:#?}"
        );
    }
}
