//! Building blocks of the static schema tables that the tests write by hand.

use smp_core::schema::{MergeKey, Strategy};
use smp_core::{FieldSchema, Shape};

/// A field with its patch metadata (`""` for none).
pub const fn field(
    name: &'static str,
    strategy: &'static str,
    merge_key: &'static str,
    shape: fn() -> Shape,
) -> FieldSchema {
    FieldSchema::new(name, Strategy::of(strategy), MergeKey::from_text(merge_key), shape)
}

pub fn scalar() -> Shape {
    Shape::Scalar
}

/// A list of scalars.
pub fn scalars() -> Shape {
    Shape::List(scalar)
}

/// A map of scalars.
pub fn string_map() -> Shape {
    Shape::Map(scalar)
}
