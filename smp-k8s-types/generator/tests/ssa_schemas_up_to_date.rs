//! The checked-in `smp-k8s-types/src/ssa_schemas.json` is what the
//! generator cuts from the shared OpenAPI v3 documents.

use smp_k8s_gen::{locate, ssa_schemas};
use std::io::Write;

#[test]
fn ssa_schemas_are_up_to_date() {
    let root = locate::workspace_root();
    let Some(dir) = ssa_schemas::openapi_dir(&root) else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED ssa_schemas_are_up_to_date: no shared/k8s/openapi-v3 beside the workspace (set SMP_SHARED)"
        );
        return;
    };
    let text = ssa_schemas::generate(&dir).expect("the schemas are cut");
    let current = std::fs::read_to_string(root.join(ssa_schemas::OUTPUT)).unwrap_or_default();
    assert!(current == text, "{} is out of date: run `cargo run -p smp-k8s-gen` to refresh it", ssa_schemas::OUTPUT);
    // Every kind of the seven groups' documents is there.
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for def in ["io.k8s.api.apps.v1.Deployment", "io.k8s.api.core.v1.Pod", "io.k8s.api.rbac.v1.Role"] {
        assert!(schemas.contains_key(def), "{def}");
    }
}
