//! The statements of a builder's `exchange` that differ per operation, as text: the request (path,
//! query, headers, cookies, body) and the status `match`. Each is written on one line, or in the
//! broken forms prettyplease gives the shapes that recur (a long request chain, an error read that
//! does not fit its arm); a line still too wide, or a form written only flat (a multipart form, a
//! wide struct literal), sends the builder's impl to prettyplease (see `emit::laid_out`).

use super::plan::{Arm, Handling, Plan, Shape, Success, is_media_range};
use super::requests::{RequestEmitter, encode_literal, escape_format, strip_nullable};
use super::values::{Val, ValueKind, lit};
use crate::emit::ident;
use crate::emit::layout::{
    MARGIN, fits, push_args, push_arm, push_broken, push_if_fits, push_struct_literal,
    struct_literal_breaks,
};
use crate::ir::{
    Media, ParamLocation, ParamStyle, Parameter, PathSegment, SegmentPart, Status, TypeRef,
};
use std::fmt::Write;

/// The body of `exchange` is indented twice (it is a method of the builder's impl).
const BODY: &str = "        ";

/// The statements of one `exchange`, and whether a form was written that only prettyplease lays
/// out.
pub struct Statements {
    /// Before the status and headers are read: the request, sent.
    pub request: String,
    /// After: the documented headers and the status `match`.
    pub answer: String,
    pub force: bool,
}

