//! Schemas to types: the rules that decide whether a schema is a primitive, a list, a map, a struct,
//! an enum or a union, and which of them need a named Rust type.

use super::Builder;
use super::view::View;
use crate::diagnostics::child;
use crate::ir::{
    Additional, Constraints, Field, IntEnum, IntVariant, NameHint, Primitive, StringEnum,
    StringFormat, StringVariant, Struct, TypeId, TypeKind, TypeRef, Union, UnionVariant,
};
use crate::lower::{KEY_PATTERN, NULL_MARKER, NUMERIC_STRING_PATTERN};
use heck::ToUpperCamelCase;
use openapiv3::{AdditionalProperties, ReferenceOr, Schema};
use serde_json::Value;

/// The (type, format) -> Rust primitive table. Unknown formats fall back to the plain type.
pub fn primitive_for(typ: &str, format: Option<&str>) -> Option<Primitive> {
    Some(match (typ, format.unwrap_or("")) {
        ("string", "uuid") => Primitive::Uuid,
        ("string", "date-time") => Primitive::DateTime,
        ("string", "date") => Primitive::Date,
        ("string", "binary") => Primitive::Bytes,
        ("string", "byte") => Primitive::Base64,
        ("string", "uri") => Primitive::Url,
        ("string", _) => Primitive::String,
        ("boolean", _) => Primitive::Bool,
        ("integer", "int8") => Primitive::I8,
        ("integer", "int16") => Primitive::I16,
        ("integer", "int32") => Primitive::I32,
        ("integer", "uint8") => Primitive::U8,
        ("integer", "uint16") => Primitive::U16,
        ("integer", "uint32") => Primitive::U32,
        ("integer", "uint64") => Primitive::U64,
        ("integer", _) => Primitive::I64,
        ("number", "float") => Primitive::F32,
        ("number", "int32") => Primitive::I32,
        ("number", "int64") => Primitive::I64,
        ("number", _) => Primitive::F64,
        _ => return None,
    })
}

/// What a schema was found as, for naming an inline type.
pub struct Site {
    pub pointer: String,
    pub hint: NameHint,
}

impl Site {
    pub fn new(pointer: String, base: String, context: Option<&str>) -> Site {
        Site {
            pointer,
            hint: NameHint {
                base,
                pinned: false,
                context: context.map(str::to_owned),
                title: None,
            },
        }
    }

    /// The site of an inline schema, with the schema's `title` as a name candidate.
    fn titled(&self, schema: &Schema) -> Site {
        let mut hint = self.hint.clone();
        if !hint.pinned {
            hint.title = schema.schema_data.title.clone();
        }
        Site {
            pointer: self.pointer.clone(),
            hint,
        }
    }

    fn nested(&self, pointer: String, suffix: &str) -> Site {
        let base = format!("{}{}", self.hint.base, suffix.to_upper_camel_case());
        Site {
            pointer,
            hint: NameHint {
                base,
                pinned: false,
                context: self.hint.context.clone(),
                title: None,
            },
        }
    }
}

/// A schema's type at its use site, with the validation keywords the type does not carry.
pub struct Typed {
    pub ty: TypeRef,
    pub constraints: Constraints,
}

