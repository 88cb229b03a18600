//! The Rust snippets of the README and of the guide's pages (`docs/`),
//! compiled and run as doctests so that they cannot go stale. Snippets
//! marked `ignore` need kube's client: `tests/snippets.rs` checks that each
//! is a copy of code in an example, which the build compiles, unless it is
//! also marked `fragment` (part of a test, shown out of its context: not
//! compiled).

/// `README.md`.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct Readme;

/// `docs/kubernetes.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/kubernetes.md")]
pub struct Kubernetes;

/// `docs/custom-resources.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/custom-resources.md")]
pub struct CustomResources;

/// `docs/typed-patches.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/typed-patches.md")]
pub struct TypedPatches;

/// `docs/json-engine.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/json-engine.md")]
pub struct JsonEngine;

/// `docs/merge-keys.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/merge-keys.md")]
pub struct MergeKeys;

/// `docs/cli.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/cli.md")]
pub struct Cli;

/// `docs/exactness.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/exactness.md")]
pub struct Exactness;

/// `docs/performance.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/performance.md")]
pub struct Performance;

/// `docs/server-side-apply.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/server-side-apply.md")]
pub struct ServerSideApply;

/// `docs/testing-a-reconciler.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/testing-a-reconciler.md")]
pub struct TestingAReconciler;

/// `docs/layout.md`.
#[cfg(doctest)]
#[doc = include_str!("../../docs/layout.md")]
pub struct Layout;

/// `docs/README.md`, the guide's index.
#[cfg(doctest)]
#[doc = include_str!("../../docs/README.md")]
pub struct Index;
