//! The intermediate representation: what the document means, in plain Rust data.
//! Built by `build` from `openapiv3`, named by `naming`, read by the emitters. It knows nothing of either.

use serde::Serialize;

/// Index into [`Api::types`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct TypeId(pub usize);

#[derive(Debug, Clone, Serialize)]
pub struct Api {
    pub title: String,
    pub version: String,
    pub description: Option<String>,
    /// Every named type, in the order it was found (components first, in document order).
    pub types: Vec<TypeDef>,
    pub operations: Vec<Operation>,
    pub security_schemes: Vec<SecurityScheme>,
    /// Webhooks (3.1 `webhooks`) and callbacks (an operation's `callbacks`): requests the API
    /// sends, which its users receive.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<Hook>,
}

/// A request the API sends: an operation whose receiver is the API's user. Its `path` is where
/// the generated receiver routes it (`/{name}`), not the URL it is sent to.
#[derive(Debug, Clone, Serialize)]
pub struct Hook {
    pub kind: HookKind,
    /// The webhook's or the callback's name, as the document spells it.
    pub name: String,
    pub operation: Operation,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum HookKind {
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
    /// The operations, then the hooks' operations: everything that names parameter and body types.
    pub fn all_operations(&self) -> impl Iterator<Item = &Operation> {
        self.operations
            .iter()
            .chain(self.hooks.iter().map(|h| &h.operation))
    }

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
            types: self.types.clone(),
            operations,
            security_schemes: self.security_schemes.clone(),
            hooks: Vec::new(),
        })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TypeDef {
    /// The final Rust name, assigned once by `naming`.
    pub name: String,
    /// Where the schema was found.
    pub pointer: String,
    /// How to name it: the first candidate that is free wins (see `naming`).
    pub name_hint: NameHint,
    pub doc: Option<String>,
    pub kind: TypeKind,
    /// For aliases: the constraints of the aliased schema (a component `Name: {type: string, maxLength: 9}`).
    pub constraints: Constraints,
}

