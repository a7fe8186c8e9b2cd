//! Which named types have something to validate, decided once for the whole API.
//!
//! A type needs a `validate_at` call where it is used when it can reach (through fields, variants,
//! aliases, lists and maps) a field or variant with constraints (a recursive type, then, validates
//! its nested values; one whose cycle reaches no constraint has nothing to check, and a
//! `validate_at` that only calls itself is what clippy's `only_used_in_recursion` refuses). Asking
//! this per use site by walking the type graph visits every path again, which grows with the number
//! of paths; here the graph is walked once, back from the types with constraints of their own to
//! the types that use them.

use crate::ir::{Api, TypeDef, TypeKind};

/// `checked[i]`: whether `api.types[i]` has something to validate.
pub fn checked_types(api: &Api, open_enums: bool) -> Vec<bool> {
    let edges: Vec<Vec<usize>> = api.types.iter().map(|def| successors(&def.kind)).collect();
    let own = api
        .types
        .iter()
        .map(|def| has_own_constraints(def, open_enums));
    reaching(&edges, own.collect())
}

/// The nodes that reach (in any number of steps, none included) a `marked` one.
fn reaching(edges: &[Vec<usize>], mut marked: Vec<bool>) -> Vec<bool> {
    let mut users = vec![Vec::new(); edges.len()];
    for (from, tos) in edges.iter().enumerate() {
        tos.iter().for_each(|&to| users[to].push(from));
    }
    let mut todo: Vec<usize> = (0..edges.len()).filter(|&i| marked[i]).collect();
    while let Some(node) = todo.pop() {
        for &user in &users[node] {
            if !marked[user] {
                marked[user] = true;
                todo.push(user);
            }
        }
    }
    marked
}

fn has_own_constraints(def: &TypeDef, open_enums: bool) -> bool {
    match &def.kind {
        // An open enum may hold a value the document does not list.
        kind @ (TypeKind::StringEnum(_) | TypeKind::IntEnum(_)) => {
            super::enums::is_open(kind, open_enums)
        }
        TypeKind::Struct(s) => s.fields.iter().any(|f| !f.constraints.is_empty()),
        TypeKind::Union(u) => u.variants.iter().any(|v| !v.constraints.is_empty()),
        // A constrained alias (`Name: {type: string, pattern: ...}`) is checked where it is used.
        TypeKind::Alias(_) => !def.constraints.is_empty(),
        _ => false,
    }
}

fn successors(kind: &TypeKind) -> Vec<usize> {
    let refs = match kind {
        // The map of other properties is not validated.
        TypeKind::Struct(s) => s.fields.iter().map(|f| &f.ty).collect(),
        other => other.refs(),
    };
    let mut out = Vec::new();
    refs.iter()
        .for_each(|ty| ty.each_named(&mut |id| out.push(id.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_is_marked_when_it_reaches_a_marked_one() {
        // 0 -> 1 <-> 2 -> 3, 4 alone, 5 <-> 6; 3 marked
        let edges = vec![
            vec![1],
            vec![2],
            vec![1, 3],
            vec![],
            vec![],
            vec![6],
            vec![5],
        ];
        let marked = vec![false, false, false, true, false, false, false];
        let expected = vec![true, true, true, true, false, false, false];
        assert_eq!(reaching(&edges, marked), expected);
    }
}
