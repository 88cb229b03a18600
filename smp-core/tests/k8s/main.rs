//! The k8s-openapi implementations (`smp_core::k8s`, feature
//! `k8s-openapi`), in one test binary. k8s-openapi builds for the
//! Kubernetes version `K8S_OPENAPI_ENABLED_VERSION` names (the workspace's
//! `.cargo/config.toml` picks the latest).
//!
//! - [`metadata`]: the patch metadata is the project's table;
//! - [`typed`]: typed patches on k8s-openapi values agree with the JSON
//!   engine;
//! - [`properties`]: round-trip properties on generated Deployments, Pods
//!   and a custom resource embedding a pod template;
//! - [`replaced_lists`]: the lists the reference replaces whole, merged
//!   with `$patchMergeKey` on;
//! - [`readers`]: the walker writes and reads k8s-openapi values as their
//!   serde code does.

mod metadata;
mod properties;
mod readers;
mod replaced_lists;
mod typed;
