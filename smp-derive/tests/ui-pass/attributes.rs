//! Container attributes, `with`, several `#[patch]` on one field, and
//! serde-skipped fields without patch attributes.

use serde::{Deserialize, Serialize};

mod reexport {
    pub use smp_core as smp;
}

use reexport::smp::StrategicMerge;

mod opaque {
    use smp_core::schema::Shape;

    pub fn shape() -> Shape {
        Shape::Any
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Opaque(u32);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[patch(crate = "reexport::smp")]
struct Item {
    name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[patch(crate = "reexport::smp")]
struct Spec {
    #[patch(strategy = "merge")]
    #[patch(merge_key = "name")]
    items: Vec<Item>,
    #[patch(with = "opaque")]
    opaque: Opaque,
    #[serde(skip)]
    cache: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Wrapper<T> {
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<T>,
}

fn main() {
    let _ = <Spec as StrategicMerge>::shape();
    let _ = <Wrapper<Item> as StrategicMerge>::shape();
}
