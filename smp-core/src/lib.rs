//! Kubernetes strategic merge patch, exactly as the Go reference
//! (`k8s.io/apimachinery/pkg/util/strategicpatch`) computes it.
//!
//! Where each concept lives:
//!
//! - [`schema`]: patch metadata ([`schema::Strategy`], [`schema::MergeKey`],
//!   parsed once) and schemas (static tables, OpenAPI documents);
//! - `lists`: keyed merge and keyed diff (written once over an element
//!   abstraction), merge keys and their index, sets of scalars and the
//!   ordering of merged lists (`$setElementOrder`), run by the engine on
//!   JSON and by the typed layer on typed elements;
//! - `engine`: the JSON engine ([`apply`], [`diff`], [`three_way`], the
//!   conflict check), the executable specification;
//! - [`typed`]: the [`StrategicMerge`] trait on Rust values;
//! - opt-in extensions, off by default: `$patchMergeKey` and recommended
//!   merge keys ([`ApplyOptions`], [`DiffOptions`], [`ThreeWayOptions`]),
//!   strict apply, the duplicate-key [`check()`] and [`diff_checked`], and
//!   [`WithOptions`] for typed values;
//! - [`bytes`]: the same operations from JSON text to JSON text, on the
//!   [`doc::compact`] document;
//! - [`value`]: the reference's view of JSON values; [`error`]: errors with
//!   paths.

#![deny(missing_docs)]

pub mod bytes;
mod check;
pub mod doc;
mod engine;
pub mod error;
pub mod json_patch;
#[cfg(feature = "k8s-openapi")]
pub mod k8s;
mod lists;
pub mod merge_patch;
pub mod schema;
pub mod ssa;
mod strict;
pub mod text;
/// The Go reference's view of JSON values (`%v` text, Go-encoded JSON,
/// number kinds): shared with smp-k8s-types and the tests, not an API.
#[doc(hidden)]
pub mod value;
/// Go's `sort.Sort`, step by step: shared with smp-k8s-types (its YAML
/// writer orders keys as go-yaml does), not an API.
#[doc(hidden)]
pub use lists::order::go_sort_by;

pub use bytes::{apply_slice, diff_slice, three_way_slice};
pub use check::{Finding, Problem, check, diff_checked};
pub use engine::apply::{
    ApplyOptions, apply, apply_compact, apply_in_place, apply_owned, apply_with, decode, merge_patches,
};
pub use engine::conflicts::{has_conflicts, merging_maps_have_conflicts};
pub use engine::diff::{DiffOptions, diff, diff_with};
pub use engine::preconditions::{Precondition, check_preconditions};
pub use engine::three_way::{ThreeWayOptions, three_way};
pub use engine::{MAX_DEPTH, check_nesting};
pub use error::{Error, ErrorKind, Path, Result, Segment};
pub use schema::{FieldSchema, OpenApi, PatchMeta, Schema, Shape, StructSchema};
pub mod typed;
mod typed_options;
pub use typed_options::WithOptions;

#[cfg(feature = "derive")]
pub use smp_derive::StrategicMerge;
pub use typed::StrategicMerge;
