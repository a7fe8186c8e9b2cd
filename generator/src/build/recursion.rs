//! Recursive types: a struct that contains itself (directly, or through other structs, unions and
//! options) needs a `Box` somewhere on the cycle; an alias that refers to itself needs to become a newtype.

use crate::ir::{Additional, TypeDef, TypeId, TypeKind, TypeRef};

pub fn box_cycles(types: &mut [TypeDef]) {
    let all = graph(types, false);
    let all_scc = strongly_connected(&all);
    for (i, def) in types.iter_mut().enumerate() {
        let self_loop = all[i].contains(&i);
        let in_cycle = self_loop || all_scc.iter().filter(|c| **c == all_scc[i]).count() > 1;
        if in_cycle && let TypeKind::Alias(ty) = &def.kind {
            def.kind = TypeKind::Newtype(ty.clone());
        }
    }
    let direct = graph(types, true);
    let scc = strongly_connected(&direct);
    for i in 0..types.len() {
        let component = scc[i];
        let boxed_if = |ty: &TypeRef| direct_target(ty).is_some_and(|t| scc[t.0] == component);
        match &mut types[i].kind {
            TypeKind::Struct(s) => {
                for field in &mut s.fields {
                    field.boxed = boxed_if(&field.ty);
                }
            }
            TypeKind::Union(u) => {
                for variant in &mut u.variants {
                    variant.boxed = boxed_if(&variant.ty);
                }
            }
            _ => {}
        }
    }
}

/// The named type stored inline (not behind a Vec or map) in a value of this shape.
fn direct_target(ty: &TypeRef) -> Option<TypeId> {
    match ty {
        TypeRef::Named(id) => Some(*id),
        TypeRef::Nullable(inner) => direct_target(inner),
        _ => None,
    }
}

fn all_targets(ty: &TypeRef, out: &mut Vec<usize>) {
    match ty {
        TypeRef::Named(id) => out.push(id.0),
        TypeRef::Nullable(inner) | TypeRef::Array(inner) | TypeRef::Map(inner) => {
            all_targets(inner, out)
        }
        _ => {}
    }
}

fn graph(types: &[TypeDef], direct_only: bool) -> Vec<Vec<usize>> {
    let edges = |ty: &TypeRef, out: &mut Vec<usize>| {
        if direct_only {
            out.extend(direct_target(ty).map(|t| t.0));
        } else {
            all_targets(ty, out);
        }
    };
    types
        .iter()
        .map(|def| {
            let mut out = Vec::new();
            match &def.kind {
                TypeKind::Struct(s) => {
                    for f in &s.fields {
                        edges(&f.ty, &mut out);
                    }
                    if let Some(Additional::Map(ty)) = &s.additional
                        && !direct_only
                    {
                        all_targets(ty, &mut out);
                    }
                }
                TypeKind::Union(u) => u.variants.iter().for_each(|v| edges(&v.ty, &mut out)),
                // An alias is transparent: whatever its target holds inline, it holds inline.
                TypeKind::Alias(ty) | TypeKind::Newtype(ty) => edges(ty, &mut out),
                TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {}
            }
            out
        })
        .collect()
}

/// Tarjan's algorithm, iterative (deep specs would overflow a recursive one). Returns a component id per node.
fn strongly_connected(graph: &[Vec<usize>]) -> Vec<usize> {
    let n = graph.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![usize::MAX; n];
    let mut stack = Vec::new();
    let mut next_index = 0;
    let mut next_component = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some((node, edge)) = work.pop() {
            if edge == 0 {
                index[node] = next_index;
                low[node] = next_index;
                next_index += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some(&next) = graph[node].get(edge) {
                work.push((node, edge + 1));
                if index[next] == usize::MAX {
                    work.push((next, 0));
                } else if on_stack[next] {
                    low[node] = low[node].min(index[next]);
                }
                continue;
            }
            if low[node] == index[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = next_component;
                    if member == node {
                        break;
                    }
                }
                next_component += 1;
            }
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn finds_cycles() {
        // 0 -> 1 -> 2 -> 0, 3 -> 3, 4 alone
        let c = strongly_connected(&[vec![1], vec![2], vec![0], vec![3], vec![]]);
        assert_eq!(c[0], c[1]);
        assert_eq!(c[1], c[2]);
        assert_ne!(c[0], c[3]);
        assert_ne!(c[3], c[4]);
    }
}
