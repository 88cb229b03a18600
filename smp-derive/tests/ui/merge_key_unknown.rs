use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Port {
    container_port: u16,
    protocol: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(strategy = "merge", merge_key = "id")]
    ports: Vec<Port>,
}

fn main() {}
