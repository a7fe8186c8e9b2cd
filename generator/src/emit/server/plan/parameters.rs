//! Parameters: how the router reads each path, query, header and cookie parameter (location,
//! style, explode, required, default) and the checks it runs on the value. Plain data, rendered by
//! `server::reads`.

use super::*;

/// How a parameter is read: `get`, then its `checks`, then `finish`.
pub struct ParamRead {
    pub location: ParamLocation,
    pub wire: String,
    pub get: Get,
    pub checks: Option<Checks>,
    pub finish: Finish,
}

/// The reader a parameter's value comes from.
pub enum Get {
    /// The text as sent (a parameter the generator does not decode, an API key): `Some` of a path
    /// parameter at `PathAt`, else the reader's optional text.
    Text(Option<PathAt>),
    /// The plain readers (simple path segments, form query, headers, cookies).
    Plain {
        at: Option<PathAt>,
        scalar: Scalar,
        list: bool,
        /// Said by query lists alone; the other readers know their own.
        explode: Option<bool>,
        required: bool,
        default: Option<DefaultValue>,
    },
    /// JSON text (`content: application/json`), a path parameter from the capture at `capture`.
    Json { ty: TypeRef, capture: Option<usize> },
    /// The style codec.
    Styled {
        value: Styled,
        at: StyledAt,
        style: ParamStyle,
        explode: bool,
    },
}

/// What the style codec reads.
pub enum Styled {
    /// A struct (`fields`: its property names) or a map (`None`); `deep` when a property nests.
    Object {
        ty: TypeRef,
        deep: bool,
        fields: Option<Vec<String>>,
    },
    Primitive(Scalar),
    List(Scalar),
}

/// Where the style codec finds the text: `others` are the names of the other parameters there.
pub enum StyledAt {
    /// The segment at this index.
    Path(usize),
    Query {
        others: Vec<String>,
    },
    Header,
    Cookie {
        others: Vec<String>,
    },
}

/// What becomes of the value read (an `Option`).
pub enum Finish {
    AsIs,
    /// Refused when absent.
    Required,
    Default(DefaultValue),
}

/// How a parameter's value is spelled and parsed.
pub(super) enum ParamShape {
    Scalar(Scalar, Check),
    List(Scalar, Check),
    /// Not decoded: the reason.
    Raw(String),
}

/// The parse of a parameter's text (`impl Fn(&str) -> Result<T, String>` in the router).
#[derive(Clone)]
pub enum Scalar {
    /// `params::value::<T>` of a primitive (`String` for any value).
    Value(Primitive),
    /// By the type's own `FromStr` (the runtime's `FromParam` cannot name the models' types).
    FromStr(TypeRef),
    /// A numeric string, checked against its pattern.
    Numeric { number: Primitive, pattern: String },
    /// A union of primitives: the text is the branch's value.
    UnionText(TypeRef),
}

/// Which constraints beyond its type a value has.
#[derive(Debug, Clone, Copy)]
pub(super) enum Check {
    Str,
    Number(Primitive),
    None,
}

