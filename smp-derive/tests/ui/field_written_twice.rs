use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Spec {
    max_count: u32,
    #[serde(rename = "maxCount")]
    limit: u32,
}

fn main() {}
