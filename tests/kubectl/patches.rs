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
use smp_core::unstable::to_go_json;
use smp_k8s_types::kubectl::{LAST_APPLIED, apply_patch};
use smp_tests::Gen;
use smp_tests::harness::{diff_seed, env_number, loud};
use smp_tests::k8s_kinds::{KINDS, fields_unknown_to_kubectl};
use smp_tests::k8s_schema::{K8sSchemas, openapi_dir};
use smp_tests::kubectl::{self, Kubectl};
use smp_tests::long_text::holds_string;
use smp_tests::openapi_gen::{self, Defs};
use smp_tests::patch_oracle::{self, Tally};
use smp_tests::rng::case_seed;
use smp_tests::scale::lengthen_lists;
use std::path::{Path, PathBuf};

const DEFAULT_CASES: usize = 120;
const DEFAULT_CASES_PER_KIND: usize = 10;

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

fn check_two_way(oracle: &Path, schemas: &K8sSchemas, tag: &str, cases: &[Vec<Value>]) -> Tally {
    // kubectl edit computes no patch for an object left as it was (where
    // the library's diff may still hold the order of an unsorted set), and
    // cannot show a live object holding U+007F: it prints it as YAML, which
    // refuses the character ("yaml: control characters are not allowed").
    let delete_char = |s: &str| s.contains('\u{7f}');
    let cases: Vec<&Vec<Value>> = cases.iter().filter(|c| c[0] != c[1] && !holds_string(&c[0], &delete_char)).collect();
    let lines: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| json!({"id": i, "mode": "two-way", "original": c[0], "modified": c[1]}))
        .collect();
    let results = patch_oracle::run_batch(oracle, &oracle_dir(), &format!("{tag}-two-way"), &lines);
    let mut tally = Tally::default();
    for (i, (c, result)) in cases.iter().zip(&results).enumerate() {
        let (original, modified) = (&c[0], &c[1]);
        let schema = schemas.schema_of(original).unwrap_or_else(|e| panic!("{e}"));
        let got = smp_core::diff(original, modified, schema);
        // The bytes route (documents read as the batch reads them) gives
        // the same patch, written as it writes it.
        let bytes = smp_core::diff_slice(original.to_string().as_bytes(), modified.to_string().as_bytes(), schema);
        let want = match &got {
            Ok(v) => Ok(smp_core::unstable::to_json_vec(v).unwrap()),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(
            bytes.map_err(|e| e.to_string()),
            want,
            "two-way, bytes route: original {original}\n    modified {modified}"
        );
        tally.compare("two-way", i, result, got, &format!("original {original}\n    modified {modified}"));
    }
    tally
}

/// `annotated`: the live object carries the last applied configuration
/// (else kubectl takes it as `{}`: the first apply of an object made
/// otherwise).
fn check_three_way(oracle: &Path, schemas: &K8sSchemas, tag: &str, cases: &[Vec<Value>], annotated: bool) -> Tally {
    let lines: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let original = if annotated { c[0].clone() } else { Value::Null };
            json!({"id": i, "original": original, "modified": c[1], "current": c[2]})
        })
        .collect();
    let name = if annotated { "three-way" } else { "three-way-first" };
    let results = patch_oracle::run_batch(oracle, &oracle_dir(), &format!("{tag}-{name}"), &lines);
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

/// Runs the three checks on `cases` (an object, a modified copy, a live
/// copy each) and fails on any difference; `tag` names the oracle's files.
fn check_all(label: &str, tag: &str, oracle: &Path, schemas: &K8sSchemas, seed: u64, cases: &[Vec<Value>]) {
    let count = cases.len();
    let two_way = check_two_way(oracle, schemas, tag, cases);
    two_way.report(label, "two-way (objects changed)", two_way.agree + two_way.problems.len(), true);
    let three_way = check_three_way(oracle, schemas, tag, cases, true);
    three_way.report(label, "three-way", count, true);
    let first = check_three_way(oracle, schemas, tag, cases, false);
    first.report(label, "three-way without a last-applied annotation", count, true);

    let problems = two_way.problems.len() + three_way.problems.len() + first.problems.len();
    assert_eq!(problems, 0, "smp's patches differ from kubectl's (seed {seed}); see above");
    for (what, tally) in [("two-way", &two_way), ("three-way", &three_way), ("first three-way", &first)] {
        assert_eq!(tally.bytes, tally.patches, "{what}: equal patches must be the same bytes (seed {seed})");
    }
}

/// What the oracle needs: kubectl, python3 with the oracle script, the
/// OpenAPI documents (`None`, said loudly, without them).
fn setup(test: &str) -> Option<(PathBuf, PathBuf, PathBuf)> {
    let Some(binary) = kubectl::find() else {
        loud(&format!("SKIPPED {test}: kubectl not found (set SMP_KUBECTL or put kubectl on PATH)"));
        return None;
    };
    let oracle = match patch_oracle::find() {
        Ok(oracle) => oracle,
        Err(why) => {
            loud(&format!("SKIPPED {test}: {why}"));
            return None;
        }
    };
    let Some(openapi) = openapi_dir() else {
        loud(&format!("SKIPPED {test}: k8s/openapi-v3 not found (set SMP_SHARED)"));
        return None;
    };
    Some((binary, oracle, openapi))
}

