//! Server-side apply against the Go reference, live: random histories
//! (`smp_tests::ssa_gen`) of built-in kinds and the custom resource, each
//! step run through `smpgo` (the reference's field manager) and through
//! smp's engine, answers compared; the history goes on from the
//! reference's result.
//!
//! A derived type too: the schema smp derives from a `#[derive(StrategicMerge)]`
//! spec's `#[patch]` attributes (`ssa::openapi_v3`: a list map with two
//! keys, a set, a list map of structs holding a list map and an atomic
//! list, a granular map, an atomic struct) goes to the reference as an
//! OpenAPI document, and both field managers run the same histories of
//! random typed specs (three appliers, forced or not, and a controller's
//! updates) under it, smp's reading it through `DerivedSchema`.
//!
//! Skipped (loudly) without `~/smpgo/smpgo` (or `$SMPGO`; build it with
//! `shared/reference/build.sh`) or the shared OpenAPI documents. Histories
//! per kind: `SMP_SSA_HISTORIES` (default 2); seed: `SMP_DIFF_SEED`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use smp_core::ssa::{self, DerivedSchema, Resource, Schema};
use smp_k8s_types::StrategicMerge;
use smp_tests::harness::{diff_seed, env_number, loud};
use smp_tests::k8s_schema::openapi_dir;
use smp_tests::openapi_gen::Defs;
use smp_tests::rng::{Rng, case_seed};
use smp_tests::smpgo::{Smpgo, find};
use smp_tests::ssa_fixture::{dir, mismatch};
use smp_tests::ssa_gen::{Op, Step, Subject, history, widget};
use std::collections::BTreeMap;

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

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Port {
    port: i32,
    protocol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct EnvVar {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Container {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    image: Option<String>,
    /// Keyed by name.
    #[patch(strategy = "merge", merge_key = "name")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    env: Vec<EnvVar>,
    /// Atomic.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    args: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Selector {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    match_labels: BTreeMap<String, String>,
}

/// A spec with every kind of list and map the derive marks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct GadgetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<i32>,
    /// A list map with two key fields.
    #[patch(strategy = "merge", merge_key = "port,protocol")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ports: Vec<Port>,
    /// A set.
    #[patch(strategy = "merge")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
    /// A list map of structs holding a list map and an atomic list.
    #[patch(strategy = "merge", merge_key = "name")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    containers: Vec<Container>,
    /// A granular map.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    labels: BTreeMap<String, String>,
    /// An atomic struct.
    #[patch(strategy = "replace")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    selector: Option<Selector>,
}

fn strings(rng: &mut Rng, from: &[&str], max: usize) -> Vec<String> {
    rng.subset(from, max).into_iter().map(String::from).collect()
}

fn string_map(rng: &mut Rng, keys: &[&str]) -> BTreeMap<String, String> {
    let keys = strings(rng, keys, 2);
    keys.into_iter().map(|k| (k, rng.pick(&["1", "2"]).to_string())).collect()
}

/// A random spec: few distinct keys and values, so that managers meet.
fn gadget_spec(rng: &mut Rng) -> GadgetSpec {
    let mut spec = GadgetSpec { replicas: rng.chance(0.5).then(|| rng.below(3) as i32), ..Default::default() };
    for (port, protocol) in rng.subset(&[(80, "TCP"), (80, "UDP"), (443, "TCP"), (53, "UDP")], 3) {
        let name = rng.chance(0.3).then(|| format!("p{port}"));
        spec.ports.push(Port { port, protocol: protocol.into(), name });
    }
    spec.tags = strings(rng, &["x", "y", "z", "w"], 3);
    for name in strings(rng, &["web", "proxy", "init"], 2) {
        let image = rng.chance(0.7).then(|| rng.pick(&["img:1", "img:2"]).to_string());
        let mut env = Vec::new();
        for n in strings(rng, &["A", "B", "C"], 2) {
            env.push(EnvVar { name: n, value: rng.chance(0.7).then(|| rng.pick(&["1", "2"]).to_string()) });
        }
        let args = strings(rng, &["-v", "-q", "--x"], 2);
        spec.containers.push(Container { name, image, env, args });
    }
    spec.labels = string_map(rng, &["app", "tier", "team"]);
    spec.selector = rng.chance(0.5).then(|| Selector { match_labels: string_map(rng, &["app", "tier"]) });
    spec
}

fn gadget(spec: &GadgetSpec) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g", "namespace": "default"},
           "spec": serde_json::to_value(spec).unwrap()})
}

