//! Round-trip properties of the typed API on generated k8s-openapi
//! Deployments and Pods:
//!
//! - the typed diff is the JSON engine's diff of the serialised values, and
//!   applying it (typed or through the JSON engine) gives the desired value;
//! - the typed three-way patch is the JSON engine's, and applied to a live
//!   object that only gained a label since the last apply it gives the
//!   desired object with that label kept;
//! - the same for a custom resource that derives `StrategicMerge` and embeds
//!   a `PodTemplateSpec`.
//!
//! Objects are written as JSON and deserialised, so the generators hold for
//! every Kubernetes version. Keyed lists have distinct keys and primitive
//! sets are sorted, the documented preconditions of the round trip.
//!
//! `cargo test -p smp-core --features k8s-openapi --test k8s properties::`;
//! `PROPTEST_CASES` overrides the 256 cases of each property.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use proptest::prelude::*;
use proptest::sample::{select, subsequence};
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use smp_core::{Schema, StrategicMerge, ThreeWayOptions};
use std::fmt::Debug;

// ---------------------------------------------------------------------------
// Generators (JSON of the Kubernetes types)

fn distinct<T: Clone + Debug>(pool: &'static [T], max: usize) -> impl Strategy<Value = Vec<T>> {
    subsequence(pool, 0..=max.min(pool.len()))
}

/// A list of distinct names, shuffled: keyed lists may come in any order.
fn names(pool: &'static [&'static str], min: usize, max: usize) -> impl Strategy<Value = Vec<&'static str>> {
    subsequence(pool, min..=max.min(pool.len())).prop_shuffle()
}

fn string_map(keys: &'static [&'static str], values: &'static [&'static str]) -> impl Strategy<Value = Value> {
    prop::collection::btree_map(select(keys), select(values), 0..=3).prop_map(|m| json!(m))
}

fn env_var() -> impl Strategy<Value = Value> {
    let value = select(&["a", "b", "1", ""][..]).prop_map(|v| json!({"value": v}));
    let from_field = select(&["metadata.name", "status.podIP"][..])
        .prop_map(|p| json!({"valueFrom": {"fieldRef": {"fieldPath": p}}}));
    prop_oneof![3 => value, 1 => from_field]
}

fn env() -> impl Strategy<Value = Vec<Value>> {
    names(&["A", "B", "C", "D", "E"], 0, 4).prop_flat_map(|names| {
        let n = names.len();
        (Just(names), prop::collection::vec(env_var(), n)).prop_map(|(names, vars)| {
            names.into_iter().zip(vars).map(|(name, mut var)| with(&mut var, "name", json!(name))).collect()
        })
    })
}

fn ports() -> impl Strategy<Value = Vec<Value>> {
    (distinct(&[80, 443, 8080, 9090][..], 3), prop::bool::ANY).prop_map(|(ports, named)| {
        ports
            .into_iter()
            .map(
                |p| {
                    if named {
                        json!({"containerPort": p, "name": format!("p{p}")})
                    } else {
                        json!({"containerPort": p})
                    }
                },
            )
            .collect()
    })
}

fn resources() -> impl Strategy<Value = Option<Value>> {
    let quantities = &["100m", "250m", "1", "64Mi", "1Gi"][..];
    prop::option::of(
        (string_map(&["cpu", "memory"], quantities), string_map(&["cpu", "memory"], quantities))
            .prop_map(|(limits, requests)| json!({"limits": limits, "requests": requests})),
    )
}

fn container(name: &'static str) -> impl Strategy<Value = Value> {
    (
        select(&["app:1", "app:2", "proxy:1"][..]),
        env(),
        ports(),
        resources(),
        distinct(&["/data", "/etc/app", "/tmp"][..], 2),
        prop::option::of(distinct(&["--debug", "--port=1", "-v"][..], 3)),
    )
        .prop_map(move |(image, env, ports, resources, mounts, args)| {
            let mut c = json!({"name": name, "image": image});
            set_nonempty(&mut c, "env", env);
            set_nonempty(&mut c, "ports", ports);
            let mounts: Vec<Value> = mounts
                .into_iter()
                .map(|path| json!({"name": path.trim_start_matches('/').replace('/', "-"), "mountPath": path}))
                .collect();
            set_nonempty(&mut c, "volumeMounts", mounts);
            if let Some(r) = resources {
                c["resources"] = r;
            }
            if let Some(args) = args {
                c["args"] = json!(args);
            }
            c
        })
}

