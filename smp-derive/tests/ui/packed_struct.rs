use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[repr(C, packed)]
struct Counters {
    small: u8,
    large: u64,
}

fn main() {}
