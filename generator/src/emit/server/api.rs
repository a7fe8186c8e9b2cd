//! The trait an implementer writes: one method per operation, plus `authenticate` when some operation
//! takes a bearer token, `rejection` when the spec has an error body, and `{op}_rejection` for an
//! operation that documents its own error body where the router may refuse its requests.

use super::plan::{Need, OpPlan, Plan, push_paragraph};
use crate::emit::laid_out;
use crate::emit::layout::{fits, push_doc, push_use_group, type_text};
use crate::emit::rust::doc_lines;
use std::fmt::Write;

/// `api.rs`, written as text.
pub fn api_file(plan: &Plan) -> Result<String, String> {
    let mut body = String::new();
    let out = &mut body;
    let trait_doc = format!(
        " The operations of {} (version {}). Implement this trait, then serve it with [`router`]({}::router).",
        plan.api.title, plan.api.version, plan.root
    );
    push_doc(out, "", &doc_lines(Some(&trait_doc)));
    let _ = writeln!(
        out,
        "pub trait {}: Send + Sync + 'static {{",
        plan.trait_name
    );
    const CHECK_TOKEN: &[&str] = &["&self", "bearer_token: &str"];
    const PRINCIPAL: &str = "Result<Self::Principal, Rejection>";
    if plan.uses_bearer {
        out.push_str(
            "    /// Who a request acts for: what [`authenticate`](Self::authenticate) makes of its bearer token.\n\
             \x20   type Principal: Send + Sync + 'static;\n\
             \x20   /// Checks the bearer token of a request (`Authorization: Bearer <token>`) and says who it acts\n\
             \x20   /// for. The router calls it before every operation that takes a principal; an error is\n\
             \x20   /// answered as is (usually [`Rejection::invalid_token`]: 401 with `WWW-Authenticate: Bearer`)\n\
             \x20   /// and the operation does not run.\n",
        );
        push_method(out, "authenticate", CHECK_TOKEN, Returns::Future(PRINCIPAL));
    }
    for scheme in plan
        .bearer_schemes
        .iter()
        .filter(|s| s.method != "authenticate")
    {
        let doc = format!(
            " Checks a bearer token of the security scheme `{}`, for the operations that take that \
             scheme; [`authenticate`](Self::authenticate) is not called for them.",
            scheme.name
        );
        push_doc(out, "    ", &doc_lines(Some(&doc)));
        push_method(
            out,
            &scheme.method.to_string(),
            CHECK_TOKEN,
            Returns::Future(PRINCIPAL),
        );
    }
    let mut error = String::new();
    if plan.error_body.is_some() {
        error = type_text(plan.error_type());
        let _ = write!(
            out,
            "    /// The error body of a request the router refused before any operation ran: a malformed\n\
             \x20   /// parameter or body, an unsupported content type, missing or rejected credentials, an unknown\n\
             \x20   /// route. Map [`RejectionKind`]({}::RejectionKind) to the spec's error codes; the response\n\
             \x20   /// status is `rejection.status`.\n",
            plan.root
        );
        push_method(
            out,
            "rejection",
            &["&self", "rejection: &Rejection"],
            Returns::Plain(&error),
        );
    }
    for op in &plan.ops {
        method(out, op);
        own_rejection(out, plan, op);
    }
    out.push_str("}\n");

    let mut text = "//! The trait to implement.\n".to_owned();
    if super::mentions(&error, "models") {
        let _ = writeln!(text, "use {}::models;", plan.root);
    }
    let own_rejections = plan.ops.iter().any(|op| op.rejection.is_some());
    if plan.uses_bearer || plan.error_body.is_some() || own_rejections {
        let _ = writeln!(text, "use {}::Rejection;", plan.root);
    }
    let names: Vec<String> = plan
        .ops
        .iter()
        .map(|op| op.request_name.to_string())
        .chain(plan.ops.iter().map(|op| op.response_name.to_string()))
        .collect();
    push_use_group(&mut text, &plan.root, &names);
    text.push_str(&body);
    laid_out(text, "src/api.rs")
}

