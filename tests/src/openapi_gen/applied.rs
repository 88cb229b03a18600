//! What a three-way patch must achieve, checked on its result: every field
//! of the desired object is there with its value, and what was removed
//! from the last applied object is gone; anything else in the live object
//! may stay.

use super::{Defs, Node};
use crate::json_cmp::same_value;
use serde_json::{Map, Value};

/// The first place where `result` does not hold `modified`, or holds
/// something removed between `original` and `modified`; `None` when it
/// does what it should. `def` is the definition of the three objects.
pub fn not_applied(defs: &Defs, def: &str, original: &Value, modified: &Value, result: &Value) -> Option<String> {
    let empty = Value::Object(Map::new());
    struct_at(defs, def, obj(original, &empty), obj(modified, &empty), obj(result, &empty), "$")
}

fn obj<'v>(v: &'v Value, empty: &'v Value) -> &'v Map<String, Value> {
    v.as_object().or(empty.as_object()).expect("an object")
}

fn struct_at<'v>(
    defs: &Defs,
    def: &str,
    original: &'v Map<String, Value>,
    modified: &'v Map<String, Value>,
    result: &'v Map<String, Value>,
    path: &str,
) -> Option<String> {
    for field in defs.fields(def) {
        let at = format!("{path}.{}", field.name);
        // The reference leaves the nulls of a patch in the new items of a
        // list (SEMANTICS §3.9): null is absent.
        let get = |m: &'v Map<String, Value>| m.get(field.name).filter(|v| !v.is_null());
        let (o, m, r) = (get(original), get(modified), get(result));
        let problem = match (m, r) {
            (None, Some(_)) if o.is_some() => Some(format!("{at}: removed from the desired object, still there")),
            (None, _) => None,
            (Some(_), None) => Some(format!("{at}: desired, absent")),
            (Some(m), Some(r)) => match defs.node(field.schema) {
                Node::List(item) if field.is_keyed_list() => keyed_at(defs, item, field.merge_key, o, m, r, &at),
                Node::List(_) if field.is_primitive_set(defs) => set_at(o, m, r, &at),
                _ => value_at(defs, field.schema, o, m, r, &at),
            },
        };
        if problem.is_some() {
            return problem;
        }
    }
    None
}

fn value_at(defs: &Defs, schema: &Value, o: Option<&Value>, m: &Value, r: &Value, at: &str) -> Option<String> {
    let empty = Value::Object(Map::new());
    let o = o.unwrap_or(&empty);
    match (defs.node(schema), m, r) {
        (Node::Struct(def), Value::Object(mm), Value::Object(rm)) => struct_at(defs, def, obj(o, &empty), mm, rm, at),
        (Node::Map(values), Value::Object(mm), Value::Object(rm)) => {
            entries_at(obj(o, &empty), mm, rm, at, |o, m, r, at| value_at(defs, values, o, m, r, at))
        }
        (Node::Any, Value::Object(mm), Value::Object(rm)) => untyped_at(obj(o, &empty), mm, rm, at),
        _ => (!same_value(m, r)).then(|| format!("{at}: desired {m}, got {r}")),
    }
}

/// Maps without metadata merge key by key.
fn untyped_at(o: &Map<String, Value>, m: &Map<String, Value>, r: &Map<String, Value>, at: &str) -> Option<String> {
    entries_at(o, m, r, at, |o, m, r, at| match (m, r) {
        (Value::Object(mm), Value::Object(rm)) => {
            let empty = Map::new();
            untyped_at(o.and_then(Value::as_object).unwrap_or(&empty), mm, rm, at)
        }
        _ => (!same_value(m, r)).then(|| format!("{at}: desired {m}, got {r}")),
    })
}

fn entries_at(
    o: &Map<String, Value>,
    m: &Map<String, Value>,
    r: &Map<String, Value>,
    at: &str,
    mut check: impl FnMut(Option<&Value>, &Value, &Value, &str) -> Option<String>,
) -> Option<String> {
    for (k, mv) in m {
        let at = format!("{at}.{k}");
        let Some(rv) = r.get(k).filter(|v| !v.is_null()) else { return Some(format!("{at}: desired, absent")) };
        if let Some(p) = check(o.get(k), mv, rv, &at) {
            return Some(p);
        }
    }
    o.keys()
        .find(|k| !m.contains_key(*k) && r.get(*k).is_some_and(|v| !v.is_null()))
        .map(|k| format!("{at}.{k}: removed from the desired object, still there"))
}

fn keyed_at(defs: &Defs, item: &Value, key: &str, o: Option<&Value>, m: &Value, r: &Value, at: &str) -> Option<String> {
    let (Some(ms), Some(rs)) = (m.as_array(), r.as_array()) else {
        return Some(format!("{at}: desired {m}, got {r}"));
    };
    let os: &[Value] = o.and_then(Value::as_array).map_or(&[], Vec::as_slice);
    // The reference leaves the directives of a patch in the new items of a
    // list (SEMANTICS §3.9): an item with `$patch` in the result is not data.
    let rs: Vec<Value> = rs.iter().filter(|i| i.get("$patch").is_none()).cloned().collect();
    let rs = rs.as_slice();
    let find = |items: &'_ [Value], k: &Value| items.iter().find(|i| i.get(key) == Some(k)).cloned();
    for mi in ms {
        let Some(k) = mi.get(key) else { continue };
        let at = format!("{at}[{key}={k}]");
        let Some(ri) = find(rs, k) else { return Some(format!("{at}: desired item, absent")) };
        if let Some(p) = value_at(defs, item, find(os, k).as_ref(), mi, &ri, &at) {
            return Some(p);
        }
    }
    os.iter()
        .filter_map(|oi| oi.get(key))
        .find(|k| find(ms, k).is_none() && find(rs, k).is_some())
        .map(|k| format!("{at}[{key}={k}]: removed from the desired object, still there"))
}

fn set_at(o: Option<&Value>, m: &Value, r: &Value, at: &str) -> Option<String> {
    let (Some(ms), Some(rs)) = (m.as_array(), r.as_array()) else {
        return Some(format!("{at}: desired {m}, got {r}"));
    };
    let os: &[Value] = o.and_then(Value::as_array).map_or(&[], Vec::as_slice);
    if let Some(v) = ms.iter().find(|v| !rs.contains(v)) {
        return Some(format!("{at}: desired {v}, absent"));
    }
    os.iter()
        .find(|v| !ms.contains(v) && rs.contains(v))
        .map(|v| format!("{at}: {v} removed from the desired object, still there"))
}
