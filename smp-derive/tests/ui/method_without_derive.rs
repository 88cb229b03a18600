// A method of `StrategicMerge` called on a type without the derive (as on
// the root type of a kube `CustomResource` without `#[kube(derive =
// "StrategicMerge")]`): the error says what to add, and names only
// `StrategicMerge` among the traits with a `diff`.
use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Plain {
    name: String,
}

fn main() {
    let a = Plain { name: "a".into() };
    let _ = a.diff(&a);
}
