//! The string patterns of a document, numbered once so every crate names them alike.
//! Each is compiled here with the crate the generated code will use: `regex` (linear time) where
//! it can, else `fancy-regex` (look-around, backreferences), which the models crate then depends
//! on. A pattern neither compiles is reported with its pointer and not enforced.

use crate::diagnostics::{Diagnostics, child};
use crate::ir::{Api, Constraints, TypeKind, TypeRef};
use proc_macro2::Ident;
use quote::format_ident;
use std::collections::BTreeMap;

/// Every `pattern` of a document (of properties, aliases, parameters, map keys and numeric
/// strings), each numbered once and assigned the regex engine that compiles it. The models crate
/// defines a static per pattern in its `patterns` module; the other crates refer to it by number.
#[derive(Debug, Default)]
pub struct Patterns {
    /// Source -> (number, compiles, used as a numeric-string pattern).
    entries: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    number: usize,
    engine: Engine,
    numeric: bool,
}

/// The crate that enforces a pattern in the generated code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The `regex` crate: linear time, no look-around or backreferences.
    Regex,
    /// The `fancy-regex` crate, for look-around and backreferences.
    FancyRegex,
    /// Compiles with neither: not enforced (reported).
    None,
}

impl Patterns {
    /// Gathers and numbers the patterns of `api` in the order they are first found (types, then
    /// the parameters of operations and hooks), and compiles each: a pattern neither engine
    /// compiles, or a numeric-string pattern only `fancy-regex` compiles, is reported in `diags`.
    pub fn collect(api: &Api, diags: &mut Diagnostics) -> Patterns {
        let mut found: Vec<(String, bool, String)> = Vec::new();
        for def in &api.types {
            match &def.kind {
                TypeKind::Struct(s) => {
                    for f in &s.fields {
                        // Reported at the property: the schema of a large object has many.
                        let pointer = child(&child(&def.pointer, "properties"), &f.wire_name);
                        collect_ty(&f.ty, &pointer, &mut found);
                        collect_constraints(&f.constraints, &pointer, &mut found);
                    }
                }
                TypeKind::Union(u) => u
                    .variants
                    .iter()
                    .for_each(|v| collect_ty(&v.ty, &def.pointer, &mut found)),
                TypeKind::Alias(ty) | TypeKind::Newtype(ty) => {
                    collect_ty(ty, &def.pointer, &mut found);
                    collect_constraints(&def.constraints, &def.pointer, &mut found);
                }
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {}
            }
        }
        for op in api.all_operations() {
            for p in &op.parameters {
                collect_ty(&p.ty, &op.pointer, &mut found);
                collect_constraints(&p.constraints, &op.pointer, &mut found);
            }
        }
        let mut patterns = Patterns::default();
        for (source, numeric, pointer) in found {
            let next = patterns.entries.len() + 1;
            let entry = patterns.entries.entry(source.clone()).or_insert_with(|| {
                let engine = if regex::Regex::new(&source).is_ok() {
                    Engine::Regex
                } else if fancy_regex::Regex::new(&source).is_ok() {
                    Engine::FancyRegex
                } else {
                    diags.warning(&pointer, format!("pattern `{source}` compiles with neither the regex nor the fancy-regex crate; it is not enforced"));
                    Engine::None
                };
                Entry { number: next, engine, numeric: false }
            });
            // Numeric strings are read by `wire`, which takes the `regex` crate's patterns only.
            if numeric && !entry.numeric && entry.engine == Engine::FancyRegex {
                diags.warning(pointer, format!("numeric-string pattern `{source}` needs look-around or backreferences; numbers given as strings are not checked against it"));
            }
            entry.numeric |= numeric;
        }
        patterns
    }

    /// Some pattern needs `fancy-regex`: the models crate depends on it.
    pub fn needs_fancy_regex(&self) -> bool {
        self.entries
            .values()
            .any(|e| e.engine == Engine::FancyRegex && !e.numeric)
    }

