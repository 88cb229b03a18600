//! The lists the reference replaces whole although their elements have an
//! identity (phase 2 of the multi-field merge key proposal: taints,
//! tolerations, node selector requirements): with `$patchMergeKey` on, a
//! diff sends their elements with the directive and apply merges them, so
//! what another client added survives; off, they are replaced, as the
//! reference does.
//!
//! Choose the Kubernetes version on the command line:
//! `cargo test -p smp-core --features k8s-kinds,k8s-openapi/latest`.

use k8s_openapi::api::core::v1::{Node, Pod};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::{Value, json};
use smp_core::schema::recommended::{REPLACED_KUBERNETES, replaced_kubernetes};
use smp_core::{ApplyOptions, DiffOptions, OpenApi, Schema, StrategicMerge, ThreeWayOptions, apply_with, diff_with};

const ON: ApplyOptions = ApplyOptions { patch_merge_key: true, strict: false };
const DIFF_ON: DiffOptions = DiffOptions {
    set_element_order: true,
    patch_merge_key: true,
    ignore_changes_and_additions: false,
    ignore_deletions: false,
};

fn node(taints: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "spec": {"taints": taints}})
}

fn pod(tolerations: Value, expressions: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {
        "containers": [{"name": "app", "image": "app:1"}],
        "tolerations": tolerations,
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": expressions}]
        }}}
    }})
}

fn node_schema() -> Schema<'static> {
    Schema::Static(Node::shape())
}

fn pod_schema() -> Schema<'static> {
    Schema::Static(Pod::shape())
}

#[test]
fn taints_are_sent_by_key_and_effect() {
    let live = node(json!([
        {"key": "gpu", "effect": "NoSchedule", "value": "a"},
        {"key": "gpu", "effect": "NoExecute"},
        {"key": "spot", "effect": "NoSchedule"}
    ]));
    let desired = node(json!([
        {"key": "gpu", "effect": "NoSchedule", "value": "b"},
        {"key": "gpu", "effect": "NoExecute"},
        {"key": "spot", "effect": "NoSchedule"},
        {"key": "zone", "effect": "PreferNoSchedule"}
    ]));
    let patch = diff_with(&live, &desired, node_schema(), DIFF_ON).unwrap();
    let keys = json!(["key", "effect"]);
    assert_eq!(
        patch["spec"]["taints"],
        json!([
            {"$patchMergeKey": keys, "key": "gpu", "effect": "NoSchedule", "value": "b"},
            {"$patchMergeKey": keys, "key": "zone", "effect": "PreferNoSchedule"}
        ])
    );
    assert_eq!(apply_with(&live, &patch, node_schema(), ON).unwrap(), desired);
    // A taint another client added meanwhile is kept.
    let mut busy = live.clone();
    busy["spec"]["taints"].as_array_mut().unwrap().push(json!({"key": "drain", "effect": "NoExecute"}));
    let out = apply_with(&busy, &patch, node_schema(), ON).unwrap();
    assert!(out["spec"]["taints"].as_array().unwrap().contains(&json!({"key": "drain", "effect": "NoExecute"})));
    assert_eq!(out["spec"]["taints"].as_array().unwrap().len(), 5);

    // Off, the reference's patch: the whole list, which replaces.
    let off = DiffOptions { set_element_order: true, ..Default::default() };
    let patch = diff_with(&live, &desired, node_schema(), off).unwrap();
    assert_eq!(patch, smp_core::diff(&live, &desired, node_schema()).unwrap());
    assert_eq!(patch["spec"]["taints"], desired["spec"]["taints"]);
}

