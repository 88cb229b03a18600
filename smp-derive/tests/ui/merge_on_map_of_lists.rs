use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Member {
    name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(strategy = "merge")]
    sets: BTreeMap<String, Vec<String>>,
    #[patch(strategy = "merge", merge_key = "name")]
    groups: BTreeMap<String, Vec<Member>>,
}

fn main() {}
