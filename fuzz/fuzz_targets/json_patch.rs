#![no_main]
//! JSON patches: (document, operations, other document). The operations
//! applied as text and as parsed operations agree; the patch `diff` and
//! `guarded` compute from the document to the other one gives it.

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use smp_core::json_patch;
use smp_fuzz::Input;

fuzz_target!(|data: &[u8]| {
    let Some(input) = Input::parse_values(data, 3) else { return };
    let (doc, ops, other) = (&input.docs[0], &input.docs[1], &input.docs[2]);
    let as_text = json_patch::apply_ops(doc, ops);
    if let Ok(patch) = json_patch::parse(ops) {
        let parsed = json_patch::apply(doc, &patch);
        match (&as_text, &parsed) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "the same operations, read two ways"),
            (Err(_), Err(_)) => {}
            _ => panic!("the same operations, read two ways: {as_text:?} / {parsed:?}"),
        }
    }
    if !(doc.is_object() && other.is_object()) {
        return;
    }
    // Without a version, `diff` leaves nothing out: its patch gives `other`.
    let version = |v: &Value| v.pointer("/metadata/resourceVersion").is_some();
    if let Ok(patch) = json_patch::diff(doc, other)
        && !version(doc)
        && !version(other)
    {
        assert_eq!(&json_patch::apply(doc, &patch).expect("its own diff applies"), other);
    }
    if let Ok(patch) = json_patch::guarded(doc, other) {
        let _ = json_patch::apply(doc, &patch);
    }
});