impl Builder<'_> {
    pub(super) fn define_component(&mut self, id: TypeId, schema: &Schema, pointer: &str) {
        let site = Site {
            pointer: pointer.to_owned(),
            hint: self.types[id.0].name_hint.clone(),
        };
        let doc = schema
            .schema_data
            .description
            .clone()
            .or_else(|| schema.schema_data.title.clone());
        let (kind, nullable) = self.kind_of_component(schema, &site);
        let kind = match kind {
            // A nullable component is an alias of `Option<its own shape>`: define the shape separately.
            Some(kind) if nullable => {
                let inner_hint = NameHint {
                    base: format!("{}Value", site.hint.base),
                    ..site.hint.clone()
                };
                let inner = self.add_type(pointer, inner_hint, None, kind);
                TypeKind::Alias(TypeRef::Nullable(Box::new(TypeRef::Named(inner))))
            }
            Some(kind) => kind,
            None => {
                let typed = self.type_of(&ReferenceOr::Item(schema.clone()), &site);
                self.types[id.0].constraints = typed.constraints;
                TypeKind::Alias(typed.ty)
            }
        };
        self.types[id.0].doc = doc;
        self.types[id.0].kind = kind;
    }

    /// The kind of a component that defines its own struct/enum/union; `None` means "an alias of `type_of`".
    fn kind_of_component(&mut self, schema: &Schema, site: &Site) -> (Option<TypeKind>, bool) {
        let view = View::of(schema);
        let nullable = schema.schema_data.nullable;
        if let Some(kind) = self.enum_kind(schema, &view, site) {
            return (Some(kind), nullable);
        }
        if !view.all_of.is_empty() && !self.is_single_wrapper(&view) && !self.all_plain(&view) {
            return (Some(self.merge_all_of(&view, site)), nullable);
        }
        if !view.all_of.is_empty() {
            // One plain type with the members' constraints: an alias (see `merge_plain_all_of`).
            return (None, false);
        }
        if view.has_composition() {
            return (self.union_kind(&view, site), nullable);
        }
        if view.effective_type() == Some("object") {
            let is_map = view.properties.is_none_or(|p| p.is_empty())
                && matches!(view.additional, Some(AdditionalProperties::Schema(_)));
            if !is_map {
                return (Some(self.struct_kind(&view, site)), nullable);
            }
        }
        (None, false)
    }

    /// The type of a schema where it is used; inline structs, enums and unions become named types.
    pub(super) fn type_of(&mut self, schema: &ReferenceOr<Schema>, site: &Site) -> Typed {
        let schema = match schema {
            ReferenceOr::Reference { reference } => {
                return Typed {
                    ty: self.resolve_schema_ref(reference, &site.pointer),
                    constraints: Constraints::default(),
                };
            }
            ReferenceOr::Item(schema) => schema,
        };
        let view = View::of(schema);
        let mut typed = self.type_of_item(schema, &view, site);
        if schema.schema_data.nullable
            && !matches!(
                typed.ty,
                TypeRef::Nullable(_) | TypeRef::Any | TypeRef::Null
            )
        {
            typed.ty = TypeRef::Nullable(Box::new(typed.ty));
        }
        typed
    }

    pub(super) fn type_of_boxed(
        &mut self,
        schema: &ReferenceOr<Box<Schema>>,
        site: &Site,
    ) -> Typed {
        match schema {
            ReferenceOr::Reference { reference } => {
                self.type_of(&ReferenceOr::ref_(reference), site)
            }
            ReferenceOr::Item(schema) => self.type_of(&ReferenceOr::Item((**schema).clone()), site),
        }
    }

    fn type_of_item(&mut self, schema: &Schema, view: &View, site: &Site) -> Typed {
        let site = &site.titled(schema);
        let doc = schema.schema_data.description.clone();
        let plain = |ty| Typed {
            ty,
            constraints: Constraints::default(),
        };
        if schema.schema_data.extensions.get(NULL_MARKER) == Some(&Value::Bool(true)) {
            return plain(TypeRef::Null);
        }
        if let Some(kind) = self.enum_kind(schema, view, site) {
            return plain(TypeRef::Named(self.add_type(
                &site.pointer,
                site.hint.clone(),
                doc,
                kind,
            )));
        }
        if !view.all_of.is_empty() {
            if self.is_single_wrapper(view) {
                let mut typed = self.type_of(&view.all_of[0], site);
                merge_constraints(&mut typed.constraints, constraints_of(view));
                return typed;
            }
            if self.all_plain(view) {
                return self.merge_plain_all_of(view, site);
            }
            let kind = self.merge_all_of(view, site);
            return plain(TypeRef::Named(self.add_type(
                &site.pointer,
                site.hint.clone(),
                doc,
                kind,
            )));
        }
        if view.has_composition() {
            let branches = if view.one_of.is_empty() {
                view.any_of
            } else {
                view.one_of
            };
            if branches.len() == 1 && view.properties.is_none_or(|p| p.is_empty()) {
                return self.type_of(&branches[0], site);
            }
            return match self.union_kind(view, site) {
                Some(kind) => plain(TypeRef::Named(self.add_type(
                    &site.pointer,
                    site.hint.clone(),
                    doc,
                    kind,
                ))),
                None => plain(TypeRef::Any),
            };
        }
        if view.not.is_some() {
            self.diags.warning(
                child(&site.pointer, "not"),
                "`not` is not enforced; any JSON value is accepted",
            );
            return plain(TypeRef::Any);
        }
        let constraints = constraints_of(view);
        let ty = match view.effective_type() {
            Some("array") => {
                let item = match view.items {
                    Some(items) => self
                        .type_of_boxed(items, &site.nested(child(&site.pointer, "items"), "Item")),
                    None => plain(TypeRef::Any),
                };
                let mut constraints = constraints;
                if !item.constraints.is_empty() {
                    constraints.items = Some(Box::new(item.constraints));
                }
                return Typed {
                    ty: TypeRef::Array(Box::new(item.ty)),
                    constraints,
                };
            }
            Some("object") => return self.object_type(schema, view, site),
            Some(typ) => match primitive_for(typ, view.format.as_deref()) {
                Some(number) if number.is_integer() || number.is_float() => {
                    match schema
                        .schema_data
                        .extensions
                        .get(NUMERIC_STRING_PATTERN)
                        .and_then(Value::as_str)
                    {
                        Some(pattern) => TypeRef::NumericString {
                            number,
                            pattern: pattern.to_owned(),
                        },
                        None => TypeRef::Primitive(number),
                    }
                }
                Some(p) => {
                    self.warn_unchecked_string_keywords(p, &constraints, view, &site.pointer);
                    TypeRef::Primitive(p)
                }
                None => {
                    self.diags.warning(
                        child(&site.pointer, "type"),
                        format!("unknown type `{typ}`; any JSON value is accepted"),
                    );
                    TypeRef::Any
                }
            },
            None => TypeRef::Any,
        };
        Typed { ty, constraints }
    }

    /// A struct, or a map (with its values' constraints as `items` and its key pattern).
    fn object_type(&mut self, schema: &Schema, view: &View, site: &Site) -> Typed {
        let has_properties = view.properties.is_some_and(|p| !p.is_empty());
        if !has_properties {
            let key_pattern = schema
                .schema_data
                .extensions
                .get(KEY_PATTERN)
                .and_then(Value::as_str)
                .map(str::to_owned);
            let (value, items) = match view.additional {
                Some(AdditionalProperties::Schema(value)) => {
                    let value_site =
                        site.nested(child(&site.pointer, "additionalProperties"), "Value");
                    let mut typed = self.type_of(value, &value_site);
                    // A map of maps names its values (`{Name}Value`): nested maps spelled out
                    // grow past what a reader (and clippy's `type_complexity`) takes in.
                    if matches!(typed.ty, TypeRef::Map(_)) {
                        let kind = TypeKind::Alias(typed.ty);
                        let id = self.add_type(&value_site.pointer, value_site.hint, None, kind);
                        self.types[id.0].constraints = std::mem::take(&mut typed.constraints);
                        typed.ty = TypeRef::Named(id);
                    }
                    (
                        typed.ty,
                        (!typed.constraints.is_empty()).then(|| Box::new(typed.constraints)),
                    )
                }
                // A free-form object.
                _ => (TypeRef::Any, None),
            };
            // A map's entry count is checked like an array's item count.
            let constraints = Constraints {
                key_pattern,
                items,
                min_items: view.min_properties.filter(|n| *n > 0),
                max_items: view.max_properties,
                ..Constraints::default()
            };
            return Typed {
                ty: TypeRef::Map(Box::new(value)),
                constraints,
            };
        }
        let kind = self.struct_kind(view, site);
        let doc = schema.schema_data.description.clone();
        let ty = TypeRef::Named(self.add_type(&site.pointer, site.hint.clone(), doc, kind));
        Typed {
            ty,
            constraints: Constraints::default(),
        }
    }

    fn struct_kind(&mut self, view: &View, site: &Site) -> TypeKind {
        self.warn_base_discriminator(view, site);
        for (keyword, set) in [
            ("minProperties", view.min_properties.is_some()),
            ("maxProperties", view.max_properties.is_some()),
        ] {
            if set {
                self.diags.warning(
                    child(&site.pointer, keyword),
                    format!("`{keyword}` on an object with declared properties is not enforced"),
                );
            }
        }
        let mut fields = Vec::new();
        if let Some(properties) = view.properties {
            for (name, prop) in properties {
                let pointer = child(&child(&site.pointer, "properties"), name);
                fields.push(self.field(
                    name,
                    prop,
                    view.required.contains(name),
                    &site.nested(pointer, name),
                ));
            }
        }
        for name in view.required {
            if !fields.iter().any(|f| &f.wire_name == name) && view.properties.is_some() {
                self.diags.warning(
                    child(&site.pointer, "required"),
                    format!("required property `{name}` is not defined in `properties`; it is not generated"),
                );
            }
        }
        let additional = match view.additional {
            Some(AdditionalProperties::Any(false)) => Some(Additional::Deny),
            Some(AdditionalProperties::Schema(value)) => {
                let value_site = site.nested(child(&site.pointer, "additionalProperties"), "Value");
                Some(Additional::Map(self.type_of(value, &value_site).ty))
            }
            Some(AdditionalProperties::Any(true)) | None => None,
        };
        TypeKind::Struct(Struct { fields, additional })
    }

    fn field(
        &mut self,
        name: &str,
        prop: &ReferenceOr<Box<Schema>>,
        required: bool,
        site: &Site,
    ) -> Field {
        let typed = self.type_of_boxed(prop, site);
        let data = match prop {
            ReferenceOr::Item(schema) => Some(&schema.schema_data),
            ReferenceOr::Reference { .. } => None,
        };
        // `readOnly`/`writeOnly` on the referenced schema hold wherever it is used.
        let referenced = match prop {
            ReferenceOr::Reference { reference } => self.access_of_component(reference),
            ReferenceOr::Item(_) => (false, false),
        };
        Field {
            wire_name: name.to_owned(),
            name: String::new(),
            ty: typed.ty,
            required,
            doc: data.and_then(|d| d.description.clone().or_else(|| d.title.clone())),
            default: data.and_then(|d| d.default.clone()),
            constraints: typed.constraints,
            read_only: data.is_some_and(|d| d.read_only) || referenced.0,
            write_only: data.is_some_and(|d| d.write_only) || referenced.1,
            deprecated: data.is_some_and(|d| d.deprecated),
            boxed: false,
            flatten: false,
        }
    }

    /// `allOf: [X]` with nothing beside it but annotations and constraints is just `X`.
    fn is_single_wrapper(&self, view: &View) -> bool {
        view.all_of.len() == 1
            && view.properties.is_none_or(|p| p.is_empty())
            && view.one_of.is_empty()
            && view.any_of.is_empty()
            && view.enumeration.is_empty()
    }

    /// An `allOf` none of whose members is an object (nor a composition), with no properties beside:
    /// `allOf: [{$ref: Name}, {maxLength: 20}]`, `allOf: [{type: integer}, {minimum: 1}]`.
    fn all_plain(&self, view: &View) -> bool {
        view.properties.is_none_or(|p| p.is_empty())
            && view.additional.is_none()
            && view.one_of.is_empty()
            && view.any_of.is_empty()
            && view.all_of.iter().all(|member| {
                let schema = match member {
                    ReferenceOr::Reference { reference } => self.component_schema(reference),
                    ReferenceOr::Item(schema) => Some(schema.clone()),
                };
                schema.is_some_and(|schema| {
                    let v = View::of(&schema);
                    v.properties.is_none_or(|p| p.is_empty())
                        && v.effective_type() != Some("object")
                        && !v.has_composition()
                })
            })
    }

    /// The members of an [`all_plain`](Self::all_plain) `allOf` as one type with every member's
    /// constraints: the first member's type, which the others must share (or have none, like a
    /// bare `{maxLength: 20}`); a member of another type is reported and left out.
    fn merge_plain_all_of(&mut self, view: &View, site: &Site) -> Typed {
        let mut merged: Option<Typed> = None;
        for (i, member) in view.all_of.iter().enumerate() {
            let pointer = format!("{}/allOf/{i}", site.pointer);
            let member_site = Site {
                pointer: pointer.clone(),
                hint: site.hint.clone(),
            };
            let typed = self.type_of(member, &member_site);
            let Some(so_far) = &mut merged else {
                merged = Some(typed);
                continue;
            };
            if so_far.ty == TypeRef::Any {
                let constraints = std::mem::take(&mut so_far.constraints);
                *so_far = typed;
                merge_constraints(&mut so_far.constraints, constraints);
                continue;
            }
            let typed = match (
                typed.ty == so_far.ty || typed.ty == TypeRef::Any,
                &so_far.ty,
            ) {
                (true, _) => typed,
                // An integer that is also a number is an integer (`{minimum: 0}` reads as a number).
                (false, TypeRef::Primitive(p))
                    if p.is_integer()
                        && matches!(typed.ty, TypeRef::Primitive(q) if q.is_float()) =>
                {
                    typed
                }
                // `{$ref: Name}` then `{type: string, maxLength: 20}`: the alias's own shape.
                (false, TypeRef::Named(id)) => match self.types[id.0].kind.clone() {
                    TypeKind::Alias(target) if target == typed.ty => {
                        let mut own = self.types[id.0].constraints.clone();
                        merge_constraints(&mut own, std::mem::take(&mut so_far.constraints));
                        *so_far = Typed {
                            ty: target,
                            constraints: own,
                        };
                        typed
                    }
                    _ => {
                        self.diags.warning(
                            pointer,
                            "allOf member of another type than the first member: not generated",
                        );
                        continue;
                    }
                },
                (false, _) => {
                    self.diags.warning(
                        pointer,
                        "allOf member of another type than the first member: not generated",
                    );
                    continue;
                }
            };
            merge_constraints(&mut so_far.constraints, typed.constraints);
        }
        let mut typed = merged.unwrap_or(Typed {
            ty: TypeRef::Any,
            constraints: Constraints::default(),
        });
        merge_constraints(&mut typed.constraints, constraints_of(view));
        typed
    }

    /// `allOf` of object schemas merges into one struct; the first non-object member wins otherwise.
    fn merge_all_of(&mut self, view: &View, site: &Site) -> TypeKind {
        self.warn_base_discriminator(view, site);
        let mut merged = MergedObject::default();
        let mut others = Vec::new();
        for (i, member) in view.all_of.iter().enumerate() {
            let pointer = format!("{}/allOf/{i}", site.pointer);
            if !self.collect_object(member, &pointer, &mut merged, 0) {
                others.push((member, pointer));
            }
        }
        if view.properties.is_some_and(|p| !p.is_empty()) || view.additional.is_some() {
            merged.add_view(view, &site.pointer);
        }
        if merged.properties.is_empty() && !others.is_empty() {
            let (member, pointer) = others[0].clone();
            if others.len() > 1 {
                self.diags.warning(
                    format!("{}/allOf", site.pointer),
                    "allOf of several non-object schemas: only the first is generated",
                );
            }
            let typed = self.type_of(
                member,
                &Site {
                    pointer,
                    hint: site.hint.clone(),
                },
            );
            return TypeKind::Alias(typed.ty);
        }
        for (_, pointer) in &others {
            self.diags.warning(
                pointer.clone(),
                "allOf member is not an object schema; it is not merged into the struct",
            );
        }
        let mut fields = Vec::new();
        for (name, (prop, pointer)) in &merged.properties {
            let required = merged.required.contains(name);
            fields.push(self.field(name, prop, required, &site.nested(pointer.clone(), name)));
        }
        let additional = match merged.additional {
            Some(AdditionalProperties::Schema(value)) => {
                let value_site = site.nested(child(&site.pointer, "additionalProperties"), "Value");
                Some(Additional::Map(self.type_of(&value, &value_site).ty))
            }
            // `additionalProperties: false` on one member of an allOf would reject the others' fields.
            _ => None,
        };
        TypeKind::Struct(Struct { fields, additional })
    }

    /// Adds the properties of an object schema (following refs and nested allOf) to `merged`.
    fn collect_object(
        &mut self,
        member: &ReferenceOr<Schema>,
        pointer: &str,
        merged: &mut MergedObject,
        depth: usize,
    ) -> bool {
        if depth > 32 {
            self.diags.error(
                pointer,
                "allOf nests more than 32 levels (a reference cycle through allOf?)",
            );
            return true;
        }
        let (schema, pointer) = match member {
            ReferenceOr::Reference { reference } => match self.component_schema(reference) {
                Some(schema) => (schema, reference_pointer(reference)),
                None => return false,
            },
            ReferenceOr::Item(schema) => (schema.clone(), pointer.to_owned()),
        };
        let view = View::of(&schema);
        if !view.all_of.is_empty() && view.one_of.is_empty() && view.any_of.is_empty() {
            let mut all_objects = true;
            for (i, inner) in view.all_of.iter().enumerate() {
                all_objects &=
                    self.collect_object(inner, &format!("{pointer}/allOf/{i}"), merged, depth + 1);
            }
            merged.add_view(&view, &pointer);
            return all_objects;
        }
        if view.effective_type() == Some("object")
            && !view.has_composition()
            && view.enumeration.is_empty()
        {
            merged.add_view(&view, &pointer);
            return true;
        }
        false
    }

    /// `(readOnly, writeOnly)` of a referenced component (following component-to-component refs).
    fn access_of_component(&self, reference: &str) -> (bool, bool) {
        let Some(schemas) = self.doc.components.as_ref().map(|c| &c.schemas) else {
            return (false, false);
        };
        let mut reference = reference;
        for _ in 0..32 {
            let Some(name) = reference.strip_prefix("#/components/schemas/") else {
                break;
            };
            match schemas.get(&crate::diagnostics::unescape_token(name)) {
                Some(ReferenceOr::Item(item)) => {
                    return (item.schema_data.read_only, item.schema_data.write_only);
                }
                Some(ReferenceOr::Reference { reference: next }) => reference = next,
                None => break,
            }
        }
        (false, false)
    }

    fn component_schema(&self, reference: &str) -> Option<Schema> {
        let name = reference.strip_prefix("#/components/schemas/")?;
        let name = crate::diagnostics::unescape_token(name);
        let mut schema = self.doc.components.as_ref()?.schemas.get(&name)?;
        // Follow component-to-component refs.
        for _ in 0..32 {
            match schema {
                ReferenceOr::Item(item) => return Some(item.clone()),
                ReferenceOr::Reference { reference } => {
                    let next = crate::diagnostics::unescape_token(
                        reference.strip_prefix("#/components/schemas/")?,
                    );
                    schema = self.doc.components.as_ref()?.schemas.get(&next)?;
                }
            }
        }
        None
    }

    pub(super) fn resolve_schema_ref(&mut self, reference: &str, pointer: &str) -> TypeRef {
        if let Some(name) = reference.strip_prefix("#/components/schemas/") {
            let name = crate::diagnostics::unescape_token(name);
            if let Some(id) = self.components.get(&name) {
                return TypeRef::Named(*id);
            }
            self.diags
                .error(pointer, format!("$ref `{reference}` points to no schema"));
        } else if reference.starts_with('#') {
            self.diags.error(pointer, format!("$ref `{reference}`: only refs to #/components/schemas/* are supported in schemas"));
        } else {
            self.diags.error(
                pointer,
                format!("external $ref `{reference}` is not supported; bundle the document first"),
            );
        }
        TypeRef::Any
    }

    /// Enums: `enum` lists, and `oneOf`/`anyOf` whose every branch is one constant (`const` + `title`).
    fn enum_kind(&mut self, schema: &Schema, view: &View, site: &Site) -> Option<TypeKind> {
        let names = enum_names(schema);
        if !view.enumeration.is_empty() && !view.has_composition() {
            let values: Vec<&Value> = view.enumeration.iter().filter(|v| !v.is_null()).collect();
            return self.enum_from_values(view, &values, names, vec![None; values.len()], site);
        }
        let branches = if !view.one_of.is_empty() {
            view.one_of
        } else {
            view.any_of
        };
        if branches.len() < 2 || !view.all_of.is_empty() {
            return None;
        }
        let mut values = Vec::new();
        let mut titles = Vec::new();
        let mut docs = Vec::new();
        for branch in branches {
            let ReferenceOr::Item(b) = branch else {
                return None;
            };
            let bv = View::of(b);
            if bv.enumeration.len() != 1 || bv.has_composition() {
                return None;
            }
            values.push(bv.enumeration[0].clone());
            titles.push(b.schema_data.title.clone());
            docs.push(b.schema_data.description.clone());
        }
        let names = if titles.iter().all(Option::is_some) {
            Some(titles.into_iter().flatten().collect())
        } else {
            names
        };
        let typ = view.typ.or_else(|| match branches.first() {
            Some(ReferenceOr::Item(b)) => View::of(b).typ,
            _ => None,
        });
        let values_ref: Vec<&Value> = values.iter().collect();
        let view = View {
            typ,
            format: view.format.clone(),
            ..View::default()
        };
        self.enum_from_values(&view, &values_ref, names, docs, site)
    }

    fn enum_from_values(
        &mut self,
        view: &View,
        values: &[&Value],
        names: Option<Vec<String>>,
        docs: Vec<Option<String>>,
        site: &Site,
    ) -> Option<TypeKind> {
        let names = names.filter(|n| {
            let ok = n.len() == values.len();
            if !ok {
                self.diags.warning(site.pointer.clone(), "enum variant names do not match the values one to one; names derived from values");
            }
            ok
        });
        if values.iter().all(|v| v.is_string()) && view.typ.is_none_or(|t| t == "string") {
            let variants = values
                .iter()
                .enumerate()
                .map(|(i, v)| StringVariant {
                    name: names.as_ref().map_or_else(String::new, |n| n[i].clone()),
                    value: v.as_str().unwrap_or_default().to_owned(),
                    doc: docs.get(i).cloned().flatten(),
                })
                .collect();
            return Some(TypeKind::StringEnum(StringEnum { variants }));
        }
        if values.iter().all(|v| v.is_i64())
            && view.typ.is_none_or(|t| t == "integer" || t == "number")
        {
            let repr = primitive_for("integer", view.format.as_deref())
                .filter(|p| p.is_integer())
                .unwrap_or(Primitive::I64);
            let variants = values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let value = v.as_i64().unwrap_or_default();
                    IntVariant {
                        name: names.as_ref().map_or_else(String::new, |n| n[i].clone()),
                        value,
                        doc: docs.get(i).cloned().flatten(),
                    }
                })
                .collect();
            return Some(TypeKind::IntEnum(IntEnum { repr, variants }));
        }
        // Boolean, float or mixed enums: the plain type, values unchecked.
        self.diags.warning(
            child(&site.pointer, "enum"),
            "enum of non-string, non-integer values: the values are not enforced",
        );
        None
    }

    fn union_kind(&mut self, view: &View, site: &Site) -> Option<TypeKind> {
        let (branches, exclusive, key) = if !view.one_of.is_empty() {
            (view.one_of, true, "oneOf")
        } else {
            (view.any_of, false, "anyOf")
        };
        if branches.is_empty() {
            self.diags.warning(
                site.pointer.clone(),
                "composition with no branches; any JSON value is accepted",
            );
            return None;
        }
        let mut variants = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            let pointer = format!("{}/{key}/{i}", site.pointer);
            let branch_site = site.nested(pointer, &format!("Variant{}", i + 1));
            let typed = self.type_of(branch, &branch_site);
            if typed.ty == TypeRef::Null {
                continue;
            }
            let doc = match branch {
                ReferenceOr::Item(s) => s.schema_data.description.clone(),
                ReferenceOr::Reference { .. } => None,
            };
            variants.push(UnionVariant {
                name: String::new(),
                ty: typed.ty,
                doc,
                constraints: typed.constraints,
                boxed: false,
                tags: Vec::new(),
            });
        }
        let discriminator = view.discriminator.map(|d| {
            self.record_mapping(d, site);
            d.property_name.clone()
        });
        let tag = discriminator.clone();
        let union = TypeKind::Union(Union {
            variants,
            exclusive,
            discriminator,
            default_variant: None,
        });
        // Properties beside the branches that the branches do not declare themselves (a tag
        // declared on both sides stays the branches'): a struct of them, the union flattened in.
        let mut beside = Vec::new();
        for (name, prop) in view.properties.into_iter().flatten() {
            if tag.as_deref() != Some(name.as_str()) && !self.branches_declare(branches, name) {
                beside.push((name, prop));
            }
        }
        if beside.is_empty() {
            return Some(union);
        }
        let hint = NameHint {
            base: format!("{}{}", site.hint.base, key.to_upper_camel_case()),
            // The title names the struct, not the union inside it.
            title: None,
            ..site.hint.clone()
        };
        let union_id = self.add_type(&site.pointer, hint, None, union);
        let mut fields = Vec::new();
        for (name, prop) in beside {
            let pointer = child(&child(&site.pointer, "properties"), name);
            let required = view.required.contains(name);
            fields.push(self.field(name, prop, required, &site.nested(pointer, name)));
        }
        fields.push(Field {
            wire_name: key.to_owned(),
            name: String::new(),
            ty: TypeRef::Named(union_id),
            required: true,
            doc: Some(format!(
                "The `{key}` part: its branch's properties are this object's."
            )),
            default: None,
            constraints: Constraints::default(),
            read_only: false,
            write_only: false,
            deprecated: false,
            boxed: false,
            flatten: true,
        });
        Some(TypeKind::Struct(Struct {
            fields,
            additional: None,
        }))
    }

    /// Whether every branch is an object schema that declares the property `name`.
    fn branches_declare(&mut self, branches: &[ReferenceOr<Schema>], name: &str) -> bool {
        branches.iter().all(|branch| {
            let mut merged = MergedObject::default();
            self.collect_object(branch, "", &mut merged, 0) && merged.properties.contains_key(name)
        })
    }
}

