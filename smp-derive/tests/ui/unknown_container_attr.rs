use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[patch(rename_all = "camelCase")]
struct Spec {
    name: String,
}

fn main() {}
