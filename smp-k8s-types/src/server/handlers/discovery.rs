//! Discovery documents (`/api`, `/apis`, a group, a group version's
//! resources) and `/version`, in the legacy (unaggregated) form: kubectl
//! asks for the aggregated form first and reads these when the answer is
//! plain `application/json`.

use crate::server::catalog::{Catalog, ResourceType};
use crate::server::status::ApiError;
use serde_json::{Value, json};

k8s_openapi::k8s_if_1_33! { const MINOR: &str = "33"; }
k8s_openapi::k8s_if_1_34! { const MINOR: &str = "34"; }
k8s_openapi::k8s_if_1_35! { const MINOR: &str = "35"; }
k8s_openapi::k8s_if_1_36! { const MINOR: &str = "36"; }
k8s_openapi::k8s_if_1_37! { const MINOR: &str = "37"; }

/// `/version`: the Kubernetes version k8s-openapi is built for.
pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": MINOR,
        "gitVersion": format!("v1.{MINOR}.0"),
        "gitCommit": "",
        "gitTreeState": "clean",
        "buildDate": "1970-01-01T00:00:00Z",
        "goVersion": "",
        "compiler": "smp",
        "platform": "linux/amd64",
    })
}

/// `/api`.
pub fn core_versions() -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}],
    })
}

fn group_entry(catalog: &Catalog, group: &str) -> Value {
    let versions: Vec<Value> =
        catalog.versions(group).iter().map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v})).collect();
    json!({"name": group, "versions": versions, "preferredVersion": versions[0]})
}

/// `/apis`.
pub fn groups(catalog: &Catalog) -> Value {
    let groups: Vec<Value> = catalog.groups().iter().map(|g| group_entry(catalog, g)).collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`.
pub fn group(catalog: &Catalog, group: &str) -> Result<Value, ApiError> {
    if catalog.versions(group).is_empty() {
        return Err(ApiError::no_route());
    }
    let mut entry = group_entry(catalog, group);
    entry["kind"] = "APIGroup".into();
    entry["apiVersion"] = "v1".into();
    Ok(entry)
}

/// The verbs of a resource.
const VERBS: &[&str] = &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/// The resources kube-apiserver puts in the category `all` (what `kubectl
/// get all` lists), as (group, plural).
const CATEGORY_ALL: &[(&str, &str)] = &[
    ("", "pods"),
    ("", "replicationcontrollers"),
    ("", "services"),
    ("apps", "daemonsets"),
    ("apps", "deployments"),
    ("apps", "replicasets"),
    ("apps", "statefulsets"),
    ("autoscaling", "horizontalpodautoscalers"),
    ("batch", "cronjobs"),
    ("batch", "jobs"),
];

fn entries(r: &ResourceType) -> Vec<Value> {
    let mut main = json!({
        "name": r.plural,
        "singularName": r.singular,
        "namespaced": r.namespaced,
        "kind": r.kind,
        "verbs": if super::is_review(&r.group, &r.plural) { &["create"][..] } else { VERBS },
    });
    if !r.short_names.is_empty() {
        main["shortNames"] = json!(r.short_names);
    }
    if CATEGORY_ALL.contains(&(r.group.as_str(), r.plural.as_str())) {
        main["categories"] = json!(["all"]);
    }
    let mut out = vec![main];
    if r.status_subresource {
        out.push(json!({
            "name": format!("{}/status", r.plural),
            "singularName": "",
            "namespaced": r.namespaced,
            "kind": r.kind,
            "verbs": ["get", "patch", "update"],
        }));
    }
    if r.scale.is_some() {
        out.push(json!({
            "name": format!("{}/scale", r.plural),
            "singularName": "",
            "namespaced": r.namespaced,
            "group": "autoscaling",
            "version": "v1",
            "kind": "Scale",
            "verbs": ["get", "patch", "update"],
        }));
    }
    out
}

/// `/api/v1`, `/apis/{group}/{version}`.
pub fn resources(catalog: &Catalog, group: &str, version: &str) -> Result<Value, ApiError> {
    let found: Vec<Value> =
        catalog.all().filter(|r| r.group == group && r.version == version).flat_map(|r| entries(r)).collect();
    if found.is_empty() {
        return Err(ApiError::no_route());
    }
    let group_version = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    Ok(json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": found}))
}
