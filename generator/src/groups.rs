//! Operation groups: what a user of a big API picks to compile (a cargo feature each in the
//! generated crates) or to generate (`--groups`, [`slice()`]).
//!
//! The rule:
//! - An operation's group is its first tag. A document that tags none of its operations (stripe,
//!   discord) is grouped by the first literal path segment after a version segment (`v1`, `v2.1`,
//!   `2023-10`), or the first literal segment where there is none: `/v1/customers/{id}` ->
//!   `customers`. An operation without a group (untagged in a tagged document, or a path that
//!   starts with a parameter) goes to a group of its own, `ungrouped`.
//! - A group's name is its source in kebab case (`Chat Completions` -> `chat-completions`),
//!   starting with a letter (`group-` in front otherwise); a name the crates use for another
//!   feature (`default`, `all-groups`, `unused-components`, `webhooks`, `rustls`, `native-tls`,
//!   `tower`) takes `-api`, and names that
//!   would coincide take `-2`, `-3`... in document order.
//! - crates.io allows 300 features a crate: over [`MAX_GROUPS`] groups, the largest
//!   `MAX_GROUPS - 1` keep theirs and the others are merged into one group, `more-groups`, that
//!   lists them.
//! - A type belongs to every group whose operations reach it, through parameters, bodies,
//!   response bodies and headers, then fields, map values, union branches, `allOf` merges, items
//!   and aliases. A type that no operation reaches (an unused component) belongs to a feature of
//!   its own, [`UNUSED_COMPONENTS`], and so does what it reaches (which may belong to groups as
//!   well): a program may deserialize such a component by hand, and a document may hold many
//!   (2,339 of openai's 3,639 types), which no group's user should pay for. A type that a webhook
//!   or callback reaches, and the API's error body (the schema most 4xx responses use, with which
//!   the generated server answers what it rejects), belong to no group ([`Groups::of_type`] is
//!   empty for them and for what they reach): the crates compile them with every selection, as
//!   module `webhooks` has a feature of its own and is not split by group. A slice ([`slice()`]) keeps the
//!   webhooks, which no group owns, and the callbacks of the operations it keeps, and leaves out
//!   the types nothing it keeps reaches.

use crate::ir::{Api, HookKind, Operation, PathSegment, TypeId};
use std::collections::BTreeMap;

/// The most groups a document gets: crates.io's 300 features a crate, less room for the crates'
/// own features (`default`, `all-groups`, `unused-components`, `webhooks`, `rustls`,
/// `native-tls`, `tower`).
pub const MAX_GROUPS: usize = 290;

/// The feature of the types no operation reaches (and what they reach): an index of
/// [`Groups::of_type`] past the last group stands for it.
pub const UNUSED_COMPONENTS: &str = "unused-components";

/// The name of the group of operations that have none.
const UNGROUPED: &str = "ungrouped";

/// The name of the group the smallest groups are merged into above [`MAX_GROUPS`].
const MERGED: &str = "more-groups";

/// Feature names the generated crates use already.
const RESERVED: [&str; 7] = [
    "default",
    "all-groups",
    UNUSED_COMPONENTS,
    "webhooks",
    "rustls",
    "native-tls",
    "tower",
];

/// One group of operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The feature name (kebab case, unique).
    pub name: String,
    /// What the operations share: the tag or path segment as the document spells it; for a
    /// merged group, the sources of the groups merged, comma separated.
    pub source: String,
    /// Indices into [`Api::operations`], in document order.
    pub operations: Vec<usize>,
    /// Names of the groups merged into this one (empty but for `more-groups`).
    pub merged: Vec<String>,
}

/// The document's groups and what each operation and type belongs to.
#[derive(Debug, Clone)]
pub struct Groups {
    /// The groups, in the order of their first operation in the document.
    pub groups: Vec<Group>,
    /// Per operation (index of [`Api::operations`]): its group (index of `groups`).
    pub of_operation: Vec<usize>,
    /// Per type (index of [`Api::types`]): the groups that reach it, ascending, `groups.len()`
    /// last for [`UNUSED_COMPONENTS`]; empty for a type compiled with every selection (what the
    /// webhooks, the callbacks and the error body reach).
    pub of_type: Vec<Vec<usize>>,
}

