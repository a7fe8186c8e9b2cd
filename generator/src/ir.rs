//! The intermediate representation: what the document means, in plain Rust data.
//! Built by `build` from `openapiv3`, named by `naming`, read by the emitters. It knows nothing of either.

use serde::Serialize;

/// Index into [`Api::types`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct TypeId(pub usize);

/// A whole OpenAPI document as the emitters see it: its `info`, the named types of its schemas,
/// its operations, security schemes, webhooks and callbacks. Built by [`crate::build::build`],
/// named by [`crate::naming::resolve`].
#[derive(Debug, Clone, Serialize)]
pub struct Api {
    /// `info.title`: names the API in the generated crates' descriptions and docs, and gives the
    /// server's trait its name.
    pub title: String,
    /// `info.version`: the version of the API, in the generated crates' docs and in their
    /// `Cargo.toml` metadata (`api-version`).
    pub version: String,
    /// `info.description`: the root doc of the generated crates.
    pub description: Option<String>,
    /// Who publishes the API and under which terms (`info`), for the generated `Cargo.toml`s.
    pub publisher: Publisher,
    /// Every named type, in the order it was found (components first, in document order).
    pub types: Vec<TypeDef>,
    /// Every operation under `paths`, in document order (path by path, methods in the order of
    /// [`Method`]); an operation whose path template does not parse is left out with a warning.
    pub operations: Vec<Operation>,
    /// `components.securitySchemes`, in document order; [`Operation::security`] names them.
    pub security_schemes: Vec<SecurityScheme>,
    /// Webhooks (3.1 `webhooks`) and callbacks (an operation's `callbacks`): requests the API
    /// sends, which its users receive.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<Hook>,
    /// The document's `tags`, in document order: the generated client's docs list the
    /// operations by them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<Tag>,
    /// How many operations the document has as written: more than [`Api::operations`] where a
    /// flaw left some out (see [`crate::salvage`]).
    #[serde(skip)]
    pub operations_in_document: usize,
}

/// A Tag Object of the document's `tags`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tag {
    /// `name`, which operations' `tags` list.
    pub name: String,
    /// `summary` (OpenAPI 3.2): a short title.
    pub summary: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `parent` (OpenAPI 3.2): the tag this one nests under.
    pub parent: Option<String>,
    /// `kind` (OpenAPI 3.2): `nav` for navigation, `badge`, `audience`, or another of the
    /// registry's; only navigation tags (and tags without a kind) group operations.
    pub kind: Option<String>,
}

impl Tag {
    /// Whether the tag groups operations for navigation (no `kind`, or `nav`).
    pub fn navigates(&self) -> bool {
        self.kind.as_deref().is_none_or(|k| k == "nav")
    }
}

/// What a document's `info` says about its publisher, for the metadata of generated crates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Publisher {
    /// `license.identifier` (3.1, an SPDX expression), else `license.name`.
    pub license: Option<String>,
    /// `license.url`.
    pub license_url: Option<String>,
    /// `contact.name` and `contact.email`, as Cargo writes an author: `Name <email>`.
    pub contact: Option<String>,
    /// `contact.url`.
    pub contact_url: Option<String>,
    /// `termsOfService`: a URL.
    pub terms_of_service: Option<String>,
}

/// A request the API sends: an operation whose receiver is the API's user. Its `path` is where
/// the generated receiver routes it (`/{name}`), not the URL it is sent to.
#[derive(Debug, Clone, Serialize)]
pub struct Hook {
    /// Whether it is a webhook or a callback, and for a callback, which operation declares it.
    pub kind: HookKind,
    /// The webhook's or the callback's name, as the document spells it.
    pub name: String,
    /// The request the API sends and the responses it expects, read like an operation of `paths`.
    /// Its `security` is always empty: the document's security does not apply to hooks.
    pub operation: Operation,
}

/// Where a [`Hook`] is declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum HookKind {
    /// An entry of the document's `webhooks` (OpenAPI 3.1): its URL is registered out of band.
    Webhook,
    /// Declared by an operation: its URL is the runtime expression's result.
    Callback {
        /// The `operationId` (or derived id) of the operation that declares it.
        owner: String,
        /// The runtime expression, `{$request.body#/callbackUrl}` or a literal URL.
        expression: String,
    },
}

impl Api {
    /// The schema most 4xx responses use (else most 5xx and `default` ones): the generated
    /// server's own error body (see the server emitter).
    pub fn error_body(&self) -> Option<TypeId> {
        let api = self;
        let count = |select: fn(Status) -> bool| {
            let mut counts: std::collections::BTreeMap<TypeId, usize> = Default::default();
            for r in api.operations.iter().flat_map(|op| &op.responses) {
                if let (true, Some(body)) = (select(r.status), &r.body)
                    && body.media == Media::Json
                    && let TypeRef::Named(id) = body.ty
                {
                    *counts.entry(id).or_default() += 1;
                }
            }
            // Most uses wins; a tie goes to the type declared first.
            counts
                .into_iter()
                .max_by_key(|(id, n)| (*n, std::cmp::Reverse(*id)))
                .map(|(id, _)| id)
        };
        let server =
            |s| s == Status::Default || matches!(s, Status::Code(500..=599) | Status::Range(5));
        count(|s| matches!(s, Status::Code(400..=499) | Status::Range(4))).or_else(|| count(server))
    }

    /// The operations, then the hooks' operations: everything that names parameter and body types.
    pub fn all_operations(&self) -> impl Iterator<Item = &Operation> {
        self.operations
            .iter()
            .chain(self.hooks.iter().map(|h| &h.operation))
    }

    /// [`Api::all_operations`], to change them.
    pub fn all_operations_mut(&mut self) -> impl Iterator<Item = &mut Operation> {
        self.operations
            .iter_mut()
            .chain(self.hooks.iter_mut().map(|h| &mut h.operation))
    }

    /// The document as its hooks' side sees it: the hooks are its operations, at their receiver's
    /// path (`receiver`) or at no path (the sender posts to the URL it is given).
    pub fn hooks_api(&self, receiver: bool) -> Option<Api> {
        if self.hooks.is_empty() {
            return None;
        }
        let operations = self
            .hooks
            .iter()
            .map(|h| {
                let mut op = h.operation.clone();
                if !receiver {
                    op.path = String::new();
                    op.segments.clear();
                    op.query.clear();
                }
                op
            })
            .collect();
        Some(Api {
            title: format!("{} webhooks", self.title),
            version: self.version.clone(),
            description: None,
            publisher: self.publisher.clone(),
            types: self.types.clone(),
            operations,
            security_schemes: self.security_schemes.clone(),
            hooks: Vec::new(),
            tags: Vec::new(),
            operations_in_document: 0,
        })
    }
}

/// A named type of the generated models: one per component schema, and one per inline schema
/// that needs a Rust type of its own (an object with `properties`, an `enum`, a `oneOf`/`anyOf`,
/// a merged `allOf`). [`TypeRef::Named`] refers to it by its [`TypeId`].
#[derive(Debug, Clone, Serialize)]
pub struct TypeDef {
    /// The final Rust name, assigned once by `naming`.
    pub name: String,
    /// The JSON pointer of the schema in the document (`/components/schemas/Pet`), for
    /// diagnostics and to find a union's `discriminator.mapping`.
    pub pointer: String,
    /// How to name it: the first candidate that is free wins (see `naming`).
    pub name_hint: NameHint,
    /// The schema's `description` (for a component, else its `title`): the doc comment of the
    /// generated type.
    pub doc: Option<String>,
    /// What the schema is: a struct, an enum, a union, or an alias of another shape.
    pub kind: TypeKind,
    /// For aliases: the constraints of the aliased schema (a component `Name: {type: string, maxLength: 9}`).
    pub constraints: Constraints,
}

