//! The patches kubectl sends, as the shared oracle captures them
//! (`oracle/smp_threeway.py`: `kubectl edit` for a two-way patch, `kubectl
//! apply` for a three-way one, each against a local fake API server), and
//! their comparison with smp's, by value and byte for byte as Go writes
//! JSON.

use crate::harness::loud;
use serde_json::{Value, json};
use smp_core::unstable::to_go_json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Parallel kubectl runs of the oracle.
const THREADS: usize = 2;

/// The shared data folder (`SMP_SHARED`, else `../shared` beside the workspace).
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("SMP_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// The oracle script, when it and python3 are there; else why not.
pub fn find() -> Result<PathBuf, String> {
    let oracle = shared_dir().join("oracle/smp_threeway.py");
    let python = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if oracle.is_file() && python { Ok(oracle) } else { Err(format!("python3 or {} missing", oracle.display())) }
}

/// Runs the oracle's batch mode on `cases` (one JSON object each, with an
/// `id`), in `dir`; its results in the order of the cases.
pub fn run_batch(oracle: &Path, dir: &Path, name: &str, cases: &[Value]) -> Vec<Value> {
    std::fs::create_dir_all(dir).expect("oracle dir");
    // Named by the process too: runs of the test side by side (against
    // several kubectl versions) keep to their own files.
    let pid = std::process::id();
    let input = dir.join(format!("{name}.{pid}.jsonl"));
    let output = dir.join(format!("{name}.{pid}.out.jsonl"));
    let lines: Vec<String> = cases.iter().map(Value::to_string).collect();
    std::fs::write(&input, lines.join("\n") + "\n").expect("oracle input");
    // The oracle reads `SMP_KUBECTL` itself.
    let status = Command::new("python3")
        .arg(oracle)
        .arg("--batch")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .args(["-j", &THREADS.to_string()])
        .status()
        .expect("running the oracle");
    assert!(status.success(), "the oracle failed on {}", input.display());
    let text = std::fs::read_to_string(&output).expect("oracle output");
    let mut results: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("oracle line")).collect();
    results.sort_by_key(|r| r["id"].as_u64());
    assert_eq!(results.len(), cases.len(), "one oracle result per case");
    let _ = (std::fs::remove_file(&input), std::fs::remove_file(&output));
    results
}

/// Agreement tally of one check.
#[derive(Default)]
pub struct Tally {
    pub agree: usize,
    /// Of those, the patches (not errors) ...
    pub patches: usize,
    /// ... and the patches equal to kubectl's byte for byte.
    pub bytes: usize,
    /// Cases kubectl edit skipped (no change), where smp's patch was `{}`.
    pub skipped: usize,
    pub problems: Vec<String>,
}

impl Tally {
    /// Prints the counts and the first problems: `label what: n/m agree`.
    pub fn report(&self, label: &str, what: &str, cases: usize, bytes: bool) {
        let bytes = if bytes { format!(", {} byte for byte", self.bytes) } else { String::new() };
        let skipped = match self.skipped {
            0 => String::new(),
            n => format!("; {n} without a change (kubectl edit sends nothing, smp's patch is {{}})"),
        };
        loud(&format!("{label} {what}: {}/{} agree with kubectl{bytes}{skipped}", self.agree, cases - self.skipped));
        for p in self.problems.iter().take(5) {
            loud(&format!("  {p}"));
        }
    }

    /// Compares smp's patch with the oracle's result for case `i`: equal
    /// values (counted byte for byte too), or both failing; `inputs` goes
    /// into the report of a difference.
    pub fn compare(&mut self, what: &str, i: usize, oracle: &Value, got: smp_core::Result<Value>, inputs: &str) {
        if oracle["skipped"] == json!(true) {
            // kubectl edit sends nothing when the object did not change;
            // smp's patch must then be empty.
            self.skipped += 1;
            if !matches!(&got, Ok(Value::Object(m)) if m.is_empty()) {
                self.problems.push(format!("{what} case {i}: kubectl saw no change, smp {got:?}\n    {inputs}"));
            }
            return;
        }
        let want = match oracle["ok"].as_bool() {
            Some(true) => oracle["patch"].as_str().map(|p| (p, serde_json::from_str::<Value>(p).expect("patch JSON"))),
            _ => None,
        };
        match (want, got) {
            (Some((bytes, want)), Ok(got)) => match crate::json_cmp::first_difference(&want, &got) {
                None => {
                    self.agree += 1;
                    self.patches += 1;
                    if to_go_json(&got) == bytes {
                        self.bytes += 1;
                    }
                }
                Some(d) => self.problems.push(format!("{what} case {i}: {d}\n    kubectl {bytes}\n    {inputs}")),
            },
            (None, Err(_)) => self.agree += 1,
            (want, got) => {
                self.problems.push(format!("{what} case {i}: kubectl {want:?} vs smp {got:?} ({oracle})\n    {inputs}"))
            }
        }
    }
}
