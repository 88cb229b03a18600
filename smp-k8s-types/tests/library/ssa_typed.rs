//! Server-side apply of a typed custom resource: the schema comes from the
//! spec's `#[patch(...)]` attributes (`smp_core::ssa::DerivedSchema`), and
//! agrees with the markers the CRD transform `list_markers` writes.

use kube::CustomResource;
use kube::CustomResourceExt;
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use smp_core::ssa::{self, DerivedSchema, Error, apply_typed};
use smp_k8s_types::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
pub struct Port {
    port: i32,
    protocol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
#[kube(group = "example.com", version = "v1", kind = "Gateway", namespaced)]
#[schemars(transform = smp_k8s_types::crd::list_markers::<Self>)]
pub struct GatewaySpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<i32>,
    /// Keyed by both fields: port 80 over TCP and over UDP are two entries.
    #[patch(strategy = "merge", merge_key = "port,protocol")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ports: Vec<Port>,
    /// A set.
    #[patch(strategy = "merge")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
    /// Atomic.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    args: Vec<String>,
}

const AV: &str = "example.com/v1";

fn schema() -> DerivedSchema {
    DerivedSchema::of_spec::<GatewaySpec>(AV, "Gateway").unwrap()
}

fn gateway(spec: GatewaySpec) -> Gateway {
    Gateway::new("gw", spec)
}

