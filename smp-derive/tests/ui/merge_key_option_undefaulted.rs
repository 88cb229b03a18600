use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Item {
    // `None` is written as `null`: an element whose key is null.
    name: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Item>,
}

fn main() {}
