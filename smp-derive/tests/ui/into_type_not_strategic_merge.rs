use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct RawGroup {
    members: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(from = "RawGroup", into = "RawGroup")]
struct Group {
    members: Vec<String>,
}

impl From<RawGroup> for Group {
    fn from(r: RawGroup) -> Self {
        Group { members: r.members }
    }
}

impl From<Group> for RawGroup {
    fn from(g: Group) -> Self {
        RawGroup { members: g.members }
    }
}

fn main() {}