#[derive(Debug, Clone, Serialize)]
pub struct NameHint {
    /// The spec's own name (component key) or a name built from where the schema sits.
    pub base: String,
    /// Names the spec gives explicitly (component keys) are kept before derived ones.
    pub pinned: bool,
    /// A suffix that says where an inline schema was found (`Body`, `Response`, `Param`).
    pub context: Option<String>,
    /// An inline schema's own `title`: its name when free (see `naming`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub enum TypeKind {
    Struct(Struct),
    IntEnum(IntEnum),
    StringEnum(StringEnum),
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

#[derive(Debug, Clone, Serialize)]
pub struct Struct {
    pub fields: Vec<Field>,
    /// Extra properties: `None` ignores them, `Some(Deny)` rejects them, `Some(Map(t))` keeps them.
    pub additional: Option<Additional>,
}

#[derive(Debug, Clone, Serialize)]
pub enum Additional {
    Deny,
    Map(TypeRef),
}

#[derive(Debug, Clone, Serialize)]
pub struct Field {
    /// The property name on the wire.
    pub wire_name: String,
    /// The Rust field name, assigned by `naming`.
    pub name: String,
    pub ty: TypeRef,
    pub required: bool,
    pub doc: Option<String>,
    pub default: Option<serde_json::Value>,
    pub constraints: Constraints,
    pub read_only: bool,
    pub write_only: bool,
    pub deprecated: bool,
    /// Set by `build` when the field closes a cycle of direct containment and must be boxed.
    pub boxed: bool,
    /// The field has no property of its own: its value's properties are the struct's (the
    /// `oneOf`/`anyOf` of a schema that also declares properties beside it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub flatten: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntEnum {
    pub repr: Primitive,
    pub variants: Vec<IntVariant>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntVariant {
    pub name: String,
    pub value: i64,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StringEnum {
    pub variants: Vec<StringVariant>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StringVariant {
    pub name: String,
    pub value: String,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Union {
    pub variants: Vec<UnionVariant>,
    /// `oneOf` promises exactly one match; `anyOf` at least one. Untagged unions decode as the
    /// first match, their variants in the order `build` gives them (most specific first).
    pub exclusive: bool,
    /// The tag property of an internally tagged union (from `discriminator`, or a property that
    /// every branch fixes to its own constant); each variant then lists its `tags`.
    pub discriminator: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UnionVariant {
    pub name: String,
    pub ty: TypeRef,
    pub doc: Option<String>,
    /// The branch's own validation keywords (`{type: string, minLength: 1}`).
    pub constraints: Constraints,
    /// Set by `build` when the variant closes a cycle of direct containment.
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
    Named(TypeId),
    Primitive(Primitive),
    /// "A number, or a string spelling a number that matches `pattern`", e.g. ASP.NET's
    /// `type: [integer, string]` + `pattern`. Decoded from either, always encoded as the number.
    NumericString {
        number: Primitive,
        pattern: String,
    },
    Array(Box<TypeRef>),
    /// A JSON object used as a string-keyed map.
    Map(Box<TypeRef>),
    /// `null` is allowed.
    Nullable(Box<TypeRef>),
    /// Any JSON value (empty schema, or a construct approximated with a warning).
    Any,
    /// Only `null`.
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Primitive {
    String,
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    Uuid,
    DateTime,
    Date,
    /// `format: binary`: raw bytes (a binary body, a multipart file).
    Bytes,
    /// `format: byte`: bytes that travel as base64 text, decoded on either side.
    Base64,
    /// `format: uri`: an absolute URL (`url::Url`), parsed on either side. `Api::uris_as_strings`
    /// turns it back into a checked `String` (the generator's opt-out).
    Url,
}

impl Primitive {
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

    pub fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F64)
    }
}

/// Validation keywords that the type itself does not capture.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Constraints {
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: bool,
    pub exclusive_maximum: bool,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub pattern: Option<String>,
    pub min_items: Option<usize>,
    pub max_items: Option<usize>,
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
    Email,
    Uri,
}

impl Constraints {
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

    /// The opt-out of `url::Url`: every `format: uri` becomes a `String` again (still checked to
    /// be a URI by `Validate`).
    pub fn uris_as_strings(&mut self) {
        for ty in self.type_refs_mut() {
            ty.replace_primitive(Primitive::Url, Primitive::String);
        }
    }

    /// Whether a type, parameter, body or header anywhere in the document uses `p`.
    pub fn uses(&self, p: Primitive) -> bool {
        self.type_refs().into_iter().any(|ty| ty.mentions(p))
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
    fn mentions(&self, p: Primitive) -> bool {
        match self {
            TypeRef::Primitive(q) => *q == p,
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                inner.mentions(p)
            }
            _ => false,
        }
    }

    fn replace_primitive(&mut self, from: Primitive, to: Primitive) {
        match self {
            TypeRef::Primitive(p) if *p == from => *p = to,
            TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
                inner.replace_primitive(from, to)
            }
            _ => {}
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Operation {
    /// The spec's `operationId`, or one derived from method and path.
    pub id: String,
    /// Rust function name (snake case), assigned by `naming`.
    pub name: String,
    pub method: Method,
    pub path: String,
    pub segments: Vec<PathSegment>,
    /// Query pairs the path itself carries (`/responses/{id}?beta=true`): always sent, and what
    /// tells the operation from one at the same path without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub query: Vec<(String, String)>,
    pub pointer: String,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub tags: Vec<String>,
    pub deprecated: bool,
    pub parameters: Vec<Parameter>,
    pub body: Option<RequestBody>,
    pub responses: Vec<Response>,
    /// Alternatives: any one requirement satisfies. An empty requirement means "no credentials needed".
    pub security: Vec<SecurityRequirement>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Method {
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Trace,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
        }
    }

    /// Safe to repeat: the client may retry these on connection errors.
    pub fn is_idempotent(self) -> bool {
        !matches!(self, Method::Post | Method::Patch)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum PathSegment {
    Literal(String),
    Param(String),
    /// Text and parameters in one segment (`{sid}.json`, `{name}.{ext}`, `{id}:cancel`):
    /// literals and parameters alternate, never two parameters side by side.
    Mixed(Vec<SegmentPart>),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum SegmentPart {
    Literal(String),
    Param(String),
}

impl Operation {
    /// The path without the query it may carry.
    pub fn path_only(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }
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

#[derive(Debug, Clone, Serialize)]
pub struct Parameter {
    pub wire_name: String,
    /// Rust name, assigned by `naming`.
    pub name: String,
    pub location: ParamLocation,
    pub required: bool,
    pub ty: TypeRef,
    pub default: Option<serde_json::Value>,
    pub doc: Option<String>,
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
    pub deprecated: bool,
}

/// A parameter's `style` (OpenAPI's serialization rules for path, query, header and cookie).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ParamStyle {
    Simple,
    Label,
    Matrix,
    Form,
    SpaceDelimited,
    PipeDelimited,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ParamLocation {
    Path,
    Query,
    Header,
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

#[derive(Debug, Clone, Serialize)]
pub struct RequestBody {
    pub media: Media,
    pub ty: TypeRef,
    pub required: bool,
    pub doc: Option<String>,
    /// Other media types the spec also lists for the body (not generated; kept for reporting).
    pub alternatives: Vec<String>,
    /// A form body's Encoding Objects that change how a property is written (style, explode,
    /// allowReserved); properties without one use `form`, exploded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub encoding: Vec<PropertyEncoding>,
}

/// How one property of a form body is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PropertyEncoding {
    pub property: String,
    pub style: ParamStyle,
    pub explode: bool,
    pub allow_reserved: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Media {
    Json,
    Form,
    Multipart,
    Text,
    Binary(String),
}

#[derive(Debug, Clone, Serialize)]
pub struct Response {
    pub status: Status,
    pub doc: Option<String>,
    pub body: Option<ResponseBody>,
    pub headers: Vec<ResponseHeader>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ResponseBody {
    pub media: Media,
    pub ty: TypeRef,
    /// The documented media type of a text body (`text/html`), served as it is; `None` for
    /// `text/plain` and the other kinds, whose media type `media` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_type: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ResponseHeader {
    pub wire_name: String,
    pub required: bool,
    pub ty: TypeRef,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Status {
    Code(u16),
    /// `2XX` and friends: the first digit.
    Range(u16),
    Default,
}

impl Status {
    pub fn is_success(self) -> bool {
        match self {
            Status::Code(c) => (200..300).contains(&c),
            Status::Range(r) => r == 2,
            Status::Default => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecurityRequirement {
    /// Names of schemes that must all be satisfied; empty means anonymous access is allowed.
    pub schemes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SecurityScheme {
    pub name: String,
    pub kind: SecurityKind,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub enum SecurityKind {
    /// `Authorization: Bearer` (http bearer, or OAuth 2.0 / OpenID Connect access tokens).
    Bearer,
    OAuth2ClientCredentials {
        token_url: String,
    },
    Basic,
    ApiKey {
        location: ParamLocation,
        name: String,
    },
    /// Schemes generated code cannot act on (other OAuth flows without client credentials...).
    Other(String),
}
