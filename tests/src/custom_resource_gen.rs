//! Random custom-resource documents (`example.com/v1 Widget`, a kind
//! kubectl does not know, so it takes the JSON merge patch route), their
//! mutations, and random merge patches.
//!
//! Values mix what the merge-patch reference treats specially: integers and
//! floats of equal value, integers beyond 2^53, nulls (in objects and in
//! lists), empty objects, lists of objects, and type changes.

use crate::rng::Rng;
use serde_json::{Map, Value, json};

const KEYS: &[&str] = &["a", "b", "c", "size", "tier", "ports", "x/y", "tilde~"];

/// A random scalar, a few of them chosen for the reference's number rules.
fn scalar(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0 => json!(rng.below(4)),
        1 => json!(rng.below(4) as f64),
        2 => json!(1.5),
        3 => json!(9_007_199_254_740_993_u64),
        4 => json!(-(rng.below(3) as i64)),
        5 => json!(rng.chance(0.5)),
        6 => json!(""),
        7 => json!(1e21),
        _ => json!(*rng.pick(&["x", "y", "gold", "z"])),
    }
}

/// A random value; objects and lists only while `depth` allows.
pub fn value(rng: &mut Rng, depth: usize, nulls: bool) -> Value {
    let roll = rng.below(10);
    match roll {
        0..=1 if depth > 0 => object(rng, depth - 1, nulls),
        2 if depth > 0 => {
            let len = rng.below(4);
            let objects = rng.chance(0.5);
            let items = (0..len).map(|_| {
                if objects {
                    object(rng, depth - 1, nulls)
                } else if nulls && rng.chance(0.1) {
                    Value::Null
                } else {
                    scalar(rng)
                }
            });
            Value::Array(items.collect())
        }
        3 if nulls && rng.chance(0.3) => Value::Null,
        _ => scalar(rng),
    }
}

/// A random object of up to four keys.
pub fn object(rng: &mut Rng, depth: usize, nulls: bool) -> Value {
    let mut map = Map::new();
    for _ in 0..rng.below(5) {
        map.insert((*rng.pick(KEYS)).to_string(), value(rng, depth, nulls));
    }
    Value::Object(map)
}

/// A Widget with a random `spec` (and sometimes `status` and labels); the
/// identity (apiVersion, kind, name, namespace, uid) is fixed.
pub fn widget(rng: &mut Rng) -> Value {
    let mut metadata = json!({"name": "w", "namespace": "default", "uid": "5e1f"});
    if rng.chance(0.3) {
        metadata["labels"] = json!({"app": *rng.pick(&["web", "db"])});
    }
    let mut doc = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": metadata});
    let nulls = rng.chance(0.3);
    doc["spec"] = object(rng, 3, nulls);
    if rng.chance(0.3) {
        doc["status"] = object(rng, 2, false);
    }
    doc
}

/// `doc` with random changes below its identity: keys removed, changed,
/// added, objects changed recursively, lists replaced.
pub fn mutate(rng: &mut Rng, doc: &Value) -> Value {
    let mut out = doc.clone();
    for key in ["spec", "status"] {
        if rng.chance(0.8) {
            match out.get_mut(key) {
                Some(v) if rng.chance(0.9) => mutate_value(rng, v, 3),
                Some(_) => {
                    out.as_object_mut().expect("an object").remove(key);
                }
                None if rng.chance(0.3) => out[key] = object(rng, 2, false),
                None => {}
            }
        }
    }
    if rng.chance(0.2) {
        out["metadata"]["labels"] = json!({"app": "canary"});
    }
    out
}

fn mutate_value(rng: &mut Rng, v: &mut Value, depth: usize) {
    match v {
        Value::Object(map) if depth > 0 => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                match rng.below(6) {
                    0 => {
                        map.remove(&key);
                    }
                    1 => {
                        map.insert(key, value(rng, depth - 1, false));
                    }
                    2 | 3 => mutate_value(rng, map.get_mut(&key).expect("listed"), depth - 1),
                    _ => {}
                }
            }
            if rng.chance(0.4) {
                map.insert((*rng.pick(KEYS)).to_string(), value(rng, depth - 1, false));
            }
        }
        Value::Array(items) if !items.is_empty() && rng.chance(0.5) => {
            let i = rng.below(items.len());
            mutate_value(rng, &mut items[i], depth.saturating_sub(1));
        }
        _ => *v = value(rng, depth.saturating_sub(1), false),
    }
}

/// A random merge patch for `doc`'s spec and status: nulls that delete,
/// new subtrees with nulls inside (objects and lists of objects), objects
/// replacing lists and the other way round.
pub fn merge_patch(rng: &mut Rng, doc: &Value) -> Value {
    let mut patch = Map::new();
    for key in ["spec", "status"] {
        if rng.chance(0.7) {
            patch.insert(key.to_string(), patch_for(rng, doc.get(key), 3));
        }
    }
    Value::Object(patch)
}

fn patch_for(rng: &mut Rng, target: Option<&Value>, depth: usize) -> Value {
    match target {
        Some(Value::Object(map)) if depth > 0 && rng.chance(0.8) => {
            let mut patch = Map::new();
            for (key, value) in map {
                match rng.below(5) {
                    0 => {
                        patch.insert(key.clone(), Value::Null);
                    }
                    1 => {
                        patch.insert(key.clone(), patch_for(rng, Some(value), depth - 1));
                    }
                    _ => {}
                }
            }
            for _ in 0..rng.below(3) {
                patch.insert((*rng.pick(KEYS)).to_string(), value(rng, depth - 1, true));
            }
            Value::Object(patch)
        }
        _ => value(rng, depth, true),
    }
}
