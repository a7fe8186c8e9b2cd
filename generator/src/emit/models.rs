//! The models crate: one serde type per named IR type, their `Validate` impls, and the patterns.

use super::checked_types::checked_types;
use super::enum_impls;
use super::enums;
use super::layout::{fits_code, impl_header, push_doc, push_list, push_tuple, type_text};
use super::objects;
use super::parallel::{self, Job};
use super::patterns::Engine;
use super::root_file;
use super::rust::doc_lines;
use super::struct_items;
use super::{
    File, Options, Patterns, TypePrinter, assembled, doc_attrs, ident, print, rust_file,
    template_file,
};
use crate::ir::{
    Additional, Api, Constraints, Field, Primitive, StringFormat, Struct, TypeDef, TypeKind,
    TypeRef, Union,
};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::fmt::Write;

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
    let checked = checked_types(api, opts.open_enums);
    let emitter = || ModelEmitter::new(api, patterns, &checked, opts.open_enums);
    let ranges = parallel::chunks(api.types.len());
    // Longest first: the types, then their checks, each in parts of a few hundred items.
    let mut jobs: Vec<Job<Result<String, String>>> = Vec::new();
    for range in ranges.clone() {
        jobs.push(Box::new(move || emitter().type_items(&api.types[range])));
    }
    jobs.push(Box::new(move || {
        print(emitter().default_fns(), "src/types.rs")
    }));
    for range in ranges.clone() {
        jobs.push(Box::new(move || {
            emitter().validate_impls(&api.types[range])
        }));
    }
    let objects = has_objects(api);
    if objects {
        for range in ranges.clone() {
            jobs.push(Box::new(move || {
                Ok(emitter().decode_impls(&api.types[range]))
            }));
        }
    }
    let mut printed = parallel::run(api.types.len(), jobs).into_iter();
    let types: Vec<String> = printed
        .by_ref()
        .take(ranges.len() + 1)
        .collect::<Result<_, _>>()?;
    let checks: Vec<String> = printed
        .by_ref()
        .take(ranges.len())
        .collect::<Result<_, _>>()?;
    let mut decode = vec![objects::head().to_owned()];
    decode.extend(printed.collect::<Result<Vec<_>, _>>()?);
    let emitter = emitter();
    let mut constraints = vec![emitter.constraints_head(&checks)];
    constraints.extend(checks);
    let mut files = vec![
        cargo_toml(api, opts, patterns),
        root_file::file(&emitter.lib_rs(), opts)?,
        assembled(opts, "src/types.rs", &types),
        assembled(opts, "src/constraints.rs", &constraints),
        emitter.patterns_file(opts)?,
        template_file(opts, "src/wire.rs", WIRE_TEMPLATE),
        template_file(opts, "src/validation.rs", VALIDATION_TEMPLATE),
    ];
    // The parameter codec the client and server share (their runtimes name it even when no
    // operation has parameters).
    files.push(template_file(opts, "src/style.rs", STYLE_TEMPLATE));
    // Runtime modules only documents that use them get; then every file in path order.
    let optional = [
        (api.uses(Primitive::Base64), "src/bytes.rs", BYTES_TEMPLATE),
        (uses_file(api), "src/file.rs", FILE_TEMPLATE),
        (objects, "src/object.rs", OBJECT_TEMPLATE),
        (
            super::tagged::any(&api.types),
            "src/tagged.rs",
            TAGGED_TEMPLATE,
        ),
    ];
    if objects {
        files.push(assembled(opts, "src/decode.rs", &decode));
    }
    if optional.iter().any(|o| o.0) {
        for (used, path, text) in optional {
            if used {
                files.push(template_file(opts, path, text));
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
    }
    Ok(files)
}

fn cargo_toml(api: &Api, opts: &Options, patterns: &Patterns) -> File {
    let description = format!(
        "Models of {}, generated from its OpenAPI document",
        api.title
    );
    // Only documents that use them pay for base64, fancy-regex (look-around or backreference
    // patterns) and url.
    let base64 = if api.uses(Primitive::Base64) {
        "base64 = \"0.22\"\n"
    } else {
        ""
    };
    let fancy = if patterns.needs_fancy_regex() {
        "fancy-regex = \"0.18\"\n"
    } else {
        ""
    };
    let url = url_dependency(api);
    let dependencies = format!(
        r#"[dependencies]
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

/// The `url` dependency line of a crate whose document uses `format: uri` as `url::Url`.
pub fn url_dependency(api: &Api) -> &'static str {
    if api.uses(Primitive::Url) {
        "url = { version = \"2\", features = [\"serde\"] }\n"
    } else {
        ""
    }
}

struct ModelEmitter<'a> {
    api: &'a Api,
    patterns: &'a Patterns,
    printer: TypePrinter<'a>,
    /// Per type: whether it has something to validate (see `checked_types`).
    checked: &'a [bool],
    /// `Options::open_enums`.
    open_enums: bool,
}

impl<'a> ModelEmitter<'a> {
    fn new(
        api: &'a Api,
        patterns: &'a Patterns,
        checked: &'a [bool],
        open_enums: bool,
    ) -> ModelEmitter<'a> {
        ModelEmitter {
            api,
            patterns,
            printer: TypePrinter {
                types: &api.types,
                models: TokenStream::new(),
            },
            checked,
            open_enums,
        }
    }

    fn lib_rs(&self) -> root_file::Root {
        let mut docs = vec![
            format!(
                " Models of {} (version {}).",
                self.api.title, self.api.version
            ),
            String::new(),
        ];
        docs.extend(doc_lines(self.api.description.as_deref()));
        let has_objects = has_objects(self.api);
        let items = [
            (self.api.uses(Primitive::Base64), "pub mod bytes;"),
            (true, "mod constraints;"),
            (has_objects, "mod decode;"),
            (uses_file(self.api), "pub mod file;"),
            (has_objects, "pub mod object;"),
            (true, "pub mod patterns;"),
            (true, "pub mod style;"),
            (super::tagged::any(&self.api.types), "pub mod tagged;"),
            (true, "mod types;"),
            (true, "pub mod validation;"),
            (true, "pub mod wire;"),
            (true, "pub use types::*;"),
            (
                true,
                "pub use validation::{Validate, ValidationError, ValidationErrors};",
            ),
        ];
        root_file::Root {
            docs,
            items: root_file::Item::wanted(items),
        }
    }

    /// Part of `types.rs`: the items of `defs`, most written as text, the others printed from
    /// tokens (see `interleaved`); `default_fns` follow the last part.
    fn type_items(&self, defs: &[TypeDef]) -> Result<String, String> {
        let items = defs.iter().map(|def| self.type_item(def));
        super::interleaved(items, "src/types.rs")
    }

    /// The item of a type: as text (the second), or as tokens (a tagged union).
    fn type_item(&self, def: &TypeDef) -> (TokenStream, String) {
        let doc = def.doc.as_deref();
        let mut text = String::new();
        match &def.kind {
            TypeKind::Union(u) => match &u.discriminator {
                Some(property) => {
                    let types = &self.api.types;
                    let doc = doc_attrs(doc);
                    let item =
                        super::tagged::item(&self.printer, types, &def.name, u, property, doc);
                    return (item, text);
                }
                None => text = self.union_item(def, u),
            },
            TypeKind::StringEnum(e) => {
                let unknown = enums::open_unknown(&def.kind, self.open_enums);
                text = enums::string_enum_item(&def.name, e, doc, unknown.as_deref());
            }
            TypeKind::IntEnum(e) => {
                let unknown = enums::open_unknown(&def.kind, self.open_enums);
                text = enums::int_enum_item(&def.name, e, doc, unknown.as_deref());
            }
            TypeKind::Struct(s) => text = self.struct_item(def, s),
            TypeKind::Alias(ty) => struct_items::write_alias(
                &mut text,
                &doc_lines(doc),
                &ident(&def.name).to_string(),
                &type_text(self.printer.rust_type(ty)),
            ),
            TypeKind::Newtype(ty) => struct_items::write_newtype(
                &mut text,
                &doc_lines(doc),
                &ident(&def.name).to_string(),
                &type_text(self.printer.rust_type(ty)),
            ),
        }
        (TokenStream::new(), text)
    }

    /// A struct, as text (see `struct_items`).
    fn struct_item(&self, def: &TypeDef, s: &Struct) -> String {
        let derived = !decodes_as_object(s);
        let mut fields: Vec<struct_items::StructField> = s
            .fields
            .iter()
            .map(|f| self.field(def, f, derived))
            .collect();
        if let Some(Additional::Map(ty)) = &s.additional {
            let ty = type_text(self.printer.rust_type(ty));
            fields.push(struct_items::StructField {
                doc: vec![" Properties not named above.".to_owned()],
                deprecated: false,
                serde: vec!["flatten".to_owned()],
                name: ident(&extra_field_name(s)).to_string(),
                ty: format!("::std::collections::BTreeMap<String, {ty}>"),
            });
        }
        let mut out = String::new();
        struct_items::write(
            &mut out,
            &struct_items::StructItem {
                doc: doc_lines(def.doc.as_deref()),
                derive: if derived {
                    "Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize"
                } else {
                    "Debug, Clone, PartialEq, ::serde::Serialize"
                },
                attrs: &[],
                name: ident(&def.name).to_string(),
                public: true,
                fields,
            },
        );
        out
    }

    /// Part of `decode.rs`: `Deserialize` of the structs among `defs` that do not derive it.
    fn decode_impls(&self, defs: &[TypeDef]) -> String {
        let mut out = String::new();
        for def in defs {
            if let TypeKind::Struct(s) = &def.kind
                && decodes_as_object(s)
            {
                objects::write(&mut out, &self.object(def, s));
            }
        }
        out
    }

    fn object<'s>(&self, def: &'s TypeDef, s: &'s Struct) -> objects::Object<'s> {
        let fields = s.fields.iter().map(|f| {
            let shape = field_shape(f, &self.api.types);
            // An optional, non-nullable property is read as its type: `null` is refused.
            let holds_option = shape.kind == Shape::RequiredNullable
                || (shape.kind == Shape::Optional && shape.nullable);
            let value = match shape.kind {
                Shape::Plain | Shape::RequiredNullable => objects::Value::Required,
                Shape::Defaulted => objects::Value::Default(default_fn_name(def, f)),
                Shape::Optional if shape.nullable => objects::Value::Nullable,
                Shape::Optional => objects::Value::Slot,
            };
            objects::ObjectField {
                member: ident(&f.name).to_string(),
                wire: &f.wire_name,
                decoder: self.decoder(shape.inner, holds_option),
                value,
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
        }
    }

    /// The `wire::Decoder` a property's value is read with, if it needs one: numbers that may
    /// arrive as numeric strings, and integers that may arrive as `2.0`.
    fn decoder(&self, inner: &TypeRef, option: bool) -> Option<String> {
        let (prefix, number, marker, in_vec) = self.leniency(inner)?;
        let vec = if in_vec { "Vec" } else { "" };
        let option = if option { "Option" } else { "" };
        Some(match marker {
            Some(marker) => {
                format!("crate::wire::As{prefix}{vec}{option}<{number}, crate::patterns::{marker}>")
            }
            None => format!("crate::wire::As{prefix}{vec}{option}<{number}>"),
        })
    }

    /// `(decoder kind, number, pattern marker, inside a Vec)` of a value that is read leniently.
    fn leniency(
        &self,
        inner: &TypeRef,
    ) -> Option<(&'static str, TokenStream, Option<proc_macro2::Ident>, bool)> {
        numeric_of(inner)
            .map(|(number, pattern, in_vec)| {
                let marker = Some(self.patterns.numeric_marker(pattern));
                ("Numeric", super::rust::primitive(number), marker, in_vec)
            })
            .or_else(|| {
                integer_of(inner, &self.api.types).map(|(number, in_vec)| {
                    ("Integer", super::rust::primitive(number), None, in_vec)
                })
            })
    }

    /// A field; `derived`: its struct derives `Deserialize`, so the field carries the decoding
    /// attributes too.
    fn field(&self, def: &TypeDef, f: &Field, derived: bool) -> struct_items::StructField {
        let name = ident(&f.name).to_string();
        if f.flatten {
            let mut ty = type_text(self.printer.rust_type(&f.ty));
            if f.boxed {
                ty = format!("Box<{ty}>");
            }
            return struct_items::StructField {
                doc: doc_lines(f.doc.as_deref()),
                deprecated: false,
                serde: vec!["flatten".to_owned()],
                name,
                ty,
            };
        }
        let mut doc = f.doc.clone().unwrap_or_default();
        if let Some(default) = &f.default {
            let sep = if doc.is_empty() { "" } else { "\n\n" };
            doc.push_str(&format!("{sep}Default: `{default}`."));
        }
        let shape = field_shape(f, &self.api.types);
        let mut ty = type_text(self.printer.rust_type(shape.inner));
        if f.boxed {
            ty = format!("Box<{ty}>");
        }
        let mut serde_args: Vec<String> = Vec::new();
        if f.name != f.wire_name {
            serde_args.push(format!("rename = {:?}", f.wire_name));
        }
        let mut de_args: Vec<String> = Vec::new();
        let numeric = self.leniency(shape.inner);
        let with = |suffix: &str| {
            let (prefix, number, marker, in_vec) = numeric.as_ref().expect("checked by the caller");
            let vec = if *in_vec { "_vec" } else { "" };
            let prefix = prefix.to_lowercase();
            wire_fn(&format!("{prefix}{vec}{suffix}"), number, marker.as_ref())
        };
        let rust_ty = match shape.kind {
            Shape::Plain => {
                if numeric.is_some() {
                    de_args.push(with(""));
                }
                ty
            }
            Shape::Defaulted => {
                let default_fn = format!("defaults::{}", default_fn_name(def, f));
                de_args.push(format!("default = {default_fn:?}"));
                if numeric.is_some() {
                    de_args.push(with(""));
                }
                ty
            }
            Shape::Optional => {
                if derived {
                    serde_args.push("default".to_owned());
                }
                serde_args.push(r#"skip_serializing_if = "Option::is_none""#.to_owned());
                // Absent is `None`; `null` is accepted only where the schema says nullable.
                match (numeric.is_some(), shape.nullable) {
                    (true, true) => de_args.push(with("_option")),
                    (true, false) => de_args.push(with("_some")),
                    (false, false) => {
                        de_args.push(r#"deserialize_with = "crate::wire::some""#.to_owned())
                    }
                    (false, true) => {}
                }
                format!("Option<{ty}>")
            }
            Shape::RequiredNullable => {
                if numeric.is_some() {
                    de_args.push(with("_option"));
                } else {
                    de_args.push(r#"deserialize_with = "crate::wire::nullable""#.to_owned());
                }
                format!("Option<{ty}>")
            }
        };
        if derived {
            serde_args.extend(de_args);
        }
        struct_items::StructField {
            doc: doc_lines(Some(&doc)),
            deprecated: f.deprecated,
            serde: serde_args,
            name,
            ty: rust_ty,
        }
    }

    /// An untagged union, as text.
    fn union_item(&self, def: &TypeDef, u: &Union) -> String {
        // Untagged decoding tries variants in order: a catch-all JSON value must come last.
        let mut variants: Vec<_> = u.variants.iter().collect();
        variants.sort_by_key(|v| matches!(v.ty, TypeRef::Any));
        let kind = if u.exclusive {
            "Exactly one of"
        } else {
            "One or more of"
        };
        let mut doc = doc_lines(def.doc.as_deref());
        if !doc.is_empty() {
            doc.push(String::new());
        }
        doc.push(format!(
            " {kind} the variants (`{}`), untagged: decoded as the first that matches, tried most specific first.",
            if u.exclusive { "oneOf" } else { "anyOf" }
        ));
        let mut out = String::new();
        push_doc(&mut out, "", &doc);
        let _ = writeln!(
            out,
            "#[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]\n\
             #[serde(untagged)]\n\
             pub enum {} {{",
            ident(&def.name)
        );
        for v in variants {
            push_doc(&mut out, "    ", &doc_lines(v.doc.as_deref()));
            let mut ty = type_text(self.printer.rust_type(&v.ty));
            if v.boxed {
                ty = format!("Box<{ty}>");
            }
            push_tuple(&mut out, "    ", &format!("{}(", ident(&v.name)), &ty, "),");
        }
        out.push_str("}\n");
        out
    }

    /// Functions named by `#[serde(default = "...")]` for properties with a spec default: the
    /// last part of `types.rs`.
    fn default_fns(&self) -> TokenStream {
        let mut fns = Vec::new();
        let mut names_types = false;
        for def in &self.api.types {
            let TypeKind::Struct(s) = &def.kind else {
                continue;
            };
            for f in &s.fields {
                if field_shape(f, &self.api.types).kind != Shape::Defaulted {
                    continue;
                }
                names_types |= mentions_named(&f.ty);
                let fn_name = format_ident!("{}", default_fn_name(def, f));
                let ty = self.printer.rust_type(&f.ty);
                let ty = if f.boxed {
                    quote! { Box<#ty> }
                } else {
                    ty
                };
                let value = self.default_value(&f.ty, f.default.as_ref().expect("defaulted"));
                let value = if f.boxed {
                    quote! { Box::new(#value) }
                } else {
                    value
                };
                fns.push(quote! { pub(crate) fn #fn_name() -> #ty { #value } });
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

    fn default_value(&self, ty: &TypeRef, value: &serde_json::Value) -> TokenStream {
        match (ty, value) {
            (TypeRef::Primitive(Primitive::String), serde_json::Value::String(s)) => {
                quote! { #s.to_owned() }
            }
            (TypeRef::Primitive(Primitive::Bool), serde_json::Value::Bool(b)) => quote! { #b },
            (
                TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. },
                serde_json::Value::Number(n),
            ) => super::rust::number_literal(*p, n, false).expect("checked by defaultable"),
            (TypeRef::Array(_), _) => quote! { Vec::new() },
            (TypeRef::Named(id), v) => {
                let def = &self.api.types[id.0];
                let name = ident(&def.name);
                let variant = enum_variant_for(def, v).expect("checked by defaultable");
                let variant = ident(variant);
                quote! { #name::#variant }
            }
            _ => unreachable!("checked by defaultable"),
        }
    }

    /// Part of `constraints.rs`: the `Validate` impls of `defs`, written as text.
    fn validate_impls(&self, defs: &[TypeDef]) -> Result<String, String> {
        let mut out = String::new();
        for def in defs {
            out.push_str(&super::laid_out(
                self.validate_impl(def),
                "src/constraints.rs",
            )?);
        }
        Ok(out)
    }

    /// The start of `constraints.rs`: imports of what the printed impls use.
    fn constraints_head(&self, impls: &[String]) -> String {
        let mentions = |word: &str| impls.iter().any(|text| text.contains(word));
        let mut out = String::from(
            "//! `Validate` for every type: the constraints the spec states beyond each type.\n",
        );
        if mentions("PATTERN_") {
            out.push_str("use crate::patterns::*;\n");
        }
        if impls.iter().any(|text| !text.is_empty()) {
            out.push_str("use crate::types::*;\n");
        }
        out.push_str(if mentions("validation::") {
            "use crate::validation::{self, Validate, ValidationError};\n"
        } else {
            "use crate::validation::{Validate, ValidationError};\n"
        });
        out
    }

    /// A type's `Validate` impl (none for an alias, validated as what it names).
    fn validate_impl(&self, def: &TypeDef) -> String {
        let name = &def.name;
        if let Some(unknown) = enums::open_unknown(&def.kind, self.open_enums) {
            let quoted = matches!(def.kind, TypeKind::StringEnum(_));
            return enum_impls::validate_open(name, &unknown, quoted);
        }
        const BODY: &str = "        ";
        let mut body = String::new();
        match &def.kind {
            TypeKind::Struct(s) => {
                for f in &s.fields {
                    // Check the Rust shape of the field: optional fields are `Option`s even when
                    // not nullable.
                    let shape = field_shape(f, &self.api.types);
                    let ty = match shape.kind {
                        Shape::Optional | Shape::RequiredNullable => {
                            TypeRef::Nullable(Box::new(shape.inner.clone()))
                        }
                        Shape::Plain | Shape::Defaulted => f.ty.clone(),
                    };
                    const FIELD: &str = "            ";
                    let check = self.check_value("value", &ty, &f.constraints, 0, FIELD);
                    // Required in requests though decoded as optional (`build::access`).
                    if !f.constraints.present && check.is_none() {
                        continue;
                    }
                    // Deprecated properties are still validated while clients send them.
                    if f.deprecated {
                        body.push_str("        #[allow(deprecated)]\n");
                    }
                    let _ = writeln!(
                        body,
                        "        {{\n{FIELD}let value = &self.{};",
                        ident(&f.name)
                    );
                    // A flattened field's properties are the struct's own: same path.
                    if !f.flatten {
                        let wire = Literal::string(&f.wire_name);
                        let _ = writeln!(
                            body,
                            "{FIELD}let path = validation::field(path, {wire});\n{FIELD}let path = path.as_str();"
                        );
                    }
                    if f.constraints.present {
                        let _ = writeln!(
                            body,
                            "{FIELD}if value.is_none() {{\n{FIELD}    validation::missing(path, errors);\n{FIELD}}}"
                        );
                    }
                    body.push_str(&check.unwrap_or_default());
                    body.push_str("        }\n");
                }
            }
            TypeKind::Union(u) => {
                const ARM: &str = "                ";
                let checks: Vec<_> = u
                    .variants
                    .iter()
                    .map(|v| {
                        (
                            ident(&v.name),
                            self.check_value("value", &v.ty, &v.constraints, 0, ARM),
                        )
                    })
                    .collect();
                if checks.iter().any(|(_, c)| c.is_some()) {
                    body.push_str("        match self {\n");
                    for (variant, check) in checks {
                        let (binding, block) = match &check {
                            Some(check) => ("value", format!("{{\n{check}            }}")),
                            None => ("_", "{}".to_owned()),
                        };
                        let arm = format!("            Self::{variant}({binding}) => {block}");
                        if arm.lines().next().is_some_and(fits_code) {
                            let _ = writeln!(body, "{arm}");
                        } else {
                            // The pattern's binding on a line of its own.
                            let _ = writeln!(
                                body,
                                "            Self::{variant}(\n                {binding},\n            ) => {block}"
                            );
                        }
                    }
                    body.push_str("        }\n");
                }
            }
            TypeKind::Newtype(ty) => {
                if let Some(check) = self.check_value("value", ty, &Constraints::default(), 0, BODY)
                {
                    let _ = write!(body, "{BODY}let value = &self.0;\n{check}");
                }
            }
            // Open enums returned above; a closed enum holds only listed values.
            TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {}
            // An alias is validated as what it names.
            TypeKind::Alias(_) => return String::new(),
        }
        let head = impl_header("impl Validate", &ident(name).to_string());
        if body.is_empty() {
            return format!(
                "{head}\n    fn validate_at(&self, _path: &str, _errors: &mut Vec<ValidationError>) {{}}\n}}\n"
            );
        }
        format!(
            "{head}\n    fn validate_at(&self, path: &str, errors: &mut Vec<ValidationError>) {{\n{body}    }}\n}}\n"
        )
    }

    /// Lines (at `indent`) checking one value (`expr`, an expression of type `&T`) against its
    /// type's nested types and `c`. `None` when there is nothing to check.
    fn check_value(
        &self,
        expr: &str,
        ty: &TypeRef,
        c: &Constraints,
        depth: usize,
        indent: &str,
    ) -> Option<String> {
        let v = format!("v{depth}");
        let inner_indent = format!("{indent}    ");
        let block = |head: String, inner: String| format!("{indent}{head} {{\n{inner}{indent}}}\n");
        let line = |statement: String| format!("{indent}{statement}\n");
        // A call statement, its arguments one per line when it is too wide.
        let call = |callee: &str, args: &[&str]| {
            let mut out = String::new();
            push_list(&mut out, indent, &format!("{callee}("), args, ");");
            out
        };
        match ty {
            TypeRef::Nullable(inner) => {
                // `Option<Alias>` where the alias is an `Option` too (a nullable component used
                // where null is allowed again): one `if let Some(Some(..))` (clippy's
                // `collapsible_match`), checked as what the alias holds.
                if let TypeRef::Named(id) = inner.as_ref()
                    && let def = &self.api.types[id.0]
                    && let TypeKind::Alias(TypeRef::Nullable(held)) = &def.kind
                {
                    let c = if c.is_empty() { &def.constraints } else { c };
                    let inner = self.check_value(&v, held, c, depth + 1, &inner_indent)?;
                    return Some(block(format!("if let Some(Some({v})) = {expr}"), inner));
                }
                let inner = self.check_value(&v, inner, c, depth + 1, &inner_indent)?;
                Some(block(format!("if let Some({v}) = {expr}"), inner))
            }
            TypeRef::Named(id) => {
                let def = &self.api.types[id.0];
                match &def.kind {
                    // An alias is checked as what it names, with its own constraints unless the
                    // use site has some.
                    TypeKind::Alias(target) => {
                        let c = if c.is_empty() { &def.constraints } else { c };
                        self.check_value(expr, target, c, depth, indent)
                    }
                    _ if self.checked[id.0] => {
                        Some(line(format!("{expr}.validate_at(path, errors);")))
                    }
                    _ => None,
                }
            }
            TypeRef::Array(inner) => {
                let mut checks = String::new();
                if c.min_items.is_some() || c.max_items.is_some() {
                    let (min, max) = (opt_usize_text(c.min_items), opt_usize_text(c.max_items));
                    let len = format!("{expr}.len()");
                    checks.push_str(&call(
                        "validation::items",
                        &[&len, "path", &min, &max, "errors"],
                    ));
                }
                if c.unique_items {
                    checks.push_str(&call("validation::unique", &[expr, "path", "errors"]));
                }
                let item_constraints = c.items.as_deref().cloned().unwrap_or_default();
                let i = format!("i{depth}");
                if let Some(item) =
                    self.check_value(&v, inner, &item_constraints, depth + 1, &inner_indent)
                {
                    checks.push_str(&block(
                        format!("for ({i}, {v}) in {expr}.iter().enumerate()"),
                        format!(
                            "{inner_indent}let path = validation::index(path, {i});\n\
                             {inner_indent}let path = path.as_str();\n{item}"
                        ),
                    ));
                }
                (!checks.is_empty()).then_some(checks)
            }
            TypeRef::Map(inner) => {
                let item_constraints = c.items.as_deref().cloned().unwrap_or_default();
                let k = format!("k{depth}");
                let item = self.check_value(&v, inner, &item_constraints, depth + 1, &inner_indent);
                let count = (c.min_items.is_some() || c.max_items.is_some()).then(|| {
                    let (min, max) = (opt_usize_text(c.min_items), opt_usize_text(c.max_items));
                    let len = format!("{expr}.len()");
                    call("validation::entries", &[&len, "path", &min, &max, "errors"])
                });
                let key = c.key_pattern.as_ref().and_then(|source| {
                    let regex = self.patterns.regex(source)?;
                    let (regex, source) =
                        (format!("&{regex}"), Literal::string(source).to_string());
                    let mut out = String::new();
                    let args = [k.as_str(), "path", &regex, &source, "errors"];
                    push_list(&mut out, &inner_indent, "validation::pattern(", &args, ");");
                    Some(out)
                });
                if item.is_none() && key.is_none() {
                    return count;
                }
                let pairs = if item.is_some() {
                    format!("({k}, {v}) in {expr}")
                } else {
                    format!("{k} in {expr}.keys()")
                };
                let mut checks = count.unwrap_or_default();
                checks.push_str(&block(
                    format!("for {pairs}"),
                    format!(
                        "{inner_indent}let path = validation::field(path, {k});\n\
                         {inner_indent}let path = path.as_str();\n{}{}",
                        key.unwrap_or_default(),
                        item.unwrap_or_default()
                    ),
                ));
                Some(checks)
            }
            TypeRef::Primitive(p @ (Primitive::String | Primitive::Url)) => {
                let is_url = *p == Primitive::Url;
                let expr = &if is_url {
                    format!("{expr}.as_str()")
                } else {
                    expr.to_owned()
                };
                let mut checks = String::new();
                if c.min_length.is_some() || c.max_length.is_some() {
                    let (min, max) = (opt_usize_text(c.min_length), opt_usize_text(c.max_length));
                    checks.push_str(&call(
                        "validation::length",
                        &[expr, "path", &min, &max, "errors"],
                    ));
                }
                if let Some(source) = &c.pattern
                    && let Some(regex) = self.patterns.regex(source)
                {
                    let (regex, source) =
                        (format!("&{regex}"), Literal::string(source).to_string());
                    let args = [expr.as_str(), "path", &regex, &source, "errors"];
                    checks.push_str(&call("validation::pattern", &args));
                }
                match c.format {
                    // A `url::Url` is an absolute URL once parsed.
                    _ if is_url => {}
                    Some(StringFormat::Email) => {
                        checks.push_str(&call("validation::email", &[expr, "path", "errors"]))
                    }
                    Some(StringFormat::Uri) => {
                        checks.push_str(&call("validation::uri", &[expr, "path", "errors"]))
                    }
                    None => {}
                }
                (!checks.is_empty()).then_some(checks)
            }
            TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. }
                if p.is_integer() || p.is_float() =>
            {
                let value: TokenStream = expr.parse().ok()?;
                let (as_f64, min, max) = super::rust::range_args(*p, &value, c)?;
                let [as_f64, min, max] = [as_f64, min, max].map(type_text);
                Some(call(
                    "validation::range",
                    &[&as_f64, "path", &min, &max, "errors"],
                ))
            }
            _ => None,
        }
    }

    /// `patterns.rs`: its head alone (as text) when the document has no patterns.
    fn patterns_file(&self, opts: &Options) -> Result<File, String> {
        const HEAD: &str = "//! The spec's string patterns, compiled once on first use.\n";
        if self.patterns.all().is_empty() && !self.patterns.needs_fancy_regex() {
            return Ok(assembled(opts, "src/patterns.rs", &[HEAD.to_owned()]));
        }
        rust_file(self.patterns_rs(), opts, "src/patterns.rs")
    }

    fn patterns_rs(&self) -> TokenStream {
        let mut items = Vec::new();
        for (source, number, engine, numeric) in self.patterns.all() {
            let regex = format_ident!("PATTERN_{}", number);
            let doc = format!(" `{source}`");
            if engine == Engine::FancyRegex && !numeric {
                items.push(quote! {
                    #[doc = #doc]
                    pub static #regex: LazyLock<fancy_regex::Regex> =
                        LazyLock::new(|| fancy_regex::Regex::new(#source).expect("checked by openapi-gen"));
                });
                continue;
            }
            let valid = engine == Engine::Regex;
            let compiled = if valid { source } else { "" };
            if valid || numeric {
                items.push(quote! {
                    #[doc = #doc]
                    pub static #regex: LazyLock<Regex> =
                        LazyLock::new(|| Regex::new(#compiled).expect("checked by openapi-gen"));
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
        let any_numeric = self.patterns.all().iter().any(|p| p.3);
        let wire_use =
            any_numeric.then(|| quote! { use crate::wire::{NumericPattern, PatternOf}; });
        let uses_regex = self
            .patterns
            .all()
            .iter()
            .any(|&(_, _, engine, numeric)| engine == Engine::Regex || numeric);
        let regex_use = uses_regex.then(|| quote! { use regex::Regex; });
        let lazy_use = (!items.is_empty()).then(|| quote! { use std::sync::LazyLock; });
        // A failed match (the backtracking limit reached) counts as a mismatch: the value is refused.
        let fancy = self.patterns.needs_fancy_regex().then(|| {
            quote! {
                impl crate::validation::Matcher for fancy_regex::Regex {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Required and not nullable: `T`.
    Plain,
    /// Optional with a spec default: `T`, filled in when absent.
    Defaulted,
    /// Optional: `Option<T>`, omitted when `None`.
    Optional,
    /// Required but nullable: `Option<T>`, must be present.
    RequiredNullable,
}

struct FieldShape<'a> {
    kind: Shape,
    /// The schema admits `null`.
    nullable: bool,
    /// The type inside the `Option`, if the shape adds one.
    inner: &'a TypeRef,
}

/// Whether the models need `file::File`: a `format: binary` value, or a multipart body (whose
/// runtimes name it even when no property is a file).
fn uses_file(api: &Api) -> bool {
    api.uses(Primitive::Bytes) || super::has_multipart_struct(api)
}

/// Whether a struct's `Deserialize` is written in `decode.rs` (through the `object` runtime). A
/// flattened field keeps serde's derive, which buffers the object for it.
fn decodes_as_object(s: &Struct) -> bool {
    !s.fields.iter().any(|f| f.flatten)
}

/// Whether any struct decodes through the `object` runtime.
fn has_objects(api: &Api) -> bool {
    api.types
        .iter()
        .any(|def| matches!(&def.kind, TypeKind::Struct(s) if decodes_as_object(s)))
}

/// How a struct field is held: `(is an Option, the type inside it)` (other emitters build and read
/// the models' structs field by field).
pub fn field_holding<'a>(f: &'a Field, types: &[TypeDef]) -> (bool, &'a TypeRef) {
    let shape = field_shape(f, types);
    (
        matches!(shape.kind, Shape::Optional | Shape::RequiredNullable),
        shape.inner,
    )
}

fn field_shape<'a>(f: &'a Field, types: &[TypeDef]) -> FieldShape<'a> {
    let (nullable, inner) = match &f.ty {
        TypeRef::Nullable(inner) => (true, inner.as_ref()),
        other => (false, other),
    };
    let kind = match (f.required, nullable) {
        (true, false) => Shape::Plain,
        (true, true) => Shape::RequiredNullable,
        (false, false)
            if f.default
                .as_ref()
                .is_some_and(|d| defaultable(inner, d, types)) =>
        {
            Shape::Defaulted
        }
        (false, _) => Shape::Optional,
    };
    FieldShape {
        kind,
        nullable,
        inner,
    }
}

/// Whether a spec default can be written as a Rust value of this type.
fn defaultable(ty: &TypeRef, value: &serde_json::Value, types: &[TypeDef]) -> bool {
    match (ty, value) {
        (TypeRef::Primitive(Primitive::String), serde_json::Value::String(_)) => true,
        (TypeRef::Primitive(Primitive::Bool), serde_json::Value::Bool(_)) => true,
        (
            TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. },
            serde_json::Value::Number(n),
        ) => super::rust::number_literal(*p, n, false).is_some(),
        (TypeRef::Array(_), serde_json::Value::Array(a)) => a.is_empty(),
        (TypeRef::Named(id), v) => enum_variant_for(&types[id.0], v).is_some(),
        _ => false,
    }
}

fn enum_variant_for<'a>(def: &'a TypeDef, value: &serde_json::Value) -> Option<&'a str> {
    match &def.kind {
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

fn mentions_named(ty: &TypeRef) -> bool {
    match ty {
        TypeRef::Named(_) => true,
        TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
            mentions_named(inner)
        }
        _ => false,
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

/// `(number, pattern, inside a Vec)` when a field decodes numeric strings.
fn numeric_of(ty: &TypeRef) -> Option<(Primitive, &str, bool)> {
    match ty {
        TypeRef::NumericString { number, pattern } => Some((*number, pattern, false)),
        TypeRef::Array(inner) => match inner.as_ref() {
            TypeRef::NumericString { number, pattern } => Some((*number, pattern, true)),
            _ => None,
        },
        _ => None,
    }
}

/// `(integer, inside a Vec)` when a field is an integer (decoded from `2` or `2.0`).
/// Aliases are looked through (`Percent = i64`).
fn integer_of(ty: &TypeRef, types: &[TypeDef]) -> Option<(Primitive, bool)> {
    fn integer(ty: &TypeRef, types: &[TypeDef], depth: usize) -> Option<Primitive> {
        match ty {
            TypeRef::Primitive(p) if p.is_integer() => Some(*p),
            TypeRef::Named(id) if depth < 32 => match &types[id.0].kind {
                TypeKind::Alias(inner) => integer(inner, types, depth + 1),
                _ => None,
            },
            _ => None,
        }
    }
    match ty {
        TypeRef::Array(inner) => integer(inner, types, 0).map(|p| (p, true)),
        other => integer(other, types, 0).map(|p| (p, false)),
    }
}

/// `deserialize_with = "crate::wire::{name}::<_, {number}>"` (and the pattern marker).
fn wire_fn(name: &str, number: &TokenStream, marker: Option<&proc_macro2::Ident>) -> String {
    let number = type_text(number.clone());
    let path = match marker {
        Some(marker) => format!("crate::wire::{name}::<_, {number}, crate::patterns::{marker}>"),
        None => format!("crate::wire::{name}::<_, {number}>"),
    };
    format!("deserialize_with = {path:?}")
}

fn extra_field_name(s: &Struct) -> String {
    let mut name = "additional_properties".to_owned();
    while s.fields.iter().any(|f| f.name == name) {
        name.push('_');
    }
    name
}

/// `Some(n)` or `None`, as `rust::opt_usize` prints.
fn opt_usize_text(v: Option<usize>) -> String {
    v.map_or_else(|| "None".to_owned(), |n| format!("Some({n})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::assert_printed_as_is;

    #[test]
    fn validate_impls_are_laid_out_as_prettyplease_would() {
        let spec = r##"
openapi: 3.1.0
info: {title: Checks, version: '1'}
paths: {}
components:
  schemas:
    Limited:
      type: object
      required: [id]
      properties:
        id: {type: integer, minimum: 1, maximum: 4294967295, exclusiveMaximum: 9999999999}
        name: {type: string, minLength: 1, maxLength: 40, pattern: '^(([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\.){3}([0-9]|[1-9][0-9])$'}
        email: {type: string, format: email}
        old: {type: string, maxLength: 3, deprecated: true}
        matrix:
          type: array
          minItems: 1
          uniqueItems: true
          items: {type: array, maxItems: 3, items: {type: number, minimum: -5.5}}
        labels:
          type: object
          maxProperties: 9
          propertyNames: {pattern: '^[a-z]+$'}
          additionalProperties: {type: string, maxLength: 12}
        nothing: {type: [string, 'null'], maxLength: 2}
    AVeryLongUnionNameThatMakesTheVariantNamesOfItsMatchArmsRatherWide:
      oneOf:
        - {type: string, maxLength: 3}
        - {type: integer}
        - {$ref: '#/components/schemas/Limited'}
        - {$ref: '#/components/schemas/AnExtremelyLongSchemaNameSoThatItsMatchArmGoesPastTheWidthXy'}
        - {$ref: '#/components/schemas/AnotherExtremelyLongSchemaNameWithNothingToCheckAtAllHereXXXXXX'}
        - {$ref: '#/components/schemas/YetAnotherSchemaNameNothingToCheckOneCharLongerThanTheWidthXXXXX'}
    AnExtremelyLongSchemaNameSoThatItsMatchArmGoesPastTheWidthXy: {type: string, maxLength: 3}
    AnotherExtremelyLongSchemaNameWithNothingToCheckAtAllHereXXXXXX: {type: object, properties: {a: {type: string}}}
    YetAnotherSchemaNameNothingToCheckOneCharLongerThanTheWidthXXXXX: {type: object, properties: {b: {type: string}}}
"##;
        let (api, mut diags) = crate::load_api(spec).unwrap();
        let patterns = Patterns::collect(&api, &mut diags);
        let checked = checked_types(&api, true);
        let emitter = ModelEmitter::new(&api, &patterns, &checked, true);
        let mut arms = Vec::new();
        for def in &api.types {
            let text = emitter.validate_impl(def);
            arms.extend(text.lines().filter(|l| l.contains(") => {")).map(str::len));
            if !text.is_empty() {
                assert_printed_as_is(&text);
            }
        }
        // An empty arm's `}` does not count toward the width; the longer arms are broken.
        assert!(
            arms.contains(&90) && arms.iter().filter(|n| **n < 30).count() == 2,
            "{arms:?}"
        );
    }
}
