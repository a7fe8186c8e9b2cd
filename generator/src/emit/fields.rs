//! How the models' struct fields and union variants hold their values: `T`, `Option<T>` or a
//! default, and `Box<T>` where the IR boxes a value. The models crate declares the fields this
//! way; the client's builders and the server's multipart readers build and read the same structs
//! field by field, so the rule lives here, once.

use super::defaults::DefaultValue;
use crate::ir::{Field, TypeDef, TypeRef};
use proc_macro2::TokenStream;
use quote::quote;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Required and not nullable: `T`.
    Plain,
    /// Optional with a spec default: `T`, filled in when absent.
    Defaulted,
    /// Optional: `Option<T>`, omitted when `None`.
    Optional,
    /// Required but nullable: `Option<T>`, must be present.
    RequiredNullable,
}

pub struct FieldShape<'a> {
    pub kind: Shape,
    /// The schema admits `null`.
    pub nullable: bool,
    /// The type inside the `Option`, if the shape adds one.
    pub inner: &'a TypeRef,
}

impl FieldShape<'_> {
    /// Whether a present value is read as an `Option` (`null` is `None`); an optional,
    /// non-nullable property is read as its type: `null` is refused.
    pub fn reads_option(&self) -> bool {
        self.kind == Shape::RequiredNullable || (self.kind == Shape::Optional && self.nullable)
    }
}

/// How a struct field is held: `(is an Option, the type inside it)` (other emitters build and read
/// the models' structs field by field).
pub fn field_holding<'a>(f: &'a Field, types: &[TypeDef]) -> (bool, &'a TypeRef) {
    let shape = field_shape(f, types);
    (
        matches!(shape.kind, Shape::Optional | Shape::RequiredNullable),
        shape.inner,
    )
}

/// The shape of a struct field: a spec default the field's type can hold makes an optional field
/// `Defaulted`.
pub fn field_shape<'a>(f: &'a Field, types: &[TypeDef]) -> FieldShape<'a> {
    let (nullable, inner) = match &f.ty {
        TypeRef::Nullable(inner) => (true, inner.as_ref()),
        other => (false, other),
    };
    let kind = match (f.required, nullable) {
        (true, false) => Shape::Plain,
        (true, true) => Shape::RequiredNullable,
        (false, false)
            if f.default
                .as_ref()
                .is_some_and(|d| DefaultValue::of(inner, d, types).is_some()) =>
        {
            Shape::Defaulted
        }
        (false, _) => Shape::Optional,
    };
    FieldShape {
        kind,
        nullable,
        inner,
    }
}

/// `Box<ty>` where the IR boxes a value (a recursive type, or a union's large variant).
pub fn boxed(ty: TokenStream, boxed: bool) -> TokenStream {
    if boxed {
        quote! { Box<#ty> }
    } else {
        ty
    }
}
