//! Server-side apply against the Go reference, live: random histories
//! (`smp_tests::ssa_gen`) of built-in kinds and the custom resource, each
//! step run through `smpgo` (the reference's field manager) and through
//! smp's engine, answers compared; the history goes on from the
//! reference's result.
//!
//! Skipped (loudly) without `~/smpgo/smpgo` (or `$SMPGO`; build it with
//! `shared/reference/build.sh`) or the shared OpenAPI documents. Histories
//! per kind: `SMP_SSA_HISTORIES` (default 2); seed: `SMP_DIFF_SEED`.

use serde_json::{Value, json};
use smp_core::ssa::{self, Resource, Schema};
use smp_tests::harness::{diff_seed, env_number, loud};
use smp_tests::k8s_schema::openapi_dir;
use smp_tests::openapi_gen::Defs;
use smp_tests::rng::case_seed;
use smp_tests::smpgo::{Smpgo, find};
use smp_tests::ssa_fixture::{dir, mismatch};
use smp_tests::ssa_gen::{Op, Step, Subject, history, widget};

const KINDS: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("networking.k8s.io/v1", "Ingress"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("policy/v1", "PodDisruptionBudget"),
    ("rbac.authorization.k8s.io/v1", "Role"),
];

fn ours(res: &Resource, step: &Step) -> Value {
    let live = step.live.as_ref();
    let outcome = match &step.op {
        Op::Apply { applied, force } => ssa::apply(res, live, applied, &step.manager, *force, &step.now),
        Op::Update { new } => ssa::update(res, live, new, &step.manager, &step.now),
    };
    match outcome {
        Ok(object) => json!({"result": object}),
        Err(e) => match e.conflicts() {
            Some(c) => json!({"error": e.to_string(), "conflicts": c.sorted().iter()
                .map(|c| json!({"manager": c.manager, "field": c.field})).collect::<Vec<_>>()}),
            None => json!({"error": e.to_string()}),
        },
    }
}

/// Plays `histories` histories of `subject`; returns (steps, failures).
fn play(
    subject: &Subject,
    res: &Resource,
    smpgo: &mut Smpgo,
    kind: &str,
    seed: u64,
    histories: usize,
) -> (usize, Vec<String>) {
    let (mut steps, mut failures) = (0, Vec::new());
    for h in 0..histories {
        let mut trouble = None;
        let records = history(subject, case_seed(seed, h), &mut |step| {
            let op = if step.op_name() == "apply" { "ssaapply" } else { "ssaupdate" };
            let theirs = smpgo.run(op, kind, &step.line()).unwrap_or_else(|e| panic!("smpgo: {e}"));
            if trouble.is_none()
                && let Some(why) = mismatch(&theirs, &ours(res, step))
            {
                trouble = Some(format!(
                    "{}-{h} {} ({}): {why}\n  input: {}",
                    subject.kind(),
                    step.op_name(),
                    step.category,
                    step.line()
                ));
            }
            theirs
        });
        steps += records.len();
        failures.extend(trouble);
    }
    (steps, failures)
}

#[test]
fn histories_match_the_reference() {
    let Some(binary) = find() else {
        loud("SKIPPED ssa_differential: no smpgo (build it with shared/reference/build.sh, or set SMPGO)");
        return;
    };
    let Some(openapi) = openapi_dir() else {
        loud("SKIPPED ssa_differential: no shared k8s/openapi-v3 (set SMP_SHARED)");
        return;
    };
    let histories = env_number("SMP_SSA_HISTORIES").unwrap_or(2);
    let seed = diff_seed();
    loud(&format!("ssa_differential: seed {seed} (SMP_DIFF_SEED), {histories} histories per kind (SMP_SSA_HISTORIES)"));
    let mut smpgo = Smpgo::new(binary, &openapi);
    let defs = Defs::load(&openapi).expect("the OpenAPI documents");
    let (mut total, mut failures) = (0, Vec::new());
    for (i, (api_version, kind)) in KINDS.iter().enumerate() {
        let subject = Subject::built_in(&defs, api_version, kind).unwrap();
        let res = smp_k8s_types::ssa_schemas::resource(api_version, kind).expect("a built-in schema");
        let (n, f) = play(&subject, &res, &mut smpgo, &format!("{api_version}/{kind}"), seed ^ i as u64, histories);
        total += n;
        failures.extend(f);
    }
    let widget_defs = Defs::load(&dir()).expect("the Widget document");
    let subject = Subject::widget(&widget_defs).unwrap();
    let doc_path = dir().join("widget_openapi.json");
    let doc: Value = serde_json::from_slice(&std::fs::read(&doc_path).unwrap()).unwrap();
    let schema = Schema::from_openapi_v3(&doc).unwrap();
    let res = Resource::for_definition(&schema, widget::DEFINITION, None).unwrap();
    let kind = format!("@{}#{}", doc_path.display(), widget::DEFINITION);
    let (n, f) = play(&subject, &res, &mut smpgo, &kind, seed ^ 0xC0FFEE, histories * 5);
    total += n;
    failures.extend(f);
    loud(&format!("ssa_differential: {} of {total} steps' histories differ from the reference", failures.len()));
    assert!(
        failures.is_empty(),
        "{} histories differ (first difference of each):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
