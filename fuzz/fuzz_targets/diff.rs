#![no_main]
//! Two-way diffs with every option, and applying the patch they give.

use libfuzzer_sys::fuzz_target;
use smp_core::DiffOptions;
use smp_fuzz::Input;

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse(data, 2) else { return };
    let schema = input.schema();
    let (original, modified) = (&input.docs[0], &input.docs[1]);
    if let Ok(patch) = smp_core::diff(original, modified, schema) {
        let _ = smp_core::apply(original, &patch, schema);
    }
    let options = DiffOptions {
        set_element_order: input.selector & 0x10 != 0,
        ignore_changes_and_additions: input.selector & 0x20 != 0,
        ignore_deletions: input.selector & 0x40 != 0,
        patch_merge_key: input.selector & 0x80 != 0,
    };
    let _ = smp_core::diff_with(original, modified, schema, options);
});