/// What a trait method returns.
enum Returns<'a> {
    Plain(&'a str),
    /// `impl Future<Output = {0}> + Send`.
    Future(&'a str),
}

/// `fn {name}({params}) -> {returns};` in a trait: the parameters one per line when it is too
/// wide, then a future's `Output` on a line of its own when the last line still is.
fn push_method(out: &mut String, name: &str, params: &[&str], returns: Returns) {
    let ret = match returns {
        Returns::Plain(ty) => ty.to_owned(),
        Returns::Future(output) => format!("impl Future<Output = {output}> + Send"),
    };
    let one_line = format!("    fn {name}({}) -> {ret};", params.join(", "));
    if fits(&one_line) {
        let _ = writeln!(out, "{one_line}");
        return;
    }
    let _ = writeln!(out, "    fn {name}(");
    for param in params {
        let _ = writeln!(out, "        {param},");
    }
    let last = format!("    ) -> {ret};");
    match returns {
        Returns::Future(output) if !fits(&last) => {
            let _ = writeln!(
                out,
                "    ) -> impl Future<\n        Output = {output},\n    > + Send;"
            );
        }
        _ => {
            let _ = writeln!(out, "{last}");
        }
    }
}

fn method(out: &mut String, op: &OpPlan) {
    let o = op.op;
    let mut doc = o.summary.clone().unwrap_or_default();
    push_paragraph(&mut doc, &format!("`{} {}`", o.method.as_str(), o.path));
    if let Some(description) = &o.description {
        push_paragraph(&mut doc, description.trim());
    }
    if o.deprecated {
        push_paragraph(&mut doc, "**Deprecated.**");
    }
    let anonymous = o.security.iter().any(|r| r.schemes.is_empty());
    let credentials = match (op.bearer, op.basic) {
        (Need::Optional, Need::No) if anonymous => {
            Some("Anonymous requests are allowed: `principal` is `None` without a bearer token.")
        }
        (Need::Optional, Need::No) => Some(
            "`principal` is `None` when the request uses other credentials than a bearer token; the operation checks those.",
        ),
        (Need::Optional, _) if op.require_some_credentials => Some(
            "Takes a bearer token (`principal`) or HTTP Basic credentials (`request.basic`); the router requires one of them.",
        ),
        (Need::Optional, _) => Some(
            "Takes a bearer token (`principal`) or HTTP Basic credentials (`request.basic`), or neither.",
        ),
        (_, Need::Required) => Some("Requires HTTP Basic credentials (`request.basic`)."),
        (_, Need::Optional) => {
            Some("Takes HTTP Basic credentials (`request.basic`) if the request sends them.")
        }
        _ => None,
    };
    if let Some(credentials) = credentials {
        push_paragraph(&mut doc, credentials);
    }
    for note in &op.notes {
        push_paragraph(&mut doc, note);
    }
    push_doc(out, "    ", &doc_lines(Some(&doc)));
    let request = format!("request: {}", op.request_name);
    let principal = match op.bearer {
        Need::Required => Some("principal: Self::Principal"),
        Need::Optional => Some("principal: Option<Self::Principal>"),
        Need::No => None,
    };
    let params: Vec<&str> = ["&self"]
        .into_iter()
        .chain(principal)
        .chain([request.as_str()])
        .collect();
    let response = op.response_name.to_string();
    push_method(
        out,
        &op.fn_name.to_string(),
        &params,
        Returns::Future(&response),
    );
}

/// `fn {op}_rejection`: how an operation with its own documented error body answers the requests the
/// router refuses before it runs. Required: the router cannot build that body itself.
fn own_rejection(out: &mut String, plan: &Plan, op: &OpPlan) {
    let Some(own) = op.rejection.as_ref() else {
        return;
    };
    let op_name = &op.fn_name;
    let response = &op.response_name;
    let Some((last, rest)) = own.statuses.split_last() else {
        return;
    };
    let statuses = if rest.is_empty() {
        format!("response {last} carries")
    } else {
        let rest: Vec<String> = rest.iter().map(u16::to_string).collect();
        format!("responses {} and {last} carry", rest.join(", "))
    };
    let fallback = if op.responses.iter().any(|r| r.variant == "Default") {
        format!("`{response}::Default` with `rejection.status`")
    } else if plan.error_body.is_some() {
        format!("`{response}::Other(rejection.status, self.rejection(rejection))`")
    } else {
        format!(
            "`{response}::Other(rejection.status, ErrorMessage {{ message: rejection.message.clone() }})`"
        )
    };
    // Only an operation that takes credentials is refused with 401.
    let challenge = if op.bearer != Need::No || op.basic != Need::No {
        "\nA 401 without a `WWW-Authenticate` header gets `rejection.challenge`."
    } else {
        ""
    };
    let doc = format!(
        "The router refused the request before [`{op_name}`](Self::{op_name}) ran; answer in\n\
         this operation's documented error shape.\n\n\
         Its documented {statuses} an error body of its own, so the router answers every\n\
         rejection of this operation (a malformed parameter or body, an unsupported content type,\n\
         missing or malformed credentials: see [`RejectionKind`]({root}::RejectionKind)) with what\n\
         this method returns, not with the API's error body. Answer with `rejection.status` where\n\
         the operation documents it; for a status it does not document, answer\n\
         {fallback}.{challenge}",
        root = plan.root,
    );
    push_doc(out, "    ", &doc_lines(Some(&doc)));
    let response = op.response_name.to_string();
    push_method(
        out,
        &own.fn_name.to_string(),
        &["&self", "rejection: &Rejection"],
        Returns::Plain(&response),
    );
}
