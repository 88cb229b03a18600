//! Scaling, at N and 10N, of the `smp` command's paths a review of hostile
//! input found super-linear, through the functions the command calls (its
//! modules are compiled in from the binary's sources):
//!
//! - `crd_versions`: `--crd` with a v1beta1 CRD of N versions sharing one
//!   `spec.validation` schema of 200 properties and 20 keyed lists
//!   (`crd_schema::openapi`; once translated and warned about per
//!   version);
//! - `recursive_links`: `-R` on a folder of N subfolders, each holding an
//!   object and links to itself and to the top (`documents::read`; links
//!   to folders were followed);
//! - `explain_set`, `explain_delete_from_primitive_list`: `--explain` of
//!   N finalizers added to N, and of `$deleteFromPrimitiveList` naming N
//!   of 2N (`explain::explain`; a scan of the list per item);
//! - `diff_changed_lines`, `diff_changed_runs`: `--diff` of N lines,
//!   every other one changed, and all but every 500th (`textdiff::unified`;
//!   Myers' algorithm on the whole text).
//!
//! Each is linear: the time grows about tenfold from N to 10N, not a
//! hundredfold (`docs/performance.md`, "Hostile input"). Run with
//! `cargo bench -p smp-k8s-types --features cli --bench hostile_cli`;
//! `SMP_HOSTILE_N=N` runs one size only, to count its instructions with
//! callgrind.

// A bench build compiles the modules' `cfg(test)` parts without their
// tests, whose imports are then unused; `builtin` is there for them.
#[path = "../src/bin/smp/args.rs"]
#[allow(dead_code, unused_imports)]
mod args;
#[path = "../src/bin/smp/builtin.rs"]
#[allow(dead_code, unused_imports)]
mod builtin;
#[path = "../src/bin/smp/documents.rs"]
#[allow(dead_code, unused_imports)]
mod documents;
#[path = "../src/bin/smp/explain.rs"]
#[allow(dead_code, unused_imports)]
mod explain;
#[path = "../src/bin/smp/input.rs"]
#[allow(dead_code, unused_imports)]
mod input;
#[path = "../src/bin/smp/numbers.rs"]
#[allow(dead_code, unused_imports)]
mod numbers;
#[path = "../src/bin/smp/prescan.rs"]
#[allow(dead_code, unused_imports)]
mod prescan;
#[path = "../src/bin/smp/textdiff.rs"]
#[allow(dead_code, unused_imports)]
mod textdiff;
#[path = "../src/bin/smp/yaml_read.rs"]
#[allow(dead_code, unused_imports)]
mod yaml_read;
#[path = "../src/bin/smp/yaml_scalar.rs"]
#[allow(dead_code, unused_imports)]
mod yaml_scalar;

use divan::{Bencher, black_box};
use serde_json::{Map, Value, json};
use smp_core::Schema;
use smp_k8s_types::crd_schema;
use std::path::Path;

fn main() {
    divan::main();
}

/// N and 10N, or the size `SMP_HOSTILE_N` names alone.
fn sizes(n: usize) -> Vec<usize> {
    match std::env::var("SMP_HOSTILE_N").ok().and_then(|v| v.parse().ok()) {
        Some(only) => vec![only],
        None => vec![n, 10 * n],
    }
}

#[divan::bench(args = sizes(200), sample_count = 10)]
fn crd_versions(bencher: Bencher, n: usize) {
    let mut properties = Map::new();
    for p in 0..200 {
        properties.insert(format!("field{p}"), json!({"type": "string"}));
    }
    for l in 0..20 {
        // A map list without keys: one warning (per version, once).
        properties.insert(
            format!("list{l}"),
            json!({"type": "array", "x-kubernetes-list-type": "map",
                "items": {"type": "object", "properties": {"name": {"type": "string"}}}}),
        );
    }
    let versions: Vec<Value> =
        (0..n).map(|v| json!({"name": format!("v{v}"), "served": true, "storage": v == 0})).collect();
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "versions": versions,
            "validation": {"openAPIV3Schema": {"type": "object",
                "properties": {"spec": {"type": "object", "properties": properties}}}}}
    });
    let crds = [crd];
    bencher.bench(|| crd_schema::openapi(black_box(&crds), None).unwrap());
}

