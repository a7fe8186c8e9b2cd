//! Which named types have something to validate, decided once for the whole API.
//!
//! A type needs a `validate_at` call where it is used when it can reach (through fields, variants,
//! aliases, lists and maps) a field or variant with constraints (a recursive type, then, validates
//! its nested values; one whose cycle reaches no constraint has nothing to check, and a
//! `validate_at` that only calls itself is what clippy's `only_used_in_recursion` refuses). Asking this per use site by walking the type graph visits
//! every path again, which grows with the number of paths; here each strongly connected component
//! of the graph is decided once (Tarjan's algorithm, which yields components after everything they
//! reach).

use crate::ir::{Api, TypeDef, TypeId, TypeKind, TypeRef};

/// `checked[i]`: whether `api.types[i]` has something to validate.
pub fn checked_types(api: &Api, open_enums: bool) -> Vec<bool> {
    let edges: Vec<Vec<usize>> = api.types.iter().map(|def| successors(&def.kind)).collect();
    let mut checked = vec![false; api.types.len()];
    for component in components(&edges) {
        // Members of the component itself are not decided yet (`false`): only constraints inside
        // it, or a checked type it reaches, count.
        let needs = component.iter().any(|&i| {
            has_own_constraints(&api.types[i], open_enums) || edges[i].iter().any(|&j| checked[j])
        });
        for &i in &component {
            checked[i] = needs;
        }
    }
    checked
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
    let mut out = Vec::new();
    match kind {
        TypeKind::Struct(s) => s.fields.iter().for_each(|f| named_in(&f.ty, &mut out)),
        TypeKind::Union(u) => u.variants.iter().for_each(|v| named_in(&v.ty, &mut out)),
        TypeKind::Alias(ty) | TypeKind::Newtype(ty) => named_in(ty, &mut out),
        TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {}
    }
    out
}

fn named_in(ty: &TypeRef, out: &mut Vec<usize>) {
    match ty {
        TypeRef::Named(TypeId(id)) => out.push(*id),
        TypeRef::Nullable(inner) | TypeRef::Array(inner) | TypeRef::Map(inner) => {
            named_in(inner, out)
        }
        _ => {}
    }
}

/// The strongly connected components of the graph, each after every component it reaches.
/// Iterative, so a long chain of types cannot overflow the stack.
fn components(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, position of the next edge to follow)
        let mut path = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (node, ref mut edge)) = path.last_mut() {
            if let Some(&to) = edges[node].get(*edge) {
                *edge += 1;
                if index[to] == UNSEEN {
                    index[to] = next;
                    low[to] = next;
                    next += 1;
                    stack.push(to);
                    on_stack[to] = true;
                    path.push((to, 0));
                } else if on_stack[to] {
                    low[node] = low[node].min(index[to]);
                }
                continue;
            }
            path.pop();
            if let Some(&(parent, _)) = path.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                let mut component = Vec::new();
                loop {
                    let member = stack.pop().expect("node is on the stack");
                    on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_after_what_they_reach() {
        // 0 -> 1 <-> 2 -> 3, 4 alone
        let edges = vec![vec![1], vec![2], vec![1, 3], vec![], vec![]];
        let found = components(&edges);
        let position = |node: usize| found.iter().position(|c| c.contains(&node)).unwrap();
        assert_eq!(found.len(), 4);
        assert_eq!(position(1), position(2));
        assert!(position(3) < position(1));
        assert!(position(1) < position(0));
    }
}
