//! Composite merge keys (`merge_key = "port,protocol"`) on derived types,
//! as properties: the typed diff, apply and three-way identify elements by
//! every field of the key, with required fields and with optional ones
//! (absent, or `null`); the JSON engine gives the typed layer's patches;
//! and the custom-resource route's JSON merge patch, applied by another
//! implementation of RFC 7386 (the json-patch crate's `merge`), turns the
//! live object into the desired one, as does its guarded JSON patch.
//!
//! 256 cases per property (`PROPTEST_CASES` overrides).

use kube::CustomResource;
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use smp_k8s_types::StrategicMerge;
use smp_k8s_types::api::{Lock, Route, patch_for};
use smp_k8s_types::patch::Patch;

fn tcp() -> Option<String> {
    Some("TCP".into())
}

/// Both key fields required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
pub struct Required {
    port: u16,
    protocol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

/// The second key field absent when `None`; the schema defaults it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
pub struct Absent {
    port: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "TCP"))]
    protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

/// The second key field `null` when `None`, defaulted when absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
pub struct Nullable {
    port: u16,
    #[serde(default = "tcp")]
    protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
#[kube(group = "example.com", version = "v1", kind = "Keyed", namespaced)]
#[kube(derive = "PartialEq", derive = "StrategicMerge")]
#[schemars(transform = smp_k8s_types::crd::list_markers::<Self>)]
pub struct KeyedSpec {
    #[patch(strategy = "merge", merge_key = "port,protocol")]
    required: Vec<Required>,
    #[patch(strategy = "merge", merge_key = "port,protocol")]
    absent: Vec<Absent>,
    #[patch(strategy = "merge", merge_key = "port,protocol")]
    nullable: Vec<Nullable>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<u8>,
}

fn protocol() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop::sample::select(vec!["TCP", "UDP"]).prop_map(String::from))
}

fn name() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop::sample::select(vec!["a", "b"]).prop_map(String::from))
}

/// Elements in any order, each key once (a repeated key is a list the
/// key does not identify elements of, which `check` reports).
fn distinct<T: Clone + std::fmt::Debug, K: PartialEq>(
    elem: impl Strategy<Value = T>,
    key: impl Fn(&T) -> K,
) -> impl Strategy<Value = Vec<T>> {
    prop::collection::vec(elem, 0..6).prop_map(move |v| {
        let mut out: Vec<T> = Vec::new();
        for e in v {
            if !out.iter().any(|o| key(o) == key(&e)) {
                out.push(e);
            }
        }
        out
    })
}

fn spec() -> impl Strategy<Value = KeyedSpec> {
    let port = || prop::sample::select(vec![53u16, 80]);
    let required = (port(), prop::sample::select(vec!["TCP", "UDP"]), name()).prop_map(|(port, p, name)| Required {
        port,
        protocol: p.into(),
        name,
    });
    let absent = (port(), protocol(), name()).prop_map(|(port, protocol, name)| Absent { port, protocol, name });
    let nullable = (port(), protocol(), name()).prop_map(|(port, protocol, name)| Nullable { port, protocol, name });
    (
        distinct(required, |e| (e.port, e.protocol.clone())),
        distinct(absent, |e| (e.port, e.protocol.clone())),
        distinct(nullable, |e| (e.port, e.protocol.clone())),
        prop::option::of(0u8..3),
    )
        .prop_map(|(required, absent, nullable, replicas)| KeyedSpec { required, absent, nullable, replicas })
}

fn keyed(spec: KeyedSpec) -> Keyed {
    let mut k = Keyed::new("k", spec);
    k.metadata.namespace = Some("default".into());
    k.metadata.resource_version = Some("3".into());
    k
}

fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    /// `apply(a, diff(a, b)) == b`, typed, and the patch is the JSON
    /// engine's for the same schema.
    #[test]
    fn typed_diff_then_apply_gives_the_desired_value(a in spec(), b in spec()) {
        let patch = a.diff(&b).unwrap();
        prop_assert_eq!(&a.apply(&patch).unwrap(), &b, "patch {}", patch);
        let schema = smp_core::Schema::Static(<KeyedSpec as smp_core::StrategicMerge>::shape());
        prop_assert_eq!(smp_core::diff(&json(&a), &json(&b), schema).unwrap(), patch);
        let applied = smp_core::apply(&json(&a), &a.diff(&b).unwrap(), schema).unwrap();
        prop_assert_eq!(applied, json(&b));
    }

    /// The three-way patch from a last-applied state: applied to the live
    /// object, it gives the desired one.
    #[test]
    fn typed_three_way_then_apply_gives_the_desired_value(a in spec(), b in spec()) {
        let patch = a.three_way(&a, &b, Default::default()).unwrap();
        prop_assert_eq!(&a.apply(&patch).unwrap(), &b, "patch {}", patch);
    }

    /// The custom-resource route: its merge patch, applied by the
    /// json-patch crate's RFC 7386 merge, and its guarded JSON patch,
    /// applied by the same crate, give the desired object.
    #[test]
    fn custom_resource_route_patches_give_the_desired_object(a in spec(), b in spec()) {
        let (live, desired) = (keyed(a), keyed(b));
        let Patch::Merge(merge) = patch_for(Route::CustomResource, Lock::None, &live, &desired).unwrap() else {
            panic!("a merge patch")
        };
        let mut object = json(&live);
        json_patch::merge(&mut object, &merge);
        prop_assert_eq!(&object, &json(&desired), "merge patch {}", merge);
        let Patch::Json(guarded) = patch_for(Route::CustomResource, Lock::ResourceVersion, &live, &desired).unwrap()
        else {
            panic!("a JSON patch")
        };
        let mut object = json(&live);
        json_patch::patch(&mut object, &guarded).unwrap();
        prop_assert_eq!(&object, &json(&desired));
    }
}