impl<'a> Plan<'a> {
    pub(super) fn param_field(
        &self,
        op: &Operation,
        p: &Parameter,
        notes: &mut Vec<String>,
    ) -> Option<FieldPlan> {
        let wire = p.wire_name.as_str();
        let mut doc = p.doc.clone().unwrap_or_default();
        if p.deprecated {
            push_paragraph(&mut doc, "**Deprecated.**");
        }
        let at = if p.location == ParamLocation::Path {
            match path_position(op, wire) {
                Some(at) => Some(at),
                None => {
                    notes.push(format!("The path parameter `{wire}` does not occur in the path; it is not generated."));
                    return None;
                }
            }
        } else {
            None
        };
        let shape = self.param_shape(&p.ty, p.location);
        let field =
            |doc: String, ty: FieldType, get: Get, checks: Option<Checks>, finish: Finish| {
                let (location, wire) = (p.location, wire.to_owned());
                let read = ParamRead {
                    location,
                    wire,
                    get,
                    checks,
                    finish,
                };
                let source = Source::of(p.location);
                Some(FieldPlan {
                    name: p.name.clone(),
                    doc,
                    ty,
                    read: Read::Param(Box::new(read)),
                    source,
                })
            };
        let required = p.required || p.location == ParamLocation::Path;
        if let Some((value, get, checks, default)) =
            self.styled_read(op, p, &shape, &at, &mut doc, notes)
        {
            let (optional, finish) = match (default, required) {
                (Some(default), false) => (false, Finish::Default(default)),
                (_, true) => (false, Finish::Required),
                (None, false) => (true, Finish::AsIs),
            };
            return field(doc, FieldType { value, optional }, get, checks, finish);
        }
        let (scalar, check, list) = match shape {
            ParamShape::Scalar(scalar, check) => (scalar, check, false),
            ParamShape::List(scalar, check) => (scalar, check, true),
            ParamShape::Raw(reason) => {
                push_paragraph(
                    &mut doc,
                    &format!("Passed through as the raw text: {reason}."),
                );
                let ty = FieldType::optional(Value::Scalar(Scalar::Value(Primitive::String)));
                return field(doc, ty, Get::Text(at), None, Finish::AsIs);
            }
        };
        let default = p
            .default
            .as_ref()
            .and_then(|d| self.default_value(&p.ty, d));
        if let (Some(value), None) = (&p.default, &default) {
            push_paragraph(
                &mut doc,
                &format!("Default (not applied by the router): `{value}`."),
            );
        } else if let Some(value) = &p.default {
            push_paragraph(&mut doc, &format!("Default: `{value}`."));
        }
        let default = default.filter(|_| !required);
        let optional = !required && default.is_none();
        let value = if list {
            Value::List(scalar.clone())
        } else {
            Value::Scalar(scalar.clone())
        };
        let checks = self.checks(check, list, self.param_constraints(p));
        let explode = (p.location == ParamLocation::Query && list).then_some(p.explode);
        let get = Get::Plain {
            at,
            scalar,
            list,
            explode,
            required,
            default,
        };
        field(
            doc,
            FieldType { value, optional },
            get,
            checks,
            Finish::AsIs,
        )
    }

