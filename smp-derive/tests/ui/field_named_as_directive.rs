use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    name: String,
    #[serde(rename = "$patch")]
    marker: Option<u32>,
    #[serde(rename = "$setElementOrder/name")]
    order: Option<Vec<String>>,
}

fn main() {}
