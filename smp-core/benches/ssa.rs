//! Server-side apply:
//!
//! - `deployment_three_managers`: an apply of a realistic Deployment
//!   configuration (a new image) to a live Deployment that three managers
//!   own parts of (the applier, a forced `replicas` applier, and an
//!   `Update` manager that wrote an annotation and a label);
//! - `env_list`: the same apply where the container's `env` (a list of type
//!   `map`) holds N elements, for N and 10N (linear growth expected).
//!
//! Run with `cargo bench -p smp-core --bench ssa`; `DIVAN_SAMPLE_COUNT`
//! overrides the sample count.

use divan::{Bencher, black_box};
use serde_json::{Value, json};
use smp_core::ssa::{self, Resource, Schema};

fn main() {
    divan::main();
}

fn schema() -> Schema {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ssa/deployment.openapi.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    Schema::from_openapi_v3(&doc).unwrap()
}

fn config(image: &str, env: usize) -> Value {
    let env: Vec<Value> = (0..env).map(|i| json!({"name": format!("VAR_{i:05}"), "value": format!("v{i}")})).collect();
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "prod", "labels": {"app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop"}},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "web"}, "annotations": {"prometheus.io/scrape": "true"}},
                "spec": {
                    "serviceAccountName": "web",
                    "securityContext": {"runAsNonRoot": true, "fsGroup": 2000},
                    "containers": [{
                        "name": "web", "image": image, "imagePullPolicy": "IfNotPresent",
                        "args": ["--port=8080", "--log-level=info"],
                        "ports": [{"name": "http", "containerPort": 8080}, {"name": "metrics", "containerPort": 9090}],
                        "env": env,
                        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                        "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": 5},
                        "volumeMounts": [{"name": "config", "mountPath": "/etc/web"}]
                    }, {
                        "name": "proxy", "image": "envoy:1.30",
                        "ports": [{"containerPort": 15001}]
                    }],
                    "volumes": [{"name": "config", "configMap": {"name": "web-config"}}],
                    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}]
                }
            }
        }
    })
}

/// The live object: applied by `helm`, scaled by `hpa` (forced), annotated
/// by `kubectl-annotate` (an update).
fn live(res: &Resource, env: usize) -> Value {
    let t = "2030-01-01T00:00:00Z";
    let o = ssa::apply(res, None, &config("web:1.0", env), "helm", false, t).unwrap();
    let scale = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "prod"}, "spec": {"replicas": 5}});
    let o = ssa::apply(res, Some(&o), &scale, "hpa", true, t).unwrap();
    let mut n = o.clone();
    n["metadata"]["annotations"] = json!({"owner": "team-shop"});
    n["metadata"]["labels"]["tier"] = json!("frontend");
    ssa::update(res, Some(&o), &n, "kubectl-annotate", t).unwrap()
}

#[divan::bench]
fn deployment_three_managers(bencher: Bencher) {
    let s = schema();
    let res = Resource::for_definition(&s, "io.k8s.api.apps.v1.Deployment", None).unwrap();
    let live = live(&res, 8);
    let cfg = config("web:1.1", 8);
    bencher.bench(|| {
        ssa::apply(&res, Some(black_box(&live)), black_box(&cfg), "helm", false, "2030-01-02T00:00:00Z").unwrap()
    });
}

#[divan::bench(args = [100, 1_000])]
fn env_list(bencher: Bencher, n: usize) {
    let s = schema();
    let res = Resource::for_definition(&s, "io.k8s.api.apps.v1.Deployment", None).unwrap();
    let live = live(&res, n);
    let cfg = config("web:1.1", n);
    bencher.bench(|| {
        ssa::apply(&res, Some(black_box(&live)), black_box(&cfg), "helm", false, "2030-01-02T00:00:00Z").unwrap()
    });
}
