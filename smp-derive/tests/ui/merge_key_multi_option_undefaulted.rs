use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Port {
    port: u16,
    // Absent when `None`, with no default the API server could fill in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(strategy = "merge", merge_key = "port,protocol")]
    ports: Vec<Port>,
}

fn main() {}
