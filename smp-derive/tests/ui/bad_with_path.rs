use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(with = "not a path!")]
    value: u32,
}

fn main() {}
