//! Writes case lines for `smp ... --jsonl` on stdout:
//!
//! ```text
//! smp-cases pod-env N VARIANT   # the Pod scaling case (apply, apply-ordered, apply-label, twoway, threeway)
//! smp-cases bench OP            # the shipped bench cases of OP (apply, twoway, threeway)
//! smp-cases random OP COUNT SEED
//! ```
//!
//! `scripts/scaling.sh` and `scripts/same-output.sh` use it.

use smp_core::{Schema, diff};
use smp_tests::conformance::shared_dir;
use smp_tests::scale::{line, pod_env_case, random_lines};
use std::io::{BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let lines = match args.as_slice() {
        ["pod-env", n, variant] => {
            let Ok(n) = n.parse() else { return usage() };
            let pod = Schema::Static(smp_core::k8s::shape_of_kind("v1", "Pod").expect("Pod is built in"));
            vec![line(&pod_env_case(n, variant, |o, m| diff(o, m, pod).expect("diff of two Pods")))]
        }
        ["bench", op] => match bench_lines(op) {
            Ok(lines) => lines,
            Err(e) => {
                eprintln!("smp-cases: {e}");
                return ExitCode::FAILURE;
            }
        },
        ["random", op, count, seed] => {
            let (Ok(count), Ok(seed)) = (count.parse(), seed.parse()) else { return usage() };
            random_lines(op, count, seed)
        }
        _ => return usage(),
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    for l in lines {
        if writeln!(out, "{l}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// The lines of the shipped cases of `op`, in file name order.
fn bench_lines(op: &str) -> Result<Vec<String>, String> {
    let dir = shared_dir().ok_or("no shared folder (set SMP_SHARED)")?.join("bench-cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut lines = Vec::new();
    for path in files {
        let text = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let case: serde_json::Value = serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if case["op"] == op {
            lines.push(line(&case));
        }
    }
    Ok(lines)
}

fn usage() -> ExitCode {
    eprintln!("usage: smp-cases pod-env N VARIANT | bench OP | random OP COUNT SEED");
    ExitCode::FAILURE
}
