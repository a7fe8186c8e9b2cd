//! Credentials: the bearer schemes and the trait method that checks each, what an operation needs
//! (bearer, Basic, either), and the API keys passed through for the operation to check.

use super::*;

/// A bearer scheme and the trait method that checks its tokens.
pub struct BearerScheme {
    pub name: String,
    pub method: String,
}

/// An API key's field: its text, if sent (the operation checks it).
pub(super) fn api_key_field(
    name: &str,
    scheme: &str,
    location: ParamLocation,
    key: &str,
) -> FieldPlan {
    let location = match location {
        ParamLocation::Query | ParamLocation::Cookie => location,
        _ => ParamLocation::Header,
    };
    let place = match location {
        ParamLocation::Query => "query parameter",
        ParamLocation::Cookie => "cookie",
        _ => "header",
    };
    let doc = format!(
        "The API key of the `{scheme}` scheme (the `{key}` {place}), if sent. The router does not check it."
    );
    let read = ParamRead {
        location,
        wire: key.to_owned(),
        get: Get::Text(None),
        checks: None,
        finish: Finish::AsIs,
    };
    FieldPlan {
        name: name.to_owned(),
        doc,
        read: Read::Param(Box::new(read)),
    }
}

impl<'a> Plan<'a> {
    pub(super) fn is_bearer_scheme(&self, name: &str) -> bool {
        self.api.security_schemes.iter().any(|s| {
            s.name == name
                && matches!(
                    s.kind,
                    SecurityKind::Bearer | SecurityKind::OAuth2ClientCredentials { .. }
                )
        })
    }

    /// See [`Plan::bearer_schemes`].
    pub(super) fn used_bearer_schemes(&self) -> Vec<BearerScheme> {
        let mut names: Vec<&String> = Vec::new();
        for op in &self.api.operations {
            for name in op.security.iter().flat_map(|r| &r.schemes) {
                if self.is_bearer_scheme(name) && !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        let uses = |name: &String| {
            let named = |op: &&Operation| op.security.iter().any(|r| r.schemes.contains(name));
            self.api.operations.iter().filter(named).count()
        };
        // The most used scheme; `max_by_key` keeps the last of equals, so scan in reverse.
        let default = names
            .iter()
            .rev()
            .max_by_key(|name| uses(name))
            .map(|n| (*n).clone());
        names
            .into_iter()
            .map(|name| {
                let method = if Some(name) == default.as_ref() {
                    "authenticate".to_owned()
                } else {
                    format!("authenticate_{}", crate::naming::field_ident(name))
                };
                BearerScheme {
                    name: name.clone(),
                    method,
                }
            })
            .collect()
    }

    /// Bearer and Basic needs from the operation's security alternatives. A scheme required by every
    /// alternative is required; one named by some is optional. Schemes the router cannot check
    /// (API keys, other HTTP schemes) count as "no credentials" here: the operation checks them.
    pub(super) fn credentials(&self, op: &Operation) -> (Need, Need, bool) {
        if op.security.is_empty() {
            return (Need::No, Need::No, false);
        }
        let kind = |name: &str| {
            self.api
                .security_schemes
                .iter()
                .find(|s| s.name == name)
                .map(|s| &s.kind)
        };
        let is_bearer = |name: &String| {
            matches!(
                kind(name),
                Some(SecurityKind::Bearer | SecurityKind::OAuth2ClientCredentials { .. })
            )
        };
        let is_basic = |name: &String| matches!(kind(name), Some(SecurityKind::Basic));
        let bearer: Vec<bool> = op
            .security
            .iter()
            .map(|r| r.schemes.iter().any(is_bearer))
            .collect();
        let basic: Vec<bool> = op
            .security
            .iter()
            .map(|r| r.schemes.iter().any(is_basic))
            .collect();
        let need = |found: &[bool]| {
            if found.iter().all(|b| *b) {
                Need::Required
            } else if found.iter().any(|b| *b) {
                Need::Optional
            } else {
                Need::No
            }
        };
        let anonymous = bearer.iter().zip(&basic).any(|(a, b)| !a && !b);
        let (bearer, basic) = (need(&bearer), need(&basic));
        (
            bearer,
            basic,
            !anonymous && bearer == Need::Optional && basic == Need::Optional,
        )
    }

    /// API keys named by the operation's security: passed through raw, the operation checks them.
    pub(super) fn api_keys(&self, op: &Operation) -> Vec<(String, ParamLocation, String)> {
        let mut keys: Vec<(String, ParamLocation, String)> = Vec::new();
        for requirement in &op.security {
            for name in &requirement.schemes {
                let Some(scheme) = self.api.security_schemes.iter().find(|s| &s.name == name)
                else {
                    continue;
                };
                if let SecurityKind::ApiKey {
                    location,
                    name: key,
                } = &scheme.kind
                    && !keys.iter().any(|(s, _, _)| s == name)
                {
                    keys.push((name.clone(), *location, key.clone()));
                }
            }
        }
        keys
    }
}
