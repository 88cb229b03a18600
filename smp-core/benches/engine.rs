//! The JSON engine on the inputs of `shared/bench-cases`, whose README gives
//! the Go reference's own timings on this kind of machine.
//!
//! Each case is measured several ways, side by side in one run:
//!
//! - `new`: as Go was measured, from JSON text to JSON text, through the
//!   bytes entry points (`apply_slice`, `diff_slice`, `three_way_slice`)
//!   with the Kubernetes OpenAPI v3 schema of the kind (an apply runs on
//!   the compact document);
//! - `line`: as the command line's batch runs a case, from one line of
//!   JSON text (`{"original": ..., "patch": ...}`) to the output text: the
//!   line read once into compact documents as the batch reads it
//!   (`read_guided_members`, with the operation's guides), then
//!   `apply_object`, `diff_objects` or `three_way_objects`;
//! - `value` (applies only): the bytes path on `serde_json::Value`, as
//!   `apply_slice` ran before the compact document: decode into `Value`s,
//!   apply on the original taken over (`apply_owned`), write with the same
//!   writer;
//! - `old`: the same from text to text through the `Value` entry points as
//!   callers holding text used them before the bytes entry points: decode
//!   the inputs, run `apply` / `diff` / `three_way` on borrowed values
//!   (which copies what it keeps), encode the output with serde_json;
//! - `decoded`: the operation alone, on already decoded values;
//! - `codec`: decoding the inputs and encoding the output, without the
//!   operation (what `new` and `old` spend outside the engine);
//! - `read` (Deployment cases): reading the input texts into compact
//!   documents and freeing them, what `new` spends before the operation;
//! - `check` (Deployment cases): serde_json checking the input texts
//!   without building anything (`IgnoredAny`): a floor for any exact
//!   reader, which must check every byte of its inputs, as the reference
//!   refuses invalid JSON anywhere in them.
//!
//! The Pod scaling series is extended to N = 100,000 env vars, generated as
//! the shipped N = 100 ... 10,000 files were (checked against N = 100).
//!
//! Go's ns/op on the same inputs (README of bench-cases, with the share of
//! decoding and encoding; 2-vCPU AMD EPYC, median of 5) are `GO_NS` below,
//! printed when the benchmarks start. Run with
//! `cargo bench -p smp-core --bench engine`; `DIVAN_SAMPLE_COUNT` overrides
//! the sample count. `SMP_SHARED` names the shared folder (default
//! `../shared` beside the workspace).

use divan::{Bencher, black_box};
use serde_json::Value;
use smp_core::unstable::Guides;
use smp_core::unstable::compact;
use smp_core::unstable::{apply_object, diff_objects, three_way_objects};
use smp_core::{
    ApplyOptions, OpenApi, Schema, ThreeWayOptions, apply, apply_owned, apply_slice, decode, diff, diff_slice,
    three_way, three_way_slice,
};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

fn main() {
    let Some(cases) = CASES.as_ref() else {
        eprintln!();
        eprintln!("**********************************************************************");
        eprintln!("*** engine benchmarks: NOT RUN. The shared folder with bench-cases/ ***");
        eprintln!("*** and k8s/openapi-v3/ was not found (set SMP_SHARED or put it at  ***");
        eprintln!("*** ../shared beside the workspace).                                ***");
        eprintln!("**********************************************************************");
        eprintln!();
        return;
    };
    eprintln!("\nGo reference ns/op on the same inputs (bench-cases/README.md); compare with `new` and `old`:");
    eprintln!("  {:<34} {:>9} {:>16}", "case", "op", "Go ns/op");
    for c in cases {
        let go = c.go_ns.map_or_else(|| "-".to_string(), group_digits);
        eprintln!("  {:<34} {:>9} {:>16}", c.name, c.op.name(), go);
    }
    eprintln!();
    divan::main();
}

