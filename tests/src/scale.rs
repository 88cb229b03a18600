//! Case lines for the `smp --jsonl` batch mode: the Pod scaling series
//! (`pod-env<N>.<op>` of the shared bench cases, at any size), the shipped
//! bench cases, and random cases of [`crate::Gen`].
//!
//! A line holds the inputs of one case (`original`, `patch` / `modified`,
//! `current`, `overwrite`), as `smp apply|diff|three-way --jsonl` reads it.

use crate::Gen;
use crate::rng::Rng;
use serde_json::{Map, Value, json};

pub use crate::pod_env::{pod, pod_env_case};

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

/// The outermost lists of objects of `v` made longer than a diff reads
/// before it keeps elements as text (64): copies of their elements, each
/// string suffixed with the copy's number (the same in every document of
/// a case, so that merge keys still pair up and changes show in the
/// copies too). Lists inside their elements stay as they are: a
/// Deployment stays small enough for kubectl's line reader.
pub fn lengthen_lists(v: &mut Value) {
    fn suffixed(v: &Value, n: usize) -> Value {
        match v {
            Value::String(s) => Value::String(format!("{s}~{n}")),
            Value::Array(a) => Value::Array(a.iter().map(|e| suffixed(e, n)).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, e)| (k.clone(), suffixed(e, n))).collect()),
            other => other.clone(),
        }
    }
    match v {
        Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_object) => {
            let len = a.len();
            let copies: Vec<Value> = (0..66usize.div_ceil(len) * len).map(|i| suffixed(&a[i % len], i / len)).collect();
            a.extend(copies);
        }
        Value::Array(a) => a.iter_mut().for_each(lengthen_lists),
        Value::Object(m) => m.values_mut().for_each(lengthen_lists),
        _ => {}
    }
}
