use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Port {
    #[serde(skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
    port: u16,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    // The default key comes first: every element needs it.
    #[patch(strategy = "merge", merge_key = "protocol,port")]
    ports: Vec<Port>,
}

fn main() {}