impl TypeDef {
    /// The variant of a string or integer enum whose value is `value` (a spec default, say).
    pub fn enum_variant(&self, value: &serde_json::Value) -> Option<&str> {
        match &self.kind {
            TypeKind::StringEnum(e) => e
                .variants
                .iter()
                .find(|v| Some(v.value.as_str()) == value.as_str())
                .map(|v| v.name.as_str()),
            TypeKind::IntEnum(e) => e
                .variants
                .iter()
                .find(|v| Some(v.value) == value.as_i64())
                .map(|v| v.name.as_str()),
            _ => None,
        }
    }
}

/// The candidates for a type's name, gathered by `build` where the schema is found and turned
/// into [`TypeDef::name`] by [`crate::naming::resolve`].
#[derive(Debug, Clone, Serialize)]
pub struct NameHint {
    /// The spec's own name (component key) or a name built from where the schema sits.
    pub base: String,
    /// Names the spec gives explicitly (component keys) are kept before derived ones.
    pub pinned: bool,
    /// A suffix that says where an inline schema was found (`Body`, `Response`, `Param`,
    /// `Header`), appended when the name is taken.
    pub context: Option<String>,
    /// An inline schema's own `title`: its name when free (see `naming`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// The shape of a named type, which decides the Rust item the models crate emits for it.
#[derive(Debug, Clone, Serialize)]
pub enum TypeKind {
    /// An object schema with `properties` (or an `allOf` of object schemas, merged): a struct.
    Struct(Struct),
    /// An `enum` of integers, or a `oneOf`/`anyOf` whose every branch is one integer `const`: an
    /// enum serialized as the numbers.
    IntEnum(IntEnum),
    /// An `enum` of strings, or a `oneOf`/`anyOf` whose every branch is one string `const`: an
    /// enum of unit variants serialized as the strings.
    StringEnum(StringEnum),
    /// A `oneOf` or `anyOf` of other shapes: an enum with one variant per branch, internally
    /// tagged or untagged.
    Union(Union),
    /// A named alias of another shape (a component that is an array, a map, a primitive...).
    Alias(TypeRef),
    /// Like an alias, but a distinct type: needed where an alias would refer to itself (`A = Vec<A>`).
    Newtype(TypeRef),
}

impl TypeKind {
    /// The type references the type is made of: its fields and map values, its variants, or
    /// what it aliases.
    pub fn refs(&self) -> Vec<&TypeRef> {
        match self {
            TypeKind::Struct(s) => {
                let mut refs: Vec<&TypeRef> = s.fields.iter().map(|f| &f.ty).collect();
                if let Some(Additional::Map(ty)) = &s.additional {
                    refs.push(ty);
                }
                refs
            }
            TypeKind::Union(u) => u.variants.iter().map(|v| &v.ty).collect(),
            TypeKind::Alias(ty) | TypeKind::Newtype(ty) => vec![ty],
            TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => Vec::new(),
        }
    }

    /// The one value a one-value enum holds (a `const`, a union's tag): a JSON string or integer.
    pub fn only_value(&self) -> Option<serde_json::Value> {
        match self {
            TypeKind::StringEnum(e) if e.variants.len() == 1 => {
                Some(serde_json::Value::from(e.variants[0].value.as_str()))
            }
            TypeKind::IntEnum(e) if e.variants.len() == 1 => {
                Some(serde_json::Value::from(e.variants[0].value))
            }
            _ => None,
        }
    }
}

/// An object schema with declared properties.
#[derive(Debug, Clone, Serialize)]
pub struct Struct {
    /// One per entry of `properties` (over every member of an `allOf`), in document order, and a
    /// flattened one for a `oneOf`/`anyOf` declared beside the properties.
    pub fields: Vec<Field>,
    /// Extra properties: `None` ignores them, `Some(Deny)` rejects them, `Some(Map(t))` keeps them.
    pub additional: Option<Additional>,
}

/// What a struct does with properties it does not declare (its `additionalProperties`);
/// `true` or absent is `None` in [`Struct::additional`]: they are ignored.
#[derive(Debug, Clone, Serialize)]
pub enum Additional {
    /// `additionalProperties: false`: decoding an object with an undeclared property fails.
    Deny,
    /// `additionalProperties: {schema}`: undeclared properties are kept, in a map of values of
    /// this type.
    Map(TypeRef),
}

/// One property of an object schema: a field of the generated struct.
#[derive(Debug, Clone, Serialize)]
pub struct Field {
    /// The property name on the wire.
    pub wire_name: String,
    /// The Rust field name, assigned by `naming`.
    pub name: String,
    /// The type of the property's value ([`TypeRef::Nullable`] when it may be `null`). Whether it
    /// may be absent is [`Field::required`], not part of the type.
    pub ty: TypeRef,
    /// The property is in the object's `required` list (unless `build` relaxed a read-only or
    /// write-only one, see [`Field::read_only`]). An optional field is an `Option`, or takes its
    /// [`Field::default`] when absent.
    pub required: bool,
    /// The property schema's `description`, else its `title`, with any note `build` adds (a
    /// relaxed read-only or write-only property).
    pub doc: Option<String>,
    /// The property schema's `default`: an optional field that has one decodes to it when the
    /// property is absent, and its doc shows it.
    pub default: Option<serde_json::Value>,
    /// The property's validation keywords, checked by the generated `Validate` impl.
    pub constraints: Constraints,
    /// `readOnly` on the property, or on the component schema it refers to. A required read-only
    /// property of a struct that a request body reaches is made optional (see `build::access`).
    pub read_only: bool,
    /// `writeOnly` on the property, or on the component schema it refers to. A required
    /// write-only property of a struct that a response body reaches is made optional.
    pub write_only: bool,
    /// `deprecated: true` on the property: the field is marked `#[deprecated]`.
    pub deprecated: bool,
    /// Set by `build` when the field closes a cycle of direct containment and must be boxed.
    pub boxed: bool,
    /// The field has no property of its own: its value's properties are the struct's (the
    /// `oneOf`/`anyOf` of a schema that also declares properties beside it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flatten: bool,
}

/// The values of an integer enum.
#[derive(Debug, Clone, Serialize)]
pub struct IntEnum {
    /// The Rust integer type of the values, from the schema's `format` read as an integer's
    /// (`int32` gives `I32`, `uint8` gives `U8`; `I64` without an integer format).
    pub repr: Primitive,
    /// One per allowed value, in document order (`null` is left out: it makes the uses nullable).
    pub variants: Vec<IntVariant>,
}

/// One allowed value of an integer enum.
#[derive(Debug, Clone, Serialize)]
pub struct IntVariant {
    /// The Rust variant name. `build` takes it from `x-enum-varnames`/`x-enumNames` or the
    /// `title` of a `const` branch (empty when there is none); `naming` then makes it an
    /// identifier, derived from the value when empty.
    pub name: String,
    /// The value on the wire.
    pub value: i64,
    /// The `description` of the `const` branch the value comes from (`None` in a plain `enum`).
    pub doc: Option<String>,
}

/// The values of a string enum.
#[derive(Debug, Clone, Serialize)]
pub struct StringEnum {
    /// One per allowed value, in document order (`null` is left out: it makes the uses nullable).
    pub variants: Vec<StringVariant>,
}

/// One allowed value of a string enum.
#[derive(Debug, Clone, Serialize)]
pub struct StringVariant {
    /// The Rust variant name. `build` takes it from `x-enum-varnames`/`x-enumNames` or the
    /// `title` of a `const` branch (empty when there is none); `naming` then makes it an
    /// identifier, derived from the value when empty.
    pub name: String,
    /// The string on the wire.
    pub value: String,
    /// The `description` of the `const` branch the value comes from (`None` in a plain `enum`).
    pub doc: Option<String>,
}

/// A `oneOf` or `anyOf` of other shapes. A `null` branch is not a variant: it makes the
/// union's uses nullable instead.
#[derive(Debug, Clone, Serialize)]
pub struct Union {
    /// One per branch: in document order when tagged, else in the order decoding tries them
    /// (most specific first).
    pub variants: Vec<UnionVariant>,
    /// `oneOf` promises exactly one match; `anyOf` at least one. Untagged unions decode as the
    /// first match, their variants in the order `build` gives them (most specific first).
    pub exclusive: bool,
    /// The tag property of an internally tagged union (from `discriminator`, or a property that
    /// every branch fixes to its own constant); each variant then lists its `tags`.
    pub discriminator: Option<String>,
    /// In a tagged union, the variant a tag value no variant lists, or a missing tag, decodes as
    /// (OpenAPI 3.2's `defaultMapping`); it may list no tags of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_variant: Option<usize>,
}

/// One branch of a `oneOf`/`anyOf`: a variant of the generated enum.
#[derive(Debug, Clone, Serialize)]
pub struct UnionVariant {
    /// The Rust variant name, assigned by `naming` from the branch's type (`Pet`, `String`,
    /// `PetList`, `Value`...).
    pub name: String,
    /// The branch's type: a `$ref`'s component, or the type of the inline schema.
    pub ty: TypeRef,
    /// The branch schema's `description` (`None` for a `$ref` branch).
    pub doc: Option<String>,
    /// The branch's own validation keywords (`{type: string, minLength: 1}`).
    pub constraints: Constraints,
    /// Set by `build` when the variant closes a cycle of direct containment, or when it is much
    /// larger than the other variants (clippy's `large_enum_variant`).
    pub boxed: bool,
    /// In an internally tagged union: the values of the tag property that select this variant
    /// (strings, or integers for an implicit integer tag). Empty in an untagged union.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<serde_json::Value>,
}

/// The struct a type is, looking through aliases (`None` for any other shape).
pub fn struct_behind<'a>(types: &'a [TypeDef], ty: &TypeRef) -> Option<&'a Struct> {
    let mut ty = ty;
    for _ in 0..32 {
        let TypeRef::Named(id) = ty else {
            return None;
        };
        match &types[id.0].kind {
            TypeKind::Struct(s) => return Some(s),
            TypeKind::Alias(inner) => ty = inner,
            _ => return None,
        }
    }
    None
}

