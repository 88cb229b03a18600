//! The patch `kubectl apply` (client-side) sends: a three-way patch from the
//! `kubectl.kubernetes.io/last-applied-configuration` annotation of the live
//! object, the desired object and the live object, where the desired object
//! carries its own serialisation in that annotation, so the patch updates it.

use serde::Serialize;
use serde_json::{Map, Value};
use smp_core::typed::check_depth;
use smp_core::unstable::{normalize_numbers, to_go_json, to_value};
use smp_core::{
    Precondition, Result, Schema, StrategicMerge, ThreeWayOptions, check_nesting, decode, merge_patch, three_way,
};

/// The annotation in which kubectl keeps the last applied configuration.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The desired object as kubectl sends it: with the last-applied annotation
/// set to the object's own JSON (Go `encoding/json` bytes, sorted keys, a
/// trailing newline, and an `"annotations":{}` left in place when the object
/// has no other annotations). A document nested deeper than
/// [`MAX_DEPTH`](smp_core::MAX_DEPTH) is refused, before it is copied.
pub fn with_last_applied(desired: &Value) -> Result<Value> {
    check_nesting(desired)?;
    let mut obj = desired.clone();
    let Some(root) = obj.as_object_mut() else { return Ok(obj) };
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
    Ok(obj)
}

/// The last applied configuration recorded on a live object (`{}` when
/// there is none, as kubectl treats it).
pub fn last_applied(live: &Value) -> Result<Value> {
    check_nesting(live)?;
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
    // The inputs are copied and printed below: refuse deep ones first.
    check_nesting(live)?;
    check_nesting(desired)?;
    let original = last_applied(live)?;
    let modified = with_last_applied(desired)?;
    three_way(&original, &modified, live, schema, ThreeWayOptions { overwrite, ..Default::default() })
}

/// The patch `kubectl apply` sends for a kind without strategic patch
/// metadata (a custom resource): the JSON merge patch three-way
/// (`jsonmergepatch.CreateThreeWayJSONMergePatch`) from the last applied
/// configuration, `desired` (with its own last-applied annotation) and
/// `live`, under kubectl's preconditions (`apiVersion`, `kind` and
/// `metadata.name` unchanged). Send it as `application/merge-patch+json`.
///
/// ```
/// use serde_json::json;
/// use smp_k8s_types::kubectl::merge_apply_patch;
///
/// let widget = |spec: serde_json::Value| json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec});
/// let live = widget(json!({"size": 1, "ports": [80]}));
/// let patch = merge_apply_patch(&live, &widget(json!({"size": 1, "ports": [80, 443]}))).unwrap();
/// assert_eq!(patch["spec"], json!({"ports": [80, 443]}));
/// ```
pub fn merge_apply_patch(live: &Value, desired: &Value) -> Result<Value> {
    check_nesting(live)?;
    check_nesting(desired)?;
    let original = last_applied(live)?;
    merge_patch::three_way(&original, &with_last_applied(desired)?, live, &Precondition::KUBECTL)
}

/// [`apply_patch`] on typed objects, with the patch metadata of their type:
/// the patch `kubectl apply -f desired.yaml` sends when the cluster holds
/// `live`.
///
/// ```
/// use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
/// use smp_k8s_types::kubectl::{LAST_APPLIED, typed_apply_patch};
///
/// let live = ConfigMap { data: Some([("a".into(), "1".into())].into()), ..Default::default() };
/// let desired = ConfigMap { data: Some([("a".into(), "2".into())].into()), ..Default::default() };
/// let patch = typed_apply_patch(&live, &desired, true).unwrap();
/// assert_eq!(patch["data"], serde_json::json!({"a": "2"}));
/// assert!(patch["metadata"]["annotations"][LAST_APPLIED].is_string());
/// ```
pub fn typed_apply_patch<T: StrategicMerge>(live: &T, desired: &T, overwrite: bool) -> Result<Value> {
    check_depth(live)?;
    check_depth(desired)?;
    apply_patch(&to_json(live)?, &to_json(desired)?, Schema::Static(T::shape()), overwrite)
}

/// The JSON kubectl would read for `value`: integers beyond `int64` are
/// floats, as the reference decodes them.
pub(crate) fn to_json(value: &impl Serialize) -> Result<Value> {
    let mut json = to_value(value)?;
    normalize_numbers(&mut json);
    Ok(json)
}
