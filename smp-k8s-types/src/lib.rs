//! Kubernetes entry point of smp: strategic merge patches on the types of
//! [`k8s_openapi`], exactly as the API server and kubectl compute them.
//!
//! This crate is the one dependency a Kubernetes user needs: it re-exports
//! the engine ([`smp_core`]), turns on its [`StrategicMerge`] impls for
//! every k8s-openapi type, and re-exports [`k8s_openapi`] itself.
//!
//! ```
//! use serde_json::json;
//! use smp_k8s_types::StrategicMerge;
//! use smp_k8s_types::k8s_openapi::api::apps::v1::Deployment;
//!
//! let deployment = |replicas: i32| -> Deployment {
//!     let spec = json!({"replicas": replicas, "selector": {}, "template": {}});
//!     serde_json::from_value(json!({"metadata": {"name": "web"}, "spec": spec})).unwrap()
//! };
//! let (live, desired) = (deployment(1), deployment(3));
//!
//! let patch = live.diff(&desired).unwrap();
//! assert_eq!(patch, json!({"spec": {"replicas": 3}}));
//! assert_eq!(live.apply(&patch).unwrap(), desired);
//! ```
//!
//! # Entry points
//!
//! - [`StrategicMerge`]: `diff`, `apply`, `three_way` on every k8s-openapi
//!   type and on your own types (re-exported from [`smp_core`], with the
//!   derive).
//! - [`StrategicPatch`] (feature `kube`): the patches as
//!   `kube::api::Patch` values for `Api::patch`, with an opt-in optimistic
//!   lock (`strategic_patch_with_lock`), `None` when nothing changes
//!   (`strategic_patch_if_changed`), and the patch `kubectl apply` sends
//!   (`kubectl_apply_patch`).
//! - [`PatchFrom`] (module [`api`], feature `kube`): an extension of kube's
//!   `Api` that picks the route the kind accepts, a strategic merge patch
//!   for built-in kinds, a JSON merge patch or a JSON patch guarded by the
//!   resourceVersion for custom resources (the API server refuses strategic
//!   merge patches there), and
//!   [`create_or_patch`](PatchFrom::create_or_patch), the reconcile step
//!   that creates or patches an object; [`api::patch_for`] computes the
//!   same patches without a client.
//! - [`crd::list_markers`] (feature `kube`): a schemars transform that puts
//!   your `#[patch(...)]` attributes into a CRD's schema as
//!   server-side-apply list markers.
//! - [`kubectl`]: the patch `kubectl apply` sends, from the
//!   `kubectl.kubernetes.io/last-applied-configuration` annotation, on JSON
//!   objects with any schema.
//! - [`shape_of_kind`], [`shape_of_definition`] (feature `kinds`, on with
//!   `server` and `cli`): the patch metadata of a built-in kind named at run
//!   time, without an OpenAPI document; [`crd_schema`]: the schemas of
//!   CustomResourceDefinition manifests.
//! - [`ssa_schemas`]: the built-in kinds' server-side apply schemas, for
//!   [`smp_core::ssa`].
//!
//! k8s-openapi needs its Kubernetes version chosen by the final binary (one
//! of its `v1_*` features, or `latest`); this library never chooses one.
//!
//! Your own types (a custom resource's spec) derive [`StrategicMerge`]
//! through this crate too, with no other smp dependency:
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use smp_k8s_types::StrategicMerge;
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
//! struct WidgetSpec {
//!     #[patch(strategy = "merge")]
//!     finalizers: Vec<String>,
//! }
//!
//! let live = WidgetSpec { finalizers: vec!["a".into()] };
//! let desired = WidgetSpec { finalizers: vec!["a".into(), "b".into()] };
//! let patch = live.diff(&desired).unwrap();
//! assert_eq!(patch["finalizers"], serde_json::json!(["b"]));
//! assert_eq!(live.apply(&patch).unwrap(), desired);
//! ```
//!
//! With the `cli` feature the crate also builds `smp`, the command-line
//! tool: `smp apply|diff|three-way|check`, with the built-in kinds'
//! schemas, OpenAPI documents or CRDs, and a `--jsonl` batch mode
//! (`cargo install --locked --path smp-k8s-types --features cli` from a
//! checkout of the repository).
//!
//! The guide (`docs/` in the repository) covers custom resources, the
//! command line, exactness and performance.

#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "kube")]
pub mod api;
#[cfg(feature = "kube")]
pub mod crd;
pub mod crd_schema;
pub mod kubectl;
pub mod names;
#[cfg(feature = "kube")]
pub mod patch;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "kube")]
pub mod server_side;
#[cfg(feature = "ssa")]
pub mod ssa_schemas;

pub use k8s_openapi;
pub use smp_core;
#[cfg(feature = "kinds")]
pub use smp_core::k8s::{definitions, resources, shape_of_definition, shape_of_kind};
// The trait, and the derive whose generated code names smp-core through
// this crate.
pub use smp_core::__StrategicMergeViaK8sTypes as StrategicMerge;
pub use smp_core::typed::StrategicMerge;
pub use smp_core::{Error, ErrorKind, OpenApi, Result, Schema, Shape, ThreeWayOptions, apply, diff, three_way};

#[cfg(feature = "kube")]
pub use api::PatchFrom;
#[cfg(feature = "kube")]
pub use patch::{LockError, StrategicPatch};
