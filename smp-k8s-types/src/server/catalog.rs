//! The resources the server serves: every built-in kind of the Kubernetes
//! version k8s-openapi is built for, and the kinds of the
//! CustomResourceDefinitions created since it started.

use crate::names;
use serde_json::Value;
use smp_core::Shape;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How the objects of a resource are checked and patched.
#[derive(Clone, Debug)]
pub enum KindSchema {
    /// A built-in kind: its static patch metadata.
    BuiltIn(Shape),
    /// A custom resource: the `openAPIV3Schema` of its CRD version.
    Custom(Arc<Value>),
}

/// One resource (group, version, plural) and what the server knows of it.
#[derive(Clone, Debug)]
pub struct ResourceType {
    /// The API group, `""` for the core group.
    pub group: String,
    /// The version, e.g. `v1`.
    pub version: String,
    /// The kind of its objects.
    pub kind: String,
    /// The resource name in URLs.
    pub plural: String,
    /// The singular name (lower-case kind for built-ins).
    pub singular: String,
    /// Objects live in namespaces.
    pub namespaced: bool,
    /// The names kubectl also accepts.
    pub short_names: Vec<String>,
    /// Patch metadata or schema.
    pub schema: KindSchema,
    /// A `status` subresource: writes to the main resource keep the
    /// status, writes to `/status` keep everything else.
    pub status_subresource: bool,
    /// A `scale` subresource: where its replicas and selector live.
    pub scale: Option<super::scale_paths::ScalePaths>,
    /// A CRD version's `additionalPrinterColumns` (the columns of
    /// `kubectl get`).
    pub printer_columns: Vec<Value>,
    /// The CRD serves this version and it is the storage version (custom
    /// resources only): the version objects are stored in.
    pub storage: bool,
    /// The server-side apply schema of a custom resource (built-in kinds
    /// take theirs from `ssa_schemas`).
    pub ssa: Option<std::sync::Arc<smp_core::ssa::Schema>>,
}

impl ResourceType {
    /// `apiVersion` of the objects.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }

    /// `deployments.apps`, `configmaps`: how error messages name it.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() { self.plural.clone() } else { format!("{}.{}", self.plural, self.group) }
    }

    /// `Deployment.apps`, `ConfigMap`: how validation errors name the kind.
    pub fn qualified_kind(&self) -> String {
        if self.group.is_empty() { self.kind.clone() } else { format!("{}.{}", self.kind, self.group) }
    }

    /// A custom resource (CRD-defined) rather than a built-in kind.
    pub fn is_custom(&self) -> bool {
        matches!(self.schema, KindSchema::Custom(_))
    }

    /// Whether changes to this object's spec count as new generations.
    pub fn tracks_generation(&self) -> bool {
        match &self.schema {
            KindSchema::Custom(_) => true,
            KindSchema::BuiltIn(shape) => has_field(shape, "spec"),
        }
    }
}

fn has_field(shape: &Shape, name: &str) -> bool {
    matches!(shape, Shape::Struct(s) if s.fields.iter().any(|f| f.name == name))
}

/// Kinds k8s-openapi marks as resources that the API server does not serve
/// as resources: those it serves only as subresources of another
/// (`pods/binding`, `deployments/scale`, ...), and the discovery and
/// status documents of `meta/v1` that k8s-openapi files under `v1`.
const NOT_RESOURCES: &[&str] = &[
    "Binding",
    "Eviction",
    "Scale",
    "TokenRequest",
    "APIGroup",
    "APIGroupList",
    "APIResourceList",
    "APIVersions",
    "Status",
];

/// Every resource served, by group, version and plural.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    types: BTreeMap<(String, String, String), Arc<ResourceType>>,
}

