//! The walker writes and reads k8s-openapi values as their serde code
//! does: the typed walk turns a value into JSON and back through its field
//! table (`Walk::__json`, `Walk::__from_json`), not through serde's code
//! for `serde_json::Value`, so both must give the same value, the same
//! JSON and the same error for every input.
//!
//! Each fixture below is read whole, then with every node in it changed in
//! each of the ways in [`MUTATIONS`] (a null, a whole float, a value of
//! another type, a key removed or added, a wrong `apiVersion`...), and the
//! two readers are compared on each.

use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret, Service};
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use smp_core::typed::__private::Walk;
use smp_core::{ErrorKind, StrategicMerge};
use std::fmt::Debug;

fn deployment() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"},
                     "annotations": {"a": "1"}, "generation": 3, "finalizers": ["x"],
                     "creationTimestamp": "2024-01-02T03:04:05Z",
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "n", "uid": "u", "controller": true}]},
        "spec": {
            "replicas": 3, "revisionHistoryLimit": 5,
            "selector": {"matchLabels": {"app": "web"},
                         "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]}]},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [{
                        "name": "app", "image": "nginx:1", "args": ["-v"],
                        "env": [{"name": "A", "value": "1"},
                                {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
                        "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}],
                        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "100m"}},
                        "livenessProbe": {"httpGet": {"path": "/", "port": 80}, "periodSeconds": 10},
                        "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": true}],
                        "securityContext": {"runAsUser": 1000, "capabilities": {"add": ["NET_ADMIN"]}}
                    }],
                    "initContainers": [{"name": "init", "image": "busybox", "command": ["true"]}],
                    "volumes": [{"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
                                {"name": "cfg", "configMap": {"name": "cfg", "defaultMode": 420}}],
                    "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 30}],
                    "nodeSelector": {"disk": "ssd"},
                    "terminationGracePeriodSeconds": 30,
                    "hostNetwork": false
                }
            }
        },
        "status": {"replicas": 3, "readyReplicas": 2, "observedGeneration": 3,
                   "conditions": [{"type": "Available", "status": "True",
                                   "lastUpdateTime": "2024-01-02T03:04:05Z", "reason": "MinimumReplicasAvailable"}]}
    })
}

fn stateful_set() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "serviceName": "db", "replicas": 1,
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}},
                         "spec": {"containers": [{"name": "db", "image": "pg"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"},
                                      "spec": {"accessModes": ["ReadWriteOnce"],
                                               "resources": {"requests": {"storage": "1Gi"}}}}],
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain"}
        }
    })
}

fn service() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"type": "ClusterIP", "selector": {"app": "web"}, "clusterIPs": ["10.0.0.1"],
                 "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"},
                           {"name": "https", "port": 443, "targetPort": 8443}],
                 "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}},
        "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4", "ports": [{"port": 80, "protocol": "TCP"}]}]}}
    })
}

fn config_map() -> Value {
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
        "data": {"a": "1", "b": "two"},
        "binaryData": {"bin": "aGVsbG8="},
        "immutable": false
    })
}

fn secret() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "s"}, "type": "Opaque",
        "data": {"password": "cGFzcw=="}, "stringData": {"user": "me"}
    })
}

fn pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "deletionGracePeriodSeconds": 30},
        "spec": {"containers": [{"name": "c", "image": "i",
                                 "readinessProbe": {"exec": {"command": ["true"]}, "failureThreshold": 3}}],
                 "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                     "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]}]}}},
                 "overhead": {"cpu": "10m"}},
        "status": {"phase": "Running", "podIP": "10.1.1.1", "startTime": "2024-01-02T03:04:05Z",
                   "containerStatuses": [{"name": "c", "image": "i", "imageID": "sha", "ready": true,
                                          "restartCount": 0, "state": {"running": {"startedAt": "2024-01-02T03:04:05Z"}}}]}
    })
}

fn custom_resource_definition() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "things", "kind": "Thing", "shortNames": ["th"]},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                              "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                                       "properties": {"size": {"type": "integer", "minimum": 1, "default": 3}}}}}}}]
        }
    })
}

fn event() -> Value {
    json!({
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "e"},
        "eventTime": "2024-01-02T03:04:05.123456Z",
        "series": {"count": 2, "lastObservedTime": "2024-01-02T03:04:05.123456Z"},
        "reason": "Started", "type": "Normal", "regarding": {"kind": "Pod", "name": "p"}
    })
}

fn pod_disruption_budget() -> Value {
    json!({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "pdb"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"currentHealthy": 1, "desiredHealthy": 1, "disruptionsAllowed": 0, "expectedPods": 1,
                   "conditions": [{"type": "DisruptionAllowed", "status": "False", "reason": "r", "message": "m",
                                   "lastTransitionTime": "2024-01-02T03:04:05Z"}]}
    })
}