impl Groups {
    /// The groups of `api`, by the rule of the module's docs.
    pub fn of(api: &Api) -> Groups {
        let (groups, of_operation) = group_operations(api);
        let of_type = type_groups(api, &of_operation, groups.len());
        Groups {
            groups,
            of_operation,
            of_type,
        }
    }

    /// The group of the operation with this `operationId`, for a callback (`None` for a webhook).
    pub fn of_hook(&self, api: &Api, kind: &HookKind) -> Option<usize> {
        match kind {
            HookKind::Webhook => None,
            HookKind::Callback { owner, .. } => api
                .operations
                .iter()
                .position(|op| &op.id == owner)
                .map(|i| self.of_operation[i]),
        }
    }

    /// The group names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.groups.iter().map(|g| g.name.as_str()).collect()
    }

    /// The names of the groups `of` (indices into [`Groups::groups`], or past them for
    /// [`UNUSED_COMPONENTS`]).
    pub fn names_of(&self, of: &[usize]) -> Vec<&str> {
        (of.iter())
            .map(|&g| {
                self.groups
                    .get(g)
                    .map_or(UNUSED_COMPONENTS, |g| g.name.as_str())
            })
            .collect()
    }

    /// How many types belong to [`UNUSED_COMPONENTS`] (none: the crates have no such feature).
    pub fn unused_components(&self) -> usize {
        let index = self.groups.len();
        self.of_type.iter().filter(|of| of.contains(&index)).count()
    }

    /// The feature names of the type `id`: empty for a type compiled with every selection.
    pub fn of_type_names(&self, id: TypeId) -> Vec<&str> {
        self.names_of(&self.of_type[id.0])
    }

    /// The feature name of the operation with this `operationId` (`None` for another, such as a
    /// webhook's).
    pub fn of_operation_id(&self, api: &Api, id: &str) -> Option<&str> {
        let i = api.operations.iter().position(|op| op.id == id)?;
        Some(self.groups[self.of_operation[i]].name.as_str())
    }
}

/// The source of an operation's group, before naming: its first tag, or with `by_path`, its path
/// segment after a version.
fn source(op: &Operation, by_path: bool) -> Option<String> {
    if !by_path {
        return op.tags.first().cloned();
    }
    let literals: Vec<&PathSegment> = op.segments.iter().collect();
    let after_version = literals
        .iter()
        .position(|s| matches!(s, PathSegment::Literal(text) if is_version(text)))
        .map_or(0, |i| i + 1);
    match literals.get(after_version) {
        Some(PathSegment::Literal(text)) if !text.is_empty() => Some(text.clone()),
        _ => None,
    }
}

/// `v1`, `V2`, `v1.1`, `v1beta2`, `2`, `2023-10-16`: a segment that names a version.
fn is_version(segment: &str) -> bool {
    let rest = segment
        .strip_prefix(['v', 'V'])
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or(segment);
    let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    digits.len() < rest.len()
        && (digits.is_empty()
            || digits
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
            || ["alpha", "beta"].iter().any(|w| {
                digits
                    .strip_prefix(w)
                    .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
            }))
}

/// A feature name from a group's source: kebab case, ASCII, starting with a letter.
fn feature_name(source: &str) -> String {
    let ascii: String = source
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    let name = heck::ToKebabCase::to_kebab_case(ascii.trim());
    let name = if name.is_empty() {
        UNGROUPED.to_owned()
    } else if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        format!("group-{name}")
    } else {
        name
    };
    if RESERVED.contains(&name.as_str()) {
        format!("{name}-api")
    } else {
        name
    }
}

