//! `#[derive(StrategicMerge)]`: typed strategic merge patches for your own
//! types. Use it through `smp_core` (feature `derive`), which re-exports it.
//!
//! The attribute model (`internals`) is kept apart from code generation
//! (`expand`): the model is what the code generator reads, whether it comes
//! from a derive input or from another front end.

#![deny(missing_docs)]

extern crate proc_macro;

mod assertions;
mod engine_path;
mod expand;
mod foreign;
mod internals;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Implements `smp_core::StrategicMerge` for a struct or enum: typed
/// two-way diff, apply and three-way patches, exactly as the JSON engine
/// computes them on the serde JSON form of the value.
///
/// Use it as `smp_core::StrategicMerge` (smp-core re-exports it). The type
/// also needs `Serialize`, `Deserialize`, `PartialEq` and `Clone`; serde's
/// attributes decide the JSON names and which fields are present. `==`
/// must be true only for values whose JSON is the same, as a derived
/// `PartialEq` is: a diff skips equal values without looking into them,
/// so a hand-written `PartialEq` that ignores a field hides its changes.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use smp_core::StrategicMerge;
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// #[serde(rename_all = "camelCase")]
/// struct AppSpec {
///     #[serde(skip_serializing_if = "Option::is_none")]
///     replicas: Option<i32>,
///     #[patch(strategy = "merge", merge_key = "name")]
///     containers: Vec<Container>,
/// }
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Container {
///     name: String,
///     image: String,
/// }
///
/// let live = AppSpec {
///     replicas: Some(1),
///     containers: vec![Container { name: "web".into(), image: "web:1".into() }],
/// };
/// let mut desired = live.clone();
/// desired.replicas = Some(2);
/// desired.containers[0].image = "web:2".into();
///
/// let patch = live.diff(&desired).unwrap();
/// assert_eq!(
///     patch,
///     json!({
///         "replicas": 2,
///         "$setElementOrder/containers": [{"name": "web"}],
///         "containers": [{"name": "web", "image": "web:2"}]
///     })
/// );
/// assert_eq!(live.apply(&patch).unwrap(), desired);
/// ```
///
/// # Field attributes
///
/// Without an attribute a field is patched as the reference patches a Go
/// field without patch tags: objects and maps merge key by key, lists are
/// replaced whole, scalars are replaced.
///
/// ## `#[patch(strategy = "merge", merge_key = "name")]`
///
/// A list of structs merged by the value of one of their fields (the
/// reference's `patchStrategy:"merge" patchMergeKey:"name"`): a patch names
/// the elements it changes; `$patch: delete` removes one. The merge key is
/// a JSON field name of the element type; a misspelt one is a compile
/// error. The example above shows one.
///
/// ## `#[patch(strategy = "merge")]` on a list of scalars
///
/// A set: a patch adds elements, and `$deleteFromPrimitiveList` removes
/// them, so that entries other writers added are kept.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use smp_core::StrategicMerge;
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Meta {
///     #[patch(strategy = "merge")]
///     finalizers: Vec<String>,
/// }
///
/// let live = Meta { finalizers: vec!["a".into(), "b".into()] };
/// let desired = Meta { finalizers: vec!["b".into(), "c".into()] };
/// let patch = live.diff(&desired).unwrap();
/// assert_eq!(
///     patch,
///     json!({
///         "$deleteFromPrimitiveList/finalizers": ["a"],
///         "$setElementOrder/finalizers": ["b", "c"],
///         "finalizers": ["c"]
///     })
/// );
/// // Another writer's entry survives the patch.
/// let elsewhere = Meta { finalizers: vec!["a".into(), "b".into(), "x".into()] };
/// assert_eq!(elsewhere.apply(&patch).unwrap().finalizers, ["b", "c", "x"]);
/// ```
///
/// ## `#[patch(strategy = "replace")]`
///
/// The field's value is replaced whole: the default for lists; on a struct
/// or a map, the patch carries the whole new value (always, as the
/// reference does, even when it did not change).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use smp_core::StrategicMerge;
/// use std::collections::BTreeMap;
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Selector {
///     #[patch(strategy = "replace")]
///     labels: BTreeMap<String, String>,
/// }
///
/// let live = Selector { labels: BTreeMap::from([("app".into(), "web".into())]) };
/// let desired = Selector { labels: BTreeMap::from([("tier".into(), "front".into())]) };
/// let patch = live.diff(&desired).unwrap();
/// assert_eq!(patch, json!({"labels": {"tier": "front"}}));
/// assert_eq!(live.apply(&patch).unwrap(), desired, "`app` is gone: the map was replaced");
/// ```
///
/// ## `#[patch(strategy = "retainKeys")]`
///
/// A union (a struct of which one field is set, like a volume source):
/// the patch lists the keys to keep in `$retainKeys`, so that switching
/// from one member to another removes the old one.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use smp_core::StrategicMerge;
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Volume {
///     #[patch(strategy = "retainKeys")]
///     source: Source,
/// }
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Source {
///     #[serde(skip_serializing_if = "Option::is_none")]
///     disk: Option<String>,
///     #[serde(skip_serializing_if = "Option::is_none")]
///     claim: Option<String>,
/// }
///
/// let live = Volume { source: Source { disk: Some("d1".into()), claim: None } };
/// let desired = Volume { source: Source { disk: None, claim: Some("c1".into()) } };
/// let patch = live.diff(&desired).unwrap();
/// assert_eq!(patch, json!({"source": {"$retainKeys": ["claim"], "claim": "c1", "disk": null}}));
/// assert_eq!(live.apply(&patch).unwrap(), desired);
/// ```
///
/// ## `#[patch(strategy = "merge,retainKeys", merge_key = "name")]`
///
/// Both: a list of unions merged by key (the reference's strategy of
/// `volumes`).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use smp_core::StrategicMerge;
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct PodSpec {
///     #[patch(strategy = "merge,retainKeys", merge_key = "name")]
///     volumes: Vec<Volume>,
/// }
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Volume {
///     name: String,
///     #[serde(skip_serializing_if = "Option::is_none")]
///     disk: Option<String>,
///     #[serde(skip_serializing_if = "Option::is_none")]
///     claim: Option<String>,
/// }
///
/// let live = PodSpec { volumes: vec![Volume { name: "data".into(), disk: Some("d1".into()), claim: None }] };
/// let desired = PodSpec { volumes: vec![Volume { name: "data".into(), disk: None, claim: Some("c1".into()) }] };
/// let patch = live.diff(&desired).unwrap();
/// assert_eq!(patch["volumes"][0]["$retainKeys"], serde_json::json!(["claim", "name"]));
/// assert_eq!(live.apply(&patch).unwrap(), desired);
/// ```
///
/// ## `#[patch(with = "path")]`
///
/// For a field whose type does not implement `StrategicMerge` (a type of
/// another crate). The contract: `path` names a module (or a type) with a
/// function `shape() -> smp_core::Shape` that describes the field's JSON
/// form (`Shape::Scalar` for a string, number or boolean; `Shape::Any` for
/// JSON merged without metadata; `Shape::Map`, `Shape::List` or
/// `Shape::Struct` otherwise). The field's type needs `Serialize`,
/// `Deserialize`, `PartialEq` and `Clone`; its diff and apply go through
/// the JSON engine on its serialised value, guided by that schema.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use smp_core::StrategicMerge;
///
/// /// A type from another crate, serialised as a string.
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// struct Quantity(String);
///
/// mod quantity {
///     pub fn shape() -> smp_core::Shape {
///         smp_core::Shape::Scalar
///     }
/// }
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Limits {
///     #[patch(with = "quantity")]
///     memory: Quantity,
/// }
///
/// let live = Limits { memory: Quantity("1Gi".into()) };
/// let desired = Limits { memory: Quantity("2Gi".into()) };
/// let patch = live.diff(&desired).unwrap();
/// assert_eq!(patch, json!({"memory": "2Gi"}));
/// assert_eq!(live.apply(&patch).unwrap(), desired);
/// ```
///
/// ## `#[patch(scalar)]` and `#[patch(json)]`
///
/// Shorthands for `with` and smp-core's own schemas, for a field type of
/// another crate: `scalar` for a value serialised as a string, number or
/// boolean (replaced whole), `json` for any JSON merged without metadata
/// (objects merge key by key, lists are replaced).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use smp_core::StrategicMerge;
/// use std::collections::BTreeMap;
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// struct Quantity(String);
///
/// #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Settings(BTreeMap<String, String>);
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Spec {
///     #[patch(scalar)]
///     memory: Quantity,
///     #[patch(json)]
///     settings: Settings,
/// }
///
/// let live = Spec {
///     memory: Quantity("1Gi".into()),
///     settings: Settings(BTreeMap::from([("a".into(), "1".into())])),
/// };
/// let patched = live.apply(&json!({"memory": "2Gi", "settings": {"b": "2"}})).unwrap();
/// assert_eq!(patched.memory, Quantity("2Gi".into()));
/// assert_eq!(patched.settings.0.len(), 2, "the JSON object was merged");
/// ```
///
/// # Misuses are compile errors
///
/// Each at the offending token: a `merge_key` without `strategy = "merge"`
/// (the list would be replaced and the key never read); `strategy =
/// "merge"` on a field that is no list, or on a list of structs without a
/// `merge_key`; a merge key that is not a scalar field every element
/// writes and serde reads back (skipped by serde, `skip_deserializing`, or
/// `skip_serializing_if`); `#[patch]` on
/// tuple struct fields, enum variants, the fields of a transparent struct
/// or of one serde writes `into` another type, and a strategy or merge key
/// on a flattened field, where they are never read; two fields serde
/// writes under the same JSON name (it writes the key twice and cannot
/// read the value back); a field whose JSON name is a directive of the patch format (`$patch`,
/// `$retainKeys`, `$setElementOrder/...`, `$deleteFromPrimitiveList/...`),
/// which no patch can set.
///
/// # `#[serde(into = "Other")]`
///
/// serde writes the value as an `Other`: it is patched as one, with the
/// schema and `#[patch]` attributes of `Other`, which derives
/// `StrategicMerge` too (a missing derive is an error at the attribute).
///
/// # Container attribute
///
/// ## `#[patch(crate = "path")]`
///
/// Where smp-core is, needed only when it is re-exported under another
/// path: by default the generated code names `smp_core` as the crate's
/// `Cargo.toml` does, or `smp_k8s_types::smp_core` when smp-k8s-types is
/// the only smp dependency.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use smp_core as reexported_smp_core;
/// use smp_core::StrategicMerge;
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// #[patch(crate = "reexported_smp_core")]
/// struct WidgetSpec {
///     size: u32,
/// }
///
/// let patch = WidgetSpec { size: 1 }.diff(&WidgetSpec { size: 2 }).unwrap();
/// assert_eq!(patch, serde_json::json!({"size": 2}));
/// ```
///
/// Misuses are compile errors at the attribute: an unknown strategy, a
/// `merge_key` on a field that is not a list of structs or naming no field
/// of the element type, `retainKeys` on a scalar, a field type without
/// `StrategicMerge` and without `with`, `scalar` or `json`.
///
/// # Custom resources
///
/// kube's `#[derive(CustomResource)]` generates the root type (`Backend`
/// for a `BackendSpec`); give it the typed operations too with
/// `#[kube(derive = "StrategicMerge")]` on the spec (beside
/// `#[kube(derive = "PartialEq")]`, which the trait also needs).
#[proc_macro_derive(StrategicMerge, attributes(patch))]
pub fn derive_strategic_merge(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}

/// Implementations for foreign types, from a field-by-field description
/// written by a generator (see `foreign.rs` for the syntax). Not for direct
/// use.
#[doc(hidden)]
#[proc_macro]
pub fn __foreign_impls(input: TokenStream) -> TokenStream {
    let impls = parse_macro_input!(input as foreign::ForeignImpls);
    impls.expand().into()
}