/// Properties gathered from the members of an allOf, in order, later members overriding earlier ones.
#[derive(Default)]
struct MergedObject {
    properties: indexmap::IndexMap<String, (ReferenceOr<Box<Schema>>, String)>,
    required: Vec<String>,
    additional: Option<AdditionalProperties>,
}

impl MergedObject {
    fn add_view(&mut self, view: &View, pointer: &str) {
        if let Some(properties) = view.properties {
            for (name, prop) in properties {
                let p = child(&child(pointer, "properties"), name);
                self.properties.insert(name.clone(), (prop.clone(), p));
            }
        }
        self.required.extend(view.required.iter().cloned());
        if let Some(AdditionalProperties::Schema(s)) = view.additional {
            self.additional = Some(AdditionalProperties::Schema(s.clone()));
        }
    }
}

fn reference_pointer(reference: &str) -> String {
    reference.trim_start_matches('#').to_owned()
}

impl Builder<'_> {
    /// A `discriminator` on an object schema (the base of an `allOf` hierarchy) names no branches.
    fn warn_base_discriminator(&mut self, view: &View, site: &Site) {
        if view.discriminator.is_some() {
            self.diags.warning(
                child(&site.pointer, "discriminator"),
                "a discriminator without `oneOf`/`anyOf` is not generated; the schema is a plain struct (list its subtypes in a `oneOf` for a tagged union)",
            );
        }
    }

    /// Length and pattern keywords apply to strings; a `uuid`, date, or bytes value is checked by
    /// its type instead, so they are reported rather than dropped.
    fn warn_unchecked_string_keywords(
        &mut self,
        p: Primitive,
        c: &Constraints,
        view: &View,
        pointer: &str,
    ) {
        if matches!(p, Primitive::String | Primitive::Url) || p.is_integer() || p.is_float() {
            return;
        }
        let keywords: Vec<&str> = [
            ("pattern", c.pattern.is_some()),
            ("minLength", c.min_length.is_some()),
            ("maxLength", c.max_length.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, set)| set.then_some(k))
        .collect();
        if let Some(first) = keywords.first() {
            let format = view.format.as_deref().unwrap_or_default();
            self.diags.warning(
                child(pointer, first),
                format!(
                    "`{}` on a `format: {format}` string is not enforced (the value is checked by its Rust type)",
                    keywords.join("`, `")
                ),
            );
        }
    }
}

