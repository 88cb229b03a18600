//! `smp apply|update --server-side`: the batch contract over the
//! server-side apply fixtures (the Go reference's answers, in
//! `tests/fixtures/ssa`), bad lines, and the single-file form with
//! kubectl's conflict message.

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/ssa")
}

fn smp(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_smp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("smp runs");
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

/// The output lines (split at `\n` only: results may hold U+2028).
fn lines(out: &Output) -> Vec<Value> {
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    text.split_terminator('\n').map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

fn conflicts(v: &Value) -> BTreeSet<(String, String)> {
    v["conflicts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| (c["manager"].as_str().unwrap().to_string(), c["field"].as_str().unwrap().to_string()))
        .collect()
}

/// Whether our answer is the reference's: results by value, conflicts as
/// sets, other errors by kind.
fn same_answer(want: &Value, got: &Value) -> bool {
    match (want.get("result"), got.get("result")) {
        (Some(w), Some(g)) => smp_core::unstable::to_go_json(w) == smp_core::unstable::to_go_json(g),
        (None, None) => conflicts(want) == conflicts(got) && got["error"].is_string(),
        _ => false,
    }
}

fn run_fixture(file: &str, schema_args: &dyn Fn(&str) -> Vec<String>) {
    let text = std::fs::read_to_string(fixtures().join(file)).unwrap();
    let cases: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut groups: BTreeMap<(String, String), Vec<&Value>> = BTreeMap::new();
    for c in &cases {
        let key = (c["op"].as_str().unwrap().to_string(), c["schema"].as_str().unwrap().to_string());
        groups.entry(key).or_default().push(c);
    }
    let (mut passed, mut failed) = (0, Vec::new());
    for ((op, schema), group) in &groups {
        let input: String = group.iter().map(|c| format!("{}\n", c["input"])).collect();
        let mut args = vec![op.clone(), "--server-side".to_string()];
        args.extend(schema_args(schema));
        args.push("--jsonl".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = smp(&args, &input);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let answers = lines(&out);
        assert_eq!(answers.len(), group.len(), "{args:?}: one output line per input line");
        for (c, got) in group.iter().zip(&answers) {
            if same_answer(&c["expected"], got) {
                passed += 1;
            } else {
                failed.push(format!("{}: got {got}, want {}", c["case"], c["expected"]));
            }
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "smp --server-side --jsonl, {file}: {passed}/{} lines as the reference",
        cases.len()
    );
    assert!(failed.is_empty(), "{} lines differ:\n{}", failed.len(), failed.join("\n"));
}

#[test]
fn the_batch_gives_the_references_answers_for_built_in_kinds() {
    for file in ["builtin.jsonl", "last_applied.jsonl", "versions.jsonl"] {
        run_fixture(file, &|schema| vec!["--kind".into(), schema.into()]);
    }
}

#[test]
fn the_batch_gives_the_references_answers_for_a_custom_resource() {
    let doc = fixtures().join("widget_openapi.json").display().to_string();
    run_fixture("widget.jsonl", &|_| {
        vec!["--openapi".into(), doc.clone(), "--definition".into(), "com.example.v1.Widget".into()]
    });
}

fn deployment(replicas: u32) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"replicas": replicas}})
}

#[test]
fn a_bad_line_is_an_error_line_and_the_batch_goes_on() {
    let good =
        json!({"live": null, "applied": deployment(1), "manager": "a", "force": false, "now": "2026-01-01T00:00:00Z"});
    let input = format!(
        "{good}\nnot json\n{}\n{}\n{}\n\n{good}\n",
        json!({"live": null, "applied": [], "manager": "a"}),
        json!({"live": null, "applied": deployment(1), "manager": ""}),
        json!({"live": null, "applied": deployment(1), "manager": "a", "now": "yesterday"}),
    );
    let out = smp(&["apply", "--server-side", "--kind", "deploy", "--jsonl"], &input);
    assert!(out.status.success());
    let answers = lines(&out);
    assert_eq!(answers.len(), 7, "{answers:?}");
    assert_eq!(answers[0], answers[6]);
    assert_eq!(answers[0]["result"]["metadata"]["managedFields"][0]["time"], "2026-01-01T00:00:00Z");
    for bad in &answers[1..6] {
        assert!(bad["error"].is_string() && bad.get("result").is_none(), "{bad}");
    }
    assert!(answers[4]["error"].as_str().unwrap().contains("RFC 3339"), "{}", answers[4]);
}

#[test]
fn the_kind_may_come_from_each_object() {
    let line = json!({"live": null, "new": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                      "data": {"k": "v"}}, "manager": "ctl", "now": "2026-01-01T00:00:00Z"});
    let out = smp(&["update", "--server-side", "--jsonl"], &format!("{line}\n"));
    let answers = lines(&out);
    let entry = &answers[0]["result"]["metadata"]["managedFields"][0];
    assert_eq!(entry["operation"], "Update");
    assert_eq!(entry["fieldsV1"], json!({"f:data": {".": {}, "f:k": {}}}));
    let widget = json!({"live": null, "applied": {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}},
                        "manager": "a", "now": "2026-01-01T00:00:00Z"});
    let out = smp(&["apply", "--server-side", "--jsonl"], &format!("{widget}\n"));
    let err = lines(&out)[0]["error"].as_str().unwrap().to_string();
    assert!(err.contains("--openapi") && err.contains("Widget"), "{err}");
}

#[test]
fn single_files_conflict_as_kubectl_prints_it_and_force_takes_the_field() {
    let dir = std::env::temp_dir().join(format!("smp-cli-ssa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let live_path = dir.join("live.json");
    let applied_path = dir.join("applied.yaml");
    // alice created the Deployment with 3 replicas.
    let create = smp(
        &["apply", "--server-side", "--jsonl"],
        &format!(
            "{}\n",
            json!({"live": null, "applied": deployment(3), "manager": "alice", "now": "2026-01-01T00:00:00Z"})
        ),
    );
    std::fs::write(&live_path, lines(&create)[0]["result"].to_string()).unwrap();
    std::fs::write(
        &applied_path,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  replicas: 5\n",
    )
    .unwrap();
    let (live, applied) = (live_path.to_str().unwrap(), applied_path.to_str().unwrap());

    let out = smp(&["apply", "--server-side", "--field-manager", "bob", live, applied], "");
    assert_eq!(out.status.code(), Some(2), "a conflict has its own exit status");
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("error: Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas\nPlease review the fields above--they currently have other managers."),
        "{stderr}"
    );
    assert!(stderr.contains("re-run the apply\n  command with the `--force-conflicts` flag."), "{stderr}");

    let out = smp(&["apply", "--server-side", "--field-manager", "bob", "--force-conflicts", live, applied], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["spec"]["replicas"], 5);
    let owners: Vec<(&str, &Value)> = result["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["manager"].as_str().unwrap(), &e["fieldsV1"]))
        .collect();
    assert!(owners.contains(&("bob", &json!({"f:spec": {"f:replicas": {}}}))), "{owners:?}");
    assert!(!owners.iter().any(|(m, _)| *m == "alice"), "alice owned nothing else: her entry goes: {owners:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
