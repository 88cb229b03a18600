//! OpenAPI v3 documents, as much of them as kubectl reads: the root's list
//! of group versions, and for each group version the PATCH operation of
//! every resource with its `x-kubernetes-group-version-kind`, the
//! `fieldValidation` parameter (so kubectl leaves field validation to the
//! server) and the patch types the resource accepts, and the schemas of
//! its kinds (what `kubectl explain` prints, and the patch metadata
//! `kubectl apply` reads): Kubernetes' own for the built-in groups of
//! `openapi_schemas.json` (core/v1, apps/v1, autoscaling/v2, batch/v1,
//! networking.k8s.io/v1, policy/v1, rbac.authorization.k8s.io/v1, written by
//! `scripts/k8s-openapi-schemas.sh`), and each CRD version's
//! `openAPIV3Schema` for its custom resources, named and completed as
//! kube-apiserver publishes them. Other built-in groups have no schemas:
//! kubectl then uses the types compiled into it.

use crate::server::catalog::{Catalog, KindSchema, ResourceType};
use crate::server::status::ApiError;
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

const SCHEMAS_TEXT: &str = include_str!("openapi_schemas.json");

/// The built-in kinds' schemas, by name (`io.k8s.api.apps.v1.Deployment`).
fn built_in_schemas() -> &'static Map<String, Value> {
    static SCHEMAS: OnceLock<Map<String, Value>> = OnceLock::new();
    SCHEMAS.get_or_init(|| serde_json::from_str(SCHEMAS_TEXT).unwrap_or_default())
}

const REF_PREFIX: &str = "#/components/schemas/";

/// Whether a schema is the one of `group`/`version`/`kind`.
fn is_kind(schema: &Value, group: &str, version: &str, kind: &str) -> bool {
    schema["x-kubernetes-group-version-kind"]
        .as_array()
        .is_some_and(|gvks| gvks.iter().any(|g| g["group"] == group && g["version"] == version && g["kind"] == kind))
}

/// The schema kube-apiserver publishes for a CRD version: its
/// `openAPIV3Schema` with `apiVersion`, `kind` and `metadata` as every
/// kind has them, named `{reversed group}.{version}.{Kind}`.
fn custom_schema(r: &ResourceType, schema: &Value) -> (String, Value) {
    let reversed: Vec<&str> = r.group.split('.').rev().collect();
    let name = format!("{}.{}.{}", reversed.join("."), r.version, r.kind);
    let mut schema = schema.clone();
    if !schema.is_object() {
        schema = json!({"type": "object"});
    }
    let typical = &built_in_schemas().get("io.k8s.api.core.v1.ConfigMap").map(|s| s["properties"].clone());
    let properties =
        schema.as_object_mut().expect("made an object above").entry("properties").or_insert_with(|| json!({}));
    if let (Some(properties), Some(typical)) = (properties.as_object_mut(), typical) {
        for field in ["apiVersion", "kind", "metadata"] {
            properties.insert(field.into(), typical[field].clone());
        }
    }
    schema["x-kubernetes-group-version-kind"] = json!([{"group": r.group, "version": r.version, "kind": r.kind}]);
    (name, schema)
}

/// The `$ref`s a schema names.
fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => out.extend(r.strip_prefix(REF_PREFIX).map(str::to_string)),
                    _ => refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

/// The schemas of a group version's kinds, with every schema they refer
/// to.
fn schemas(catalog: &Catalog, group: &str, version: &str) -> Map<String, Value> {
    let built_in = built_in_schemas();
    let mut out = Map::new();
    let mut pending = Vec::new();
    for r in catalog.all().filter(|r| r.group == group && r.version == version) {
        match &r.schema {
            KindSchema::Custom(schema) => {
                let (name, schema) = custom_schema(r, schema);
                refs(&schema, &mut pending);
                out.insert(name, schema);
            }
            KindSchema::BuiltIn(_) => {
                let list = format!("{}List", r.kind);
                for (name, schema) in built_in {
                    if is_kind(schema, group, version, &r.kind) || is_kind(schema, group, version, &list) {
                        pending.push(name.clone());
                    }
                }
            }
        }
    }
    while let Some(name) = pending.pop() {
        if out.contains_key(&name) {
            continue;
        }
        if let Some(schema) = built_in.get(&name) {
            refs(schema, &mut pending);
            out.insert(name, schema.clone());
        }
    }
    out
}

