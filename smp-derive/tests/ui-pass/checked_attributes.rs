//! What the attribute checks accept: scalar merge keys of every kind
//! (unit enums, transparent wrappers, `Option`s written as `null`, floats,
//! arbitrary JSON), sets of scalars and of lists, `BTreeSet`s, and lists
//! behind `Option`, `Box` and `Arc`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
enum Protocol {
    Tcp,
    Udp,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(transparent)]
struct Name(String);

fn no_alias() -> Option<String> {
    None
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Item {
    protocol: Protocol,
    name: Name,
    // An `Option` key says how it is defaulted.
    #[serde(default = "no_alias")]
    alias: Option<String>,
    weight: f64,
    id: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(strategy = "merge", merge_key = "protocol")]
    by_protocol: Vec<Item>,
    #[patch(strategy = "merge", merge_key = "name")]
    by_name: Option<Vec<Item>>,
    #[patch(strategy = "merge,retainKeys", merge_key = "alias")]
    by_alias: Box<Vec<Item>>,
    #[patch(strategy = "merge", merge_key = "weight")]
    by_weight: Vec<Item>,
    #[patch(strategy = "merge", merge_key = "id")]
    by_id: Vec<Item>,
    #[patch(strategy = "merge")]
    names: Option<Vec<Name>>,
    #[patch(strategy = "merge")]
    protocols: Vec<Protocol>,
    #[patch(strategy = "merge")]
    grid: Vec<Vec<String>>,
    #[patch(strategy = "merge")]
    tags: std::collections::BTreeSet<String>,
    #[patch(strategy = "merge")]
    shared: std::sync::Arc<Vec<std::net::IpAddr>>,
    #[patch(strategy = "merge")]
    anything: Value,
    #[patch(strategy = "retainKeys")]
    item: Option<Item>,
    #[patch(strategy = "replace")]
    replaced: Vec<Item>,
}

fn main() {
    let _ = <Spec as StrategicMerge>::shape();
}
