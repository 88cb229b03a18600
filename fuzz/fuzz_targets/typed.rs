#![no_main]
//! The typed layer on a recursive derived type: diff, apply and three-way
//! on values read from the documents, and typed apply of raw patches.

use libfuzzer_sys::fuzz_target;
use smp_core::{StrategicMerge, ThreeWayOptions};
use smp_fuzz::{Input, Node};

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse(data, 3) else { return };
    let nodes: Vec<Node> = input.docs.iter().filter_map(|d| serde_json::from_value(d.clone()).ok()).collect();
    if let Some(first) = nodes.first() {
        // Any document as a patch.
        for patch in &input.docs {
            let _ = first.apply(patch);
        }
    }
    if let [a, b, c, ..] = nodes.as_slice() {
        if let Ok(patch) = a.diff(b) {
            let _ = a.apply(&patch);
        }
        let options = ThreeWayOptions { overwrite: input.flag(), ..Default::default() };
        if let Ok(patch) = c.three_way(a, b, options) {
            let _ = c.apply(&patch);
        }
    }
});
