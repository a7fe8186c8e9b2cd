//! Documents split over files, and `$ref`s the later stages do not follow, made into one document
//! whose every schema `$ref` names a component (`#/components/schemas/Name`), as Redocly's and
//! swagger-cli's bundlers make them.
//!
//! The walk knows where it is in the OpenAPI structure (a schema, a parameter, a path item...), so
//! each `$ref` is handled as the object it stands for:
//! - **A schema** is kept by reference: its target becomes a component of the bundle (the same
//!   target always the same one, so cycles across files stay cycles) named after the component it
//!   is in its file, else its `$defs` key or the properties that lead to it, else its file
//!   (`schemas/pet.yaml` -> `pet`). A ref into a schema of the same file (`#/components/schemas/X/
//!   properties/y`, `#/$defs/Y`) moves that schema into a component that both places refer to.
//! - **A parameter, request body, response or header** of the root document's components stays a
//!   reference (the builder resolves those); callbacks too (the lowering does).
//! - **Anything else** is inlined where it stands: path items, security schemes, objects of other
//!   files, and `$ref`s where OpenAPI allows none but split documents put one (an operation, a
//!   description from a Markdown file), which also get a warning.
//!
//! Refs are resolved relative to the file that holds them; a missing file or pointer is an error
//! naming both.

use crate::diagnostics::{Diagnostics, child, unescape_token};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A document made whole.
#[derive(Debug, Clone)]
pub struct Bundled {
    /// The single-file document.
    pub document: Value,
    /// Every file read, the root first: what a drift check or `build.rs` must watch.
    pub files: Vec<PathBuf>,
    /// Warnings: `$ref`s followed where OpenAPI allows none.
    pub diagnostics: Diagnostics,
}

/// Reads the document at `path` and every file its `$ref`s reach, into one document.
pub fn bundle_file(path: &Path) -> Result<Bundled, Diagnostics> {
    let mut bundler = Bundler::default();
    let root = bundler.load(path).map_err(|message| {
        let mut diags = Diagnostics::default();
        diags.error("", message);
        diags
    })?;
    bundler.run(root)
}

/// The same for a document given as text (no file): refs to other files are errors.
pub fn bundle_value(document: Value) -> Result<Bundled, Diagnostics> {
    let mut bundler = Bundler::default();
    bundler.add(None, document);
    bundler.run(0)
}

/// Where the walk is in the OpenAPI structure: what a `$ref` there stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Document,
    PathItem,
    Operation,
    Parameter,
    RequestBody,
    Responses,
    Response,
    Header,
    MediaType,
    Encoding,
    Example,
    Link,
    Callback,
    SecurityScheme,
    Components,
    Schema,
    /// Outside any object OpenAPI lets a `$ref` stand for (info, tags, servers...).
    Other,
}

/// How a key's value is walked.
enum Child {
    One(Kind),
    Map(Kind),
    List(Kind),
    /// A schema or a list of schemas (`items` of older drafts).
    OneOrList(Kind),
    /// Data, not a document: never walked (`example`, `default`, `enum`...).
    Data,
}

/// The keywords of a schema whose value is one schema (`items` aside: it may be a list in older
/// drafts).
pub(crate) const ONE_SCHEMA_KEYWORDS: [&str; 11] = [
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "contentSchema",
];

fn child_of(kind: Kind, key: &str) -> Child {
    use Child::*;
    use Kind::*;
    if key.starts_with("x-") {
        return Data;
    }
    match (kind, key) {
        (Document, "paths" | "webhooks") => Map(PathItem),
        (Document, "components") => One(Components),
        (
            PathItem,
            "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace" | "query",
        ) => One(Operation),
        (PathItem, "additionalOperations") => Map(Operation),
        (PathItem | Operation, "parameters") => List(Parameter),
        (Operation, "requestBody") => One(RequestBody),
        (Operation, "responses") => One(Responses),
        (Operation, "callbacks") => Map(Callback),
        (Callback, _) => One(PathItem),
        (Responses, _) => One(Response),
        (Response | Encoding, "headers") => Map(Header),
        (Response, "links") => Map(Link),
        (Response | RequestBody | Parameter | Header, "content") => Map(MediaType),
        (Parameter | Header | MediaType, "schema") | (MediaType, "itemSchema") => One(Schema),
        (Parameter | Header | MediaType, "examples") => Map(Example),
        (MediaType, "encoding") => Map(Encoding),
        (Components, "schemas") => Map(Schema),
        (Components, "responses") => Map(Response),
        (Components, "parameters") => Map(Parameter),
        (Components, "examples") => Map(Example),
        (Components, "requestBodies") => Map(RequestBody),
        (Components, "headers") => Map(Header),
        (Components, "securitySchemes") => Map(SecurityScheme),
        (Components, "links") => Map(Link),
        (Components, "callbacks") => Map(Callback),
        (Components, "pathItems") => Map(PathItem),
        (Components, "mediaTypes") => Map(MediaType),
        (
            Schema,
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
        ) => Map(Schema),
        (Schema, "items") => OneOrList(Schema),
        (Schema, "allOf" | "anyOf" | "oneOf" | "prefixItems") => List(Schema),
        (Schema, key) if ONE_SCHEMA_KEYWORDS.contains(&key) => One(Schema),
        (_, "example" | "examples" | "default" | "enum" | "const" | "value") => Data,
        (Link, "parameters" | "requestBody") => Data,
        _ => One(Other),
    }
}

