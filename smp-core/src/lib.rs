//! Kubernetes strategic merge patch, exactly as the Go reference
//! (`k8s.io/apimachinery/pkg/util/strategicpatch`, the code inside
//! kube-apiserver and kubectl) computes and applies it: on your own Rust
//! types with `#[derive(StrategicMerge)]`, on `serde_json::Value`s with a
//! schema, and from JSON text to JSON text.
//!
//! For Kubernetes objects (the types of k8s-openapi, patches sent with
//! kube), depend on `smp-k8s-types`, which re-exports this crate.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use serde_json::json;
//! use smp_core::StrategicMerge;
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
//! struct BackendSpec {
//!     replicas: i32,
//!     /// Merged by name, as Kubernetes merges a Pod's containers.
//!     #[patch(strategy = "merge", merge_key = "name")]
//!     workers: Vec<Worker>,
//! }
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
//! struct Worker {
//!     name: String,
//!     image: String,
//! }
//!
//! let live = BackendSpec { replicas: 2, workers: vec![Worker { name: "api".into(), image: "api:1".into() }] };
//! let mut desired = live.clone();
//! desired.workers[0].image = "api:2".into();
//!
//! // The two-way patch names only what changed...
//! let patch = live.diff(&desired)?;
//! assert_eq!(patch, json!({
//!     "$setElementOrder/workers": [{"name": "api"}],
//!     "workers": [{"name": "api", "image": "api:2"}]
//! }));
//! // ...and applying it to an object another writer changed keeps that change.
//! let elsewhere = BackendSpec { replicas: 5, ..live.clone() };
//! assert_eq!(elsewhere.apply(&patch)?, BackendSpec { replicas: 5, ..desired });
//! # Ok::<(), smp_core::Error>(())
//! ```
//!
//! # Entry points
//!
//! - [`StrategicMerge`](trait@StrategicMerge):
//!   [`diff`](typed::StrategicMerge::diff),
//!   [`apply`](typed::StrategicMerge::apply) and
//!   [`three_way`](typed::StrategicMerge::three_way) on typed values; the
//!   [derive](derive@StrategicMerge) documents its attributes, with an
//!   example for each.
//! - [`apply`], [`diff`], [`three_way`]: the same on `serde_json::Value`s,
//!   with a [`Schema`]: [`Schema::Untyped`], a static [`StructSchema`], or
//!   a definition of an OpenAPI v2/v3 document ([`OpenApi`]);
//!   [`ThreeWayOptions`] (its default is not what `kubectl apply` does:
//!   `overwrite` is `false`).
//! - [`apply_slice`], [`diff_slice`], [`three_way_slice`]: from JSON text to
//!   JSON text, byte for byte what the `Value` entry points and serde_json
//!   give.
//! - [`merge_patch`] (RFC 7386) and [`json_patch`] (RFC 6902): the patches
//!   the API server takes for custom resources, as Go clients compute them.
//! - [`ssa`]: server-side apply, offline, as the API server runs it
//!   (field managers, `managedFields`, conflicts).
//! - Opt-in extensions, off by default: multi-field merge keys
//!   (`$patchMergeKey`; [`ApplyOptions`], [`DiffOptions`],
//!   [`ThreeWayOptions`]), strict apply, the duplicate-key [`check()`] and
//!   [`diff_checked`], and [`WithOptions`] for typed values.
//! - [`Error`]: every error says where (a path such as
//!   `spec.containers[name=nginx].env`) and why; a failed apply leaves the
//!   object as it was; [`Error::is_conflict`] tells a three-way conflict.
//!
//! Features: `derive`, `ssa`, `json-patch` and `bytes` (default), `k8s-openapi`
//! ([`StrategicMerge`] for every k8s-openapi type, in `k8s`; the final
//! binary picks the Kubernetes version), `url`, `chrono`, `jiff` (those
//! crates' scalar types).
//!
//! The guide (`docs/` in the repository) covers custom resources, the
//! derive's attributes, exactness and performance.
//!
//! # Layers
//!
//! Each module imports from its own layer and the layers below it, never
//! from a layer above (a test of the crate reads this list and checks
//! every `crate::` path outside tests):
//!
//! 1. `value`, `text`, `directive`: the Go reference's view of JSON
//!    values and numbers (`%v`, Go-encoded JSON), text escapes, and
//!    [`directive`], every directive name (`$patch`, `$setElementOrder/…`);
//! 2. `error`: [`Error`], with the path where it happened;
//! 3. `nesting`, `diff_options`, `schema`: the depth bound, the options of
//!    a diff, and [`schema`]: patch metadata ([`schema::Strategy`],
//!    [`schema::MergeKey`], parsed once) and schemas (static tables,
//!    OpenAPI documents);
//! 4. `doc`: the documents a patch works on (`serde_json::Value` and the
//!    compact document of the text entry points), their members, parsed
//!    and printed;
//! 5. `lists`: keyed merge and keyed diff (written once over an element
//!    abstraction), merge keys and their index, sets of scalars and the
//!    ordering of merged lists (`$setElementOrder`);
//! 6. `engine`: the JSON engine ([`apply`], [`diff`], [`three_way`], the
//!    conflict check, strict apply), the executable specification;
//! 7. `bytes`, `check`, `merge_patch`, `json_patch`, `typed`, `ssa`: the
//!    entry points on JSON text ([`bytes`]), the duplicate-key check, the
//!    other patch types, the [`StrategicMerge`] trait on Rust values, and
//!    server-side apply;
//! 8. `typed_options`, `k8s`: what is built on the typed layer
//!    ([`WithOptions`], the k8s-openapi types);
//! 9. `unstable`: what smp's own command line, benchmarks and tests use
//!    of the layers below, outside the stable API (hidden, not covered by
//!    semver).

