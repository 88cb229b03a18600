//! The benchmark inputs of `../shared/bench-cases`, checked against the Go
//! reference's outputs: each case runs through the JSON engine with the
//! Kubernetes OpenAPI v3 schema of its kind, from the JSON text as Go read it.
//!
//! The expected outputs come from the Go struct schemas (k8s.io/api); the
//! OpenAPI v3 metadata agrees with the struct tags for every field these
//! cases touch (Pod and Deployment: `containers`, `env`, `ports`,
//! `volumeMounts`, `volumes`, `finalizers`, ... are all `match` in
//! `k8s/patch-fields.tsv`), so every case must come out byte for byte as Go's.

use serde_json::Value;
use smp_core::unstable::to_go_json;
use smp_core::{Schema, ThreeWayOptions, apply, decode, diff, three_way};
use smp_tests::conformance::{Tally, shared_dir};
use smp_tests::json_cmp::first_difference;
use smp_tests::k8s_schema::{K8sSchemas, openapi_dir};
use std::path::PathBuf;

/// The case files, sorted by name.
fn case_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// A document of the case as Go decoded it: from its JSON text.
fn input(case: &Value, field: &str) -> smp_core::Result<Value> {
    let text = serde_json::to_vec(&case[field]).expect("re-encoding a case document");
    decode(&text)
}

/// The operation of the case on the decoded inputs, and the key of
/// `expected` its output is compared with.
fn run(case: &Value, schema: Schema<'_>) -> Result<(smp_core::Result<Value>, &'static str), String> {
    let op = case["op"].as_str().ok_or("case without op")?;
    Ok(match op {
        "apply" => {
            let got = input(case, "original").and_then(|o| input(case, "patch").and_then(|p| apply(&o, &p, schema)));
            (got, "result")
        }
        "twoway" => {
            let got = input(case, "original").and_then(|o| input(case, "modified").and_then(|m| diff(&o, &m, schema)));
            (got, "patch")
        }
        "threeway" => {
            let options = ThreeWayOptions {
                overwrite: case["overwrite"].as_bool().ok_or("three-way case without overwrite")?,
                ..Default::default()
            };
            let got = (|| {
                let (o, m, c) = (input(case, "original")?, input(case, "modified")?, input(case, "current")?);
                three_way(&o, &m, &c, schema, options)
            })();
            (got, "patch")
        }
        other => return Err(format!("unknown op {other:?}")),
    })
}

fn check(case: &Value, schemas: &K8sSchemas) -> Result<(), String> {
    let schema = schemas.schema_of(&case["original"])?;
    let (got, key) = run(case, schema)?;
    let want = case["expected"].get(key).ok_or_else(|| format!("expected.{key} is missing"))?;
    let got = got.map_err(|e| format!("error {e}, wanted {}", to_go_json(want)))?;
    if to_go_json(&got) == to_go_json(want) {
        return Ok(());
    }
    let at = first_difference(&got, want).unwrap_or_else(|| "same values, different encoding".into());
    Err(format!("{key} differs at {at}\n   got  {}\n   want {}", to_go_json(&got), to_go_json(want)))
}

#[test]
fn bench_cases_match_the_reference() {
    let (Some(shared), Some(openapi)) = (shared_dir(), openapi_dir()) else {
        eprintln!("\n*** SKIPPED: ../shared (or $SMP_SHARED) with bench-cases/ and k8s/openapi-v3/ is absent ***\n");
        return;
    };
    let dir = shared.join("bench-cases");
    if !dir.is_dir() {
        eprintln!("\n*** SKIPPED: {} is absent ***\n", dir.display());
        return;
    }
    let schemas = K8sSchemas::load(&openapi).expect("loading the OpenAPI v3 documents");
    let mut tally = Tally::default();
    for path in case_files(&dir) {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?").to_string();
        let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let case: Value = serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let op = case["op"].as_str().unwrap_or("?").to_string();
        tally.check(&name, &op, check(&case, &schemas));
    }
    tally.report("bench cases");
    assert!(tally.passed > 0, "no bench case ran");
    assert!(tally.failed.is_empty(), "{} bench case(s) differ from the reference", tally.failed.len());
}

/// The generator of the Pod scaling cases (`smp_tests::scale`, used by
/// `scripts/scaling.sh` for sizes not shipped) gives the shipped inputs.
#[test]
fn the_scaling_generator_gives_the_shipped_pod_cases() {
    let Some(shared) = shared_dir() else {
        eprintln!("\n*** SKIPPED: ../shared (or $SMP_SHARED) with bench-cases/ is absent ***\n");
        return;
    };
    let pod = Schema::Static(smp_core::k8s::shape_of_kind("v1", "Pod").expect("Pod is built in"));
    let mut checked = 0;
    for n in [100, 1000] {
        for variant in ["apply", "apply-ordered", "twoway", "threeway"] {
            let path = shared.join("bench-cases").join(format!("pod-env{n}.{variant}.json"));
            let Ok(text) = std::fs::read(&path) else { continue };
            let shipped: Value = serde_json::from_slice(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let generated = smp_tests::scale::pod_env_case(n, variant, |o, m| diff(o, m, pod).unwrap());
            for key in ["op", "overwrite", "original", "patch", "modified", "current"] {
                assert_eq!(shipped.get(key), generated.get(key), "{}: `{key}` differs", path.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no shipped pod-env case found");
}
