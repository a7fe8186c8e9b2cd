//! `format` as an annotation (JSON Schema 2020-12): what the generated types hold by default, so
//! that a client keeps whatever a server answers that the schema's *types* admit, while
//! `Validate`, and so the generated server, still checks the format. Options opt out.
//!
//! - `format: uri` is a `String` checked to be a URI (`--uri-as-url` makes it a `url::Url`).
//! - An integer format narrower than 64 bits (`int8` to `int32`, `uint8` to `uint32`) is an
//!   `i64`, and the format's range becomes a bound (`--narrow-integers` keeps the format's own
//!   type). `type: integer` admits any integer, and real APIs outgrow their documented widths;
//!   ASP.NET's `type: [integer, string]` admits any numeral in the string.
//!
//! Integers beyond 64 bits stay out of reach: RFC 8259 (section 6) lets an implementation limit
//! the range of numbers, and names IEEE 754 doubles as what interoperable JSON can expect.

use crate::emit::Options;
use crate::ir::{Api, Constraints, Primitive, TypeKind, TypeRef};

/// Applies the options' choice of types to the document's IR (idempotent).
pub fn apply(api: &mut Api, opts: &Options) {
    if !opts.uri_as_url {
        for ty in api.type_refs_mut() {
            ty.replace_primitive(Primitive::Url, Primitive::String);
        }
    }
    if !opts.narrow_integers {
        widen_integers(api);
    }
}

/// Every narrow integer that sits beside the constraints `Validate` checks (fields, union
/// variants, aliases, parameters) becomes an `i64` bounded by its format. So do those of inline
/// response bodies and headers, which nothing validates: only the receiver decodes them. An inline
/// request body's schema, the map values of a struct with properties and an integer enum's values
/// keep the format's type, since nothing would check a bound there and the server must stay strict.
fn widen_integers(api: &mut Api) {
    for def in &mut api.types {
        match &mut def.kind {
            TypeKind::Struct(s) => {
                for f in &mut s.fields {
                    widen(&mut f.ty, &mut f.constraints);
                }
            }
            TypeKind::Union(u) => {
                for v in &mut u.variants {
                    widen(&mut v.ty, &mut v.constraints);
                }
            }
            TypeKind::Alias(ty) => widen(ty, &mut def.constraints),
            TypeKind::Newtype(_) | TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {}
        }
    }
    let operations = api
        .operations
        .iter_mut()
        .chain(api.hooks.iter_mut().map(|h| &mut h.operation));
    for op in operations {
        for p in &mut op.parameters {
            widen(&mut p.ty, &mut p.constraints);
        }
        for r in &mut op.responses {
            let tys = r.body.iter_mut().map(|b| &mut b.ty);
            for ty in tys.chain(r.headers.iter_mut().map(|h| &mut h.ty)) {
                widen(ty, &mut Constraints::default());
            }
        }
    }
}

fn widen(ty: &mut TypeRef, c: &mut Constraints) {
    match ty {
        TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => {
            if let Some((min, max)) = narrow_range(*p) {
                *p = Primitive::I64;
                c.bound(min, max);
            }
        }
        TypeRef::Nullable(inner) => widen(inner, c),
        TypeRef::Array(inner) | TypeRef::Map(inner) if holds_narrow(inner) => {
            widen(inner, c.items.get_or_insert_with(Default::default));
        }
        _ => {}
    }
}

fn holds_narrow(ty: &TypeRef) -> bool {
    match ty {
        TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => {
            narrow_range(*p).is_some()
        }
        TypeRef::Nullable(inner) | TypeRef::Array(inner) | TypeRef::Map(inner) => {
            holds_narrow(inner)
        }
        _ => false,
    }
}

/// The values of an integer format narrower than 64 bits.
fn narrow_range(p: Primitive) -> Option<(i64, i64)> {
    Some(match p {
        Primitive::I8 => (i8::MIN.into(), i8::MAX.into()),
        Primitive::I16 => (i16::MIN.into(), i16::MAX.into()),
        Primitive::I32 => (i32::MIN.into(), i32::MAX.into()),
        Primitive::U8 => (0, u8::MAX.into()),
        Primitive::U16 => (0, u16::MAX.into()),
        Primitive::U32 => (0, u32::MAX.into()),
        _ => return None,
    })
}

impl Constraints {
    /// Narrows `minimum`/`maximum` to `[min, max]` where they are wider or absent.
    fn bound(&mut self, min: i64, max: i64) {
        let (min, max) = (min as f64, max as f64);
        if self.minimum.is_none_or(|m| m < min) {
            self.minimum = Some(min);
            self.exclusive_minimum = false;
        }
        if self.maximum.is_none_or(|m| m > max) {
            self.maximum = Some(max);
            self.exclusive_maximum = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::TypeRef::{Array, Nullable, Primitive as P};

    fn widened(mut ty: TypeRef, mut c: Constraints) -> (TypeRef, Constraints) {
        widen(&mut ty, &mut c);
        (ty, c)
    }

    #[test]
    fn a_narrow_integer_becomes_i64_bounded_by_its_format() {
        let (ty, c) = widened(P(Primitive::I32), Constraints::default());
        assert_eq!(ty, P(Primitive::I64));
        assert_eq!(
            (c.minimum, c.maximum),
            (Some(-2147483648.0), Some(2147483647.0))
        );
        let (_, c) = widened(P(Primitive::U32), Constraints::default());
        assert_eq!((c.minimum, c.maximum), (Some(0.0), Some(4294967295.0)));
    }

    #[test]
    fn tighter_bounds_of_the_document_stay() {
        let c = Constraints {
            minimum: Some(0.0),
            exclusive_minimum: true,
            maximum: Some(1e12),
            exclusive_maximum: true,
            ..Constraints::default()
        };
        let (_, c) = widened(P(Primitive::I32), c);
        assert_eq!((c.minimum, c.exclusive_minimum), (Some(0.0), true));
        assert_eq!(
            (c.maximum, c.exclusive_maximum),
            (Some(2147483647.0), false)
        );
    }

    #[test]
    fn items_carry_their_bound_and_wide_types_are_left_alone() {
        let (ty, c) = widened(
            Nullable(Box::new(Array(Box::new(P(Primitive::U8))))),
            Constraints::default(),
        );
        assert_eq!(ty, Nullable(Box::new(Array(Box::new(P(Primitive::I64))))));
        assert_eq!(c.minimum, None);
        assert_eq!(c.items.map(|i| i.maximum), Some(Some(255.0)));
        for p in [
            Primitive::I64,
            Primitive::U64,
            Primitive::F32,
            Primitive::String,
        ] {
            let (ty, c) = widened(Array(Box::new(P(p))), Constraints::default());
            assert_eq!(ty, Array(Box::new(P(p))));
            assert!(c.is_empty(), "{p:?}");
        }
    }

    #[test]
    fn a_numeric_string_widens_its_number() {
        let ty = TypeRef::NumericString {
            number: Primitive::I32,
            pattern: "^-?[0-9]+$".into(),
        };
        let (ty, c) = widened(ty, Constraints::default());
        assert!(matches!(
            ty,
            TypeRef::NumericString {
                number: Primitive::I64,
                ..
            }
        ));
        assert_eq!(c.maximum, Some(2147483647.0));
    }
}
