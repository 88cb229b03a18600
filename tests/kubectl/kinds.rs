//! Differential test of smp against the Go reference inside kubectl
//! (`kubectl patch --local --type strategic`) on random objects of twelve
//! built-in kinds, generated from their OpenAPI v3 definitions
//! (`smp_tests::openapi_gen`). Each case is an object, two modified copies
//! of it and a random patch, and makes three checks:
//!
//! - **apply**: the patch (smp's two-way diff of the object and a modified
//!   copy, sprinkled with directives) applied by kubectl and by smp, with
//!   the OpenAPI schema and with the static one (`smp_core::k8s`), and by
//!   the typed layer on the k8s-openapi type: equal results, or all fail;
//! - **two-way**: smp's diff of the object and a modified copy (OpenAPI,
//!   static and typed: equal) applied by kubectl gives the modified copy;
//! - **three-way**: smp's three-way patch (last applied = the object,
//!   desired = a modified copy, live = another modified copy; OpenAPI,
//!   static and typed: equal) applied to the live object by kubectl and by
//!   smp gives equal results, which hold the desired object and nothing
//!   removed from the last applied one.
//!
//! kubectl may be older than the OpenAPI documents: the fields its Go types
//! do not have are found first (`probe_tree`) and never generated (so a
//! seed gives the same cases with the same kubectl). Other known
//! differences, handled where they arise: the reference's result depends on
//! its map iteration order when a patch both adds a value to a set and
//! deletes it (never generated); its two-way diff drops a set's reordering
//! into sorted order (`two_way_result`); it leaves nulls in some new
//! subtrees (`not_applied` reads them as absent); k8s-openapi fills in
//! fields its types do not make optional (`typed_view`).
//!
//! Environment:
//! - `SMP_DIFF_SEED`: seed (default: from the clock; always printed);
//! - `SMP_KINDS_CASES`: cases per kind (default 25);
//! - `SMP_KINDS_REPLAY=FILE`: run the cases of a failures file
//!   (`target/smp-kinds-failures.jsonl`) instead;
//! - `SMP_KUBECTL`, `SMP_SHARED`: as for `kubectl_apply`.
//!
//! Without kubectl or the OpenAPI documents the test says SKIPPED and passes.

use serde_json::{Value, json};
use smp_core::{Schema, ThreeWayOptions};
use smp_tests::harness::{env_number, loud};
use smp_tests::json_cmp::first_difference;
use smp_tests::k8s_kinds::{KINDS, Kind, TypedError, TypedOutcome, fields_unknown_to_kubectl, kind_of};
use smp_tests::k8s_schema::{K8sSchemas, openapi_dir};
use smp_tests::kubectl::{self, Kubectl, Outcome};
use smp_tests::openapi_gen::{
    DefField, Defs, Gen, not_applied, strategy_fields, touched_strategy_fields, two_way_result,
};
use smp_tests::rng::case_seed;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Instant;

const DEFAULT_CASES_PER_KIND: usize = 25;
const KUBECTL_THREADS: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Check {
    Apply,
    TwoWay,
    ThreeWay,
}

const CHECKS: [Check; 3] = [Check::Apply, Check::TwoWay, Check::ThreeWay];

struct Case {
    index: usize,
    /// The seed of this case's generator (none for replayed cases).
    seed: Option<u64>,
    kind: &'static Kind,
    object: Value,
    modified: Value,
    current: Value,
    patch: Value,
    ops: Vec<String>,
}

/// One kubectl run of a check: `target` patched with `patch` must give
/// `expected` (both failing counts as agreeing).
struct Run {
    case: usize,
    check: Check,
    target: Value,
    patch: Value,
    expected: Outcome,
}

/// The schemas smp is run with: they must give the same answers.
struct Schemas<'a> {
    openapi: Schema<'a>,
    fixed: Schema<'static>,
}

fn target_dir() -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().map(PathBuf::from).unwrap_or(tmp)
}

/// Runs smp; a panic counts as an error.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let msg = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("smp panicked: {msg}"))
    })
}

fn text(o: &Result<Value, String>) -> String {
    match o {
        Ok(v) => format!("ok {v}"),
        Err(e) => format!("error: {e}"),
    }
}

fn typed_text(o: &TypedOutcome) -> String {
    match o {
        Ok(v) => format!("ok {v}"),
        Err(TypedError::Smp(e)) => format!("error: {e}"),
        Err(TypedError::Decode(e)) => format!("not a valid object of the type: {e}"),
    }
}

