//! Differential test of the bytes entry point `smp_core::apply_slice`
//! against the Go reference inside kubectl (`kubectl patch --local --type
//! strategic`), on the odd shapes of `smp_tests::odd_shapes`: directive
//! values of every JSON type, merge keys of other types, number literals in
//! every form, escapes, keys written twice, field names in another case.
//! The patch text goes to both as written.
//!
//! Both must succeed with equal results (numbers compared by value: kubectl
//! prints `1.0` as `1`), or both must fail. On the same texts, the `Value`
//! entry point (`decode` then `apply`) must give `apply_slice`'s bytes
//! exactly, errors included.
//!
//! Environment: `SMP_DIFF_SEED` (default: from the clock; always printed),
//! `SMP_ODD_CASES` (default 150), `SMP_KUBECTL` (default: `kubectl` on
//! `PATH`). Without kubectl only the bytes-against-`Value` check runs, and
//! the test says so loudly.

use serde_json::Value;
use smp_core::unstable::to_json_vec;
use smp_core::{Schema, ThreeWayOptions, apply, apply_slice, decode, diff, diff_slice, three_way, three_way_slice};
use smp_tests::harness::{diff_seed, env_number, loud};
use smp_tests::json_cmp::first_difference;
use smp_tests::kubectl::{self, Kubectl, Outcome};
use smp_tests::odd_shapes::{OddCase, OddGen};
use smp_tests::rng::case_seed;
use std::collections::BTreeMap;
use std::path::PathBuf;

const DEFAULT_CASES: usize = 150;
const KUBECTL_THREADS: usize = 2;

fn pod_schema() -> Schema<'static> {
    Schema::Static(smp_core::k8s::shape_of_kind("v1", "Pod").expect("the Pod's static schema"))
}

fn shown(r: &smp_core::Result<Vec<u8>>) -> String {
    match r {
        Ok(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Err(e) => format!("error: {e}"),
    }
}

/// The bytes entry point against the `Value` one on the same texts, byte
/// for byte, errors included; `op` names the operation.
fn same_both_ways(
    op: &str,
    bytes: smp_core::Result<Vec<u8>>,
    values: impl FnOnce() -> smp_core::Result<Value>,
) -> Result<smp_core::Result<Vec<u8>>, String> {
    let values = values().and_then(|v| to_json_vec(&v));
    if shown(&bytes) != shown(&values) {
        return Err(format!("{op}: bytes entry point: {}\n{op}: Value entry point: {}", shown(&bytes), shown(&values)));
    }
    Ok(bytes)
}

/// `apply_slice`'s answer, after checking that the `Value` entry points
/// give the same bytes; on the same texts (the patch read as a document),
/// the two-way and three-way patches both ways too.
fn run_smp(case: &OddCase) -> Result<Outcome, String> {
    let object = serde_json::to_vec(&case.object).expect("an object");
    let patch = case.patch.as_bytes();
    let schema = pod_schema();
    let applied = same_both_ways("apply", apply_slice(&object, patch, schema), || {
        apply(&decode(&object)?, &decode(patch)?, schema)
    })?;
    let _ = same_both_ways("two-way", diff_slice(&object, patch, schema), || {
        diff(&decode(&object)?, &decode(patch)?, schema)
    })?;
    for overwrite in [false, true] {
        let options = || ThreeWayOptions { overwrite, ..Default::default() };
        let name = if overwrite { "three-way (overwrite)" } else { "three-way" };
        let _ = same_both_ways(name, three_way_slice(&object, patch, &object, schema, options()), || {
            three_way(&decode(&object)?, &decode(patch)?, &decode(&object)?, schema, options())
        })?;
        let _ = same_both_ways(name, three_way_slice(patch, &object, patch, schema, options()), || {
            three_way(&decode(patch)?, &decode(&object)?, &decode(patch)?, schema, options())
        })?;
    }
    Ok(match applied {
        Ok(b) => serde_json::from_slice(&b).map_err(|e| format!("smp wrote no JSON ({e})")),
        Err(e) => Err(e.to_string()),
    })
}

/// The start of an error message, to count refusals by cause.
fn error_shape(msg: &str) -> String {
    msg.chars().take_while(|c| !matches!(c, ':' | '[' | '"' | '\n')).take(60).collect()
}

fn outcome_text(o: &Outcome) -> String {
    match o {
        Ok(v) => format!("ok {v}"),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn kubectl_odd_shapes() {
    let seed = diff_seed();
    let count = env_number("SMP_ODD_CASES").unwrap_or(DEFAULT_CASES);
    println!("seed = {seed}; rerun with SMP_DIFF_SEED={seed}");
    let cases: Vec<OddCase> = (0..count).map(|i| OddGen::new(case_seed(seed, i)).case()).collect();

    let kubectl = kubectl::find();
    let outcomes: Vec<Option<Outcome>> = match &kubectl {
        Some(binary) => {
            let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
            let work = tmp.join(format!("smp-odd-{}", std::process::id()));
            let runner = Kubectl::new(binary.clone(), &work).expect("kubectl work folder");
            let texts: Vec<(&Value, String)> = cases.iter().map(|c| (&c.object, c.patch.clone())).collect();
            let out = runner.patch_all_texts(&texts, KUBECTL_THREADS, "strategic");
            let _ = std::fs::remove_dir_all(&work);
            out.into_iter().map(Some).collect()
        }
        None => {
            loud(
                "SKIPPED: kubectl not found on PATH (or $SMP_KUBECTL); the odd shapes were not compared with the Go reference",
            );
            cases.iter().map(|_| None).collect()
        }
    };

    let mut failed = 0;
    let mut refusals: BTreeMap<String, usize> = BTreeMap::new();
    for (index, (case, want)) in cases.iter().zip(&outcomes).enumerate() {
        let verdict = match (run_smp(case), want) {
            (Err(split), _) => Some(split),
            (Ok(_), None) => None,
            (Ok(got), Some(want)) => {
                if let Err(e) = want {
                    *refusals.entry(error_shape(e)).or_default() += 1;
                }
                let verdict = match (want, &got) {
                    (Err(e), _) if e.starts_with("harness:") => Some(format!("kubectl did not run: {e}")),
                    (Ok(a), Ok(b)) => first_difference(a, b).map(|d| format!("results differ at {d} (kubectl vs smp)")),
                    (Err(_), Err(_)) => None,
                    (Ok(_), Err(_)) => Some("kubectl succeeded, smp failed".to_string()),
                    (Err(_), Ok(_)) => Some("kubectl failed, smp succeeded".to_string()),
                };
                verdict.map(|v| format!("{v}\nkubectl: {}\nsmp:     {}", outcome_text(want), outcome_text(&got)))
            }
        };
        if let Some(verdict) = verdict {
            failed += 1;
            println!("\n=== DISAGREEMENT: case {index} of seed {seed}");
            println!("ops:     {}", case.ops.join(", "));
            println!("object:  {}", case.object);
            println!("patch:   {}", case.patch);
            println!("{verdict}");
        }
    }
    println!(
        "\nodd shapes: {count} cases, {failed} failed{}",
        match &kubectl {
            Some(k) => format!(" (kubectl {}: refused {})", k.display(), refusals.values().sum::<usize>()),
            None => " (bytes against Value only)".to_string(),
        }
    );
    let mut by_count: Vec<_> = refusals.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (shape, n) in by_count {
        println!("  {n:4}  {shape}");
    }
    assert!(failed == 0, "{failed} of {count} odd-shape cases disagree (seed {seed})");
}
