//! `format` as an annotation (JSON Schema 2020-12): what the generated types hold by default, so
//! that a client keeps whatever a server answers that the schema's *types* admit, while
//! `Validate`, and so the generated server, still checks the format. Options opt out.
//!
//! - `format: uri` is a `String` checked to be a URI (`--uri-as-url` makes it a `url::Url`).
//! - `format: uuid`, `date-time` and `date` of what a client decodes are `String`s checked to be
//!   one (`--typed-formats` makes them `uuid::Uuid`, `chrono::DateTime<Utc>`, `chrono::NaiveDate`).
//!   Real servers send ids that are not UUIDs and timestamps without an offset.
//! - An integer format narrower than 64 bits (`int8` to `int32`, `uint8` to `uint32`) of what a
//!   client decodes is an `i64`, and the format's range becomes a bound (`--narrow-integers` keeps
//!   the format's own type). `type: integer` admits any integer, real APIs outgrow their documented
//!   widths, and ASP.NET's `type: [integer, string]` admits any numeral in the string.
//!
//! What a client decodes: fields, union branches and aliases (the component types, which the
//! server's `Validate` checks too), and inline response bodies and headers (which only their
//! receiver reads). Parameters and inline request body schemas keep the format's type: only the
//! server reads them, and it stays strict. A union's branches keep their string formats, which
//! tell the branches apart. Integers beyond 64 bits stay out of reach: RFC 8259
//! (section 6) lets an implementation limit the range of numbers, and names IEEE 754 doubles as
//! what interoperable JSON can expect.

use crate::emit::Options;
use crate::ir::{Api, Constraints, Primitive, StringFormat, TypeKind, TypeRef};

/// Applies the options' choice of types to the document's IR (idempotent).
pub fn apply(api: &mut Api, opts: &Options) {
    if !opts.uri_as_url {
        for ty in api.type_refs_mut() {
            ty.replace_primitive(Primitive::Url, Primitive::String);
        }
    }
    let loosen = |ty: &mut TypeRef, c: &mut Constraints, branch: bool| {
        if !opts.narrow_integers {
            retype(ty, c, widen);
        }
        // The format is what tells an untagged union's string branches apart (`uuid` before a
        // plain string); a value that fails it still decodes as a later branch that admits it.
        if !opts.typed_formats && !branch {
            retype(ty, c, as_text);
        }
    };
    decoded_by_clients(api, loosen);
}

/// Calls `f` on every type a client decodes, with the constraints `Validate` checks beside it
/// (a scratch set for response bodies and headers, which nothing validates) and whether it is a
/// union's branch.
fn decoded_by_clients(api: &mut Api, f: impl Fn(&mut TypeRef, &mut Constraints, bool)) {
    for def in &mut api.types {
        match &mut def.kind {
            TypeKind::Struct(s) => {
                for field in &mut s.fields {
                    f(&mut field.ty, &mut field.constraints, false);
                }
            }
            TypeKind::Union(u) => {
                for v in &mut u.variants {
                    f(&mut v.ty, &mut v.constraints, true);
                }
            }
            TypeKind::Alias(ty) => f(ty, &mut def.constraints, false),
            TypeKind::Newtype(_) | TypeKind::IntEnum(_) | TypeKind::StringEnum(_) => {}
        }
    }
    let operations = api
        .operations
        .iter_mut()
        .chain(api.hooks.iter_mut().map(|h| &mut h.operation));
    for op in operations {
        for r in &mut op.responses {
            let tys = r.body.iter_mut().map(|b| &mut b.ty);
            for ty in tys.chain(r.headers.iter_mut().map(|h| &mut h.ty)) {
                f(ty, &mut Constraints::default(), false);
            }
        }
    }
}

/// Applies `change` to the primitive `ty` is or holds, with the constraints that check it: an
/// array's or map's items get constraints of their own when the change adds to them. `change`
/// answers the primitive's new type, having added its checks, or `None` to leave it.
fn retype(
    ty: &mut TypeRef,
    c: &mut Constraints,
    change: fn(Primitive, &mut Constraints) -> Option<Primitive>,
) {
    match ty {
        TypeRef::Primitive(p) | TypeRef::NumericString { number: p, .. } => {
            if let Some(to) = change(*p, c) {
                *p = to;
            }
        }
        TypeRef::Nullable(inner) => retype(inner, c, change),
        TypeRef::Array(inner) | TypeRef::Map(inner) => {
            let had_items = c.items.is_some();
            retype(inner, c.items.get_or_insert_with(Default::default), change);
            if !had_items && c.items.as_deref().is_some_and(Constraints::is_empty) {
                c.items = None;
            }
        }
        _ => {}
    }
}

/// A narrow integer becomes an `i64` bounded by its format.
fn widen(p: Primitive, c: &mut Constraints) -> Option<Primitive> {
    let (min, max) = narrow_range(p)?;
    c.bound(min, max);
    Some(Primitive::I64)
}

/// A `uuid`, `date-time` or `date` becomes a `String` checked to be one.
fn as_text(p: Primitive, c: &mut Constraints) -> Option<Primitive> {
    c.format = Some(match p {
        Primitive::Uuid => StringFormat::Uuid,
        Primitive::DateTime => StringFormat::DateTime,
        Primitive::Date => StringFormat::Date,
        _ => return None,
    });
    Some(Primitive::String)
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
        retype(&mut ty, &mut c, widen);
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
    fn a_uuid_date_time_or_date_becomes_checked_text() {
        for (p, format) in [
            (Primitive::Uuid, StringFormat::Uuid),
            (Primitive::DateTime, StringFormat::DateTime),
            (Primitive::Date, StringFormat::Date),
        ] {
            let mut ty = Array(Box::new(Nullable(Box::new(P(p)))));
            let mut c = Constraints::default();
            retype(&mut ty, &mut c, as_text);
            assert_eq!(
                ty,
                Array(Box::new(Nullable(Box::new(P(Primitive::String)))))
            );
            assert_eq!(c.items.map(|i| i.format), Some(Some(format)));
        }
        let mut ty = P(Primitive::String);
        let mut c = Constraints::default();
        retype(&mut ty, &mut c, as_text);
        assert!(c.is_empty());
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
