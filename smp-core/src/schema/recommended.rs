//! The recommended merge keys of Kubernetes built-in lists: the lists whose
//! single `patchMergeKey` does not identify an element, with the fields
//! that do. They are the server-side apply `listMapKeys` markers of the
//! same fields (the API server itself identifies elements by them there),
//! always starting with the `patchMergeKey`. The generated k8s-openapi
//! schemas carry them as multi-field merge keys; the reference's behaviour
//! reads only the first field, `$patchMergeKey` (opt-in) reads them all.

/// One list with recommended merge keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recommended {
    /// The OpenAPI definition name of the type holding the list.
    pub definition: &'static str,
    /// The list's JSON field name.
    pub field: &'static str,
    /// The recommended keys, the `patchMergeKey` first.
    pub keys: &'static [&'static str],
    /// Why the single key is not enough.
    pub reason: &'static str,
}

/// Every built-in list with recommended merge keys.
pub const KUBERNETES: &[Recommended] = &[
    Recommended {
        definition: "io.k8s.api.core.v1.ServiceSpec",
        field: "ports",
        keys: &["port", "protocol"],
        reason: "a Service may expose one port over TCP and UDP (DNS on 53/TCP and 53/UDP); by `port` alone a \
                 patch to one changes the other, and adding the second is lost",
    },
    Recommended {
        definition: "io.k8s.api.core.v1.Container",
        field: "ports",
        keys: &["containerPort", "protocol"],
        reason: "a container may declare one port for TCP and UDP; by `containerPort` alone they merge as one",
    },
    Recommended {
        definition: "io.k8s.api.core.v1.EphemeralContainer",
        field: "ports",
        keys: &["containerPort", "protocol"],
        reason: "the same ports as a Container's",
    },
    Recommended {
        definition: "io.k8s.api.core.v1.PodSpec",
        field: "topologySpreadConstraints",
        keys: &["topologyKey", "whenUnsatisfiable"],
        reason: "one topology key may carry a DoNotSchedule and a ScheduleAnyway constraint; by `topologyKey` \
                 alone they merge as one",
    },
    Recommended {
        definition: "io.k8s.api.core.v1.PodVolumeHealth",
        field: "healthConditions",
        keys: &["status", "reason"],
        reason: "several conditions may share a status with different reasons",
    },
    Recommended {
        definition: "io.k8s.api.core.v1.VolumeHealthStatus",
        field: "healthConditions",
        keys: &["status", "reason"],
        reason: "several conditions may share a status with different reasons",
    },
];

/// The recommended keys of a built-in list, by definition and field name.
pub fn kubernetes(definition: &str, field: &str) -> Option<&'static [&'static str]> {
    lookup(KUBERNETES, definition, field)
}

/// Built-in lists that the reference replaces whole, although their
/// elements have an identity: the lists whose `patchMergeKey` tag sits on
/// the element's field instead of the list ("Move Merge Key to the Correct
/// Level", phase 2 of the multi-field merge key proposal). With
/// `$patchMergeKey` on, a diff sends their changed, added and removed
/// elements with the directive, and apply merges them; off, they stay
/// replaced, as the reference has them.
///
/// The keys are the fields that tell two elements apart, so that no two
/// elements a valid object can hold share them (an element's other fields
/// are its settings, which a patch changes in place):
///
/// - a **taint** is identified by `key` and `effect`: the API server
///   refuses a node whose taints repeat a key and effect pair ("taints must
///   be unique by key and effect pair"), and `kubectl taint` addresses a
///   taint by `key:effect`; `value` and `timeAdded` are settings (changing
///   a taint's value keeps the taint);
/// - a **toleration** has no such rule (a pod may repeat one), and every
///   one of `key`, `operator`, `value` and `effect` changes what it
///   tolerates (`key` absent with `Exists` tolerates every taint; `effect`
///   absent matches every effect): all four identify it, and
///   `tolerationSeconds` is its setting. Repeated tolerations cannot be
///   told apart, so a list holding some is sent whole;
/// - a **node selector requirement** is identified by `key` and
///   `operator`: a term may hold several requirements on one key (`In` and
///   `NotIn`), and `values` is what the requirement matches against, a
///   list no key can be. Two requirements with one key and operator are
///   told apart by nothing, so a term holding them is sent whole. The
///   terms themselves have no identity and their lists
///   (`nodeSelectorTerms`, `preferredDuringSchedulingIgnoredDuringExecution`)
///   stay replaced: a diff sends the terms whole, and the keys serve the
///   patches that name requirements with the directive.
///
/// An absent key field is part of the identity (absent matches absent),
/// as `$patchMergeKey` reads it.
pub const REPLACED_KUBERNETES: &[Recommended] = &[
    Recommended {
        definition: "io.k8s.api.core.v1.NodeSpec",
        field: "taints",
        keys: &["key", "effect"],
        reason: "a node's taints are unique by key and effect; replaced whole, a patch that adds one taint \
                 removes those another client added since",
    },
    Recommended {
        definition: "io.k8s.api.core.v1.PodSpec",
        field: "tolerations",
        keys: &["key", "operator", "value", "effect"],
        reason: "replaced whole, adding one toleration sends them all and removes those another client added",
    },
    Recommended {
        definition: "io.k8s.api.node.v1.Scheduling",
        field: "tolerations",
        keys: &["key", "operator", "value", "effect"],
        reason: "the tolerations of a RuntimeClass, as a pod's",
    },
    Recommended {
        definition: "io.k8s.api.core.v1.NodeSelectorTerm",
        field: "matchExpressions",
        keys: &["key", "operator"],
        reason: "replaced whole, changing one requirement of a node affinity term sends them all",
    },
    Recommended {
        definition: "io.k8s.api.core.v1.NodeSelectorTerm",
        field: "matchFields",
        keys: &["key", "operator"],
        reason: "the same requirements as `matchExpressions`, on fields",
    },
];