fn containers(pool: &'static [&'static str], min: usize) -> impl Strategy<Value = Vec<Value>> {
    names(pool, min, 3).prop_flat_map(|names| names.into_iter().map(container).collect::<Vec<_>>())
}

/// A volume is a union: exactly one source, replaced by `$retainKeys`.
fn volume(name: &'static str) -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"emptyDir": {}})),
        Just(json!({"emptyDir": {"medium": "Memory"}})),
        select(&["cfg", "other"][..]).prop_map(|n| json!({"configMap": {"name": n}})),
        select(&["tls", "creds"][..]).prop_map(|n| json!({"secret": {"secretName": n}})),
    ]
    .prop_map(move |mut v| with(&mut v, "name", json!(name)))
}

fn pod_spec() -> impl Strategy<Value = Value> {
    (
        containers(&["app", "proxy", "log", "metrics"], 1),
        containers(&["init", "migrate"], 0),
        names(&["data", "etc-app", "tmp", "cache"], 0, 3)
            .prop_flat_map(|names| names.into_iter().map(volume).collect::<Vec<_>>()),
        string_map(&["pool", "zone", "disk"], &["a", "b"]),
        distinct(&["reg-a", "reg-b", "reg-c"][..], 2),
        prop::option::of(select(&["default", "builder"][..])),
        prop::option::of(prop::collection::vec(
            select(&["dedicated", "gpu"][..]).prop_map(|k| json!({"key": k, "operator": "Exists"})),
            0..=2,
        )),
    )
        .prop_map(|(containers, init, volumes, node_selector, pull_secrets, account, tolerations)| {
            let mut spec = json!({"containers": containers, "nodeSelector": node_selector});
            set_nonempty(&mut spec, "initContainers", init);
            set_nonempty(&mut spec, "volumes", volumes);
            let pull: Vec<Value> = pull_secrets.into_iter().map(|n| json!({"name": n})).collect();
            set_nonempty(&mut spec, "imagePullSecrets", pull);
            if let Some(account) = account {
                spec["serviceAccountName"] = json!(account);
            }
            if let Some(tolerations) = tolerations {
                spec["tolerations"] = json!(tolerations);
            }
            spec
        })
}

fn metadata() -> impl Strategy<Value = Value> {
    (
        string_map(&["app", "tier", "team"], &["web", "db", "x"]),
        string_map(&["note", "owner"], &["a", "b"]),
        // Sorted, as the round trip of primitive sets assumes.
        distinct(&["example.com/a", "example.com/b", "kubernetes"][..], 3),
    )
        .prop_map(|(labels, annotations, finalizers)| {
            let mut m = json!({"name": "obj", "namespace": "default", "labels": labels, "annotations": annotations});
            set_nonempty(&mut m, "finalizers", finalizers.into_iter().map(Value::from).collect());
            m
        })
}

fn deployment() -> impl Strategy<Value = Deployment> {
    let strategy = prop_oneof![
        Just(json!({"type": "Recreate"})),
        (select(&["25%", "1"][..]), 0..3)
            .prop_map(|(surge, unavailable)| json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}})),
    ];
    (metadata(), prop::option::of(0..5), prop::option::of(strategy), metadata(), pod_spec()).prop_map(
        |(metadata, replicas, strategy, template_meta, spec)| {
            let mut d = json!({
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": metadata,
                "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": template_meta, "spec": spec}},
            });
            if let Some(r) = replicas {
                d["spec"]["replicas"] = json!(r);
            }
            if let Some(s) = strategy {
                d["spec"]["strategy"] = s;
            }
            typed(d)
        },
    )
}