/// Go's ns/op, from the README's tables.
const GO_NS: &[(&str, f64)] = &[
    ("deploy-apply-small", 105_668.0),
    ("deploy-twoway-1env", 207_563.0),
    ("deploy-threeway", 429_112.0),
    ("pod-env100.apply", 597e3),
    ("pod-env100.apply-ordered", 1.01e6),
    ("pod-env100.twoway", 190e3),
    ("pod-env100.threeway", 302e3),
    ("pod-env1000.apply", 51.4e6),
    ("pod-env1000.apply-ordered", 83.6e6),
    ("pod-env1000.twoway", 4.58e6),
    ("pod-env1000.threeway", 6.16e6),
    ("pod-env10000.apply", 5.28e9),
    ("pod-env10000.apply-ordered", 8.79e9),
    ("pod-env10000.twoway", 298e6),
    ("pod-env10000.threeway", 310e6),
    ("pod-env100000.apply", 878e9),
    ("pod-env100000.apply-ordered", 1506e9),
    ("pod-env100000.twoway", 58.2e9),
    ("pod-env100000.threeway", 54.9e9),
];

fn group_digits(ns: f64) -> String {
    let digits = format!("{ns:.0}");
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

// ---------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Apply,
    TwoWay,
    ThreeWay { overwrite: bool },
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Apply => "apply",
            Op::TwoWay => "two-way",
            Op::ThreeWay { .. } => "three-way",
        }
    }

    /// The input documents, in the order the operation takes them.
    fn inputs(self) -> &'static [&'static str] {
        match self {
            Op::Apply => &["original", "patch"],
            Op::TwoWay => &["original", "modified"],
            Op::ThreeWay { .. } => &["original", "modified", "current"],
        }
    }
}

struct Case {
    name: String,
    op: Op,
    schema: Schema<'static>,
    /// The inputs as JSON text, and decoded.
    texts: Vec<Vec<u8>>,
    /// The inputs as one batch line, a JSON object of them by name.
    line: Vec<u8>,
    values: Vec<Value>,
    /// The operation's output, for `codec`.
    output: Value,
    go_ns: Option<f64>,
}

impl Case {
    fn new(name: String, doc: &Value) -> Case {
        let op = match doc["op"].as_str() {
            Some("apply") => Op::Apply,
            Some("twoway") => Op::TwoWay,
            Some("threeway") => Op::ThreeWay { overwrite: doc["overwrite"].as_bool().unwrap_or(false) },
            other => panic!("{name}: unknown op {other:?}"),
        };
        let schema = match doc["kind"].as_str() {
            Some("Pod") => SCHEMAS.pod,
            Some("Deployment") => SCHEMAS.deployment,
            other => panic!("{name}: no schema for kind {other:?}"),
        };
        let texts: Vec<Vec<u8>> = op.inputs().iter().map(|k| serde_json::to_vec(&doc[*k]).unwrap()).collect();
        let values = texts.iter().map(|t| decode(t).unwrap()).collect();
        // In the order the operation takes them (a `Map` would sort them).
        let fields: Vec<String> =
            op.inputs().iter().zip(&texts).map(|(k, t)| format!("{k:?}:{}", String::from_utf8_lossy(t))).collect();
        let line = format!("{{{}}}", fields.join(",")).into_bytes();
        let go_ns = GO_NS.iter().find(|(n, _)| *n == name).map(|(_, ns)| *ns);
        let mut case = Case { name, op, schema, texts, line, values, output: Value::Null, go_ns };
        case.output = case.run(&case.values);
        let want = smp_core::unstable::to_json_vec(&case.output).unwrap();
        assert_eq!(case.run_slices(&case.texts), want, "{}", case.name);
        assert_eq!(case.run_line(&case.line), want, "{}", case.name);
        if case.op == Op::Apply {
            assert_eq!(case.run_value_slices(&case.texts), want, "{}", case.name);
        }
        case
    }

