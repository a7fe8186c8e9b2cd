//! Mutations of a parsed OpenAPI document that break one part of it: a component deleted, a `$ref`
//! pointed at nothing or at the wrong kind of object, schemas made into a cycle of aliases, a
//! discriminator mapping to a schema that does not exist. Each is chosen by a seeded RNG, so a case
//! is reproducible from its seed.

use fastrand::Rng;
use openapi_gen::diagnostics::child;
use serde_json::{Map, Value, json};

/// What a mutation did.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Kind {
    DeleteComponent,
    MissingRef,
    MisplacedRef,
    AliasCycle,
    MissingMapping,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::DeleteComponent => "component deleted",
            Kind::MissingRef => "$ref to a missing name",
            Kind::MisplacedRef => "$ref to another place",
            Kind::AliasCycle => "cycle of aliases",
            Kind::MissingMapping => "mapping to a missing schema",
        }
    }
}

/// One mutation: its kind and what it changed (pointers into the document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutation {
    pub kind: Kind,
    pub change: String,
}

/// The kinds with their weights: deleting and breaking refs are the common flaws.
const WEIGHTS: [(Kind, usize); 5] = [
    (Kind::DeleteComponent, 35),
    (Kind::MissingRef, 25),
    (Kind::MisplacedRef, 25),
    (Kind::AliasCycle, 8),
    (Kind::MissingMapping, 7),
];

/// Applies one mutation chosen by `rng`; a kind the document offers nothing for (no discriminator,
/// say) falls through to the next. `None` when the document has nothing to break.
pub fn mutate(document: &mut Value, rng: &mut Rng) -> Option<Mutation> {
    let total: usize = WEIGHTS.iter().map(|(_, w)| w).sum();
    let mut roll = rng.usize(..total);
    let first = WEIGHTS
        .iter()
        .position(|&(_, w)| {
            let hit = roll < w;
            roll = roll.saturating_sub(w);
            hit
        })
        .unwrap_or(0);
    (0..WEIGHTS.len()).find_map(|offset| {
        let kind = WEIGHTS[(first + offset) % WEIGHTS.len()].0;
        apply(kind, document, rng).map(|change| Mutation { kind, change })
    })
}

/// Applies a mutation of `kind`, returning what changed, or `None` if it does not apply.
pub fn apply(kind: Kind, document: &mut Value, rng: &mut Rng) -> Option<String> {
    match kind {
        Kind::DeleteComponent => delete_component(document, rng),
        Kind::MissingRef => missing_ref(document, rng),
        Kind::MisplacedRef => misplaced_ref(document, rng),
        Kind::AliasCycle => alias_cycle(document, rng),
        Kind::MissingMapping => missing_mapping(document, rng),
    }
}

/// Removes one entry of a components section, a schema most often.
fn delete_component(document: &mut Value, rng: &mut Rng) -> Option<String> {
    let components = document.get_mut("components")?.as_object_mut()?;
    let sections: Vec<String> = components
        .iter()
        .filter(|(_, v)| v.as_object().is_some_and(|m| !m.is_empty()))
        .flat_map(|(k, _)| {
            let weight = if k == "schemas" { 4 } else { 1 };
            std::iter::repeat_n(k.clone(), weight)
        })
        .collect();
    let section = rng.choice(&sections)?;
    let entries = components.get_mut(section)?.as_object_mut()?;
    let name = rng.choice(entries.keys())?.clone();
    entries.shift_remove(&name);
    Some(format!(
        "deleted {}",
        child(&format!("/components/{section}"), &name)
    ))
}

/// Points a `$ref` at a name that does not exist beside its target.
fn missing_ref(document: &mut Value, rng: &mut Rng) -> Option<String> {
    let at = rng.choice(refs(document))?;
    let old = reference(document, &at)?;
    let new = missing_name(document, &old);
    set_ref(document, &at, &new);
    Some(format!("{at}: {old} -> {new}"))
}

