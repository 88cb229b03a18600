//! One attribute, both worlds: the `#[patch(...)]` attributes that drive
//! strategic merge also give the CRD schema the markers with which the API
//! server's server-side apply merges lists the same way (feature `kube`).
//!
//! Add [`list_markers`] as a schemars transform on the spec (and on any
//! type of yours that derives both `JsonSchema` and `StrategicMerge`):
//!
//! ```
//! use kube::CustomResource;
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//! use smp_k8s_types::StrategicMerge;
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
//! pub struct Port {
//!     name: String,
//!     port: u16,
//! }
//!
//! #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
//! #[kube(group = "example.com", version = "v1", kind = "Backend", namespaced)]
//! #[kube(derive = "PartialEq", derive = "StrategicMerge")]
//! #[schemars(transform = smp_k8s_types::crd::list_markers::<Self>)]
//! pub struct BackendSpec {
//!     #[patch(strategy = "merge", merge_key = "name")]
//!     ports: Vec<Port>,
//! }
//!
//! use kube::CustomResourceExt;
//! let crd = serde_json::to_value(Backend::crd()).unwrap();
//! let ports = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["ports"];
//! assert_eq!(ports["x-kubernetes-list-type"], "map");
//! assert_eq!(ports["x-kubernetes-list-map-keys"], serde_json::json!(["name"]));
//! ```
//!
//! What each attribute becomes:
//!
//! | `#[patch(...)]` | server-side apply | patch extensions |
//! |---|---|---|
//! | `strategy = "merge", merge_key = "k"` (list of objects) | `x-kubernetes-list-type: map`, `x-kubernetes-list-map-keys: [k]` (all the fields of a multi-field key) | `x-kubernetes-patch-strategy: merge`, `x-kubernetes-patch-merge-key: k` |
//! | `strategy = "merge"` (list of scalars), or none on a set of scalars | `x-kubernetes-list-type: set` | `x-kubernetes-patch-strategy: merge` |
//! | none or `strategy = "replace"` (list) | `x-kubernetes-list-type: atomic` | `x-kubernetes-patch-strategy: replace` when written |
//! | `strategy = "replace"` (object or map) | `x-kubernetes-map-type: atomic` | `x-kubernetes-patch-strategy: replace` |
//! | `retainKeys` (alone or with `merge`) | as without it | the strategy with `retainKeys` |
//!
//! The patch extensions are in the JSON schema schemars produces (what an
//! OpenAPI document published from these types carries, and what
//! `smp --openapi` reads). A CRD cannot carry them: the API server's
//! `JSONSchemaProps` has no such fields, so `Backend::crd()` keeps only
//! the server-side-apply markers (which `smp --crd` reads as keyed merges).
//! The API server also requires the fields of `x-kubernetes-list-map-keys`
//! to be scalars, required or defaulted, and not nullable. Make merge keys
//! plain fields; an `Option` key field must say how it is defaulted (the
//! derive refuses it otherwise): `#[serde(default = "path")]`, whose value
//! schemars writes as the schema's `default`, or `#[serde(default)]` with
//! `#[schemars(extend("default" = ...))]`. `list_markers` then writes the
//! key's schema without `null`. A list whose keys the server would still
//! refuse (a key neither required nor given a default value, or not a
//! scalar) is marked `x-kubernetes-list-type: atomic` instead, which the
//! server accepts: server-side apply then replaces the list whole, while smp
//! still merges it by its keys.

use serde_json::{Map, Value, json};
use smp_core::StrategicMerge;
use smp_core::schema::{FieldSchema, MergeKey, Shape, Strategy};

/// Deeper than any schema of a Rust type; guards against recursive types.
const MAX_DEPTH: usize = 64;

/// A schemars transform (`#[schemars(transform =
/// smp_k8s_types::crd::list_markers::<Self>)]`) that adds to the schema of
/// `T` the server-side-apply list markers and the strategic-merge-patch
/// extensions of its `#[patch(...)]` attributes, at every depth the schema
/// holds inline (kube's CRD generation inlines every type).
pub fn list_markers<T: StrategicMerge>(schema: &mut schemars::Schema) {
    if let Some(node) = schema.as_object_mut() {
        mark_shape(node, T::shape(), 0);
    }
}

/// The object schemas `node` stands for: itself, or the branches of an
/// `anyOf`/`oneOf`/`allOf` (an `Option` of a type), `null` left out.
fn branches(node: &mut Map<String, Value>) -> Vec<&mut Map<String, Value>> {
    let combined = ["anyOf", "oneOf", "allOf"].into_iter().find(|k| node.get(*k).is_some_and(Value::is_array));
    match combined {
        Some(key) => {
            let Some(Value::Array(items)) = node.get_mut(key) else { return Vec::new() };
            items
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .filter(|b| b.get("type") != Some(&json!("null")))
                .flat_map(branches)
                .collect()
        }
        None => vec![node],
    }
}

