//! What the lowering shares with its 3.2 step and with `build`: the extensions it writes, where
//! `build` reads what `openapiv3` does not, and the methods a path item has.

use crate::diagnostics::child;

/// On a map schema: the pattern every key must match (from `propertyNames`).
pub const KEY_PATTERN: &str = "x-openapi-gen-key-pattern";
/// Marks a schema that only admits `null`.
pub const NULL_MARKER: &str = "x-openapi-gen-null";
/// On a numeric schema: a string matching this pattern is accepted as the number too.
pub const NUMERIC_STRING_PATTERN: &str = "x-openapi-gen-numeric-string-pattern";
/// On the root: the 3.1 `webhooks` (name -> lowered path item), which `openapiv3` does not read.
pub const WEBHOOKS: &str = "x-openapi-gen-webhooks";
/// On an operation: its `callbacks` (name -> expression -> lowered path item), references
/// resolved, so that `openapiv3` need not read them.
pub const CALLBACKS: &str = "x-openapi-gen-callbacks";
/// On a path item: the operations of methods a 3.1 path item has no field for, by the name the
/// request sends (OpenAPI 3.2's `query` as `QUERY`, and its `additionalOperations`).
pub const OTHER_METHODS: &str = "x-openapi-gen-methods";
/// On `info.license`: the 3.1 `identifier` (an SPDX expression), which `openapiv3` does not read.
pub const LICENSE_IDENTIFIER: &str = "x-openapi-gen-license-identifier";

/// The methods of a 3.0/3.1 path item.
pub(crate) const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Where the document writes the operation of a method in [`OTHER_METHODS`].
pub(crate) fn other_method_pointer(path_item: &str, method: &str) -> String {
    if method == "QUERY" {
        child(path_item, "query")
    } else {
        child(&child(path_item, "additionalOperations"), method)
    }
}
