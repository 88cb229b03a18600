//! Differential test of the strategic merge patches smp computes against
//! the ones kubectl itself sends, on random Pods, Deployments and Services
//! (`smp_tests::Gen`: an object and modified copies of it):
//!
//! - **two-way**: the patch `kubectl edit` sends (`CreateTwoWayMergePatch`
//!   of the live object and the edited one, through the oracle's fake API
//!   server) and `smp_core::diff`;
//! - **three-way**: the patch `kubectl apply` sends
//!   (`CreateThreeWayMergePatch` of the last-applied annotation, the file
//!   and the live object, with `--overwrite`, kubectl's default) and
//!   `smp_k8s_types::kubectl::apply_patch` (`smp_core::three_way` on the
//!   same inputs: the file given its new last-applied annotation, as
//!   kubectl writes it); and again with a live object without the
//!   annotation (kubectl then takes the last applied configuration as
//!   `{}`).
//!
//! The patches are compared by value and byte for byte as Go writes JSON:
//! both must agree on every case (or both fail). Every object is in the namespace
//! `default` (kubectl puts a file without one there).
//!
//! Environment: `SMP_DIFF_SEED` (default: from the clock; always printed),
//! `SMP_PATCH_CASES` (cases per check, default 120), `SMP_KUBECTL`,
//! `SMP_SHARED` (the folder holding `oracle/smp_threeway.py` and the
//! OpenAPI documents).
//!
//! Without kubectl, python3, the oracle or the OpenAPI documents the test
//! says SKIPPED and passes.

use serde_json::{Value, json};
use smp_core::value::to_go_json;
use smp_k8s_types::kubectl::{LAST_APPLIED, apply_patch};
use smp_tests::Gen;
use smp_tests::harness::{env_number, loud};
use smp_tests::k8s_schema::{K8sSchemas, openapi_dir};
use smp_tests::kubectl;
use smp_tests::patch_oracle::{self, Tally};
use smp_tests::rng::case_seed;
use std::path::{Path, PathBuf};

const DEFAULT_CASES: usize = 120;

fn seed() -> u64 {
    env_number("SMP_DIFF_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs())
    })
}

fn oracle_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("strategic-patch-oracle")
}

/// `object` in the namespace `default`.
fn in_default(mut object: Value) -> Value {
    object["metadata"]["namespace"] = json!("default");
    object
}

/// An object and `n` modified copies of it, for case `i`. The copies
/// differ from the object: `kubectl edit` computes no patch for an object
/// left as it was (where the library's diff may still hold the order of an
/// unsorted set).
fn case(seed: u64, i: usize, n: usize) -> Vec<Value> {
    // Every other object is odd in ways kubectl accepts (duplicate merge
    // keys, elements without their key, nulls).
    let mut g = Gen::new(case_seed(seed, i)).with_quirks(i % 2 == 1);
    let kind = g.kind();
    let original = in_default(g.object(kind));
    let mut objects = vec![original.clone()];
    for _ in 0..n {
        let mut copy = in_default(g.mutate(&original));
        for _ in 0..8 {
            if copy != original {
                break;
            }
            copy = in_default(g.mutate(&original));
        }
        objects.push(copy);
    }
    objects
}

fn check_two_way(oracle: &Path, schemas: &K8sSchemas, seed: u64, count: usize) -> Tally {
    let cases: Vec<Vec<Value>> = (0..count).map(|i| case(seed ^ 0x2a, i, 1)).collect();
    let lines: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| json!({"id": i, "mode": "two-way", "original": c[0], "modified": c[1]}))
        .collect();
    let results = patch_oracle::run_batch(oracle, &oracle_dir(), "two-way", &lines);
    let mut tally = Tally::default();
    for (i, (c, result)) in cases.iter().zip(&results).enumerate() {
        let (original, modified) = (&c[0], &c[1]);
        let schema = schemas.schema_of(original).unwrap_or_else(|e| panic!("{e}"));
        let got = smp_core::diff(original, modified, schema);
        tally.compare("two-way", i, result, got, &format!("original {original}\n    modified {modified}"));
    }
    tally
}

/// `annotated`: the live object carries the last applied configuration
/// (else kubectl takes it as `{}`: the first apply of an object made
/// otherwise).
fn check_three_way(oracle: &Path, schemas: &K8sSchemas, seed: u64, count: usize, annotated: bool) -> Tally {
    let salt = if annotated { 0x3b } else { 0x4c };
    let cases: Vec<Vec<Value>> = (0..count).map(|i| case(seed ^ salt, i, 2)).collect();
    let lines: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let original = if annotated { c[0].clone() } else { Value::Null };
            json!({"id": i, "original": original, "modified": c[1], "current": c[2]})
        })
        .collect();
    let name = if annotated { "three-way" } else { "three-way-first" };
    let results = patch_oracle::run_batch(oracle, &oracle_dir(), name, &lines);
    let mut tally = Tally::default();
    for (i, (c, result)) in cases.iter().zip(&results).enumerate() {
        let (original, modified, current) = (&c[0], &c[1], &c[2]);
        // The live object carries the last applied configuration (or none).
        let mut live = current.clone();
        if annotated {
            live["metadata"]["annotations"][LAST_APPLIED] = json!(to_go_json(original));
        }
        let schema = schemas.schema_of(original).unwrap_or_else(|e| panic!("{e}"));
        let got = apply_patch(&live, modified, schema, true);
        let inputs = format!("original {original}\n    modified {modified}\n    current {current}");
        tally.compare(name, i, result, got, &inputs);
    }
    tally
}

#[test]
fn strategic_patches_are_the_ones_kubectl_sends() {
    let Some(_) = kubectl::find() else {
        loud(
            "SKIPPED strategic_patches_are_the_ones_kubectl_sends: kubectl not found (set SMP_KUBECTL or put kubectl on PATH)",
        );
        return;
    };
    let oracle = match patch_oracle::find() {
        Ok(oracle) => oracle,
        Err(why) => {
            loud(&format!("SKIPPED strategic_patches_are_the_ones_kubectl_sends: {why}"));
            return;
        }
    };
    let Some(openapi) = openapi_dir() else {
        loud("SKIPPED strategic_patches_are_the_ones_kubectl_sends: k8s/openapi-v3 not found (set SMP_SHARED)");
        return;
    };
    let schemas = K8sSchemas::load(&openapi).unwrap_or_else(|e| panic!("loading the OpenAPI documents: {e}"));
    let seed = seed();
    let count = env_number("SMP_PATCH_CASES").unwrap_or(DEFAULT_CASES);
    loud(&format!("strategic patch differential: seed {seed} (SMP_DIFF_SEED), {count} cases per check"));

    let two_way = check_two_way(&oracle, &schemas, seed, count);
    two_way.report("strategic", "two-way", count, true);
    let three_way = check_three_way(&oracle, &schemas, seed, count, true);
    three_way.report("strategic", "three-way", count, true);
    let first = check_three_way(&oracle, &schemas, seed, count, false);
    first.report("strategic", "three-way without a last-applied annotation", count, true);

    let problems = two_way.problems.len() + three_way.problems.len() + first.problems.len();
    assert_eq!(problems, 0, "smp's patches differ from kubectl's (seed {seed}); see above");
    for (what, tally) in [("two-way", &two_way), ("three-way", &three_way), ("first three-way", &first)] {
        assert_eq!(tally.bytes, tally.patches, "{what}: equal patches must be the same bytes (seed {seed})");
    }
}
