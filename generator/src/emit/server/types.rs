//! The typed inputs and outputs of the operations: one request struct and one response enum each.

use super::plan::{BodyPlan, OpPlan, Plan, ResponsePlan, StatusPlan, Writer};
use crate::emit::laid_out;
use crate::emit::layout::{
    fits, impl_header, push_attr, push_call_arm, push_doc, push_field, push_list, push_tuple,
    type_text,
};
use crate::emit::rust::doc_lines;
use crate::emit::struct_items::{self, StructField, StructItem};
use std::fmt::Write;

/// `requests.rs`: the request structs, written as text (`struct_items`).
pub fn requests_file(plan: &Plan) -> String {
    let mut types = String::new();
    let mut items = String::new();
    for op in &plan.ops {
        let doc = format!(
            " The parameters and body of [`{fn_name}`]({root}::{trait_name}::{fn_name}): `{method} {path}`.",
            fn_name = op.fn_name,
            root = plan.root,
            trait_name = plan.trait_name,
            method = op.op.method.as_str(),
            path = op.op.path,
        );
        let fields = op.fields.iter().map(|f| {
            let ty = type_text(f.ty.clone());
            types.push_str(&ty);
            types.push(' ');
            StructField {
                doc: doc_lines(Some(&f.doc)),
                ..StructField::plain(&f.name.to_string(), &ty)
            }
        });
        let item = StructItem {
            doc: doc_lines(Some(&doc)),
            derive: "Debug, Clone, PartialEq",
            attrs: &[],
            name: op.request_name.to_string(),
            public: true,
            fields: fields.collect(),
        };
        struct_items::write(&mut items, &item);
    }
    let mut out =
        "//! The input of each operation, parsed and validated by the router.\n".to_owned();
    for name in ["models", "BasicCredentials", "RawBody"] {
        if super::mentions(&types, name) {
            let _ = writeln!(out, "use {}::{name};", plan.root);
        }
    }
    out.push_str(&items);
    out
}

/// `responses.rs`: each operation's response enum and its `IntoResponse`, written as text.
pub fn responses_file(plan: &Plan) -> Result<String, String> {
    let error = type_text(plan.error_type());
    let mut types = format!("{error} ");
    let mut items = String::new();
    for op in &plan.ops {
        let item = response_enum(op, plan, &error, &mut types);
        items.push_str(&laid_out(item, "src/responses.rs")?);
    }
    let mut out = "//! The output of each operation: one variant per documented status, each writing itself.\n"
        .to_owned();
    for name in ["models", "ErrorMessage"] {
        if super::mentions(&types, name) {
            let _ = writeln!(out, "use {}::{name};", plan.root);
        }
    }
    if super::mentions(&types, "Bytes") {
        out.push_str("use axum::body::Bytes;\n");
    }
    let _ = writeln!(out, "use {}::respond;", plan.root);
    out.push_str("use axum::http::StatusCode;\nuse axum::response::{IntoResponse, Response};\n");
    out.push_str(&items);
    Ok(out)
}

/// A model struct can be hundreds of bytes next to a small error body. The value lives for one
/// response; boxing it would cost an allocation and every implementer a `Box::new`. Sizes are
/// estimated, so the lint is allowed well below its threshold (200 bytes).
fn large_variant(op: &OpPlan, plan: &Plan) -> bool {
    let mut sizes: Vec<usize> = op.responses.iter().map(|r| r.size).collect();
    if !documented_default(op) {
        sizes.push(
            2 + plan
                .error_body
                .map_or(24, |id| plan.size_of(&crate::ir::TypeRef::Named(id), 0)),
        );
    }
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.len() > 1 && sizes[0] > sizes[1] + 100
}

/// With a `default` response every status is documented; otherwise `Other` answers the rest.
fn documented_default(op: &OpPlan) -> bool {
    op.responses.iter().any(|r| r.variant == "Default")
}

const LARGE_VARIANT: [&str; 2] = [
    "clippy::large_enum_variant",
    "reason = \"built once per request and written out at once\"",
];

const OTHER_DOC: &str =
    " A status the spec does not document for this operation, with the API's error body.";

/// A response enum and its `IntoResponse`; the types its variants hold are added to `types`.
fn response_enum(op: &OpPlan, plan: &Plan, error: &str, types: &mut String) -> String {
    let mut item = String::new();
    let out = &mut item;
    let name = &op.response_name;
    let documented_default = documented_default(op);
    let doc = format!(
        " The responses of [`{fn_name}`]({root}::{trait_name}::{fn_name}).",
        fn_name = op.fn_name,
        root = plan.root,
        trait_name = plan.trait_name,
    );
    push_doc(out, "", &doc_lines(Some(&doc)));
    out.push_str("#[derive(Debug, Clone, PartialEq)]\n");
    if large_variant(op, plan) {
        push_attr(out, "", "allow", &LARGE_VARIANT.map(str::to_owned));
    }
    let _ = writeln!(out, "pub enum {name} {{");
    for r in &op.responses {
        variant_text(out, r, types);
    }
    if !documented_default {
        push_doc(out, "    ", &[OTHER_DOC.to_owned()]);
        let _ = writeln!(out, "    Other(StatusCode, {error}),");
    }
    out.push_str("}\n");
    let _ = writeln!(
        out,
        "{}",
        impl_header("impl IntoResponse", &name.to_string())
    );
    out.push_str("    fn into_response(self) -> Response {\n        match self {\n");
    for r in &op.responses {
        arm_text(out, r);
    }
    if !documented_default {
        let _ = writeln!(
            out,
            "{ARM}Self::Other(status, body) => respond::json(status, &body),"
        );
    }
    out.push_str("        }\n    }\n}\n");
    item
}

