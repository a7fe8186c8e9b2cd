//! The function reading one operation's request into its typed form, as text: credentials, then
//! path, query, header and cookie parameters, the body last. The field reads come from the plan as
//! tokens and are spelled as prettyplease prints them where their form is simple; the others, and
//! the checks of several bearer schemes, send the function to prettyplease.

use super::plan::{Need, OpPlan, Plan, Source};
use crate::emit::layout::{fits, push_arm, push_list, push_struct_literal};
use proc_macro2::TokenStream;
use std::fmt::Write;

/// One operation's reader as text.
pub(super) struct Reader {
    pub text: String,
    /// A form was written only flat: prettyplease must print it.
    pub force: bool,
    /// The modules its statements name, besides what the field reads name (their tokens tell).
    pub auth: bool,
    pub params: bool,
}

/// The function reading one operation's request: credentials first (nothing else is looked at for
/// a caller that is not allowed in), then path, query, header and cookie parameters, the body last.
pub(super) fn reader(plan: &Plan, op: &OpPlan) -> Reader {
    let api = &plan.trait_name;
    let request_name = &op.request_name;
    let uses = |source: Source| op.fields.iter().any(|f| f.source == source);
    let mut force = false;
    let mut out = format!(
        "/// Reads the request of [`{0}`]({api}::{0}), or the reason to refuse it.\n",
        op.fn_name
    );
    let (head, api_param, output, result) = match op.bearer {
        Need::No => (
            format!("async fn read_{}", op.op.name),
            None,
            request_name.to_string(),
            "request",
        ),
        Need::Required => (
            format!("async fn read_{}<A: {api}>", op.op.name),
            Some("api: &A"),
            format!("(A::Principal, {request_name})"),
            "(principal, request)",
        ),
        Need::Optional => (
            format!("async fn read_{}<A: {api}>", op.op.name),
            Some("api: &A"),
            format!("(Option<A::Principal>, {request_name})"),
            "(principal, request)",
        ),
    };
    let params: Vec<&str> = api_param.into_iter().chain(["request: Request"]).collect();
    push_list(
        &mut out,
        "",
        &format!("{head}("),
        &params,
        &format!(") -> Result<{output}, Rejection> {{"),
    );
    let _ = writeln!(
        out,
        "    let ({}, {}) = request.into_parts();",
        if uses(Source::Path) {
            "mut parts"
        } else {
            "parts"
        },
        if uses(Source::Body) { "raw_body" } else { "_" },
    );
    let only_authenticate = op.bearer_methods.len() == 1 && op.bearer_methods[0] == "authenticate";
    // `require_bearer` and `optional_bearer` name `auth` in helpers of their own.
    let auth = (op.bearer != Need::No && !only_authenticate) || op.basic != Need::No;
    // Several schemes are checked in nested matches, laid out by prettyplease.
    force |= op.bearer != Need::No && op.bearer_methods.len() > 1;
    match op.bearer {
        Need::Required if only_authenticate => {
            out.push_str("    let principal = require_bearer(api, &parts.headers).await?;\n")
        }
        Need::Optional if only_authenticate => {
            out.push_str("    let principal = optional_bearer(api, &parts.headers).await?;\n")
        }
        Need::Required => {
            out.push_str("    let token = auth::bearer_token(&parts.headers)?;\n");
            let check = check_bearer(&op.bearer_methods);
            let line = format!("    let principal = {check};");
            if fits(&line) || op.bearer_methods.len() > 1 {
                let _ = writeln!(out, "{line}");
            } else {
                // One scheme: a chain on `api`, one call per line.
                let _ = writeln!(
                    out,
                    "    let principal = api\n        .{}(token)\n        .await\n        \
                     .map_err(auth::bearer_rejected)?;",
                    op.bearer_methods[0]
                );
            }
        }
        Need::Optional => {
            let check = check_bearer(&op.bearer_methods);
            out.push_str(
                "    let principal = match auth::optional_bearer_token(&parts.headers)? {\n",
            );
            push_arm(
                &mut out,
                "        ",
                "Some(token)",
                &format!("Some({check})"),
            );
            out.push_str("        None => None,\n    };\n");
        }
        Need::No => {}
    }
    match op.basic {
        Need::Required => out.push_str("    let credentials = auth::basic(&parts.headers)?;\n"),
        Need::Optional => {
            out.push_str("    let credentials = auth::optional_basic(&parts.headers)?;\n")
        }
        Need::No => {}
    }
    if op.require_some_credentials {
        out.push_str(
            "    if principal.is_none() && credentials.is_none() {\n        \
             return Err(auth::missing_credentials());\n    }\n",
        );
    }
    for (source, line) in [
        (
            Source::Path,
            "let path = params::Path::from_parts(&mut parts).await?;",
        ),
        (
            Source::Query,
            "let query = params::Query::parse(parts.uri.query());",
        ),
        (
            Source::Header,
            "let headers = params::Headers(&parts.headers);",
        ),
        (
            Source::Cookie,
            "let cookies = params::Cookies::parse(&parts.headers);",
        ),
    ] {
        if uses(source) {
            let _ = writeln!(out, "    {line}");
        }
    }
    let mut fields = Vec::new();
    for f in &op.fields {
        let read = expr_text(f.read.clone()).unwrap_or_else(|| {
            // A form the text writer does not lay out: prettyplease prints the reader.
            force = true;
            f.read.to_string()
        });
        fields.push(format!("{}: {read}", f.name));
    }
    let request = request_name.to_string();
    force |= !push_struct_literal(&mut out, "    ", "let request = ", &request, &fields, ";");
    let _ = writeln!(out, "    Ok({result})\n}}");
    Reader {
        text: out,
        force,
        auth,
        params: [Source::Path, Source::Query, Source::Header, Source::Cookie]
            .into_iter()
            .any(uses),
    }
}

