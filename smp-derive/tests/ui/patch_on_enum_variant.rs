use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
enum Source {
    #[patch(strategy = "merge")]
    Names(Vec<String>),
    Ports {
        #[patch(strategy = "bogus")]
        ports: Vec<u16>,
    },
}

fn main() {}