const ARM: &str = "            ";

fn variant_text(out: &mut String, r: &ResponsePlan, types: &mut String) {
    push_doc(out, "    ", &doc_lines(Some(&r.doc)));
    let chosen = matches!(r.status, StatusPlan::Chosen);
    let mut held = |ty| {
        let ty = type_text(ty);
        types.push_str(&ty);
        types.push(' ');
        ty
    };
    let body = r.body.as_ref().map(|b| held(b.ty.clone()));
    if r.headers.is_empty() {
        let fields: Vec<String> = chosen
            .then(|| "StatusCode".to_owned())
            .into_iter()
            .chain(body)
            .collect();
        match fields.as_slice() {
            [] => {
                let _ = writeln!(out, "    {},", r.variant);
            }
            [ty] => push_tuple(out, "    ", &format!("{}(", r.variant), ty, "),"),
            _ => {
                let _ = writeln!(out, "    {}({}),", r.variant, fields.join(", "));
            }
        }
        return;
    }
    let _ = writeln!(out, "    {} {{", r.variant);
    if chosen {
        out.push_str("        status: StatusCode,\n");
    }
    if let Some(body) = body {
        push_field(out, "        ", "body", &body);
    }
    for h in &r.headers {
        let mut text = format!("The `{}` header.", h.name);
        if let Some(d) = &h.doc {
            text = format!("{text} {}", d.trim());
        }
        push_doc(out, "        ", &doc_lines(Some(&text)));
        let ty = held(h.ty.clone());
        let ty = if h.required {
            ty
        } else {
            format!("Option<{ty}>")
        };
        push_field(out, "        ", &h.field.to_string(), &ty);
    }
    out.push_str("    },\n");
}

fn arm_text(out: &mut String, r: &ResponsePlan) {
    let status = match &r.status {
        StatusPlan::Fixed(expr) => type_text(expr.clone()),
        StatusPlan::Chosen => "status".to_owned(),
    };
    // The `respond` function writing the body, and its arguments.
    let (writer, args) = match &r.body {
        Some(BodyPlan {
            writer: Writer::Json,
            ..
        }) => ("json", vec![status, "&body".to_owned()]),
        Some(BodyPlan {
            writer: Writer::Text(None),
            ..
        }) => ("text", vec![status, "body".to_owned()]),
        Some(BodyPlan {
            writer: Writer::Text(Some(content_type)),
            ..
        }) => (
            "text_as",
            vec![status, format!("{content_type:?}"), "body".to_owned()],
        ),
        Some(BodyPlan {
            writer: Writer::Bytes(content_type),
            ..
        }) => (
            "bytes",
            vec![status, format!("{content_type:?}"), "body".to_owned()],
        ),
        None => ("empty", vec![status]),
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let callee = format!("respond::{writer}");
    let chosen = matches!(r.status, StatusPlan::Chosen);
    let status_binding = chosen.then_some("status");
    let body_binding = r.body.as_ref().map(|_| "body");
    let bindings: Vec<&str> = status_binding.into_iter().chain(body_binding).collect();
    if r.headers.is_empty() {
        let pattern = if bindings.is_empty() {
            format!("Self::{}", r.variant)
        } else {
            format!("Self::{}({})", r.variant, bindings.join(", "))
        };
        push_call_arm(out, ARM, &pattern, &callee, &args);
        return;
    }
    let fields: Vec<String> = bindings
        .into_iter()
        .map(str::to_owned)
        .chain(r.headers.iter().map(|h| h.field.to_string()))
        .collect();
    let pattern = format!("{ARM}Self::{} {{ {} }} => {{", r.variant, fields.join(", "));
    if fits(&pattern) {
        let _ = writeln!(out, "{pattern}");
    } else {
        let _ = writeln!(out, "{ARM}Self::{} {{", r.variant);
        for field in &fields {
            let _ = writeln!(out, "{ARM}    {field},");
        }
        let _ = writeln!(out, "{ARM}}} => {{");
    }
    push_list(
        out,
        &format!("{ARM}    "),
        &format!("let mut response = {callee}("),
        &args,
        ");",
    );
    for h in &r.headers {
        let call = if h.required {
            "respond::header("
        } else {
            "respond::optional_header("
        };
        let wire = format!("{:?}", h.wire);
        let field = h.field.to_string();
        push_list(
            out,
            &format!("{ARM}    "),
            call,
            &["&mut response", &wire, &field],
            ");",
        );
    }
    let _ = writeln!(out, "{ARM}    response\n{ARM}}}");
}