impl RequestEmitter<'_> {
    /// `exchange`'s statements for an operation.
    pub(super) fn statements(&self, p: &Plan) -> Statements {
        let mut s = Statements {
            request: String::new(),
            answer: String::new(),
            force: false,
        };
        self.request_statements(&mut s, p);
        self.answer_statements(&mut s, p);
        s
    }

    fn request_statements(&self, s: &mut Statements, p: &Plan) {
        let op = p.op;
        let out = &mut s.request;
        let (path_lets, path) = self.path_expr(p);
        for (local, value) in path_lets {
            push_broken(out, BODY, &format!("let {local} = "), &value, ";", true);
        }
        let method = format!("::reqwest::Method::{}", op.method.as_str());

        // Query parameters: written by the style codec into one query string, so delimiters and
        // percent-encoding are exactly OpenAPI's (reqwest's own query encoding would escape `,`).
        let query: Vec<&Parameter> = op
            .parameters
            .iter()
            .filter(|q| q.location == ParamLocation::Query)
            .collect();
        if query.is_empty() {
            push_request_chain(out, &[method, path]);
        } else {
            let _ = writeln!(out, "{BODY}let mut query = String::new();");
            for param in query {
                let wire = lit(&param.wire_name);
                self.push_for_value(out, param, |value, ty| {
                    let plain = param.style == ParamStyle::Form
                        && !param.allow_reserved
                        && !param.json
                        && matches!(self.value_kind(ty), ValueKind::Primitive);
                    if plain {
                        let text = if self.is_string(ty) {
                            value.by_ref()
                        } else {
                            format!("&{}", self.text(ty, value))
                        };
                        return format!("crate::codec::query_pair(&mut query, {wire}, {text});");
                    }
                    format!(
                        "crate::codec::write_query(&mut query, crate::codec::Style::{}, {}, {}, {wire}, &{});",
                        param.style.variant(),
                        param.explode,
                        param.allow_reserved,
                        self.style_value(param, ty, value)
                    )
                });
            }
            push_request_chain(
                out,
                &[method, format!("&crate::codec::with_query({path}, &query)")],
            );
        }

        for param in op
            .parameters
            .iter()
            .filter(|h| h.location == ParamLocation::Header)
        {
            let wire = lit(&param.wire_name);
            if self.is_plain(param) {
                let field = ident(&param.name);
                let text = self.header_text(param, &param.ty, Val::place(format!("self.{field}")));
                let _ = writeln!(out, "{BODY}let request = request.header({wire}, {text});");
            } else {
                let text = self.header_text(param, strip_nullable(&param.ty), Val::named("value"));
                push_option_match(
                    out,
                    &format!("&self.{}", ident(&param.name)),
                    "value",
                    &format!("request.header({wire}, {text})"),
                );
            }
        }

        // Cookie parameters: one `Cookie` header.
        let cookies: Vec<&Parameter> = op
            .parameters
            .iter()
            .filter(|c| c.location == ParamLocation::Cookie)
            .collect();
        if !cookies.is_empty() {
            let _ = writeln!(out, "{BODY}let mut cookies: Vec<String> = Vec::new();");
            for param in cookies {
                self.push_for_value(out, param, |value, ty| {
                    format!(
                        "cookies.extend(crate::codec::write_cookie({}, {}, &{}));",
                        param.explode,
                        lit(&param.wire_name),
                        self.style_value(param, ty, value)
                    )
                });
            }
            let _ = write!(
                out,
                "{BODY}let request = if cookies.is_empty() {{\n{BODY}    request\n{BODY}}} else {{\n\
                 {BODY}    request.header(::reqwest::header::COOKIE, cookies.join(\"; \"))\n{BODY}}};\n"
            );
        }

        if let Some(body) = p.body {
            let apply = |value: &str, by_ref: &str, force: &mut bool| -> String {
                match &body.media {
                    Media::Json => format!("request.json({by_ref})"),
                    Media::Form => {
                        let encoding: Vec<String> = body
                            .encoding
                            .iter()
                            .map(|e| {
                                format!(
                                    "({}, crate::codec::Style::{}, {}, {})",
                                    lit(&e.property),
                                    e.style.variant(),
                                    e.explode,
                                    e.allow_reserved
                                )
                            })
                            .collect();
                        format!(
                            "crate::codec::form_body(request, {by_ref}, &[{}])",
                            encoding.join(", ")
                        )
                    }
                    Media::Multipart => match self.multipart_struct(&body.ty) {
                        Some(fields) => {
                            // A block as an argument: laid out by prettyplease.
                            *force = true;
                            format!("request.multipart({})", self.multipart_form(fields, by_ref))
                        }
                        None => format!("request.multipart({value})"),
                    },
                    Media::Text => format!(
                        "request.header(::reqwest::header::CONTENT_TYPE, \"text/plain; charset=utf-8\").body({value})"
                    ),
                    // The caller names the content type within the spec's range (`image/png` for
                    // `image/*`).
                    Media::Binary(media) if is_media_range(media) => {
                        format!(
                            "crate::codec::binary_body(request, {value}, {})",
                            lit(media)
                        )
                    }
                    Media::Binary(media) => format!(
                        "request.header(::reqwest::header::CONTENT_TYPE, {}).body({value})",
                        lit(media)
                    ),
                }
            };
            if body.required {
                let set = apply("self.body", "&self.body", &mut s.force);
                push_broken(out, BODY, "let request = ", &set, ";", true);
            } else {
                let set = apply("body", "&body", &mut s.force);
                push_option_match(out, "self.body", "body", &set);
            }
        }
        let _ = writeln!(
            out,
            "{BODY}let response = self.client.inner.send(request, {}, {}).await?;",
            p.bearer,
            op.method.is_idempotent()
        );
    }

    fn answer_statements(&self, s: &mut Statements, p: &Plan) {
        let out = &mut s.answer;
        // Unit values go straight into the struct (clippy's `let_unit_value`).
        if !p.success_headers.is_empty() {
            let fields: Vec<String> = p
                .success_headers
                .iter()
                .map(|h| {
                    let wire = lit(&h.wire);
                    format!(
                        "{}: crate::codec::header(&response, {wire})",
                        ident(&h.field)
                    )
                })
                .collect();
            let name = format!("crate::headers::{}", ident(&p.type_name));
            push_struct_literal(out, BODY, "let documented = ", &name, &fields, ";");
        }
        let empty_body = matches!(p.success, Success::Single(Shape::Empty));
        let head = if empty_body { "" } else { "let body = " };
        let _ = writeln!(out, "{BODY}{head}match status.as_u16() {{");
        for (i, arm) in p.arms.iter().enumerate() {
            let claimed: Vec<u16> = p.arms[..i]
                .iter()
                .flat_map(|a| &a.statuses)
                .filter_map(|s| match s {
                    Status::Code(code) => Some(*code),
                    _ => None,
                })
                .collect();
            self.push_arm_for(out, &mut s.force, p, arm, &claimed);
        }
        let _ = writeln!(out, "{BODY}}}?;");
    }

    /// One arm of the status `match`; `claimed` are the codes earlier arms match.
    fn push_arm_for(
        &self,
        out: &mut String,
        force: &mut bool,
        p: &Plan,
        arm: &Arm,
        claimed: &[u16],
    ) {
        let Some(pattern) = arm_pattern(&arm.statuses, claimed) else {
            return;
        };
        let indent = format!("{BODY}    ");
        match &arm.handling {
            Handling::Success(None) => match &p.success {
                Success::Single(shape) => push_arm(out, &indent, &pattern, read_shape(shape)),
                Success::Enum(_) => unreachable!("enum success arms carry their variant"),
            },
            Handling::Success(Some(index)) => {
                let Success::Enum(variants) = &p.success else {
                    unreachable!("variant index without enum")
                };
                let variant = &variants[*index];
                let path = format!(
                    "crate::responses::{}::{}",
                    ident(&p.type_name),
                    ident(&variant.name)
                );
                match &variant.shape {
                    Shape::Empty => {
                        let _ = write!(
                            out,
                            "{indent}{pattern} => {{\n{indent}    crate::codec::empty(response).await?;\n\
                             {indent}    Ok({path})\n{indent}}}\n"
                        );
                    }
                    shape => {
                        let read = read_shape(shape);
                        let value = if variant.boxed {
                            format!("Box::new({read}?)")
                        } else {
                            format!("{read}?")
                        };
                        push_arm(out, &indent, &pattern, &format!("Ok({path}({value}))"));
                    }
                }
            }
            Handling::Error(index) => self.push_error_arm(out, force, &indent, &pattern, p, *index),
            Handling::Unexpected => push_arm(
                out,
                &indent,
                &pattern,
                "Err(crate::codec::unexpected(response).await)",
            ),
        }
    }

    /// Reads a documented error: its headers, then its body, into its variant of `Error::Api`.
    fn push_error_arm(
        &self,
        out: &mut String,
        force: &mut bool,
        indent: &str,
        pattern: &str,
        p: &Plan,
        index: usize,
    ) {
        let variant = &p.errors[index];
        let path = format!(
            "crate::errors::{}::{}",
            ident(&p.type_name),
            ident(&variant.name)
        );
        let fields: Vec<String> = variant
            .headers
            .iter()
            .map(|h| ident(&h.field).to_string())
            .collect();
        let (callee, value) = match &variant.shape {
            Shape::Empty => {
                let value = if fields.is_empty() {
                    path
                } else {
                    struct_literal(force, &path, &fields.join(", "))
                };
                ("api_empty", value)
            }
            shape => {
                let reader = match shape {
                    Shape::Text => "api_text",
                    Shape::Bytes => "api_bytes",
                    Shape::TypedBytes => "api_binary",
                    _ => "api_json",
                };
                let body = if variant.boxed {
                    "Box::new(body)"
                } else {
                    "body"
                };
                // A tuple variant's constructor is itself the function (clippy's
                // `redundant_closure`).
                let value = match (fields.is_empty(), variant.boxed) {
                    (true, false) => path,
                    (true, true) => format!("|body| {path}({body})"),
                    (false, false) => format!(
                        "|body| {}",
                        struct_literal(force, &path, &format!("body, {}", fields.join(", ")))
                    ),
                    (false, true) => format!(
                        "|body| {}",
                        struct_literal(
                            force,
                            &path,
                            &format!("body: {body}, {}", fields.join(", "))
                        )
                    ),
                };
                (reader, value)
            }
        };
        let callee = format!("crate::codec::{callee}");
        let args = ["response", value.as_str()];
        if variant.headers.is_empty() {
            let flat = format!("Err({callee}({}).await)", args.join(", "));
            if fits(&format!("{indent}{pattern} => {flat}")) {
                let _ = writeln!(out, "{indent}{pattern} => {flat},");
                return;
            }
        }
        let _ = writeln!(out, "{indent}{pattern} => {{");
        let inner = format!("{indent}    ");
        for (h, field) in variant.headers.iter().zip(&fields) {
            let _ = writeln!(
                out,
                "{inner}let {field} = crate::codec::header(&response, {});",
                lit(&h.wire)
            );
        }
        push_err_await(out, &inner, &callee, &args);
        let _ = writeln!(out, "{indent}}}");
    }

    /// Code run with each value of a parameter: once when required, when set when optional, when
    /// not null when nullable.
    fn push_for_value(
        &self,
        out: &mut String,
        param: &Parameter,
        body: impl Fn(Val, &TypeRef) -> String,
    ) {
        let field = ident(&param.name);
        let inner = strip_nullable(&param.ty);
        let push = |out: &mut String, indent: &str, stmt: String| {
            let expr = stmt.strip_suffix(';').unwrap_or(&stmt);
            push_broken(out, indent, "", expr, ";", true);
        };
        if param.required && !matches!(param.ty, TypeRef::Nullable(_)) {
            push(out, BODY, body(Val::place(format!("self.{field}")), inner));
        } else {
            let _ = writeln!(out, "{BODY}if let Some(value) = &self.{field} {{");
            push(
                out,
                &format!("{BODY}    "),
                body(Val::named("value"), inner),
            );
            let _ = writeln!(out, "{BODY}}}");
        }
    }

    /// The request path: a literal, or `format!` with each parameter bound to a local before it
    /// (`let id = ...;`), so the template names its arguments (`"/things/{id}"`) and the macro
    /// holds only a literal, which prettyplease lays out like any other expression.
    fn path_expr(&self, p: &Plan) -> (Vec<(String, String)>, String) {
        let op = p.op;
        let mut template = String::new();
        let mut lets: Vec<(String, String)> = Vec::new();
        for segment in &op.segments {
            template.push('/');
            match segment {
                PathSegment::Literal(text) => {
                    template.push_str(&escape_format(&encode_literal(text)))
                }
                PathSegment::Param(wire) => {
                    template.push_str(&self.path_param(op, wire, None, &mut lets));
                }
                PathSegment::Mixed(parts) => {
                    for (k, part) in parts.iter().enumerate() {
                        match part {
                            SegmentPart::Literal(text) => {
                                template.push_str(&escape_format(&encode_literal(text)))
                            }
                            SegmentPart::Param(wire) => {
                                // The text between two parameters is found by its first occurrence
                                // after the first one's value: that value escapes the text's first
                                // character (when not escaped anyway).
                                let before = match (parts.get(k + 1), parts.get(k + 2)) {
                                    (Some(SegmentPart::Literal(text)), Some(_)) => text
                                        .bytes()
                                        .next()
                                        .filter(|b| b"-._~".contains(b))
                                        .map(char::from),
                                    _ => None,
                                };
                                template.push_str(&self.path_param(op, wire, before, &mut lets));
                            }
                        }
                    }
                }
            }
        }
        // A hook's sender has no path: it sends to the URL it was given, as it is.
        if (op.path_only().ends_with('/') && !op.segments.is_empty())
            || (template.is_empty() && !op.path.is_empty())
        {
            template.push('/');
        }
        // The query the path carries (`?beta=true`); other query parameters are appended to it.
        for (i, (name, value)) in op.query.iter().enumerate() {
            template.push(if i == 0 { '?' } else { '&' });
            template.push_str(&escape_format(&encode_literal(name)));
            if !value.is_empty() {
                template.push('=');
                template.push_str(&escape_format(&encode_literal(value)));
            }
        }
        if lets.is_empty() {
            (lets, lit(&template))
        } else {
            (lets, format!("&format!({})", lit(&template)))
        }
    }

    /// A path parameter's place in the `format!` template (`{id}`), binding its encoded value to a
    /// local; `escape` is a character the value must percent-encode too (it separates the value
    /// from the next one in a mixed segment).
    fn path_param(
        &self,
        op: &crate::ir::Operation,
        wire: &str,
        escape: Option<char>,
        lets: &mut Vec<(String, String)>,
    ) -> String {
        let param = op
            .parameters
            .iter()
            .find(|q| q.location == ParamLocation::Path && q.wire_name == wire);
        let Some(param) = param else {
            return String::new();
        };
        // A keyword (`r#type`) cannot be named in a format string; `type_` can.
        let local = if crate::naming::is_keyword(&param.name) {
            format!("{}_", param.name)
        } else {
            param.name.clone()
        };
        let field = format!("self.{}", ident(&param.name));
        if escape.is_none()
            && (param.style != ParamStyle::Simple
                || param.json
                || !matches!(self.value_kind(&param.ty), ValueKind::Primitive))
        {
            let value = self.style_value(param, &param.ty, Val::place(field));
            let value = format!(
                "crate::codec::write_path(crate::codec::Style::{}, {}, {}, &{value})",
                param.style.variant(),
                param.explode,
                lit(wire)
            );
            lets.push((local.clone(), value));
            return format!("{{{local}}}");
        }
        let text = if self.is_string(&param.ty) {
            format!("&{field}")
        } else {
            format!("&{}", self.text(&param.ty, Val::place(field.clone())))
        };
        let value = match escape {
            Some(c) => format!(
                "crate::codec::path_segment_escaping({text}, {})",
                lit(&c.to_string())
            ),
            // Digits, uuids, booleans: nothing to encode.
            None if self.url_safe(&param.ty) => format!("&{field}"),
            None => format!("crate::codec::path_segment({text})"),
        };
        lets.push((local.clone(), value));
        format!("{{{local}}}")
    }
}

