//! The names the API server gives the built-in kinds: resource (plural),
//! short names, scope. kubectl reads them from discovery; the command line
//! and the test server (`server`) read them here.

/// The short names kubectl knows the built-in resources by (from the API
/// server's discovery documents), by kind.
pub const SHORT_NAMES: &[(&str, &[&str])] = &[
    ("CertificateSigningRequest", &["csr"]),
    ("ConfigMap", &["cm"]),
    ("CronJob", &["cj"]),
    ("CustomResourceDefinition", &["crd", "crds"]),
    ("DaemonSet", &["ds"]),
    ("Deployment", &["deploy"]),
    ("Endpoints", &["ep"]),
    ("Event", &["ev"]),
    ("HorizontalPodAutoscaler", &["hpa"]),
    ("Ingress", &["ing"]),
    ("LimitRange", &["limits"]),
    ("Namespace", &["ns"]),
    ("NetworkPolicy", &["netpol"]),
    ("Node", &["no"]),
    ("PersistentVolume", &["pv"]),
    ("PersistentVolumeClaim", &["pvc"]),
    ("Pod", &["po"]),
    ("PodDisruptionBudget", &["pdb"]),
    ("PriorityClass", &["pc"]),
    ("ReplicaSet", &["rs"]),
    ("ReplicationController", &["rc"]),
    ("ResourceQuota", &["quota"]),
    ("Service", &["svc"]),
    ("ServiceAccount", &["sa"]),
    ("StatefulSet", &["sts"]),
    ("StorageClass", &["sc"]),
];

/// The built-in kinds whose objects belong to no namespace.
const CLUSTER_SCOPED: &[&str] = &[
    "APIService",
    "CSIDriver",
    "CSINode",
    "CertificateSigningRequest",
    "ClusterRole",
    "ClusterRoleBinding",
    "ClusterTrustBundle",
    "ComponentStatus",
    "CustomResourceDefinition",
    "DeviceClass",
    "DeviceTaintRule",
    "FlowSchema",
    "IPAddress",
    "IngressClass",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "MutatingWebhookConfiguration",
    "Namespace",
    "Node",
    "PersistentVolume",
    "PriorityClass",
    "PriorityLevelConfiguration",
    "ResourcePoolStatusRequest",
    "ResourceSlice",
    "RuntimeClass",
    "SelfSubjectAccessReview",
    "SelfSubjectReview",
    "SelfSubjectRulesReview",
    "ServiceCIDR",
    "StorageClass",
    "StorageVersion",
    "StorageVersionMigration",
    "SubjectAccessReview",
    "TokenReview",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
    "VolumeAttachment",
    "VolumeAttributesClass",
];

/// The short names of a built-in kind (empty for most).
pub fn short_names(kind: &str) -> &'static [&'static str] {
    SHORT_NAMES.iter().find(|(k, _)| *k == kind).map_or(&[], |(_, short)| short)
}

/// Whether objects of this built-in kind live in a namespace.
pub fn namespaced(kind: &str) -> bool {
    !CLUSTER_SCOPED.contains(&kind)
}

/// The resource name of a kind, as the API server derives it: lower case,
/// plural.
pub fn plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower.ends_with("endpoints") {
        lower
    } else if let Some(stem) = lower.strip_suffix('y') {
        format!("{stem}ies")
    } else if lower.ends_with('s') || lower.ends_with("ch") || lower.ends_with('x') {
        format!("{lower}es")
    } else {
        format!("{lower}s")
    }
}

/// The API group of an apiVersion (`""` for the core group).
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

/// The version of an apiVersion (`v1` of `apps/v1`).
pub fn version_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or(api_version, |(_, version)| version)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::Resource;

    /// Plural and scope against k8s-openapi's own (`URL_PATH_SEGMENT`,
    /// `Scope`) for kinds of every naming pattern.
    #[test]
    fn plural_and_scope_agree_with_k8s_openapi() {
        fn check<T: Resource>()
        where
            T::Scope: 'static,
        {
            assert_eq!(plural(T::KIND), T::URL_PATH_SEGMENT, "{}", T::KIND);
            let cluster =
                std::any::TypeId::of::<T::Scope>() == std::any::TypeId::of::<k8s_openapi::ClusterResourceScope>();
            assert_eq!(namespaced(T::KIND), !cluster, "{}", T::KIND);
        }
        use k8s_openapi::api::{apps, core, networking, rbac, storage};
        use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
        check::<core::v1::Pod>();
        check::<core::v1::Endpoints>();
        check::<core::v1::Namespace>();
        check::<core::v1::Node>();
        check::<core::v1::PersistentVolume>();
        check::<core::v1::ComponentStatus>();
        check::<apps::v1::Deployment>();
        check::<networking::v1::Ingress>();
        check::<networking::v1::IngressClass>();
        check::<networking::v1::NetworkPolicy>();
        check::<rbac::v1::ClusterRole>();
        check::<storage::v1::StorageClass>();
        check::<CustomResourceDefinition>();
        check::<k8s_openapi::api::discovery::v1::EndpointSlice>();
        check::<k8s_openapi::api::policy::v1::PodDisruptionBudget>();
    }
}