/// Points a `$ref` at another place of the document: the root, a path item, a component of another
/// section, `#/info`, or any node a random walk reaches.
fn misplaced_ref(document: &mut Value, rng: &mut Rng) -> Option<String> {
    let at = rng.choice(refs(document))?;
    let old = reference(document, &at)?;
    let mut targets = vec!["#/".to_owned(), "#".to_owned(), "#/info".to_owned()];
    if let Some(paths) = document.get("paths").and_then(Value::as_object) {
        targets.extend(
            rng.choice(paths.keys())
                .map(|p| format!("#{}", child("/paths", p))),
        );
    }
    if let Some(components) = document.get("components").and_then(Value::as_object) {
        let others: Vec<(&String, &Value)> = components
            .iter()
            .filter(|(section, _)| !old.starts_with(&format!("#/components/{section}/")))
            .collect();
        if let Some((section, entries)) = rng.choice(others)
            && let Some(name) = entries.as_object().and_then(|m| rng.choice(m.keys()))
        {
            targets.push(format!(
                "#{}",
                child(&format!("/components/{section}"), name)
            ));
        }
    }
    targets.push(format!("#{}", random_walk(document, rng)));
    targets.retain(|t| *t != old);
    let new = targets.swap_remove(rng.usize(..targets.len()));
    set_ref(document, &at, &new);
    Some(format!("{at}: {old} -> {new}"))
}

/// Makes one schema an alias of itself, or two schemas aliases of each other: refs that never
/// reach a schema.
fn alias_cycle(document: &mut Value, rng: &mut Rng) -> Option<String> {
    let schemas = document
        .pointer_mut("/components/schemas")?
        .as_object_mut()?;
    let mut names: Vec<String> = schemas.keys().cloned().collect();
    if names.is_empty() {
        return None;
    }
    rng.shuffle(&mut names);
    let cycle = &names[..names.len().min(rng.usize(1..=2))];
    for (i, name) in cycle.iter().enumerate() {
        let next = &cycle[(i + 1) % cycle.len()];
        schemas[name] = json!({ "$ref": format!("#{}", child("/components/schemas", next)) });
    }
    Some(format!("alias cycle {}", cycle.join(" -> ")))
}

/// Maps one discriminator value to a schema that does not exist (adding a mapping if it has none).
fn missing_mapping(document: &mut Value, rng: &mut Rng) -> Option<String> {
    let at = rng.choice(pointers(document, &|key, value| {
        key == "discriminator" && value.get("propertyName").is_some()
    }))?;
    let missing = missing_name(document, "#/components/schemas/Mutant");
    let discriminator = document.pointer_mut(&at)?.as_object_mut()?;
    let mapping = discriminator
        .entry("mapping")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()?;
    let key = rng
        .choice(mapping.keys())
        .cloned()
        .unwrap_or_else(|| "mutant".to_owned());
    let old = mapping.insert(key.clone(), Value::String(missing.clone()));
    let old = old.as_ref().and_then(Value::as_str).unwrap_or("(none)");
    Some(format!("{at}/mapping/{key}: {old} -> {missing}"))
}

/// The pointers of every object holding a local `$ref`.
pub fn refs(document: &Value) -> Vec<String> {
    pointers(document, &|_, value| {
        value
            .get("$ref")
            .and_then(Value::as_str)
            .is_some_and(|r| r.starts_with('#'))
    })
}

/// The `$ref` of the object at `at`.
pub fn reference(document: &Value, at: &str) -> Option<String> {
    Some(document.pointer(at)?.get("$ref")?.as_str()?.to_owned())
}

fn set_ref(document: &mut Value, at: &str, new: &str) {
    if let Some(object) = document.pointer_mut(at).and_then(Value::as_object_mut) {
        object.insert("$ref".to_owned(), Value::String(new.to_owned()));
    }
}

/// `reference` with a suffix on its last token, numbered until it resolves to nothing.
fn missing_name(document: &Value, reference: &str) -> String {
    (0..)
        .map(|n| {
            format!(
                "{reference}Missing{}",
                if n == 0 { String::new() } else { n.to_string() }
            )
        })
        .find(|r| document.pointer(r.trim_start_matches('#')).is_none())
        .expect("some numbered name is free")
}