/// The shape of a value where it is used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum TypeRef {
    /// A named type ([`TypeDef`]): a `$ref` to a component schema, or an inline schema that got
    /// a type of its own.
    Named(TypeId),
    /// A scalar, from the schema's `type` and `format`.
    Primitive(Primitive),
    /// "A number, or a string spelling a number that matches `pattern`", e.g. ASP.NET's
    /// `type: [integer, string]` + `pattern`. Decoded from either, always encoded as the number.
    NumericString {
        /// The numeric type, from `type` and `format` as for [`TypeRef::Primitive`].
        number: Primitive,
        /// The `pattern` a string must match to be read as the number.
        pattern: String,
    },
    /// `type: array`: a list of its `items` type ([`TypeRef::Any`] without `items`).
    Array(Box<TypeRef>),
    /// A JSON object used as a string-keyed map: an object schema without `properties`, whose
    /// values are its `additionalProperties` ([`TypeRef::Any`] for a free-form object).
    Map(Box<TypeRef>),
    /// `null` is allowed too (`nullable: true`, or 3.1's `type: [T, "null"]`): an `Option`.
    Nullable(Box<TypeRef>),
    /// Any JSON value (empty schema, or a construct approximated with a warning).
    Any,
    /// Only `null` (3.1's `type: "null"`): `()`.
    Null,
}

/// A scalar type, from a schema's `type` and `format`. A format the generator does not know
/// falls back to the plain type (`String`, `I64`, `F64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Primitive {
    /// `type: string` without a format below (or with `email`, `uri-reference`...): `String`.
    String,
    /// `type: boolean`: `bool`.
    Bool,
    /// `type: integer, format: int8`: `i8`.
    I8,
    /// `type: integer, format: int16`: `i16`.
    I16,
    /// `format: int32` (of an `integer` or a `number`): `i32`.
    I32,
    /// `type: integer` with `format: int64` or no known format, or `type: number, format: int64`:
    /// `i64`.
    I64,
    /// `type: integer, format: uint8`: `u8`.
    U8,
    /// `type: integer, format: uint16`: `u16`.
    U16,
    /// `type: integer, format: uint32`: `u32`.
    U32,
    /// `type: integer, format: uint64`: `u64`.
    U64,
    /// `type: number, format: float`: `f32`.
    F32,
    /// `type: number` with `format: double` or no known format: `f64`.
    F64,
    /// `format: uuid`: `uuid::Uuid`.
    Uuid,
    /// `format: date-time`: an RFC 3339 timestamp, `chrono::DateTime<Utc>`.
    DateTime,
    /// `format: date`: a calendar date (`2024-05-31`), `chrono::NaiveDate`.
    Date,
    /// `format: binary`: raw bytes (a binary body, a multipart file).
    Bytes,
    /// `format: byte`: bytes that travel as base64 text, decoded on either side.
    Base64,
    /// `format: uri`: an absolute URL (`url::Url`), parsed on either side.
    /// [`crate::formats::apply`] makes it a checked `String` unless the options ask for `url::Url`.
    Url,
}

impl Primitive {
    /// Whether it is an integer type (`I8` to `U64`).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Self::I8
                | Self::I16
                | Self::I32
                | Self::I64
                | Self::U8
                | Self::U16
                | Self::U32
                | Self::U64
        )
    }

    /// Whether it is a floating-point type (`F32` or `F64`).
    pub fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F64)
    }
}

/// Validation keywords that the type itself does not capture.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Constraints {
    /// `minimum` (a 3.1 numeric `exclusiveMinimum` is lowered to it).
    pub minimum: Option<f64>,
    /// `maximum` (a 3.1 numeric `exclusiveMaximum` is lowered to it).
    pub maximum: Option<f64>,
    /// `exclusiveMinimum` (3.0's boolean): the [`Constraints::minimum`] itself is not allowed.
    pub exclusive_minimum: bool,
    /// `exclusiveMaximum` (3.0's boolean): the [`Constraints::maximum`] itself is not allowed.
    pub exclusive_maximum: bool,
    /// `minLength` of a string (`None` for 0).
    pub min_length: Option<usize>,
    /// `maxLength` of a string.
    pub max_length: Option<usize>,
    /// `pattern`: a regular expression a string must match (see [`crate::patterns::Patterns`]).
    pub pattern: Option<String>,
    /// `minItems` of an array, or `minProperties` of a map (`None` for 0).
    pub min_items: Option<usize>,
    /// `maxItems` of an array, or `maxProperties` of a map.
    pub max_items: Option<usize>,
    /// `uniqueItems: true`: no two items of the array may be equal.
    pub unique_items: bool,
    /// Constraints on each element of an array (or value of a map).
    pub items: Option<Box<Constraints>>,
    /// A string format the generated code checks (`email`, `uri`).
    pub format: Option<StringFormat>,
    /// `propertyNames: {pattern}`: every key of a map must match.
    pub key_pattern: Option<String>,
    /// A property the spec requires that decodes as optional (a `writeOnly` one of a schema used
    /// in requests and responses, see `build::access`): `Validate` reports it missing, so the
    /// server still demands it in requests.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub present: bool,
}

/// String formats with a check in the generated code; other formats are documentation only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum StringFormat {
    /// `format: email` or `idn-email`: checked to be an e-mail address.
    Email,
    /// `format: uri` or `iri`: checked to be an absolute URI.
    Uri,
    /// `format: uuid` held as text (see [`crate::formats`]): checked to parse as a UUID.
    Uuid,
    /// `format: date-time` held as text: checked to be an RFC 3339 timestamp.
    DateTime,
    /// `format: date` held as text: checked to be a calendar date.
    Date,
}

impl Constraints {
    /// Whether no keyword is set, so there is nothing to check.
    pub fn is_empty(&self) -> bool {
        self == &Constraints::default()
    }
}

