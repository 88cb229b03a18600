//! Maps of scalars with string keys, typed: the diff is made key by key on
//! the values themselves, and must be exactly the JSON engine's on the
//! serialised maps, for two-way and three-way patches (whose steps send
//! only additions or only deletions), with null values, values that change
//! JSON type, a `$patch` key (with a string, the only value the engine
//! compares under it; any other value is refused, even in equal maps), and
//! maps replaced whole or under `retainKeys`.

use proptest::collection::{btree_map, hash_map};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use smp_core::{Schema, StrategicMerge, ThreeWayOptions};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Doc {
    labels: BTreeMap<String, String>,
    /// `None` is a JSON null: a value of another JSON type.
    limits: HashMap<String, Option<i64>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    flags: BTreeMap<String, bool>,
    #[patch(strategy = "replace")]
    replaced: BTreeMap<String, String>,
    #[patch(strategy = "retainKeys")]
    retained: BTreeMap<String, u8>,
}

fn schema() -> Schema<'static> {
    Schema::Static(Doc::shape())
}

fn json_of(doc: &Doc) -> Value {
    serde_json::to_value(doc).unwrap()
}

/// Few keys, so that maps share some.
fn key() -> impl Strategy<Value = String> {
    "[a-c]"
}

fn doc() -> impl Strategy<Value = Doc> {
    let label = prop_oneof![4 => key(), 1 => Just("$patch".to_string())];
    let limit = prop_oneof![8 => key(), 1 => Just("$patch".to_string())];
    (
        btree_map(label, "[xy]", 0..4),
        hash_map(limit, proptest::option::of(-2i64..2), 0..4),
        btree_map(key(), any::<bool>(), 0..3),
        btree_map(key(), "[xy]", 0..3),
        btree_map(key(), 0u8..3, 0..3),
    )
        .prop_map(|(labels, limits, flags, replaced, retained)| Doc { labels, limits, flags, replaced, retained })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn the_typed_diff_of_maps_is_the_engines(a in doc(), b in doc()) {
        let typed = a.diff(&b).map_err(|e| e.to_string());
        let engine = smp_core::diff(&json_of(&a), &json_of(&b), schema()).map_err(|e| e.to_string());
        prop_assert_eq!(typed, engine);
    }

    #[test]
    fn the_typed_three_way_of_maps_is_the_engines(last in doc(), desired in doc(), live in doc(), overwrite: bool) {
        let options = ThreeWayOptions { overwrite, ..Default::default() };
        let typed = live.three_way(&last, &desired, options).map_err(|e| e.to_string());
        let engine = smp_core::three_way(&json_of(&last), &json_of(&desired), &json_of(&live), schema(), options)
            .map_err(|e| e.to_string());
        prop_assert_eq!(typed, engine);
    }
}

#[test]
fn a_changed_map_of_scalars_sends_its_changes_and_nulls_its_removed_keys() {
    let a = Doc {
        labels: BTreeMap::from([("a".into(), "x".into()), ("b".into(), "x".into())]),
        limits: HashMap::from([("a".into(), Some(1)), ("b".into(), None)]),
        flags: BTreeMap::new(),
        replaced: BTreeMap::new(),
        retained: BTreeMap::new(),
    };
    let mut b = a.clone();
    b.labels.remove("a");
    b.labels.insert("c".into(), "y".into());
    b.limits.insert("a".into(), None);
    b.limits.insert("b".into(), Some(0));
    let patch = a.diff(&b).unwrap();
    // A replace-strategy map is sent whole, changed or not.
    assert_eq!(patch, json!({"labels": {"a": null, "c": "y"}, "limits": {"a": null, "b": 0}, "replaced": {}}));
    assert_eq!(smp_core::diff(&json_of(&a), &json_of(&b), schema()).unwrap(), patch);
}

/// Maps whose `$patch` key holds an object: the reference reads a struct
/// through the map's key only when the two values differ.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Nested {
    inner: BTreeMap<String, Doc>,
    #[serde(flatten)]
    rest: BTreeMap<String, i64>,
}

#[test]
fn equal_maps_with_a_patch_key_that_is_not_a_string_are_refused_as_by_the_engine() {
    let mut a = Doc {
        labels: BTreeMap::new(),
        limits: HashMap::from([("$patch".into(), Some(1))]),
        flags: BTreeMap::new(),
        replaced: BTreeMap::new(),
        retained: BTreeMap::new(),
    };
    let engine = |a: &Doc| smp_core::diff(&json_of(a), &json_of(a), schema()).map_err(|e| e.to_string());
    let refused = engine(&a);
    assert_eq!(refused, Err("limits: invalid value for special key: $patch".to_string()));
    assert_eq!(a.diff(&a).map_err(|e| e.to_string()), refused);
    // A string is compared, and equal ones need no patch.
    a.limits.clear();
    a.labels.insert("$patch".into(), "x".into());
    // (A replace-strategy map is sent whole, changed or not.)
    assert_eq!(engine(&a), Ok(json!({"replaced": {}})));
    assert_eq!(a.diff(&a).map_err(|e| e.to_string()), engine(&a));

    // Under a struct held in a map (whose lookup the reference skips for
    // equal values), and in a flattened map.
    let doc = a.clone();
    let nested = Nested { inner: BTreeMap::from([("k".into(), doc)]), rest: BTreeMap::from([("$patch".into(), 3)]) };
    let json = serde_json::to_value(&nested).unwrap();
    let engine = smp_core::diff(&json, &json, Schema::Static(Nested::shape())).map_err(|e| e.to_string());
    assert!(engine.is_err(), "{engine:?}");
    assert_eq!(nested.diff(&nested).map_err(|e| e.to_string()), engine);
    let mut quiet = nested.clone();
    quiet.rest.clear();
    let json = serde_json::to_value(&quiet).unwrap();
    let engine = smp_core::diff(&json, &json, Schema::Static(Nested::shape())).map_err(|e| e.to_string());
    assert_eq!(engine, Ok(json!({})));
    assert_eq!(quiet.diff(&quiet).map_err(|e| e.to_string()), engine);
}
