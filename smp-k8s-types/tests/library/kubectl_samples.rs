//! The patches kubectl itself sent for the oracle's sample objects
//! (`../shared/oracle/samples`, captured byte for byte), recomputed by smp.

use serde_json::Value;
use smp_core::{OpenApi, Schema, decode, diff};
use smp_k8s_types::k8s_openapi::api::{apps::v1::Deployment, core::v1::Pod};
use smp_k8s_types::kubectl::{apply_patch, typed_apply_patch};
use std::path::PathBuf;

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("SMP_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    dir.join("oracle/samples").is_dir().then_some(dir)
}

fn read(dir: &std::path::Path, name: &str) -> Value {
    let bytes = std::fs::read(dir.join("oracle/samples").join(name)).expect(name);
    decode(&bytes).expect(name)
}

fn typed<T: serde::de::DeserializeOwned>(dir: &std::path::Path, name: &str) -> T {
    serde_json::from_value(read(dir, name)).expect(name)
}

fn schema<'a>(doc: &'a OpenApi, kind: &str) -> Schema<'a> {
    let name = match kind {
        "pod" => "io.k8s.api.core.v1.Pod",
        _ => "io.k8s.api.apps.v1.Deployment",
    };
    doc.definition(name).expect(name)
}

#[test]
fn kubectl_apply_and_edit_patches_are_reproduced_exactly() {
    let Some(dir) = shared() else {
        eprintln!("SKIPPED: ../shared/oracle/samples is missing; kubectl's captured patches were not compared");
        return;
    };
    let load = |f: &str| OpenApi::from_json_slice(&std::fs::read(dir.join("k8s/openapi-v3").join(f)).unwrap()).unwrap();
    let core = load("api__v1_openapi.json");
    let apps = load("apis__apps__v1_openapi.json");
    for (kind, doc) in [("pod", &core), ("deployment", &apps)] {
        let live = read(&dir, &format!("{kind}_live_with_annotation.json"));
        let modified = read(&dir, &format!("{kind}_modified.json"));
        let original = read(&dir, &format!("{kind}_original.json"));
        let want = read(&dir, &format!("{kind}_threeway.patch"));
        let got = apply_patch(&live, &modified, schema(doc, kind), true).unwrap();
        assert_eq!(got, want, "{kind}: kubectl apply patch");

        let want = read(&dir, &format!("{kind}_twoway.patch"));
        let got = diff(&original, &modified, schema(doc, kind)).unwrap();
        assert_eq!(got, want, "{kind}: two-way patch");
    }
}

/// The same patches from the typed objects, with the static schemas.
#[test]
fn kubectl_apply_patches_are_reproduced_from_typed_objects() {
    let Some(dir) = shared() else {
        eprintln!("SKIPPED: ../shared/oracle/samples is missing; kubectl's captured patches were not compared");
        return;
    };
    let pod = typed_apply_patch::<Pod>(
        &typed(&dir, "pod_live_with_annotation.json"),
        &typed(&dir, "pod_modified.json"),
        true,
    )
    .unwrap();
    assert_eq!(pod, read(&dir, "pod_threeway.patch"), "pod: kubectl apply patch");
    let deployment = typed_apply_patch::<Deployment>(
        &typed(&dir, "deployment_live_with_annotation.json"),
        &typed(&dir, "deployment_modified.json"),
        true,
    )
    .unwrap();
    assert_eq!(deployment, read(&dir, "deployment_threeway.patch"), "deployment: kubectl apply patch");
}
