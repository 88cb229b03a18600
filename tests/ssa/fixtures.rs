//! The server-side apply fixtures (`fixtures/ssa`, the Go reference's
//! answers to histories of built-in kinds and a custom resource) through
//! smp's engine (`smp_core::ssa`): every line must give the reference's
//! answer, except the lines listed in `KNOWN_GAPS`, which must still differ
//! (so that a fix is noticed and the list shrinks).

use serde_json::{Value, json};
use smp_core::ssa::{self, Resource, Schema};
use smp_tests::harness::loud;
use smp_tests::ssa_fixture::{dir, load, mismatch};
use std::collections::BTreeMap;

/// Lines (by `case`) known to differ from the reference, with the reason.
const KNOWN_GAPS: &[(&str, &str)] = &[];

/// Our answer to one line, in the output form of the batch contract.
fn answer(res: &Resource, line: &Value) -> Value {
    let input = &line["input"];
    let live = input.get("live").filter(|l| !l.is_null());
    let manager = input["manager"].as_str().unwrap_or("");
    let now = input["now"].as_str().unwrap_or("");
    let outcome = if line["op"] == "apply" {
        let force = input["force"].as_bool().unwrap_or(false);
        ssa::apply(res, live, &input["applied"], manager, force, now)
    } else {
        ssa::update(res, live, &input["new"], manager, now)
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

/// Runs every line of `file`; returns (category → (passed, total)) and the failures.
fn run<'s>(
    file: &str,
    resource_of: &dyn Fn(&Value) -> Resource<'s>,
) -> (BTreeMap<String, (usize, usize)>, Vec<String>) {
    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for line in load(file) {
        let case = line["case"].as_str().unwrap_or("?").to_string();
        let res = resource_of(&line);
        let got = answer(&res, &line);
        let verdict = mismatch(&line["expected"], &got);
        let known = KNOWN_GAPS.iter().find(|(c, _)| *c == case);
        let entry = tally.entry(line["category"].as_str().unwrap_or("?").to_string()).or_default();
        entry.1 += 1;
        match (verdict, known) {
            (None, None) => entry.0 += 1,
            (Some(why), None) => failures.push(format!("{file} {case} ({}): {why}", line["category"])),
            (None, Some(_)) => failures.push(format!("{file} {case}: passes now: remove it from KNOWN_GAPS")),
            (Some(_), Some(_)) => {}
        }
    }
    (tally, failures)
}

fn report(file: &str, tally: &BTreeMap<String, (usize, usize)>) {
    let (passed, total) = tally.values().fold((0, 0), |(p, t), (a, b)| (p + a, t + b));
    loud(&format!("ssa fixtures {file}: {passed}/{total} lines give the reference's answer"));
    for (category, (p, t)) in tally {
        loud(&format!("  {category:<28} {p}/{t}"));
    }
}

#[test]
fn built_in_kinds_give_the_references_answers() {
    let resource_of = |line: &Value| {
        let schema = line["schema"].as_str().expect("schema");
        let (api_version, kind) = schema.rsplit_once('/').expect("apiVersion/kind");
        smp_k8s_types::ssa_schemas::resource(api_version, kind).unwrap_or_else(|| panic!("no schema for {schema}"))
    };
    let mut all = Vec::new();
    for file in ["builtin.jsonl", "last_applied.jsonl", "versions.jsonl"] {
        let (tally, failures) = run(file, &resource_of);
        report(file, &tally);
        all.extend(failures);
    }
    assert!(all.is_empty(), "{} lines differ:\n{}", all.len(), all.join("\n"));
}

#[test]
fn the_custom_resource_gives_the_references_answers() {
    let doc: Value = serde_json::from_slice(&std::fs::read(dir().join("widget_openapi.json")).unwrap()).unwrap();
    let schema = Schema::from_openapi_v3(&doc).expect("the Widget schema");
    let resource_of = |_: &Value| {
        Resource::for_definition(&schema, smp_tests::ssa_gen::widget::DEFINITION, None).expect("the Widget definition")
    };
    let (tally, failures) = run("widget.jsonl", &resource_of);
    report("widget.jsonl", &tally);
    assert!(failures.is_empty(), "{} lines differ:\n{}", failures.len(), failures.join("\n"));
}