/// The components the builder finds by reference, per kind.
fn kept_section(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::Parameter => Some("parameters"),
        Kind::RequestBody => Some("requestBodies"),
        Kind::Response => Some("responses"),
        Kind::Header => Some("headers"),
        Kind::Callback => Some("callbacks"),
        _ => None,
    }
}

/// A place in a source file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Loc {
    file: usize,
    pointer: String,
}

#[derive(Default)]
struct Bundler {
    /// Every file read (`None`: a document given as text), with its parsed content.
    files: Vec<(Option<PathBuf>, Value)>,
    by_path: HashMap<PathBuf, usize>,
    /// Schemas kept by reference: target -> component name in the bundle.
    hoisted: HashMap<Loc, String>,
    /// Names taken in the bundle's `components.schemas`.
    taken: HashSet<String>,
    /// Components added to the bundle, in the order they were found.
    added: Vec<(String, Value)>,
    /// Schemas of a file that a ref of the same file points into: moved into a component.
    moved: HashSet<Loc>,
    /// Root components that are only a ref to a schema of another file: the schema itself, under
    /// the component's name (rather than an alias of a component named after the file).
    adopted: HashMap<Loc, Loc>,
    /// Non-schema objects being inlined, to report a cycle instead of looping.
    inlining: Vec<Loc>,
    diags: Diagnostics,
}

