#![no_main]
//! Three-way patches (last applied, desired, live), with and without
//! overwrite, and applying them to the live object.

use libfuzzer_sys::fuzz_target;
use smp_core::{Precondition, ThreeWayOptions};
use smp_fuzz::Input;

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse(data, 3) else { return };
    let schema = input.schema();
    let (original, modified, current) = (&input.docs[0], &input.docs[1], &input.docs[2]);
    let preconditions = [Precondition::KeyUnchanged("kind"), Precondition::MetadataKeyUnchanged("name")];
    let options = ThreeWayOptions { overwrite: input.flag(), preconditions: &preconditions, ..Default::default() };
    if let Ok(patch) = smp_core::three_way(original, modified, current, schema, options) {
        let _ = smp_core::apply(current, &patch, schema);
    }
});
