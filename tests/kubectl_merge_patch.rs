//! Differential test of the JSON merge patch route (`smp_core::merge_patch`)
//! against the Go reference in kubectl, on random custom-resource documents
//! (`example.com/v1 Widget`, a kind kubectl does not know):
//!
//! - **apply**: a random merge patch applied by `kubectl patch --local
//!   --type merge` (`jsonpatch.MergePatch`) and by `merge_patch::apply`;
//! - **two-way**: the patch `kubectl edit` sends for such a kind
//!   (`jsonpatch.CreateMergePatch`, through the oracle's fake API server)
//!   and `merge_patch::create`;
//! - **three-way**: the patch `kubectl apply` sends
//!   (`jsonmergepatch.CreateThreeWayJSONMergePatch` from the last-applied
//!   annotation, the file and the live object) and
//!   `smp_k8s_types::kubectl::merge_apply_patch` (`merge_patch::three_way`
//!   with kubectl's preconditions, on the same inputs: the desired object
//!   given its last-applied annotation, as kubectl writes it).
//!
//! Results are compared by value (kubectl prints `1.0` as `1`), and the
//! two-way and three-way patches also byte for byte as Go writes JSON.
//! Agreement counts are printed.
//!
//! Environment: `SMP_DIFF_SEED` (default: from the clock; always printed),
//! `SMP_MERGE_CASES` (cases per check, default 120), `SMP_KUBECTL`,
//! `SMP_SHARED` (the folder holding `oracle/smp_threeway.py`).
//!
//! Without kubectl, python3 or the oracle the test says SKIPPED and passes.

use serde_json::{Value, json};
use smp_core::merge_patch;
use smp_core::value::to_go_json;
use smp_k8s_types::kubectl::{LAST_APPLIED, merge_apply_patch};
use smp_tests::custom_resource_gen::{merge_patch as random_patch, mutate, widget};
use smp_tests::harness::{diff_seed, env_number, loud};
use smp_tests::json_cmp::first_difference;
use smp_tests::kubectl::{self, Kubectl};
use smp_tests::patch_oracle::{self, Tally};
use smp_tests::rng::{Rng, case_seed};
use std::path::PathBuf;

const DEFAULT_CASES: usize = 120;
const THREADS: usize = 2;

fn oracle_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("merge-patch-oracle")
}

fn check_apply(kubectl: &Kubectl, seed: u64, count: usize) -> Tally {
    let cases: Vec<(Value, Value)> = (0..count)
        .map(|i| {
            let mut rng = Rng::new(case_seed(seed, i));
            let doc = widget(&mut rng);
            let patch = random_patch(&mut rng, &doc);
            (doc, patch)
        })
        .collect();
    let pairs: Vec<(&Value, &Value)> = cases.iter().map(|(d, p)| (d, p)).collect();
    let outcomes = kubectl.patch_all_as(&pairs, THREADS, "merge");
    let mut tally = Tally::default();
    for (i, ((doc, patch), want)) in cases.iter().zip(outcomes).enumerate() {
        let got = merge_patch::apply(doc, patch).map_err(|e| e.to_string());
        match (&want, &got) {
            (Ok(w), Ok(g)) => match first_difference(w, g) {
                None => tally.agree += 1,
                Some(d) => tally.problems.push(format!("apply case {i}: {d}\n    doc {doc}\n    patch {patch}")),
            },
            (Err(_), Err(_)) => tally.agree += 1,
            _ => tally
                .problems
                .push(format!("apply case {i}: kubectl {want:?} vs smp {got:?}\n    doc {doc}\n    patch {patch}")),
        }
    }
    tally
}

fn check_two_way(oracle: &std::path::Path, seed: u64, count: usize) -> Tally {
    let cases: Vec<(Value, Value)> = (0..count)
        .map(|i| {
            let mut rng = Rng::new(case_seed(seed ^ 0x2a, i));
            let original = widget(&mut rng);
            let modified = mutate(&mut rng, &original);
            (original, modified)
        })
        .collect();
    let lines: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, (o, m))| json!({"id": i, "mode": "two-way", "original": o, "modified": m}))
        .collect();
    let results = patch_oracle::run_batch(oracle, &oracle_dir(), "two-way", &lines);
    let mut tally = Tally::default();
    for (i, ((original, modified), result)) in cases.iter().zip(&results).enumerate() {
        let got = merge_patch::create(original, modified);
        tally.compare("two-way", i, result, got, &format!("original {original}\n    modified {modified}"));
    }
    tally
}

fn check_three_way(oracle: &std::path::Path, seed: u64, count: usize) -> Tally {
    let cases: Vec<(Value, Value, Value)> = (0..count)
        .map(|i| {
            let mut rng = Rng::new(case_seed(seed ^ 0x3b, i));
            let original = widget(&mut rng);
            let modified = mutate(&mut rng, &original);
            let current = mutate(&mut rng, &original);
            (original, modified, current)
        })
        .collect();
    let lines: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, (o, m, c))| json!({"id": i, "original": o, "modified": m, "current": c}))
        .collect();
    let results = patch_oracle::run_batch(oracle, &oracle_dir(), "three-way", &lines);
    let mut tally = Tally::default();
    for (i, ((original, modified, current), result)) in cases.iter().zip(&results).enumerate() {
        // The live object carries the last applied configuration.
        let mut live = current.clone();
        live["metadata"]["annotations"] = json!({ LAST_APPLIED: to_go_json(original) });
        let got = merge_apply_patch(&live, modified);
        let inputs = format!("original {original}\n    modified {modified}\n    current {current}");
        tally.compare("three-way", i, result, got, &inputs);
    }
    tally
}

#[test]
fn merge_patch_agrees_with_kubectl() {
    let Some(binary) = kubectl::find() else {
        loud("SKIPPED merge_patch_agrees_with_kubectl: kubectl not found (set SMP_KUBECTL or put kubectl on PATH)");
        return;
    };
    let oracle = match patch_oracle::find() {
        Ok(oracle) => oracle,
        Err(why) => {
            loud(&format!("SKIPPED merge_patch_agrees_with_kubectl: {why}"));
            return;
        }
    };
    let seed = diff_seed();
    let count = env_number("SMP_MERGE_CASES").unwrap_or(DEFAULT_CASES);
    loud(&format!("merge patch differential: seed {seed} (SMP_DIFF_SEED), {count} cases per check"));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("merge-patch-kubectl");
    let kubectl = Kubectl::new(binary, &dir).expect("kubectl work dir");

    let apply = check_apply(&kubectl, seed, count);
    apply.report("merge patch", "apply", count, false);
    let two_way = check_two_way(&oracle, seed, count);
    two_way.report("merge patch", "two-way", count, true);
    let three_way = check_three_way(&oracle, seed, count);
    three_way.report("merge patch", "three-way", count, true);

    let problems = apply.problems.len() + two_way.problems.len() + three_way.problems.len();
    assert_eq!(problems, 0, "smp and kubectl disagree (seed {seed}); see above");
}