    /// The value, read, checks and default of a parameter that the style codec reads (`label`,
    /// `matrix`, the delimited styles, `deepObject`, objects, exploded cookie lists) or that is
    /// JSON text; `None` for the plain forms the readers take directly.
    pub(super) fn styled_read(
        &self,
        op: &Operation,
        p: &Parameter,
        shape: &ParamShape,
        at: &Option<PathAt>,
        doc: &mut String,
        notes: &mut Vec<String>,
    ) -> Option<(Value, Get, Option<Checks>, Option<DefaultValue>)> {
        let wire = p.wire_name.as_str();
        if p.json {
            let ty = p.ty.strip_nullable().clone();
            let capture = match (p.location, at) {
                (ParamLocation::Path, Some(PathAt::Capture(index))) => Some(*index),
                (ParamLocation::Path, _) => return None,
                _ => None,
            };
            push_paragraph(doc, "Sent as JSON text (`content: application/json`).");
            return Some((
                Value::Type(ty.clone()),
                Get::Json { ty, capture },
                None,
                None,
            ));
        }
        let object = self.object_fields(&p.ty);
        let plain_style = match p.location {
            ParamLocation::Path => p.style == ParamStyle::Simple,
            ParamLocation::Query => p.style == ParamStyle::Form,
            _ => true,
        };
        // Lists whose items are split from encoded text (so an encoded `,` stays in its item), and
        // cookie lists, which the plain readers do not take.
        let split_list = matches!(self.api.resolve(&p.ty), TypeRef::Array(_))
            && match p.location {
                ParamLocation::Path => true,
                ParamLocation::Query => !p.explode,
                ParamLocation::Header => false,
                ParamLocation::Cookie => true,
            };
        if plain_style && object.is_none() && !split_list {
            return None;
        }
        let (styled, value) = match (object, shape) {
            (Some(fields), _) => {
                let ty = p.ty.strip_nullable().clone();
                // Objects with objects or arrays inside are read as a tree (`deep_form`).
                let deep = self.nests(&p.ty);
                (
                    Styled::Object {
                        ty: ty.clone(),
                        deep,
                        fields,
                    },
                    Value::Type(ty),
                )
            }
            (None, ParamShape::Scalar(scalar, _)) => (
                Styled::Primitive(scalar.clone()),
                Value::Scalar(scalar.clone()),
            ),
            (None, ParamShape::List(scalar, _)) => {
                (Styled::List(scalar.clone()), Value::List(scalar.clone()))
            }
            (None, ParamShape::Raw(_)) => {
                let TypeRef::Array(inner) = self.api.resolve(&p.ty) else {
                    return None;
                };
                let (scalar, _) = self.scalar(self.api.resolve(inner))?;
                (Styled::List(scalar.clone()), Value::List(scalar))
            }
        };
        let others = || -> Vec<String> {
            op.parameters
                .iter()
                .filter(|o| o.location == p.location && o.wire_name != p.wire_name)
                .map(|o| o.wire_name.clone())
                .collect()
        };
        let styled_at = match (p.location, at) {
            (ParamLocation::Path, Some(PathAt::Capture(_))) => StyledAt::Path(
                op.segments
                    .iter()
                    .position(|s| matches!(s, PathSegment::Param(n) if n == wire))?,
            ),
            (ParamLocation::Path, _) => {
                notes.push(format!(
                    "The path parameter `{wire}` shares its segment with text: its style `{}` is not applied (simple is).",
                    p.style.spec_name()
                ));
                return None;
            }
            (ParamLocation::Query, _) => StyledAt::Query { others: others() },
            (ParamLocation::Header, _) => StyledAt::Header,
            (ParamLocation::Cookie, _) => StyledAt::Cookie { others: others() },
        };
        // Constraints beyond the type (objects are validated as they are decoded).
        let checks = match (&styled, shape) {
            (Styled::Object { .. }, _) => None,
            (_, ParamShape::Scalar(_, check) | ParamShape::List(_, check)) => Some(*check),
            _ => Some(Check::None),
        };
        let list = matches!(self.api.resolve(&p.ty), TypeRef::Array(_));
        let checks = checks.and_then(|check| self.checks(check, list, self.param_constraints(p)));
        let required = p.required || p.location == ParamLocation::Path;
        let default = p
            .default
            .as_ref()
            .and_then(|d| self.default_value(&p.ty, d))
            .filter(|_| !required);
        if default.is_some() {
            push_paragraph(doc, &format!("Default: `{}`.", p.default.as_ref()?));
        }
        let get = Get::Styled {
            value: styled,
            at: styled_at,
            style: p.style,
            explode: p.explode,
        };
        Some((value, get, checks, default))
    }