impl Api {
    /// Every type reference of the document: fields, map values, variants and aliases of the
    /// types, then the parameters, bodies and headers of the operations and hooks.
    pub fn type_refs(&self) -> Vec<&TypeRef> {
        let mut refs: Vec<&TypeRef> = self.types.iter().flat_map(|def| def.kind.refs()).collect();
        for op in self.all_operations() {
            refs.extend(op.parameters.iter().map(|p| &p.ty));
            refs.extend(op.body.as_ref().map(|b| &b.ty));
            for r in &op.responses {
                refs.extend(r.body.as_ref().map(|b| &b.ty));
                refs.extend(r.headers.iter().map(|h| &h.ty));
            }
        }
        refs
    }

    /// [`Api::type_refs`], to change them.
    pub fn type_refs_mut(&mut self) -> Vec<&mut TypeRef> {
        let mut refs: Vec<&mut TypeRef> = Vec::new();
        for def in &mut self.types {
            match &mut def.kind {
                TypeKind::Struct(s) => {
                    for f in &mut s.fields {
                        refs.push(&mut f.ty);
                    }
                    if let Some(Additional::Map(ty)) = &mut s.additional {
                        refs.push(ty);
                    }
                }
                TypeKind::Union(u) => refs.extend(u.variants.iter_mut().map(|v| &mut v.ty)),
                TypeKind::Alias(ty) | TypeKind::Newtype(ty) => refs.push(ty),
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {}
            }
        }
        let operations = self
            .operations
            .iter_mut()
            .chain(self.hooks.iter_mut().map(|h| &mut h.operation));
        for op in operations {
            refs.extend(op.parameters.iter_mut().map(|p| &mut p.ty));
            refs.extend(op.body.as_mut().map(|b| &mut b.ty));
            for r in &mut op.responses {
                refs.extend(r.body.as_mut().map(|b| &mut b.ty));
                refs.extend(r.headers.iter_mut().map(|h| &mut h.ty));
            }
        }
        refs
    }

    /// How many places name each type (index: `TypeId`).
    pub fn use_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.types.len()];
        for ty in self.type_refs() {
            ty.each_named(&mut |id| counts[id.0] += 1);
        }
        counts
    }

    /// Removes types nothing names any longer; every `TypeId` after them moves down.
    pub fn remove_types(&mut self, dead: &[TypeId]) {
        if dead.is_empty() {
            return;
        }
        let mut removed = vec![false; self.types.len()];
        for id in dead {
            removed[id.0] = true;
        }
        let mut new_index = Vec::with_capacity(self.types.len());
        let mut next = 0;
        for gone in &removed {
            new_index.push(next);
            next += usize::from(!gone);
        }
        let mut gone = removed.iter();
        self.types.retain(|_| !gone.next().is_some_and(|g| *g));
        for ty in self.type_refs_mut() {
            ty.each_named_mut(&mut |id| {
                debug_assert!(!removed[id.0], "a removed type is still named");
                id.0 = new_index[id.0];
            });
        }
    }

    /// Whether a type, parameter, body or header anywhere in the document uses `p`.
    pub fn uses(&self, p: Primitive) -> bool {
        self.type_refs().into_iter().any(|ty| ty.mentions(p))
    }
}

impl Api {
    /// `ty` with aliases and nullability looked through.
    pub fn resolve<'t>(&'t self, mut ty: &'t TypeRef) -> &'t TypeRef {
        for _ in 0..16 {
            match self.unalias(ty) {
                TypeRef::Nullable(inner) => ty = inner,
                other => return other,
            }
        }
        ty
    }

    /// `ty` with aliases looked through, not nullability (16 levels at most, as a malformed
    /// document's aliases may form a cycle).
    pub fn unalias<'t>(&'t self, mut ty: &'t TypeRef) -> &'t TypeRef {
        for _ in 0..16 {
            match ty {
                TypeRef::Named(id) => match &self.types[id.0].kind {
                    TypeKind::Alias(inner) => ty = inner,
                    _ => return ty,
                },
                _ => return ty,
            }
        }
        ty
    }

    /// The size of the Rust value of `ty` (see [`size_estimate`]).
    pub fn size_estimate(&self, ty: &TypeRef) -> usize {
        size_estimate(&self.types, ty)
    }
}

/// The size in bytes of the Rust value of `ty` on a 64-bit target, by what the generated crates
/// make of it with the default options: enough to tell a large payload from a small one, as
/// clippy's `large_enum_variant` compares them (the build boxes a union's large variants, a server
/// allows the lint on its large responses, a client boxes a large error body). It is the one
/// estimate: the build and the emitters ask it alike.
///
/// It follows rustc's layout where that is plain: a struct is its fields reordered, padded to its
/// alignment; an `Option` costs nothing around a type with a niche (a `String`, a `Box`, an enum,
/// a struct holding one) and its alignment around one without. A type met again inside itself
/// counts as the pointer it sits behind (cycles are boxed), as does a box. What it does not know
/// it takes on the large side: a union's enum is its largest variant, plus a tag unless that
/// variant has a niche to hold it. `serde_json::Value` is 32 bytes as the generated crates declare
/// `serde_json`; a build that turns on its `preserve_order` (this repository's workspace does)
/// makes it 72.
pub fn size_estimate(types: &[TypeDef], ty: &TypeRef) -> usize {
    layout(types, ty, &mut Vec::new()).size
}

/// What [`size_estimate`] knows of a type's layout.
#[derive(Debug, Clone, Copy)]
struct Layout {
    size: usize,
    align: usize,
    /// Some bit pattern is not a value (a null pointer, a `bool`'s 2, an enum's unused tag), so an
    /// `Option` of it is no larger.
    niche: bool,
}

impl Layout {
    const fn new(size: usize, align: usize, niche: bool) -> Layout {
        Layout { size, align, niche }
    }

    /// A pointer (`Box`, or a type met again inside itself).
    const POINTER: Layout = Layout::new(8, 8, true);

    /// `Option<Self>`.
    fn optional(self) -> Layout {
        match self.niche {
            true => self,
            false => Layout::new(
                padded(self.size + self.align, self.align),
                self.align,
                false,
            ),
        }
    }
}

/// `size` rounded up to a multiple of `align`.
fn padded(size: usize, align: usize) -> usize {
    size.div_ceil(align.max(1)) * align.max(1)
}

/// The layout of a primitive's Rust type (`uuid::Uuid`, `chrono::DateTime<Utc>` and `url::Url`
/// where the options keep them; the unit tests and tests/it/type_sizes.rs check these against
/// `size_of`, and `url::Url` measured 88 bytes).
fn primitive_layout(p: Primitive) -> Layout {
    match p {
        Primitive::Bool => Layout::new(1, 1, true),
        Primitive::I8 | Primitive::U8 => Layout::new(1, 1, false),
        Primitive::I16 | Primitive::U16 => Layout::new(2, 2, false),
        Primitive::I32 | Primitive::U32 | Primitive::F32 => Layout::new(4, 4, false),
        Primitive::I64 | Primitive::U64 | Primitive::F64 => Layout::new(8, 8, false),
        Primitive::Date => Layout::new(4, 4, true),
        Primitive::DateTime => Layout::new(12, 4, true),
        Primitive::Uuid => Layout::new(16, 1, false),
        // `String`, and `bytes::Base64`, a `Vec<u8>`.
        Primitive::String | Primitive::Base64 => Layout::new(24, 8, true),
        // `file::File`: its bytes, file name and content type.
        Primitive::Bytes => Layout::new(72, 8, true),
        Primitive::Url => Layout::new(88, 8, true),
    }
}

/// The layout of `ty`, with the named types being measured.
fn layout(types: &[TypeDef], ty: &TypeRef, visiting: &mut Vec<TypeId>) -> Layout {
    match ty {
        TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => primitive_layout(*p),
        // `Vec` (its pointer is never null); `BTreeMap` (its root's is).
        TypeRef::Array(_) => Layout::new(24, 8, true),
        TypeRef::Map(_) => Layout::new(24, 8, false),
        TypeRef::Nullable(inner) => layout(types, inner, visiting).optional(),
        TypeRef::Any => Layout::new(32, 8, true),
        TypeRef::Null => Layout::new(0, 1, false),
        TypeRef::Named(id) => {
            if visiting.contains(id) {
                return Layout::POINTER;
            }
            visiting.push(*id);
            let measured = named_layout(types, &types[id.0].kind, visiting);
            visiting.pop();
            measured
        }
    }
}