/// Variant names the spec gives: `x-enum-varnames` (openapi-generator) or `x-enumNames` (NSwag).
fn enum_names(schema: &Schema) -> Option<Vec<String>> {
    let ext = &schema.schema_data.extensions;
    let names = ext
        .get("x-enum-varnames")
        .or_else(|| ext.get("x-enumNames"))?;
    names
        .as_array()?
        .iter()
        .map(|n| n.as_str().map(str::to_owned))
        .collect()
}

pub fn constraints_of(view: &View) -> Constraints {
    Constraints {
        minimum: view.minimum,
        maximum: view.maximum,
        exclusive_minimum: view.exclusive_minimum && view.minimum.is_some(),
        exclusive_maximum: view.exclusive_maximum && view.maximum.is_some(),
        min_length: view.min_length.filter(|n| *n > 0),
        max_length: view.max_length,
        pattern: view.pattern.map(str::to_owned),
        min_items: view.min_items.filter(|n| *n > 0),
        max_items: view.max_items,
        unique_items: view.unique_items,
        items: None,
        format: match (view.effective_type(), view.format.as_deref()) {
            (Some("string"), Some("email" | "idn-email")) => Some(StringFormat::Email),
            (Some("string"), Some("uri" | "iri")) => Some(StringFormat::Uri),
            _ => None,
        },
        key_pattern: None,
        present: false,
    }
}

