use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

fn unnamed() -> Option<String> {
    Some("default".into())
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Item {
    // Defaulted, but left out when `None`: an element without its key.
    #[serde(default = "unnamed", skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Item>,
}

fn main() {}
