//! The patch `kubectl apply` (client-side) sends: a three-way patch from the
//! `kubectl.kubernetes.io/last-applied-configuration` annotation of the live
//! object, the desired object and the live object, where the desired object
//! carries its own serialisation in that annotation, so the patch updates it.

use serde_json::{Map, Value};
use smp_core::value::to_go_json;
use smp_core::{Result, Schema, ThreeWayOptions, decode, three_way};

/// The annotation in which kubectl keeps the last applied configuration.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The desired object as kubectl sends it: with the last-applied annotation
/// set to the object's own JSON (Go `encoding/json` bytes, sorted keys, a
/// trailing newline, and an `"annotations":{}` left in place when the object
/// has no other annotations).
pub fn with_last_applied(desired: &Value) -> Value {
    let mut obj = desired.clone();
    let Some(root) = obj.as_object_mut() else { return obj };
    let metadata = root.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    let annotations = metadata
        .as_object_mut()
        .expect("made an object above")
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    annotations.as_object_mut().expect("made an object above").remove(LAST_APPLIED);
    let text = format!("{}\n", to_go_json(&obj));
    obj["metadata"]["annotations"][LAST_APPLIED] = Value::String(text);
    obj
}

/// The last applied configuration recorded on a live object (`{}` when
/// there is none, as kubectl treats it).
pub fn last_applied(live: &Value) -> Result<Value> {
    match live.pointer("/metadata/annotations").and_then(|a| a.get(LAST_APPLIED)).and_then(Value::as_str) {
        Some(text) => decode(text.as_bytes()),
        None => Ok(Value::Object(Map::new())),
    }
}

/// The patch `kubectl apply` computes to bring `live` to `desired`; kubectl
/// applies with `overwrite` on unless `--overwrite=false` is given.
///
/// ```
/// use serde_json::json;
/// use smp_core::Schema;
/// use smp_k8s_types::kubectl::{LAST_APPLIED, apply_patch};
///
/// let desired = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "2"}});
/// let live = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}});
/// let patch = apply_patch(&live, &desired, Schema::Untyped, true).unwrap();
/// assert_eq!(patch["data"], json!({"a": "2"}));
/// assert!(patch["metadata"]["annotations"][LAST_APPLIED].as_str().unwrap().ends_with("}\n"));
/// ```
pub fn apply_patch(live: &Value, desired: &Value, schema: Schema<'_>, overwrite: bool) -> Result<Value> {
    let original = last_applied(live)?;
    let modified = with_last_applied(desired);
    three_way(&original, &modified, live, schema, ThreeWayOptions { overwrite, ..Default::default() })
}
