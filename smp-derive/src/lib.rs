//! `#[derive(StrategicMerge)]`: typed strategic merge patches for your own
//! types. Use it through `smp_core` (feature `derive`), which re-exports it.
//!
//! The attribute model (`internals`) is kept apart from code generation
//! (`expand`): the model is what the code generator reads, whether it comes
//! from a derive input or from another front end.

extern crate proc_macro;

mod engine_path;
mod expand;
mod foreign;
mod internals;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Implements `smp_core::StrategicMerge` for a struct or enum.
///
/// Field attributes (`#[patch(...)]`):
/// - `strategy = "merge" | "replace" | "retainKeys" | "merge,retainKeys"`
/// - `merge_key = "name"`: the key of a list of structs merged by key
/// - `with = "path"`: a module whose `shape()` gives the schema of a field
///   whose type does not implement `StrategicMerge`
///
/// Container attribute: `#[patch(crate = "path::to::smp_core")]`, needed
/// only when the engine is re-exported under another path: by default the
/// generated code names `smp_core` as the crate's `Cargo.toml` does, or
/// `smp_k8s_types::smp_core` when smp-k8s-types is the only smp dependency.
/// serde's own attributes decide JSON names and presence.
///
/// Custom resources: kube's `#[derive(CustomResource)]` generates the root
/// type (`Backend` for a `BackendSpec`); give it the typed operations too
/// with `#[kube(derive = "StrategicMerge")]` on the spec (beside
/// `#[kube(derive = "PartialEq")]`, which the trait also needs).
#[proc_macro_derive(StrategicMerge, attributes(patch))]
pub fn derive_strategic_merge(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
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