fn merge_constraints(into: &mut Constraints, from: Constraints) {
    macro_rules! take {
        ($($f:ident),*) => { $( if from.$f.is_some() { into.$f = from.$f; } )* };
    }
    take!(
        minimum,
        maximum,
        min_length,
        max_length,
        pattern,
        min_items,
        max_items,
        items,
        format,
        key_pattern
    );
    into.exclusive_minimum |= from.exclusive_minimum;
    into.exclusive_maximum |= from.exclusive_maximum;
    into.unique_items |= from.unique_items;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_format_table() {
        let cases = [
            ("string", Some("uuid"), Primitive::Uuid),
            ("string", Some("date-time"), Primitive::DateTime),
            ("string", Some("date"), Primitive::Date),
            ("string", Some("binary"), Primitive::Bytes),
            ("string", Some("byte"), Primitive::Base64),
            ("string", Some("uri"), Primitive::Url),
            // Relative references and IRIs are no `url::Url`: strings (an IRI is checked).
            ("string", Some("uri-reference"), Primitive::String),
            ("string", Some("iri"), Primitive::String),
            ("string", None, Primitive::String),
            ("integer", Some("int32"), Primitive::I32),
            ("integer", None, Primitive::I64),
            ("number", Some("float"), Primitive::F32),
            ("number", None, Primitive::F64),
        ];
        for (typ, format, expected) in cases {
            assert_eq!(
                primitive_for(typ, format),
                Some(expected),
                "{typ} {format:?}"
            );
        }
        assert_eq!(primitive_for("object", None), None);
    }

    #[test]
    fn string_keywords_on_typed_formats_are_reported() {
        let text = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A:\n      type: object\n      properties:\n        id: {type: string, format: uuid, pattern: '^[0-9a-f-]+$', maxLength: 36}\n        link: {type: string, format: uri, maxLength: 2000}\n";
        let (_, diags) = crate::load_api(text).unwrap_or_else(|d| panic!("{d}"));
        let warnings: Vec<String> = diags.warnings().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "warning: /components/schemas/A/properties/id/pattern: `pattern`, `maxLength` on a `format: uuid` string is not enforced (the value is checked by its Rust type)"
            ]
        );
    }
}