/// `let request = self.client.inner.request(args);` on one line, or the chain one call per line
/// when too wide, then the arguments one per line when its last line still is.
fn push_request_chain(out: &mut String, args: &[String]) {
    let args_text = args.join(", ");
    let flat = format!("{BODY}let request = self.client.inner.request({args_text});");
    if push_if_fits(out, &flat) {
        return;
    }
    let _ = write!(
        out,
        "{BODY}let request = self\n{BODY}    .client\n{BODY}    .inner\n"
    );
    let last = format!("{BODY}    .request({args_text});");
    if push_if_fits(out, &last) {
        return;
    }
    let _ = writeln!(out, "{BODY}    .request(");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    push_args(out, &format!("{BODY}        "), &args);
    let _ = writeln!(out, "{BODY}    );");
}

/// `let request = match {scrutinee} { Some({name}) => {value}, None => request };`
fn push_option_match(out: &mut String, scrutinee: &str, name: &str, value: &str) {
    let _ = writeln!(out, "{BODY}let request = match {scrutinee} {{");
    let indent = format!("{BODY}    ");
    let pattern = format!("Some({name})");
    if fits(&format!("{indent}{pattern} => {value}")) {
        push_arm(out, &indent, &pattern, value);
    } else {
        let _ = writeln!(out, "{indent}{pattern} => {{");
        push_broken(out, &format!("{indent}    "), "", value, "", true);
        let _ = writeln!(out, "{indent}}}");
    }
    let _ = writeln!(out, "{indent}None => request,\n{BODY}}};");
}

