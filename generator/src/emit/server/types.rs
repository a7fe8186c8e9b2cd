//! The typed inputs and outputs of the operations: one request struct and one response enum each.

use super::plan::{Body, OpPlan, Plan, ResponsePlan, StatusPlan};
use super::reads;
use crate::emit::rust::primitive;
use crate::emit::status::status_constant;
use crate::emit::{doc_attrs, ident};
use crate::ir::TypeRef;
use proc_macro2::TokenStream;
use quote::quote;

pub fn requests_rs(plan: &Plan) -> TokenStream {
    let items =
        (plan.ops.iter()).map(|op| crate::emit::gated(request_struct(op, plan), &plan.gate(&[op])));
    let items = quote! { #(#items)* };
    let uses = super::imports(plan, &items, &["models", "BasicCredentials", "RawBody"]);
    quote! {
        //! The input of each operation, parsed and validated by the router.
        #uses

        #items
    }
}

fn request_struct(op: &OpPlan, plan: &Plan) -> TokenStream {
    let name = ident(&op.request_name);
    let doc = format!(
        " The parameters and body of {}: `{} {}`.",
        plan.method_link(op),
        op.op.method.as_str(),
        op.op.path
    );
    let fields = op.fields.iter().map(|f| {
        let doc = doc_attrs(Some(&f.doc));
        let name = ident(&f.name);
        let ty = reads::field_type(plan, &f.read);
        quote! { #doc pub #name: #ty, }
    });
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        pub struct #name {
            #(#fields)*
        }
    }
}