fn mark_shape(node: &mut Map<String, Value>, shape: Shape, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for node in branches(node) {
        match shape {
            Shape::Struct(s) => {
                for field in s.fields {
                    if field.flatten {
                        mark_shape(node, (field.shape)(), depth + 1);
                    } else if let Some(Value::Object(prop)) =
                        node.get_mut("properties").and_then(|p| p.get_mut(field.name))
                    {
                        mark_field(prop, field, depth + 1);
                    }
                }
            }
            Shape::Map(values) => {
                if let Some(Value::Object(inner)) = node.get_mut("additionalProperties") {
                    mark_shape(inner, values(), depth + 1);
                }
            }
            Shape::List(items) => {
                if let Some(Value::Object(inner)) = node.get_mut("items") {
                    mark_shape(inner, items(), depth + 1);
                }
            }
            Shape::Scalar | Shape::Any => {}
        }
    }
}

fn mark_field(prop: &mut Map<String, Value>, field: &FieldSchema, depth: usize) {
    let shape = (field.shape)();
    let strategy = field.strategy;
    for node in branches(prop) {
        match shape {
            Shape::List(items) => {
                let scalar_items = matches!(items(), Shape::Scalar);
                let list_type = match (strategy.merge, field.merge_key) {
                    (true, Some(key)) => {
                        node.insert("x-kubernetes-patch-merge-key".into(), json!(key.primary()));
                        if map_keys_accepted(node, key.fields()) {
                            node.insert("x-kubernetes-list-map-keys".into(), json!(key_fields(key)));
                            "map"
                        } else {
                            "atomic"
                        }
                    }
                    (true, None) if scalar_items => "set",
                    _ => "atomic",
                };
                node.insert("x-kubernetes-list-type".into(), json!(list_type));
            }
            Shape::Struct(_) | Shape::Map(_) if strategy.replace => {
                node.insert("x-kubernetes-map-type".into(), json!("atomic"));
            }
            _ => {}
        }
        if let Some(text) = strategy_text(strategy) {
            node.insert("x-kubernetes-patch-strategy".into(), json!(text));
        }
    }
    mark_shape(prop, shape, depth);
}

/// Whether the API server accepts `keys` as the `x-kubernetes-list-map-keys`
/// of the list `node` (apiextensions' rules): the items are objects, each
/// key one of their properties, a scalar, required or defaulted (with a
/// value), and not nullable. A key's property that allows `null` only as
/// an `Option` does (`type: [string, "null"]`, or kube's `nullable`) is made
/// non-null: a key that is required or defaulted is never null on the
/// server.
fn map_keys_accepted(node: &mut Map<String, Value>, keys: &[&str]) -> bool {
    let Some(Value::Object(items)) = node.get_mut("items") else { return false };
    if items.get("type") != Some(&json!("object")) {
        return false;
    }
    let required: Vec<String> = match items.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).map(String::from).collect(),
        _ => Vec::new(),
    };
    let Some(Value::Object(props)) = items.get_mut("properties") else { return false };
    let mut accepted = true;
    for key in keys {
        let Some(Value::Object(prop)) = props.get_mut(*key) else { return false };
        let defaulted = prop.get("default").is_some_and(|d| !d.is_null());
        if !required.iter().any(|r| r == key) && !defaulted {
            accepted = false;
        }
        if let Some(Value::Array(types)) = prop.get("type") {
            let types: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            if let [one] = types.as_slice() {
                prop.insert("type".into(), one.clone());
            }
        }
        prop.remove("nullable");
        if !matches!(prop.get("type").and_then(Value::as_str), Some("string" | "integer" | "number" | "boolean")) {
            accepted = false;
        }
    }
    accepted
}

fn key_fields(key: MergeKey<'_>) -> Vec<&str> {
    key.fields().to_vec()
}

/// The strategy as the `x-kubernetes-patch-strategy` extension writes it.
fn strategy_text(s: Strategy) -> Option<&'static str> {
    match (s.merge, s.replace, s.retain_keys) {
        (true, _, true) => Some("merge,retainKeys"),
        (true, _, false) => Some("merge"),
        (_, true, true) => Some("replace,retainKeys"),
        (_, true, false) => Some("replace"),
        (false, false, true) => Some("retainKeys"),
        (false, false, false) => None,
    }
}