/// The apiextensions rules for `x-kubernetes-list-type: map` (what the API
/// server checks of a CRD's schema): the items are objects; each key is a
/// property, a scalar, required or defaulted, and not nullable. Every
/// violation, with its path.
fn list_map_violations(node: &Value, path: &str, out: &mut Vec<String>) {
    match node {
        Value::Object(m) => {
            if m.get("x-kubernetes-list-type") == Some(&Value::from("map")) {
                let items = &m["items"];
                if items["type"] != "object" {
                    out.push(format!("{path}: items are not objects"));
                }
                let keys = m["x-kubernetes-list-map-keys"].as_array().cloned().unwrap_or_default();
                if keys.is_empty() {
                    out.push(format!("{path}: no x-kubernetes-list-map-keys"));
                }
                let required = items["required"].as_array().cloned().unwrap_or_default();
                for key in keys {
                    let prop = &items["properties"][key.as_str().unwrap()];
                    let scalar = matches!(prop["type"].as_str(), Some("string" | "integer" | "number" | "boolean"));
                    if !scalar {
                        out.push(format!("{path}.{key}: not a scalar: {prop}"));
                    }
                    if !required.contains(&key) && prop.get("default").is_none_or(Value::is_null) {
                        out.push(format!("{path}.{key}: neither required nor defaulted"));
                    }
                    if prop["nullable"] == true {
                        out.push(format!("{path}.{key}: nullable"));
                    }
                }
            }
            for (k, v) in m {
                list_map_violations(v, &format!("{path}.{k}"), out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| list_map_violations(v, path, out)),
        _ => {}
    }
}

#[test]
fn the_crd_has_list_map_keys_the_api_server_accepts() {
    use kube::CustomResourceExt;
    let crd = json(&Keyed::crd());
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    for list in ["required", "absent", "nullable"] {
        assert_eq!(spec[list]["x-kubernetes-list-type"], "map", "{list}: {}", spec[list]);
        assert_eq!(spec[list]["x-kubernetes-list-map-keys"], serde_json::json!(["port", "protocol"]), "{list}");
    }
    // Defaulted where the type says so.
    assert_eq!(spec["absent"]["items"]["properties"]["protocol"]["default"], "TCP");
    assert_eq!(spec["nullable"]["items"]["properties"]["protocol"]["default"], "TCP");
    let mut violations = Vec::new();
    list_map_violations(&crd, "", &mut violations);
    assert!(violations.is_empty(), "{violations:#?}\n{}", serde_yaml_ng::to_string(&crd).unwrap());
}

/// A key the derive cannot see undefaulted (its default function gives
/// `None`): the list is marked atomic, never a map the server refuses.
#[test]
fn a_list_whose_keys_the_server_would_refuse_is_marked_atomic() {
    fn unset() -> Option<String> {
        None
    }
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
    struct Unset {
        port: u16,
        #[serde(default = "unset", skip_serializing_if = "Option::is_none")]
        protocol: Option<String>,
    }
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
    #[kube(group = "example.com", version = "v1", kind = "Loose", namespaced)]
    #[kube(derive = "PartialEq", derive = "StrategicMerge")]
    #[schemars(transform = smp_k8s_types::crd::list_markers::<Self>)]
    struct LooseSpec {
        #[patch(strategy = "merge", merge_key = "port,protocol")]
        ports: Vec<Unset>,
    }
    use kube::CustomResourceExt;
    let crd = json(&Loose::crd());
    let ports = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["ports"];
    assert_eq!(ports["x-kubernetes-list-type"], "atomic", "{ports}");
    assert_eq!(ports.get("x-kubernetes-list-map-keys"), None);
    let mut violations = Vec::new();
    list_map_violations(&crd, "", &mut violations);
    assert!(violations.is_empty(), "{violations:#?}");
}