fn named_layout(types: &[TypeDef], kind: &TypeKind, visiting: &mut Vec<TypeId>) -> Layout {
    match kind {
        TypeKind::Struct(s) => {
            let mut fields: Vec<Layout> = (s.fields.iter())
                .map(|f| match f.boxed {
                    true => Layout::POINTER,
                    false if f.required => layout(types, &f.ty, visiting),
                    false => layout(types, &f.ty, visiting).optional(),
                })
                .collect();
            if matches!(s.additional, Some(Additional::Map(_))) {
                // The others, a `BTreeMap`.
                fields.push(layout(
                    types,
                    &TypeRef::Map(Box::new(TypeRef::Null)),
                    visiting,
                ));
            }
            // rustc orders the fields to leave padding only at the end.
            let align = fields.iter().map(|f| f.align).max().unwrap_or(1);
            let size = padded(fields.iter().map(|f| f.size).sum(), align);
            Layout::new(size, align, fields.iter().any(|f| f.niche))
        }
        // An enum of more than one value is open: its `Unknown` variant holds a `String` (whose
        // niche holds the tag) or the integer (after a tag as wide).
        TypeKind::StringEnum(e) => match e.variants.len() {
            0 | 1 => Layout::new(0, 1, false),
            _ => Layout::new(24, 8, true),
        },
        TypeKind::IntEnum(e) => {
            let repr = primitive_layout(e.repr);
            match e.variants.len() {
                0 | 1 => Layout::new(repr.size, repr.align, true),
                _ => Layout::new(2 * repr.size, repr.align, true),
            }
        }
        TypeKind::Union(u) => {
            let variants: Vec<Layout> = (u.variants.iter())
                .map(|v| match v.boxed {
                    true => Layout::POINTER,
                    false => layout(types, &v.ty, visiting),
                })
                .collect();
            let align = variants.iter().map(|v| v.align).max().unwrap_or(1);
            let largest = variants.iter().max_by_key(|v| v.size);
            let size = match largest {
                None => 0,
                Some(v) if v.niche => padded(v.size, align),
                Some(v) => padded(v.size + align, align),
            };
            Layout::new(size, align, true)
        }
        TypeKind::Alias(inner) | TypeKind::Newtype(inner) => layout(types, inner, visiting),
    }
}

/// What the document asks of the generated crates' runtimes, as the emitters query it.
/// How a multipart property (or an item of an array property) travels: a file, text, a value's
/// text (a number, a boolean), or JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    /// A file's bytes (`format: binary`).
    File,
    /// A string, sent as it is.
    Text,
    /// A number or other primitive, sent as its text.
    Value,
    /// Anything else, sent as JSON text.
    Json,
}

impl Api {
    /// How a value of `ty` travels as one part of a multipart body (see [`PartKind`]).
    pub fn part_kind(&self, ty: &TypeRef) -> PartKind {
        match ty {
            TypeRef::Primitive(Primitive::Bytes) => PartKind::File,
            TypeRef::Primitive(Primitive::String) => PartKind::Text,
            TypeRef::Primitive(_) | TypeRef::NumericString { .. } => PartKind::Value,
            TypeRef::Named(id) => match &self.types[id.0].kind {
                TypeKind::Alias(inner) => self.part_kind(inner),
                TypeKind::StringEnum(_) => PartKind::Text,
                TypeKind::IntEnum(_) => PartKind::Value,
                _ => PartKind::Json,
            },
            _ => PartKind::Json,
        }
    }

    /// The properties of a `multipart/form-data` body whose schema is an object: the client sends
    /// and the server reads one part (or one per item) per property. `None` for other schemas,
    /// which stay raw (a `reqwest` form, a `RawBody`).
    pub fn multipart_fields(&self, ty: &TypeRef) -> Option<&[Field]> {
        match ty {
            TypeRef::Named(id) => match &self.types[id.0].kind {
                TypeKind::Struct(s) if !s.fields.is_empty() => Some(&s.fields),
                TypeKind::Alias(inner) => self.multipart_fields(inner),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the server needs its `deep_form` runtime: a form body with `deepObject`-encoded
    /// properties, or an object parameter (whose properties may nest).
    pub fn has_deep_form(&self) -> bool {
        self.operations.iter().any(|op| {
            op.body.as_ref().is_some_and(|b| self.is_deep_form(b))
                || op
                    .parameters
                    .iter()
                    .any(|p| !p.json && self.is_object(&p.ty))
        })
    }

    /// Whether a type is a struct or map (which an object parameter whose properties nest is read
    /// as a tree by `deep_form`).
    fn is_object(&self, ty: &TypeRef) -> bool {
        match self.resolve(ty) {
            TypeRef::Named(id) => matches!(self.types[id.0].kind, TypeKind::Struct(_)),
            TypeRef::Map(_) => true,
            _ => false,
        }
    }

    /// Whether a form body is read by the server's `deep_form` runtime: one with
    /// `deepObject`-encoded properties (`meta[key]=value`), or one with a required array, which a
    /// form cannot spell when empty (see [`Api::form_lists`]).
    pub fn is_deep_form(&self, body: &RequestBody) -> bool {
        body.media == Media::Form
            && (body
                .encoding
                .iter()
                .any(|e| e.style == ParamStyle::DeepObject)
                || !self.form_lists(body).is_empty())
    }

    /// The required array properties of a form body: an empty list has no pairs on the wire, so
    /// the server reads one that is absent as empty.
    pub fn form_lists(&self, body: &RequestBody) -> Vec<&str> {
        let Some(fields) = self.multipart_fields(self.resolve(&body.ty)) else {
            return Vec::new();
        };
        fields
            .iter()
            .filter(|f| f.required && matches!(self.resolve(&f.ty), TypeRef::Array(_)))
            .map(|f| f.wire_name.as_str())
            .collect()
    }

    /// Whether any operation answers a stream (`text/event-stream`, JSON Lines...): the crates
    /// then get the `stream` runtime.
    pub fn has_streams(&self) -> bool {
        self.operations
            .iter()
            .any(|op| op.responses.iter().any(|r| r.stream.is_some()))
    }

    /// Whether any operation has a multipart body read part by part.
    pub fn has_multipart_struct(&self) -> bool {
        self.operations.iter().any(|op| {
            op.body.as_ref().is_some_and(|b| {
                b.media == Media::Multipart && self.multipart_fields(&b.ty).is_some()
            })
        })
    }
}

impl TypeRef {
    /// Calls `f` with every type the reference names, through arrays, maps and nullables.
    pub fn each_named(&self, f: &mut impl FnMut(TypeId)) {
        match self {
            TypeRef::Named(id) => f(*id),
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                inner.each_named(f)
            }
            _ => {}
        }
    }

    fn each_named_mut(&mut self, f: &mut impl FnMut(&mut TypeId)) {
        match self {
            TypeRef::Named(id) => f(id),
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                inner.each_named_mut(f)
            }
            _ => {}
        }
    }
}

impl TypeRef {
    /// The type a nullable reference wraps; any other reference as it is.
    pub fn strip_nullable(&self) -> &TypeRef {
        match self {
            TypeRef::Nullable(inner) => inner,
            other => other,
        }
    }

    fn mentions(&self, p: Primitive) -> bool {
        match self {
            TypeRef::Primitive(q) => *q == p,
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                inner.mentions(p)
            }
            _ => false,
        }
    }

    pub(crate) fn replace_primitive(&mut self, from: Primitive, to: Primitive) {
        match self {
            TypeRef::Primitive(p) if *p == from => *p = to,
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                inner.replace_primitive(from, to)
            }
            _ => {}
        }
    }
}

