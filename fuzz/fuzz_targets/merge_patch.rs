#![no_main]
//! JSON merge patches (RFC 7386, as the reference's library): create,
//! apply and the three-way patch of `kubectl apply` on (original,
//! modified, current), with kubectl's preconditions when the selector's
//! flag is set.

use libfuzzer_sys::fuzz_target;
use smp_core::{Precondition, merge_patch};
use smp_fuzz::Input;

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse_values(data, 3) else { return };
    let (original, modified, current) = (&input.docs[0], &input.docs[1], &input.docs[2]);
    if let Ok(patch) = merge_patch::create(original, modified) {
        let _ = merge_patch::apply(original, &patch);
    }
    let _ = merge_patch::apply(original, modified);
    let preconditions: &[Precondition<'_>] = if input.flag() { &Precondition::KUBECTL } else { &[] };
    if let Ok(patch) = merge_patch::three_way(original, modified, current, preconditions) {
        let _ = merge_patch::apply(current, &patch);
    }
});