/// A pointer to a node reached by stepping into random children, one to five times.
fn random_walk(document: &Value, rng: &mut Rng) -> String {
    let mut pointer = String::new();
    let mut node = document;
    for _ in 0..rng.usize(1..=5) {
        let next = match node {
            Value::Object(map) => rng.choice(map.iter()).map(|(k, v)| (k.clone(), v)),
            Value::Array(items) => rng
                .choice(items.iter().enumerate())
                .map(|(i, v)| (i.to_string(), v)),
            _ => None,
        };
        let Some((token, value)) = next else { break };
        pointer = child(&pointer, &token);
        node = value;
    }
    pointer
}

/// The pointers of the objects `wanted` picks, in document order, leaving out extensions and
/// example data (whose `$ref`s the generator never follows), but not properties of those names.
fn pointers(document: &Value, wanted: &dyn Fn(&str, &Value) -> bool) -> Vec<String> {
    fn walk(
        value: &Value,
        key: &str,
        in_names: bool,
        at: &str,
        wanted: &dyn Fn(&str, &Value) -> bool,
        out: &mut Vec<String>,
    ) {
        const DATA: [&str; 6] = ["example", "examples", "default", "enum", "const", "value"];
        if !in_names && (key.starts_with("x-") || DATA.contains(&key)) {
            return;
        }
        if value.is_object() && wanted(key, value) {
            out.push(at.to_owned());
        }
        let names = matches!(
            key,
            "properties" | "patternProperties" | "$defs" | "definitions"
        );
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    walk(v, k, names, &child(at, k), wanted, out);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, "", false, &child(at, &i.to_string()), wanted, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(document, "", false, "", wanted, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document() -> Value {
        json!({
            "openapi": "3.1.0",
            "info": {"title": "T", "version": "1"},
            "paths": {"/pets/{id}": {"get": {"responses": {"200": {
                "description": "ok",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}
            }}}}},
            "components": {
                "schemas": {
                    "Pet": {
                        "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
                        "discriminator": {"propertyName": "kind"},
                        "properties": {"example": {"$ref": "#/components/schemas/Cat"}}
                    },
                    "Cat": {"type": "object", "x-meta": {"$ref": "#/components/schemas/Dog"}},
                    "Dog": {"type": "object", "example": {"$ref": "#/components/schemas/Cat"}}
                },
                "responses": {"NotFound": {"description": "missing"}}
            }
        })
    }

    /// Each kind applied with seeds 0..50, checked by `check(before, after, change)`.
    fn each_seed(kind: Kind, mut check: impl FnMut(&Value, &Value, &str)) {
        for seed in 0..50 {
            let before = document();
            let mut after = before.clone();
            let change = apply(kind, &mut after, &mut Rng::with_seed(seed))
                .unwrap_or_else(|| panic!("{kind:?} applies to the document"));
            assert_ne!(before, after, "{kind:?} seed {seed}: {change}");
            check(&before, &after, &change);
        }
    }

    #[test]
    fn refs_leave_out_extensions_and_examples_but_not_properties_so_named() {
        assert_eq!(
            refs(&document()),
            [
                "/paths/~1pets~1{id}/get/responses/200/content/application~1json/schema",
                "/components/schemas/Pet/oneOf/0",
                "/components/schemas/Pet/oneOf/1",
                "/components/schemas/Pet/properties/example",
            ]
        );
    }

    #[test]
    fn a_deleted_component_is_gone_and_nothing_else_changed() {
        each_seed(Kind::DeleteComponent, |before, after, change| {
            let pointer = change.strip_prefix("deleted ").unwrap();
            assert!(before.pointer(pointer).is_some(), "{change}");
            assert!(after.pointer(pointer).is_none(), "{change}");
            let mut expected = before.clone();
            let (parent, name) = pointer.rsplit_once('/').unwrap();
            let entries = expected.pointer_mut(parent).unwrap().as_object_mut();
            entries.unwrap().shift_remove(name);
            assert_eq!(after, &expected, "{change}");
        });
    }

    #[test]
    fn a_missing_ref_resolves_to_nothing() {
        each_seed(Kind::MissingRef, |before, after, change| {
            let (at, _) = change.split_once(": ").unwrap();
            let new = reference(after, at).unwrap();
            assert!(reference(before, at).unwrap() != new);
            assert!(
                after.pointer(new.trim_start_matches('#')).is_none(),
                "{change}"
            );
        });
    }

    #[test]
    fn a_misplaced_ref_moves_to_another_place() {
        let mut targets = std::collections::BTreeSet::new();
        each_seed(Kind::MisplacedRef, |before, after, change| {
            let (at, _) = change.split_once(": ").unwrap();
            let (old, new) = (
                reference(before, at).unwrap(),
                reference(after, at).unwrap(),
            );
            assert_ne!(old, new, "{change}");
            // Somewhere that exists, but for `#/` (the member named "" of the root).
            assert!(
                new == "#/" || after.pointer(&new[1..]).is_some(),
                "{change}"
            );
            let section = |r: &str| r.split('/').take(3).collect::<Vec<_>>().join("/");
            targets.insert(section(&new));
        });
        assert!(
            targets.len() >= 4,
            "seeds reach several kinds of target: {targets:?}"
        );
    }

    #[test]
    fn an_alias_cycle_leads_back_to_where_it_started() {
        each_seed(Kind::AliasCycle, |_, after, change| {
            let names: Vec<&str> = change
                .trim_start_matches("alias cycle ")
                .split(" -> ")
                .collect();
            for (i, name) in names.iter().enumerate() {
                let next = names[(i + 1) % names.len()];
                let target = reference(after, &format!("/components/schemas/{name}")).unwrap();
                assert_eq!(target, format!("#/components/schemas/{next}"), "{change}");
            }
        });
    }

    #[test]
    fn a_mapping_names_a_schema_that_does_not_exist() {
        each_seed(Kind::MissingMapping, |_, after, _| {
            let mapping = after
                .pointer("/components/schemas/Pet/discriminator/mapping")
                .unwrap();
            let target = mapping["mutant"].as_str().unwrap();
            assert!(after.pointer(target.trim_start_matches('#')).is_none());
        });
    }

    #[test]
    fn the_same_seed_gives_the_same_mutation_and_others_differ() {
        let run = |seed| {
            let mut document = document();
            let mutation = mutate(&mut document, &mut Rng::with_seed(seed));
            (mutation, document)
        };
        assert_eq!(run(7), run(7));
        let distinct: std::collections::BTreeSet<String> =
            (0..40).map(|s| format!("{:?}", run(s))).collect();
        assert!(distinct.len() > 20, "{} distinct of 40", distinct.len());
        let kinds: std::collections::BTreeSet<Kind> =
            (0..200).filter_map(|s| run(s).0.map(|m| m.kind)).collect();
        assert_eq!(
            kinds.len(),
            WEIGHTS.len(),
            "every kind is chosen: {kinds:?}"
        );
    }

    #[test]
    fn a_kind_that_does_not_apply_falls_through() {
        let mut document = json!({"openapi": "3.0.3", "components": {"schemas": {"A": {}}}});
        let kinds: std::collections::BTreeSet<Kind> = (0..50)
            .map(|s| {
                mutate(&mut document.clone(), &mut Rng::with_seed(s))
                    .unwrap()
                    .kind
            })
            .collect();
        assert!(
            kinds
                .iter()
                .all(|k| [Kind::DeleteComponent, Kind::AliasCycle].contains(k))
        );
        assert_eq!(
            mutate(&mut json!({"openapi": "3.0.3"}), &mut Rng::with_seed(1)),
            None
        );
        document["components"]["schemas"] = json!({});
        assert_eq!(mutate(&mut document, &mut Rng::with_seed(1)), None);
    }
}
