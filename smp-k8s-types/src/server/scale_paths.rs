//! Where a resource keeps what its `Scale` shows: the replicas and the
//! selector of a workload, or the paths a CRD's `subresources.scale`
//! declares. The catalog holds these for each resource; `scale.rs` reads
//! and writes `Scale` objects with them.

use serde_json::Value;

/// Where a resource keeps what its `Scale` shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalePaths {
    /// The desired replicas (`.spec.replicas`).
    pub spec_replicas: Vec<String>,
    /// The observed replicas (`.status.replicas`).
    pub status_replicas: Vec<String>,
    /// The label selector `status.selector` shows.
    pub selector: SelectorSource,
}

/// How a resource holds the selector of its pods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectorSource {
    /// A `LabelSelector` at `.spec.selector` (the apps kinds).
    LabelSelector,
    /// A map of labels at `.spec.selector` (replication controllers).
    Labels,
    /// A CRD's `labelSelectorPath`: a string already in selector form.
    Path(Option<Vec<String>>),
}

/// A CRD's `.a.b` path as its fields.
fn path(text: &str) -> Vec<String> {
    text.split('.').filter(|p| !p.is_empty()).map(str::to_string).collect()
}

/// The scale of a built-in resource, if it has one.
pub fn built_in(group: &str, plural: &str) -> Option<ScalePaths> {
    let selector = match (group, plural) {
        ("apps", "deployments" | "replicasets" | "statefulsets") => SelectorSource::LabelSelector,
        ("", "replicationcontrollers") => SelectorSource::Labels,
        _ => return None,
    };
    Some(ScalePaths { spec_replicas: path(".spec.replicas"), status_replicas: path(".status.replicas"), selector })
}

/// The scale a CRD version declares (`subresources.scale`).
pub fn of_crd_version(version: &Value) -> Option<ScalePaths> {
    let scale = version["subresources"].get("scale")?;
    let field = |name: &str| scale.get(name).and_then(Value::as_str).map(path);
    Some(ScalePaths {
        spec_replicas: field("specReplicasPath")?,
        status_replicas: field("statusReplicasPath")?,
        selector: SelectorSource::Path(field("labelSelectorPath")),
    })
}