/// What a mutation puts at a node (`None`: removes it from its object).
const MUTATIONS: &[fn() -> Option<Value>] = &[
    || None,
    || Some(Value::Null),
    || Some(json!(5.0)),
    || Some(json!(2.5)),
    || Some(json!(-3)),
    || Some(json!(1e30)),
    || Some(json!("x")),
    || Some(json!(true)),
    || Some(json!([])),
    || Some(json!([{"name": "n"}])),
    || Some(json!({})),
    || Some(json!({"name": "n", "unknown": 1})),
];

/// Every node of `v`, as the keys and indices that lead to it.
fn paths(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                at.push(Step::Key(k.clone()));
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                at.push(Step::Index(i));
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// `v` with the node at `path` replaced by `new` (or removed).
fn mutated(v: &Value, path: &[Step], new: Option<Value>) -> Value {
    let mut out = v.clone();
    let Some((last, parents)) = path.split_last() else { return new.unwrap_or(Value::Null) };
    let mut node = &mut out;
    for step in parents {
        node = match step {
            Step::Key(k) => &mut node[k.as_str()],
            Step::Index(i) => &mut node[*i],
        };
    }
    match (last, node, new) {
        (Step::Key(k), Value::Object(m), Some(new)) => {
            m.insert(k.clone(), new);
        }
        (Step::Key(k), Value::Object(m), None) => {
            m.remove(k);
        }
        (Step::Index(i), Value::Array(a), Some(new)) => a[*i] = new,
        (Step::Index(i), Value::Array(a), None) => {
            a.remove(*i);
        }
        _ => unreachable!("paths lead to nodes"),
    }
    out
}

/// The two readers on one input: the same value and JSON, or the same
/// error; true when both read a value.
fn compare<T>(v: &Value) -> Result<bool, String>
where
    T: StrategicMerge + DeserializeOwned + Serialize + PartialEq + Debug,
{
    let ours = <T as Walk>::__from_json(v);
    let serde = T::deserialize(v);
    match (ours, serde) {
        (Ok(a), Ok(b)) => {
            if a != b {
                return Err(format!("read {a:?}, serde read {b:?}"));
            }
            let (ours, serde) = (a.__json().map_err(|e| e.to_string())?, serde_json::to_value(&b).unwrap());
            if ours != serde {
                return Err(format!("wrote {ours}, serde wrote {serde}"));
            }
            Ok(true)
        }
        (Err(a), Err(b)) => match &a.kind {
            ErrorKind::Deserialize(m) if *m == b.to_string() && a.path.segments().is_empty() => Ok(false),
            _ => Err(format!("error {a:?}, serde's: {b}")),
        },
        (Ok(a), Err(b)) => Err(format!("read {a:?}, serde refused: {b}")),
        (Err(a), Ok(_)) => Err(format!("refused ({a}), serde read it")),
    }
}

/// Compares the readers on `fixture` and every mutation of it; returns how
/// many inputs both read, and how many both refused.
fn compare_all<T>(fixture: Value) -> [usize; 2]
where
    T: StrategicMerge + DeserializeOwned + Serialize + PartialEq + Debug,
{
    compare::<T>(&fixture).unwrap_or_else(|e| panic!("the fixture itself: {e}"));
    let mut all = Vec::new();
    paths(&fixture, &mut Vec::new(), &mut all);
    let mut failures = Vec::new();
    let mut counts = [1, 0];
    for path in &all {
        for mutation in MUTATIONS {
            let v = mutated(&fixture, path, mutation());
            match compare::<T>(&v) {
                Ok(read) => counts[usize::from(!read)] += 1,
                Err(e) => failures
                    .push(format!("{path:?} -> {}: {e}", mutation().map_or("removed".into(), |m| m.to_string()))),
            }
        }
    }
    assert!(failures.is_empty(), "{} inputs differ:\n{}", failures.len(), failures.join("\n"));
    counts
}

#[test]
fn the_walker_reads_and_writes_as_serde_does() {
    let counts = [
        compare_all::<Deployment>(deployment()),
        compare_all::<StatefulSet>(stateful_set()),
        compare_all::<Service>(service()),
        compare_all::<ConfigMap>(config_map()),
        compare_all::<Secret>(secret()),
        compare_all::<Pod>(pod()),
        compare_all::<CustomResourceDefinition>(custom_resource_definition()),
        compare_all::<Event>(event()),
        compare_all::<PodDisruptionBudget>(pod_disruption_budget()),
    ];
    let [read, refused] = counts.iter().fold([0, 0], |[r, f], [r2, f2]| [r + r2, f + f2]);
    // Every node of every fixture, in each way: many are read, many refused.
    assert!(read > 1_000 && refused > 1_000, "{read} inputs read and {refused} refused");
}

#[test]
fn a_wrong_api_version_or_kind_is_refused_as_serde_refuses_it() {
    for (key, value) in [("apiVersion", json!("apps/v2")), ("kind", json!("Pod")), ("kind", json!(1))] {
        let mut v = deployment();
        v[key] = value;
        assert_eq!(compare::<Deployment>(&v), Ok(false), "{key}");
    }
}
