//! Routes: the axum path of each operation, and what tells apart operations that share one (the
//! literal text of mixed segments, the query a path carries).

use super::*;

/// An axum path and, per method, the operations it dispatches to (indexes into [`Plan::ops`]).
pub type Route = (String, Vec<(Method, Vec<usize>)>);

/// Where the router finds a path parameter.
#[derive(Debug, Clone)]
pub enum PathAt {
    /// The route's capture at this index: a whole segment.
    Capture(usize),
    /// A piece of the mixed segment at `segment` (counting from 0), which the route captures whole:
    /// the text between `literals[piece]` and `literals[piece + 1]` (as the client encodes them).
    Piece {
        segment: usize,
        literals: Vec<String>,
        piece: usize,
    },
}

pub(super) fn path_position(op: &Operation, wire: &str) -> Option<PathAt> {
    op.segments
        .iter()
        .enumerate()
        .filter(|(_, segment)| !matches!(segment, PathSegment::Literal(_)))
        .enumerate()
        .find_map(|(capture, (i, segment))| match segment {
            PathSegment::Param(name) => (name == wire).then_some(PathAt::Capture(capture)),
            _ => {
                let piece = segment.params().iter().position(|name| *name == wire)?;
                let literals = encoded_literals(segment);
                Some(PathAt::Piece {
                    segment: i,
                    literals,
                    piece,
                })
            }
        })
}

/// Whether requests to an operation's route must be told from others' by their text (mixed
/// segments, or a query the path carries).
pub fn is_distinct(op: &Operation) -> bool {
    !op.query.is_empty() || !mixed_literals(op).is_empty()
}

/// The position and encoded literals of each mixed segment of an operation.
pub fn mixed_literals(op: &Operation) -> Vec<(usize, Vec<String>)> {
    op.segments
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, PathSegment::Mixed(_)))
        .map(|(i, s)| (i, encoded_literals(s)))
        .collect()
}

/// A mixed segment's literal texts as requests carry them.
pub fn encoded_literals(segment: &PathSegment) -> Vec<String> {
    segment
        .literals()
        .into_iter()
        .map(crate::ir::encode_literal)
        .collect()
}

/// The axum route of an operation. axum (matchit) requires one name per parameter position after
/// the same prefix (`/a/{id}` and `/a/{name}/b` conflict), so the first name seen at a position is
/// used by every route through it (`names`, by the route's text before it); handlers read path
/// parameters by position, not by name.
pub(super) fn route_path(
    op: &Operation,
    names: &mut HashMap<String, String>,
) -> Result<String, String> {
    let mut key = String::new();
    let mut route = String::new();
    let mut used = HashSet::new();
    for (i, segment) in op.segments.iter().enumerate() {
        route.push('/');
        let candidate = match segment {
            PathSegment::Literal(text) => {
                if text.starts_with(':') || text.starts_with('*') {
                    return Err(format!(
                        "axum cannot match a literal path segment starting with `{}`",
                        &text[..1]
                    ));
                }
                route.push_str(&text.replace('{', "{{").replace('}', "}}"));
                key.push('/');
                key.push_str(text);
                continue;
            }
            PathSegment::Param(name)
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                name.clone()
            }
            // A mixed segment is captured whole (matchit cannot match text around a parameter);
            // the handler splits it.
            _ => format!("p{i}"),
        };
        key.push_str("/{}");
        // The name chosen at this position by another route, else the candidate made unique
        // within this route.
        let chosen = names.entry(key.clone()).or_insert_with(|| {
            let mut name = candidate;
            while used.contains(&name) {
                name.push('_');
            }
            name
        });
        if !used.insert(chosen.clone()) {
            return Err("the path repeats a parameter name".to_owned());
        }
        route.push_str(&format!("{{{chosen}}}"));
    }
    // The segments drop a trailing slash; axum matches it literally, so keep the spec's.
    if route.is_empty() || (op.path_only().ends_with('/') && !route.ends_with('/')) {
        route.push('/');
    }
    Ok(route)
}
