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
use smp_core::unstable::to_go_json;
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

/// Numbers on the merge route, against kubectl: `kubectl patch --type
/// merge` keeps the patch's numbers as written (kubectl prints integers
/// that fit int64 exactly); the patches `kubectl edit` (two-way) and
/// `kubectl apply` (three-way) send write every number as Go writes the
/// float64 it decoded (2^62 as `4611686018427388000`), which the server
/// reads back as that integer. smp's patches must be the same bytes.
#[test]
fn merge_route_numbers_are_kubectls() {
    let Some(binary) = kubectl::find() else {
        loud("SKIPPED merge_route_numbers_are_kubectls: kubectl not found (set SMP_KUBECTL or put kubectl on PATH)");
        return;
    };
    let oracle = match patch_oracle::find() {
        Ok(oracle) => oracle,
        Err(why) => {
            loud(&format!("SKIPPED merge_route_numbers_are_kubectls: {why}"));
            return;
        }
    };
    let numbers = json!({
        "b": 4_611_686_018_427_387_904_u64, "c": 9_007_199_254_740_993_u64, "d": 1e20, "g": 1e21, "h": 3.0,
        "i": i64::MAX, "j": 123_456_789_012_345_678_u64, "k": i64::MIN, "l": [4_611_686_018_427_387_904_u64, 1.5]
    });
    let widget = |spec: Value| {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w", "namespace": "default", "uid": "u1"}, "spec": spec})
    };
    let original = widget(json!({"a": 1, "keep": 4_611_686_018_427_387_904_u64}));
    let mut spec = numbers.clone();
    spec["a"] = json!(2);
    spec["keep"] = json!(4_611_686_018_427_387_904_u64);
    let modified = widget(spec);

    // Apply: the numbers as written.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("merge-numbers-kubectl");
    let kubectl = Kubectl::new(binary, &dir).expect("kubectl work dir");
    let patch = json!({ "spec": numbers });
    let want = kubectl.patch_all_as(&[(&original, &patch)], 1, "merge").remove(0).expect("kubectl applies it");
    let got = merge_patch::apply(&original, &patch).unwrap();
    assert_eq!(first_difference(&want, &got), None, "apply: kubectl {want}, smp {got}");
    assert_eq!(want["spec"]["b"].as_u64(), Some(4_611_686_018_427_387_904), "kubectl keeps the integer");

    // Two-way and three-way: the bytes kubectl sends.
    let lines = [
        json!({"id": 0, "mode": "two-way", "original": original, "modified": modified}),
        json!({"id": 1, "original": original, "modified": modified, "current": original}),
    ];
    let results = patch_oracle::run_batch(&oracle, &oracle_dir(), "numbers", &lines);
    let sent = |i: usize| results[i]["patch"].as_str().expect("kubectl sent a patch").to_string();
    let two_way = merge_patch::create(&original, &modified).unwrap();
    assert_eq!(to_go_json(&two_way), sent(0), "two-way");
    let mut live = original.clone();
    live["metadata"]["annotations"] = json!({ LAST_APPLIED: to_go_json(&original) });
    let three_way = merge_apply_patch(&live, &modified).unwrap();
    assert_eq!(to_go_json(&three_way), sent(1), "three-way");
    assert!(sent(0).contains(r#""b":4611686018427388000"#), "{}", sent(0));
    loud("merge route numbers: apply, two-way and three-way agree with kubectl byte for byte");
}

/// The preconditions of `kubectl apply` on the merge route: a live object
/// whose apiVersion, kind or name differ from the file's (the oracle's
/// fake API server answers the file's object with another body) gives
/// kubectl's `precondition failed for: map[...]`; smp's kubectl-apply
/// patch for custom resources fails with the same words.
#[test]
fn merge_route_preconditions_are_kubectls() {
    if kubectl::find().is_none() {
        loud(
            "SKIPPED merge_route_preconditions_are_kubectls: kubectl not found (set SMP_KUBECTL or put kubectl on PATH)",
        );
        return;
    }
    let oracle = match patch_oracle::find() {
        Ok(oracle) => oracle,
        Err(why) => {
            loud(&format!("SKIPPED merge_route_preconditions_are_kubectls: {why}"));
            return;
        }
    };
    let original = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"}, "spec": {"a": 1}});
    let mut modified = original.clone();
    modified["spec"]["a"] = json!(2);
    let changes: [(&str, &[&str], Value); 3] = [
        ("name", &["metadata", "name"], json!("other")),
        ("kind", &["kind"], json!("Gadget")),
        ("apiVersion", &["apiVersion"], json!("example.com/v2")),
    ];
    // The oracle stores the live object under its own key, then its body
    // is changed: kubectl reads the file's object and gets the other body.
    let script = r#"
import copy, json, sys
sys.path.insert(0, sys.argv[1])
import smp_threeway
original, modified, changes = json.loads(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
oracle_type = next(v for v in vars(smp_threeway).values() if isinstance(v, type) and hasattr(v, "three_way"))
out = []
with oracle_type() as orc:
    srv = orc.srv
    for path, value in changes:
        def put(live, path=path, value=value):
            key = srv.store.key_for(live)
            body = copy.deepcopy(live)
            node = body
            for step in path[:-1]:
                node = node[step]
            node[path[-1]] = value
            with srv.store.lock:
                srv.store.objects[key] = body
        srv.put_object = put
        r = orc.three_way(original, modified, original)
        out.append(r.get("error_core") if not r.get("ok") else None)
print(json.dumps(out))
"#;
    let oracle_dir = oracle.parent().expect("the oracle's folder");
    let changes_json: Vec<Value> = changes.iter().map(|(_, path, value)| json!([path, value])).collect();
    let output = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(oracle_dir)
        .arg(original.to_string())
        .arg(modified.to_string())
        .arg(Value::Array(changes_json).to_string())
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let cores: Vec<Option<String>> = serde_json::from_slice(&output.stdout).expect("the driver's answer");
    for ((what, path, value), core) in changes.iter().zip(cores) {
        let core = core.unwrap_or_else(|| panic!("{what}: kubectl sent the patch"));
        let mut live = original.clone();
        live["metadata"]["annotations"] = json!({ LAST_APPLIED: to_go_json(&original) });
        let mut node = &mut live;
        for step in *path {
            node = &mut node[*step];
        }
        *node = value.clone();
        let err = merge_apply_patch(&live, &modified).unwrap_err().to_string();
        assert_eq!(err, core, "{what}: smp and kubectl");
    }
    loud("merge route preconditions: name, kind and apiVersion refused with kubectl's message");
}
