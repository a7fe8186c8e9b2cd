//! The type-size estimate the build boxes large union variants by, and the emitters their large
//! responses and error bodies (`openapi_gen::ir::size_estimate`), against the sizes of the types
//! the formats become with `--typed-formats` (the generator does not depend on these crates; its
//! unit tests check the standard library's types).

use openapi_gen::ir::{Primitive, TypeRef, size_estimate};
use std::mem::size_of;

fn estimate(p: Primitive) -> usize {
    size_estimate(&[], &TypeRef::Primitive(p))
}

#[test]
fn a_format_is_estimated_at_the_size_of_its_rust_type() {
    assert_eq!(estimate(Primitive::Uuid), size_of::<uuid::Uuid>());
    assert_eq!(
        estimate(Primitive::DateTime),
        size_of::<chrono::DateTime<chrono::Utc>>()
    );
    assert_eq!(estimate(Primitive::Date), size_of::<chrono::NaiveDate>());
}