#[test]
fn tolerations_and_node_selector_requirements_are_sent_by_element() {
    let live = pod(
        json!([{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}, {"operator": "Exists"}]),
        json!([{"key": "zone", "operator": "In", "values": ["a"]}, {"key": "zone", "operator": "NotIn", "values": ["b"]}]),
    );
    let desired = pod(
        json!([
            {"key": "gpu", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 30},
            {"operator": "Exists"},
            {"key": "spot", "operator": "Equal", "value": "yes"}
        ]),
        json!([{"key": "zone", "operator": "In", "values": ["a", "c"]}, {"key": "zone", "operator": "NotIn", "values": ["b"]}]),
    );
    let patch = diff_with(&live, &desired, pod_schema(), DIFF_ON).unwrap();
    let t = json!(["key", "operator", "value", "effect"]);
    assert_eq!(
        patch["spec"]["tolerations"],
        json!([
            {"$patchMergeKey": t, "key": "gpu", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 30},
            {"$patchMergeKey": t, "key": "spot", "operator": "Equal", "value": "yes"}
        ])
    );
    let terms = &patch["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
    // The terms themselves are a replaced list without keys: sent whole,
    // each term's requirements as they are.
    assert_eq!(
        terms["nodeSelectorTerms"],
        desired["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    );
    assert_eq!(apply_with(&live, &patch, pod_schema(), ON).unwrap(), desired);
}

#[test]
fn repeated_tolerations_are_sent_whole() {
    let same = json!({"key": "gpu", "operator": "Exists"});
    let live = pod(json!([same, same]), json!([]));
    let desired = pod(json!([same, same, {"key": "spot", "operator": "Exists"}]), json!([]));
    let patch = diff_with(&live, &desired, pod_schema(), DIFF_ON).unwrap();
    assert_eq!(patch["spec"]["tolerations"], desired["spec"]["tolerations"]);
    assert_eq!(apply_with(&live, &patch, pod_schema(), ON).unwrap(), desired);
    // And emptied whole.
    let emptied = pod(json!([]), json!([]));
    let patch = diff_with(&live, &emptied, pod_schema(), DIFF_ON).unwrap();
    assert_eq!(patch["spec"]["tolerations"], json!([]));
}

#[test]
fn the_openapi_documents_carry_the_same_keys() {
    let path = std::env::var_os("SMP_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
        .join("k8s/openapi-v3/api__v1_openapi.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("SKIPPED: {} is missing; the OpenAPI route was not checked", path.display());
        return;
    };
    let api = OpenApi::from_value(serde_json::from_str(&text).unwrap()).unwrap();
    let schema = api.definition("io.k8s.api.core.v1.Node").unwrap();
    let live = node(json!([{"key": "a", "effect": "NoSchedule"}]));
    let desired = node(json!([{"key": "a", "effect": "NoSchedule"}, {"key": "b", "effect": "NoSchedule"}]));
    let patch = diff_with(&live, &desired, schema, DIFF_ON).unwrap();
    assert_eq!(patch, diff_with(&live, &desired, node_schema(), DIFF_ON).unwrap());
    assert_eq!(apply_with(&live, &patch, schema, ON).unwrap(), desired);
    // Every row names a definition of the documents, with its keys first
    // among its element's properties.
    assert_eq!(replaced_kubernetes("io.k8s.api.core.v1.NodeSpec", "taints"), Some(&["key", "effect"][..]));
    for row in REPLACED_KUBERNETES.iter().filter(|r| r.definition.starts_with("io.k8s.api.core.v1.")) {
        let (elem, meta) = api.definition(row.definition).unwrap().lookup_slice(row.field).unwrap();
        assert_eq!(meta.merge_key, None, "{}.{}: the reference replaces it", row.definition, row.field);
        assert_eq!(meta.recommended().unwrap().unwrap().to_vec(), row.keys.to_vec());
        for key in row.keys {
            assert_eq!(elem.knows_field(key), Some(true), "{}.{}: {key}", row.definition, row.field);
        }
    }
}

/// Random taint lists (key and effect from small pools, so that keys
/// repeat across effects): the patch gives the desired list, and a
/// three-way patch keeps the taints another client added.
#[test]
fn taint_lists_round_trip_and_keep_what_others_added() {
    let taint = (0..3u8, prop::sample::select(vec!["NoSchedule", "NoExecute", "PreferNoSchedule"]), 0..3u8);
    let taints = prop::collection::vec(taint, 0..6).prop_map(|ts| {
        let mut seen = std::collections::HashSet::new();
        let list: Vec<Value> = ts
            .into_iter()
            .filter(|(k, e, _)| seen.insert((*k, *e)))
            .map(|(k, e, v)| json!({"key": format!("k{k}"), "effect": e, "value": format!("v{v}")}))
            .collect();
        Value::Array(list)
    });
    let config = Config { cases: 256, rng_seed: RngSeed::Fixed(30), failure_persistence: None, ..Config::default() };
    TestRunner::new(config)
        .run(&(taints.clone(), taints), |(a, b)| {
            let (live, desired) = (node(a), node(b));
            let patch = diff_with(&live, &desired, node_schema(), DIFF_ON).unwrap();
            prop_assert_eq!(&apply_with(&live, &patch, node_schema(), ON).unwrap(), &desired, "patch {}", patch);
            // kubectl apply's three-way from the last applied `live`: a
            // taint the node gained since is kept, unless desired names it.
            let extra = json!({"key": "other", "effect": "NoExecute"});
            let mut busy = live.clone();
            busy["spec"]["taints"].as_array_mut().unwrap().push(extra.clone());
            let options = ThreeWayOptions { patch_merge_key: true, overwrite: true, ..Default::default() };
            let patch = smp_core::three_way(&live, &desired, &busy, node_schema(), options).unwrap();
            let out = apply_with(&busy, &patch, node_schema(), ON).unwrap();
            let mut want: Vec<Value> = desired["spec"]["taints"].as_array().unwrap().clone();
            want.push(extra);
            let mut got: Vec<Value> = out["spec"]["taints"].as_array().unwrap().clone();
            let sort = |l: &mut Vec<Value>| l.sort_by_key(|v| v.to_string());
            sort(&mut want);
            sort(&mut got);
            prop_assert_eq!(got, want, "three-way patch {}", patch);
            Ok(())
        })
        .unwrap();
}
