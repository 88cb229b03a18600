//! Case lines for the `smp --jsonl` batch mode: the Pod scaling series
//! (`pod-env<N>.<op>` of the shared bench cases, at any size), the shipped
//! bench cases, and random cases of [`crate::Gen`].
//!
//! A line holds the inputs of one case (`original`, `patch` / `modified`,
//! `current`, `overwrite`), as `smp apply|diff|three-way --jsonl` reads it.

use crate::Gen;
use crate::rng::Rng;
use serde_json::{Map, Value, json};

/// The operations of the bench cases, as their `op` field names them, with
/// the `smp` command that runs each.
pub const OPS: [(&str, &str); 3] = [("apply", "apply"), ("twoway", "diff"), ("threeway", "three-way")];

/// The inputs a case of `op` carries, in the order `smp` takes them.
pub fn inputs(op: &str) -> &'static [&'static str] {
    match op {
        "apply" => &["original", "patch"],
        "twoway" => &["original", "modified"],
        "threeway" => &["original", "modified", "current"],
        other => panic!("unknown op {other:?}"),
    }
}

/// A Pod whose one container has `n` env vars, with every tenth value
/// changed when `changed`.
pub fn pod(n: usize, changed: bool) -> Value {
    let env: Vec<Value> = (0..n)
        .map(|i| {
            let value = if changed && i % 10 == 0 { format!("changed-{i:06}") } else { format!("value-{i:06}") };
            json!({"name": format!("ENV_{i:06}"), "value": value})
        })
        .collect();
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": format!("scale-{n}"), "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "busybox:1.36", "env": env}]}
    })
}

/// The case `pod-env<n>.<variant>` as the shipped files hold it (without
/// `description` and `expected`). Variants: `apply` (every tenth env var
/// changed by a plain patch), `apply-ordered` (the same with
/// `$setElementOrder`, as kubectl sends it: `diff` computes it), `twoway`,
/// `threeway`, and `apply-label` (a patch that only adds a label).
pub fn pod_env_case(n: usize, variant: &str, diff: impl FnOnce(&Value, &Value) -> Value) -> Value {
    let (original, modified) = (pod(n, false), pod(n, true));
    let mut case = Map::new();
    case.insert("kind".into(), json!("Pod"));
    match variant {
        "apply" => {
            let env: Vec<Value> =
                modified["spec"]["containers"][0]["env"].as_array().unwrap().iter().step_by(10).cloned().collect();
            case.insert("op".into(), json!("apply"));
            case.insert("patch".into(), json!({"spec": {"containers": [{"name": "app", "env": env}]}}));
        }
        "apply-ordered" => {
            case.insert("op".into(), json!("apply"));
            case.insert("patch".into(), diff(&original, &modified));
        }
        "apply-label" => {
            case.insert("op".into(), json!("apply"));
            case.insert("patch".into(), json!({"metadata": {"labels": {"tier": "web"}}}));
        }
        "twoway" => {
            case.insert("op".into(), json!("twoway"));
            case.insert("modified".into(), modified);
        }
        "threeway" => {
            let mut current = original.clone();
            current["metadata"]["uid"] = json!("0b6e6d9e-1111-2222-3333-444455556666");
            current["metadata"]["resourceVersion"] = json!("1");
            current["status"] = json!({"phase": "Running"});
            case.insert("op".into(), json!("threeway"));
            case.insert("overwrite".into(), json!(true));
            case.insert("modified".into(), modified);
            case.insert("current".into(), current);
        }
        other => panic!("unknown variant {other:?}"),
    }
    case.insert("original".into(), original);
    Value::Object(case)
}

/// The batch line of a case: its inputs and `overwrite`, nothing else.
pub fn line(case: &Value) -> String {
    let op = case["op"].as_str().expect("a case with an op");
    let mut fields = Map::new();
    for name in inputs(op).iter().chain(&["overwrite"]) {
        if let Some(v) = case.get(*name) {
            fields.insert(name.to_string(), v.clone());
        }
    }
    Value::Object(fields).to_string()
}

/// `count` random case lines of `op` from `seed`: objects of every kind the
/// generator makes, patches with every directive (some invalid), modified
/// and live versions of the objects, conflicting or not.
pub fn random_lines(op: &str, count: usize, seed: u64) -> Vec<String> {
    let mut g = Gen::new(seed).with_quirks(true);
    let mut rng = Rng::new(seed ^ 0x5eed);
    (0..count)
        .map(|_| {
            let kind = g.kind();
            let original = g.object(kind);
            let case = match op {
                "apply" => json!({"op": op, "original": original, "patch": g.patch(&original)}),
                "twoway" => json!({"op": op, "modified": g.mutate(&original), "original": original}),
                "threeway" => {
                    let modified = g.mutate(&original);
                    let current = if rng.chance(0.5) { g.mutate(&original) } else { g.mutate(&modified) };
                    json!({"op": op, "original": original, "modified": modified, "current": current,
                           "overwrite": rng.chance(0.5)})
                }
                other => panic!("unknown op {other:?}"),
            };
            line(&case)
        })
        .collect()
}
