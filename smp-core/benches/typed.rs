//! The typed layer against the JSON engine on the same values.
//!
//! Each group holds the variants to compare, measured in the same run:
//!
//! - `diff_one_env`: typed diff of an app spec with one env value changed,
//!   against `PartialEq` on the same pair and against serialising both
//!   sides and running `smp_core::diff`;
//! - `diff_equal`: typed diff of two equal app specs, against `PartialEq`;
//! - `apply_small`: typed apply of a small patch (one label, one image, one
//!   env value), against serialise, `smp_core::apply`, deserialise; both as
//!   written by hand and as a diff computes it (with `$setElementOrder`);
//! - `keyed_list`: one list of N keyed elements, a patch touching every
//!   tenth: typed apply and diff against the JSON round trip, for N from 10
//!   to 100,000 (the counter gives the time per element).
//!
//! Run with `cargo bench -p smp-core --bench typed`; `DIVAN_SAMPLE_COUNT`
//! overrides the sample count.

mod json_route;

use divan::counter::ItemsCount;
use divan::{Bencher, black_box};
use json_route::{json_apply, json_diff, same_apply, same_diff};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use smp_core::StrategicMerge;
use std::collections::BTreeMap;

fn main() {
    divan::main();
}

// ---------------------------------------------------------------------------
// A realistic custom resource
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct AppSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    annotations: BTreeMap<String, String>,
    #[patch(strategy = "merge")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    finalizers: Vec<String>,
    template: PodTemplate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct PodTemplate {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    node_selector: BTreeMap<String, String>,
    #[patch(strategy = "merge", merge_key = "name")]
    containers: Vec<Container>,
    #[patch(strategy = "merge,retainKeys", merge_key = "name")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    volumes: Vec<Volume>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Container {
    name: String,
    image: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    args: Vec<String>,
    #[patch(strategy = "merge", merge_key = "name")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    env: Vec<EnvVar>,
    #[patch(strategy = "merge", merge_key = "containerPort")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ports: Vec<ContainerPort>,
    #[patch(strategy = "merge", merge_key = "mountPath")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    volume_mounts: Vec<VolumeMount>,
    #[serde(default)]
    resources: Resources,
    #[serde(skip_serializing_if = "Option::is_none")]
    liveness_probe: Option<Probe>,
    #[serde(skip_serializing_if = "Option::is_none")]
    readiness_probe: Option<Probe>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct EnvVar {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct ContainerPort {
    container_port: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct VolumeMount {
    mount_path: String,
    name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    read_only: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Resources {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    limits: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    requests: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Probe {
    #[serde(skip_serializing_if = "Option::is_none")]
    http_get: Option<HttpGet>,
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_delay_seconds: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    period_seconds: Option<i32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct HttpGet {
    path: String,
    port: i32,
}

/// A volume: its name, and a union of sources of which one is set (the
/// list's `retainKeys` drops the others when the source changes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Volume {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    config_map: Option<ConfigMapSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<SecretSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    empty_dir: Option<EmptyDir>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct ConfigMapSource {
    name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct SecretSource {
    secret_name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct EmptyDir {
    #[serde(skip_serializing_if = "Option::is_none")]
    size_limit: Option<String>,
}

fn strings(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn container(name: &str, port: i32) -> Container {
    let probe = |path: &str, delay| Probe {
        http_get: Some(HttpGet { path: path.into(), port }),
        initial_delay_seconds: Some(delay),
        period_seconds: Some(10),
    };
    Container {
        name: name.into(),
        image: format!("registry.example.com/{name}:1.4.2"),
        args: vec!["--config=/etc/app/config.yaml".into(), "--log-level=info".into()],
        env: (0..20)
            .map(|i| EnvVar {
                name: format!("{}_SETTING_{i:02}", name.to_uppercase()),
                value: Some(format!("value-{i}")),
            })
            .collect(),
        ports: vec![
            ContainerPort { container_port: port, name: Some("http".into()), protocol: Some("TCP".into()) },
            ContainerPort { container_port: port + 1000, name: Some("metrics".into()), protocol: Some("TCP".into()) },
        ],
        volume_mounts: vec![
            VolumeMount { mount_path: "/etc/app".into(), name: "config".into(), read_only: true },
            VolumeMount { mount_path: "/var/run/secrets/app".into(), name: "credentials".into(), read_only: true },
            VolumeMount { mount_path: "/tmp".into(), name: "scratch".into(), read_only: false },
        ],
        resources: Resources {
            limits: strings(&[("cpu", "500m"), ("memory", "512Mi")]),
            requests: strings(&[("cpu", "100m"), ("memory", "128Mi")]),
        },
        liveness_probe: Some(probe("/healthz", 15)),
        readiness_probe: Some(probe("/ready", 5)),
    }
}

/// About 5 KB of JSON: 3 containers × 20 env vars, ports, mounts, probes.
fn app() -> AppSpec {
    AppSpec {
        replicas: Some(3),
        labels: strings(&[("app", "shop"), ("tier", "backend"), ("team", "payments")]),
        annotations: strings(&[
            ("example.com/owner", "payments-team@example.com"),
            ("example.com/revision", "42"),
            ("example.com/managed-by", "shop-operator"),
        ]),
        finalizers: vec!["example.com/backup".into(), "example.com/cleanup".into()],
        template: PodTemplate {
            labels: strings(&[("app", "shop"), ("tier", "backend")]),
            service_account_name: Some("shop".into()),
            node_selector: strings(&[("kubernetes.io/os", "linux")]),
            containers: vec![container("api", 8080), container("worker", 8081), container("sidecar", 9090)],
            volumes: vec![
                Volume {
                    name: "config".into(),
                    config_map: Some(ConfigMapSource { name: "shop-config".into() }),
                    secret: None,
                    empty_dir: None,
                },
                Volume {
                    name: "credentials".into(),
                    config_map: None,
                    secret: Some(SecretSource { secret_name: "shop-credentials".into() }),
                    empty_dir: None,
                },
                Volume {
                    name: "scratch".into(),
                    config_map: None,
                    secret: None,
                    empty_dir: Some(EmptyDir { size_limit: Some("1Gi".into()) }),
                },
            ],
        },
    }
}

/// `app()` with one env value of the second container changed.
fn app_one_env_changed() -> AppSpec {
    let mut a = app();
    a.template.containers[1].env[7].value = Some("changed".into());
    a
}

/// `app()` with a new label, a new sidecar image and one env value changed.
fn app_small_change() -> AppSpec {
    let mut a = app();
    a.labels.insert("release".into(), "2024-06".into());
    a.template.containers[2].image = "registry.example.com/sidecar:1.5.0".into();
    a.template.containers[0].env[3].value = Some("changed".into());
    a
}

#[divan::bench_group(sample_count = 30)]
mod diff_one_env {
    use super::*;

    #[divan::bench]
    fn typed(bencher: Bencher) {
        let (old, new) = (app(), app_one_env_changed());
        same_diff(&old, &new);
        bencher.bench(|| black_box(&old).diff(black_box(&new)).unwrap());
    }

    #[divan::bench]
    fn partial_eq(bencher: Bencher) {
        let (old, new) = (app(), app_one_env_changed());
        bencher.bench(|| black_box(&old) == black_box(&new));
    }

    #[divan::bench]
    fn serialise_then_json_diff(bencher: Bencher) {
        let (old, new) = (app(), app_one_env_changed());
        bencher.bench(|| json_diff(black_box(&old), black_box(&new)));
    }
}

#[divan::bench_group(sample_count = 30)]
mod diff_equal {
    use super::*;

    #[divan::bench]
    fn typed(bencher: Bencher) {
        let (old, new) = (app(), app());
        assert_eq!(old.diff(&new).unwrap(), json!({}));
        bencher.bench(|| black_box(&old).diff(black_box(&new)).unwrap());
    }

    #[divan::bench]
    fn partial_eq(bencher: Bencher) {
        let (old, new) = (app(), app());
        bencher.bench(|| black_box(&old) == black_box(&new));
    }

    #[divan::bench]
    fn serialise_then_json_diff(bencher: Bencher) {
        let (old, new) = (app(), app());
        bencher.bench(|| json_diff(black_box(&old), black_box(&new)));
    }
}

#[divan::bench_group(sample_count = 30)]
mod apply_small {
    use super::*;

    /// As a person would write it: no `$setElementOrder`.
    fn hand_written() -> Value {
        json!({
            "labels": {"release": "2024-06"},
            "template": {"containers": [
                {"name": "api", "env": [{"name": "API_SETTING_03", "value": "changed"}]},
                {"name": "sidecar", "image": "registry.example.com/sidecar:1.5.0"}
            ]}
        })
    }

    #[divan::bench]
    fn typed(bencher: Bencher) {
        let (old, patch) = (app(), hand_written());
        same_apply(&old, &patch, &app_small_change());
        bencher.bench(|| black_box(&old).apply(black_box(&patch)).unwrap());
    }

    #[divan::bench]
    fn json_round_trip(bencher: Bencher) {
        let (old, patch) = (app(), hand_written());
        bencher.bench(|| json_apply(black_box(&old), black_box(&patch)));
    }

    /// The patch a diff computes, as kubectl sends it.
    #[divan::bench]
    fn typed_diff_output(bencher: Bencher) {
        let old = app();
        let patch = old.diff(&app_small_change()).unwrap();
        same_apply(&old, &patch, &app_small_change());
        bencher.bench(|| black_box(&old).apply(black_box(&patch)).unwrap());
    }

    #[divan::bench]
    fn json_round_trip_diff_output(bencher: Bencher) {
        let old = app();
        let patch = old.diff(&app_small_change()).unwrap();
        bencher.bench(|| json_apply(black_box(&old), black_box(&patch)));
    }
}

// ---------------------------------------------------------------------------
// A keyed list as it grows
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Inventory {
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Item {
    name: String,
    value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<i64>,
}

fn inventory(n: usize) -> Inventory {
    let items = (0..n)
        .map(|i| Item { name: format!("item-{i:06}"), value: format!("value-{i:06}"), weight: Some(i as i64) })
        .collect();
    Inventory { items }
}

/// Every tenth item with a new value.
fn inventory_touched(n: usize) -> Inventory {
    let mut inv = inventory(n);
    for item in inv.items.iter_mut().step_by(10) {
        item.value = format!("changed-{}", item.name);
    }
    inv
}

/// The patch that changes every tenth item, without `$setElementOrder`.
fn inventory_patch(n: usize) -> Value {
    let items: Vec<Value> =
        inventory_touched(n).items.into_iter().step_by(10).map(|i| json!({"name": i.name, "value": i.value})).collect();
    json!({ "items": items })
}

const SIZES: &[usize] = &[10, 100, 1_000, 10_000, 100_000];

#[divan::bench_group(sample_count = 30)]
mod keyed_list {
    use super::*;

    #[divan::bench(args = SIZES)]
    fn typed_apply(bencher: Bencher, n: usize) {
        let (old, patch) = (inventory(n), inventory_patch(n));
        if n <= 1_000 {
            same_apply(&old, &patch, &inventory_touched(n));
        }
        bencher.counter(ItemsCount::new(n)).bench(|| black_box(&old).apply(black_box(&patch)).unwrap());
    }

    #[divan::bench(args = SIZES)]
    fn json_apply(bencher: Bencher, n: usize) {
        let (old, patch) = (inventory(n), inventory_patch(n));
        bencher.counter(ItemsCount::new(n)).bench(|| super::json_apply(black_box(&old), black_box(&patch)));
    }

    /// The diff's own patch, with `$setElementOrder` listing all N items.
    #[divan::bench(args = SIZES)]
    fn typed_apply_diff_output(bencher: Bencher, n: usize) {
        let old = inventory(n);
        let patch = old.diff(&inventory_touched(n)).unwrap();
        bencher.counter(ItemsCount::new(n)).bench(|| black_box(&old).apply(black_box(&patch)).unwrap());
    }

    #[divan::bench(args = SIZES)]
    fn typed_diff(bencher: Bencher, n: usize) {
        let (old, new) = (inventory(n), inventory_touched(n));
        if n <= 1_000 {
            same_diff(&old, &new);
        }
        bencher.counter(ItemsCount::new(n)).bench(|| black_box(&old).diff(black_box(&new)).unwrap());
    }

    #[divan::bench(args = SIZES)]
    fn json_diff(bencher: Bencher, n: usize) {
        let (old, new) = (inventory(n), inventory_touched(n));
        bencher.counter(ItemsCount::new(n)).bench(|| super::json_diff(black_box(&old), black_box(&new)));
    }
}