fn group_operations(api: &Api) -> (Vec<Group>, Vec<usize>) {
    let by_path = api.operations.iter().all(|op| op.tags.is_empty());
    // Sources in document order; operations without one last, in a group of their own.
    let mut sources: Vec<(Option<String>, Vec<usize>)> = Vec::new();
    for (i, op) in api.operations.iter().enumerate() {
        let source = source(op, by_path);
        match sources.iter_mut().find(|(s, _)| *s == source) {
            Some((_, ops)) => ops.push(i),
            None => sources.push((source, vec![i])),
        }
    }
    sources.sort_by_key(|(source, _)| source.is_none());
    let mut groups: Vec<Group> = Vec::new();
    for (source, operations) in sources {
        let (name, source) = match source {
            Some(source) => (feature_name(&source), source),
            None => (UNGROUPED.to_owned(), String::new()),
        };
        groups.push(Group {
            name,
            source,
            operations,
            merged: Vec::new(),
        });
    }
    if groups.len() > MAX_GROUPS {
        groups = merge_smallest(groups);
    }
    unique_names(&mut groups);
    let mut of_operation = vec![0; api.operations.len()];
    for (g, group) in groups.iter().enumerate() {
        for &op in &group.operations {
            of_operation[op] = g;
        }
    }
    (groups, of_operation)
}

/// Keeps the `MAX_GROUPS - 1` largest groups (ties: the earlier first) and merges the others into
/// one, in document order.
fn merge_smallest(groups: Vec<Group>) -> Vec<Group> {
    let mut by_size: Vec<usize> = (0..groups.len()).collect();
    by_size.sort_by_key(|&g| (std::cmp::Reverse(groups[g].operations.len()), g));
    let mut kept = vec![false; groups.len()];
    for &g in &by_size[..MAX_GROUPS - 1] {
        kept[g] = true;
    }
    let mut merged = Group {
        name: MERGED.to_owned(),
        source: String::new(),
        operations: Vec::new(),
        merged: Vec::new(),
    };
    let mut out = Vec::new();
    let mut sources = Vec::new();
    for (g, group) in groups.into_iter().enumerate() {
        if kept[g] {
            out.push(group);
        } else {
            merged.operations.extend(group.operations);
            merged.merged.push(group.name);
            sources.push(group.source);
        }
    }
    merged.operations.sort_unstable();
    merged.source = sources.join(", ");
    out.push(merged);
    out
}

/// Names that coincide take `-2`, `-3`... (the first keeps its own).
fn unique_names(groups: &mut [Group]) {
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    for group in groups.iter() {
        taken.insert(group.name.clone(), 0);
    }
    let mut seen = std::collections::BTreeSet::new();
    for group in groups.iter_mut() {
        if seen.insert(group.name.clone()) {
            continue;
        }
        let base = group.name.clone();
        let mut n = 2;
        while taken.contains_key(&format!("{base}-{n}")) {
            n += 1;
        }
        group.name = format!("{base}-{n}");
        taken.insert(group.name.clone(), 0);
        seen.insert(group.name.clone());
    }
}

/// The types an operation names directly (parameters, body, response bodies, streamed items and
/// headers).
fn operation_roots(op: &Operation, out: &mut Vec<TypeId>) {
    let mut push = |ty: &crate::ir::TypeRef| ty.each_named(&mut |id| out.push(id));
    op.parameters.iter().for_each(|p| push(&p.ty));
    if let Some(body) = &op.body {
        push(&body.ty);
    }
    for response in &op.responses {
        if let Some(body) = &response.body {
            push(&body.ty);
        }
        if let Some(stream) = &response.stream {
            push(&stream.item);
        }
        response.headers.iter().for_each(|h| push(&h.ty));
    }
}

/// Marks every type reachable from `roots`; returns the newly marked.
fn reach(api: &Api, roots: Vec<TypeId>, seen: &mut [bool]) {
    let mut stack = roots;
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut seen[id.0], true) {
            continue;
        }
        for ty in api.types[id.0].kind.refs() {
            ty.each_named(&mut |next| {
                if !seen[next.0] {
                    stack.push(next);
                }
            });
        }
    }
}

