//! The typed layer (`#[derive(StrategicMerge)]` and the built-in impls)
//! against the JSON engine on the serialised values, in one test binary.
//!
//! - [`maps`]: maps of scalars with string keys;
//! - [`sets_and_scalars`]: sets, maps with integer keys, shared pointers
//!   and the scalar types of other crates (with their features);
//! - [`numbers`]: whole floats read into integer fields, as Go prints them;
//! - [`readers`]: derived structs read and written as serde does.

mod maps;
mod numbers;
mod readers;
mod sets_and_scalars;
