//! What server-side apply makes of a schema node (its `x-kubernetes-*`
//! markers), and the edits the generator makes with it: applied
//! configurations cut from whole objects, objects made valid for the
//! reference (no duplicate keys), and deliberate errors.

use crate::openapi_gen::{Defs, Node};
use crate::rng::Rng;
use serde_json::{Map, Value, json};

/// How server-side apply merges a value.
pub enum Shape<'a> {
    /// An object with known fields; `atomic` when `x-kubernetes-map-type: atomic`.
    Struct { def: &'a str, atomic: bool },
    /// An object with arbitrary keys.
    Map { values: &'a Value, atomic: bool },
    /// `x-kubernetes-list-type: map`: items merged by their key fields.
    ListMap { item: &'a Value, keys: Vec<&'a str> },
    /// `x-kubernetes-list-type: set`: scalars merged by value.
    Set,
    /// Replaced whole: scalars, atomic lists, arbitrary JSON.
    Atomic,
}

pub fn shape<'a>(defs: &'a Defs, schema: &'a Value) -> Shape<'a> {
    let marker = |key: &str| schema.get(key).and_then(Value::as_str);
    let def_marker = |def: &str, key: &str| {
        defs.definition(def).and_then(|d| d.get(key)).and_then(Value::as_str).map(str::to_string)
    };
    let atomic_map = |def: Option<&str>| {
        marker("x-kubernetes-map-type") == Some("atomic")
            || def.is_some_and(|d| def_marker(d, "x-kubernetes-map-type").as_deref() == Some("atomic"))
    };
    match defs.node(schema) {
        Node::Struct(def) => Shape::Struct { def, atomic: atomic_map(Some(def)) },
        Node::Map(values) => Shape::Map { values, atomic: atomic_map(None) },
        Node::List(item) => match marker("x-kubernetes-list-type") {
            Some("map") => {
                let keys = schema
                    .get("x-kubernetes-list-map-keys")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                Shape::ListMap { item, keys }
            }
            Some("set") => Shape::Set,
            _ => Shape::Atomic,
        },
        Node::Scalar(_) | Node::Any => Shape::Atomic,
    }
}

/// The schema of field `name` of definition `def`.
pub fn field_schema<'a>(defs: &'a Defs, def: &str, name: &str) -> Option<&'a Value> {
    defs.definition(def)?.get("properties")?.get(name)
}

/// Whether a key field has a default (the reference then accepts items without it).
fn key_has_default(defs: &Defs, item: &Value, key: &str) -> bool {
    match defs.node(item) {
        Node::Struct(def) => field_schema(defs, def, key).is_some_and(|s| s.get("default").is_some()),
        _ => false,
    }
}

