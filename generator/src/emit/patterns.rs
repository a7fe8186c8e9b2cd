//! The string patterns of a document, numbered once so every crate names them alike.
//! Each is checked with the same `regex` crate the generated code uses; one it cannot compile is
//! reported and not enforced (ECMA-262 features such as look-around have no Rust equivalent).

use crate::diagnostics::Diagnostics;
use crate::ir::{Api, Constraints, TypeKind, TypeRef};
use proc_macro2::Ident;
use quote::format_ident;
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub struct Patterns {
    /// Source -> (number, compiles, used as a numeric-string pattern).
    entries: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    number: usize,
    valid: bool,
    numeric: bool,
}

impl Patterns {
    pub fn collect(api: &Api, diags: &mut Diagnostics) -> Patterns {
        let mut found: Vec<(String, bool, String)> = Vec::new();
        for def in &api.types {
            match &def.kind {
                TypeKind::Struct(s) => {
                    for f in &s.fields {
                        collect_ty(&f.ty, &def.pointer, &mut found);
                        collect_constraints(&f.constraints, &def.pointer, &mut found);
                    }
                }
                TypeKind::Union(u) => u
                    .variants
                    .iter()
                    .for_each(|v| collect_ty(&v.ty, &def.pointer, &mut found)),
                TypeKind::Alias(ty) | TypeKind::Newtype(ty) => {
                    collect_ty(ty, &def.pointer, &mut found)
                }
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {}
            }
        }
        for op in &api.operations {
            for p in &op.parameters {
                collect_ty(&p.ty, &op.pointer, &mut found);
                collect_constraints(&p.constraints, &op.pointer, &mut found);
            }
        }
        let mut patterns = Patterns::default();
        for (source, numeric, pointer) in found {
            let next = patterns.entries.len() + 1;
            let entry = patterns.entries.entry(source.clone()).or_insert_with(|| {
                let valid = regex::Regex::new(&source).is_ok();
                if !valid {
                    diags.warning(pointer, format!("pattern `{source}` is not supported by Rust's regex crate; it is not enforced"));
                }
                Entry { number: next, valid, numeric: false }
            });
            entry.numeric |= numeric;
        }
        patterns
    }

    /// The static holding a compiled pattern, or `None` when it is not enforced.
    pub fn regex(&self, source: &str) -> Option<Ident> {
        let e = self.entries.get(source)?;
        e.valid.then(|| format_ident!("PATTERN_{}", e.number))
    }

    /// The marker type naming a numeric-string pattern (see `wire::PatternOf`).
    pub fn numeric_marker(&self, source: &str) -> Ident {
        format_ident!("Numeric{}", self.entries[source].number)
    }

    pub fn numeric_static(&self, source: &str) -> Ident {
        format_ident!("NUMERIC_{}", self.entries[source].number)
    }

    /// (source, number, compiles, numeric) in number order.
    pub fn all(&self) -> Vec<(&str, usize, bool, bool)> {
        let mut all: Vec<_> = self
            .entries
            .iter()
            .map(|(s, e)| (s.as_str(), e.number, e.valid, e.numeric))
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
