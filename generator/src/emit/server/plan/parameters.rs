//! Parameters: how the router reads each path, query, header and cookie parameter (location,
//! style, explode, required, default) and the checks it runs on the value.

use super::*;

pub(super) enum ParamShape {
    Scalar(Scalar, Check),
    List(Scalar, Check),
    /// Not decoded: the reason.
    Raw(String),
}

pub(super) struct Scalar {
    ty: TokenStream,
    /// An expression of type `impl Fn(&str) -> Result<T, String>`.
    parse: TokenStream,
}

impl Scalar {
    fn value(ty: TokenStream) -> Scalar {
        let parse = quote! { params::value::<#ty> };
        Scalar { ty, parse }
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Check {
    Str,
    Number(Primitive),
    None,
}

pub(super) enum DefaultValue {
    Copy(TokenStream),
    Owned(TokenStream),
    Empty,
}

impl DefaultValue {
    fn apply(&self, optional: TokenStream) -> TokenStream {
        match self {
            DefaultValue::Copy(v) => quote! { #optional.unwrap_or(#v) },
            DefaultValue::Owned(v) => quote! { #optional.unwrap_or_else(|| #v) },
            DefaultValue::Empty => quote! { #optional.unwrap_or_default() },
        }
    }
}

/// `read`, then `checks` run on the value it read (`optional`: an `Option`, checked when `Some`).
fn checked(
    read: TokenStream,
    p: &Parameter,
    checks: Option<Checks>,
    optional: bool,
) -> TokenStream {
    let (location, wire) = (location_tokens(p.location), &p.wire_name);
    let Some(checks) = checks else { return read };
    let checks = checks::render(&checks, &quote! { value }, Site::Params, 0);
    if optional {
        quote! {{
            let value = #read;
            if let Some(value) = &value {
                params::check(#location, #wire, |path, errors| { #checks })?;
            }
            value
        }}
    } else {
        quote! {{
            let value = #read;
            params::check(#location, #wire, |path, errors| { let value = &value; #checks })?;
            value
        }}
    }
}

pub(super) fn location_tokens(location: ParamLocation) -> TokenStream {
    match location {
        ParamLocation::Path => quote! { params::In::Path },
        ParamLocation::Query => quote! { params::In::Query },
        ParamLocation::Header => quote! { params::In::Header },
        ParamLocation::Cookie => quote! { params::In::Cookie },
    }
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
        let (reader, source) = match p.location {
            ParamLocation::Path => (quote! { path }, Source::Path),
            ParamLocation::Query => (quote! { query }, Source::Query),
            ParamLocation::Header => (quote! { headers }, Source::Header),
            ParamLocation::Cookie => (quote! { cookies }, Source::Cookie),
        };
        let path_at = if p.location == ParamLocation::Path {
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
        let path_read = |list: bool, parse: &TokenStream| match &path_at {
            Some(PathAt::Capture(index)) if list => {
                quote! { path.required_list(#index, #wire, #parse)? }
            }
            Some(PathAt::Capture(index)) => quote! { path.required(#index, #wire, #parse)? },
            Some(PathAt::Piece {
                segment,
                literals,
                piece,
            }) => {
                let method = if list {
                    quote! { required_piece_list }
                } else {
                    quote! { required_piece }
                };
                quote! { path.#method(#segment, &[#(#literals),*], #piece, #wire, #parse)? }
            }
            None => TokenStream::new(),
        };
        let shape = self.param_shape(&p.ty, p.location);
        let name = p.name.clone();
        if let Some(styled) = self.styled_read(op, p, &shape, &path_at, &mut doc, notes) {
            let (ty, read) = styled;
            return Some(FieldPlan {
                name,
                doc,
                ty,
                read,
                source,
            });
        }
        let (value_ty, parse, check, list) = match &shape {
            ParamShape::Scalar(scalar, check) => {
                (scalar.ty.clone(), scalar.parse.clone(), *check, false)
            }
            ParamShape::List(scalar, check) => {
                let t = &scalar.ty;
                (quote! { Vec<#t> }, scalar.parse.clone(), *check, true)
            }
            ParamShape::Raw(reason) => {
                push_paragraph(
                    &mut doc,
                    &format!("Passed through as the raw text: {reason}."),
                );
                let read = match p.location {
                    ParamLocation::Path => {
                        let read = path_read(false, &quote! { params::value::<String> });
                        quote! { Some(#read) }
                    }
                    _ => quote! { #reader.optional(#wire, params::value::<String>)? },
                };
                return Some(FieldPlan {
                    name,
                    doc,
                    ty: quote! { Option<String> },
                    read,
                    source,
                });
            }
        };
        let explode = p.explode;
        let default = p
            .default
            .as_ref()
            .and_then(|d| self.default_value(&p.ty, d, list));
        if let (Some(value), None) = (&p.default, &default) {
            push_paragraph(
                &mut doc,
                &format!("Default (not applied by the router): `{value}`."),
            );
        } else if let Some(value) = &p.default {
            push_paragraph(&mut doc, &format!("Default: `{value}`."));
        }
        let required = p.required || p.location == ParamLocation::Path;
        // Only query lists say whether they are exploded; the other readers know their own.
        let explode = (p.location == ParamLocation::Query && list).then_some(quote! { #explode, });
        let (ty, read, optional) = if p.location == ParamLocation::Path {
            (value_ty, path_read(list, &parse), false)
        } else {
            let (required_fn, optional_fn) = if list {
                (quote! { required_list }, quote! { optional_list })
            } else {
                (quote! { required }, quote! { optional })
            };
            let optional = quote! { #reader.#optional_fn(#wire, #explode #parse)? };
            match (&default, required) {
                (_, true) => (
                    value_ty,
                    quote! { #reader.#required_fn(#wire, #explode #parse)? },
                    false,
                ),
                (Some(default), false) => (value_ty, default.apply(optional), false),
                (None, false) => (quote! { Option<#value_ty> }, optional, true),
            }
        };
        let checks = self.checks(check, list, self.param_constraints(p));
        let read = checked(read, p, checks, optional);
        Some(FieldPlan {
            name,
            doc,
            ty,
            read,
            source,
        })
    }

    /// The type and read of a parameter that the style codec reads (`label`, `matrix`, the
    /// delimited styles, `deepObject`, objects, exploded cookie lists) or that is JSON text;
    /// `None` for the plain forms the readers take directly.
    pub(super) fn styled_read(
        &self,
        op: &Operation,
        p: &Parameter,
        shape: &ParamShape,
        path_at: &Option<PathAt>,
        doc: &mut String,
        notes: &mut Vec<String>,
    ) -> Option<(TokenStream, TokenStream)> {
        let wire = p.wire_name.as_str();
        let location = location_tokens(p.location);
        let required = p.required || p.location == ParamLocation::Path;
        let finish = |ty: TokenStream, optional: TokenStream| {
            if required {
                (
                    ty,
                    quote! { params::required(#location, #wire, #optional)? },
                )
            } else {
                (quote! { Option<#ty> }, optional)
            }
        };
        if p.json {
            let t = self.printer.rust_type(p.ty.strip_nullable());
            let parse = quote! { params::json::<#t> };
            let read = match (p.location, path_at) {
                (ParamLocation::Path, Some(PathAt::Capture(index))) => {
                    quote! { Some(path.required(#index, #wire, #parse)?) }
                }
                (ParamLocation::Path, _) => return None,
                (ParamLocation::Query, _) => quote! { query.optional(#wire, #parse)? },
                (ParamLocation::Header, _) => quote! { headers.optional(#wire, #parse)? },
                (ParamLocation::Cookie, _) => quote! { cookies.optional(#wire, #parse)? },
            };
            push_paragraph(doc, "Sent as JSON text (`content: application/json`).");
            return Some(finish(t, read));
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
        let style = format_ident!("{}", p.style.variant());
        let explode = p.explode;
        // The shape the codec reads, and the conversion of its value: (shape, function, parse).
        let (shape_tokens, convert, parse, value_ty) = match (&object, shape) {
            (Some(_), _) => {
                let t = self.printer.rust_type(p.ty.strip_nullable());
                // Objects with objects or arrays inside are read as a tree (`deep_form`).
                let convert = if self.nests(&p.ty) {
                    quote! { deep_form::object::<#t> }
                } else {
                    quote! { params::object::<#t> }
                };
                (quote! { models::style::Shape::Object }, convert, None, t)
            }
            (None, ParamShape::Scalar(scalar, _)) => (
                quote! { models::style::Shape::Primitive },
                quote! { params::primitive },
                Some(scalar.parse.clone()),
                scalar.ty.clone(),
            ),
            (None, ParamShape::List(scalar, _)) => {
                let t = &scalar.ty;
                (
                    quote! { models::style::Shape::Array },
                    quote! { params::list },
                    Some(scalar.parse.clone()),
                    quote! { Vec<#t> },
                )
            }
            (None, ParamShape::Raw(_)) => {
                let TypeRef::Array(inner) = self.api.resolve(&p.ty) else {
                    return None;
                };
                let (scalar, _) = self.scalar(self.api.resolve(inner))?;
                let t = &scalar.ty;
                (
                    quote! { models::style::Shape::Array },
                    quote! { params::list },
                    Some(scalar.parse.clone()),
                    quote! { Vec<#t> },
                )
            }
        };
        let fields = match &object {
            Some(Some(names)) => quote! { Some(&[#(#names),*]) },
            _ => quote! { None },
        };
        let others: Vec<&str> = op
            .parameters
            .iter()
            .filter(|o| o.location == p.location && o.wire_name != p.wire_name)
            .map(|o| o.wire_name.as_str())
            .collect();
        let raw = match (p.location, path_at) {
            (ParamLocation::Path, Some(PathAt::Capture(_))) => {
                let segment = op
                    .segments
                    .iter()
                    .position(|s| matches!(s, PathSegment::Param(n) if n == wire))
                    .map(Literal::usize_unsuffixed)?;
                quote! { Some(path.styled(#segment, #wire, models::style::Style::#style, #explode, #shape_tokens)?) }
            }
            (ParamLocation::Path, _) => {
                notes.push(format!(
                    "The path parameter `{wire}` shares its segment with text: its style `{}` is not applied (simple is).",
                    p.style.spec_name()
                ));
                return None;
            }
            (ParamLocation::Query, _) => quote! {
                query.styled(#wire, models::style::Style::#style, #explode, #shape_tokens, #fields, &[#(#others),*])?
            },
            (ParamLocation::Header, _) => {
                quote! { headers.styled(#wire, #explode, #shape_tokens)? }
            }
            (ParamLocation::Cookie, _) => quote! {
                cookies.styled(#wire, #explode, #shape_tokens, #fields, &[#(#others),*])?
            },
        };
        let parse = parse.map(|parse| quote! { , #parse });
        let read = quote! { #convert(#location, #wire, #raw #parse)? };
        // Constraints beyond the type (objects are validated as they are decoded).
        let check = match shape {
            ParamShape::Scalar(_, check) | ParamShape::List(_, check) if object.is_none() => *check,
            _ => Check::None,
        };
        let list = matches!(self.api.resolve(&p.ty), TypeRef::Array(_));
        let checks = if object.is_some() {
            None
        } else {
            self.checks(check, list, self.param_constraints(p))
        };
        let read = checked(read, p, checks, true);
        let default = p
            .default
            .as_ref()
            .and_then(|d| self.default_value(&p.ty, d, list));
        match (&default, required) {
            (Some(default), false) => {
                push_paragraph(doc, &format!("Default: `{}`.", p.default.as_ref()?));
                Some((value_ty, default.apply(read)))
            }
            _ => Some(finish(value_ty, read)),
        }
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
                Some((Scalar::value(quote! { String }), Check::Str))
            }
            TypeRef::Primitive(p) if p.is_integer() || p.is_float() => {
                Some((Scalar::value(primitive(*p)), Check::Number(*p)))
            }
            // Parsed by their own `FromStr` (the runtime's `FromParam` cannot name the models' types).
            TypeRef::Primitive(Primitive::Base64 | Primitive::Url) => {
                let t = self.printer.rust_type(ty);
                let parse = quote! { params::from_str::<#t> };
                Some((Scalar { ty: t, parse }, Check::None))
            }
            TypeRef::Primitive(p) => Some((Scalar::value(primitive(*p)), Check::None)),
            TypeRef::NumericString { number, pattern } => {
                let t = primitive(*number);
                let pattern = self.patterns.numeric_static(pattern);
                let parse = quote! { params::numeric::<#t>(&models::patterns::#pattern) };
                Some((Scalar { ty: t, parse }, Check::Number(*number)))
            }
            TypeRef::Named(id) => match &self.api.types[id.0].kind {
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {
                    let t = self.printer.rust_type(ty);
                    let parse = quote! { params::from_str::<#t> };
                    Some((Scalar { ty: t, parse }, Check::None))
                }
                // A union of primitives (`oneOf: [Name, Uuid]`): the text is the branch's value.
                TypeKind::Union(u)
                    if u.variants
                        .iter()
                        .all(|v| self.scalar(self.api.resolve(&v.ty)).is_some()) =>
                {
                    let t = self.printer.rust_type(ty);
                    let parse = quote! { params::union_text::<#t> };
                    Some((Scalar { ty: t, parse }, Check::None))
                }
                _ => None,
            },
            TypeRef::Any => Some((Scalar::value(quote! { String }), Check::None)),
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
        list: bool,
    ) -> Option<DefaultValue> {
        if list {
            return value
                .as_array()
                .is_some_and(Vec::is_empty)
                .then_some(DefaultValue::Empty);
        }
        match (self.api.resolve(ty), value) {
            (TypeRef::Primitive(Primitive::String), serde_json::Value::String(s)) => {
                Some(DefaultValue::Owned(quote! { #s.to_owned() }))
            }
            (TypeRef::Primitive(Primitive::Bool), serde_json::Value::Bool(b)) => {
                Some(DefaultValue::Copy(quote! { #b }))
            }
            (
                TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. },
                serde_json::Value::Number(n),
            ) => number_literal(*p, n, true).map(DefaultValue::Copy),
            (named @ TypeRef::Named(id), v) => {
                let variant = self.api.types[id.0].enum_variant(v)?;
                let t = self.printer.rust_type(named);
                let variant = ident(variant);
                Some(DefaultValue::Copy(quote! { #t::#variant }))
            }
            _ => None,
        }
    }
}