/// `Err({callee}({args}).await)` as a statement at `indent`, broken as prettyplease breaks it:
/// first inside `Err(`, then before `.await`, then between the arguments.
fn push_err_await(out: &mut String, indent: &str, callee: &str, args: &[&str]) {
    let call = format!("{callee}({})", args.join(", "));
    let flat = format!("{indent}Err({call}.await)");
    if push_if_fits(out, &flat) {
        return;
    }
    let _ = writeln!(out, "{indent}Err(");
    // The comma after the argument of a broken call does not count toward the width.
    let inner = format!("{indent}    {call}.await");
    if inner.len() <= MARGIN {
        let _ = writeln!(out, "{inner},");
    } else {
        let head = format!("{indent}    {call}");
        if head.len() <= MARGIN {
            out.push_str(&head);
        } else {
            let _ = writeln!(out, "{indent}    {callee}(");
            push_args(out, &format!("{indent}            "), args);
            let _ = write!(out, "{indent}        )");
        }
        let _ = writeln!(out, "\n{indent}        .await,");
    }
    let _ = writeln!(out, "{indent})");
}

/// `{path} { {fields} }`, noting when prettyplease would break it whatever the room.
fn struct_literal(force: &mut bool, path: &str, fields: &str) -> String {
    let flat = format!("{path} {{ {fields} }}");
    *force |= struct_literal_breaks(&flat);
    flat
}