/// An operation: one method of a path item under `paths`, or of a hook (see [`Hook`]).
#[derive(Debug, Clone, Serialize)]
pub struct Operation {
    /// The spec's `operationId`, or one derived from method and path.
    pub id: String,
    /// Rust function name (snake case), assigned by `naming`.
    pub name: String,
    /// The HTTP method: the key of the path item the operation sits under.
    pub method: Method,
    /// The path template as the document spells it (`/pets/{petId}`), with any query it carries
    /// (see [`Operation::path_only`]); a hook's is `/{name}`.
    pub path: String,
    /// The path split at `/` into literal and templated segments, without its query.
    pub segments: Vec<PathSegment>,
    /// Query pairs the path itself carries (`/responses/{id}?beta=true`): always sent, and what
    /// tells the operation from one at the same path without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub query: Vec<(String, String)>,
    /// The JSON pointer of the operation in the document (`/paths/~1pets/get`), for diagnostics.
    pub pointer: String,
    /// `summary`: the first paragraph of the generated methods' docs.
    pub summary: Option<String>,
    /// `description`: the generated methods' docs, after the summary.
    pub description: Option<String>,
    /// `tags`, as the operation lists them.
    pub tags: Vec<String>,
    /// `deprecated: true`: the generated client method is marked `#[deprecated]`, and the docs
    /// say so.
    pub deprecated: bool,
    /// The path item's `parameters` and the operation's own, which replace those of the same
    /// `name` and `in`, `$ref`s resolved; then a string path parameter for each template name
    /// that neither declares (with a warning).
    pub parameters: Vec<Parameter>,
    /// `requestBody`, in the media type the generated code speaks; `None` without one.
    pub body: Option<RequestBody>,
    /// `responses`: the status codes and ranges in document order, then `default`.
    pub responses: Vec<Response>,
    /// The operation's `security`, else the document's: alternatives, any one of which satisfies.
    /// An empty requirement means "no credentials needed"; an empty list (no `security`, or
    /// `security: []`), that none are asked for.
    pub security: Vec<SecurityRequirement>,
    /// The header carrying an idempotency key (`Idempotency-Key`): a header parameter of that
    /// name (any case), or the header the operation's `x-idempotency-key` extension names
    /// (`true`: `Idempotency-Key`). The client sends a fresh key per call unless the caller set
    /// one, keeps it across retries, and so retries the call like a `GET`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

/// An HTTP method: a key of a Path Item Object, or of 3.2's `additionalOperations`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Method {
    /// `get`.
    Get,
    /// `put`.
    Put,
    /// `post`.
    Post,
    /// `delete`.
    Delete,
    /// `options`.
    Options,
    /// `head`.
    Head,
    /// `patch`.
    Patch,
    /// `trace`.
    Trace,
    /// `query` (OpenAPI 3.2): a safe, idempotent method with a body.
    Query,
    /// A key of `additionalOperations` (OpenAPI 3.2), spelled as it is sent (`LINK`, `COPY`).
    Custom(String),
}

impl Method {
    /// The method as HTTP spells it (`GET`).
    pub fn as_str(&self) -> &str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
            Method::Query => "QUERY",
            Method::Custom(name) => name,
        }
    }

    /// Safe to repeat: the client may retry these on connection errors. A custom method's
    /// semantics are unknown, so it is not.
    pub fn is_idempotent(&self) -> bool {
        !matches!(self, Method::Post | Method::Patch | Method::Custom(_))
    }

    /// Whether axum's method router names it (`get`, `post`...); `QUERY` and custom methods are
    /// routed by the route's fallback.
    pub fn is_standard(&self) -> bool {
        !matches!(self, Method::Query | Method::Custom(_))
    }
}

/// One `/`-separated segment of a path template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum PathSegment {
    /// Fixed text (`pets`), matched as it is.
    Literal(String),
    /// A template expression that is the whole segment (`{petId}`): the name of a path parameter.
    Param(String),
    /// Text and parameters in one segment (`{sid}.json`, `{name}.{ext}`, `{id}:cancel`):
    /// literals and parameters alternate, never two parameters side by side.
    Mixed(Vec<SegmentPart>),
}

/// A piece of a [`PathSegment::Mixed`] segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum SegmentPart {
    /// Fixed text around the parameters (`.`, `:cancel`).
    Literal(String),
    /// A template expression (`{name}`): the name of a path parameter.
    Param(String),
}

impl Operation {
    /// The path without the query it may carry.
    pub fn path_only(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }
}

/// A literal path text as the client sends it and the server's router matches it: percent-encoded
/// like a parameter would be, but keeping sub-delimiters such as `:` and `@` that paths carry as
/// they are.
pub fn encode_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@%".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

impl PathSegment {
    /// The parameter names the segment holds, in order.
    pub fn params(&self) -> Vec<&str> {
        match self {
            PathSegment::Literal(_) => Vec::new(),
            PathSegment::Param(name) => vec![name.as_str()],
            PathSegment::Mixed(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    SegmentPart::Param(name) => Some(name.as_str()),
                    SegmentPart::Literal(_) => None,
                })
                .collect(),
        }
    }

    /// The literal texts around a mixed segment's parameters: one more than it has parameters
    /// (the first and last may be empty).
    pub fn literals(&self) -> Vec<&str> {
        let mut literals = vec![""];
        if let PathSegment::Mixed(parts) = self {
            for part in parts {
                match part {
                    SegmentPart::Literal(text) => *literals.last_mut().unwrap() = text,
                    SegmentPart::Param(_) => literals.push(""),
                }
            }
        }
        literals
    }
}

/// A Parameter Object of an operation or of its path item: a value the request carries in
/// its path, query string, headers or cookies.
#[derive(Debug, Clone, Serialize)]
pub struct Parameter {
    /// `name`: the parameter's name in the request.
    pub wire_name: String,
    /// Rust name, assigned by `naming`.
    pub name: String,
    /// `in`: the part of the request that carries the parameter.
    pub location: ParamLocation,
    /// `required` (always true for a path parameter): an optional parameter is an `Option` in
    /// the generated code.
    pub required: bool,
    /// The type of its `schema`, or of the schema of its one `content` entry (`String` when that
    /// has none).
    pub ty: TypeRef,
    /// The `default` of its schema: the server fills it in when the request leaves the parameter
    /// out, and the client's docs show it.
    pub default: Option<serde_json::Value>,
    /// Example values the document gives, best first: the parameter's `example` and `examples`,
    /// its content's, then its schema's. The client's doc example uses the first one that fits
    /// the type (see [`crate::samples::Sampler::fits`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<serde_json::Value>,
    /// `description`: the doc of the parameter in the generated client and server.
    pub doc: Option<String>,
    /// The validation keywords of its schema, which the generated server checks.
    pub constraints: Constraints,
    /// `explode` as the spec states it or as the style implies (`form`: true, others: false).
    pub explode: bool,
    /// `style`, left out of snapshots when it is the location's default.
    #[serde(skip_serializing_if = "ParamStyle::is_default")]
    pub style: ParamStyle,
    /// `allowReserved` (query only): reserved characters are sent as they are.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_reserved: bool,
    /// `content: {application/json: ...}` instead of a schema: the value's text is its JSON.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub json: bool,
    /// `deprecated: true`: the client's setter for it is marked `#[deprecated]`, and the server's
    /// docs say so.
    pub deprecated: bool,
}

/// A parameter's `style` (OpenAPI's serialization rules for path, query, header and cookie; Style
/// Values, OpenAPI 3.1 §4.8.12.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ParamStyle {
    /// `simple`: comma-separated values (`1,2,3`); the default in paths and headers.
    Simple,
    /// `label`: values after a `.` (`.1.2.3` exploded, `.1,2,3` not); paths only.
    Label,
    /// `matrix`: `;name=value` pairs (`;id=1;id=2` exploded, `;id=1,2` not); paths only.
    Matrix,
    /// `form`: `name=value` pairs (`id=1&id=2` exploded, `id=1,2` not); the default in queries
    /// and cookies.
    Form,
    /// `spaceDelimited`: the items of an array joined by spaces; queries only.
    SpaceDelimited,
    /// `pipeDelimited`: the items of an array joined by `|`; queries only.
    PipeDelimited,
    /// `deepObject`: an object's properties as `name[property]=value` pairs; queries only.
    DeepObject,
}

