#![no_main]
//! Apply and merging patches: (original, patch) on one schema.

use libfuzzer_sys::fuzz_target;
use smp_fuzz::Input;

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse(data, 2) else { return };
    let schema = input.schema();
    let (original, patch) = (&input.docs[0], &input.docs[1]);
    if let Ok(result) = smp_core::apply(original, patch, schema) {
        let mut target = original.clone();
        smp_core::apply_in_place(&mut target, patch, schema).expect("apply_in_place agrees with apply");
        assert_eq!(target, result);
    }
    let _ = smp_core::merge_patches(&input.docs, schema);
    let _ = smp_core::merging_maps_have_conflicts(original, patch, schema);
    let _ = smp_core::has_conflicts(original, patch);
});