impl Bundler {
    fn run(mut self, root: usize) -> Result<Bundled, Diagnostics> {
        let mut document = self.files[root].1.clone();
        self.taken.extend(
            document
                .pointer("/components/schemas")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|schemas| schemas.keys().cloned()),
        );
        // One file whose refs all name components the later stages find: nothing to do (most
        // documents; the walk would cost stripe's 3 MB a tenth of its run).
        if !self.prescan(root) {
            return Ok(Bundled {
                document,
                files: self
                    .files
                    .into_iter()
                    .filter_map(|(path, _)| path)
                    .collect(),
                diagnostics: self.diags,
            });
        }
        self.adopt_components(&document, root);
        let at = Loc {
            file: root,
            pointer: String::new(),
        };
        // A ref that could not be followed stays as written, an error in the diagnostics: the
        // salvage leaves out what needs it, `--strict` refuses the document.
        self.walk(&mut document, Kind::Document, &at, false);
        if !self.added.is_empty() {
            let root = document.as_object_mut().expect("a document is an object");
            let components = root
                .entry("components")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(components) = components.as_object_mut() {
                let schemas = components
                    .entry("schemas")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(schemas) = schemas.as_object_mut() {
                    schemas.extend(self.added);
                }
            }
        }
        Ok(Bundled {
            document,
            files: self
                .files
                .into_iter()
                .filter_map(|(path, _)| path)
                .collect(),
            diagnostics: self.diags,
        })
    }

    /// Registers the root's components that only refer to another file's schema (see `adopted`),
    /// before any ref to that schema is met.
    fn adopt_components(&mut self, document: &Value, root: usize) {
        let Some(schemas) = document
            .pointer("/components/schemas")
            .and_then(Value::as_object)
        else {
            return;
        };
        for (name, schema) in schemas {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                continue;
            };
            if reference.starts_with('#') {
                continue;
            }
            let at = Loc {
                file: root,
                pointer: child("/components/schemas", name),
            };
            if let Some(target) = self.resolve(reference, &at)
                && !self.hoisted.contains_key(&target)
            {
                self.hoisted.insert(target.clone(), name.clone());
                self.adopted.insert(at, target);
            }
        }
    }

    fn add(&mut self, path: Option<PathBuf>, value: Value) -> usize {
        let file = self.files.len();
        if let Some(path) = &path {
            self.by_path.insert(path.clone(), file);
        }
        self.files.push((path, value));
        file
    }

    /// Reads a file once: YAML or JSON, or any other text as a string (a description in Markdown).
    fn load(&mut self, path: &Path) -> Result<usize, String> {
        let path = path
            .canonicalize()
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        if let Some(file) = self.by_path.get(&path) {
            return Ok(*file);
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let structured = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        );
        let value = if structured {
            crate::load::parse_text(&text).map_err(|d| {
                let messages: Vec<&str> = d.0.iter().map(|d| d.message.as_str()).collect();
                format!("`{}`: {}", path.display(), messages.join("; "))
            })?
        } else {
            Value::String(text)
        };
        Ok(self.add(Some(path), value))
    }

    fn name(&self, file: usize) -> String {
        match &self.files[file].0 {
            Some(path) => path.display().to_string(),
            None => "the document".to_owned(),
        }
    }

    /// A diagnostic's pointer: in the root document as it is, in other files `file#pointer`.
    fn at(&self, loc: &Loc) -> String {
        if loc.file == 0 {
            loc.pointer.clone()
        } else {
            format!("{}#{}", self.name(loc.file), loc.pointer)
        }
    }

    fn walk(&mut self, value: &mut Value, kind: Kind, at: &Loc, hoisting: bool) {
        if let Some(target) = self.adopted.remove(at) {
            let Some(mut content) = self.lookup(&target, at) else {
                return;
            };
            self.walk(&mut content, Kind::Schema, &target, true);
            merge_siblings(&mut content, value);
            *value = content;
            return;
        }
        // A schema another ref points into becomes a component both refer to.
        if kind == Kind::Schema && !hoisting && self.moved.contains(at) {
            let name = self.hoist(at.clone());
            *value = reference_to(&name);
            return;
        }
        let Some(object) = value.as_object_mut() else {
            return;
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let reference = reference.to_owned();
            if self.follow(value, kind, at, &reference) {
                return;
            }
        }
        let Some(object) = value.as_object_mut() else {
            return;
        };
        for (key, item) in object.iter_mut() {
            if key == "$ref" {
                continue;
            }
            let here = Loc {
                file: at.file,
                pointer: child(&at.pointer, key),
            };
            if kind == Kind::Schema && key == "discriminator" {
                self.rewrite_mapping(item, &here);
                continue;
            }
            match child_of(kind, key) {
                Child::One(kind) => self.walk(item, kind, &here, false),
                Child::OneOrList(kind) if item.is_array() => self.walk_items(item, kind, &here),
                Child::OneOrList(kind) => self.walk(item, kind, &here, false),
                Child::List(kind) => self.walk_items(item, kind, &here),
                Child::Map(kind) => {
                    let here = self.follow_map(item, key, here);
                    if let Some(map) = item.as_object_mut() {
                        let mut moved = Vec::new();
                        for (name, entry) in map.iter_mut() {
                            let loc = Loc {
                                file: here.file,
                                pointer: child(&here.pointer, name),
                            };
                            if self.moved.contains(&loc) {
                                moved.push(name.clone());
                            }
                            self.walk(entry, kind, &loc, false);
                        }
                        // Definitions that moved into components are not the schema's any more.
                        if matches!(key.as_str(), "$defs" | "definitions") {
                            map.retain(|name, _| !moved.contains(name));
                        }
                    }
                }
                Child::Data => {}
            }
        }
        if kind == Kind::Schema {
            object.retain(|key, item| {
                !(matches!(key.as_str(), "$defs" | "definitions")
                    && item.as_object().is_some_and(Map::is_empty))
            });
        }
    }

    fn walk_items(&mut self, list: &mut Value, kind: Kind, at: &Loc) {
        if let Some(items) = list.as_array_mut() {
            for (i, item) in items.iter_mut().enumerate() {
                let loc = Loc {
                    file: at.file,
                    pointer: format!("{}/{i}", at.pointer),
                };
                self.walk(item, kind, &loc, false);
            }
        }
    }

    /// A map written as a `$ref` to a map elsewhere (`properties: {$ref: attributes.yml#/x}`, as
    /// Redocly's split documents have them) is replaced by its target. OpenAPI and JSON Schema
    /// allow a Reference Object only where an object of their own stands, not for a map of them;
    /// bundlers follow it as a JSON Reference all the same. Returns where the entries come from.
    fn follow_map(&mut self, map: &mut Value, key: &str, here: Loc) -> Loc {
        let mut here = here;
        // A map may refer on to another (bounded: a cycle of maps stops here, its ref kept).
        for _ in 0..8 {
            let Some(reference) = map_reference(map) else {
                break;
            };
            let Some(target) = self.resolve(&reference, &here) else {
                break;
            };
            let Some(content) = self.lookup(&target, &here) else {
                break;
            };
            self.diags.warning(
                self.at(&here),
                format!(
                    "`{key}` is a map, where OpenAPI and JSON Schema allow no `$ref`; `{reference}` \
                     is followed as a JSON Reference and inlined, as bundlers do"
                ),
            );
            *map = content;
            here = target;
        }
        here
    }

    /// Handles the `$ref` of `value`. Returns whether the object is done (inlined or kept).
    fn follow(&mut self, value: &mut Value, kind: Kind, at: &Loc, reference: &str) -> bool {
        let Some(target) = self.resolve(reference, at) else {
            return true;
        };
        match kind {
            Kind::Schema => {
                let name = if target.file == 0 && component_schema(&target.pointer).is_some() {
                    component_schema(&target.pointer).expect("checked")
                } else {
                    self.hoist(target.clone())
                };
                value["$ref"] = Value::String(format!("#/components/schemas/{}", escape(&name)));
                // Keywords beside the ref (3.1) are walked as the schema's own.
                false
            }
            _ if target.file == 0
                && kept_section(kind).is_some_and(|section| {
                    component_of(&target.pointer).is_some_and(|(s, _)| s == section)
                }) =>
            {
                value["$ref"] = Value::String(format!("#{}", target.pointer));
                true
            }
            _ => {
                if matches!(
                    kind,
                    Kind::Operation | Kind::Other | Kind::Document | Kind::Responses
                ) {
                    self.diags.warning(
                        self.at(at),
                        format!("`$ref` is not allowed here by OpenAPI; `{reference}` is followed as a JSON Reference and inlined, as bundlers do"),
                    );
                }
                self.inline(value, kind, at, target);
                true
            }
        }
    }

    /// Replaces a `$ref` object by its target, walked where it comes from; keys beside the ref
    /// (`summary`, `description`) win, as in a 3.1 Reference Object.
    fn inline(&mut self, value: &mut Value, kind: Kind, at: &Loc, target: Loc) {
        if self.inlining.contains(&target) {
            self.diags.error(
                self.at(at),
                format!(
                    "`$ref` cycle through `{}#{}`: only schemas may refer to themselves",
                    self.name(target.file),
                    target.pointer
                ),
            );
            return;
        }
        let Some(mut content) = self.lookup(&target, at) else {
            return;
        };
        self.inlining.push(target.clone());
        self.walk(&mut content, kind, &target, false);
        self.inlining.pop();
        merge_siblings(&mut content, value);
        *value = content;
    }

    /// The component a schema is kept as, added (and walked) the first time it is named.
    fn hoist(&mut self, target: Loc) -> String {
        if let Some(name) = self.hoisted.get(&target) {
            return name.clone();
        }
        let stem = self.files[target.file]
            .0
            .as_ref()
            .and_then(|p| p.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let base = schema_name(&target.pointer).unwrap_or_else(|| stem.clone());
        let mut name = base.clone();
        if self.taken.contains(&name) && !stem.is_empty() && !base.starts_with(&stem) {
            name = format!("{stem}_{base}");
        }
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        self.hoisted.insert(target.clone(), name.clone());
        let Some(mut content) = self.lookup(&target, &target) else {
            return name;
        };
        self.walk(&mut content, Kind::Schema, &target, true);
        self.added.push((name.clone(), content));
        name
    }

    /// `discriminator.mapping` values that are references name the components they become.
    fn rewrite_mapping(&mut self, discriminator: &mut Value, at: &Loc) {
        let Some(mapping) = discriminator
            .get_mut("mapping")
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        for value in mapping.values_mut() {
            let Some(reference) = value.as_str().map(str::to_owned) else {
                continue;
            };
            // A bare name is a component's name, not a reference.
            if !reference.contains(['#', '/', '.']) {
                continue;
            }
            if let Some(target) = self.resolve(&reference, at) {
                let name = match component_schema(&target.pointer) {
                    Some(name) if target.file == 0 => name,
                    _ => self.hoist(target.clone()),
                };
                *value = Value::String(format!("#/components/schemas/{}", escape(&name)));
            }
        }
    }

    /// The file and pointer a reference names, relative to the file that holds it; a
    /// diagnostic where it names none.
    fn resolve(&mut self, reference: &str, at: &Loc) -> Option<Loc> {
        match self.locate_from(reference, at) {
            Ok((loc, bent)) => {
                if bent {
                    self.diags.warning(
                        self.at(at),
                        format!(
                            "`$ref` `{reference}` names no definition at the document's root; \
                             it is resolved in the enclosing schema that defines it, at `{}`, as \
                             the standalone JSON Schema it was written in meant",
                            self.at(&loc)
                        ),
                    );
                }
                Some(loc)
            }
            Err(message) => {
                self.diags
                    .error(self.at(at), format!("`$ref` `{reference}`: {message}"));
                None
            }
        }
    }

    fn locate(&mut self, reference: &str, file: usize) -> Result<Loc, String> {
        self.locate_within(reference, file, 0)
    }

    /// [`Self::locate`] of a ref written at `at`, and whether it bends the rules: `#/$defs/X`
    /// (or `#/definitions/X`) that misses at the root names the definition of the schema it
    /// was written in, as in the standalone schema it was embedded from (Pydantic's). An `$id`
    /// on the way up makes that schema the base, as JSON Schema says (no bending then).
    fn locate_from(&mut self, reference: &str, at: &Loc) -> Result<(Loc, bool), String> {
        let loc = self.locate(reference, at.file)?;
        let document = &self.files[loc.file].1;
        let is_definition = ["/$defs/", "/definitions/"]
            .iter()
            .any(|section| loc.pointer.starts_with(section));
        if !reference.starts_with('#') || !is_definition || document.pointer(&loc.pointer).is_some()
        {
            return Ok((loc, false));
        }
        let ancestors = ancestors(&at.pointer);
        let with_id = ancestors.iter().find(|ancestor| {
            document
                .pointer(ancestor)
                .is_some_and(|node| node.get("$id").is_some_and(Value::is_string))
        });
        let found = match with_id {
            Some(base) => Some((format!("{base}{}", loc.pointer), false)),
            None => ancestors
                .iter()
                .map(|ancestor| format!("{ancestor}{}", loc.pointer))
                .find(|candidate| document.pointer(candidate).is_some())
                .map(|candidate| (candidate, true)),
        };
        Ok(match found {
            Some((pointer, bent)) => (
                Loc {
                    file: loc.file,
                    pointer,
                },
                bent,
            ),
            None => (loc, false),
        })
    }

    fn locate_within(&mut self, reference: &str, file: usize, depth: usize) -> Result<Loc, String> {
        let named = self.named(reference, file)?;
        self.canonical(named, depth)
    }

    /// Where a pointer really leads when it passes through `$ref`s on its way
    /// (`#/components/schemas/Owner/properties/address` with `Owner: {$ref: owner.json}` is
    /// `owner.json#/properties/address`), so each schema has one place, whatever the path to it.
    fn canonical(&mut self, loc: Loc, depth: usize) -> Result<Loc, String> {
        if depth > 32 {
            return Err("too many `$ref`s in a row (a cycle?)".into());
        }
        let mut file = loc.file;
        let mut at = String::new();
        for token in loc.pointer.split('/').skip(1) {
            let node = self.files[file].1.pointer(&at);
            let has = node.is_some_and(|n| match n {
                Value::Object(map) => map.contains_key(&unescape_token(token)),
                Value::Array(items) => token.parse::<usize>().is_ok_and(|i| i < items.len()),
                _ => false,
            });
            if !has
                && let Some(reference) = node
                    .and_then(|n| n.get("$ref"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            {
                let through = self.locate_within(&reference, file, depth + 1)?;
                file = through.file;
                at = through.pointer;
            }
            at = format!("{at}/{token}");
        }
        Ok(Loc { file, pointer: at })
    }

    fn named(&mut self, reference: &str, file: usize) -> Result<Loc, String> {
        let (file_part, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let pointer =
            decode_fragment(fragment).ok_or("the part after `#` is not a JSON pointer")?;
        if file_part.is_empty() {
            return Ok(Loc { file, pointer });
        }
        // A URL under the root document's own (3.2 `$self`) names a file beside it.
        let (file, file_part) = match self.under_self(file_part) {
            Some(relative) => (0, relative),
            None => (file, file_part.to_owned()),
        };
        if file_part.contains("://") {
            return Err("remote documents are not fetched; save it and refer to the file".into());
        }
        let base = self.files[file].0.as_ref().and_then(|p| p.parent()).ok_or(
            "it names another file: read the document from its file (`--spec path`, \
             `generate_file`) so the file can be found",
        )?;
        let path = base.join(percent_decode(&file_part));
        let file = self.load(&path)?;
        Ok(Loc { file, pointer })
    }

    /// `https://example.com/api/schemas/pet.yaml` when the root document says it is
    /// `$self: https://example.com/api/openapi.yaml`: `schemas/pet.yaml`, beside the root's file.
    fn under_self(&self, url: &str) -> Option<String> {
        let own = self.files.first()?.1.get("$self")?.as_str()?;
        let base = &own[..own.rfind('/')? + 1];
        (own.contains("://") && url.starts_with(base)).then(|| url[base.len()..].to_owned())
    }

    /// Every file the refs reach, read before the walk, and every schema a ref points inside of
    /// (`#/components/schemas/X/properties/y`, `other.yaml#/$defs/Y`): moved into a component
    /// wherever the walk meets it first, so it is one type.
    /// Returns whether the walk has anything to do.
    fn prescan(&mut self, root: usize) -> bool {
        let mut work = false;
        let mut next = root;
        while next < self.files.len() {
            let mut refs = Vec::new();
            collect_refs(&self.files[next].1, &mut Vec::new(), &mut refs);
            for (pointer, reference) in refs {
                work |= !is_kept_as_is(&reference);
                let at = Loc {
                    file: next,
                    pointer,
                };
                if let Ok((target, _)) = self.locate_from(&reference, &at)
                    && is_inside(&target.pointer)
                {
                    self.moved.insert(target);
                }
            }
            next += 1;
        }
        work || self.files.len() > 1
    }

    fn lookup(&mut self, target: &Loc, at: &Loc) -> Option<Value> {
        let found = self.files[target.file].1.pointer(&target.pointer).cloned();
        if found.is_none() {
            self.diags.error(
                self.at(at),
                format!(
                    "`$ref` target `{}#{}` does not exist",
                    self.name(target.file),
                    target.pointer
                ),
            );
        }
        found
    }
}

/// `#/components/schemas/{name}` exactly: the name.
fn component_schema(pointer: &str) -> Option<String> {
    component_of(pointer)
        .filter(|(section, _)| *section == "schemas")
        .map(|(_, name)| name)
}

/// `/components/{section}/{name}` exactly.
fn component_of(pointer: &str) -> Option<(&str, String)> {
    let rest = pointer.strip_prefix("/components/")?;
    let (section, name) = rest.split_once('/')?;
    (!name.contains('/')).then(|| (section, unescape_token(name)))
}

/// A ref the later stages resolve themselves (where it stands in a place of its kind).
fn is_kept_as_is(reference: &str) -> bool {
    reference
        .strip_prefix('#')
        .and_then(component_of)
        .is_some_and(|(section, _)| {
            matches!(
                section,
                "schemas" | "parameters" | "requestBodies" | "responses" | "headers" | "callbacks"
            )
        })
}

/// A pointer below a whole file and below a component (`/components/schemas/X/properties/y`,
/// `/$defs/Y`): a schema that is part of another.
fn is_inside(pointer: &str) -> bool {
    !pointer.is_empty() && component_of(pointer).is_none()
}

/// The name a schema kept by reference gets from where it is: its component's name, or the
/// names that lead to it (`Pet/properties/owner` -> `Pet_owner`, `$defs/Tag` -> `Tag`); `None`
/// for a whole file.
fn schema_name(pointer: &str) -> Option<String> {
    const STRUCTURE: [&str; 17] = [
        "components",
        "schemas",
        "properties",
        "patternProperties",
        "items",
        "prefixItems",
        "$defs",
        "definitions",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "additionalProperties",
        "content",
        "schema",
        "paths",
        "dependentSchemas",
    ];
    let words: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(unescape_token)
        .filter(|t| !STRUCTURE.contains(&t.as_str()) && t.parse::<usize>().is_err())
        .collect();
    (!words.is_empty()).then(|| words.join("_"))
}

/// The keys beside a `$ref` (`summary`, `description`) override the target's.
fn merge_siblings(content: &mut Value, reference: &Value) {
    if let (Some(content), Some(siblings)) = (content.as_object_mut(), reference.as_object()) {
        for (key, sibling) in siblings {
            if key != "$ref" {
                content.insert(key.clone(), sibling.clone());
            }
        }
    }
}

fn reference_to(name: &str) -> Value {
    let mut object = Map::new();
    object.insert(
        "$ref".to_owned(),
        Value::String(format!("#/components/schemas/{}", escape(name))),
    );
    Value::Object(object)
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A URI fragment as a JSON pointer: percent-decoded, `""` or starting with `/`.
pub(crate) fn decode_fragment(fragment: &str) -> Option<String> {
    let pointer = percent_decode(fragment);
    (pointer.is_empty() || pointer.starts_with('/')).then_some(pointer)
}

fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// Every `$ref` string in a tree, with the pointer of the object that holds it (data included: a
/// file's own refs decide what moves). `path` is the tokens down to `value`, escaped; a pointer is
/// written only for a ref (this runs over every node of a large document).
fn collect_refs(value: &Value, path: &mut Vec<String>, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                match (key.as_str(), item) {
                    ("$ref", Value::String(reference)) => {
                        let pointer = path.iter().fold(String::new(), |p, t| p + "/" + t);
                        out.push((pointer, reference.clone()));
                    }
                    _ if item.is_object() || item.is_array() => {
                        path.push(escape(key));
                        collect_refs(item, path, out);
                        path.pop();
                    }
                    _ => {}
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                collect_refs(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// An object that is only a `$ref` (and the `summary` and `description` a Reference Object may
/// have beside it): the reference. A property named `$ref` holds a schema, not a string.
fn map_reference(value: &Value) -> Option<String> {
    let object = value.as_object()?;
    let reference = object.get("$ref")?.as_str()?;
    object
        .keys()
        .all(|key| matches!(key.as_str(), "$ref" | "summary" | "description"))
        .then(|| reference.to_owned())
}

/// The pointers that hold `pointer`, the nearest first, itself included (`/a/b`: `/a/b`, `/a`, ``).
fn ancestors(pointer: &str) -> Vec<String> {
    let mut out = vec![pointer.to_owned()];
    let mut rest = pointer;
    while let Some(cut) = rest.rfind('/') {
        rest = &rest[..cut];
        out.push(rest.to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A folder of files (name -> YAML or text), removed when dropped.
    struct Files(PathBuf);

    impl Files {
        fn new(test: &str, files: &[(&str, &str)]) -> Files {
            let dir = std::env::temp_dir()
                .join(format!("openapi-gen-bundle-{test}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            for (name, text) in files {
                let path = dir.join(name);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            Files(dir)
        }

        fn bundle(&self) -> Result<Bundled, Diagnostics> {
            bundle_file(&self.0.join("openapi.yaml")).and_then(|b| {
                if b.diagnostics.has_errors() {
                    Err(b.diagnostics)
                } else {
                    Ok(b)
                }
            })
        }
    }

    impl Drop for Files {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const HEAD: &str = "openapi: 3.1.0\ninfo: {title: T, version: '1'}\n";

    #[test]
    fn a_document_without_such_refs_is_left_as_it_is() {
        let document = json!({"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
            "paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/parameters/P"}],
                "responses": {"200": {"$ref": "#/components/responses/R"}}}}},
            "components": {"schemas": {"A": {"type": "object", "properties": {
                "b": {"$ref": "#/components/schemas/B"}}, "example": {"$ref": "data"}},
                "B": {"type": "string"}},
                "parameters": {"P": {"name": "p", "in": "query", "schema": {"type": "string"}}},
                "responses": {"R": {"description": "r"}}}});
        let bundled = bundle_value(document.clone()).unwrap();
        assert_eq!(bundled.document, document);
        assert!(bundled.diagnostics.0.is_empty());
    }

    #[test]
    fn schemas_of_other_files_become_components_named_after_where_they_are() {
        let files = Files::new(
            "names",
            &[
                (
                    "openapi.yaml",
                    &format!(
                        "{HEAD}paths: {{}}\ncomponents:\n  schemas:\n    Pet: {{$ref: schemas/pet.yaml}}\n    Box: {{type: object, properties: {{a: {{$ref: 'schemas/defs.json#/$defs/Item'}}, b: {{$ref: 'schemas/common.yaml#/components/schemas/Pet'}}}}}}\n"
                    ),
                ),
                (
                    "schemas/pet.yaml",
                    "type: object\nproperties:\n  self: {$ref: pet.yaml}\n  same: {$ref: '#'}\n",
                ),
                (
                    "schemas/defs.json",
                    r#"{"$defs": {"Item": {"type": "string"}}}"#,
                ),
                (
                    "schemas/common.yaml",
                    "components: {schemas: {Pet: {type: integer}}}\n",
                ),
            ],
        );
        let bundled = files.bundle().unwrap();
        let schemas = &bundled.document["components"]["schemas"];
        // A component that only refers to a file is that file's schema, under its own name; the
        // schema's refs to itself (by file and by `#`) name the component.
        assert_eq!(
            schemas["Pet"],
            json!({"type": "object", "properties": {
                "self": {"$ref": "#/components/schemas/Pet"},
                "same": {"$ref": "#/components/schemas/Pet"}}})
        );
        assert_eq!(schemas["Item"], json!({"type": "string"}));
        // `Pet` is taken: the other file's `Pet` is prefixed with its file's name.
        assert_eq!(schemas["common_Pet"], json!({"type": "integer"}));
        assert_eq!(
            schemas["Box"]["properties"],
            json!({"a": {"$ref": "#/components/schemas/Item"},
                   "b": {"$ref": "#/components/schemas/common_Pet"}})
        );
        assert_eq!(bundled.files.len(), 4);
    }

    #[test]
    fn a_ref_into_a_property_moves_the_property_into_a_component() {
        let document = json!({"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
            "paths": {"/a": {"get": {"responses": {"200": {"description": "a",
                "content": {"application/json": {"schema":
                    {"$ref": "#/components/schemas/Owner/properties/address"}}}}}}}},
            "components": {"schemas": {"Owner": {"type": "object", "properties": {
                "address": {"type": "object", "properties": {"city": {"type": "string"}}}}}}}});
        let bundled = bundle_value(document).unwrap();
        let schemas = &bundled.document["components"]["schemas"];
        assert_eq!(
            schemas["Owner"]["properties"]["address"],
            json!({"$ref": "#/components/schemas/Owner_address"})
        );
        assert_eq!(
            schemas["Owner_address"],
            json!({"type": "object", "properties": {"city": {"type": "string"}}})
        );
        assert_eq!(
            bundled
                .document
                .pointer("/paths/~1a/get/responses/200/content/application~1json/schema/$ref"),
            Some(&json!("#/components/schemas/Owner_address"))
        );
    }

    #[test]
    fn path_items_security_schemes_and_misplaced_refs_are_inlined() {
        let files = Files::new(
            "inline",
            &[
                (
                    "openapi.yaml",
                    "openapi: 3.1.0\ninfo:\n  title: T\n  version: '1'\n  description: {$ref: intro.md}\npaths:\n  /a: {$ref: paths/a.yaml}\n  /b:\n    get: {$ref: 'paths/a.yaml#/get', summary: Mine}\ncomponents:\n  securitySchemes:\n    key: {$ref: security.yaml}\n",
                ),
                ("intro.md", "Hello."),
                (
                    "paths/a.yaml",
                    "get:\n  responses:\n    '204': {$ref: '../responses.yaml#/Empty'}\n",
                ),
                ("responses.yaml", "Empty: {description: Nothing.}\n"),
                ("security.yaml", "{type: apiKey, in: header, name: X-Key}\n"),
            ],
        );
        let bundled = files.bundle().unwrap();
        let document = &bundled.document;
        assert_eq!(document["info"]["description"], json!("Hello."));
        let get = json!({"responses": {"204": {"description": "Nothing."}}});
        assert_eq!(document["paths"]["/a"], json!({"get": get}));
        assert_eq!(
            document["paths"]["/b"]["get"],
            json!({"responses": {"204": {"description": "Nothing."}}, "summary": "Mine"})
        );
        assert_eq!(
            document["components"]["securitySchemes"]["key"],
            json!({"type": "apiKey", "in": "header", "name": "X-Key"})
        );
        let warnings: Vec<String> = bundled
            .diagnostics
            .0
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].starts_with("warning: /info/description: `$ref` is not allowed here"));
        assert!(warnings[1].starts_with("warning: /paths/~1b/get: `$ref` is not allowed here"));
    }

    #[test]
    fn a_missing_file_or_pointer_names_both() {
        let files = Files::new(
            "missing",
            &[
                (
                    "openapi.yaml",
                    &format!(
                        "{HEAD}paths:\n  /a: {{$ref: paths/a.yaml}}\ncomponents:\n  schemas:\n    A: {{$ref: 'schemas.yaml#/B'}}\n"
                    ),
                ),
                ("schemas.yaml", "C: {type: string}\n"),
            ],
        );
        let errors = files.bundle().unwrap_err().to_string();
        assert!(
            errors.contains("error: /paths/~1a: `$ref` `paths/a.yaml`: cannot read `")
                && errors.contains("paths/a.yaml`: No such file"),
            "{errors}"
        );
        assert!(
            errors.contains("error: /components/schemas/A: `$ref` target `")
                && errors.contains("schemas.yaml#/B` does not exist"),
            "{errors}"
        );
    }

    #[test]
    fn refs_that_cannot_be_followed_are_errors() {
        let remote = json!({"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
            "paths": {"/a": {"$ref": "https://example.com/a.yaml"}}});
        let errors = bundle_value(remote).unwrap().diagnostics.to_string();
        assert!(
            errors.contains("remote documents are not fetched"),
            "{errors}"
        );
        let text = json!({"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
            "paths": {"/a": {"$ref": "paths/a.yaml"}}});
        let errors = bundle_value(text).unwrap().diagnostics.to_string();
        assert!(
            errors.contains("read the document from its file"),
            "{errors}"
        );
        let cycle = json!({"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
            "paths": {"/a": {"$ref": "#/paths/~1b"}, "/b": {"$ref": "#/paths/~1a"}}});
        let errors = bundle_value(cycle).unwrap().diagnostics.to_string();
        assert!(errors.contains("`$ref` cycle through"), "{errors}");
    }

    #[test]
    fn urls_under_the_documents_own_name_are_files_beside_it() {
        let files = Files::new(
            "self",
            &[
                (
                    "openapi.yaml",
                    "openapi: 3.2.0\n$self: https://example.com/api/openapi.yaml\ninfo: {title: T, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Pet: {$ref: 'https://example.com/api/schemas/pet.yaml'}\n    Far: {$ref: 'https://elsewhere.example/pet.yaml'}\n",
                ),
                ("schemas/pet.yaml", "type: string\n"),
            ],
        );
        let errors = files.bundle().unwrap_err().to_string();
        // The ref under `$self` was read from the file; the other one is not fetched.
        assert!(!errors.contains("/components/schemas/Pet"), "{errors}");
        assert!(
            errors.contains("error: /components/schemas/Far: `$ref` `https://elsewhere.example/pet.yaml`: remote documents are not fetched"),
            "{errors}"
        );
    }

    #[test]
    fn schemas_may_refer_to_each_other_across_files() {
        let files = Files::new(
            "cycle",
            &[
                (
                    "openapi.yaml",
                    &format!(
                        "{HEAD}paths: {{}}\ncomponents:\n  schemas:\n    Node: {{$ref: a.yaml}}\n"
                    ),
                ),
                (
                    "a.yaml",
                    "type: object\nproperties: {next: {$ref: b.yaml}}\n",
                ),
                (
                    "b.yaml",
                    "type: object\nproperties: {back: {$ref: a.yaml}}\n",
                ),
            ],
        );
        let bundled = files.bundle().unwrap();
        let schemas = &bundled.document["components"]["schemas"];
        assert_eq!(
            schemas["Node"]["properties"]["next"],
            json!({"$ref": "#/components/schemas/b"})
        );
        assert_eq!(
            schemas["b"]["properties"]["back"],
            json!({"$ref": "#/components/schemas/Node"})
        );
    }
}