/// A folder of `n` subfolders, each with an object, a link to itself and
/// a link to the top; removed when dropped.
struct LinkedTree(std::path::PathBuf);

impl LinkedTree {
    fn new(n: usize) -> Self {
        let top = std::env::temp_dir().join(format!("smp-bench-links-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        for i in 0..n {
            let dir = top.join(format!("d{i:05}"));
            std::fs::create_dir_all(&dir).unwrap();
            let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("cm{i}")}});
            std::fs::write(dir.join("cm.json"), object.to_string()).unwrap();
            std::os::unix::fs::symlink(".", dir.join("self")).unwrap();
            std::os::unix::fs::symlink("..", dir.join("up")).unwrap();
        }
        LinkedTree(top)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for LinkedTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[divan::bench(args = sizes(100), sample_count = 10)]
fn recursive_links(bencher: Bencher, n: usize) {
    let tree = LinkedTree::new(n);
    let source = args::Source::File(tree.path().to_path_buf());
    bencher.bench(|| {
        let documents = documents::read(black_box(&source), "original", true, documents::Objects::Kubernetes).unwrap();
        assert_eq!(documents.len(), n, "each object once");
        documents
    });
}

fn configmap_schema() -> Schema<'static> {
    smp_k8s_types::shape_of_kind("v1", "ConfigMap").map(Schema::Static).unwrap()
}

fn finalizers(range: std::ops::Range<usize>) -> Vec<Value> {
    range.map(|i| json!(format!("example.com/f{i}"))).collect()
}

#[divan::bench(args = sizes(10_000), sample_count = 10)]
fn explain_set(bencher: Bencher, n: usize) {
    let before = json!({"metadata": {"finalizers": finalizers(0..n)}});
    let patch = json!({"metadata": {"finalizers": finalizers(n..2 * n)}});
    let after = json!({"metadata": {"finalizers": finalizers(0..2 * n)}});
    let schema = configmap_schema();
    bencher.bench(|| explain::explain(black_box(&before), black_box(&patch), black_box(&after), schema));
}

#[divan::bench(args = sizes(10_000), sample_count = 10)]
fn explain_delete_from_primitive_list(bencher: Bencher, n: usize) {
    let before = json!({"metadata": {"finalizers": finalizers(0..2 * n)}});
    let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": finalizers(0..n)}});
    let after = json!({"metadata": {"finalizers": finalizers(n..2 * n)}});
    let schema = configmap_schema();
    bencher.bench(|| explain::explain(black_box(&before), black_box(&patch), black_box(&after), schema));
}

/// `n` lines `key…: value…`, the ones `changed` picks with another value.
fn lines(n: usize, changed: impl Fn(usize) -> bool) -> String {
    (0..n)
        .map(|i| if changed(i) { format!("  key{i}: changed{i}\n") } else { format!("  key{i}: value{i}\n") })
        .collect()
}

#[divan::bench(args = sizes(5_000), sample_count = 10)]
fn diff_changed_lines(bencher: Bencher, n: usize) {
    let (before, after) = (lines(n, |_| false), lines(n, |i| i % 2 == 0));
    bencher.bench(|| textdiff::unified(black_box(&before), black_box(&after), "ConfigMap cm", false));
}

/// The worst case of the bounded line diff: runs of 499 changed lines
/// between unchanged ones, so that every region given to Myers' algorithm
/// is as large as it may be (998 lines, none in common).
#[divan::bench(args = sizes(5_000), sample_count = 10)]
fn diff_changed_runs(bencher: Bencher, n: usize) {
    let (before, after) = (lines(n, |_| false), lines(n, |i| i % 500 != 0));
    bencher.bench(|| textdiff::unified(black_box(&before), black_box(&after), "ConfigMap cm", false));
}