fn generate(defs: &Defs, schemas: &K8sSchemas, seed: u64, per_kind: usize) -> Vec<Case> {
    (0..per_kind * KINDS.len())
        .map(|index| {
            let kind = &KINDS[index % KINDS.len()];
            let case_seed = case_seed(seed, index);
            let mut g = Gen::new(defs, case_seed);
            let object = g.object(kind.api_version, kind.name);
            let modified = g.mutate(&object);
            let current = g.mutate(&object);
            // A patch that changes things: the diff of the object and a third copy.
            let target = g.mutate(&object);
            let schema = schemas.schema(kind.api_version, kind.name).unwrap_or_else(|e| panic!("{e}"));
            let mut patch = smp_core::diff(&object, &target, schema).unwrap_or(target);
            let ops = g.sprinkle(&mut patch, &object);
            Case { index, seed: Some(case_seed), kind, object, modified, current, patch, ops }
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
            let kind = kind_of(&v["object"]).unwrap_or_else(|| panic!("{file:?} line {}: unknown kind", index + 1));
            let ops = v["ops"].as_array().into_iter().flatten().filter_map(|o| o.as_str().map(String::from)).collect();
            Case {
                index,
                seed: v["caseSeed"].as_u64(),
                kind,
                object: v["object"].clone(),
                modified: v["modified"].clone(),
                current: v["current"].clone(),
                patch: v["patch"].clone(),
                ops,
            }
        })
        .collect()
}

fn engine(f: impl FnOnce() -> smp_core::Result<Value>) -> Result<Value, String> {
    guarded(|| f().map_err(|e| e.to_string()))
}

fn typed(f: impl FnOnce() -> TypedOutcome) -> TypedOutcome {
    guarded(|| Ok(f())).unwrap_or_else(|panic| Err(TypedError::Smp(panic)))
}

/// Both succeed with equal values, or both fail.
fn agree(what: &str, a: &Result<Value, String>, b: &Result<Value, String>, problems: &mut Vec<String>) {
    let problem = match (a, b) {
        (Ok(x), Ok(y)) => first_difference(x, y).map(|d| format!("{what} differ at {d}")),
        (Err(_), Err(_)) => None,
        _ => Some(format!("{what} disagree: {} vs {}", text(a), text(b))),
    };
    problems.extend(problem);
}

/// The typed layer's apply gives the JSON engine's result on the same
/// object (`typed_view`), as the k8s-openapi type gives it back, and fails
/// when it fails, or when that result does not fit the type (a patch that
/// gives a field another type).
fn typed_apply_agrees(kind: &Kind, engine: &Result<Value, String>, typed: &TypedOutcome, problems: &mut Vec<String>) {
    let disagree = || format!("typed apply and the JSON engine disagree: {} vs {}", typed_text(typed), text(engine));
    let problem = match (engine, typed) {
        (_, Err(TypedError::Decode(e))) => Some(format!("typed apply: the object is not a valid {}: {e}", kind.name)),
        (Ok(want), _) => match ((kind.round_trip)(want), typed) {
            (Ok(want), Ok(got)) => {
                first_difference(got, &want).map(|d| format!("typed apply and the JSON engine differ at {d}"))
            }
            (Err(_), Err(_)) => None,
            (Ok(_), Err(_)) => Some(disagree()),
            (Err(e), Ok(_)) => Some(format!("{}; the engine's result is not a valid {}: {e:?}", disagree(), kind.name)),
        },
        (Err(_), Err(_)) => None,
        (Err(_), Ok(_)) => Some(disagree()),
    };
    problems.extend(problem);
}

/// The values as k8s-openapi gives them back, which is what the typed
/// layer sees: it fills in fields that the Rust types do not make optional
/// (`LocalObjectReference.name`, `metadata`...).
fn typed_view<const N: usize>(kind: &Kind, values: [&Value; N]) -> Result<[Value; N], String> {
    let mut out = values.map(|_| Value::Null);
    for (v, o) in values.iter().zip(&mut out) {
        *o = (kind.round_trip)(v).map_err(|e| format!("not a valid {}: {e:?}", kind.name))?;
    }
    Ok(out)
}

