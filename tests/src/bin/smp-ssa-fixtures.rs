//! Writes the server-side apply fixtures (`tests/fixtures/ssa/*.jsonl`):
//! histories from [`smp_tests::ssa_gen`], each step run through the Go
//! reference (`smpgo`), its answer recorded as the expected output.
//!
//! ```text
//! smp-ssa-fixtures OUT_DIR [HISTORIES_PER_KIND [SEED]]
//! ```
//!
//! Needs `~/smpgo/smpgo` (or `$SMPGO`) and the shared OpenAPI documents.

use serde_json::{Value, json};
use smp_tests::k8s_schema::openapi_dir;
use smp_tests::openapi_gen::Defs;
use smp_tests::rng::case_seed;
use smp_tests::smpgo::{Smpgo, find};
use smp_tests::ssa_gen::{Subject, history};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The built-in kinds of the fixtures, one or more of each of the seven groups.
pub const KINDS: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "ServiceAccount"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("networking.k8s.io/v1", "Ingress"),
    ("networking.k8s.io/v1", "NetworkPolicy"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("policy/v1", "PodDisruptionBudget"),
    ("rbac.authorization.k8s.io/v1", "Role"),
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), count, seed) = (args.first(), args.get(1), args.get(2)) else {
        eprintln!("usage: smp-ssa-fixtures OUT_DIR [HISTORIES_PER_KIND [SEED]]");
        return ExitCode::FAILURE;
    };
    let count: usize = count.map_or(Ok(6), |c| c.parse()).expect("HISTORIES_PER_KIND is a number");
    let seed: u64 = seed.map_or(Ok(2026), |s| s.parse()).expect("SEED is a number");
    match write_all(Path::new(out), count, seed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("smp-ssa-fixtures: {e}");
            ExitCode::FAILURE
        }
    }
}

fn write_all(out: &Path, count: usize, seed: u64) -> Result<(), String> {
    let binary = find().ok_or("no smpgo (build it with shared/reference/build.sh, or set SMPGO)")?;
    let openapi = openapi_dir().ok_or("no shared k8s/openapi-v3 (set SMP_SHARED)")?;
    let mut smpgo = Smpgo::new(binary, &openapi);
    eprintln!("reference: {}", smpgo.version());
    let defs = Defs::load(&openapi)?;
    let widget_doc = out.join("widget_openapi.json");
    let widget_defs = Defs::load(out)?;
    let widget_kind = format!("@{}#{}", abs(&widget_doc).display(), smp_tests::ssa_gen::widget::DEFINITION);

    let mut lines = Vec::new();
    for (i, (api_version, kind)) in KINDS.iter().enumerate() {
        let subject = Subject::built_in(&defs, api_version, kind)?;
        let smpgo_kind = format!("{api_version}/{kind}");
        for h in 0..count {
            let name = format!("{kind}-{h}");
            record(&subject, &name, case_seed(seed, i * 1000 + h), &mut smpgo, &smpgo_kind, &mut lines)?;
        }
    }
    write_lines(&out.join("builtin.jsonl"), &lines)?;

    let subject = Subject::widget(&widget_defs)?;
    let mut lines = Vec::new();
    for h in 0..count * 6 {
        record(&subject, &format!("Widget-{h}"), case_seed(seed, 900_000 + h), &mut smpgo, &widget_kind, &mut lines)?;
    }
    write_lines(&out.join("widget.jsonl"), &lines)
}

fn abs(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn record(
    subject: &Subject,
    name: &str,
    seed: u64,
    smpgo: &mut Smpgo,
    kind: &str,
    lines: &mut Vec<Value>,
) -> Result<(), String> {
    let mut failure = None;
    let records = history(subject, seed, &mut |step| {
        let op = if step.op_name() == "apply" { "ssaapply" } else { "ssaupdate" };
        smpgo.run(op, kind, &step.line()).unwrap_or_else(|e| {
            failure.get_or_insert(e);
            json!({"error": "harness"})
        })
    });
    if let Some(e) = failure {
        return Err(format!("{name}: {e}"));
    }
    for (i, mut r) in records.into_iter().enumerate() {
        steady_error(&mut r.outcome);
        lines.push(json!({
            "case": format!("{name}.{i}"),
            "schema": subject.schema_name(),
            "op": r.step.op_name(),
            "category": r.step.category,
            "input": r.step.line(),
            "expected": r.outcome,
        }));
    }
    Ok(())
}

fn write_lines(path: &Path, lines: &[Value]) -> Result<(), String> {
    let mut text = Vec::new();
    for l in lines {
        writeln!(text, "{l}").expect("writing to memory");
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("{}: {} cases", path.display(), lines.len());
    Ok(())
}

/// The reference lists several errors in the order of a Go map walk: sorted
/// here, so that the files do not change from run to run.
fn steady_error(outcome: &mut Value) {
    if let Some(Value::String(text)) = outcome.get_mut("error") {
        let mut lines: Vec<&str> = text.split('\n').collect();
        if lines.len() > 2 && lines[0].ends_with("errors:") {
            lines[1..].sort_unstable();
            *text = lines.join("\n");
        }
    }
}
