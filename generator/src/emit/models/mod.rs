//! The models crate: one serde type per named IR type, their `Validate` impls, and the patterns.
//! String and integer enums are `enums.rs`'s, unions `unions.rs`'s (internally tagged ones
//! `tagged.rs`'s), the structs' `Deserialize` impls `objects.rs`'s; which types have something to
//! validate is decided once, in `checked_types.rs`. How a field holds its value is
//! `emit/fields.rs`'s, shared with the client and server, which build and read the models'
//! structs.

mod checked_types;
mod enums;
mod objects;
mod tagged;
mod unions;

use super::checks::{self, Checks, Site};
use super::defaults::DefaultValue;
use super::fields::{FieldShape, Shape, boxed, field_holding, field_shape};
use super::{
    File, Options, Patterns, Root, TypePrinter, assembled, crate_root, doc_attrs, ident, print,
    printed_parts, rust_file, template_file,
};
use crate::ir::{
    Additional, Api, Constraints, Field, Primitive, Struct, TypeDef, TypeKind, TypeRef,
};
use crate::patterns::Engine;
use checked_types::checked_types;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

const WIRE_TEMPLATE: &str = openapi_gen_templates::models::WIRE;
const VALIDATION_TEMPLATE: &str = openapi_gen_templates::models::VALIDATION;
const BYTES_TEMPLATE: &str = openapi_gen_templates::models::BYTES;
const STYLE_TEMPLATE: &str = openapi_gen_templates::models::STYLE;
const FILE_TEMPLATE: &str = openapi_gen_templates::models::FILE;
const TAGGED_TEMPLATE: &str = openapi_gen_templates::models::TAGGED;
const OBJECT_TEMPLATE: &str = openapi_gen_templates::models::OBJECT;

/// The models crate's files: `Cargo.toml`, `src/lib.rs`, one Rust type per [`crate::ir::TypeDef`]
/// (`src/types.rs`), their `Validate` impls (`src/constraints.rs`), the compiled patterns, and
/// the runtime modules the document uses. `Err` holds the path and parse error of generated code
/// that does not parse (a generator bug).
pub fn emit(api: &Api, patterns: &Patterns, opts: &Options) -> Result<Vec<File>, String> {
    emit_at(api, patterns, opts, Root::Crate)
}