    /// The number of a compiled pattern (its static is `PATTERN_{n}`), or `None` when it is not
    /// enforced.
    pub fn enforced(&self, source: &str) -> Option<usize> {
        let e = self.entries.get(source)?;
        let enforced = match e.engine {
            Engine::Regex => true,
            Engine::FancyRegex => !e.numeric,
            Engine::None => false,
        };
        enforced.then_some(e.number)
    }

    /// The marker type naming a numeric-string pattern (see `wire::PatternOf`).
    pub fn numeric_marker(&self, source: &str) -> Ident {
        format_ident!("Numeric{}", self.entries[source].number)
    }

    /// The models' `patterns` static (`NUMERIC_{n}`) holding a numeric-string pattern, which the
    /// server passes to the runtime to read a parameter given as a string.
    pub fn numeric_static(&self, source: &str) -> Ident {
        format_ident!("NUMERIC_{}", self.entries[source].number)
    }

    /// (source, number, engine, numeric) in number order.
    pub fn all(&self) -> Vec<(&str, usize, Engine, bool)> {
        let mut all: Vec<_> = self
            .entries
            .iter()
            .map(|(s, e)| (s.as_str(), e.number, e.engine, e.numeric))
            .collect();
        all.sort_by_key(|e| e.1);
        all
    }
}

fn collect_ty(ty: &TypeRef, pointer: &str, out: &mut Vec<(String, bool, String)>) {
    match ty {
        TypeRef::NumericString { pattern, .. } => {
            out.push((pattern.clone(), true, pointer.to_owned()))
        }
        TypeRef::Array(inner) | TypeRef::Map(inner) | TypeRef::Nullable(inner) => {
            collect_ty(inner, pointer, out)
        }
        _ => {}
    }
}

fn collect_constraints(c: &Constraints, pointer: &str, out: &mut Vec<(String, bool, String)>) {
    for p in [&c.pattern, &c.key_pattern].into_iter().flatten() {
        out.push((p.clone(), false, pointer.to_owned()));
    }
    if let Some(items) = &c.items {
        collect_constraints(items, pointer, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patterns(sources: &[&str]) -> (Patterns, Diagnostics) {
        let properties: Vec<String> = sources
            .iter()
            .enumerate()
            .map(|(i, p)| format!("p{i}: {{type: string, pattern: '{p}'}}"))
            .collect();
        let text = format!(
            "openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\npaths: {{}}\ncomponents:\n  schemas:\n    A: {{type: object, properties: {{{}}}}}\n",
            properties.join(", ")
        );
        let (api, mut diags) = crate::load_api(&text).unwrap_or_else(|d| panic!("{d}"));
        (Patterns::collect(&api, &mut diags), diags)
    }

    #[test]
    fn each_pattern_is_enforced_by_the_crate_that_compiles_it() {
        let (p, diags) = patterns(&["^[a-z]+$", "^(?!-)[a-z-]+(?<!-)$", "^(a"]);
        let engines: Vec<Engine> = p.all().iter().map(|e| e.2).collect();
        assert_eq!(engines, [Engine::Regex, Engine::FancyRegex, Engine::None]);
        assert!(p.needs_fancy_regex());
        assert!(p.enforced("^(?!-)[a-z-]+(?<!-)$").is_some());
        assert!(p.enforced("^(a").is_none());
        // Only the pattern nothing enforces is reported, with the pointer of its schema.
        let warnings: Vec<String> = diags.warnings().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("warning: /components/schemas/A/properties/p2: pattern `^(a`"),
            "{warnings:?}"
        );
    }

    #[test]
    fn plain_patterns_need_no_fancy_regex() {
        let (p, diags) = patterns(&["^[a-z]+$"]);
        assert!(!p.needs_fancy_regex());
        assert!(diags.0.is_empty());
    }
}
