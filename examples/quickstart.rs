//! The three operations on a typed custom resource spec: the two-way patch
//! between what is live and what is wanted, applying a patch, and the
//! three-way patch of `kubectl apply`.
//!
//! The patches are strategic merge patches: the format kubectl and the API
//! server use for built-in kinds (send those with kube's `Patch::Strategic`),
//! and the way to merge partial specs client-side. The API server refuses a
//! strategic merge patch on a custom resource (415 Unsupported Media Type):
//! for those, send a JSON merge patch (kube's `Patch::Merge`).
//!
//! Run with `cargo run --example quickstart`.

use serde::{Deserialize, Serialize};
use smp_core::{StrategicMerge, ThreeWayOptions};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct BackendSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    replicas: Option<i32>,
    /// Workers are merged by name: a patch names the ones it changes.
    #[patch(strategy = "merge", merge_key = "name")]
    workers: Vec<Worker>,
    /// A set: a patch adds or removes single entries.
    #[patch(strategy = "merge")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    finalizers: Vec<String>,
    /// A union: exactly one of its fields is set.
    #[patch(strategy = "retainKeys")]
    #[serde(skip_serializing_if = "Option::is_none")]
    storage: Option<Storage>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Worker {
    name: String,
    image: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    threads: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Storage {
    #[serde(skip_serializing_if = "Option::is_none")]
    empty_dir: Option<EmptyDir>,
    #[serde(skip_serializing_if = "Option::is_none")]
    volume_claim: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct EmptyDir {
    #[serde(skip_serializing_if = "Option::is_none")]
    medium: Option<String>,
}

fn worker(name: &str, image: &str) -> Worker {
    Worker { name: name.into(), image: image.into(), threads: None }
}

fn main() -> Result<(), smp_core::Error> {
    let live = BackendSpec {
        replicas: Some(2),
        workers: vec![worker("api", "api:1.0"), worker("jobs", "jobs:1.0")],
        finalizers: vec!["example.com/cleanup".into()],
        storage: Some(Storage { empty_dir: Some(EmptyDir { medium: None }), volume_claim: None }),
        labels: BTreeMap::from([("app".into(), "backend".into())]),
    };

    // What an operator wants: more replicas, a new image, one worker fewer,
    // a claim instead of an emptyDir.
    let mut desired = live.clone();
    desired.replicas = Some(3);
    desired.workers = vec![worker("api", "api:1.1"), worker("mail", "mail:1.0")];
    desired.storage = Some(Storage { empty_dir: None, volume_claim: Some("data".into()) });

    let patch = live.diff(&desired)?;
    println!("two-way strategic merge patch (custom resources: send a JSON merge patch instead):");
    println!("{}", serde_json::to_string_pretty(&patch).expect("JSON"));
    assert_eq!(live.apply(&patch)?, desired);

    // kubectl apply: the last applied configuration, the new one, and a live
    // object that the server (or someone else) changed in between.
    let last_applied = live.clone();
    let mut live_now = live.clone();
    live_now.labels.insert("injected-by".into(), "admission".into());
    let patch = live_now.three_way(&last_applied, &desired, ThreeWayOptions::default())?;
    println!("\nthree-way patch (keeps the label nobody applied):");
    println!("{}", serde_json::to_string_pretty(&patch).expect("JSON"));
    let result = live_now.apply(&patch)?;
    assert_eq!(result.labels.get("injected-by").map(String::as_str), Some("admission"));
    assert_eq!(result.workers, desired.workers);
    Ok(())
}