#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
pub mod bytes;
mod check;
mod diff_options;
pub mod directive;
mod doc;
mod engine;
pub mod error;
#[cfg(feature = "json-patch")]
#[cfg_attr(docsrs, doc(cfg(feature = "json-patch")))]
pub mod json_patch;
#[cfg(feature = "k8s-openapi")]
pub mod k8s;
mod lists;
pub mod merge_patch;
mod nesting;
pub mod schema;
#[cfg(feature = "ssa")]
#[cfg_attr(docsrs, doc(cfg(feature = "ssa")))]
pub mod ssa;
pub mod text;
#[doc(hidden)]
pub mod unstable;
mod value;

#[cfg(feature = "bytes")]
pub use bytes::{apply_slice, diff_slice, three_way_slice};
pub use check::{Finding, Problem, check, diff_checked};
pub use engine::apply::{ApplyOptions, apply, apply_in_place, apply_owned, apply_with, decode, merge_patches};
pub use engine::conflicts::{has_conflicts, merging_maps_have_conflicts};
pub use engine::diff::{DiffOptions, diff, diff_with};
pub use engine::preconditions::{Precondition, check_preconditions};
pub use engine::three_way::{ThreeWayOptions, three_way};
pub use error::{Error, ErrorKind, JsonPatchError, OperationFailure, Path, Result, SchemaError, Segment};
pub use nesting::{MAX_DEPTH, check_nesting};
pub use schema::{FieldSchema, OpenApi, PatchMeta, Schema, Shape, StructSchema};
pub mod typed;
mod typed_options;
pub use typed_options::WithOptions;

#[cfg(feature = "derive")]
#[doc = include_str!("derive.md")]
pub use smp_derive::StrategicMerge;
/// The derive as smp-k8s-types re-exports it (the generated code reaches
/// smp-core through smp-k8s-types).
#[cfg(feature = "derive")]
#[doc(hidden)]
pub use smp_derive::StrategicMergeViaK8sTypes as __StrategicMergeViaK8sTypes;
pub use typed::StrategicMerge;

#[cfg(test)]
mod layers;
