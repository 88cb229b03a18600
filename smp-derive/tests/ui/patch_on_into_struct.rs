use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Member {
    name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct RawGroup {
    #[patch(strategy = "merge", merge_key = "name")]
    group_members: Vec<Member>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(from = "RawGroup", into = "RawGroup")]
struct Group {
    #[patch(strategy = "merge", merge_key = "name")]
    members: Vec<Member>,
}

impl From<RawGroup> for Group {
    fn from(r: RawGroup) -> Self {
        Group { members: r.group_members }
    }
}

impl From<Group> for RawGroup {
    fn from(g: Group) -> Self {
        RawGroup { group_members: g.members }
    }
}

fn main() {}
