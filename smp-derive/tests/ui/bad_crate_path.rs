use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[patch(crate = "not a path!")]
struct Spec {
    name: String,
}

fn main() {}
