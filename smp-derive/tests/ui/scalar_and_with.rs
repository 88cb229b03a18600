use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

mod quantity {
    pub fn shape() -> smp_core::Shape {
        smp_core::Shape::Scalar
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Quantity(String);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(scalar, with = "quantity")]
    size: Quantity,
}

fn main() {}
