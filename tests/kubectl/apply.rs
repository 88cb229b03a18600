//! Differential test of `smp_core::apply` against the Go reference inside
//! kubectl (`kubectl patch --local --type strategic`), on random Pods,
//! Deployments and Services and random patches using every directive.
//!
//! Both must succeed with equal results (numbers compared by value, as
//! kubectl prints `1.0` as `1`), or both must fail; error texts are not
//! compared (kubectl reads Go struct tags, smp the OpenAPI v3 documents, and
//! a few messages name the source). The bytes entry point (`apply_slice`)
//! must write what the `Value` one writes, on the case's texts with the
//! escapes serde_json writes or, in long strings, others.
//!
//! Environment:
//! - `SMP_DIFF_SEED`: seed (default: from the clock; always printed);
//! - `SMP_DIFF_CASES`: number of cases (default 300);
//! - `SMP_DIFF_REPLAY=FILE`: run the cases of a failures file
//!   (`target/smp-diff-failures.jsonl`, or `smp-diff-long-failures.jsonl`
//!   from the long lists' test; one `{"object","patch",...}` a line) instead,
//!   in `kubectl_apply`;
//! - `SMP_KUBECTL`: the kubectl binary (default: `kubectl` on `PATH`);
//! - `SMP_SHARED`: the shared data folder with `k8s/openapi-v3`.
//!
//! Without kubectl or the OpenAPI documents the test says SKIPPED and passes.

use serde_json::{Value, json};
use smp_tests::harness::{env_number, loud};
use smp_tests::json_cmp::first_difference;
use smp_tests::k8s_schema::{K8sSchemas, openapi_dir};
use smp_tests::kubectl::{self, Kubectl, Outcome};
use smp_tests::long_text::write_escaped;
use smp_tests::rng::{Rng, case_seed};
use smp_tests::scale::lengthen_lists;
use smp_tests::{Gen, Kind};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

const DEFAULT_CASES: usize = 300;
const KUBECTL_THREADS: usize = 2;

struct Case {
    index: usize,
    /// The seed of this case's generator (none for replayed cases).
    seed: Option<u64>,
    object: Value,
    patch: Value,
    ops: Vec<String>,
}

fn target_dir() -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().map(PathBuf::from).unwrap_or(tmp)
}

/// `count` cases of the generator; with `long_lists`, the object's
/// outermost lists of objects lengthened past 64 elements
/// (`scale::lengthen_lists`) before its patch is made, so that patches
/// reach elements of long lists, and numbered keys (ports) repeat.
fn generate(seed: u64, count: usize, long_lists: bool) -> Vec<Case> {
    (0..count)
        .map(|index| {
            let case_seed = case_seed(seed, index);
            let mut g = Gen::new(case_seed).with_quirks(true);
            let kind = g.kind();
            let mut object = g.object(kind);
            if long_lists {
                lengthen_lists(&mut object);
            }
            let (patch, ops) = g.patch_traced(&object);
            Case { index, seed: Some(case_seed), object, patch, ops: ops.into_iter().map(String::from).collect() }
        })
        .collect()
}

fn replay(file: &std::ffi::OsStr) -> Vec<Case> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {file:?}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(index, line)| {
            let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{file:?} line {}: {e}", index + 1));
            let ops = v["ops"].as_array().into_iter().flatten().filter_map(|o| o.as_str().map(String::from)).collect();
            Case { index, seed: v["caseSeed"].as_u64(), object: v["object"].clone(), patch: v["patch"].clone(), ops }
        })
        .collect()
}

/// Runs `f`; a panic counts as an error.
fn catching<T>(f: impl FnOnce() -> smp_core::Result<T>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("smp panicked: {msg}"))
        }
    }
}

/// Runs smp; a panic counts as an error.
fn run_smp(schemas: &K8sSchemas, case: &Case) -> Outcome {
    let schema = schemas.schema_of(&case.object).map_err(|e| format!("harness: schema: {e}"))?;
    catching(|| smp_core::apply(&case.object, &case.patch, schema))
}

