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
    /// The text as sent (a parameter the generator does not decode, an API key), or the value of
    /// JSON text (`content: application/json`) of type `json`: `Some` of a path parameter at `at`,
    /// else the reader's optional text.
    Text {
        at: Option<PathAt>,
        json: Option<TypeRef>,
    },
    /// The plain readers (simple path segments, form query, headers, cookies), which require the
    /// value or give its default themselves.
    Plain {
        at: Option<PathAt>,
        scalar: Scalar,
        list: bool,
        /// Said by query lists alone; the other readers know their own.
        explode: Option<bool>,
    },
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
    /// A primitive, or a list of them.
    Scalar { scalar: Scalar, list: bool },
}

/// Where the style codec finds the text, with the names of the other parameters there.
pub enum StyledAt {
    /// The segment at this index.
    Path(usize),
    Query(Vec<String>),
    Header,
    Cookie(Vec<String>),
}

/// What becomes of the value read (an `Option`): the field is an `Option` when it stays one.
pub enum Finish {
    AsIs,
    /// Refused when absent.
    Required,
    Default(DefaultValue),
}

/// How a parameter's value is parsed: the scalar, its checks and whether it is a list of them; or
/// why it is not decoded.
pub(super) type ParamShape = Result<(Scalar, Check, bool), String>;

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
        let at = match p.location {
            ParamLocation::Path => {
                let Some(at) = path_position(op, wire) else {
                    notes.push(format!("The path parameter `{wire}` does not occur in the path; it is not generated."));
                    return None;
                };
                Some(at)
            }
            _ => None,
        };
        let shape = self.param_shape(&p.ty, p.location);
        let resolved = self.api.resolve(&p.ty);
        let default = p
            .default
            .as_ref()
            .and_then(|value| DefaultValue::of(resolved, value, &self.api.types));
        let written = default.is_some();
        // A required parameter (every path parameter is) has no default to apply.
        let applied = default.filter(|_| !p.required);
        let finish = |default: Option<DefaultValue>| match default {
            Some(default) => Finish::Default(default),
            None if p.required => Finish::Required,
            None => Finish::AsIs,
        };
        let (get, check, finish) = if p.json && !matches!(at, Some(PathAt::Piece { .. })) {
            push_paragraph(&mut doc, "Sent as JSON text (`content: application/json`).");
            let json = Some(p.ty.strip_nullable().clone());
            (Get::Text { at, json }, None, finish(None))
        } else if let Some((get, check)) = self.styled_read(op, p, &shape, at.as_ref(), notes) {
            if let (Some(_), Some(value)) = (&applied, &p.default) {
                push_paragraph(&mut doc, &format!("Default: `{value}`."));
            }
            (get, check, finish(applied))
        } else {
            match shape {
                Err(reason) => {
                    let raw = format!("Passed through as the raw text: {reason}.");
                    push_paragraph(&mut doc, &raw);
                    (Get::Text { at, json: None }, None, Finish::AsIs)
                }
                Ok((scalar, check, list)) => {
                    if let Some(value) = &p.default {
                        let unapplied = if written {
                            ""
                        } else {
                            " (not applied by the router)"
                        };
                        push_paragraph(&mut doc, &format!("Default{unapplied}: `{value}`."));
                    }
                    let explode = (p.location == ParamLocation::Query && list).then_some(p.explode);
                    let get = Get::Plain {
                        at,
                        scalar,
                        list,
                        explode,
                    };
                    (get, Some(check), finish(applied))
                }
            }
        };
        let list = matches!(resolved, TypeRef::Array(_));
        let checks = check.and_then(|check| self.checks(check, list, self.param_constraints(p)));
        let read = ParamRead {
            location: p.location,
            wire: wire.to_owned(),
            get,
            checks,
            finish,
        };
        Some(FieldPlan {
            name: p.name.clone(),
            doc,
            read: Read::Param(Box::new(read)),
        })
    }

    /// The read and the checks beyond its type of a parameter that the style codec reads (`label`,
    /// `matrix`, the delimited styles, `deepObject`, objects, exploded cookie lists); `None` for
    /// the plain forms the readers take directly.
    pub(super) fn styled_read(
        &self,
        op: &Operation,
        p: &Parameter,
        shape: &ParamShape,
        at: Option<&PathAt>,
        notes: &mut Vec<String>,
    ) -> Option<(Get, Option<Check>)> {
        let wire = p.wire_name.as_str();
        let object = self.object(&p.ty);
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
        let (value, check) = match (object, shape) {
            // Objects are validated as they are decoded; those with objects or arrays inside are
            // read as a tree (`deep_form`).
            (Some((fields, deep)), _) => {
                let ty = p.ty.strip_nullable().clone();
                (Styled::Object { ty, deep, fields }, None)
            }
            (None, Ok((scalar, check, list))) => {
                let (scalar, list) = (scalar.clone(), *list);
                (Styled::Scalar { scalar, list }, Some(*check))
            }
            (None, Err(_)) => {
                let TypeRef::Array(inner) = self.api.resolve(&p.ty) else {
                    return None;
                };
                let (scalar, _) = self.scalar(self.api.resolve(inner))?;
                (Styled::Scalar { scalar, list: true }, Some(Check::None))
            }
        };
        let others = || -> Vec<String> {
            op.parameters
                .iter()
                .filter(|o| o.location == p.location && o.wire_name != p.wire_name)
                .map(|o| o.wire_name.clone())
                .collect()
        };
        let at = match (p.location, at) {
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
            (ParamLocation::Query, _) => StyledAt::Query(others()),
            (ParamLocation::Header, _) => StyledAt::Header,
            (ParamLocation::Cookie, _) => StyledAt::Cookie(others()),
        };
        let get = Get::Styled {
            value,
            at,
            style: p.style,
            explode: p.explode,
        };
        Some((get, check))
    }

    /// The property names of an object parameter (`None` for a map, whose names are open), and
    /// whether a property (or the map's value) nests: an object or array, which `deepObject` nests
    /// in brackets and other styles send as JSON text. `None` when it is not a struct or map.
    fn object(&self, ty: &TypeRef) -> Option<(Option<Vec<String>>, bool)> {
        let nested = |t: &TypeRef| self.scalar(self.api.resolve(t)).is_none();
        match self.api.resolve(ty) {
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::Struct(st) if matches!(st.additional, None | Some(Additional::Deny)) => {
                    let names = st.fields.iter().map(|f| f.wire_name.clone()).collect();
                    Some((Some(names), st.fields.iter().any(|f| nested(&f.ty))))
                }
                _ => None,
            },
            TypeRef::Map(inner) => Some((None, nested(inner))),
            _ => None,
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
            return Ok((scalar, check, false));
        }
        match ty {
            TypeRef::Array(inner) if location != ParamLocation::Cookie => {
                match self.scalar(self.api.resolve(inner)) {
                    Some((scalar, check)) => Ok((scalar, check, true)),
                    None => Err("the generator does not decode lists of this item type".to_owned()),
                }
            }
            TypeRef::Array(_) => Err("the generator does not decode list cookies".to_owned()),
            TypeRef::Map(_) => Err("the generator does not decode object parameters".to_owned()),
            TypeRef::Named(id) => Err(format!(
                "the generator does not decode `{}` from a parameter",
                self.api.types[id.0].name
            )),
            _ => Err("the generator does not decode this schema from a parameter".to_owned()),
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
}
