//! Building the IR from a lowered `openapiv3` document. Every schema that needs a Rust type becomes a
//! [`TypeDef`] with a name *hint*; final names are chosen afterwards, once, by `naming`.

mod access;
pub(crate) mod operations;
mod recursion;
mod schema;
mod tags;
mod unions;
mod view;
pub mod wire;

use crate::diagnostics::Diagnostics;
use crate::ir::{Api, NameHint, Publisher, TypeDef, TypeId, TypeKind, TypeRef};
use indexmap::IndexMap;
use openapiv3::OpenAPI;

/// The state of one [`build`]: the document, the types found so far and the component names
/// reserved for them. Its methods, one module each, read schemas, operations and hooks.
pub struct Builder<'a> {
    doc: &'a OpenAPI,
    types: Vec<TypeDef>,
    /// Component schema name -> its type, reserved before any schema is read so refs can point forward.
    components: IndexMap<String, TypeId>,
    /// Per union (by pointer): the `discriminator.mapping` entries, tag value -> type.
    mappings: unions::Mappings,
    diags: &'a mut Diagnostics,
}

/// The IR of a lowered document, its names not yet assigned (see [`crate::naming::resolve`]):
/// every component schema and inline schema that needs a type, the operations of `paths`, the
/// webhooks and callbacks, and the security schemes. Unions are tagged or ordered, cycles boxed
/// and required `readOnly`/`writeOnly` properties relaxed by usage before it returns. Problems
/// are added to `diags`; the caller stops if one is an error.
pub fn build(doc: &OpenAPI, diags: &mut Diagnostics) -> Api {
    let mut builder = Builder {
        doc,
        types: Vec::new(),
        components: IndexMap::new(),
        mappings: Default::default(),
        diags,
    };
    builder.reserve_components();
    builder.build_components();
    let operations = builder.build_operations();
    let hooks = builder.build_hooks();
    let security_schemes = builder.build_security_schemes();
    let mut types = builder.types;
    unions::resolve(&mut types, &builder.mappings, builder.diags);
    recursion::box_cycles(&mut types);
    unions::box_large_variants(&mut types);
    access::relax(&mut types, &operations);
    let mut api = Api {
        title: doc.info.title.clone(),
        version: doc.info.version.clone(),
        description: doc.info.description.clone(),
        publisher: publisher(&doc.info),
        types,
        security_schemes,
        operations_in_document: operations.len(),
        operations,
        hooks,
        tags: tags_of(doc),
    };
    tags::move_inline_tags_to_unions(&mut api);
    api
}

/// The document's tags, with what 3.2 adds to them (kept by lowering in
/// [`TAG`](crate::lower::v3_2::TAG)).
fn tags_of(doc: &OpenAPI) -> Vec<crate::ir::Tag> {
    doc.tags
        .iter()
        .map(|t| {
            let added = t.extensions.get(crate::lower::v3_2::TAG);
            let text = |key: &str| {
                added
                    .and_then(|a| a.get(key))
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
            };
            crate::ir::Tag {
                name: t.name.clone(),
                summary: text("summary"),
                description: t.description.clone(),
                parent: text("parent"),
                kind: text("kind"),
            }
        })
        .collect()
}

fn publisher(info: &openapiv3::Info) -> Publisher {
    let license = info.license.as_ref();
    let contact = info.contact.as_ref();
    let author = contact.and_then(|c| match (&c.name, &c.email) {
        (Some(name), Some(email)) => Some(format!("{name} <{email}>")),
        (Some(name), None) => Some(name.clone()),
        (None, Some(email)) => Some(format!("<{email}>")),
        (None, None) => None,
    });
    Publisher {
        license: license.map(|l| {
            l.extensions
                .get(crate::lower::LICENSE_IDENTIFIER)
                .and_then(serde_json::Value::as_str)
                .unwrap_or(&l.name)
                .to_owned()
        }),
        license_url: license.and_then(|l| l.url.clone()),
        contact: author,
        contact_url: contact.and_then(|c| c.url.clone()),
        terms_of_service: info.terms_of_service.clone(),
    }
}

impl Builder<'_> {
    fn reserve_components(&mut self) {
        let Some(components) = &self.doc.components else {
            return;
        };
        for name in components.schemas.keys() {
            let id = TypeId(self.types.len());
            self.types.push(TypeDef {
                name: String::new(),
                pointer: crate::diagnostics::child("/components/schemas", name),
                name_hint: NameHint {
                    base: name.clone(),
                    pinned: true,
                    context: None,
                    title: None,
                },
                doc: None,
                kind: TypeKind::Alias(TypeRef::Any),
                constraints: Default::default(),
            });
            self.components.insert(name.clone(), id);
        }
    }

    fn build_components(&mut self) {
        let Some(components) = &self.doc.components else {
            return;
        };
        for (name, schema) in &components.schemas {
            let id = self.components[name];
            let pointer = self.types[id.0].pointer.clone();
            match schema {
                openapiv3::ReferenceOr::Item(schema) => self.define_component(id, schema, &pointer),
                // A component that is only a reference is an alias of the referenced type.
                openapiv3::ReferenceOr::Reference { reference } => {
                    let target = self.resolve_schema_ref(reference, &pointer);
                    self.types[id.0].kind = TypeKind::Alias(target);
                }
            }
        }
    }

    /// Adds a named type and returns its id.
    fn add_type(
        &mut self,
        pointer: &str,
        hint: NameHint,
        doc: Option<String>,
        kind: TypeKind,
    ) -> TypeId {
        let id = TypeId(self.types.len());
        self.types.push(TypeDef {
            name: String::new(),
            pointer: pointer.to_owned(),
            name_hint: hint,
            doc,
            kind,
            constraints: Default::default(),
        });
        id
    }
}