impl Catalog {
    /// The built-in kinds.
    pub fn built_in() -> Self {
        let mut catalog = Catalog::default();
        for (api_version, kind, shape) in crate::resources() {
            if NOT_RESOURCES.contains(&kind) {
                continue;
            }
            let resource = ResourceType {
                group: names::group_of(api_version).to_string(),
                version: names::version_of(api_version).to_string(),
                kind: kind.to_string(),
                plural: names::plural(kind),
                singular: kind.to_ascii_lowercase(),
                namespaced: names::namespaced(kind),
                short_names: names::short_names(kind).iter().map(|s| s.to_string()).collect(),
                status_subresource: has_field(&shape, "status"),
                scale: super::scale_paths::built_in(names::group_of(api_version), &names::plural(kind)),
                printer_columns: Vec::new(),
                schema: KindSchema::BuiltIn(shape),
                storage: true,
                ssa: None,
            };
            catalog.insert(resource);
        }
        catalog
    }

    /// Adds (or replaces) a resource.
    pub fn insert(&mut self, resource: ResourceType) {
        let key = (resource.group.clone(), resource.version.clone(), resource.plural.clone());
        self.types.insert(key, Arc::new(resource));
    }

    /// Removes every version of a group's resource (a deleted CRD).
    pub fn remove(&mut self, group: &str, plural: &str) {
        self.types.retain(|(g, _, p), _| !(g == group && p == plural));
    }

    /// The resource at `/apis/{group}/{version}/{plural}`.
    pub fn get(&self, group: &str, version: &str, plural: &str) -> Option<Arc<ResourceType>> {
        self.types.get(&(group.to_string(), version.to_string(), plural.to_string())).cloned()
    }

    /// Every resource, by group, version, plural.
    pub fn all(&self) -> impl Iterator<Item = &Arc<ResourceType>> {
        self.types.values()
    }

    /// The versions of a group, most preferred first.
    pub fn versions(&self, group: &str) -> Vec<String> {
        let mut versions: Vec<String> =
            self.types.keys().filter(|(g, _, _)| g == group).map(|(_, v, _)| v.clone()).collect();
        versions.dedup();
        versions.sort_by_key(|v| std::cmp::Reverse(version_priority(v)));
        versions
    }

    /// Every group but the core group, sorted.
    pub fn groups(&self) -> Vec<String> {
        let mut groups: Vec<String> = self.types.keys().map(|(g, _, _)| g.clone()).filter(|g| !g.is_empty()).collect();
        groups.dedup();
        groups
    }
}

/// Kubernetes' version priority: GA over beta over alpha, then the higher
/// major, then the higher minor.
fn version_priority(version: &str) -> (u8, u32, u32) {
    let rest = version.strip_prefix('v').unwrap_or(version);
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let major = rest[..digits].parse().unwrap_or(0);
    let tail = &rest[digits..];
    let (level, minor) = if tail.is_empty() {
        (2, "")
    } else if let Some(minor) = tail.strip_prefix("beta") {
        (1, minor)
    } else if let Some(minor) = tail.strip_prefix("alpha") {
        (0, minor)
    } else {
        (0, "")
    };
    (level, major, minor.parse().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_ordered_as_kubernetes_orders_them() {
        let mut versions = vec!["v1alpha1", "v2beta1", "v1", "v1beta2", "v2", "v1beta1"];
        versions.sort_by_key(|v| std::cmp::Reverse(version_priority(v)));
        assert_eq!(versions, ["v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1"]);
    }

    #[test]
    fn built_in_kinds_are_served_under_their_plurals() {
        let catalog = Catalog::built_in();
        let deployments = catalog.get("apps", "v1", "deployments").unwrap();
        assert_eq!(deployments.kind, "Deployment");
        assert!(deployments.namespaced && deployments.status_subresource && deployments.tracks_generation());
        let configmaps = catalog.get("", "v1", "configmaps").unwrap();
        assert!(!configmaps.status_subresource && !configmaps.tracks_generation());
        assert!(!catalog.get("", "v1", "namespaces").unwrap().namespaced);
        assert!(catalog.get("apps", "v1", "scales").is_none());
        for meta in ["apigroups", "apigrouplists", "apiresourcelists", "apiversionses", "statuses"] {
            assert!(catalog.get("", "v1", meta).is_none(), "{meta}");
        }
        assert_eq!(catalog.versions(""), ["v1"]);
    }
}