#[test]
fn strategic_patches_are_the_ones_kubectl_sends() {
    let Some((_, oracle, openapi)) = setup("strategic_patches_are_the_ones_kubectl_sends") else { return };
    let schemas = K8sSchemas::load(&openapi).unwrap_or_else(|e| panic!("loading the OpenAPI documents: {e}"));
    let seed = diff_seed();
    let count = env_number("SMP_PATCH_CASES").unwrap_or(DEFAULT_CASES);
    loud(&format!("strategic patch differential: seed {seed} (SMP_DIFF_SEED), {count} cases per check"));
    let cases: Vec<Vec<Value>> = (0..count).map(|i| case(seed, i, 2)).collect();
    check_all("strategic", "objects", &oracle, &schemas, seed, &cases);
}

/// The generator's objects with every list of objects lengthened past
/// what a diff reads before it keeps elements as text
/// (`scale::lengthen_lists`, alike in the object and its copies).
#[test]
fn strategic_patches_of_long_lists_are_the_ones_kubectl_sends() {
    let test = "strategic_patches_of_long_lists_are_the_ones_kubectl_sends";
    let Some((_, oracle, openapi)) = setup(test) else { return };
    let schemas = K8sSchemas::load(&openapi).unwrap_or_else(|e| panic!("loading the OpenAPI documents: {e}"));
    let seed = diff_seed();
    let count = env_number("SMP_PATCH_CASES").unwrap_or(DEFAULT_CASES) / 4;
    loud(&format!("strategic patch differential on long lists: seed {seed} (SMP_DIFF_SEED), {count} cases per check"));
    // kubectl edit reads an object of one line with Go's line scanner,
    // which refuses lines of 64 KiB: longer objects are left out.
    let cases: Vec<Vec<Value>> = (0..count)
        .map(|i| {
            let mut objects = case(seed, i, 2);
            objects.iter_mut().for_each(lengthen_lists);
            objects
        })
        .filter(|objects| objects.iter().all(|o| o.to_string().len() < 60_000))
        .collect();
    loud(&format!("{} of {count} cases short enough for kubectl edit", cases.len()));
    assert!(cases.len() > count / 2, "too few cases short enough for kubectl edit");
    check_all("long lists", "long-lists", &oracle, &schemas, seed, &cases);
}

/// Cluster-scoped kinds: their objects have no namespace.
const CLUSTER_SCOPED: [&str; 2] = ["Node", "Namespace"];

/// `copy` with what kubectl edit and apply must see unchanged from
/// `object`: `metadata.uid` (edit pairs objects by it) and
/// `managedFields` (edit refuses to change them); and in the namespace
/// `default`, unless its kind has none.
fn settled(object: &Value, mut copy: Value) -> Value {
    let scoped = !CLUSTER_SCOPED.contains(&copy["kind"].as_str().unwrap_or(""));
    if let Some(meta) = copy.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
        match object.pointer("/metadata/uid") {
            Some(uid) => meta.insert("uid".into(), uid.clone()),
            None => meta.remove("uid"),
        };
        if scoped {
            meta.insert("namespace".into(), json!("default"));
        } else {
            meta.remove("namespace");
        }
    }
    copy
}

#[test]
fn strategic_patches_of_twelve_kinds_are_the_ones_kubectl_sends() {
    let test = "strategic_patches_of_twelve_kinds_are_the_ones_kubectl_sends";
    let Some((binary, oracle, openapi)) = setup(test) else { return };
    let schemas = K8sSchemas::load(&openapi).unwrap_or_else(|e| panic!("loading the OpenAPI documents: {e}"));
    let mut defs = Defs::load(&openapi).unwrap_or_else(|e| panic!("loading the OpenAPI documents: {e}"));
    let kubectl = Kubectl::new(binary, &oracle_dir()).expect("kubectl work dir");
    // Fields the kubectl at hand does not know are never generated.
    fields_unknown_to_kubectl(&kubectl, &mut defs);
    let seed = diff_seed();
    let per_kind = env_number("SMP_PATCH_KIND_CASES").unwrap_or(DEFAULT_CASES_PER_KIND);
    loud(&format!(
        "strategic patch differential of {} kinds: seed {seed} (SMP_DIFF_SEED), {per_kind} cases per kind and check",
        KINDS.len()
    ));
    let cases: Vec<Vec<Value>> = (0..per_kind * KINDS.len())
        .map(|index| {
            let kind = &KINDS[index % KINDS.len()];
            let mut g = openapi_gen::Gen::new(&defs, case_seed(seed ^ 0x5d, index));
            let object = g.object(kind.api_version, kind.name);
            let object = settled(&object, object.clone());
            // Copies that differ from the object (see `case`).
            let mut copy = || {
                let mut copy = settled(&object, g.mutate(&object));
                for _ in 0..8 {
                    if copy != object {
                        break;
                    }
                    copy = settled(&object, g.mutate(&object));
                }
                copy
            };
            let (modified, current) = (copy(), copy());
            vec![object.clone(), modified, current]
        })
        .collect();
    check_all("strategic (kinds)", "kinds", &oracle, &schemas, seed, &cases);
}