impl ParamStyle {
    /// The default style of path and header parameters (`simple`) and of query and cookie ones
    /// (`form`).
    pub fn is_default(&self) -> bool {
        matches!(self, ParamStyle::Simple | ParamStyle::Form)
    }

    /// The name as OpenAPI spells it (`spaceDelimited`).
    pub fn spec_name(self) -> String {
        let variant = self.variant();
        let mut name = variant[..1].to_ascii_lowercase();
        name.push_str(&variant[1..]);
        name
    }

    /// The name of the runtime's `style::Style` variant.
    pub fn variant(self) -> &'static str {
        match self {
            ParamStyle::Simple => "Simple",
            ParamStyle::Label => "Label",
            ParamStyle::Matrix => "Matrix",
            ParamStyle::Form => "Form",
            ParamStyle::SpaceDelimited => "SpaceDelimited",
            ParamStyle::PipeDelimited => "PipeDelimited",
            ParamStyle::DeepObject => "DeepObject",
        }
    }
}

/// Where a parameter or an API key travels: its `in`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ParamLocation {
    /// `in: path`: a template expression of the path.
    Path,
    /// `in: query`: the query string.
    Query,
    /// `in: header`: a request header.
    Header,
    /// `in: cookie`: a pair of the `Cookie` header.
    Cookie,
}

impl ParamLocation {
    /// The spec's `in` value.
    pub fn word(self) -> &'static str {
        match self {
            ParamLocation::Path => "path",
            ParamLocation::Query => "query",
            ParamLocation::Header => "header",
            ParamLocation::Cookie => "cookie",
        }
    }
}

/// An operation's `requestBody` (its `$ref` resolved), in the one media type of its `content`
/// that the generated code speaks.
#[derive(Debug, Clone, Serialize)]
pub struct RequestBody {
    /// The preferred media type of `content`: JSON first, then form, multipart, text, and any
    /// other as bytes.
    pub media: Media,
    /// The type of that media type's `schema`: bytes for a binary media type; without a schema,
    /// `String` for text and any JSON value otherwise.
    pub ty: TypeRef,
    /// `required`: an optional body is an `Option` in the generated code.
    pub required: bool,
    /// `description`: the doc of the body in the generated client and server.
    pub doc: Option<String>,
    /// Other media types the spec also lists for the body (not generated; kept for reporting).
    pub alternatives: Vec<String>,
    /// A form body's Encoding Objects that change how a property is written (style, explode,
    /// allowReserved); properties without one use `form`, exploded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub encoding: Vec<PropertyEncoding>,
    /// Example values the document gives, best first: the media type's `example` and
    /// `examples`, then its schema's (as for [`Parameter::examples`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<serde_json::Value>,
}

/// How one property of a form body is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PropertyEncoding {
    /// The property's name: its key under `encoding`.
    pub property: String,
    /// `style` (`form` when absent).
    pub style: ParamStyle,
    /// `explode` (always true for `form`, its default).
    pub explode: bool,
    /// `allowReserved`: reserved characters are sent as they are.
    pub allow_reserved: bool,
}

/// The kind of a media type, which decides how a body is written and read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Media {
    /// `application/json`, `text/json`, any `+json` type, and `*/*`: JSON.
    Json,
    /// `application/x-www-form-urlencoded`: `name=value` pairs.
    Form,
    /// `multipart/form-data`: one part per property.
    Multipart,
    /// Any other `text/*` type: the body is text.
    Text,
    /// Any other media type: raw bytes. Holds the media type, lowercase and without parameters.
    Binary(String),
}

/// An entry of an operation's `responses` (its `$ref` resolved).
#[derive(Debug, Clone, Serialize)]
pub struct Response {
    /// Its key: a status code, a range (`2XX`) or `default`.
    pub status: Status,
    /// `description` (`None` when empty).
    pub doc: Option<String>,
    /// Its `content`, in the media type the generated code speaks; `None` without content.
    pub body: Option<ResponseBody>,
    /// `headers` (`$ref`s resolved), in document order.
    pub headers: Vec<ResponseHeader>,
    /// A streaming media type of its `content` (`text/event-stream`, JSON Lines, NDJSON,
    /// `application/json-seq`), beside `body` or instead of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<ResponseStream>,
}

/// A response body that is a sequence of items, each decoded as it arrives.
#[derive(Debug, Clone, Serialize)]
pub struct ResponseStream {
    /// How items are framed.
    pub format: StreamFormat,
    /// The media type, lowercase and without parameters (`application/x-ndjson`).
    pub media: String,
    /// The type of one item: the media type's `schema` in 3.0 and 3.1 documents (which describe one
    /// event, as OpenAI's does), its `itemSchema` in 3.2 ones (an event's `data` through its
    /// `contentSchema` for `text/event-stream`).
    pub item: TypeRef,
}

/// The framing of a streamed body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum StreamFormat {
    /// `text/event-stream`: Server-Sent Events whose `data` is one JSON item.
    EventStream,
    /// `application/jsonl`, `application/x-ndjson` (and `x-jsonlines`): one JSON item a line.
    JsonLines,
    /// `application/json-seq` (RFC 7464): each item after a record separator (0x1E).
    JsonSeq,
}

impl StreamFormat {
    /// The framing of a media type (lowercase, without parameters), if it is a streaming one.
    pub fn of(media: &str) -> Option<StreamFormat> {
        match media {
            "text/event-stream" => Some(StreamFormat::EventStream),
            "application/jsonl"
            | "application/x-ndjson"
            | "application/x-jsonlines"
            | "application/jsonlines" => Some(StreamFormat::JsonLines),
            "application/json-seq" => Some(StreamFormat::JsonSeq),
            _ => None,
        }
    }
}

/// The body of a response, in the preferred media type of its `content`.
#[derive(Debug, Clone, Serialize)]
pub struct ResponseBody {
    /// The preferred media type, as for a request body (see [`RequestBody::media`]).
    pub media: Media,
    /// The type of that media type's `schema` (bytes for a binary media type).
    pub ty: TypeRef,
    /// The documented media type of a text body (`text/html`), served as it is; `None` for
    /// `text/plain` and the other kinds, whose media type `media` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_type: Option<String>,
}

/// A Header Object of a response (its `$ref` resolved).
#[derive(Debug, Clone, Serialize)]
pub struct ResponseHeader {
    /// The header's name: its key under `headers`.
    pub wire_name: String,
    /// `required`: the response always carries the header.
    pub required: bool,
    /// The type of its `schema` (`String` for a header described by `content`).
    pub ty: TypeRef,
    /// `description`: the doc of the header's field in the generated response types.
    pub doc: Option<String>,
}

/// The key of an entry of `responses`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Status {
    /// A status code (`200`, `404`).
    Code(u16),
    /// `2XX` and friends: the first digit.
    Range(u16),
    /// `default`: any status no other entry covers.
    Default,
}

impl Status {
    /// Whether it means success: a `2xx` code or the `2XX` range (never `default`).
    pub fn is_success(self) -> bool {
        match self {
            Status::Code(c) => (200..300).contains(&c),
            Status::Range(r) => r == 2,
            Status::Default => false,
        }
    }

    /// As the spec writes it: `200`, `4XX`, `default`.
    pub fn key(self) -> String {
        match self {
            Status::Code(code) => code.to_string(),
            Status::Range(digit) => format!("{digit}XX"),
            Status::Default => "default".to_owned(),
        }
    }
}