/// The typed layer computes the patch that the JSON engine computes from
/// the same values (`typed_view`).
fn typed_patch_agrees(what: &str, engine: &Result<Value, String>, typed: &TypedOutcome, problems: &mut Vec<String>) {
    let problem = match (engine, typed) {
        (Ok(want), Ok(got)) => {
            first_difference(got, want).map(|d| format!("typed {what} and the JSON engine differ at {d}"))
        }
        (Err(_), Err(TypedError::Smp(_))) => None,
        _ => Some(format!("typed {what} and the JSON engine disagree: {} vs {}", typed_text(typed), text(engine))),
    };
    problems.extend(problem);
}

fn check_apply(i: usize, case: &Case, s: &Schemas, problems: &mut Vec<String>) -> Option<Run> {
    let (object, patch) = (&case.object, &case.patch);
    let with_openapi = engine(|| smp_core::apply(object, patch, s.openapi));
    let with_static = engine(|| smp_core::apply(object, patch, s.fixed));
    // The reference's struct metadata refuses a list under a field that
    // holds no list; its OpenAPI metadata lets it through. kubectl patch
    // reads the struct metadata, as the static schema does.
    let struct_only_refusal = matches!((&with_openapi, &with_static), (Ok(_), Err(e)) if e.ends_with("expected slice or array type, but got: struct"));
    if !struct_only_refusal {
        agree("apply with the OpenAPI and the static schemas", &with_openapi, &with_static, problems);
    }
    let with_typed = typed(|| (case.kind.apply)(object, patch));
    match typed_view(case.kind, [object]) {
        Ok([o]) => {
            typed_apply_agrees(case.kind, &engine(|| smp_core::apply(&o, patch, s.fixed)), &with_typed, problems)
        }
        Err(e) => problems.push(e),
    }
    Some(Run { case: i, check: Check::Apply, target: object.clone(), patch: patch.clone(), expected: with_static })
}

fn check_two_way(i: usize, case: &Case, s: &Schemas, defs: &Defs, problems: &mut Vec<String>) -> Option<Run> {
    let (object, modified) = (&case.object, &case.modified);
    let with_openapi = engine(|| smp_core::diff(object, modified, s.openapi));
    let with_static = engine(|| smp_core::diff(object, modified, s.fixed));
    agree("diffs with the OpenAPI and the static schemas", &with_openapi, &with_static, problems);
    let with_typed = typed(|| (case.kind.diff)(object, modified));
    match typed_view(case.kind, [object, modified]) {
        Ok([o, m]) => typed_patch_agrees("diff", &engine(|| smp_core::diff(&o, &m, s.fixed)), &with_typed, problems),
        Err(e) => problems.push(e),
    }
    let patch = match with_openapi {
        Ok(p) => p,
        Err(e) => {
            problems.push(format!("diff failed: {e}"));
            return None;
        }
    };
    let def = defs.kind_definition(case.kind.api_version, case.kind.name).unwrap_or_else(|e| panic!("{e}"));
    let expected = Ok(two_way_result(defs, def, object, modified));
    let applied = engine(|| smp_core::apply(object, &patch, s.openapi));
    agree("smp's apply of its diff and the modified object", &applied, &expected, problems);
    Some(Run { case: i, check: Check::TwoWay, target: object.clone(), patch, expected })
}

fn check_three_way(i: usize, case: &Case, s: &Schemas, defs: &Defs, problems: &mut Vec<String>) -> Option<Run> {
    let (original, modified, current) = (&case.object, &case.modified, &case.current);
    let opts = ThreeWayOptions { overwrite: true, ..Default::default() };
    let with_openapi = engine(|| smp_core::three_way(original, modified, current, s.openapi, opts));
    let with_static = engine(|| smp_core::three_way(original, modified, current, s.fixed, opts));
    agree("three-way patches with the OpenAPI and the static schemas", &with_openapi, &with_static, problems);
    let with_typed = typed(|| (case.kind.three_way)(original, modified, current));
    match typed_view(case.kind, [original, modified, current]) {
        Ok([o, m, c]) => {
            let want = engine(|| smp_core::three_way(&o, &m, &c, s.fixed, opts));
            typed_patch_agrees("three-way", &want, &with_typed, problems);
        }
        Err(e) => problems.push(e),
    }
    let patch = match with_openapi {
        Ok(p) => p,
        Err(e) => {
            problems.push(format!("three-way failed: {e}"));
            return None;
        }
    };
    let applied = engine(|| smp_core::apply(current, &patch, s.openapi));
    match &applied {
        Ok(result) => {
            let def = defs.kind_definition(case.kind.api_version, case.kind.name).unwrap_or_else(|e| panic!("{e}"));
            let why = not_applied(defs, def, original, modified, result);
            problems.extend(why.map(|p| format!("three-way: {p}\n  patch: {patch}\n  result: {result}")));
        }
        Err(e) => problems.push(format!("smp cannot apply its own three-way patch: {e}")),
    }
    Some(Run { case: i, check: Check::ThreeWay, target: current.clone(), patch, expected: applied })
}

