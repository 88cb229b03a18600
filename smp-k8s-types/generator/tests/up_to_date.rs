//! The checked-in `smp-core/src/k8s/generated.rs` is what the generator
//! writes from the current k8s-openapi sources and patch metadata table.

use smp_k8s_gen::{emit, generate, locate};

#[test]
fn generated_files_are_up_to_date() {
    let root = locate::workspace_root();
    let output = generate(&root).expect("the generator runs");
    assert!(!output.files.is_empty());
    let mut stale = Vec::new();
    for (path, text) in &output.files {
        if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.strip_prefix(&root).unwrap_or(path).display().to_string());
        }
    }
    // Generated files that the generator no longer writes.
    for entry in std::fs::read_dir(locate::output_dir(&root)).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.starts_with(emit::HEADER) && !output.files.iter().any(|(p, _)| *p == path) {
            stale.push(format!("{} (no longer generated)", path.display()));
        }
    }
    assert!(
        stale.is_empty(),
        "generated files are out of date: {stale:?}\nrun `cargo run -p smp-k8s-gen` to refresh them"
    );

    // The generator fails on a row whose type never has that field; the
    // rows of types in no version are unserved group versions.
    let mapped = output.mapped.values().filter(|v| !v.is_empty()).count();
    // core/v1, apps/v1, meta/v1... map in every version.
    let everywhere = output.mapped.values().filter(|v| v.len() == output.versions.len()).count();
    assert!(mapped >= 90 && everywhere >= 50, "{mapped} rows mapped, {everywhere} in every version");
}