/// A Security Requirement Object: schemes that grant access together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecurityRequirement {
    /// Names of schemes that must all be satisfied; empty means anonymous access is allowed.
    pub schemes: Vec<String>,
}

/// A Security Scheme Object of `components.securitySchemes`.
#[derive(Debug, Clone, Serialize)]
pub struct SecurityScheme {
    /// Its key under `components.securitySchemes`, which security requirements name.
    pub name: String,
    /// How a request satisfies it.
    pub kind: SecurityKind,
    /// `description` (the generated client shows that of a client-credentials scheme).
    pub doc: Option<String>,
    /// OAuth 2.0's device authorization flow (RFC 8628, OpenAPI 3.2's `deviceAuthorization`),
    /// which the generated client can run to obtain a bearer token.
    pub device_flow: Option<DeviceFlow>,
}

/// An OAuth 2.0 device authorization flow (`flows.deviceAuthorization`).
#[derive(Debug, Clone, Serialize)]
pub struct DeviceFlow {
    /// `deviceAuthorizationUrl`: where the client asks for a device and user code.
    pub device_authorization_url: String,
    /// `tokenUrl`: where the client polls for the token.
    pub token_url: String,
}

/// How a security scheme is satisfied, as far as the generated code acts on it.
#[derive(Debug, Clone, Serialize)]
pub enum SecurityKind {
    /// `Authorization: Bearer` (http bearer, or OAuth 2.0 / OpenID Connect access tokens).
    Bearer,
    /// OAuth 2.0 with a `clientCredentials` flow: the generated client can fetch its own access
    /// tokens; they are sent, and checked, as bearer tokens.
    OAuth2ClientCredentials {
        /// `flows.clientCredentials.tokenUrl`: where the client asks for tokens.
        token_url: String,
    },
    /// `type: http, scheme: basic`: `Authorization: Basic` with a user name and password.
    Basic,
    /// `type: apiKey`: a key sent in a header, a query parameter or a cookie. The generated
    /// server hands it to the operation, which checks it.
    ApiKey {
        /// `in`: where the key travels.
        location: ParamLocation,
        /// `name`: the header, query parameter or cookie that holds the key.
        name: String,
    },
    /// An HTTP scheme other than `bearer` and `basic` (`http digest`...), which generated code
    /// cannot act on; holds `http` and the scheme's name.
    Other(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::mem::size_of;

    /// The fields of the runtime's `file::File` (templates/models/file.rs).
    type File = (Option<String>, Option<String>, Vec<u8>);

    fn estimate(ty: TypeRef) -> usize {
        size_estimate(&[], &ty)
    }

    /// The sizes [`size_estimate`] gives are the Rust types' own (`uuid`, `chrono` and `url`, not
    /// dependencies here, are checked in tests/it/type_sizes.rs).
    #[test]
    fn the_estimate_of_a_type_is_the_size_of_its_rust_type() {
        use Primitive::*;
        for (p, size) in [
            (Bool, size_of::<bool>()),
            (I8, size_of::<i8>()),
            (U8, size_of::<u8>()),
            (I16, size_of::<i16>()),
            (U16, size_of::<u16>()),
            (I32, size_of::<i32>()),
            (U32, size_of::<u32>()),
            (F32, size_of::<f32>()),
            (I64, size_of::<i64>()),
            (U64, size_of::<u64>()),
            (F64, size_of::<f64>()),
            (String, size_of::<std::string::String>()),
            (Base64, size_of::<Vec<u8>>()),
            (Bytes, size_of::<File>()),
        ] {
            assert_eq!(estimate(TypeRef::Primitive(p)), size, "{p:?}");
        }
        let string = || Box::new(TypeRef::Primitive(String));
        assert_eq!(estimate(TypeRef::Array(string())), size_of::<Vec<u8>>());
        assert_eq!(
            estimate(TypeRef::Map(string())),
            size_of::<BTreeMap<std::string::String, u8>>()
        );
        assert_eq!(estimate(TypeRef::Null), size_of::<()>());
        assert_eq!(
            estimate(TypeRef::Any),
            32,
            "serde_json::Value without preserve_order"
        );
        // An `Option` around a type with a niche costs nothing, around one without its alignment.
        let nullable = |p| estimate(TypeRef::Nullable(Box::new(TypeRef::Primitive(p))));
        assert_eq!(nullable(String), size_of::<Option<std::string::String>>());
        assert_eq!(nullable(Bool), size_of::<Option<bool>>());
        assert_eq!(nullable(I64), size_of::<Option<i64>>());
        assert_eq!(nullable(I32), size_of::<Option<i32>>());
        assert_eq!(nullable(Bytes), size_of::<Option<File>>());
        let map = TypeRef::Nullable(Box::new(TypeRef::Map(string())));
        assert_eq!(
            estimate(map),
            size_of::<Option<BTreeMap<std::string::String, u8>>>()
        );
    }

    /// Structs and unions as the models declare them: fields reordered and padded, `Option`s
    /// around what is not required, an untagged union's tag in its largest variant's niche.
    #[test]
    fn structs_and_unions_are_estimated_at_their_rust_layout() {
        #[allow(dead_code, reason = "only measured")]
        struct Padded {
            a: bool,
            b: i64,
            c: Option<i32>,
            d: Option<std::string::String>,
            e: Option<BTreeMap<std::string::String, i64>>,
        }
        #[allow(dead_code, reason = "only measured")]
        enum TextOrNumber {
            Text(std::string::String),
            Number(i64),
        }
        #[allow(dead_code, reason = "only measured")]
        enum NumberOrPadded {
            Number(i64),
            Padded(Padded),
        }
        let size = estimates(
            "Padded:\n      type: object\n      required: [a, b]\n      properties:\n        \
             a: {type: boolean}\n        b: {type: integer}\n        \
             c: {type: integer, format: int32}\n        d: {type: string}\n        \
             e: {type: object, additionalProperties: {type: integer}}\n    \
             TextOrNumber: {oneOf: [{type: string}, {type: integer}]}\n    \
             NumberOrPadded: {oneOf: [{type: integer}, {$ref: '#/components/schemas/Padded'}]}\n",
        );
        assert_eq!(size("Padded"), size_of::<Padded>());
        assert_eq!(size("TextOrNumber"), size_of::<TextOrNumber>());
        assert_eq!(size("NumberOrPadded"), size_of::<NumberOrPadded>());
    }

    /// The size estimate of each named schema of `schemas` (YAML under `components/schemas`).
    fn estimates(schemas: &str) -> impl Fn(&str) -> usize {
        let document = format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths: {{}}\ncomponents:\n  schemas:\n    {schemas}"
        );
        let (api, _) = crate::load_api(&document).unwrap_or_else(|d| panic!("{d}"));
        move |name: &str| {
            let at = api.types.iter().position(|t| t.name == name).expect(name);
            api.size_estimate(&TypeRef::Named(TypeId(at)))
        }
    }

    /// Enums as `emit::models::enums` renders them: closed with one value, else open, the
    /// `Unknown` variant holding what the document does not list.
    #[test]
    fn an_enum_is_estimated_as_its_open_or_closed_rust_enum() {
        #[allow(dead_code, reason = "only measured")]
        enum OpenText {
            A,
            B,
            Unknown(String),
        }
        #[allow(dead_code, reason = "only measured")]
        enum OpenInt {
            A,
            B,
            Unknown(i32),
        }
        #[allow(dead_code, reason = "only measured")]
        enum Constant {
            A,
        }
        let size = estimates(
            "Two: {type: string, enum: [a, b]}\n    One: {type: string, enum: [a]}\n    \
             TwoInts: {type: integer, format: int32, enum: [1, 2]}\n    \
             OneInt: {type: integer, format: int32, enum: [1]}\n",
        );
        assert_eq!(size("Two"), size_of::<OpenText>());
        assert_eq!(size("One"), size_of::<Constant>());
        assert_eq!(size("TwoInts"), size_of::<OpenInt>());
        assert_eq!(size("OneInt"), size_of::<i32>());
    }
}
