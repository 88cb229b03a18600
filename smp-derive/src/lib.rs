//! `#[derive(StrategicMerge)]`: Kubernetes strategic merge patches on your
//! own Rust types (a custom resource's spec, a configuration), exactly as
//! the Go reference computes them on their JSON form: two-way diff, apply
//! and the three-way patch of `kubectl apply`.
//!
//! Do not depend on this crate: use it through `smp-core` (its default
//! feature `derive` re-exports it at the same version) or `smp-k8s-types`.
//! The derive implements `smp_core::StrategicMerge`, and the code it
//! generates names `smp_core`.
//!
//! ```ignore
//! use serde::{Deserialize, Serialize};
//! use serde_json::json;
//! use smp_core::StrategicMerge;
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
//! #[serde(rename_all = "camelCase")]
//! struct AppSpec {
//!     #[serde(skip_serializing_if = "Option::is_none")]
//!     replicas: Option<i32>,
//!     #[patch(strategy = "merge", merge_key = "name")]
//!     containers: Vec<Container>,
//! }
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
//! struct Container {
//!     name: String,
//!     image: String,
//! }
//!
//! let live = AppSpec {
//!     replicas: Some(1),
//!     containers: vec![Container { name: "web".into(), image: "web:1".into() }],
//! };
//! let mut desired = live.clone();
//! desired.replicas = Some(2);
//! desired.containers[0].image = "web:2".into();
//!
//! let patch = live.diff(&desired).unwrap();
//! assert_eq!(
//!     patch,
//!     json!({
//!         "replicas": 2,
//!         "$setElementOrder/containers": [{"name": "web"}],
//!         "containers": [{"name": "web", "image": "web:2"}]
//!     })
//! );
//! assert_eq!(live.apply(&patch).unwrap(), desired);
//! ```
//!
//! (Marked `ignore` here: code that uses the derive needs smp-core, which
//! depends on this crate. The same example is the first of smp-core's page
//! of the derive, where it runs as a doctest.)
//!
//! The entry point is the [`StrategicMerge`](macro@StrategicMerge) derive.
//! smp-core's page of it, `smp_core::StrategicMerge`, documents every
//! attribute (`#[patch(strategy, merge_key, with, scalar, json, crate)]`)
//! with an example, serde's attributes it follows, and the misuses it
//! refuses at compile time.
//
// Inside, the attribute model (`internals`) is kept apart from code
// generation (`expand`): the model is what the code generator reads.

#![deny(missing_docs)]

extern crate proc_macro;

mod assertions;
mod engine_path;
mod expand;
mod foreign;
mod internals;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `smp_core::StrategicMerge` for a struct or enum (use it as
/// `smp_core::StrategicMerge`, which smp-core re-exports): typed two-way
/// diff, apply and three-way patches, exactly as the JSON engine computes
/// them on the serde JSON form of the value. Its attributes, with an
/// example each, are documented on smp-core's re-export.
#[proc_macro_derive(StrategicMerge, attributes(patch))]
pub fn derive_strategic_merge(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, engine_path::Engine::Core).into()
}

/// The same derive, as smp-k8s-types re-exports it: the generated code
/// names the engine through `smp_k8s_types`. Not for direct use.
#[doc(hidden)]
#[proc_macro_derive(StrategicMergeViaK8sTypes, attributes(patch))]
pub fn derive_strategic_merge_via_k8s_types(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, engine_path::Engine::ViaK8sTypes).into()
}

/// Implementations for foreign types, from a field-by-field description
/// written by a generator (see `foreign.rs` for the syntax). Not for direct
/// use.
#[doc(hidden)]
#[proc_macro]
pub fn __foreign_impls(input: TokenStream) -> TokenStream {
    let impls = parse_macro_input!(input as foreign::ForeignImpls);
    impls.expand().into()
}