    /// The property names of an object parameter (`None` inside for a map, whose names are open),
    /// or `None` when the parameter is not a struct or map.
    pub(super) fn object_fields(&self, ty: &TypeRef) -> Option<Option<Vec<String>>> {
        match self.api.resolve(ty) {
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Struct(st)
                    if st.additional.is_none()
                        || matches!(st.additional, Some(crate::ir::Additional::Deny)) =>
                {
                    Some(Some(
                        st.fields.iter().map(|f| f.wire_name.clone()).collect(),
                    ))
                }
                _ => None,
            },
            TypeRef::Map(_) => Some(None),
            _ => None,
        }
    }

    /// Whether an object parameter has a property (or map value) that is not a primitive: an
    /// object or array, which `deepObject` nests in brackets and other styles send as JSON text.
    pub(super) fn nests(&self, ty: &TypeRef) -> bool {
        let nested = |t: &TypeRef| self.scalar(self.api.resolve(t)).is_none();
        match self.api.resolve(ty) {
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Struct(st) => st.fields.iter().any(|f| nested(&f.ty)),
                _ => false,
            },
            TypeRef::Map(inner) => nested(inner),
            _ => false,
        }
    }

    /// A parameter's constraints: its own, else those of the constrained alias it names
    /// (`schema: {$ref: '#/components/schemas/Name'}` with `Name: {type: string, pattern: ...}`).
    pub(super) fn param_constraints<'c>(&'c self, p: &'c Parameter) -> &'c Constraints {
        if !p.constraints.is_empty() {
            return &p.constraints;
        }
        let mut ty = &p.ty;
        for _ in 0..16 {
            match ty {
                TypeRef::Nullable(inner) => ty = inner,
                TypeRef::Named(id) => match &self.api.types[id.0] {
                    def if !def.constraints.is_empty() => return &def.constraints,
                    def => match &def.kind {
                        TypeKind::Alias(inner) => ty = inner,
                        _ => break,
                    },
                },
                _ => break,
            }
        }
        &p.constraints
    }

    /// How a parameter's value is spelled and parsed.
    pub(super) fn param_shape(&self, ty: &TypeRef, location: ParamLocation) -> ParamShape {
        let ty = self.api.resolve(ty);
        if let Some((scalar, check)) = self.scalar(ty) {
            return ParamShape::Scalar(scalar, check);
        }
        match ty {
            TypeRef::Array(inner) if location != ParamLocation::Cookie => {
                match self.scalar(self.api.resolve(inner)) {
                    Some((scalar, check)) => ParamShape::List(scalar, check),
                    None => ParamShape::Raw(
                        "the generator does not decode lists of this item type".to_owned(),
                    ),
                }
            }
            TypeRef::Array(_) => {
                ParamShape::Raw("the generator does not decode list cookies".to_owned())
            }
            TypeRef::Map(_) => {
                ParamShape::Raw("the generator does not decode object parameters".to_owned())
            }
            TypeRef::Named(id) => ParamShape::Raw(format!(
                "the generator does not decode `{}` from a parameter",
                self.api.types[id.0].name
            )),
            _ => ParamShape::Raw(
                "the generator does not decode this schema from a parameter".to_owned(),
            ),
        }
    }

    pub(super) fn scalar(&self, ty: &TypeRef) -> Option<(Scalar, Check)> {
        match ty {
            TypeRef::Primitive(Primitive::Bytes) => None,
            TypeRef::Primitive(Primitive::String) => {
                Some((Scalar::Value(Primitive::String), Check::Str))
            }
            TypeRef::Primitive(p) if p.is_integer() || p.is_float() => {
                Some((Scalar::Value(*p), Check::Number(*p)))
            }
            TypeRef::Primitive(Primitive::Base64 | Primitive::Url) => {
                Some((Scalar::FromStr(ty.clone()), Check::None))
            }
            TypeRef::Primitive(p) => Some((Scalar::Value(*p), Check::None)),
            TypeRef::NumericString { number, pattern } => {
                let scalar = Scalar::Numeric {
                    number: *number,
                    pattern: pattern.clone(),
                };
                Some((scalar, Check::Number(*number)))
            }
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {
                    Some((Scalar::FromStr(ty.clone()), Check::None))
                }
                // A union of primitives (`oneOf: [Name, Uuid]`): the text is the branch's value.
                TypeKind::Union(u)
                    if u.variants
                        .iter()
                        .all(|v| self.scalar(self.api.resolve(&v.ty)).is_some()) =>
                {
                    Some((Scalar::UnionText(ty.clone()), Check::None))
                }
                _ => None,
            },
            TypeRef::Any => Some((Scalar::Value(Primitive::String), Check::None)),
            _ => None,
        }
    }

    /// The checks of the constraints beyond the type, of a value or (`list`) of a list's items.
    pub(super) fn checks(&self, check: Check, list: bool, c: &Constraints) -> Option<Checks> {
        if !list {
            return self.scalar_checks(check, c);
        }
        let each = c
            .items
            .as_ref()
            .and_then(|items| self.scalar_checks(check, items));
        Checks::items(c, each)
    }

    fn scalar_checks(&self, check: Check, c: &Constraints) -> Option<Checks> {
        match check {
            Check::Str => Checks::text(c, false, false, |s| self.patterns.enforced(s)),
            Check::Number(p) => Checks::range(p, c),
            Check::None => None,
        }
    }

    /// The spec's default as a Rust value, when it can be written as one.
    pub(super) fn default_value(
        &self,
        ty: &TypeRef,
        value: &serde_json::Value,
    ) -> Option<DefaultValue> {
        DefaultValue::of(self.api.resolve(ty), value, &self.api.types)
    }
}
