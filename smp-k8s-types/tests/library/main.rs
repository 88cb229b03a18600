//! The library's API (all but the command line and the test server), in
//! one test binary.
//!
//! - [`depth`]: every public entry point refuses documents nested deeper
//!   than the engine's limit;
//! - [`kubectl_samples`]: the patches kubectl sent for the oracle's
//!   samples, recomputed;
//!
//! and with the `kube` feature:
//!
//! - [`kube_patch`]: the kube helpers' typed patches;
//! - [`custom_resource`]: custom resources end to end, against a fake API
//!   server on loopback;
//! - [`composite_keys`]: composite merge keys on derived types, as
//!   properties;
//! - [`ssa_typed`]: server-side apply of a typed custom resource.

mod depth;
mod kubectl_samples;

#[cfg(feature = "kube")]
mod composite_keys;
#[cfg(feature = "kube")]
mod custom_resource;
#[cfg(feature = "kube")]
mod kube_patch;
#[cfg(feature = "kube")]
mod ssa_typed;