/// `value` with duplicate list-map items and set entries removed, and
/// list-map items missing a key field (without a default) dropped: what
/// the reference accepts.
pub fn fixup(defs: &Defs, schema: &Value, value: &Value) -> Value {
    match (shape(defs, schema), value) {
        (Shape::Struct { def, .. }, Value::Object(fields)) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| {
                    let v = match field_schema(defs, def, k) {
                        Some(s) => fixup(defs, s, v),
                        None => v.clone(),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        (Shape::Map { values, .. }, Value::Object(entries)) => {
            Value::Object(entries.iter().map(|(k, v)| (k.clone(), fixup(defs, values, v))).collect())
        }
        (Shape::ListMap { item, keys }, Value::Array(items)) => {
            let mut seen = Vec::new();
            let mut out = Vec::new();
            for it in items {
                let key: Vec<Value> = keys.iter().map(|k| it.get(*k).cloned().unwrap_or(Value::Null)).collect();
                let missing = keys.iter().any(|k| it.get(*k).is_none() && !key_has_default(defs, item, k));
                if missing || seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                out.push(fixup(defs, item, it));
            }
            Value::Array(out)
        }
        (Shape::Set, Value::Array(items)) => {
            let mut out: Vec<Value> = Vec::new();
            for it in items {
                if !out.contains(it) {
                    out.push(it.clone());
                }
            }
            Value::Array(out)
        }
        _ => value.clone(),
    }
}

/// An applied configuration cut from `object` (a resource): `apiVersion`,
/// `kind`, `metadata.name` and `metadata.namespace` stay, every other
/// field, map entry, list-map item and set entry stays with chance `keep`
/// (list-map items keep their keys); atomic values stay whole or go.
pub fn cut(defs: &Defs, def: &str, object: &Value, keep: f64, rng: &mut Rng) -> Value {
    let Some(fields) = object.as_object() else { return object.clone() };
    let mut out = Map::new();
    for (name, v) in fields {
        let schema = field_schema(defs, def, name);
        match name.as_str() {
            "apiVersion" | "kind" => {
                out.insert(name.clone(), v.clone());
            }
            "metadata" => {
                let mut meta = Map::new();
                for (k, mv) in v.as_object().into_iter().flatten() {
                    if k == "name" || k == "namespace" {
                        meta.insert(k.clone(), mv.clone());
                    } else if k != "managedFields" && rng.chance(keep) {
                        let s = schema.and_then(|s| match defs.node(s) {
                            Node::Struct(d) => field_schema(defs, d, k),
                            _ => None,
                        });
                        if let Some(c) = cut_value(defs, s, mv, keep, rng) {
                            meta.insert(k.clone(), c);
                        }
                    }
                }
                out.insert(name.clone(), Value::Object(meta));
            }
            // The top-level fields (`spec`, `data`...) seldom go as a whole.
            _ if keep > 0.0 && rng.chance(keep.max(0.9)) => {
                if let Some(c) = cut_value(defs, schema, v, keep, rng) {
                    out.insert(name.clone(), c);
                }
            }
            _ => {}
        }
    }
    Value::Object(out)
}

fn cut_value(defs: &Defs, schema: Option<&Value>, value: &Value, keep: f64, rng: &mut Rng) -> Option<Value> {
    let Some(schema) = schema else { return Some(value.clone()) };
    match (shape(defs, schema), value) {
        (Shape::Struct { def, atomic: false }, Value::Object(fields)) => {
            let mut out = Map::new();
            for (k, v) in fields {
                if rng.chance(keep)
                    && let Some(c) = cut_value(defs, field_schema(defs, def, k), v, keep, rng)
                {
                    out.insert(k.clone(), c);
                }
            }
            Some(Value::Object(out))
        }
        (Shape::Map { values, atomic: false }, Value::Object(entries)) => {
            let mut out = Map::new();
            for (k, v) in entries {
                if rng.chance(keep)
                    && let Some(c) = cut_value(defs, Some(values), v, keep, rng)
                {
                    out.insert(k.clone(), c);
                }
            }
            Some(Value::Object(out))
        }
        (Shape::ListMap { item, keys }, Value::Array(items)) => {
            let item_def = match defs.node(item) {
                Node::Struct(d) => Some(d),
                _ => None,
            };
            let mut out = Vec::new();
            for it in items {
                if !rng.chance(keep) {
                    continue;
                }
                let (Some(def), Value::Object(fields)) = (item_def, it) else {
                    out.push(it.clone());
                    continue;
                };
                let mut kept = Map::new();
                for (k, v) in fields {
                    if keys.contains(&k.as_str()) {
                        kept.insert(k.clone(), v.clone());
                    } else if rng.chance(keep)
                        && let Some(c) = cut_value(defs, field_schema(defs, def, k), v, keep, rng)
                    {
                        kept.insert(k.clone(), c);
                    }
                }
                out.push(Value::Object(kept));
            }
            Some(Value::Array(out))
        }
        (Shape::Set, Value::Array(items)) => {
            let mut out = Vec::new();
            for it in items {
                if rng.chance(keep) {
                    out.push(it.clone());
                }
            }
            Some(Value::Array(out))
        }
        _ => Some(value.clone()),
    }
}

/// One deliberate error in an applied configuration or a new object, of the
/// kinds the reference refuses: a duplicate list-map item or set entry, an
/// item without its key, an unknown field, a value of the wrong type,
/// `metadata.managedFields` in an applied configuration. Returns what was done.
pub fn spoil(defs: &Defs, def: &str, object: &mut Value, rng: &mut Rng) -> &'static str {
    let mut lists = Vec::new();
    find_lists(defs, def, object, &mut String::new(), &mut lists);
    let roll = rng.below(6);
    if roll < 3 && !lists.is_empty() {
        let (pointer, is_map, keys) = lists[rng.below(lists.len())].clone();
        let list = object.pointer_mut(&pointer).and_then(Value::as_array_mut).expect("found above");
        if let Some(first) = list.first().cloned() {
            if is_map && roll == 2 {
                let mut item = first;
                if let (Some(map), Some(k)) = (item.as_object_mut(), keys.first()) {
                    map.remove(k.as_str());
                }
                list.push(item);
                return "list-map item without its key";
            }
            list.push(first);
            return if is_map { "duplicate list-map item" } else { "duplicate set entry" };
        }
    }
    let obj = object.as_object_mut().expect("an object");
    match roll {
        3 => {
            obj.insert("notAField".into(), json!({"x": 1}));
            "unknown field"
        }
        4 => {
            obj.entry("metadata").or_insert_with(|| json!({}))["labels"] = json!(["not", "a", "map"]);
            "wrong type"
        }
        _ => {
            obj.entry("metadata").or_insert_with(|| json!({}))["managedFields"] = json!([{
                "manager": "someone", "operation": "Apply", "apiVersion": "v1",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {}}}
            }]);
            "managedFields given"
        }
    }
}

