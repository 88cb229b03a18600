//! Scaling, at N and 10N, of the library paths a review of hostile input
//! found super-linear (each now linear in N: the time grows tenfold, not a
//! hundredfold):
//!
//! - `patch_merge_key_distinct_lists`: apply with `$patchMergeKey` on, a
//!   list of N elements, the patch's elements naming seven distinct field
//!   lists (a patch may name at most eight);
//! - `json_patch_moves`: N/10 `move` operations of a list of 10N numbers
//!   back and forth (each move once cost the size of the list);
//! - `retain_keys`: `$retainKeys` naming every one of N keys (once a scan
//!   of the list per key).
//!
//! The command-line paths (`--crd`, `-R`, `--explain`, `--diff`) scale in
//! `smp-k8s-types/benches/hostile_cli.rs`; the figures of both are in
//! `docs/performance.md` ("Hostile input"). Run with
//! `cargo bench -p smp-core --bench hostile`.

use divan::{Bencher, black_box};
use serde_json::{Map, Value, json};
use smp_core::{ApplyOptions, Schema, apply, apply_with, json_patch};

fn main() {
    divan::main();
}

/// N and 10N, or the size `SMP_HOSTILE_N` names alone (to count one
/// size's instructions with callgrind).
fn sizes() -> Vec<usize> {
    match std::env::var("SMP_HOSTILE_N").ok().and_then(|v| v.parse().ok()) {
        Some(only) => vec![only],
        None => vec![2_000, 20_000],
    }
}

#[divan::bench(args = sizes(), sample_count = 3)]
fn patch_merge_key_distinct_lists(bencher: Bencher, n: usize) {
    // Elements with fields f0 … f7; patch element i names f0 and f(1 + i % 7).
    let element = |i: usize| Value::Object((0..8).map(|f| (format!("f{f}"), json!(i))).collect::<Map<_, _>>());
    let original = json!({"items": (0..n).map(element).collect::<Vec<_>>()});
    let patch_element = |i: usize| {
        let mut e = element(i);
        e["$patchMergeKey"] = json!(["f0", format!("f{}", 1 + i % 7)]);
        e["changed"] = json!(true);
        e
    };
    let patch = json!({"items": (0..n).map(patch_element).collect::<Vec<_>>()});
    let options = ApplyOptions { patch_merge_key: true, ..Default::default() };
    bencher.bench(|| apply_with(black_box(&original), black_box(&patch), Schema::Untyped, options).unwrap());
}

#[divan::bench(args = sizes(), sample_count = 3)]
fn json_patch_moves(bencher: Bencher, n: usize) {
    let doc = json!({"a": (0..10 * n).collect::<Vec<_>>(), "b": {}});
    let there = json!({"op": "move", "from": "/a", "path": "/b/a"});
    let back = json!({"op": "move", "from": "/b/a", "path": "/a"});
    let ops = Value::Array((0..n / 20).flat_map(|_| [there.clone(), back.clone()]).collect());
    bencher.bench(|| json_patch::apply_ops(black_box(&doc), black_box(&ops)).unwrap());
}

#[divan::bench(args = sizes(), sample_count = 3)]
fn retain_keys(bencher: Bencher, n: usize) {
    let names: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    let original: Map<String, Value> = names.iter().map(|k| (k.clone(), json!(1))).collect();
    let original = json!({"spec": original});
    let patch = json!({"spec": {"$retainKeys": names, "k0": 2}});
    bencher.bench(|| apply(black_box(&original), black_box(&patch), Schema::Untyped).unwrap());
}