fn read_shape(shape: &Shape) -> &'static str {
    match shape {
        Shape::Empty => "crate::codec::empty(response).await",
        Shape::Json(_) => "crate::codec::json(response).await",
        Shape::Text => "crate::codec::text(response).await",
        Shape::Bytes => "crate::codec::bytes(response).await",
        Shape::TypedBytes => "crate::codec::binary(response).await",
    }
}

/// The statuses of one arm as a pattern, or `None` when earlier arms claim them all. A range leaves
/// out the codes earlier arms match (clippy's `match_overlapping_arm`), and an arm covering one
/// contiguous span is written as one range (clippy's `manual_range_patterns`: `4XX` and `5XX`
/// together are `400..=599`).
fn arm_pattern(statuses: &[Status], claimed: &[u16]) -> Option<String> {
    if statuses == [Status::Default] {
        return Some("_".to_owned());
    }
    let mut spans: Vec<(u16, u16)> = Vec::new();
    for status in statuses {
        match *status {
            Status::Code(code) => spans.push((code, code)),
            Status::Range(first) => {
                let (mut low, high) = (first * 100, first * 100 + 99);
                let mut cuts: Vec<u16> = claimed
                    .iter()
                    .copied()
                    .filter(|c| (low..=high).contains(c))
                    .collect();
                cuts.sort_unstable();
                for cut in cuts {
                    if cut > low {
                        spans.push((low, cut - 1));
                    }
                    low = cut + 1;
                }
                if low <= high {
                    spans.push((low, high));
                }
            }
            Status::Default => {}
        }
    }
    if spans.is_empty() {
        return None;
    }
    spans.sort_unstable();
    let has_range = spans.iter().any(|(low, high)| low != high);
    let contiguous = spans.windows(2).all(|w| w[1].0 <= w[0].1.saturating_add(1));
    if spans.len() > 1 && contiguous && (spans.len() >= 3 || has_range) {
        spans = vec![(
            spans[0].0,
            spans.iter().map(|s| s.1).max().unwrap_or(spans[0].1),
        )];
    }
    let patterns: Vec<String> = spans
        .iter()
        .map(|&(low, high)| {
            if low == high {
                low.to_string()
            } else {
                format!("{low}..={high}")
            }
        })
        .collect();
    Some(patterns.join(" | "))
}