/// The recommended keys of a built-in list that the reference replaces
/// whole ([`REPLACED_KUBERNETES`]), by definition and field name.
pub fn replaced_kubernetes(definition: &str, field: &str) -> Option<&'static [&'static str]> {
    lookup(REPLACED_KUBERNETES, definition, field)
}

/// The keys a table recommends for a definition's field.
fn lookup(table: &'static [Recommended], definition: &str, field: &str) -> Option<&'static [&'static str]> {
    table.iter().find(|r| r.definition == definition && r.field == field).map(|r| r.keys)
}

/// [`replaced_kubernetes`] for the compiled-in schemas, which know a
/// type by its short name: the holder's name (`NodeSpec`) and the field.
pub(crate) fn replaced_kubernetes_by_type(type_name: &str, field: &str) -> Option<&'static [&'static str]> {
    REPLACED_KUBERNETES
        .iter()
        .find(|r| r.field == field && r.definition.rsplit('.').next() == Some(type_name))
        .map(|r| r.keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The table is what the server-side apply markers give: every merged
    /// list whose `listMapKeys` are more than its `patchMergeKey` (and
    /// start with it) is in the table, with those keys.
    #[test]
    fn recommended_keys_are_the_server_side_apply_map_keys() {
        let dir = std::env::var_os("SMP_SHARED")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
        let path = dir.join("k8s/patch-fields.tsv");
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("SKIPPED: {} is missing; the recommended keys were not checked", path.display());
            return;
        };
        let mut derived = Vec::new();
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split('\t').collect();
            let (field, strategy, key, list_type, map_keys, definition) =
                (cols[2], cols[4], cols[5], cols[6], cols[7], cols[8]);
            if strategy.split(',').any(|s| s == "merge") && list_type == "map" && map_keys != key {
                let keys: Vec<&str> = map_keys.split(',').collect();
                assert_eq!(keys[0], key, "{definition}.{field}: the map keys start with the merge key");
                derived.push((definition.to_string(), field.to_string(), keys.join(",")));
            }
        }
        let table: Vec<(String, String, String)> =
            KUBERNETES.iter().map(|r| (r.definition.to_string(), r.field.to_string(), r.keys.join(","))).collect();
        for row in &derived {
            assert!(table.contains(row), "missing from the table: {row:?}");
        }
        for row in &table {
            assert!(derived.contains(row), "not derived from the markers: {row:?}");
        }
    }

    #[cfg(feature = "k8s-openapi")]
    #[test]
    fn generated_schemas_carry_the_recommended_keys() {
        use crate::schema::{MergeKey, Schema, Shape};
        use crate::typed::StrategicMerge;
        use k8s_openapi::api::core::v1::{Container, EphemeralContainer, PodSpec, ServiceSpec};
        let check = |shape: Shape, definition: &str, field: &str| {
            let (_, meta) = Schema::Static(shape).lookup_slice(field).unwrap();
            let keys = kubernetes(definition, field).unwrap();
            assert_eq!(meta.merge_key, Some(MergeKey::Several(keys)), "{definition}.{field}");
            assert_eq!(meta.key_name(), Some(keys[0]));
        };
        check(ServiceSpec::shape(), "io.k8s.api.core.v1.ServiceSpec", "ports");
        check(Container::shape(), "io.k8s.api.core.v1.Container", "ports");
        check(EphemeralContainer::shape(), "io.k8s.api.core.v1.EphemeralContainer", "ports");
        check(PodSpec::shape(), "io.k8s.api.core.v1.PodSpec", "topologySpreadConstraints");
    }
}
