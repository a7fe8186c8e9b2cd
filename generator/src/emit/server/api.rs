//! The trait an implementer writes: one method per operation, plus `authenticate` when some operation
//! takes a bearer token, `rejection` when the spec has an error body, and `{op}_rejection` for an
//! operation that documents its own error body where the router may refuse its requests.

use super::plan::{Need, OpPlan, Plan, push_paragraph};
use crate::emit::{doc_attrs, ident};
use proc_macro2::TokenStream;
use quote::quote;

/// The trait's file; `example_crate` names the crate whose docs compile the trait's example
/// (none for the receiver of webhooks nested in a client crate).
pub fn api_rs(plan: &Plan, example_crate: Option<&str>) -> TokenStream {
    let name = ident(&plan.trait_name);
    let mut trait_doc = vec![format!(
        " The operations of {} (version {}). Implement this trait, then serve it with [`router`]({}::router).",
        plan.api.title,
        plan.api.version,
        plan.root.text()
    )];
    if let Some(krate) = example_crate {
        trait_doc.push(String::new());
        trait_doc.extend(
            super::example::trait_example(plan, krate)
                .lines()
                .map(|line| format!(" {line}").trim_end().to_owned()),
        );
    }
    // Some operation takes a bearer token.
    let principal = plan.ops.iter().any(|op| op.bearer != Need::No).then(|| {
        quote! {
            /// Who a request acts for: what [`authenticate`](Self::authenticate) makes of its bearer token.
            type Principal: Send + Sync + 'static;

            /// Checks the bearer token of a request (`Authorization: Bearer <token>`) and says who it acts
            /// for. The router calls it before every operation that takes a principal; an error is
            /// answered as is (usually [`Rejection::invalid_token`]: 401 with `WWW-Authenticate: Bearer`)
            /// and the operation does not run.
            fn authenticate(&self, bearer_token: &str) -> impl Future<Output = Result<Self::Principal, Rejection>> + Send;
        }
    });
    let other_schemes = plan.bearer_schemes.iter().filter(|s| s.method != "authenticate").map(|s| {
        let method = ident(&s.method);
        let doc = format!(
            " Checks a bearer token of the security scheme `{}`, for the operations that take that \
             scheme; [`authenticate`](Self::authenticate) is not called for them.",
            s.name
        );
        quote! {
            #[doc = #doc]
            fn #method(&self, bearer_token: &str) -> impl Future<Output = Result<Self::Principal, Rejection>> + Send;
        }
    });
    let rejection = plan.error_body.map(|_| {
        let error = plan.error_type();
        let map = format!(
            " route. Map [`RejectionKind`]({}::RejectionKind) to the spec's error codes; the response",
            plan.root.text()
        );
        quote! {
            /// The error body of a request the router refused before any operation ran: a malformed
            /// parameter or body, an unsupported content type, missing or rejected credentials, an unknown
            #[doc = #map]
            /// status is `rejection.status`.
            fn rejection(&self, rejection: &Rejection) -> #error;
        }
    });
    let methods = plan.ops.iter().map(|op| {
        let gate = plan.gate(&[op]);
        let method = crate::emit::gated_fn(method(op), &gate);
        let own = own_rejection(plan, op).map(|own| crate::emit::gated_fn(own, &gate));
        quote! { #method #own }
    });
    let body = quote! {
        #( #[doc = #trait_doc] )*
        pub trait #name: Send + Sync + 'static {
            #principal
            #(#other_schemes)*
            #rejection
            #(#methods)*
        }
    };
    let uses = super::imports(plan, &body, &["models", "Rejection"]);
    let requests = plan.ops.iter().map(|op| ident(&op.request_name));
    let responses = plan.ops.iter().map(|op| ident(&op.response_name));
    // With a feature per group, a selection has some of them: a glob takes those there are.
    let own_types = if plan.groups.is_some() {
        let root = plan.root.path();
        quote! { use #root::requests::*; use #root::responses::*; }
    } else {
        plan.use_item(quote! { { #(#requests,)* #(#responses,)* } })
    };
    quote! {
        //! The trait to implement.
        #uses
        #own_types

        #body
    }
}

fn method(op: &OpPlan) -> TokenStream {
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
    let doc = doc_attrs(Some(&doc));
    let fn_name = ident(&op.fn_name);
    let request = ident(&op.request_name);
    let response = ident(&op.response_name);
    let principal = match op.bearer {
        Need::Required => quote! { principal: Self::Principal, },
        Need::Optional => quote! { principal: Option<Self::Principal>, },
        Need::No => TokenStream::new(),
    };
    quote! {
        #doc
        fn #fn_name(&self, #principal request: #request) -> impl Future<Output = #response> + Send;
    }
}

/// `fn {op}_rejection`: how an operation with its own documented error body answers the requests the
/// router refuses before it runs. Required: the router cannot build that body itself.
fn own_rejection(plan: &Plan, op: &OpPlan) -> Option<TokenStream> {
    let own = op.rejection.as_ref()?;
    let op_name = ident(&op.fn_name);
    let response = ident(&op.response_name);
    let (last, rest) = own.statuses.split_last()?;
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
        root = plan.root.text(),
    );
    let doc = doc_attrs(Some(&doc));
    let fn_name = ident(&own.fn_name);
    Some(quote! {
        #doc
        fn #fn_name(&self, rejection: &Rejection) -> #response;
    })
}