/// Per type, the groups that reach it (`groups`: [`UNUSED_COMPONENTS`]; empty: compiled with
/// every selection).
fn type_groups(api: &Api, of_operation: &[usize], groups: usize) -> Vec<Vec<usize>> {
    let mut roots: Vec<Vec<TypeId>> = vec![Vec::new(); groups];
    for (i, op) in api.operations.iter().enumerate() {
        operation_roots(op, &mut roots[of_operation[i]]);
    }
    let mut of_type: Vec<Vec<usize>> = vec![Vec::new(); api.types.len()];
    let mut reached_by_any = vec![false; api.types.len()];
    for (g, roots) in roots.into_iter().enumerate() {
        let mut seen = vec![false; api.types.len()];
        reach(api, roots, &mut seen);
        for (t, reached) in seen.into_iter().enumerate() {
            if reached {
                of_type[t].push(g);
                reached_by_any[t] = true;
            }
        }
    }
    // What no operation reaches, and what it names, has a feature of its own (index `groups`).
    let unreached: Vec<TypeId> = (0..api.types.len())
        .filter(|&t| !reached_by_any[t])
        .map(TypeId)
        .collect();
    let mut seen = vec![false; api.types.len()];
    reach(api, unreached, &mut seen);
    for (t, reached) in seen.into_iter().enumerate() {
        if reached {
            of_type[t].push(groups);
        }
    }
    // What the webhooks and callbacks reach is compiled always (module `webhooks` is not split by
    // group), and so is the server's own error body, which answers every rejection.
    let mut always_roots = Vec::new();
    for hook in &api.hooks {
        operation_roots(&hook.operation, &mut always_roots);
    }
    always_roots.extend(api.error_body());
    let mut always = vec![false; api.types.len()];
    reach(api, always_roots, &mut always);
    for (t, always) in always.into_iter().enumerate() {
        if always {
            of_type[t].clear();
        }
    }
    of_type
}

