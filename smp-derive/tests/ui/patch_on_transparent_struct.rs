use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Member {
    name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(transparent)]
struct Members {
    #[patch(strategy = "merge", merge_key = "name")]
    items: Vec<Member>,
}

fn main() {}