/// kubectl's outcome against the expected one.
fn kubectl_disagrees(run: &Run, got: &Outcome) -> Option<String> {
    let expected = if run.check == Check::TwoWay { "the modified object" } else { "smp" };
    match (got, &run.expected) {
        (Err(e), _) if e.starts_with("harness:") => Some(format!("kubectl did not run: {e}")),
        (Ok(a), Ok(b)) => first_difference(a, b)
            .map(|d| format!("kubectl and {expected} differ at {d} (kubectl vs {expected})\n  kubectl: {a}")),
        (Err(_), Err(_)) => None,
        _ => Some(format!("kubectl: {}; {expected}: {}", text(got), text(&run.expected))),
    }
}

#[test]
fn kubectl_kinds() {
    let Some(binary) = kubectl::find() else {
        loud(
            "SKIPPED: kubectl not found on PATH (or $SMP_KUBECTL); the kinds differential test against the Go reference did not run",
        );
        return;
    };
    let Some(openapi) = openapi_dir() else {
        loud(
            "SKIPPED: k8s/openapi-v3 not found (set $SMP_SHARED); the kinds differential test against the Go reference did not run",
        );
        return;
    };
    let started = Instant::now();
    let schemas = K8sSchemas::load(&openapi).unwrap_or_else(|e| panic!("loading the OpenAPI documents: {e}"));
    let mut defs = Defs::load(&openapi).unwrap_or_else(|e| panic!("loading the OpenAPI documents: {e}"));
    let target = target_dir();
    let work = target.join("tmp").join(format!("smp-kinds-{}", std::process::id()));
    let kubectl = Kubectl::new(binary.clone(), &work).expect("kubectl work folder");

    let unknown = fields_unknown_to_kubectl(&kubectl, &mut defs);
    let unknown: Vec<String> = unknown.iter().map(|(t, f)| format!("{t}.{f}")).collect();
    println!("fields kubectl's Go types lack (never generated): {}", unknown.join(", "));

    let seed = env_number("SMP_DIFF_SEED").unwrap_or_else(|| {
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        (t.as_nanos() % 1_000_000_000) as u64
    });
    let per_kind = env_number("SMP_KINDS_CASES").unwrap_or(DEFAULT_CASES_PER_KIND);
    println!("seed = {seed}; rerun with SMP_DIFF_SEED={seed}");
    let replay_file = std::env::var_os("SMP_KINDS_REPLAY");
    let cases = match &replay_file {
        Some(file) => {
            println!("replaying {}", PathBuf::from(file).display());
            replay(file)
        }
        None => generate(&defs, &schemas, seed, per_kind),
    };

    let mut problems: BTreeMap<(usize, Check), Vec<String>> = BTreeMap::new();
    let mut runs = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let s = Schemas {
            openapi: schemas.schema(case.kind.api_version, case.kind.name).unwrap_or_else(|e| panic!("{e}")),
            fixed: case.kind.static_schema(),
        };
        for check in CHECKS {
            let mut found = Vec::new();
            let run = match check {
                Check::Apply => check_apply(i, case, &s, &mut found),
                Check::TwoWay => check_two_way(i, case, &s, &defs, &mut found),
                Check::ThreeWay => check_three_way(i, case, &s, &defs, &mut found),
            };
            runs.extend(run);
            problems.insert((i, check), found);
        }
    }

    let kubectl_started = Instant::now();
    let pairs: Vec<(&Value, &Value)> = runs.iter().map(|r| (&r.target, &r.patch)).collect();
    let outcomes = kubectl.patch_all(&pairs, KUBECTL_THREADS);
    let kubectl_time = kubectl_started.elapsed();
    let _ = std::fs::remove_dir_all(&work);
    let mut refused = 0;
    for (run, got) in runs.iter().zip(&outcomes) {
        refused += usize::from(run.check == Check::Apply && got.is_err());
        if let Some(p) = kubectl_disagrees(run, got) {
            problems.entry((run.case, run.check)).or_default().push(p);
        }
    }

    report_coverage(&defs, &cases);
    let mut directives: BTreeMap<&str, usize> = BTreeMap::new();
    for op in cases.iter().flat_map(|c| &c.ops) {
        *directives.entry(op.split('@').next().unwrap_or(op)).or_default() += 1;
    }
    let directives: Vec<String> = directives.iter().map(|(d, n)| format!("{d} {n}")).collect();
    println!("directives sprinkled into the random patches: {}", directives.join(", "));

    let mut failures = Vec::new();
    let mut check_counts: BTreeMap<Check, (usize, usize)> = BTreeMap::new();
    let mut kind_counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (i, case) in cases.iter().enumerate() {
        let failed: Vec<(Check, &Vec<String>)> =
            CHECKS.iter().map(|c| (*c, &problems[&(i, *c)])).filter(|(_, p)| !p.is_empty()).collect();
        for c in CHECKS {
            let counts = check_counts.entry(c).or_default();
            if problems[&(i, c)].is_empty() { counts.0 += 1 } else { counts.1 += 1 }
        }
        let counts = kind_counts.entry(case.kind.name).or_default();
        if failed.is_empty() {
            counts.0 += 1;
            continue;
        }
        counts.1 += 1;
        println!("\n=== DISAGREEMENT: case {} ({})", case.index, case.kind.name);
        if let Some(s) = case.seed {
            println!("case seed: {s}");
        }
        for (check, found) in &failed {
            for p in *found {
                println!("{check:?}: {p}");
            }
        }
        println!("ops:      {}", case.ops.join(", "));
        println!("object:   {}", case.object);
        println!("modified: {}", case.modified);
        println!("current:  {}", case.current);
        println!("patch:    {}", case.patch);
        let found: BTreeMap<String, &Vec<String>> = failed.iter().map(|(c, p)| (format!("{c:?}"), *p)).collect();
        failures.push(json!({
            "seed": seed,
            "index": case.index,
            "caseSeed": case.seed,
            "problems": found,
            "ops": case.ops,
            "object": case.object,
            "modified": case.modified,
            "current": case.current,
            "patch": case.patch,
        }));
    }

    let failures_file = target.join("smp-kinds-failures.jsonl");
    if replay_file.is_none() {
        let text: String = failures.iter().map(|f| format!("{f}\n")).collect();
        if let Err(e) = std::fs::write(&failures_file, text) {
            println!("could not write {}: {e}", failures_file.display());
        }
    }
    println!();
    println!(
        "kubectl: {} ({} runs on {KUBECTL_THREADS} threads in {:.1?}); {refused} of {} random patches refused by kubectl",
        binary.display(),
        runs.len(),
        kubectl_time,
        cases.len()
    );
    for (kind, (ok, bad)) in &kind_counts {
        println!("  {kind:<15} {:3} cases: {ok} passed, {bad} failed", ok + bad);
    }
    for (check, (ok, bad)) in &check_counts {
        println!("  check {check:<9?} {ok} passed, {bad} failed");
    }
    let failed = failures.len();
    if failed > 0 && replay_file.is_none() {
        println!("failing cases saved to {} (replay with SMP_KINDS_REPLAY=that file)", failures_file.display());
    }
    println!("total time {:.1?}", started.elapsed());
    println!("kubectl differential (kinds): {} passed, {failed} failed", cases.len() - failed);
    assert!(failed == 0, "{failed} of {} cases disagree with kubectl (seed {seed})", cases.len());
}

/// Prints how many of the fields with a patch strategy the cases held.
fn report_coverage(defs: &Defs, cases: &[Case]) {
    let mut all: BTreeSet<DefField> = BTreeSet::new();
    let mut touched = BTreeSet::new();
    for kind in KINDS {
        all.extend(strategy_fields(defs, defs.kind_definition(kind.api_version, kind.name).unwrap_or_default()));
    }
    for case in cases {
        let def = defs.kind_definition(case.kind.api_version, case.kind.name).unwrap_or_default();
        for v in [&case.object, &case.modified, &case.current, &case.patch] {
            touched_strategy_fields(defs, def, v, &mut touched);
        }
    }
    let missed: Vec<String> = all.difference(&touched).map(|(d, f)| format!("{d}.{f}")).collect();
    println!("strategy fields touched: {} of {}", all.len() - missed.len(), all.len());
    if !missed.is_empty() {
        println!("  untouched: {}", missed.join(", "));
    }
}
