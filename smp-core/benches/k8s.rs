//! Typed strategic merge patches on a k8s-openapi `Deployment` against the
//! route that serialises both sides and runs the JSON engine.
//!
//! The Deployment is a realistic one: three containers with twenty env vars
//! each, ports, probes, resources and volume mounts, and five volumes.
//!
//! - `diff_one_env`: one env value changed in one container, against
//!   `PartialEq` on the same pair and against copying the patch it returns;
//! - `diff_equal`: two equal objects, against `PartialEq`;
//! - `apply_diff_output`: apply the patch a diff computes (with
//!   `$setElementOrder`, as kubectl sends it), against copying the object;
//! - `apply_image_bump`: apply a hand-written patch that changes one image.
//!
//! k8s-openapi needs a Kubernetes version chosen by the build:
//! `cargo bench -p smp-core --features k8s-openapi,k8s-openapi/latest --bench k8s`.

mod json_route;

use divan::{Bencher, black_box};
use json_route::{json_apply, json_diff, same_apply, same_diff};
use k8s_openapi::api::apps::v1::Deployment;
use serde_json::{Value, json};
use smp_core::StrategicMerge;

fn main() {
    divan::main();
}

fn env(container: &str) -> Value {
    (0..20).map(|i| json!({"name": format!("{container}_SETTING_{i:02}"), "value": format!("value-{i}")})).collect()
}

fn container(name: &str, image: &str, port: u16) -> Value {
    let probe = json!({"httpGet": {"path": "/healthz", "port": port}, "periodSeconds": 10, "timeoutSeconds": 2});
    json!({
        "name": name,
        "image": image,
        "args": ["--listen", format!(":{port}"), "--log-level=info"],
        "env": env(&name.to_uppercase()),
        "ports": [
            {"name": "http", "containerPort": port, "protocol": "TCP"},
            {"name": "metrics", "containerPort": port + 1000, "protocol": "TCP"},
        ],
        "livenessProbe": probe,
        "readinessProbe": probe,
        "resources": {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "250m", "memory": "256Mi"}},
        "volumeMounts": [
            {"name": "config", "mountPath": "/etc/app"},
            {"name": "data", "mountPath": "/var/lib/app"},
            {"name": "tmp", "mountPath": "/tmp"},
        ],
    })
}

fn deployment_json() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "shop",
            "namespace": "prod",
            "labels": {"app": "shop", "tier": "web", "team": "payments"},
            "annotations": {"deployment.kubernetes.io/revision": "12"},
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "shop"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            "template": {
                "metadata": {"labels": {"app": "shop", "tier": "web"}},
                "spec": {
                    "serviceAccountName": "shop",
                    "containers": [
                        container("api", "registry.example.com/shop/api:2.4.1", 8080),
                        container("worker", "registry.example.com/shop/worker:2.4.1", 8081),
                        container("proxy", "registry.example.com/envoy:1.30", 8082),
                    ],
                    "volumes": [
                        {"name": "config", "configMap": {"name": "shop-config"}},
                        {"name": "data", "persistentVolumeClaim": {"claimName": "shop-data"}},
                        {"name": "tmp", "emptyDir": {}},
                        {"name": "certs", "secret": {"secretName": "shop-tls"}},
                        {"name": "cache", "emptyDir": {"medium": "Memory"}},
                    ],
                    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}],
                    "nodeSelector": {"pool": "web"},
                },
            },
        },
    })
}

fn deployment() -> Deployment {
    serde_json::from_value(deployment_json()).expect("a valid Deployment")
}

/// The Deployment with one env value of the worker changed.
fn one_env_changed() -> Deployment {
    let mut v = deployment_json();
    v["spec"]["template"]["spec"]["containers"][1]["env"][7]["value"] = json!("changed");
    serde_json::from_value(v).expect("a valid Deployment")
}

#[divan::bench_group(sample_count = 50)]
mod diff_one_env {
    use super::*;