fn prefix(group: &str, version: &str) -> String {
    if group.is_empty() { format!("api/{version}") } else { format!("apis/{group}/{version}") }
}

/// `/openapi/v3`.
pub fn root(catalog: &Catalog) -> Value {
    let mut paths = Map::new();
    let mut seen = std::collections::BTreeSet::new();
    for r in catalog.all() {
        if seen.insert((r.group.clone(), r.version.clone())) {
            let path = prefix(&r.group, &r.version);
            let url = format!("/openapi/v3/{path}?hash={}", hash(catalog, &r.group, &r.version));
            paths.insert(path, json!({"serverRelativeURL": url}));
        }
    }
    json!({"paths": paths})
}

/// A hash of what a group version serves, so that kubectl's cache of a
/// document changes when a CRD changes it.
fn hash(catalog: &Catalog, group: &str, version: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    // The built-in schemas change with the build, not with the catalog.
    SCHEMAS_TEXT.hash(&mut h);
    for r in catalog.all().filter(|r| r.group == group && r.version == version) {
        (&r.plural, &r.kind, r.namespaced, r.status_subresource).hash(&mut h);
        if let KindSchema::Custom(schema) = &r.schema {
            schema.to_string().hash(&mut h);
        }
    }
    format!("{:016X}", h.finish())
}

fn operation(r: &ResourceType) -> Value {
    let content: Map<String, Value> = crate::server::patch::accepted(r)
        .into_iter()
        .map(|t| (t.to_string(), json!({"schema": {"type": "object"}})))
        .collect();
    json!({
        "x-kubernetes-action": "patch",
        "x-kubernetes-group-version-kind": {"group": r.group, "version": r.version, "kind": r.kind},
        "parameters": [
            {"name": "dryRun", "in": "query", "schema": {"type": "string"}},
            {"name": "fieldManager", "in": "query", "schema": {"type": "string"}},
            {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}},
        ],
        "requestBody": {"content": content, "required": true},
        "responses": {"200": {"description": "OK"}},
    })
}

/// `/openapi/v3/api/v1`, `/openapi/v3/apis/{group}/{version}`.
pub fn document(catalog: &Catalog, group: &str, version: &str) -> Result<Value, ApiError> {
    let mut paths = Map::new();
    for r in catalog.all().filter(|r| r.group == group && r.version == version) {
        let scope = if r.namespaced { "namespaces/{namespace}/" } else { "" };
        let path = format!("/{}/{scope}{}/{{name}}", prefix(group, version), r.plural);
        paths.insert(path, json!({"patch": operation(r)}));
    }
    if paths.is_empty() {
        return Err(ApiError::no_route());
    }
    Ok(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": super::discovery::version()["gitVersion"]},
        "paths": paths,
        "components": {"schemas": schemas(catalog, group, version)},
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_versions_document_holds_its_kinds_and_what_they_refer_to() {
        let catalog = Catalog::built_in();
        let apps = document(&catalog, "apps", "v1").unwrap();
        let schemas = apps["components"]["schemas"].as_object().unwrap();
        for name in [
            "io.k8s.api.apps.v1.Deployment",
            "io.k8s.api.apps.v1.DeploymentList",
            "io.k8s.api.core.v1.PodSpec",
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        ] {
            assert!(schemas.contains_key(name), "{name}");
        }
        // Every reference resolves inside the document.
        let mut named = Vec::new();
        refs(&apps, &mut named);
        assert!(named.iter().all(|n| schemas.contains_key(n)));
        assert!(!schemas.contains_key("io.k8s.api.batch.v1.Job"));
        // A group without Kubernetes' schemas here: operations only.
        let leases = document(&catalog, "coordination.k8s.io", "v1").unwrap();
        assert_eq!(leases["components"]["schemas"], json!({}));
    }
}