fn port(port: i32, protocol: &str) -> Port {
    Port { port, protocol: protocol.into(), name: None }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn spec_of(obj: &Value) -> GatewaySpec {
    serde_json::from_value(obj["spec"].clone()).unwrap()
}

fn sorted_ports(spec: &GatewaySpec) -> Vec<(i32, String)> {
    let mut v: Vec<_> = spec.ports.iter().map(|p| (p.port, p.protocol.clone())).collect();
    v.sort();
    v
}

fn managers(obj: &Value) -> Vec<String> {
    let mut v: Vec<String> = obj["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["manager"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn two_managers_merge_by_list_type_conflict_and_force() {
    let s = schema();
    let alice_cfg = gateway(GatewaySpec {
        replicas: Some(2),
        ports: vec![port(80, "TCP"), port(80, "UDP")],
        tags: strings(&["a"]),
        args: strings(&["x"]),
    });
    let live = apply_typed(&s, None, &alice_cfg, "alice", false, "2026-01-01T00:00:00Z").unwrap();
    // Two entries with the same port: keyed by (port, protocol), not by port.
    assert_eq!(sorted_ports(&spec_of(&live)), vec![(80, "TCP".into()), (80, "UDP".into())]);

    let bob_cfg =
        gateway(GatewaySpec { ports: vec![port(443, "TCP")], tags: strings(&["b"]), ..GatewaySpec::default() });
    let live = apply_typed(&s, Some(&live), &bob_cfg, "bob", false, "2026-01-01T00:01:00Z").unwrap();
    let spec = spec_of(&live);
    // The keyed list and the set take both managers' elements; the rest stays.
    assert_eq!(sorted_ports(&spec), vec![(80, "TCP".into()), (80, "UDP".into()), (443, "TCP".into())]);
    let mut tags = spec.tags.clone();
    tags.sort();
    assert_eq!(tags, strings(&["a", "b"]));
    assert_eq!(spec.args, strings(&["x"]));
    assert_eq!(spec.replicas, Some(2));
    assert_eq!(managers(&live), ["alice", "bob"]);

    // The atomic list is alice's as a whole: bob's value conflicts.
    let bob_args = gateway(GatewaySpec { args: strings(&["y"]), ..GatewaySpec::default() });
    let err = apply_typed(&s, Some(&live), &bob_args, "bob", false, "2026-01-01T00:02:00Z").unwrap_err();
    let Error::Conflicts(c) = &err else { panic!("not a conflict: {err}") };
    assert_eq!(err.to_string(), "Apply failed with 1 conflict: conflict with \"alice\": .spec.args", "{c:?}");

    // Forced, bob takes it (and gives up what he no longer applies).
    let forced = apply_typed(&s, Some(&live), &bob_args, "bob", true, "2026-01-01T00:02:00Z").unwrap();
    let spec = spec_of(&forced);
    assert_eq!(spec.args, strings(&["y"]));
    assert_eq!(sorted_ports(&spec), vec![(80, "TCP".into()), (80, "UDP".into())]);
    assert_eq!(spec.tags, strings(&["a"]));
    // Now alice's old value conflicts with bob.
    let err = apply_typed(&s, Some(&forced), &alice_cfg, "alice", false, "2026-01-01T00:03:00Z").unwrap_err();
    assert_eq!(err.to_string(), "Apply failed with 1 conflict: conflict with \"bob\": .spec.args");

    // Alice drops the UDP entry: removed, as she alone owned it.
    let alice_less = gateway(GatewaySpec {
        replicas: Some(2),
        ports: vec![port(80, "TCP")],
        tags: strings(&["a"]),
        ..GatewaySpec::default()
    });
    let live = apply_typed(&s, Some(&forced), &alice_less, "alice", false, "2026-01-01T00:04:00Z").unwrap();
    let spec = spec_of(&live);
    assert_eq!(sorted_ports(&spec), vec![(80, "TCP".into())]);
    assert_eq!(spec.args, strings(&["y"]));
}

#[test]
fn a_manager_changing_a_field_of_anothers_keyed_entry_conflicts() {
    let s = schema();
    let mut named = port(80, "TCP");
    named.name = Some("http".into());
    let alice = gateway(GatewaySpec { ports: vec![named], ..GatewaySpec::default() });
    let live = apply_typed(&s, None, &alice, "alice", false, "2026-01-01T00:00:00Z").unwrap();
    let mut renamed = port(80, "TCP");
    renamed.name = Some("web".into());
    let bob = gateway(GatewaySpec { ports: vec![renamed], ..GatewaySpec::default() });
    let err = apply_typed(&s, Some(&live), &bob, "bob", false, "2026-01-01T00:01:00Z").unwrap_err();
    assert_eq!(
        err.to_string(),
        "Apply failed with 1 conflict: conflict with \"alice\": .spec.ports[port=80,protocol=\"TCP\"].name"
    );
}

/// The markers of a property: list type, map keys, map type.
fn markers(prop: &Value) -> (Value, Value, Value) {
    (
        prop.get("x-kubernetes-list-type").cloned().unwrap_or(Value::Null),
        prop.get("x-kubernetes-list-map-keys").cloned().unwrap_or(Value::Null),
        prop.get("x-kubernetes-map-type").cloned().unwrap_or(Value::Null),
    )
}

#[test]
fn derived_schema_and_crd_markers_agree() {
    let doc = ssa::openapi_v3::<GatewaySpec, GatewaySpec>(AV, "Gateway", false);
    let derived = &doc["components"]["schemas"]["GatewaySpec"]["properties"];
    let crd = serde_json::to_value(Gateway::crd()).unwrap();
    let crd_spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    let names: Vec<&String> = crd_spec.as_object().unwrap().keys().collect();
    assert_eq!(names.len(), 4);
    for name in names {
        assert_eq!(markers(&crd_spec[name]), markers(&derived[name]), "{name}");
    }
    assert_eq!(markers(&derived["ports"]).0, "map");
    assert_eq!(markers(&derived["ports"]).1, json!(["port", "protocol"]));
    assert_eq!(markers(&derived["tags"]).0, "set");
    assert_eq!(markers(&derived["args"]).0, "atomic");
}

fn cases() -> u32 {
    std::env::var("SSA_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(48)
}

fn spec_strategy() -> impl Strategy<Value = GatewaySpec> {
    let port = (0..4i32, prop::sample::select(vec!["TCP", "UDP"]), prop::option::of("[a-c]{1,2}"))
        .prop_map(|(p, proto, name)| Port { port: p, protocol: proto.into(), name });
    (
        prop::option::of(0..5i32),
        prop::collection::vec(port, 0..4),
        prop::collection::btree_set("[a-d]", 0..4),
        prop::collection::vec("[x-z]", 0..3),
    )
        .prop_map(|(replicas, ports, tags, args)| {
            // Keys and set values are unique in a valid applied configuration.
            let mut seen = std::collections::BTreeSet::new();
            let ports = ports.into_iter().filter(|p| seen.insert((p.port, p.protocol.clone()))).collect();
            GatewaySpec { replicas, ports, tags: tags.into_iter().collect(), args }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Applying the same typed configuration twice changes nothing, the
    /// time stamps included; over another manager's object too.
    #[test]
    fn applying_the_same_configuration_twice_changes_nothing(base in spec_strategy(), mine in spec_strategy()) {
        let s = schema();
        let other = apply_typed(&s, None, &gateway(base), "other", false, "2026-01-01T00:00:00Z").unwrap();
        let cfg = gateway(mine);
        for live in [None, Some(&other)] {
            let once = match apply_typed(&s, live, &cfg, "me", true, "2026-01-01T00:01:00Z") {
                Ok(v) => v,
                Err(e) => return Err(TestCaseError::fail(format!("first apply: {e}"))),
            };
            let twice = apply_typed(&s, Some(&once), &cfg, "me", false, "2026-01-01T00:02:00Z").unwrap();
            prop_assert_eq!(&once, &twice);
        }
    }
}
