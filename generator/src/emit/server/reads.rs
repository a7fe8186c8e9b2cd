//! The type and read of each request field, from its plan ([`FieldPlan`]): an expression with `?`
//! for failures, using `path`, `query`, `headers`, `cookies`, `credentials`, `parts` and
//! `raw_body`.

use super::plan::{
    BodyKind, BodyRead, DefaultValue, FieldPlan, Finish, Get, ParamRead, Part, PartKind, PathAt,
    Plan, Read, Scalar, Styled, StyledAt,
};
use crate::emit::checks::{self, Site};
use crate::emit::ident;
use crate::emit::rust::primitive;
use crate::ir::ParamLocation;
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

pub fn field_type(plan: &Plan, read: &Read) -> TokenStream {
    let (value, optional) = match read {
        Read::Param(r) => (param_type(plan, &r.get), matches!(r.finish, Finish::AsIs)),
        Read::Basic { required } => (quote! { BasicCredentials }, !required),
        Read::Body(r) => (body_type(plan, &r.kind), !r.required),
    };
    if optional {
        quote! { Option<#value> }
    } else {
        value
    }
}

fn param_type(plan: &Plan, get: &Get) -> TokenStream {
    match get {
        Get::Text { json: None, .. } => quote! { String },
        Get::Text { json: Some(ty), .. }
        | Get::Styled {
            value: Styled::Object { ty, .. },
            ..
        } => plan.printer().rust_type(ty),
        Get::Plain { scalar, list, .. }
        | Get::Styled {
            value: Styled::Scalar { scalar, list },
            ..
        } => {
            let ty = scalar_type(plan, scalar);
            if *list {
                quote! { Vec<#ty> }
            } else {
                ty
            }
        }
    }
}

fn body_type(plan: &Plan, kind: &BodyKind) -> TokenStream {
    match kind {
        BodyKind::Json(ty)
        | BodyKind::Form(ty)
        | BodyKind::DeepForm { ty, .. }
        | BodyKind::Multipart { ty, .. } => plan.printer().rust_type(ty),
        BodyKind::Text => quote! { String },
        BodyKind::Raw => quote! { RawBody },
    }
}

pub fn read(plan: &Plan, field: &FieldPlan) -> TokenStream {
    match &field.read {
        Read::Param(read) => param(plan, read),
        Read::Basic { .. } => quote! { credentials },
        Read::Body(read) => body(plan, read),
    }
}

fn scalar_type(plan: &Plan, scalar: &Scalar) -> TokenStream {
    match scalar {
        Scalar::Value(p) | Scalar::Numeric { number: p, .. } => primitive(*p),
        Scalar::FromStr(ty) | Scalar::UnionText(ty) => plan.printer().rust_type(ty),
    }
}

/// An expression of type `impl Fn(&str) -> Result<T, String>`.
fn parse(plan: &Plan, scalar: &Scalar) -> TokenStream {
    let t = scalar_type(plan, scalar);
    match scalar {
        Scalar::Value(_) => quote! { params::value::<#t> },
        Scalar::FromStr(_) => quote! { params::from_str::<#t> },
        Scalar::Numeric { pattern, .. } => {
            let pattern = plan.patterns.numeric_static(pattern);
            quote! { params::numeric::<#t>(&models::patterns::#pattern) }
        }
        Scalar::UnionText(_) => quote! { params::union_text::<#t> },
    }
}

/// `params::In::{location}`, and the reader of that location.
fn location(location: ParamLocation) -> (TokenStream, TokenStream) {
    match location {
        ParamLocation::Path => (quote! { params::In::Path }, quote! { path }),
        ParamLocation::Query => (quote! { params::In::Query }, quote! { query }),
        ParamLocation::Header => (quote! { params::In::Header }, quote! { headers }),
        ParamLocation::Cookie => (quote! { params::In::Cookie }, quote! { cookies }),
    }
}

fn param(plan: &Plan, r: &ParamRead) -> TokenStream {
    // The plain readers finish the value themselves: it is checked as the field holds it.
    let plain = matches!(r.get, Get::Plain { .. });
    let read = checked(get(plan, r), r, !plain || matches!(r.finish, Finish::AsIs));
    let (location, wire) = (location(r.location).0, &r.wire);
    match &r.finish {
        _ if plain => read,
        Finish::AsIs => read,
        Finish::Required => quote! { params::required(#location, #wire, #read)? },
        Finish::Default(default) => with_default(plan, read, default),
    }
}

fn get(plan: &Plan, r: &ParamRead) -> TokenStream {
    let ((location, reader), wire) = (location(r.location), r.wire.as_str());
    match &r.get {
        Get::Text { at, json } => {
            let parse = match json {
                Some(ty) => {
                    let t = plan.printer().rust_type(ty);
                    quote! { params::json::<#t> }
                }
                None => quote! { params::value::<String> },
            };
            match at {
                Some(at) => {
                    let read = path_read(at, false, wire, &parse);
                    quote! { Some(#read) }
                }
                None => quote! { #reader.optional(#wire, #parse)? },
            }
        }
        Get::Plain {
            at,
            scalar,
            list,
            explode,
        } => {
            let parse = parse(plan, scalar);
            if let Some(at) = at {
                return path_read(at, *list, wire, &parse);
            }
            let explode = explode.map(|explode| quote! { #explode, });
            let need = match r.finish {
                Finish::Required => "required",
                _ => "optional",
            };
            let method = format_ident!("{need}{}", if *list { "_list" } else { "" });
            let read = quote! { #reader.#method(#wire, #explode #parse)? };
            match &r.finish {
                Finish::Default(default) => with_default(plan, read, default),
                _ => read,
            }
        }
        Get::Styled {
            value,
            at,
            style,
            explode,
        } => {
            let style = format_ident!("{}", style.variant());
            let (shape, convert, parse) = match value {
                Styled::Object { ty, deep, .. } => {
                    let t = plan.printer().rust_type(ty);
                    let convert = if *deep {
                        quote! { deep_form::object::<#t> }
                    } else {
                        quote! { params::object::<#t> }
                    };
                    (quote! { Object }, convert, None)
                }
                Styled::Scalar { scalar, list } => {
                    let (shape, convert) = if *list {
                        (quote! { Array }, quote! { params::list })
                    } else {
                        (quote! { Primitive }, quote! { params::primitive })
                    };
                    (shape, convert, Some(parse(plan, scalar)))
                }
            };
            let shape = quote! { models::style::Shape::#shape };
            let fields = match value {
                Styled::Object {
                    fields: Some(names),
                    ..
                } => quote! { Some(&[#(#names),*]) },
                _ => quote! { None },
            };
            let raw = match at {
                StyledAt::Path(segment) => {
                    let segment = Literal::usize_unsuffixed(*segment);
                    quote! { Some(path.styled(#segment, #wire, models::style::Style::#style, #explode, #shape)?) }
                }
                StyledAt::Query(others) => quote! {
                    query.styled(#wire, models::style::Style::#style, #explode, #shape, #fields, &[#(#others),*])?
                },
                StyledAt::Header => quote! { headers.styled(#wire, #explode, #shape)? },
                StyledAt::Cookie(others) => quote! {
                    cookies.styled(#wire, #explode, #shape, #fields, &[#(#others),*])?
                },
            };
            let parse = parse.map(|parse| quote! { , #parse });
            quote! { #convert(#location, #wire, #raw #parse)? }
        }
    }
}

fn path_read(at: &PathAt, list: bool, wire: &str, parse: &TokenStream) -> TokenStream {
    let list = if list { "_list" } else { "" };
    match at {
        PathAt::Capture(index) => {
            let method = format_ident!("required{list}");
            let index = Literal::usize_unsuffixed(*index);
            quote! { path.#method(#index, #wire, #parse)? }
        }
        PathAt::Piece {
            segment,
            literals,
            piece,
        } => {
            let method = format_ident!("required_piece{list}");
            let segment = Literal::usize_unsuffixed(*segment);
            let piece = Literal::usize_unsuffixed(*piece);
            quote! { path.#method(#segment, &[#(#literals),*], #piece, #wire, #parse)? }
        }
    }
}

fn with_default(plan: &Plan, optional: TokenStream, default: &DefaultValue) -> TokenStream {
    let value = default.render(&plan.printer(), true);
    match default {
        DefaultValue::Empty => quote! { #optional.unwrap_or_default() },
        DefaultValue::Text(_) => quote! { #optional.unwrap_or_else(|| #value) },
        _ => quote! { #optional.unwrap_or(#value) },
    }
}

/// `read`, then the parameter's checks run on the value it read (`optional`: an `Option`, checked when `Some`).
fn checked(read: TokenStream, r: &ParamRead, optional: bool) -> TokenStream {
    let Some(checks) = &r.checks else { return read };
    let (location, wire) = (location(r.location).0, &r.wire);
    let checks = checks::render(checks, &quote! { value }, Site::Params, 0);
    if optional {
        quote! {{
            let value = #read;
            if let Some(value) = &value {
                params::check(#location, #wire, |path, errors| { #checks })?;
            }
            value
        }}
    } else {
        quote! {{
            let value = #read;
            params::check(#location, #wire, |path, errors| { let value = &value; #checks })?;
            value
        }}
    }
}

fn body(plan: &Plan, r: &BodyRead) -> TokenStream {
    let (reader, ty, decode) = match &r.kind {
        BodyKind::Json(ty) => ("json", Some(ty), None),
        BodyKind::Form(ty) => ("form", Some(ty), None),
        BodyKind::DeepForm { ty, lists } => {
            let decode = if lists.is_empty() {
                quote! { , deep_form::decode }
            } else {
                quote! { , |bytes: &[u8]| deep_form::decode_lists(bytes, &[#(#lists),*]) }
            };
            ("form_with", Some(ty), Some(decode))
        }
        BodyKind::Text => ("text", None, None),
        BodyKind::Raw => ("raw", None, None),
        BodyKind::Multipart { ty, parts } => return multipart(plan, r.required, ty, parts),
    };
    let reader = format_ident!("{reader}{}", if r.required { "" } else { "_optional" });
    let ty = ty.map(|ty| {
        let ty = plan.printer().rust_type(ty);
        quote! { ::<#ty> }
    });
    quote! { body::#reader #ty (Request::from_parts(parts, raw_body) #decode).await? }
}

fn multipart(plan: &Plan, required: bool, ty: &crate::ir::TypeRef, parts: &[Part]) -> TokenStream {
    let ty = plan.printer().rust_type(ty);
    let mut kinds = Vec::new();
    let mut files = Vec::new();
    for part in parts {
        let (wire, field) = (&part.wire, ident(&part.field));
        let kind = match part.kind {
            PartKind::File => "File",
            PartKind::Text => "Text",
            PartKind::Value => "Value",
            PartKind::Json => "Json",
        };
        let list = if part.list && part.kind != PartKind::Json {
            "List"
        } else {
            ""
        };
        let kind = format_ident!("{kind}{list}");
        kinds.push(quote! { (#wire, multipart::PartKind::#kind) });
        // Files are put in after the other parts are decoded.
        if part.kind == PartKind::File {
            files.push(match (part.list, part.optional) {
                (true, true) => {
                    quote! { if value.#field.is_some() { value.#field = Some(form.files(#wire)); } }
                }
                (true, false) => quote! { value.#field = form.files(#wire); },
                (false, true) => quote! { value.#field = form.file(#wire); },
                (false, false) => quote! { value.#field = form.file(#wire).unwrap_or_default(); },
            });
        }
    }
    let binding = if files.is_empty() {
        quote! { value }
    } else {
        quote! { mut value }
    };
    let decode = quote! {{
        let #binding: #ty = form.decode(&[#(#kinds),*])?;
        #(#files)*
        body::validated(value)?
    }};
    if required {
        quote! {{
            let form = multipart::read(Request::from_parts(parts, raw_body)).await?;
            #decode
        }}
    } else {
        quote! {
            match multipart::read_optional(Request::from_parts(parts, raw_body)).await? {
                Some(form) => Some(#decode),
                None => None,
            }
        }
    }
}
