//! Merge keys are JSON names: renamed fields, keywords, names that are no
//! Rust identifier, and element types in other modules.

use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

mod inner {
    use serde::{Deserialize, Serialize};
    use smp_core::StrategicMerge;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
    pub(crate) struct Volume {
        pub(crate) name: String,
        #[serde(skip)]
        pub(crate) cache: u32,
    }

    pub(super) mod deeper {
        use serde::{Deserialize, Serialize};
        use smp_core::StrategicMerge;

        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
        pub(in crate::inner) struct Mount {
            pub(in crate::inner) path: String,
        }
    }

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
    pub(super) struct Mounts {
        #[patch(strategy = "merge", merge_key = "path")]
        mounts: Vec<deeper::Mount>,
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Condition {
    #[serde(rename = "type")]
    kind: String,
    #[serde(rename = "last-probe")]
    last_probe: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Status {
    #[patch(strategy = "merge", merge_key = "type")]
    conditions: Vec<Condition>,
    #[patch(strategy = "merge", merge_key = "last-probe")]
    probes: Vec<Condition>,
    #[patch(strategy = "merge", merge_key = "name")]
    volumes: Box<Vec<inner::Volume>>,
    mounts: inner::Mounts,
}

fn main() {
    let _ = <Status as StrategicMerge>::shape();
}
