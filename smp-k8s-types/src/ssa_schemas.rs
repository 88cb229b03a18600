//! The server-side apply schemas of the built-in kinds: list types, list
//! map keys and map types of every field, as the API server's field
//! manager reads them (`x-kubernetes-list-type`, `-list-map-keys`,
//! `-map-type` in its OpenAPI v3 documents), for the groups `core/v1`,
//! `apps/v1`, `autoscaling/v2`, `batch/v1`, `networking.k8s.io/v1`,
//! `policy/v1` and `rbac.authorization.k8s.io/v1`.
//!
//! The schemas are generated (`cargo run -p smp-k8s-gen`, file
//! `ssa_schemas.json`) and read once, on first use.
//!
//! ```
//! use serde_json::json;
//! use smp_k8s_types::smp_core::ssa;
//! use smp_k8s_types::ssa_schemas::resource;
//!
//! let deployment = resource("apps/v1", "Deployment").unwrap();
//! let applied = json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!                      "metadata": {"name": "web"}, "spec": {"replicas": 2}});
//! let live = ssa::apply(&deployment, None, &applied, "alice", false, "2026-01-01T00:00:00Z").unwrap();
//! assert_eq!(live["metadata"]["managedFields"][0]["manager"], "alice");
//! ```

use smp_core::ssa::{Resource, Schema};
use std::sync::OnceLock;

/// The reduced OpenAPI v3 document (`components.schemas` only).
const DOCUMENT: &str = include_str!("ssa_schemas.json");

/// The groups and versions the schemas cover.
pub const GROUP_VERSIONS: &[&str] = &[
    "v1",
    "apps/v1",
    "autoscaling/v2",
    "batch/v1",
    "networking.k8s.io/v1",
    "policy/v1",
    "rbac.authorization.k8s.io/v1",
];

/// The schema of every built-in kind of [`GROUP_VERSIONS`].
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| Schema::from_openapi_v3(document()).expect("the generated schemas are read"))
}

/// The OpenAPI v3 document the schemas are read from (its `ObjectMeta`
/// definitions also describe the metadata of custom resources).
pub fn document() -> &'static serde_json::Value {
    static DOC: OnceLock<serde_json::Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::from_str(DOCUMENT).expect("the generated schemas are JSON"))
}

/// The built-in kind with this `apiVersion` and `kind`, as the field
/// manager serves it; `None` for a kind outside [`GROUP_VERSIONS`].
pub fn resource(api_version: &str, kind: &str) -> Option<Resource<'static>> {
    Resource::for_kind(schema(), api_version, kind)
}
