//! Reading and writing the `metadata` of an object held as JSON.

use serde_json::{Map, Value};

/// `metadata.{field}` as a string.
pub fn meta_str<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    object.get("metadata")?.get(field)?.as_str()
}

/// `metadata`, made an object if it is missing or not one.
pub fn meta_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object.is_object() {
        *object = Value::Object(Map::new());
    }
    let map = object.as_object_mut().expect("made an object above");
    let meta = map.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    meta.as_object_mut().expect("made an object above")
}

/// Whether `metadata.finalizers` holds any finalizer.
pub fn has_finalizers(object: &Value) -> bool {
    object["metadata"]["finalizers"].as_array().is_some_and(|f| !f.is_empty())
}

/// The object with `apiVersion` and `kind` first, as the server writes
/// them.
pub fn with_type(object: &Value, api_version: &str, kind: &str) -> Value {
    let mut out = Map::new();
    out.insert("apiVersion".into(), api_version.into());
    out.insert("kind".into(), kind.into());
    if let Value::Object(map) = object {
        for (k, v) in map {
            if k != "apiVersion" && k != "kind" {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// Whether two objects differ outside `metadata` and `status` (what
/// counts as a new generation).
pub fn spec_changed(old: &Value, new: &Value) -> bool {
    let outside = |v: &Value| -> Map<String, Value> {
        v.as_object()
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "metadata" | "status" | "apiVersion" | "kind"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    outside(old) != outside(new)
}