/// JSON pointers of the non-empty list-maps and sets in `value`, with their kind and keys.
fn find_lists(defs: &Defs, def: &str, value: &Value, at: &mut String, out: &mut Vec<(String, bool, Vec<String>)>) {
    for (name, v) in value.as_object().into_iter().flatten() {
        let Some(schema) = field_schema(defs, def, name) else { continue };
        let len = at.len();
        at.push('/');
        at.push_str(&name.replace('~', "~0").replace('/', "~1"));
        find_in(defs, schema, v, at, out);
        at.truncate(len);
    }
}

fn find_in(defs: &Defs, schema: &Value, v: &Value, at: &mut String, out: &mut Vec<(String, bool, Vec<String>)>) {
    match (shape(defs, schema), v) {
        (Shape::Struct { def, .. }, Value::Object(_)) => find_lists(defs, def, v, at, out),
        (Shape::ListMap { item, keys }, Value::Array(items)) if !items.is_empty() => {
            out.push((at.clone(), true, keys.iter().map(|k| k.to_string()).collect()));
            for (i, it) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                find_in(defs, item, it, at, out);
                at.truncate(len);
            }
        }
        (Shape::Set, Value::Array(items)) if !items.is_empty() => out.push((at.clone(), false, Vec::new())),
        _ => {}
    }
}

/// `value` (a configuration of definition `def`) with scalars changed
/// (chance `p` each; list-map keys, `apiVersion`, `kind` and the name stay):
/// strings get a suffix, numbers grow, booleans flip.
pub fn perturb(defs: &Defs, def: &str, value: &Value, p: f64, rng: &mut Rng) -> Value {
    let mut out = value.clone();
    if let Some(fields) = out.as_object_mut() {
        for (name, v) in fields.iter_mut() {
            if name == "apiVersion" || name == "kind" {
                continue;
            }
            if name == "metadata" {
                // Label and annotation values only.
                for key in ["labels", "annotations"] {
                    for lv in v.get_mut(key).and_then(Value::as_object_mut).into_iter().flat_map(|m| m.values_mut()) {
                        if let Value::String(text) = lv
                            && rng.chance(p)
                        {
                            text.push('2');
                        }
                    }
                }
                continue;
            }
            if let Some(s) = field_schema(defs, def, name) {
                perturb_in(defs, s, v, p, rng);
            }
        }
    }
    out
}

fn perturb_in(defs: &Defs, schema: &Value, v: &mut Value, p: f64, rng: &mut Rng) {
    match (shape(defs, schema), v) {
        (Shape::Struct { def, .. }, Value::Object(fields)) => {
            for (k, fv) in fields.iter_mut() {
                if let Some(s) = field_schema(defs, def, k) {
                    perturb_in(defs, s, fv, p, rng);
                }
            }
        }
        (Shape::Map { values, .. }, Value::Object(entries)) => {
            for ev in entries.values_mut() {
                perturb_in(defs, values, ev, p, rng);
            }
        }
        (Shape::ListMap { item, keys }, Value::Array(items)) => {
            let Node::Struct(def) = defs.node(item) else { return };
            for it in items.iter_mut().filter_map(Value::as_object_mut) {
                for (k, fv) in it.iter_mut() {
                    if !keys.contains(&k.as_str())
                        && let Some(s) = field_schema(defs, def, k)
                    {
                        perturb_in(defs, s, fv, p, rng);
                    }
                }
            }
        }
        (Shape::Set, Value::Array(items)) => {
            if rng.chance(p)
                && let Some(Value::String(s)) = items.first().cloned()
            {
                items.push(json!(format!("{s}-2")));
            }
        }
        (Shape::Atomic, v) if rng.chance(p) => match v {
            Value::String(s) if s.parse::<f64>().is_err() && !s.ends_with('Z') => s.push('2'),
            Value::Number(n) => *v = json!(n.as_i64().map_or(2, |i| i + 1)),
            Value::Bool(b) => *b = !*b,
            Value::Array(items) => {
                if let Some(first) = items.first().cloned() {
                    items.push(first);
                }
            }
            _ => {}
        },
        _ => {}
    }
}
