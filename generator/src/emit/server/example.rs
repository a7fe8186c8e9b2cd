//! The example in the server trait's docs: one operation implemented and the router served,
//! compiled by `cargo test --doc` (`no_run`: it would serve forever). The other trait items are
//! hidden lines (`# `) that compile and are never called, so the example stays one screen for
//! any document. The operation shown is the first whose answer can be written briefly: a
//! documented status without headers, empty or with a JSON body sampled from its schema.

use super::plan::{Body, Need, OpPlan, Plan, StatusPlan};
use crate::emit::ident;
use crate::samples::Sampler;

/// Longest answer expression preferred; past it, the shortest one is shown.
const SHORT: usize = 120;

/// The `# Example` section of the trait's docs, for a server crate called `krate`.
pub fn trait_example(plan: &Plan, krate: &str) -> String {
    let sampler = Sampler::new(plan.api);
    let answers: Vec<Option<(String, bool)>> =
        plan.ops.iter().map(|op| answer(op, &sampler)).collect();
    // A brief success, else a brief answer, else the shortest.
    let brief = |success: bool| {
        answers.iter().position(|a| {
            a.as_ref()
                .is_some_and(|(text, ok)| text.len() <= SHORT && (*ok || !success))
        })
    };
    let shortest = || {
        (0..answers.len())
            .filter_map(|i| Some((answers[i].as_ref()?.0.len(), i)))
            .min()
            .map(|(_, i)| i)
    };
    let shown = brief(true)
        .or_else(|| brief(false))
        .or_else(shortest)
        .unwrap_or(0);
    let answers: Vec<Option<String>> = answers.into_iter().map(|a| a.map(|a| a.0)).collect();
    render(plan, krate, shown, &answers)
}

/// The example's text, operation `shown` implemented with its answer (`unimplemented!()` where
/// none is brief to write).
fn render(plan: &Plan, krate: &str, shown: usize, answers: &[Option<String>]) -> String {
    let mut lines = vec![
        "# Example".to_owned(),
        String::new(),
        "```no_run".to_owned(),
        format!("use {krate}::*;"),
        "use std::sync::Arc;".to_owned(),
        String::new(),
        "struct MyService;".to_owned(),
        String::new(),
        format!("impl {} for MyService {{", plan.trait_name),
    ];
    if plan.ops.iter().any(|op| op.bearer != Need::No) {
        lines.push("#   type Principal = ();".to_owned());
        lines.push(
            "#   async fn authenticate(&self, _: &str) -> Result<(), Rejection> { Ok(()) }"
                .to_owned(),
        );
    }
    for scheme in plan
        .bearer_schemes
        .iter()
        .filter(|s| s.method != "authenticate")
    {
        lines.push(format!(
            "#   async fn {}(&self, _: &str) -> Result<(), Rejection> {{ Ok(()) }}",
            ident(&scheme.method)
        ));
    }
    if plan.error_body.is_some() {
        lines.push(format!(
            "#   fn rejection(&self, _: &Rejection) -> {} {{ unimplemented!() }}",
            tokens_text(&plan.error_type().to_string())
        ));
    }
    for (i, op) in plan.ops.iter().enumerate() {
        let principal = match op.bearer {
            Need::Required => ("principal: Self::Principal, ", "_: Self::Principal, "),
            Need::Optional => (
                "principal: Option<Self::Principal>, ",
                "_: Option<Self::Principal>, ",
            ),
            Need::No => ("", ""),
        };
        if i == shown {
            lines.push(format!(
                "    async fn {}(&self, {}request: {}) -> {} {{",
                ident(&op.fn_name),
                principal.0,
                ident(&op.request_name),
                ident(&op.response_name)
            ));
            lines.push(
                "        // The request's parameters and body, parsed and validated by the router."
                    .to_owned(),
            );
            if op.bearer == Need::No {
                lines.push("        let _ = request;".to_owned());
            } else {
                lines.push("        let _ = (principal, request);".to_owned());
            }
            match &answers[i] {
                Some(answer) => lines.push(format!("        {answer}")),
                None => lines.push("        unimplemented!()".to_owned()),
            }
            lines.push("    }".to_owned());
        } else {
            lines.push(format!(
                "#   async fn {}(&self, {}_: {}) -> {} {{ unimplemented!() }}",
                ident(&op.fn_name),
                principal.1,
                ident(&op.request_name),
                ident(&op.response_name)
            ));
        }
        if let Some(own) = &op.rejection {
            lines.push(format!(
                "#   fn {}(&self, _: &Rejection) -> {} {{ unimplemented!() }}",
                ident(&own.fn_name),
                ident(&op.response_name)
            ));
        }
    }
    lines.extend([
        "}".to_owned(),
        String::new(),
        "// `listener`: a `tokio::net::TcpListener` bound to the address to serve.".to_owned(),
        "async fn serve(listener: impl axum::serve::Listener<Addr: std::fmt::Debug>) {".to_owned(),
        "    axum::serve(listener, router(Arc::new(MyService))).await.expect(\"serving\");"
            .to_owned(),
        "}".to_owned(),
        "```".to_owned(),
    ]);
    lines.join("\n")
}

/// The expression an implementation of `op` answers with, where one is brief to write: a
/// documented status without headers (a success first), empty or with a sampled JSON body.
fn answer(op: &OpPlan, sampler: &Sampler) -> Option<(String, bool)> {
    let simple = |r: &&super::plan::ResponsePlan| {
        matches!(r.status, StatusPlan::Fixed(_))
            && r.headers.is_empty()
            && matches!(r.body, None | Some(Body::Json(_)))
    };
    let success = |r: &&super::plan::ResponsePlan| matches!(r.status, StatusPlan::Fixed(code) if (200..300).contains(&code));
    let response = op
        .responses
        .iter()
        .filter(simple)
        .find(success)
        .or_else(|| op.responses.iter().find(simple))?;
    let variant = format!("{}::{}", ident(&op.response_name), ident(&response.variant));
    let expression = match &response.body {
        Some(Body::Json(ty)) => {
            let json = sampler.value(ty, &Default::default(), None).to_string();
            let mut hashes = "#".to_owned();
            while json.contains(&format!("\"{hashes}")) {
                hashes.push('#');
            }
            format!(
                "{variant}(serde_json::from_str(r{hashes}\"{json}\"{hashes}).expect(\"a valid body\"))"
            )
        }
        _ => variant,
    };
    Some((expression, success(&response)))
}

/// A type's tokens as Rust text (`models :: Error` -> `models::Error`).
fn tokens_text(tokens: &str) -> String {
    tokens
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}