    /// The operation on decoded inputs.
    fn run(&self, v: &[Value]) -> Value {
        match self.op {
            Op::Apply => apply(&v[0], &v[1], self.schema),
            Op::TwoWay => diff(&v[0], &v[1], self.schema),
            Op::ThreeWay { overwrite } => {
                three_way(&v[0], &v[1], &v[2], self.schema, ThreeWayOptions { overwrite, ..Default::default() })
            }
        }
        .unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    /// From the input texts to the output text, through the bytes entry points.
    fn run_slices(&self, t: &[Vec<u8>]) -> Vec<u8> {
        match self.op {
            Op::Apply => apply_slice(&t[0], &t[1], self.schema),
            Op::TwoWay => diff_slice(&t[0], &t[1], self.schema),
            Op::ThreeWay { overwrite } => {
                three_way_slice(&t[0], &t[1], &t[2], self.schema, ThreeWayOptions { overwrite, ..Default::default() })
            }
        }
        .unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    /// From one line of the inputs to the output text, as the batch runs it.
    fn run_line(&self, line: &[u8]) -> Vec<u8> {
        let mut fixed = None;
        // The guides the command line reads each operation's line with.
        let guides = match self.op {
            Op::Apply => Guides::Apply { original: "original", patch: "patch" },
            Op::TwoWay => Guides::Diff,
            Op::ThreeWay { .. } => Guides::ThreeWay { current: "current", modified: "modified" },
        };
        let members = smp_core::unstable::read_guided_members(line, &mut fixed, guides).unwrap();
        // The line holds the inputs in the order the operation takes them.
        let mut docs: Vec<compact::Object<'_>> = members
            .into_iter()
            .map(|m| match m.value {
                compact::Node::Object(o) => o,
                _ => compact::Object::default(),
            })
            .collect();
        let mut out = Vec::new();
        match self.op {
            Op::Apply => {
                let patch = docs.pop().unwrap();
                apply_object(&mut out, docs.pop().unwrap(), patch, self.schema)
            }
            Op::TwoWay => diff_objects(&mut out, &docs[0], &docs[1], self.schema),
            Op::ThreeWay { overwrite } => {
                let options = ThreeWayOptions { overwrite, ..Default::default() };
                three_way_objects(&mut out, &docs[0], &docs[1], &docs[2], self.schema, options)
            }
        }
        .unwrap_or_else(|e| panic!("{}: {e}", self.name));
        out
    }

    /// From the input texts to the output text on `serde_json::Value`s,
    /// without copying the original (an apply).
    fn run_value_slices(&self, t: &[Vec<u8>]) -> Vec<u8> {
        let (original, patch) = (decode(&t[0]).unwrap(), decode(&t[1]).unwrap());
        let out = apply_owned(original, &patch, self.schema, ApplyOptions::default());
        smp_core::unstable::to_json_vec(&out.unwrap_or_else(|e| panic!("{}: {e}", self.name))).unwrap()
    }

    /// From the input texts to the output text, through the `Value` entry points.
    fn run_bytes(&self, texts: &[Vec<u8>]) -> Vec<u8> {
        let values: Vec<Value> = texts.iter().map(|t| decode(t).unwrap()).collect();
        serde_json::to_vec(&self.run(&values)).unwrap()
    }

    /// Reading the input texts into compact documents (then freed).
    fn read(&self, texts: &[Vec<u8>]) -> usize {
        texts.iter().map(|t| compact::decode(t).unwrap().len()).sum()
    }

    /// Checking the input texts, building nothing.
    fn check(&self, texts: &[Vec<u8>]) {
        for t in texts {
            serde_json::from_slice::<serde::de::IgnoredAny>(t).unwrap();
        }
    }

    /// Decoding the input texts and encoding the output, without the operation.
    fn codec(&self, texts: &[Vec<u8>]) -> (Vec<Value>, Vec<u8>) {
        let values: Vec<Value> = texts.iter().map(|t| decode(t).unwrap()).collect();
        (values, serde_json::to_vec(&self.output).unwrap())
    }
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("SMP_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

struct Schemas {
    pod: Schema<'static>,
    deployment: Schema<'static>,
}

static SCHEMAS: LazyLock<Schemas> = LazyLock::new(|| {
    let load = |file: &str, def: &str| -> Schema<'static> {
        let path = shared_dir().join("k8s/openapi-v3").join(file);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let doc: &'static OpenApi = Box::leak(Box::new(OpenApi::from_json_slice(&bytes).unwrap()));
        doc.definition(def).unwrap()
    };
    Schemas {
        pod: load("api__v1_openapi.json", "io.k8s.api.core.v1.Pod"),
        deployment: load("apis__apps__v1_openapi.json", "io.k8s.api.apps.v1.Deployment"),
    }
});

/// The shipped cases, then the generated N = 100,000 ones; `None` when the
/// shared folder is missing.
static CASES: LazyLock<Option<Vec<Case>>> = LazyLock::new(|| {
    let dir = shared_dir().join("bench-cases");
    if !dir.is_dir() || !shared_dir().join("k8s/openapi-v3").is_dir() {
        return None;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if name.starts_with("pod-env100.") {
            check_generator(&name, &doc);
        }
        cases.push(Case::new(name, &doc));
    }
    for op in ["apply", "apply-ordered", "twoway", "threeway"] {
        cases.push(Case::new(format!("pod-env100000.{op}"), &pod_env_case(100_000, op)));
    }
    Some(cases)
});

/// One argument per case and way of measuring, the two ways side by side.
fn case_args() -> Vec<String> {
    let Some(cases) = CASES.as_ref() else { return Vec::new() };
    let ways = |c: &Case| match c.op {
        Op::Apply if c.name.starts_with("deploy") => {
            &["new", "line", "value", "old", "decoded", "codec", "read", "check"][..]
        }
        Op::Apply => &["new", "line", "value", "old", "decoded", "codec"][..],
        _ if c.name.starts_with("deploy") => &["new", "line", "old", "decoded", "codec", "read", "check"][..],
        _ => &["new", "line", "old", "decoded", "codec"][..],
    };
    cases.iter().flat_map(|c| ways(c).iter().map(move |way| format!("{} {way}", c.name))).collect()
}

fn case(arg: &str) -> (&'static Case, &str) {
    let (name, way) = arg.rsplit_once(' ').unwrap();
    let case = CASES.as_ref().unwrap().iter().find(|c| c.name == name).unwrap();
    (case, way)
}

// ---------------------------------------------------------------------------
// The Pod scaling series, generated
// ---------------------------------------------------------------------------

// The generator of the project's scaling cases, shared with `smp-cases`.
#[path = "../../tests/src/pod_env.rs"]
mod pod_env;

/// The case `pod-env<n>.<op>` (without `expected`).
fn pod_env_case(n: usize, op: &str) -> Value {
    pod_env::pod_env_case(n, op, |original, modified| diff(original, modified, SCHEMAS.pod).unwrap())
}

/// The generator must give the shipped inputs.
fn check_generator(name: &str, shipped: &Value) {
    let op = name.strip_prefix("pod-env100.").unwrap();
    let generated = pod_env_case(100, op);
    for key in ["op", "overwrite", "original", "patch", "modified", "current"] {
        assert_eq!(shipped.get(key), generated.get(key), "{name}: generated `{key}` differs from the shipped one");
    }
}

// ---------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------

#[divan::bench(args = case_args(), sample_count = 30)]
fn case_ns(bencher: Bencher, arg: &str) {
    let (case, way) = case(arg);
    let (texts, values) = (&case.texts, &case.values);
    match way {
        "new" => bencher.bench(|| case.run_slices(black_box(texts))),
        "line" => bencher.bench(|| case.run_line(black_box(&case.line))),
        "value" => bencher.bench(|| case.run_value_slices(black_box(texts))),
        "old" => bencher.bench(|| case.run_bytes(black_box(texts))),
        "decoded" => bencher.bench(|| case.run(black_box(values))),
        "read" => bencher.bench(|| case.read(black_box(texts))),
        "check" => bencher.bench(|| case.check(black_box(texts))),
        _ => bencher.bench(|| case.codec(black_box(texts))),
    }
}