/// Keeps only the operations of the groups `names` (callbacks of other operations go too), the
/// tags they list (with the tags those nest under) and the types they, the webhooks and each other
/// reach: what `--groups` generates. An unknown name is
/// an error that lists the valid ones.
pub fn slice(api: &mut Api, names: &[String]) -> Result<(), String> {
    let groups = Groups::of(api);
    let valid = groups.names();
    let mut chosen = vec![false; groups.groups.len()];
    for name in names {
        match valid.iter().position(|v| v == name) {
            Some(g) => chosen[g] = true,
            None => {
                return Err(format!(
                    "unknown group `{name}`; the document's groups are: {}",
                    valid.join(", ")
                ));
            }
        }
    }
    let keep_op: Vec<bool> = (0..api.operations.len())
        .map(|i| chosen[groups.of_operation[i]])
        .collect();
    let kept_ids: Vec<String> = (api.operations.iter().zip(&keep_op))
        .filter(|(_, keep)| **keep)
        .map(|(op, _)| op.id.clone())
        .collect();
    let mut keep = keep_op.iter();
    api.operations
        .retain(|_| *keep.next().expect("one per operation"));
    api.hooks.retain(|hook| match &hook.kind {
        HookKind::Webhook => true,
        HookKind::Callback { owner, .. } => kept_ids.contains(owner),
    });
    // The tags the kept operations list, and the tags these nest under (the client's docs list
    // operations by tag: no heading without operations).
    let mut listed: Vec<&str> = (api.operations.iter())
        .flat_map(|op| op.tags.iter().map(String::as_str))
        .collect();
    let mut i = 0;
    while i < listed.len() {
        let parent = (api.tags.iter())
            .find(|t| t.name == listed[i])
            .and_then(|t| t.parent.as_deref());
        if let Some(parent) = parent.filter(|p| !listed.contains(p)) {
            listed.push(parent);
        }
        i += 1;
    }
    let listed: Vec<String> = listed.into_iter().map(str::to_owned).collect();
    api.tags.retain(|t| listed.contains(&t.name));
    let mut roots = Vec::new();
    for op in api.all_operations() {
        operation_roots(op, &mut roots);
    }
    let mut reached = vec![false; api.types.len()];
    reach(api, roots, &mut reached);
    let dead: Vec<TypeId> = (0..api.types.len())
        .filter(|&t| !reached[t])
        .map(TypeId)
        .collect();
    api.remove_types(&dead);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(doc: &str) -> Api {
        crate::load_api(doc).expect("loads").0
    }

    #[test]
    fn versions_are_told_from_resources() {
        for v in ["v1", "V2", "v1.1", "v1beta2", "2", "2023-10-16", "v2alpha"] {
            assert!(is_version(v), "{v}");
        }
        for s in ["customers", "v", "vendors", "api", "v1x", "3d-models"] {
            assert!(!is_version(s), "{s}");
        }
    }

    #[test]
    fn names_are_kebab_case_features() {
        assert_eq!(feature_name("Chat Completions"), "chat-completions");
        assert_eq!(feature_name("payment_intents"), "payment-intents");
        assert_eq!(feature_name("3D models"), "group-3d-models");
        assert_eq!(feature_name("webhooks"), "webhooks-api");
        assert_eq!(feature_name("Tower"), "tower-api");
        assert_eq!(feature_name("all groups"), "all-groups-api");
        assert_eq!(feature_name("Déjà vu"), "d-j-vu");
        assert_eq!(feature_name("@me"), "me");
    }

    const UNTAGGED: &str = r#"
openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /v1/customers:
    get: {operationId: listCustomers, responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Customers'}}}}}}
  /v1/customers/{id}:
    get:
      operationId: getCustomer
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Customer'}}}}}
  /v1/charges:
    post: {operationId: charge, responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Charge'}}}}}}
  /{anything}:
    get:
      operationId: other
      parameters: [{name: anything, in: path, required: true, schema: {type: string}}]
      responses: {'204': {description: ok}}
components:
  schemas:
    Customers: {type: array, items: {$ref: '#/components/schemas/Customer'}}
    Customer: {type: object, properties: {address: {$ref: '#/components/schemas/Address'}}}
    Address: {type: object, properties: {line: {type: string}}}
    Charge: {type: object, properties: {customer: {$ref: '#/components/schemas/Customer'}}}
    Unused: {type: object, properties: {address: {$ref: '#/components/schemas/Address'}, note: {$ref: '#/components/schemas/Note'}}}
    Note: {type: object, properties: {text: {type: string}}}
"#;

    #[test]
    fn an_untagged_document_is_grouped_by_resource_and_types_by_what_reaches_them() {
        let api = api(UNTAGGED);
        let groups = Groups::of(&api);
        assert_eq!(groups.names(), ["customers", "charges", "ungrouped"]);
        assert_eq!(groups.groups[0].operations.len(), 2);
        let of = |name: &str| {
            let t = api.types.iter().position(|t| t.name == name).unwrap();
            groups.of_type_names(TypeId(t))
        };
        assert_eq!(of("Customer"), ["customers", "charges"]);
        assert_eq!(of("Charge"), ["charges"]);
        // Unused reaches Address (which the customers reach too) and Note.
        assert_eq!(of("Unused"), ["unused-components"]);
        assert_eq!(of("Address"), ["customers", "charges", "unused-components"]);
        assert_eq!(of("Note"), ["unused-components"]);
        assert_eq!(groups.unused_components(), 3);
    }

    #[test]
    fn the_error_body_and_what_callbacks_reach_belong_to_no_group() {
        let doc = r#"
openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /orders:
    post:
      operationId: order
      tags: [orders]
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Order'}}}}
      responses:
        '201': {description: ok}
        '400': {description: bad, content: {application/json: {schema: {$ref: '#/components/schemas/Problem'}}}}
      callbacks:
        shipped:
          '{$request.body#/url}':
            post:
              requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Shipment'}}}}
              responses: {'204': {description: ok}}
  /users:
    get:
      operationId: users
      tags: [users]
      responses:
        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Order'}}}}
        '404': {description: none, content: {application/json: {schema: {$ref: '#/components/schemas/Problem'}}}}
components:
  schemas:
    Order: {type: object, properties: {url: {type: string}}}
    Problem: {type: object, properties: {detail: {$ref: '#/components/schemas/Detail'}}}
    Detail: {type: object, properties: {text: {type: string}}}
    Shipment: {type: object, properties: {order: {$ref: '#/components/schemas/Order'}}}
"#;
        let api = api(doc);
        let groups = Groups::of(&api);
        let of = |name: &str| {
            let t = api.types.iter().position(|t| t.name == name).unwrap();
            groups.of_type_names(TypeId(t))
        };
        // The server answers its rejections with the error body whatever the selection.
        assert!(of("Problem").is_empty());
        assert!(of("Detail").is_empty());
        // Module `webhooks` (callbacks included) is not split by group.
        assert!(of("Shipment").is_empty());
        assert!(of("Order").is_empty());
        assert_eq!(groups.of_operation_id(&api, "users"), Some("users"));
    }

    #[test]
    fn a_slice_keeps_its_operations_and_what_they_reach() {
        let mut sliced = api(UNTAGGED);
        slice(&mut sliced, &["charges".to_owned()]).unwrap();
        let ops: Vec<_> = sliced.operations.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ops, ["charge"]);
        let types: Vec<_> = sliced.types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(types, ["Customer", "Address", "Charge"]);
        let err = slice(&mut api(UNTAGGED), &["customer".to_owned()]).unwrap_err();
        assert_eq!(
            err,
            "unknown group `customer`; the document's groups are: customers, charges, ungrouped"
        );
    }

    #[test]
    fn the_first_tag_groups_and_names_stay_unique() {
        let doc = r#"
openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /a: {get: {operationId: a, tags: [Pet Store, other], responses: {'204': {description: ok}}}}
  /b: {get: {operationId: b, tags: [pet-store], responses: {'204': {description: ok}}}}
  /c: {get: {operationId: c, responses: {'204': {description: ok}}}}
  /d: {get: {operationId: d, tags: [default], responses: {'204': {description: ok}}}}
"#;
        let groups = Groups::of(&api(doc));
        assert_eq!(
            groups.names(),
            ["pet-store", "pet-store-2", "default-api", "ungrouped"]
        );
        // `parent` is OpenAPI 3.2's.
        let tagged = format!(
            "{}tags:\n  - {{name: Pet Store, parent: Shop}}\n  - {{name: Shop}}\n  - {{name: pet-store}}\n  - {{name: other}}\n",
            doc.replace("3.0.3", "3.2.0")
        );
        let mut sliced = api(&tagged);
        slice(&mut sliced, &["pet-store".to_owned()]).unwrap();
        let tags: Vec<_> = sliced.tags.iter().map(|t| t.name.as_str()).collect();
        // `a` lists `Pet Store` and `other`; `Pet Store` nests under `Shop`.
        assert_eq!(tags, ["Pet Store", "Shop", "other"]);
    }

    #[test]
    fn above_the_limit_the_smallest_groups_merge() {
        let mut paths = String::new();
        for i in 0..MAX_GROUPS + 5 {
            // Group i has 1 operation, except the first ten which have 2.
            paths.push_str(&format!(
                "  /r{i}: {{get: {{operationId: g{i}, tags: [t{i}], responses: {{'204': {{description: ok}}}}}}}}\n"
            ));
            if i < 10 {
                paths.push_str(&format!(
                    "  /r{i}/x: {{get: {{operationId: h{i}, tags: [t{i}], responses: {{'204': {{description: ok}}}}}}}}\n"
                ));
            }
        }
        let doc = format!("openapi: 3.0.3\ninfo: {{title: T, version: '1'}}\npaths:\n{paths}");
        let groups = Groups::of(&api(&doc));
        assert_eq!(groups.groups.len(), MAX_GROUPS);
        let merged = groups.groups.last().unwrap();
        assert_eq!(merged.name, "more-groups");
        assert_eq!(merged.merged.len(), 6);
        // The ten larger groups are all kept; the merged ones are the last in document order.
        assert_eq!(merged.merged[0], format!("t{}", MAX_GROUPS - 1));
        assert!(groups.names().contains(&"t0"));
    }
}