/// Checks `token` with each of `methods` in turn (the operation's bearer schemes): the first that
/// accepts it gives the principal; the last one's refusal is the answer. Written flat.
fn check_bearer(methods: &[proc_macro2::Ident]) -> String {
    let (last, others) = methods
        .split_last()
        .expect("an operation with a bearer need has a scheme");
    let mut check = format!("api.{last}(token).await.map_err(auth::bearer_rejected)?");
    for method in others.iter().rev() {
        check = format!(
            "match api.{method}(token).await {{ Ok(principal) => principal, Err(_) => {check}, }}"
        );
    }
    check
}

/// An expression's tokens as prettyplease prints them on one line, for the forms readers use:
/// paths (with turbofish), calls, method calls, fields, `?`, `&`; `None` for anything else
/// (blocks, closures, macros, operators), which the caller leaves to prettyplease.
fn expr_text(tokens: TokenStream) -> Option<String> {
    let mut out = String::new();
    push_expr(&mut out, tokens)?;
    Some(out)
}

fn push_expr(out: &mut String, tokens: TokenStream) -> Option<()> {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    // Whether the last token ends an operand (a word, a closing bracket): a word after it needs a
    // space, and `&` after it would be binary.
    let mut operand = false;
    // Depth of turbofish generics (`::<..>`).
    let mut generics = 0usize;
    let mut trees = tokens.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Ident(ident) => {
                if operand {
                    out.push(' ');
                }
                let _ = write!(out, "{ident}");
                operand = true;
            }
            TokenTree::Literal(literal) => {
                if operand {
                    out.push(' ');
                }
                let _ = write!(out, "{literal}");
                operand = true;
            }
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ('(', ')'),
                    Delimiter::Bracket => ('[', ']'),
                    Delimiter::Brace | Delimiter::None => return None,
                };
                // prettyplease drops a trailing comma on one line.
                if group
                    .stream()
                    .into_iter()
                    .last()
                    .is_some_and(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                {
                    return None;
                }
                out.push(open);
                push_expr(out, group.stream())?;
                out.push(close);
                operand = true;
            }
            TokenTree::Punct(punct) => {
                let c = punct.as_char();
                let joint = punct.spacing() == Spacing::Joint;
                match c {
                    ':' if joint => {
                        match trees.next() {
                            Some(TokenTree::Punct(p)) if p.as_char() == ':' => {}
                            _ => return None,
                        }
                        out.push_str("::");
                        operand = false;
                        if matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '<') {
                            trees.next();
                            out.push('<');
                            generics += 1;
                        }
                    }
                    '<' if generics > 0 => {
                        out.push('<');
                        generics += 1;
                        operand = false;
                    }
                    '>' if generics > 0 => {
                        out.push('>');
                        generics -= 1;
                        operand = true;
                    }
                    ',' => {
                        out.push_str(", ");
                        operand = false;
                    }
                    '.' if !joint => {
                        out.push('.');
                        operand = false;
                    }
                    '?' => {
                        out.push('?');
                        operand = true;
                    }
                    '&' if !operand && !joint => {
                        out.push('&');
                    }
                    _ => return None,
                }
            }
        }
    }
    (generics == 0).then_some(())
}
