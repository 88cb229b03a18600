//! OpenAPI v3 documents, as much of them as kubectl reads: the root's list
//! of group versions, and for each group version the PATCH operation of
//! every resource with its `x-kubernetes-group-version-kind`, the
//! `fieldValidation` parameter (so kubectl leaves field validation to the
//! server) and the patch types the resource accepts. The documents hold no
//! schemas: kubectl then computes the patches of `apply` and `edit` from
//! the types compiled into it for built-in kinds, and sends JSON merge
//! patches for custom resources, as it does with any server whose
//! documents lack the kind.

use super::catalog::{Catalog, ResourceType};
use super::status::ApiError;
use serde_json::{Map, Value, json};

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
    for r in catalog.all().filter(|r| r.group == group && r.version == version) {
        (&r.plural, &r.kind, r.namespaced, r.status_subresource).hash(&mut h);
        if let super::catalog::KindSchema::Custom(schema) = &r.schema {
            schema.to_string().hash(&mut h);
        }
    }
    format!("{:016X}", h.finish())
}

fn operation(r: &ResourceType) -> Value {
    let content: Map<String, Value> =
        super::patch::accepted(r).into_iter().map(|t| (t.to_string(), json!({"schema": {"type": "object"}}))).collect();
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
        "components": {"schemas": {}},
    }))
}