fn pod() -> impl Strategy<Value = Pod> {
    (metadata(), pod_spec()).prop_map(|(metadata, spec)| {
        typed(json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}))
    })
}

/// A custom resource whose spec embeds a pod template, as operators do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct BatchPool {
    api_version: String,
    kind: String,
    metadata: ObjectMeta,
    spec: BatchPoolSpec,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct BatchPoolSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    workers: Option<i32>,
    #[patch(strategy = "merge")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    queues: Vec<String>,
    template: PodTemplateSpec,
}

fn batch_pool() -> impl Strategy<Value = BatchPool> {
    (metadata(), prop::option::of(1..4), distinct(&["bulk", "fast", "slow"][..], 3), metadata(), pod_spec()).prop_map(
        |(metadata, workers, queues, template_meta, spec)| {
            typed(json!({
                "apiVersion": "example.com/v1",
                "kind": "BatchPool",
                "metadata": metadata,
                "spec": {"workers": workers, "queues": queues, "template": {"metadata": template_meta, "spec": spec}},
            }))
        },
    )
}

fn typed<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("generated an invalid object ({e}): {v}"))
}

fn with(v: &mut Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v.take()
}

fn set_nonempty(v: &mut Value, key: &str, items: Vec<Value>) {
    if !items.is_empty() {
        v[key] = Value::Array(items);
    }
}

// ---------------------------------------------------------------------------
// Properties

fn ok<T>(what: &str, r: smp_core::Result<T>) -> Result<T, TestCaseError> {
    r.map_err(|e| TestCaseError::fail(format!("{what}: {e}")))
}

fn json_of<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("k8s-openapi values serialise")
}

fn schema<T: StrategicMerge>() -> Schema<'static> {
    Schema::Static(T::shape())
}

fn round_trip<T>(a: T, b: T) -> Result<(), TestCaseError>
where
    T: StrategicMerge + DeserializeOwned + PartialEq + Debug,
{
    let (a_json, b_json) = (json_of(&a), json_of(&b));
    let patch = ok("typed diff", a.diff(&b))?;
    let engine_patch = ok("JSON diff", smp_core::diff(&a_json, &b_json, schema::<T>()))?;
    prop_assert_eq!(&patch, &engine_patch, "typed diff vs JSON engine diff");
    prop_assert_eq!(ok("typed apply", a.apply(&patch))?, b, "typed apply(a, diff(a, b)) != b; patch {}", patch);
    let applied = ok("JSON apply", smp_core::apply(&a_json, &patch, schema::<T>()))?;
    prop_assert_eq!(applied, b_json, "JSON apply(a, diff(a, b)) != b; patch {}", patch);
    Ok(())
}

/// `last` was applied, then the live object gained a label nobody else
/// mentions; re-applying `desired` keeps that label and gives `desired`
/// everywhere else.
fn three_way<T>(last: T, desired: T) -> Result<(), TestCaseError>
where
    T: StrategicMerge + DeserializeOwned + PartialEq + Debug,
{
    let mut live_json = json_of(&last);
    live_json["metadata"]["labels"]["added-by-server"] = json!("yes");
    let live: T = typed(live_json.clone());
    let options = ThreeWayOptions { overwrite: false, ..Default::default() };
    let patch = ok("typed three-way", live.three_way(&last, &desired, options))?;
    let engine_patch = ok(
        "JSON three-way",
        smp_core::three_way(&json_of(&last), &json_of(&desired), &live_json, schema::<T>(), options),
    )?;
    prop_assert_eq!(&patch, &engine_patch, "typed three-way vs JSON engine three-way");

    let mut want = json_of(&desired);
    want["metadata"]["labels"]["added-by-server"] = json!("yes");
    let got = json_of(&ok("typed apply of the three-way patch", live.apply(&patch))?);
    prop_assert_eq!(got, want, "three-way patch {}", patch);
    Ok(())
}

fn config() -> Config {
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { Config::default().cases } else { 256 };
    Config { cases, failure_persistence: None, ..Config::default() }
}

