//! Field types of other crates, with the shorthands for their schema.

use serde::{Deserialize, Serialize};
use serde_json::json;
use smp_core::StrategicMerge;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Quantity(String);

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Settings(BTreeMap<String, String>);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(scalar)]
    size: Quantity,
    #[patch(json)]
    settings: Settings,
}

fn main() {
    let live = Spec { size: Quantity("1Gi".into()), settings: Settings::default() };
    let patched = live.apply(&json!({"size": "2Gi", "settings": {"a": "b"}})).unwrap();
    assert_eq!(patched.size, Quantity("2Gi".into()));
    assert_eq!(live.diff(&patched).unwrap(), json!({"size": "2Gi", "settings": {"a": "b"}}));
}
