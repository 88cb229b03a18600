//! CustomResourceDefinitions: creating one serves its resources, at every
//! served version, with its schema, scope and `status` subresource;
//! deleting one takes its resources and their objects away.

use super::State;
use super::catalog::{KindSchema, ResourceType};
use super::status::ApiError;
use serde_json::{Value, json};
use std::sync::Arc;

/// Whether a resource is `customresourcedefinitions.apiextensions.k8s.io`.
pub fn is_crd(resource: &ResourceType) -> bool {
    resource.group == "apiextensions.k8s.io" && resource.plural == "customresourcedefinitions"
}

fn crd_type() -> ResourceType {
    super::catalog::Catalog::built_in()
        .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        .map(|r| (*r).clone())
        .expect("CustomResourceDefinition is built in")
}

fn field<'a>(crd: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(crd, |v, k| v.get(*k))?.as_str().filter(|s| !s.is_empty())
}

/// The resources a CRD defines, one per served version, or the server's
/// 422 naming the first missing field.
pub fn resource_types(crd: &Value) -> Result<Vec<ResourceType>, ApiError> {
    let name = field(crd, &["metadata", "name"]).unwrap_or_default();
    let required = |path: &[&str]| {
        field(crd, path).ok_or_else(|| {
            let cause = (path.join("."), "FieldValueRequired", "Required value".to_string());
            ApiError::invalid(&crd_type(), name, &[(cause.0.as_str(), cause.1, cause.2)])
        })
    };
    let group = required(&["spec", "group"])?;
    let plural = required(&["spec", "names", "plural"])?;
    let kind = required(&["spec", "names", "kind"])?;
    if name != format!("{plural}.{group}") {
        let message = format!("Invalid value: \"{name}\": must be spec.names.plural+\".\"+spec.group");
        return Err(ApiError::invalid(&crd_type(), name, &[("metadata.name", "FieldValueInvalid", message)]));
    }
    let singular = field(crd, &["spec", "names", "singular"]).map_or_else(|| kind.to_ascii_lowercase(), str::to_string);
    let namespaced = field(crd, &["spec", "scope"]) != Some("Cluster");
    let short_names: Vec<String> = crd["spec"]["names"]["shortNames"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    let versions = crd["spec"]["versions"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for v in versions.iter().filter(|v| v["served"] != Value::Bool(false)) {
        let Some(version) = v["name"].as_str() else { continue };
        let schema = v["schema"]["openAPIV3Schema"].clone();
        let schema = if schema.is_null() {
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
        } else {
            schema
        };
        out.push(ResourceType {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
            plural: plural.to_string(),
            singular: singular.clone(),
            namespaced,
            short_names: short_names.clone(),
            status_subresource: v["subresources"].get("status").is_some(),
            scale: super::scale_paths::of_crd_version(v),
            printer_columns: v["additionalPrinterColumns"].as_array().cloned().unwrap_or_default(),
            storage: v["storage"] == Value::Bool(true),
            ssa: super::apply::crd_schema(group, version, kind, &schema),
            schema: KindSchema::Custom(Arc::new(schema)),
        });
    }
    if out.is_empty() {
        let cause = (
            "spec.versions",
            "FieldValueRequired",
            "Required value: must have exactly one version marked as storage version".to_string(),
        );
        return Err(ApiError::invalid(&crd_type(), name, &[cause]));
    }
    Ok(out)
}

/// The status the server gives a CRD whose names it accepted: the
/// `NamesAccepted` and `Established` conditions clients wait for.
pub fn accept(crd: &mut Value, now: &str) {
    let mut names = crd["spec"]["names"].clone();
    if names.get("singular").is_none() {
        names["singular"] = crd["spec"]["names"]["kind"].as_str().unwrap_or_default().to_ascii_lowercase().into();
    }
    if names.get("listKind").is_none() {
        names["listKind"] = format!("{}List", crd["spec"]["names"]["kind"].as_str().unwrap_or_default()).into();
    }
    let stored: Vec<Value> = crd["spec"]["versions"]
        .as_array()
        .map(|vs| vs.iter().filter(|v| v["storage"] == Value::Bool(true)).map(|v| v["name"].clone()).collect())
        .unwrap_or_default();
    crd["status"] = json!({
        "acceptedNames": names,
        "conditions": [
            {"type": "NamesAccepted", "status": "True", "lastTransitionTime": now, "reason": "NoConflicts", "message": "no conflicts found"},
            {"type": "Established", "status": "True", "lastTransitionTime": now, "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"},
        ],
        "storedVersions": stored,
    });
}

/// After a CRD is deleted: its resources are no longer served and their
/// objects are gone.
pub fn forget(state: &mut State, resource: &ResourceType, crd: &Value) {
    if !is_crd(resource) {
        return;
    }
    if let (Some(group), Some(plural)) = (field(crd, &["spec", "group"]), field(crd, &["spec", "names", "plural"])) {
        state.catalog.remove(group, plural);
        state.store.remove_all(group, plural);
    }
}
