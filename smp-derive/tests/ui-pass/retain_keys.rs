use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Volume {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(strategy = "retainKeys")]
    strategy: Volume,
    #[patch(strategy = "merge,retainKeys", merge_key = "name")]
    volumes: Vec<Volume>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[patch(strategy = "retainKeys")]
    optional: Option<Volume>,
    #[patch(strategy = "retainKeys")]
    labels: BTreeMap<String, String>,
}

fn main() {}
