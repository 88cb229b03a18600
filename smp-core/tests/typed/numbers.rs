//! Typed apply takes what the reference's output deserialises into: Go
//! prints a whole float64 (`5.0`) as `5`, so an integer field accepts it,
//! while a fraction is still refused.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use smp_core::{Schema, StrategicMerge, apply};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Shard {
    shard_id: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weight: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    priority: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ratio: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extra: Option<Value>,
    #[patch(strategy = "merge", merge_key = "shardId")]
    #[serde(default)]
    shards: Vec<Shard>,
}

fn live() -> Spec {
    Spec { priority: Some(1), ratio: None, extra: None, shards: vec![Shard { shard_id: 1, weight: Some(1) }] }
}

/// The typed result, and the engine's result read back as Go prints it and
/// reads it again (`-0` is the integer 0 to Go's decoder, a float to
/// serde_json's).
fn both(patch: Value) -> (smp_core::Result<Spec>, Spec) {
    let typed = live().apply(&patch);
    let engine = apply(&serde_json::to_value(live()).unwrap(), &patch, Schema::Static(Spec::shape())).unwrap();
    let printed = smp_core::unstable::to_go_json(&engine);
    (typed, serde_json::from_value(smp_core::decode(printed.as_bytes()).unwrap()).unwrap())
}

#[test]
fn a_whole_float_sets_an_integer_field() {
    let (typed, engine) = both(json!({"priority": 5.0}));
    assert_eq!(typed.unwrap(), engine);
    assert_eq!(engine.priority, Some(5));
    let (typed, engine) = both(json!({"priority": -0.0, "shards": [{"shardId": 1, "weight": 3.0}]}));
    assert_eq!(typed.unwrap(), engine);
    assert_eq!((engine.priority, engine.shards[0].weight), (Some(0), Some(3)));
}

#[test]
fn a_whole_float_merge_key_is_a_new_element_with_an_integer_key() {
    // `2.0` matches no live key: a new element, which goes first.
    let (typed, engine) = both(json!({"shards": [{"shardId": 2.0, "weight": 1}]}));
    assert_eq!(typed.unwrap(), engine);
    assert_eq!(engine.shards, [Shard { shard_id: 2, weight: Some(1) }, Shard { shard_id: 1, weight: Some(1) }]);
    // Nor does `1.0` match the live `1`: two elements print with key 1.
    let (typed, engine) = both(json!({"shards": [{"shardId": 1.0}]}));
    assert_eq!(typed.unwrap(), engine);
    assert_eq!(engine.shards, [Shard { shard_id: 1, weight: None }, Shard { shard_id: 1, weight: Some(1) }]);
}

#[test]
fn fractions_and_floats_out_of_range_are_still_refused() {
    assert!(live().apply(&json!({"priority": 5.5})).is_err());
    assert!(live().apply(&json!({"priority": 1e20})).is_err());
    assert!(live().apply(&json!({"shards": [{"shardId": 1, "weight": -1.0}]})).is_err());
}

#[test]
fn float_fields_and_arbitrary_json_keep_their_floats() {
    let spec = live().apply(&json!({"ratio": 2.0, "extra": {"x": 2.0}})).unwrap();
    assert_eq!(spec.ratio, Some(2.0));
    assert_eq!(spec.extra, Some(json!({"x": 2.0})));
}
