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
use serde_json::{Value, json};

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

#[path = "../common/readers.rs"]
mod common;
use common::{compare, compare_all};

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