    #[divan::bench]
    fn typed(bencher: Bencher) {
        let (old, new) = (deployment(), one_env_changed());
        same_diff(&old, &new);
        bencher.bench(|| black_box(&old).diff(black_box(&new)).unwrap());
    }

    #[divan::bench]
    fn partial_eq(bencher: Bencher) {
        let (old, new) = (deployment(), one_env_changed());
        bencher.bench(|| black_box(&old) == black_box(&new));
    }

    #[divan::bench]
    fn serialise_then_json_diff(bencher: Bencher) {
        let (old, new) = (deployment(), one_env_changed());
        bencher.bench(|| json_diff(black_box(&old), black_box(&new)));
    }

    /// Copying the patch the diff returns: the floor of any diff that
    /// builds it as a `serde_json::Value`.
    #[divan::bench]
    fn patch_clone(bencher: Bencher) {
        let patch = deployment().diff(&one_env_changed()).unwrap();
        bencher.bench(|| black_box(&patch).clone());
    }
}

#[divan::bench_group(sample_count = 50)]
mod diff_equal {
    use super::*;

    #[divan::bench]
    fn typed(bencher: Bencher) {
        let (old, new) = (deployment(), deployment());
        assert_eq!(old.diff(&new).unwrap(), json!({}));
        bencher.bench(|| black_box(&old).diff(black_box(&new)).unwrap());
    }

    #[divan::bench]
    fn partial_eq(bencher: Bencher) {
        let (old, new) = (deployment(), deployment());
        bencher.bench(|| black_box(&old) == black_box(&new));
    }

    #[divan::bench]
    fn serialise_then_json_diff(bencher: Bencher) {
        let (old, new) = (deployment(), deployment());
        bencher.bench(|| json_diff(black_box(&old), black_box(&new)));
    }
}

#[divan::bench_group(sample_count = 50)]
mod apply_diff_output {
    use super::*;

    #[divan::bench]
    fn typed(bencher: Bencher) {
        let (old, new) = (deployment(), one_env_changed());
        let patch = old.diff(&new).unwrap();
        same_apply(&old, &patch, &new);
        bencher.bench(|| black_box(&old).apply(black_box(&patch)).unwrap());
    }

    #[divan::bench]
    fn serialise_then_json_apply(bencher: Bencher) {
        let (old, new) = (deployment(), one_env_changed());
        let patch = old.diff(&new).unwrap();
        bencher.bench(|| json_apply(black_box(&old), black_box(&patch)));
    }

    /// Copying the object: the floor of an apply that returns a new one.
    #[divan::bench]
    fn clone(bencher: Bencher) {
        let old = deployment();
        bencher.bench(|| black_box(&old).clone());
    }
}

#[divan::bench_group(sample_count = 50)]
mod apply_image_bump {
    use super::*;

    fn patch() -> Value {
        json!({"spec": {"template": {"spec": {"containers": [
            {"name": "api", "image": "registry.example.com/shop/api:2.5.0"}
        ]}}}})
    }

    fn bumped() -> Deployment {
        let mut v = deployment_json();
        v["spec"]["template"]["spec"]["containers"][0]["image"] = json!("registry.example.com/shop/api:2.5.0");
        serde_json::from_value(v).unwrap()
    }

    #[divan::bench]
    fn typed(bencher: Bencher) {
        let (old, patch) = (deployment(), patch());
        same_apply(&old, &patch, &bumped());
        bencher.bench(|| black_box(&old).apply(black_box(&patch)).unwrap());
    }

    #[divan::bench]
    fn typed_in_place(bencher: Bencher) {
        let (old, patch) = (deployment(), patch());
        bencher.with_inputs(|| old.clone()).bench_local_refs(|d| d.apply_in_place(black_box(&patch)).unwrap());
    }

    #[divan::bench]
    fn serialise_then_json_apply(bencher: Bencher) {
        let (old, patch) = (deployment(), patch());
        bencher.bench(|| json_apply(black_box(&old), black_box(&patch)));
    }
}