/// smp's answer to a batch line, in the contract's output form.
fn ours_line(res: &Resource, op: &str, line: &Value) -> Value {
    let live = line.get("live").filter(|l| !l.is_null());
    let (manager, now) = (line["manager"].as_str().unwrap(), line["now"].as_str().unwrap());
    let outcome = if op == "ssaapply" {
        ssa::apply(res, live, &line["applied"], manager, line["force"] == true, now)
    } else {
        ssa::update(res, live, &line["new"], manager, now)
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

#[test]
fn a_derived_types_histories_match_the_reference() {
    let Some(binary) = find() else {
        loud(
            "SKIPPED ssa_differential (derived type): no smpgo (build it with shared/reference/build.sh, or set SMPGO)",
        );
        return;
    };
    let Some(openapi) = openapi_dir() else {
        loud("SKIPPED ssa_differential (derived type): no shared k8s/openapi-v3 (set SMP_SHARED)");
        return;
    };
    let (api_version, kind) = ("example.com/v1", "Gadget");
    let histories = env_number("SMP_SSA_HISTORIES").unwrap_or(2) * 5;
    let seed = diff_seed() ^ 0xDE7;
    let derived = DerivedSchema::of_spec::<GadgetSpec>(api_version, kind).expect("the derived schema");
    let res = derived.resource();
    let doc = ssa::openapi_v3::<GadgetSpec, GadgetSpec>(api_version, kind, false);
    let definition = ssa::Schema::from_openapi_v3(&doc)
        .unwrap()
        .kind_definition("example.com", "v1", kind)
        .expect("the root is marked with its kind")
        .to_string();
    let doc_path = std::env::temp_dir().join(format!("smp-ssa-derived-{}.json", std::process::id()));
    std::fs::write(&doc_path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let target = format!("@{}#{definition}", doc_path.display());
    let mut smpgo = Smpgo::new(binary, &openapi);
    let (mut steps, mut conflicts, mut failures) = (0, 0, Vec::new());
    for h in 0..histories {
        let mut rng = Rng::new(case_seed(seed, h));
        let mut live = Value::Null;
        for step in 0..10 {
            let now = format!("2026-01-01T00:{step:02}:00Z");
            let (op, line) = if rng.chance(0.75) || live.is_null() {
                let manager = *rng.pick(&["alice", "bob", "carol"]);
                let line = json!({"live": live, "applied": gadget(&gadget_spec(&mut rng)), "manager": manager,
                                  "force": rng.chance(0.3), "now": now});
                ("ssaapply", line)
            } else {
                let mut new = live.clone();
                new["spec"] = gadget(&gadget_spec(&mut rng))["spec"].take();
                new["metadata"].as_object_mut().unwrap().remove("managedFields");
                ("ssaupdate", json!({"live": live, "new": new, "manager": "controller", "now": now}))
            };
            let theirs = smpgo.run(op, &target, &line).unwrap_or_else(|e| panic!("smpgo: {e}"));
            steps += 1;
            conflicts += usize::from(theirs.get("conflicts").is_some());
            if let Some(why) = mismatch(&theirs, &ours_line(&res, op, &line)) {
                failures.push(format!("history {h} step {step} ({op}): {why}\n  input: {line}"));
                break;
            }
            if let Some(result) = theirs.get("result") {
                live = result.clone();
            }
        }
    }
    std::fs::remove_file(&doc_path).ok();
    loud(&format!(
        "ssa_differential (derived type): {histories} histories, {steps} steps ({conflicts} refused for conflicts), {} differ",
        failures.len()
    ));
    assert!(conflicts > 0, "the histories never met a conflict");
    assert!(failures.is_empty(), "{} histories differ:\n{}", failures.len(), failures.join("\n"));
}
