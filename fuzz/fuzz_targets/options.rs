#![no_main]
//! The opt-in extensions on (original, patch or modified, current):
//! `$patchMergeKey` on apply, diff and three-way (a diff's patch must
//! apply with it), strict apply, the duplicate-key check and the checked
//! diff (which refuses rather than return a patch that does not give the
//! modified object).

use libfuzzer_sys::fuzz_target;
use smp_core::{ApplyOptions, DiffOptions, ThreeWayOptions};
use smp_fuzz::Input;

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse(data, 3) else { return };
    let schema = input.schema();
    let (original, second, current) = (&input.docs[0], &input.docs[1], &input.docs[2]);
    let patch_merge_key = input.selector & 0x10 != 0;
    let strict = input.selector & 0x20 != 0;
    let apply_options = ApplyOptions { patch_merge_key, strict };
    let _ = smp_core::apply_with(original, second, schema, apply_options);
    let diff_options =
        DiffOptions { set_element_order: input.selector & 0x40 != 0, patch_merge_key, ..Default::default() };
    if let Ok(patch) = smp_core::diff_with(original, second, schema, diff_options) {
        let _ = smp_core::apply_with(original, &patch, schema, ApplyOptions { patch_merge_key, strict: false });
    }
    let _ = smp_core::diff_checked(original, second, schema, diff_options);
    let _ = smp_core::check(original, schema);
    let options = ThreeWayOptions { overwrite: input.flag(), patch_merge_key, ..Default::default() };
    if let Ok(patch) = smp_core::three_way(original, second, current, schema, options) {
        let _ = smp_core::apply_with(current, &patch, schema, ApplyOptions { patch_merge_key, strict });
    }
});