/// `apply_slice` on texts of the case against the `Value` entry point on
/// the same texts decoded: each long string written with serde_json's
/// escapes (the reader keeps it as text) or with others (it decodes it).
/// The difference, if any.
fn bytes_difference(schemas: &K8sSchemas, case: &Case) -> Option<String> {
    let schema = schemas.schema_of(&case.object).ok()?;
    let mut rng = Rng::new(case.seed.unwrap_or(case.index as u64) ^ 0xe5c4);
    let (object, patch) = (write_escaped(&case.object, &mut rng), write_escaped(&case.patch, &mut rng));
    let shown = |r: Result<Vec<u8>, String>| match r {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!("error: {e}"),
    };
    let bytes = shown(catching(|| smp_core::apply_slice(object.as_bytes(), patch.as_bytes(), schema)));
    let values = shown(catching(|| {
        let (object, patch) = (smp_core::decode(object.as_bytes())?, smp_core::decode(patch.as_bytes())?);
        smp_core::apply(&object, &patch, schema).and_then(|v| smp_core::unstable::to_json_vec(&v))
    }));
    (bytes != values).then(|| {
        format!("bytes entry point: {bytes}\nValue entry point: {values}\nobject text: {object}\npatch text:  {patch}")
    })
}

/// An error message with its data elided, to group messages by cause.
fn error_shape(msg: &str) -> String {
    let line = msg.lines().next().unwrap_or("");
    let mut out = String::new();
    let (mut depth, mut quoted) = (0usize, false);
    for c in line.chars() {
        match c {
            '"' if depth == 0 => {
                if !quoted {
                    out.push_str("\"…\"");
                }
                quoted = !quoted;
            }
            _ if quoted => {}
            '[' => {
                if depth == 0 {
                    out.push_str("[…]");
                }
                depth += 1;
            }
            ']' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    out
}

fn outcome_json(o: &Outcome) -> Value {
    match o {
        Ok(v) => json!({"ok": true, "result": v}),
        Err(e) => json!({"ok": false, "error": e}),
    }
}

fn outcome_text(o: &Outcome) -> String {
    match o {
        Ok(v) => format!("ok {v}"),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn kubectl_apply() {
    differential(DEFAULT_CASES, false);
}

/// Objects whose lists of objects are longer than 64 elements: past the
/// blocks of 20 that the reference's stable sort orders before merging
/// them, with merge keys that are numbers (ports) repeated. A replay
/// (`SMP_DIFF_REPLAY`) runs in [`kubectl_apply`] alone.
#[test]
fn apply_to_long_lists_agrees_with_kubectl() {
    if std::env::var_os("SMP_DIFF_REPLAY").is_some() {
        println!("SMP_DIFF_REPLAY is set: the replay runs in kubectl_apply");
        return;
    }
    differential(DEFAULT_CASES / 3, true);
}

/// The length of the longest list in `v`.
fn longest_list(v: &Value) -> usize {
    match v {
        Value::Array(a) => a.iter().map(longest_list).max().unwrap_or(0).max(a.len()),
        Value::Object(m) => m.values().map(longest_list).max().unwrap_or(0),
        _ => 0,
    }
}

/// Runs the differential on `SMP_DIFF_CASES` cases (default `default_count`).
fn differential(default_count: usize, long_lists: bool) {
    let Some(binary) = kubectl::find() else {
        loud(
            "SKIPPED: kubectl not found on PATH (or $SMP_KUBECTL); the differential test against the Go reference did not run",
        );
        return;
    };
    let Some(openapi) = openapi_dir() else {
        loud(
            "SKIPPED: k8s/openapi-v3 not found (set $SMP_SHARED); the differential test against the Go reference did not run",
        );
        return;
    };
    let schemas = K8sSchemas::load(&openapi).unwrap_or_else(|e| panic!("loading the OpenAPI documents: {e}"));
    for kind in Kind::ALL {
        if let Err(e) = schemas.schema(kind.api_version(), kind.name()) {
            panic!("no schema for {}: {e}", kind.name());
        }
    }

    let seed = env_number("SMP_DIFF_SEED").unwrap_or_else(|| {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        (t.as_nanos() % 1_000_000_000) as u64
    });
    let count = env_number("SMP_DIFF_CASES").unwrap_or(default_count);
    println!("seed = {seed}; rerun with SMP_DIFF_SEED={seed}");
    let replay_file = std::env::var_os("SMP_DIFF_REPLAY");
    let cases = match &replay_file {
        Some(file) => {
            println!("replaying {}", PathBuf::from(file).display());
            replay(file)
        }
        None => generate(seed, count, long_lists),
    };
    if long_lists {
        let long = cases.iter().filter(|c| longest_list(&c.object) > 64).count();
        // Some objects have no list of objects to lengthen.
        println!("{long} of {} objects hold a list longer than 64 elements", cases.len());
        assert!(long * 5 >= cases.len() * 4, "too few objects with a list longer than 64 elements");
    }

    let origin = match &replay_file {
        Some(file) => format!("{}", PathBuf::from(file).display()),
        None => format!("seed {seed}"),
    };

    let target = target_dir();
    let name = if long_lists { "smp-diff-long" } else { "smp-diff" };
    let work = target.join("tmp").join(format!("{name}-{}", std::process::id()));
    let kubectl = Kubectl::new(binary.clone(), &work).expect("kubectl work folder");
    let started = Instant::now();
    let pairs: Vec<(&Value, &Value)> = cases.iter().map(|c| (&c.object, &c.patch)).collect();
    let outcomes = kubectl.patch_all(&pairs, KUBECTL_THREADS);
    let kubectl_time = started.elapsed();
    let _ = std::fs::remove_dir_all(&work);

    let (mut passed, mut valid, mut invalid, mut deliberate, mut deliberate_accepted) = (0, 0, 0, 0, 0);
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures: Vec<Value> = Vec::new();
    for (case, want) in cases.iter().zip(&outcomes) {
        let got = run_smp(&schemas, case);
        let is_deliberate = case.ops.iter().any(|o| o.starts_with("invalid:"));
        deliberate += usize::from(is_deliberate);
        match want {
            Ok(_) => {
                valid += 1;
                deliberate_accepted += usize::from(is_deliberate);
            }
            Err(e) => {
                invalid += 1;
                *errors.entry(error_shape(e)).or_default() += 1;
            }
        }
        let verdict = match (want, &got) {
            (Ok(a), Ok(b)) => first_difference(a, b).map(|d| format!("results differ at {d} (kubectl vs smp)")),
            (Err(e), _) if e.starts_with("harness:") => Some(format!("kubectl did not run: {e}")),
            (Err(_), Err(_)) => None,
            (Ok(_), Err(_)) => Some("kubectl succeeded, smp failed".to_string()),
            (Err(_), Ok(_)) => Some("kubectl failed, smp succeeded".to_string()),
        };
        let verdict = verdict.or_else(|| bytes_difference(&schemas, case));
        let Some(verdict) = verdict else {
            passed += 1;
            continue;
        };
        let category = match (want, &got) {
            _ if verdict.starts_with("bytes entry point") => "bytes and Value entry points differ",
            (Ok(_), Ok(_)) => "results differ",
            (Ok(_), Err(_)) => "kubectl ok, smp error",
            _ => "kubectl error, smp ok",
        };
        *kinds.entry(category).or_default() += 1;
        println!("\n=== DISAGREEMENT: case {} of {origin}: {verdict}", case.index);
        if let Some(s) = case.seed {
            println!("case seed: {s}");
        }
        println!("ops:     {}", case.ops.join(", "));
        println!("object:  {}", case.object);
        println!("patch:   {}", case.patch);
        println!("kubectl: {}", outcome_text(want));
        println!("smp:     {}", outcome_text(&got));
        failures.push(json!({
            "seed": seed,
            "index": case.index,
            "caseSeed": case.seed,
            "verdict": verdict,
            "ops": case.ops,
            "object": case.object,
            "patch": case.patch,
            "kubectl": outcome_json(want),
            "smp": outcome_json(&got),
        }));
    }

    let failed = failures.len();
    let failures_file = target.join(format!("{name}-failures.jsonl"));
    if replay_file.is_none() {
        let text: String = failures.iter().map(|f| format!("{f}\n")).collect();
        if let Err(e) = std::fs::write(&failures_file, text) {
            println!("could not write {}: {e}", failures_file.display());
        }
    }

    println!();
    println!(
        "kubectl: {} ({} cases on {KUBECTL_THREADS} threads in {:.1?})",
        binary.display(),
        cases.len(),
        kubectl_time
    );
    println!(
        "cases: {valid} valid (kubectl applied them), {invalid} invalid (kubectl refused them); \
         {deliberate} with a deliberate error, {deliberate_accepted} of those accepted by kubectl"
    );
    println!("kubectl errors:");
    let mut by_count: Vec<_> = errors.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (shape, n) in by_count {
        println!("  {n:4}  {shape}");
    }
    for (category, n) in &kinds {
        println!("disagreements: {n} {category}");
    }
    if failed > 0 && replay_file.is_none() {
        println!("failing cases saved to {} (replay with SMP_DIFF_REPLAY=that file)", failures_file.display());
    }
    println!("kubectl differential ({name}): {passed} passed, {failed} failed");
    println!("{passed} passed, {failed} failed");
    assert!(failed == 0, "{failed} of {} cases disagree with kubectl (seed {seed})", cases.len());
}
