//! Random `example.com/v1 Widget` objects, the custom resource of the
//! server-side apply cases (`fixtures/ssa/widget_openapi.json`): list maps
//! with two key fields, sets, atomic lists, granular and atomic maps, an
//! atomic struct, a map of structs. Values come from small pools, so that
//! managers collide on keys and values.

use crate::rng::Rng;
use serde_json::{Map, Value, json};

pub const API_VERSION: &str = "example.com/v1";
pub const KIND: &str = "Widget";
pub const DEFINITION: &str = "com.example.v1.Widget";

const NAMES: &[&str] = &["web", "dns", "metrics", "a"];
const WORDS: &[&str] = &["x", "y", "z", "w", "gold"];
const HOSTS: &[&str] = &["a.example", "b.example", "c.example"];
const PATHS: &[&str] = &["/", "/api", "/v1", "/healthz"];
const IMAGES: &[&str] = &["nginx:1.25", "nginx:1.27", "envoy:1.29"];

/// A generator of a field's values.
type Make = fn(&mut Rng) -> Value;

/// The spec fields, with their generators.
const SPEC_FIELDS: &[(&str, Make)] = &[
    ("replicas", |r| json!(r.below(5))),
    ("mode", |r| json!(r.pick(&["fast", "safe"]))),
    ("ports", ports),
    ("tags", |r| words(r, WORDS)),
    ("args", |r| json!(r.subset(&["--v=2", "--fast", "-x", "--v=2"], 3))),
    ("hosts", |r| words(r, HOSTS)),
    ("labels", string_map),
    ("selector", string_map),
    ("backends", backends),
    ("template", template),
    ("rules", rules),
];

fn words(rng: &mut Rng, pool: &[&str]) -> Value {
    json!(rng.subset(pool, 3))
}

fn string_map(rng: &mut Rng) -> Value {
    let keys = rng.subset(&["app", "tier", "team", "app.kubernetes.io/name"], 3);
    Value::Object(keys.into_iter().map(|k| (k.to_string(), json!(rng.pick(WORDS)))).collect())
}

fn ports(rng: &mut Rng) -> Value {
    let mut items = Vec::new();
    let mut seen = Vec::new();
    for _ in 0..rng.below(4) {
        let key = (*rng.pick(NAMES), *rng.pick(&["TCP", "UDP"]));
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let mut item = json!({"name": key.0, "protocol": key.1});
        if rng.chance(0.8) {
            item["port"] = json!(rng.pick(&[53, 80, 443, 8080]));
        }
        if rng.chance(0.3) {
            item["appProtocol"] = json!(rng.pick(&["http", "grpc"]));
        }
        items.push(item);
    }
    Value::Array(items)
}

fn backends(rng: &mut Rng) -> Value {
    let keys = rng.subset(NAMES, 2);
    let mut out = Map::new();
    for k in keys {
        let mut b = Map::new();
        if rng.chance(0.7) {
            b.insert("url".into(), json!(format!("http://{}", rng.pick(HOSTS))));
        }
        if rng.chance(0.5) {
            b.insert("weight".into(), json!(rng.below(3)));
        }
        out.insert(k.to_string(), Value::Object(b));
    }
    Value::Object(out)
}

fn template(rng: &mut Rng) -> Value {
    let mut t = Map::new();
    if rng.chance(0.7) {
        t.insert("image".into(), json!(rng.pick(IMAGES)));
    }
    if rng.chance(0.7) {
        let names = rng.subset(&["A", "B", "C", "D"], 3);
        let env: Vec<Value> = names
            .into_iter()
            .map(|n| if rng.chance(0.8) { json!({"name": n, "value": rng.pick(WORDS)}) } else { json!({"name": n}) })
            .collect();
        t.insert("env".into(), Value::Array(env));
    }
    if rng.chance(0.5) {
        let mut res = Map::new();
        if rng.chance(0.7) {
            res.insert("cpu".into(), json!(rng.pick(&["100m", "1"])));
        }
        if rng.chance(0.7) {
            res.insert("memory".into(), json!(rng.pick(&["64Mi", "1Gi"])));
        }
        t.insert("resources".into(), Value::Object(res));
    }
    Value::Object(t)
}

fn rules(rng: &mut Rng) -> Value {
    let hosts = rng.subset(HOSTS, 3);
    Value::Array(
        hosts
            .into_iter()
            .map(|h| {
                let mut r = json!({"host": h});
                if rng.chance(0.6) {
                    r["paths"] = words(rng, PATHS);
                }
                if rng.chance(0.5) {
                    r["weight"] = json!(rng.below(3));
                }
                r
            })
            .collect(),
    )
}

fn metadata(rng: &mut Rng) -> Value {
    let mut m = json!({"name": "w", "namespace": "default"});
    if rng.chance(0.5) {
        m["labels"] = string_map(rng);
    }
    if rng.chance(0.3) {
        m["annotations"] = json!({"note": rng.pick(WORDS)});
    }
    if rng.chance(0.2) {
        m["finalizers"] = json!(rng.subset(&["example.com/a", "example.com/b"], 2));
    }
    m
}

/// A new Widget with most spec fields.
pub fn object(rng: &mut Rng) -> Value {
    let mut spec = Map::new();
    for (name, make) in SPEC_FIELDS {
        if rng.chance(0.7) {
            spec.insert(name.to_string(), make(rng));
        }
    }
    let mut obj = json!({"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata(rng), "spec": spec});
    if rng.chance(0.2) {
        obj["status"] = json!({"phase": rng.pick(&["Ready", "Pending"]),
            "conditions": [{"type": "Ready", "status": rng.pick(&["True", "False"])}]});
    }
    obj
}

/// A modified copy: spec fields replaced, removed or added; list-map items
/// changed in place (keys kept); labels changed.
pub fn mutate(rng: &mut Rng, object: &Value) -> Value {
    let mut out = object.clone();
    let spec = out.as_object_mut().expect("an object").entry("spec").or_insert_with(|| json!({}));
    let Some(spec) = spec.as_object_mut() else { return out };
    for (name, make) in SPEC_FIELDS {
        let roll = rng.below(10);
        match (spec.get_mut(*name), roll) {
            (Some(_), 0) => {
                spec.remove(*name);
            }
            (Some(Value::Array(items)), 1..=3) if !items.is_empty() => {
                // Change one item's non-key fields, keep the others.
                let i = rng.below(items.len());
                match &mut items[i] {
                    Value::Object(item) if item.contains_key("port") || item.contains_key("protocol") => {
                        item.insert("port".into(), json!(rng.pick(&[53, 80, 443, 8080])));
                    }
                    Value::Object(item) if item.contains_key("host") => {
                        item.insert("weight".into(), json!(rng.below(3)));
                    }
                    other => *other = json!(rng.pick(WORDS)),
                }
            }
            (Some(_), 4..=5) | (None, 6) => {
                spec.insert(name.to_string(), make(rng));
            }
            _ => {}
        }
    }
    if rng.chance(0.3) {
        out["metadata"]["labels"] = string_map(rng);
    }
    out
}