pub fn responses_rs(plan: &Plan) -> TokenStream {
    let error = plan.error_type();
    let items = (plan.ops.iter())
        .map(|op| crate::emit::gated(response_enum(op, plan, &error), &plan.gate(&[op])));
    let items = quote! { #(#items)* };
    let uses = super::imports(plan, &items, &["models", "ErrorMessage", "Bytes", "stream"]);
    let use_respond = plan.use_item(quote! { respond });
    quote! {
        //! The output of each operation: one variant per documented status, each writing itself.
        #uses
        #use_respond
        use axum::http::StatusCode;
        use axum::response::{IntoResponse, Response};

        #items
    }
}

fn response_enum(op: &OpPlan, plan: &Plan, error: &TokenStream) -> TokenStream {
    let name = ident(&op.response_name);
    let doc = format!(" The responses of {}.", plan.method_link(op));
    let variants = op.responses.iter().map(|r| variant(plan, r));
    let arms = op.responses.iter().map(arm);
    // A model struct can be hundreds of bytes next to a small error body. The value lives for one
    // response; boxing it would cost an allocation and every implementer a `Box::new`. Sizes are
    // estimated, so the lint is allowed well below its threshold (200 bytes).
    // With a `default` response every status is documented; otherwise `Other` answers the rest.
    let documented_default = op.responses.iter().any(|r| r.variant == "Default");
    let error_size = plan
        .error_body
        .map(|id| plan.api.size_estimate(&TypeRef::Named(id)));
    let other_size = (!documented_default).then_some(2 + error_size.unwrap_or(24));
    let sizes = op.responses.iter().map(|r| size(plan, r)).chain(other_size);
    let mut sizes: Vec<usize> = sizes.collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let large = (sizes.len() > 1 && sizes[0] > sizes[1] + 100).then(|| {
        quote! { #[allow(clippy::large_enum_variant, reason = "built once per request and written out at once")] }
    });
    let other = (!documented_default).then(|| {
        quote! {
            /// A status the spec does not document for this operation, with the API's error body.
            Other(StatusCode, #error),
        }
    });
    let other_arm = (!documented_default)
        .then(|| quote! { Self::Other(status, body) => respond::json(status, &body), });
    // A stream is read once and compares with nothing: such an enum is only `Debug`.
    let streams = op
        .responses
        .iter()
        .any(|r| matches!(r.body, Some(Body::Events(_) | Body::Lines(..))));
    let derives = if streams {
        quote! { Debug }
    } else {
        quote! { Debug, Clone, PartialEq }
    };
    let error_response = (!documented_default)
        .then(|| error_response(op, plan, error))
        .flatten();
    quote! {
        #[doc = #doc]
        #[derive(#derives)]
        #large
        pub enum #name {
            #(#variants)*
            #other
        }

        impl IntoResponse for #name {
            fn into_response(self) -> Response {
                match self {
                    #(#arms)*
                    #other_arm
                }
            }
        }

        #error_response
    }
}

/// `respond::ErrorResponse` for an enum with `Other`: each documented error status whose variant
/// carries the API's error body (and optional headers only, left out) is built from it, every
/// other status is `Other`. `None` when a documented error status carries another body or a
/// required header, or a range or `default` is documented: no function of a status and the error
/// body can build those.
fn error_response(op: &OpPlan, plan: &Plan, error: &TokenStream) -> Option<TokenStream> {
    let error_body = plan.error_body.map(TypeRef::Named);
    let mut arms = Vec::new();
    for r in &op.responses {
        let code = match r.status {
            StatusPlan::Fixed(code) if code >= 400 => code,
            StatusPlan::Fixed(_) => continue,
            StatusPlan::Chosen => return None,
        };
        let carries_error = match (&r.body, &error_body) {
            (Some(Body::Json(ty)), Some(error)) => ty == error,
            _ => false,
        };
        if !carries_error || r.headers.iter().any(|h| h.required) {
            return None;
        }
        let variant = ident(&r.variant);
        let build = if r.headers.is_empty() {
            quote! { Self::#variant(body) }
        } else {
            let headers = r.headers.iter().map(|h| ident(&h.field));
            quote! { Self::#variant { body, #(#headers: None),* } }
        };
        let code = proc_macro2::Literal::u16_unsuffixed(code);
        arms.push(quote! { #code => #build, });
    }
    let name = ident(&op.response_name);
    let build = if arms.is_empty() {
        quote! { Self::Other(status, body) }
    } else {
        quote! {
            match status.as_u16() {
                #(#arms)*
                _ => Self::Other(status, body),
            }
        }
    };
    Some(quote! {
        impl respond::ErrorResponse for #name {
            type Error = #error;
            fn error(status: StatusCode, body: #error) -> Self {
                #build
            }
        }
    })
}

/// A rough size of a variant in bytes (see [`crate::ir::Api::size_estimate`]).
fn size(plan: &Plan, r: &ResponsePlan) -> usize {
    let body = r.body.as_ref().map_or(0, |body| match body {
        Body::Json(ty) => plan.api.size_estimate(ty),
        Body::Events(_) | Body::Lines(..) => 16,
        Body::Text(_) | Body::Bytes(_) => 32,
    });
    let status = if matches!(r.status, StatusPlan::Chosen) {
        2
    } else {
        0
    };
    body + status + 24 * r.headers.len()
}

/// The Rust type of a response body.
fn body_type(plan: &Plan, body: &Body) -> TokenStream {
    match body {
        Body::Json(ty) => plan.printer().rust_type(ty),
        Body::Text(_) => quote! { String },
        Body::Bytes(_) => quote! { Bytes },
        Body::Events(item) => {
            let item = plan.printer().rust_type(item);
            quote! { stream::EventStream<#item> }
        }
        Body::Lines(item, ..) => {
            let item = plan.printer().rust_type(item);
            quote! { stream::ItemStream<#item> }
        }
    }
}

fn variant(plan: &Plan, r: &ResponsePlan) -> TokenStream {
    let doc = doc_attrs(Some(&r.doc));
    let name = ident(&r.variant);
    let chosen = matches!(r.status, StatusPlan::Chosen);
    let body = r.body.as_ref().map(|b| body_type(plan, b));
    if r.headers.is_empty() {
        let status = chosen.then(|| quote! { StatusCode });
        let fields: Vec<TokenStream> = status.into_iter().chain(body).collect();
        if fields.is_empty() {
            return quote! { #doc #name, };
        }
        return quote! { #doc #name(#(#fields),*), };
    }
    let status = chosen.then(|| quote! { status: StatusCode, });
    let body = body.map(|ty| quote! { body: #ty, });
    let headers = r.headers.iter().map(|h| {
        let field = ident(&h.field);
        let ty = h.ty.map_or_else(|| quote! { String }, primitive);
        let ty = if h.required {
            ty
        } else {
            quote! { Option<#ty> }
        };
        let doc = doc_attrs(Some(&h.doc));
        quote! { #doc #field: #ty, }
    });
    quote! {
        #doc
        #name { #status #body #(#headers)* },
    }
}

fn arm(r: &ResponsePlan) -> TokenStream {
    let name = ident(&r.variant);
    let status = match r.status {
        StatusPlan::Fixed(code) => match status_constant(code) {
            Some(constant) => {
                let constant = ident(&constant);
                quote! { StatusCode::#constant }
            }
            None => quote! { respond::status(#code) },
        },
        StatusPlan::Chosen => quote! { status },
    };
    let write = match &r.body {
        Some(Body::Json(_)) => quote! { respond::json(#status, &body) },
        Some(Body::Text(None)) => quote! { respond::text(#status, body) },
        Some(Body::Text(Some(content_type))) => {
            quote! { respond::text_as(#status, #content_type, body) }
        }
        Some(Body::Bytes(content_type)) => quote! { respond::bytes(#status, #content_type, body) },
        Some(Body::Events(_)) => quote! { stream::events(#status, body) },
        Some(Body::Lines(_, content_type, seq)) => {
            let delimiter = ident(if *seq { "RecordSeparator" } else { "Line" });
            quote! { stream::lines(#status, #content_type, stream::Delimiter::#delimiter, body) }
        }
        None => quote! { respond::empty(#status) },
    };
    let chosen = matches!(r.status, StatusPlan::Chosen);
    if r.headers.is_empty() {
        let status = chosen.then(|| quote! { status });
        let body = r.body.as_ref().map(|_| quote! { body });
        let bindings: Vec<TokenStream> = status.into_iter().chain(body).collect();
        if bindings.is_empty() {
            return quote! { Self::#name => #write, };
        }
        return quote! { Self::#name(#(#bindings),*) => #write, };
    }
    let status_binding = chosen.then(|| quote! { status, });
    let body_binding = r.body.as_ref().map(|_| quote! { body, });
    let fields: Vec<_> = r.headers.iter().map(|h| ident(&h.field)).collect();
    let sets = r.headers.iter().map(|h| {
        let field = ident(&h.field);
        let wire = &h.wire;
        // One runtime call per header: the runtime renders any `Display` value.
        if h.required {
            quote! { respond::header(&mut response, #wire, #field); }
        } else {
            quote! { respond::optional_header(&mut response, #wire, #field); }
        }
    });
    quote! {
        Self::#name { #status_binding #body_binding #(#fields),* } => {
            let mut response = #write;
            #(#sets)*
            response
        }
    }
}
