//! Credentials: the bearer schemes and the trait method that checks each, what an operation needs
//! (bearer, Basic, either), and the API keys passed through for the operation to check.

use super::*;

/// A bearer scheme and the trait method that checks its tokens.
pub struct BearerScheme {
    pub name: String,
    pub method: String,
}

impl<'a> Plan<'a> {
    fn scheme_kind(&self, name: &str) -> Option<&'a SecurityKind> {
        let scheme = self.api.security_schemes.iter().find(|s| s.name == name);
        scheme.map(|s| &s.kind)
    }

    fn is_bearer_scheme(&self, name: &str) -> bool {
        matches!(
            self.scheme_kind(name),
            Some(SecurityKind::Bearer | SecurityKind::OAuth2ClientCredentials { .. })
        )
    }

    /// See [`Plan::bearer_schemes`].
    pub(super) fn used_bearer_schemes(&self) -> Vec<BearerScheme> {
        let mut names: Vec<&String> = Vec::new();
        let requirements = self.api.operations.iter().flat_map(|op| &op.security);
        for name in requirements.flat_map(|r| &r.schemes) {
            if self.is_bearer_scheme(name) && !names.contains(&name) {
                names.push(name);
            }
        }
        let uses = |name: &String| {
            let named = |op: &&Operation| op.security.iter().any(|r| r.schemes.contains(name));
            self.api.operations.iter().filter(named).count()
        };
        // The most used scheme; `max_by_key` keeps the last of equals, so scan in reverse.
        let default = names.iter().rev().max_by_key(|name| uses(name)).copied();
        names
            .into_iter()
            .map(|name| BearerScheme {
                name: name.clone(),
                method: if Some(name) == default {
                    "authenticate".to_owned()
                } else {
                    format!("authenticate_{}", naming::field_ident(name))
                },
            })
            .collect()
    }

    /// The methods (of [`Plan::bearer_schemes`]) that may accept an operation's bearer token.
    pub(super) fn bearer_methods(&self, op: &Operation) -> Vec<String> {
        let mut methods: Vec<String> = Vec::new();
        for scheme in op.security.iter().flat_map(|r| &r.schemes) {
            if let Some(s) = self.bearer_schemes.iter().find(|s| &s.name == scheme)
                && !methods.contains(&s.method)
            {
                methods.push(s.method.clone());
            }
        }
        methods
    }

    /// Bearer and Basic needs from the operation's security alternatives, and whether one of them
    /// must be there. A scheme required by every alternative is required; one named by some is
    /// optional. Schemes the router cannot check (API keys, other HTTP schemes) count as "no
    /// credentials" here: the operation checks them.
    pub(super) fn credentials(&self, op: &Operation) -> (Need, Need, bool) {
        let is_basic = |name: &String| matches!(self.scheme_kind(name), Some(SecurityKind::Basic));
        let found: Vec<(bool, bool)> = op
            .security
            .iter()
            .map(|r| {
                let bearer = r.schemes.iter().any(|n| self.is_bearer_scheme(n));
                (bearer, r.schemes.iter().any(is_basic))
            })
            .collect();
        let need =
            |has: fn(&(bool, bool)) -> bool| match (found.iter().all(has), found.iter().any(has)) {
                (true, true) => Need::Required,
                (_, true) => Need::Optional,
                _ => Need::No,
            };
        let (bearer, basic) = (need(|f| f.0), need(|f| f.1));
        let anonymous = found.contains(&(false, false));
        let either = !anonymous && bearer == Need::Optional && basic == Need::Optional;
        (bearer, basic, either)
    }

    /// The fields of the API keys named by the operation's security (their text, if sent: the
    /// operation checks them), then of its HTTP Basic credentials.
    pub(super) fn credential_fields(
        &self,
        op: &Operation,
        basic: Need,
        taken: &mut HashSet<String>,
    ) -> Vec<FieldPlan> {
        let mut keys = HashSet::new();
        let mut fields = Vec::new();
        for scheme in op.security.iter().flat_map(|r| &r.schemes) {
            let Some(SecurityKind::ApiKey {
                location,
                name: key,
            }) = self.scheme_kind(scheme)
            else {
                continue;
            };
            if !keys.insert(scheme) {
                continue;
            }
            let (location, place) = match location {
                ParamLocation::Query => (ParamLocation::Query, "query parameter"),
                ParamLocation::Cookie => (ParamLocation::Cookie, "cookie"),
                _ => (ParamLocation::Header, "header"),
            };
            let read = ParamRead {
                location,
                wire: key.clone(),
                get: Get::Text {
                    at: None,
                    json: None,
                },
                checks: None,
                finish: Finish::AsIs,
            };
            fields.push(FieldPlan {
                name: unique_field(&naming::field_ident(scheme), taken),
                doc: format!(
                    "The API key of the `{scheme}` scheme (the `{key}` {place}), if sent. The router does not check it."
                ),
                read: Read::Param(Box::new(read)),
            });
        }
        if basic != Need::No {
            let doc = match basic {
                Need::Required => "HTTP Basic credentials (`Authorization: Basic`).",
                _ => "HTTP Basic credentials (`Authorization: Basic`), if the request sent them.",
            };
            fields.push(FieldPlan {
                name: unique_field("basic", taken),
                doc: doc.to_owned(),
                read: Read::Basic {
                    required: basic == Need::Required,
                },
            });
        }
        fields
    }
}
