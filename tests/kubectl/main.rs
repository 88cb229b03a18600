//! Differential tests against the reference itself, kubectl (`kubectl
//! patch --local`, and the patches `kubectl edit` and `kubectl apply`
//! send), in one test binary. Without kubectl each test says so loudly and
//! skips.
//!
//! - [`apply`]: `smp_core::apply` on random Pods, Deployments and Services
//!   and patches using every directive;
//! - [`kinds`]: random objects of twelve built-in kinds generated from
//!   their OpenAPI v3 definitions;
//! - [`patches`]: the two-way and three-way patches smp computes against
//!   the ones kubectl sends;
//! - [`merge_patch`]: the JSON merge patch route on custom-resource
//!   documents;
//! - [`odd_shapes`]: the bytes entry point on documents of unusual shapes.

mod apply;
mod kinds;
mod merge_patch;
mod odd_shapes;
mod patches;