/// The models crate's files, its code spelling paths from `root`.
pub fn emit_at(
    api: &Api,
    patterns: &Patterns,
    opts: &Options,
    root: Root,
) -> Result<Vec<File>, String> {
    let checked = checked_types(api, opts.open_enums);
    let groups = super::feature_groups(api, opts);
    let emitter = || {
        let groups = groups.as_ref();
        ModelEmitter::new(api, patterns, &checked, opts.open_enums, groups, root)
    };
    let template = |path, text| template_file(opts, path, &root.template(text));
    let mut types = printed_parts(&api.types, "src/types.rs", |defs| {
        emitter().type_items(defs)
    })?;
    types.push(print(emitter().default_fns(), "src/types.rs")?);
    let checks = printed_parts(&api.types, "src/constraints.rs", |defs| {
        emitter().validate_impls(defs)
    })?;
    let mut constraints = vec![print(
        emitter().constraints_head(&checks),
        "src/constraints.rs",
    )?];
    constraints.extend(checks);
    let objects = has_objects(api);
    let mut files = vec![
        cargo_toml(api, opts, patterns, groups.as_ref()),
        crate_root(emitter().lib_rs(), opts)?,
        assembled(opts, "src/types.rs", &types),
        assembled(opts, "src/constraints.rs", &constraints),
        rust_file(emitter().patterns_rs(), opts, "src/patterns.rs")?,
        template("src/wire.rs", WIRE_TEMPLATE),
        template("src/validation.rs", VALIDATION_TEMPLATE),
    ];
    // The parameter codec the client and server share (their runtimes name it even when no
    // operation has parameters).
    files.push(template("src/style.rs", STYLE_TEMPLATE));
    // Runtime modules only documents that use them get; then every file in path order.
    let optional = [
        (api.uses(Primitive::Base64), "src/bytes.rs", BYTES_TEMPLATE),
        (uses_file(api), "src/file.rs", FILE_TEMPLATE),
        (objects, "src/object.rs", OBJECT_TEMPLATE),
        (tagged::any(&api.types), "src/tagged.rs", TAGGED_TEMPLATE),
    ];
    if objects {
        let mut decode = vec![print(objects::head(&root.path()), "src/decode.rs")?];
        decode.extend(printed_parts(&api.types, "src/decode.rs", |defs| {
            emitter().decode_impls(defs)
        })?);
        files.push(assembled(opts, "src/decode.rs", &decode));
    }
    if optional.iter().any(|o| o.0) {
        for (used, path, text) in optional {
            if used {
                files.push(template(path, text));
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
    }
    Ok(files)
}

/// A manifest's line, when it is `used`.
fn line(used: bool, line: &'static str) -> &'static str {
    if used { line } else { "" }
}

fn cargo_toml(
    api: &Api,
    opts: &Options,
    patterns: &Patterns,
    groups: Option<&crate::groups::Groups>,
) -> File {
    let description = format!(
        "Models of {}, generated from its OpenAPI document",
        api.title
    );
    // Only documents that use them pay for base64, fancy-regex (look-around or backreference
    // patterns) and url.
    let base64 = line(api.uses(Primitive::Base64), "base64 = \"0.22\"\n");
    let fancy = line(patterns.needs_fancy_regex(), "fancy-regex = \"0.18\"\n");
    let url = super::url_dependency(api);
    let features = super::group_features_toml(groups, None);
    let features = if features.is_empty() {
        features
    } else {
        format!("[features]\n{features}\n")
    };
    let dependencies = format!(
        r#"{features}[dependencies]
{base64}chrono = {{ version = "0.4", default-features = false, features = ["serde", "std"] }}
{fancy}regex = "1"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
serde_repr = "0.1"
{url}uuid = {{ version = "1", features = ["serde"] }}
"#
    );
    super::cargo_toml(api, opts, "models", &description, &dependencies)
}

struct ModelEmitter<'a> {
    api: &'a Api,
    patterns: &'a Patterns,
    printer: TypePrinter<'a>,
    /// Per type: whether it has something to validate (see `checked_types`).
    checked: &'a [bool],
    /// `Options::open_enums`.
    open_enums: bool,
    /// The operation groups, when each type is gated on the groups that reach it.
    groups: Option<&'a crate::groups::Groups>,
    /// Where the crate's code lives: its files spell the crate's root `root.path()`.
    root: Root,
}

impl<'a> ModelEmitter<'a> {
    fn new(
        api: &'a Api,
        patterns: &'a Patterns,
        checked: &'a [bool],
        open_enums: bool,
        groups: Option<&'a crate::groups::Groups>,
        root: Root,
    ) -> ModelEmitter<'a> {
        ModelEmitter {
            api,
            patterns,
            printer: TypePrinter::inside(&api.types, root.path()),
            root,
            checked,
            open_enums,
            groups,
        }
    }

    /// The `#[cfg]` of the items of `def`: the groups whose operations reach it.
    fn gate(&self, def: &TypeDef) -> TokenStream {
        let Some(groups) = self.groups else {
            return TokenStream::new();
        };
        let at = (self.api.types.iter())
            .position(|t| std::ptr::eq(t, def))
            .expect("a type of the document");
        super::cfg_features(&groups.of_type_names(crate::ir::TypeId(at)))
    }

    fn lib_rs(&self) -> TokenStream {
        let title = format!(
            " Models of {} (version {}).",
            self.api.title, self.api.version
        );
        let inner_docs = super::rust::inner_doc_attrs(self.api.description.as_deref());
        let api = self.api;
        let bytes = api
            .uses(Primitive::Base64)
            .then(|| quote! { pub mod bytes; });
        let file = uses_file(api).then(|| quote! { pub mod file; });
        let tagged = tagged::any(&api.types).then(|| quote! { pub mod tagged; });
        let object = has_objects(api).then(|| quote! { pub mod object; });
        let decode = has_objects(api).then(|| quote! { mod decode; });
        let lints = super::selection_lints(self.groups);
        quote! {
            #![doc = #title]
            #![doc = ""]
            #inner_docs
            #lints

            #bytes
            mod constraints;
            #decode
            #file
            #object
            pub mod patterns;
            pub mod style;
            #tagged
            mod types;
            pub mod validation;
            pub mod wire;

            pub use types::*;
            pub use validation::{Validate, ValidationError, ValidationErrors};
        }
    }

    /// Part of `types.rs`: the items of `defs`; `default_fns` follow the last part.
    fn type_items(&self, defs: &[TypeDef]) -> TokenStream {
        (defs.iter())
            .map(|def| super::gated(self.type_item(def), &self.gate(def)))
            .collect()
    }

    fn type_item(&self, def: &TypeDef) -> TokenStream {
        let name = ident(&def.name);
        let doc = doc_attrs(def.doc.as_deref());
        let open = enums::is_open(&def.kind, self.open_enums);
        match &def.kind {
            TypeKind::Struct(s) => self.struct_item(def, s, doc),
            TypeKind::IntEnum(e) => {
                enums::int_enum_item(&def.name, e, open, doc, &self.root.path())
            }
            TypeKind::StringEnum(e) => {
                enums::string_enum_item(&def.name, e, open, doc, &self.root.path())
            }
            TypeKind::Union(u) => match &u.discriminator {
                Some(property) => tagged::item(&self.printer, &def.name, u, property, doc),
                None => unions::untagged_item(&self.printer, &def.name, u, doc),
            },
            TypeKind::Alias(ty) => {
                let ty = self.printer.rust_type(ty);
                quote! { #doc pub type #name = #ty; }
            }
            TypeKind::Newtype(ty) => {
                let ty = self.printer.rust_type(ty);
                quote! {
                    #doc
                    #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
                    #[serde(transparent)]
                    pub struct #name(pub #ty);
                }
            }
        }
    }

    fn struct_item(&self, def: &TypeDef, s: &Struct, doc: TokenStream) -> TokenStream {
        let name = ident(&def.name);
        // A flattened field keeps serde's derive, which buffers the object for it; every other
        // struct decodes through the models' `object` runtime (see `objects`).
        let derived = s.fields.iter().any(|f| f.flatten);
        // Serialized by the `object` runtime too, unless serde flattens a map or a field into it.
        let serde = derived || matches!(s.additional, Some(Additional::Map(_)));
        let fields = s.fields.iter().map(|f| self.field(def, f, serde, derived));
        let extra = match &s.additional {
            Some(Additional::Map(ty)) => {
                let ty = self.printer.rust_type(ty);
                let field = ident(&extra_field_name(s));
                Some(quote! {
                    /// Properties not named above.
                    #[serde(flatten)]
                    pub #field: ::std::collections::BTreeMap<String, #ty>,
                })
            }
            _ => None,
        };
        let derives = if derived {
            quote! { , ::serde::Serialize, ::serde::Deserialize }
        } else if serde {
            quote! { , ::serde::Serialize }
        } else {
            TokenStream::new()
        };
        quote! {
            #doc
            #[derive(Debug, Clone, PartialEq #derives)]
            pub struct #name {
                #(#fields)*
                #extra
            }
        }
    }

    /// Part of `decode.rs`: `Deserialize` of the structs among `defs` that do not derive it.
    fn decode_impls(&self, defs: &[TypeDef]) -> TokenStream {
        let objects = defs
            .iter()
            .filter_map(|def| Some((def, self.object(def, object_of(def)?))));
        objects
            .map(|(def, object)| super::gated(objects::tokens(&object), &self.gate(def)))
            .collect()
    }

    fn object<'s>(&self, def: &'s TypeDef, s: &'s Struct) -> objects::Object<'s> {
        let fields = s.fields.iter().map(|f| {
            let shape = field_shape(f, &self.api.types);
            let value = match shape.kind {
                Shape::Plain | Shape::RequiredNullable => objects::Value::Required,
                Shape::Defaulted => objects::Value::Default(default_fn_name(def, f)),
                Shape::Optional if shape.nullable => objects::Value::Flattened,
                Shape::Optional => objects::Value::Slot,
            };
            objects::ObjectField {
                member: &f.name,
                wire: &f.wire_name,
                decoder: (self.leniency(shape.inner)).map(|l| l.decoder(shape.reads_option())),
                value,
                ty: self.field_type(f, &shape),
            }
        });
        objects::Object {
            name: &def.name,
            fields: fields.collect(),
            others: match &s.additional {
                Some(Additional::Map(_)) => objects::Others::Keep(extra_field_name(s)),
                Some(Additional::Deny) => objects::Others::Deny,
                _ => objects::Others::Skip,
            },
            deprecated: s.fields.iter().any(|f| f.deprecated),
            root: self.root.path(),
        }
    }

    /// How a property's value is read leniently, if it is: numbers that may arrive as numeric
    /// strings matching their pattern, and other numbers (aliases looked through: `Percent = i64`)
    /// that may arrive as a string holding one, integers also as `2.0` (see `wire::strict`).
    fn leniency(&self, ty: &TypeRef) -> Option<Lenient> {
        let (item, in_vec) = match ty {
            TypeRef::Array(item) => (item.as_ref(), true),
            other => (other, false),
        };
        if let TypeRef::NumericString { number, pattern } = item {
            let marker = Some(self.patterns.numeric_marker(pattern));
            return Some(Lenient::new("Numeric", *number, marker, in_vec, self.root));
        }
        match self.api.unalias(item) {
            TypeRef::Primitive(p) if p.is_integer() => {
                Some(Lenient::new("Integer", *p, None, in_vec, self.root))
            }
            TypeRef::Primitive(p) if p.is_float() => {
                Some(Lenient::new("Float", *p, None, in_vec, self.root))
            }
            _ => None,
        }
    }

    /// The Rust type of a (not flattened) field of `shape`.
    fn field_type(&self, f: &Field, shape: &FieldShape) -> TokenStream {
        let ty = boxed(self.printer.rust_type(shape.inner), f.boxed);
        match shape.kind {
            Shape::Optional | Shape::RequiredNullable => quote! { Option<#ty> },
            _ => ty,
        }
    }

    /// A field; `serde`: its struct derives `Serialize`, so the field carries serde's attributes;
    /// `derived`: it derives `Deserialize` too, so the field carries the decoding attributes.
    fn field(&self, def: &TypeDef, f: &Field, serde: bool, derived: bool) -> TokenStream {
        let name = ident(&f.name);
        if f.flatten {
            let doc = doc_attrs(f.doc.as_deref());
            let ty = boxed(self.printer.rust_type(&f.ty), f.boxed);
            return quote! { #doc #[serde(flatten)] pub #name: #ty, };
        }
        let mut doc = f.doc.clone().unwrap_or_default();
        if let Some(default) = &f.default {
            let sep = if doc.is_empty() { "" } else { "\n\n" };
            doc.push_str(&format!("{sep}Default: `{default}`."));
        }
        let doc = doc_attrs(Some(&doc));
        let deprecated = f.deprecated.then(|| quote! { #[deprecated] });
        let shape = field_shape(f, &self.api.types);
        let ty = self.field_type(f, &shape);
        let mut args: Vec<TokenStream> = Vec::new();
        if f.name != f.wire_name {
            let wire = &f.wire_name;
            args.push(quote! { rename = #wire });
        }
        if shape.kind == Shape::Optional {
            if derived {
                args.push(quote! { default });
            }
            args.push(quote! { skip_serializing_if = "Option::is_none" });
        }
        if derived {
            if shape.kind == Shape::Defaulted {
                let default_fn = format!("defaults::{}", default_fn_name(def, f));
                args.push(quote! { default = #default_fn });
            }
            // Absent is `None`; `null` is accepted only where the schema says nullable.
            let with = match (self.leniency(shape.inner), shape.kind) {
                (Some(lenient), _) => Some(lenient.function(&shape)),
                (None, Shape::Optional) if !shape.nullable => {
                    Some(format!("{}::wire::some", self.root.text()))
                }
                (None, Shape::RequiredNullable) => {
                    Some(format!("{}::wire::nullable", self.root.text()))
                }
                _ => None,
            };
            args.extend(with.map(|with| quote! { deserialize_with = #with }));
        }
        let serde_attr = (serde && !args.is_empty()).then(|| quote! { #[serde(#(#args),*)] });
        quote! {
            #doc
            #deprecated
            #serde_attr
            pub #name: #ty,
        }
    }

    /// Functions named by `#[serde(default = "...")]` for properties with a spec default: the
    /// last part of `types.rs`.
    fn default_fns(&self) -> TokenStream {
        let mut fns = Vec::new();
        let mut names_types = false;
        let types = &self.api.types;
        // The functions are in module `defaults` of `types.rs`, one further down.
        let printer = TypePrinter::inside(types, self.root.path_at(2));
        for def in types {
            let TypeKind::Struct(s) = &def.kind else {
                continue;
            };
            for f in (s.fields.iter()).filter(|f| field_shape(f, types).kind == Shape::Defaulted) {
                f.ty.each_named(&mut |_| names_types = true);
                let fn_name = format_ident!("{}", default_fn_name(def, f));
                let ty = boxed(printer.rust_type(&f.ty), f.boxed);
                let default = f.default.as_ref().expect("defaulted");
                let value =
                    DefaultValue::of(&f.ty, default, types).expect("checked by field_shape");
                let value = value.render(&printer, false);
                let value = if f.boxed {
                    quote! { Box::new(#value) }
                } else {
                    value
                };
                let gate = self.gate(def);
                fns.push(quote! { #gate pub(crate) fn #fn_name() -> #ty { #value } });
            }
        }
        if fns.is_empty() {
            return TokenStream::new();
        }
        let import = names_types.then(|| quote! { use super::*; });
        quote! {
            /// Defaults the spec gives for optional properties.
            pub(crate) mod defaults {
                #import
                #(#fns)*
            }
        }
    }

    /// Part of `constraints.rs`: the `Validate` impls of `defs`.
    fn validate_impls(&self, defs: &[TypeDef]) -> TokenStream {
        (defs.iter())
            .map(|def| super::gated(self.validate_impl(def), &self.gate(def)))
            .collect()
    }

    /// The start of `constraints.rs`: imports of what the printed impls use.
    fn constraints_head(&self, impls: &[String]) -> TokenStream {
        let mentions = |word: &str| impls.iter().any(|text| text.contains(word));
        let root = self.root.path();
        let patterns = mentions("PATTERN_").then(|| quote! { use #root::patterns::*; });
        let module = mentions("validation::").then(|| quote! { self, });
        // A document whose types are all aliases has no impl here, and so nothing to import.
        let any = impls.iter().any(|text| !text.is_empty());
        let types = any.then(|| quote! { use #root::types::*; });
        let validation =
            any.then(|| quote! { use #root::validation::{#module Validate, ValidationError}; });
        quote! {
            //! `Validate` for every type: the constraints the spec states beyond each type.
            #patterns
            #types
            #validation
        }
    }

    fn validate_impl(&self, def: &TypeDef) -> TokenStream {
        let name = ident(&def.name);
        let body = match &def.kind {
            // An alias is validated as what it names.
            TypeKind::Alias(_) => return TokenStream::new(),
            TypeKind::Struct(s) => {
                let fields: Vec<_> = s
                    .fields
                    .iter()
                    .filter_map(|f| self.field_check(f))
                    .collect();
                (!fields.is_empty()).then(|| quote! { #(#fields)* })
            }
            TypeKind::Union(u) => {
                let checks: Vec<_> = (u.variants.iter())
                    .map(|v| self.render_checks(&v.ty, &v.constraints))
                    .collect();
                let arms = u.variants.iter().zip(&checks).map(|(v, check)| {
                    let vname = ident(&v.name);
                    match check {
                        Some(check) => quote! { Self::#vname(value) => { #check } },
                        None => quote! { Self::#vname(_) => {} },
                    }
                });
                let any = checks.iter().any(Option::is_some);
                any.then(|| quote! { match self { #(#arms)* } })
            }
            TypeKind::Newtype(ty) => (self.render_checks(ty, &Constraints::default()))
                .map(|check| quote! { let value = &self.0; #check }),
            TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {
                enums::validate_body(&def.kind, self.open_enums, &self.root.path())
            }
        };
        match body {
            None => quote! {
                impl Validate for #name {
                    fn validate_at(&self, _path: &str, _errors: &mut Vec<ValidationError>) {}
                }
            },
            Some(body) => quote! {
                impl Validate for #name {
                    fn validate_at(&self, path: &str, errors: &mut Vec<ValidationError>) {
                        #body
                    }
                }
            },
        }
    }

    /// The checks of a struct's field, if it has any.
    fn field_check(&self, f: &Field) -> Option<TokenStream> {
        // Check the Rust shape of the field: optional fields are `Option`s even when not nullable.
        let ty = match field_holding(f, &self.api.types) {
            (true, inner) => TypeRef::Nullable(Box::new(inner.clone())),
            (false, _) => f.ty.clone(),
        };
        // Required in requests though decoded as optional (`build::access`).
        let missing = f.constraints.present.then(|| {
            quote! { if value.is_none() { validation::missing(path, errors); } }
        });
        let check = self.render_checks(&ty, &f.constraints);
        if missing.is_none() && check.is_none() {
            return None;
        }
        let fname = ident(&f.name);
        let wire = &f.wire_name;
        // Deprecated properties are still validated while clients send them.
        let allow = f.deprecated.then(|| quote! { #[allow(deprecated)] });
        // A flattened field's properties are the struct's own: same path.
        let path = (!f.flatten).then(|| {
            quote! {
                let path = validation::field(path, #wire);
                let path = path.as_str();
            }
        });
        Some(quote! {
            #allow
            {
                let value = &self.#fname;
                #path
                #missing
                #check
            }
        })
    }

    /// The statements checking `value` of type `ty` against `c`, if there is something to check.
    fn render_checks(&self, ty: &TypeRef, c: &Constraints) -> Option<TokenStream> {
        let checks = self.checks(ty, c)?;
        Some(checks::render(&checks, &quote! { value }, Site::Models, 0))
    }

    /// The checks of one value of type `ty` against its nested types and `c`; `None` when there is
    /// nothing to check.
    fn checks(&self, ty: &TypeRef, c: &Constraints) -> Option<Checks> {
        let pattern = |source: &str| self.patterns.enforced(source);
        let each =
            |inner: &TypeRef| self.checks(inner, &c.items.as_deref().cloned().unwrap_or_default());
        match ty {
            TypeRef::Nullable(inner) => {
                // `Option<Alias>` where the alias is an `Option` too (a nullable component used
                // where null is allowed again): one `if let Some(Some(..))` (clippy's
                // `collapsible_match`), checked as what the alias holds.
                let (twice, inner, c) = match self.aliased(inner, c) {
                    Some((TypeRef::Nullable(held), c)) => (true, held.as_ref(), c),
                    _ => (false, inner.as_ref(), c),
                };
                let inner = Box::new(self.checks(inner, c)?);
                Some(Checks::Held { twice, inner })
            }
            TypeRef::Named(id) => match self.aliased(ty, c) {
                Some((target, c)) => self.checks(target, c),
                None => self.checked[id.0].then_some(Checks::Validate),
            },
            TypeRef::Array(inner) => Checks::items(c, each(inner)),
            TypeRef::Map(inner) => {
                let count = checks::bounds(c.min_items, c.max_items);
                let key = checks::enforced(&c.key_pattern, pattern);
                let each = each(inner).map(Box::new);
                (count.is_some() || key.is_some() || each.is_some()).then_some(Checks::Entries {
                    count,
                    key,
                    each,
                })
            }
            TypeRef::Primitive(p @ (Primitive::String | Primitive::Url)) => {
                Checks::text(c, *p == Primitive::Url, true, pattern)
            }
            TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. }
                if p.is_integer() || p.is_float() =>
            {
                Checks::range(*p, c)
            }
            _ => None,
        }
    }

    /// What `ty` names if it is an alias, checked with the alias's constraints unless the use
    /// site has some (`c`).
    fn aliased<'t>(
        &'t self,
        ty: &TypeRef,
        c: &'t Constraints,
    ) -> Option<(&'t TypeRef, &'t Constraints)> {
        let TypeRef::Named(id) = ty else {
            return None;
        };
        let def = &self.api.types[id.0];
        let TypeKind::Alias(target) = &def.kind else {
            return None;
        };
        Some((target, if c.is_empty() { &def.constraints } else { c }))
    }

    fn patterns_rs(&self) -> TokenStream {
        let all = self.patterns.all();
        // The runtime's `NumericPattern` holds a `regex::Regex`: a numeric-string pattern `regex`
        // does not compile (reported, not enforced) is the empty one.
        let compiled = all
            .iter()
            .map(|&(source, _, engine, numeric)| match engine {
                Engine::Regex => Some((quote! { Regex }, source)),
                _ if numeric => Some((quote! { Regex }, "")),
                Engine::FancyRegex => Some((quote! { fancy_regex::Regex }, source)),
                Engine::None => None,
            });
        let mut items = Vec::new();
        for (&(source, number, _, numeric), compiled) in all.iter().zip(compiled) {
            let regex = format_ident!("PATTERN_{}", number);
            let doc = format!(" `{source}`");
            if let Some((engine, compiled)) = compiled {
                items.push(quote! {
                    #[doc = #doc]
                    pub static #regex: LazyLock<#engine> =
                        LazyLock::new(|| #engine::new(#compiled).expect("checked by openapi-gen"));
                });
            }
            if numeric {
                let stat = format_ident!("NUMERIC_{}", number);
                let marker = format_ident!("Numeric{}", number);
                let marker_doc = format!(" Names the numeric-string pattern `{source}`.");
                items.push(quote! {
                    pub static #stat: NumericPattern = NumericPattern { source: #source, regex: &#regex };
                    #[doc = #marker_doc]
                    pub struct #marker;
                    impl PatternOf for #marker {
                        fn pattern() -> &'static NumericPattern {
                            &#stat
                        }
                    }
                });
            }
        }
        let root = self.root.path();
        let wire_use = (all.iter().any(|p| p.3))
            .then(|| quote! { use #root::wire::{NumericPattern, PatternOf}; });
        let uses_regex = all
            .iter()
            .any(|&(_, _, engine, numeric)| engine == Engine::Regex || numeric);
        let regex_use = uses_regex.then(|| quote! { use regex::Regex; });
        let lazy_use = (!items.is_empty()).then(|| quote! { use std::sync::LazyLock; });
        // A failed match (the backtracking limit reached) counts as a mismatch: the value is refused.
        let fancy = self.patterns.needs_fancy_regex().then(|| {
            quote! {
                impl #root::validation::Matcher for fancy_regex::Regex {
                    fn matches(&self, value: &str) -> bool {
                        self.is_match(value).unwrap_or(false)
                    }
                }
            }
        });
        quote! {
            //! The spec's string patterns, compiled once on first use.
            #regex_use
            #lazy_use
            #wire_use
            #(#items)*
            #fancy
        }
    }
}

/// Whether the models need `file::File`: a `format: binary` value, or a multipart body (whose
/// runtimes name it even when no property is a file).
fn uses_file(api: &Api) -> bool {
    api.uses(Primitive::Bytes) || api.has_multipart_struct()
}

/// Whether a struct decodes through the `object` runtime.
fn has_objects(api: &Api) -> bool {
    api.types.iter().any(|def| object_of(def).is_some())
}

/// The struct of `def` if it decodes through the `object` runtime: any struct without a flattened
/// field (a flattened field keeps serde's derive).
fn object_of(def: &TypeDef) -> Option<&Struct> {
    match &def.kind {
        TypeKind::Struct(s) if !s.fields.iter().any(|f| f.flatten) => Some(s),
        _ => None,
    }
}

fn default_fn_name(def: &TypeDef, f: &Field) -> String {
    use heck::ToSnakeCase;
    format!(
        "{}_{}",
        def.name.to_snake_case(),
        f.name.trim_start_matches("r#")
    )
}

/// A value read leniently (see `ModelEmitter::leniency`): a number that may arrive as a numeric
/// string (`marker`: the type naming its pattern), or an integer or float that may arrive as a
/// string holding one (an integer also as `2.0`); `in_vec`: the items of a list.
struct Lenient {
    /// `Numeric`, `Integer` or `Float`: the `wire` readers' names start with it.
    kind: &'static str,
    number: TokenStream,
    marker: Option<Ident>,
    in_vec: bool,
    /// The crate root as `types.rs` and `decode.rs` spell it.
    root: &'static str,
}

impl Lenient {
    fn new(
        kind: &'static str,
        number: Primitive,
        marker: Option<Ident>,
        in_vec: bool,
        root: super::Root,
    ) -> Self {
        let number = super::rust::primitive(number);
        Lenient {
            kind,
            number,
            marker,
            in_vec,
            root: root.text(),
        }
    }

    /// The `wire::Decoder` reading it in `decode.rs` (`option`: into an `Option`).
    fn decoder(&self, option: bool) -> TokenStream {
        let vec = if self.in_vec { "Vec" } else { "" };
        let option = if option { "Option" } else { "" };
        let decoder = format_ident!("As{}{vec}{option}", self.kind);
        let (number, marker) = (&self.number, self.marker.iter());
        let root: TokenStream = self.root.parse().expect("a path");
        quote! { #root::wire::#decoder<#number #(, #root::patterns::#marker)*> }
    }

    /// The `wire` function reading it for serde's `deserialize_with`, into a field of `shape`.
    fn function(&self, shape: &FieldShape) -> String {
        let kind = self.kind.to_lowercase();
        let vec = if self.in_vec { "_vec" } else { "" };
        let suffix = if shape.reads_option() {
            "_option"
        } else if shape.kind == Shape::Optional {
            "_some"
        } else {
            ""
        };
        let number = &self.number;
        let root = self.root;
        let marker = (self.marker.iter()).map(|marker| format!(", {root}::patterns::{marker}"));
        let marker: String = marker.collect();
        format!("{root}::wire::{kind}{vec}{suffix}::<_, {number}{marker}>")
    }
}

fn extra_field_name(s: &Struct) -> String {
    let mut name = "additional_properties".to_owned();
    while s.fields.iter().any(|f| f.name == name) {
        name.push('_');
    }
    name
}

#[cfg(test)]
mod tests {
    use crate::{Part, emit::Options};

    #[test]
    fn types_that_are_all_aliases_import_nothing_to_validate() {
        let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Cursor: {type: string, nullable: true}\n";
        let opts = Options::new("t", "t.yaml", "test");
        let generated = crate::generate(text, &opts, &[Part::Models]).expect("generates");
        let constraints = (generated.crates[0].1.iter())
            .find(|f| f.path == "src/constraints.rs")
            .expect("constraints.rs");
        assert!(
            !constraints.contents.contains("use "),
            "{}",
            constraints.contents
        );
    }
}
