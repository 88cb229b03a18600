//! Server-side apply and `metadata.managedFields`, with smp's SSA engine:
//! built-in kinds with the schemas of [`crate::ssa_schemas`], custom
//! resources with their CRD's schema. A kind with neither (a built-in
//! group outside `ssa_schemas`) takes no apply patch and keeps no
//! managedFields.

use super::catalog::{KindSchema, ResourceType};
use super::status::ApiError;
use serde_json::{Map, Value, json};
use smp_core::ssa::{self, Conflicts, Resource, Schema};
use std::sync::Arc;

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/// The field manager's view of a resource, if it has a schema for it.
pub fn resource_of(resource: &ResourceType) -> Option<Resource<'_>> {
    match (&resource.schema, &resource.ssa) {
        (KindSchema::BuiltIn(_), _) => crate::ssa_schemas::resource(&resource.api_version(), &resource.kind),
        (KindSchema::Custom(_), Some(schema)) => Resource::for_kind(schema, &resource.api_version(), &resource.kind),
        (KindSchema::Custom(_), None) => None,
    }
}

/// The SSA schema of a CRD version: its `openAPIV3Schema` as the root
/// type, `metadata` as the built-in `ObjectMeta`.
pub fn crd_schema(group: &str, version: &str, kind: &str, openapi: &Value) -> Option<Arc<Schema>> {
    let builtin = &crate::ssa_schemas::document()["components"]["schemas"];
    let mut schemas = Map::new();
    for name in ["ObjectMeta", "ManagedFieldsEntry", "OwnerReference", "Time", "FieldsV1"] {
        schemas.insert(format!("{META}{name}"), builtin.get(format!("{META}{name}"))?.clone());
    }
    let mut root = openapi.clone();
    let properties = root.as_object_mut()?.entry("properties").or_insert_with(|| json!({}));
    let properties = properties.as_object_mut()?;
    properties.insert("apiVersion".into(), json!({"type": "string"}));
    properties.insert("kind".into(), json!({"type": "string"}));
    properties.insert("metadata".into(), json!({"$ref": format!("#/components/schemas/{META}ObjectMeta")}));
    root["x-kubernetes-group-version-kind"] = json!([{"group": group, "version": version, "kind": kind}]);
    let name = format!("{group}.{version}.{kind}");
    schemas.insert(name, root);
    let doc = json!({"openapi": "3.0.0", "components": {"schemas": schemas}});
    Schema::from_openapi_v3(&doc).ok().map(Arc::new)
}

/// The server's answer to an engine error: 409 with one cause per
/// conflicting field, or the engine's message as an untyped 500.
fn answer(error: ssa::Error) -> ApiError {
    match error {
        ssa::Error::Conflicts(conflicts) => conflict(&conflicts),
        other => ApiError::untyped(other.to_string()),
    }
}

fn conflict(conflicts: &Conflicts) -> ApiError {
    let causes: Vec<Value> = conflicts
        .0
        .iter()
        .map(|c| {
            // `conflict with "m"` (or `"m" using apps/v1`), as the one-
            // conflict message of the engine prints the manager.
            let one = Conflicts(vec![c.clone()]).to_string();
            let who = one
                .strip_prefix("Apply failed with 1 conflict: ")
                .and_then(|rest| rest.strip_suffix(&format!(": {}", c.field)))
                .unwrap_or(&one)
                .to_string();
            json!({"reason": "FieldManagerConflict", "message": who, "field": c.field})
        })
        .collect();
    ApiError {
        code: 409,
        reason: "Conflict",
        message: conflicts.to_string(),
        details: Some(json!({"causes": causes})),
        retry_after: None,
    }
}

/// An apply patch's body: YAML (JSON is YAML) holding one object.
pub fn read_applied(body: &[u8]) -> Result<Value, ApiError> {
    let value: Value = serde_yaml_ng::from_slice(body).map_err(|e| ApiError::bad_request(e.to_string()))?;
    if !value.is_object() {
        return Err(ApiError::bad_request("the apply patch is not an object"));
    }
    if value["metadata"].get("managedFields").is_some_and(|m| !m.is_null()) {
        return Err(ApiError::bad_request("metadata.managedFields must be nil"));
    }
    Ok(value)
}

/// `applied` applied by `manager` to `live` (`None`: a create).
pub fn apply(
    res: &Resource<'_>,
    live: Option<&Value>,
    applied: &Value,
    manager: &str,
    force: bool,
    now: &str,
) -> Result<Value, ApiError> {
    ssa::apply(res, live, applied, manager, force, now).map_err(answer)
}

/// `new` written over `live` by `manager`: its managedFields updated.
pub fn update(
    res: &Resource<'_>,
    live: Option<&Value>,
    new: &Value,
    manager: &str,
    now: &str,
) -> Result<Value, ApiError> {
    ssa::update(res, live, new, manager, now).map_err(answer)
}