fn check<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: Debug,
{
    let config = config();
    let cases = config.cases;
    let mut runner = TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, test) {
        panic!("property {name} failed: {e}");
    }
    println!("property {name}: {cases} cases passed");
}

#[test]
fn deployment_round_trip() {
    check("deployment round trip", (deployment(), deployment()), |(a, b)| round_trip(a, b));
}

#[test]
fn pod_round_trip() {
    check("pod round trip", (pod(), pod()), |(a, b)| round_trip(a, b));
}

#[test]
fn deployment_three_way_keeps_live_additions() {
    check("deployment three-way", (deployment(), deployment()), |(a, b)| three_way(a, b));
}

#[test]
fn pod_three_way_keeps_live_additions() {
    check("pod three-way", (pod(), pod()), |(a, b)| three_way(a, b));
}

#[test]
fn custom_resource_round_trip() {
    check("custom resource round trip", (batch_pool(), batch_pool()), |(a, b)| round_trip(a, b));
}

#[test]
fn custom_resource_three_way_keeps_live_additions() {
    check("custom resource three-way", (batch_pool(), batch_pool()), |(a, b)| three_way(a, b));
}

/// The embedded template has the API server's patch metadata: containers
/// merge by name, env vars by name, volumes by name with `$retainKeys`.
#[test]
fn custom_resource_patch_of_the_embedded_template() {
    let live: BatchPool = typed(json!({
        "apiVersion": "example.com/v1",
        "kind": "BatchPool",
        "metadata": {"name": "pool"},
        "spec": {"queues": ["bulk"], "template": {"spec": {
            "containers": [
                {"name": "run", "image": "run:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
                {"name": "log", "image": "log:1"},
            ],
            "volumes": [{"name": "scratch", "emptyDir": {}}],
        }}},
    }));
    let mut desired = json_of(&live);
    desired["spec"]["template"]["spec"]["containers"][0]["env"][1]["value"] = json!("3");
    desired["spec"]["template"]["spec"]["volumes"][0] = json!({"name": "scratch", "configMap": {"name": "cfg"}});
    desired["spec"]["queues"] = json!(["bulk", "fast"]);
    let desired: BatchPool = typed(desired);

    let patch = live.diff(&desired).unwrap();
    assert_eq!(
        patch,
        json!({"spec": {
            "$setElementOrder/queues": ["bulk", "fast"],
            "queues": ["fast"],
            "template": {"spec": {
                "$setElementOrder/containers": [{"name": "run"}, {"name": "log"}],
                "$setElementOrder/volumes": [{"name": "scratch"}],
                "containers": [{"$setElementOrder/env": [{"name": "A"}, {"name": "B"}], "env": [{"name": "B", "value": "3"}], "name": "run"}],
                "volumes": [{"$retainKeys": ["configMap", "name"], "configMap": {"name": "cfg"}, "emptyDir": null, "name": "scratch"}],
            }},
        }})
    );
    assert_eq!(patch, smp_core::diff(&json_of(&live), &json_of(&desired), schema::<BatchPool>()).unwrap());
    assert_eq!(live.apply(&patch).unwrap(), desired);
}

/// The generators reach what they should: a test of the test.
#[test]
fn generated_objects_use_the_strategies() {
    let mut runner = TestRunner::deterministic();
    let mut seen = Map::new();
    for _ in 0..64 {
        let d = json_of(&deployment().new_tree(&mut runner).unwrap().current());
        let spec = &d["spec"]["template"]["spec"];
        for key in ["volumes", "initContainers", "imagePullSecrets"] {
            if spec.get(key).is_some() {
                seen.insert(key.to_string(), json!(true));
            }
        }
        if d["metadata"].get("finalizers").is_some() {
            seen.insert("finalizers".into(), json!(true));
        }
        if d["spec"]["strategy"].get("rollingUpdate").is_some() {
            seen.insert("rollingUpdate".into(), json!(true));
        }
    }
    assert_eq!(seen.len(), 5, "only {:?} generated", seen.keys().collect::<Vec<_>>());
}
