//! End-to-end tests of the `smp` binary.

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const CORE_V1: &str = "/work/shared/k8s/openapi-v3/api__v1_openapi.json";

/// Runs `smp` with `args`, feeding `stdin`.
fn smp(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_smp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("smp starts");
    // smp may exit before reading stdin (a usage error): ignore a broken pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// Writes `text` to a fresh file and gives its path.
fn file(name: &str, text: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("smp-cli-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn json_file(name: &str, value: &Value) -> String {
    file(name, &value.to_string()).display().to_string()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

fn assert_ok(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn lines(out: &Output) -> Vec<Value> {
    stdout(out).lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect()
}

/// A Pod as the OpenAPI v3 documents of Kubernetes describe it, cut down
/// to containers and their env.
fn openapi_snippet() -> String {
    let item = |name: &str| json!({"allOf": [{"$ref": format!("#/components/schemas/{name}")}], "default": {}});
    let doc = json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.36.0"},
        "components": {"schemas": {
            "io.k8s.api.core.v1.Pod": {
                "type": "object",
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "metadata": {"type": "object"},
                    "spec": item("io.k8s.api.core.v1.PodSpec"),
                },
                "x-kubernetes-group-version-kind": [{"group": "", "kind": "Pod", "version": "v1"}],
            },
            "io.k8s.api.core.v1.PodSpec": {
                "type": "object",
                "properties": {"containers": {
                    "type": "array",
                    "items": item("io.k8s.api.core.v1.Container"),
                    "x-kubernetes-patch-merge-key": "name",
                    "x-kubernetes-patch-strategy": "merge",
                }},
            },
            "io.k8s.api.core.v1.Container": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "image": {"type": "string"},
                    "env": {
                        "type": "array",
                        "items": item("io.k8s.api.core.v1.EnvVar"),
                        "x-kubernetes-patch-merge-key": "name",
                        "x-kubernetes-patch-strategy": "merge",
                    },
                },
            },
            "io.k8s.api.core.v1.EnvVar": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
            },
        }},
    });
    json_file("openapi.json", &doc)
}

fn env(pairs: &[(&str, &str)]) -> Value {
    pairs.iter().map(|(n, v)| json!({"name": n, "value": v})).collect()
}

fn pod(env_vars: Value) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "nginx", "image": "nginx", "env": env_vars}]},
    })
}

fn original_pod() -> Value {
    pod(env(&[("A", "1"), ("B", "2"), ("C", "3")]))
}

fn env_patch() -> Value {
    json!({"spec": {"containers": [{"name": "nginx", "env": env(&[("D", "4"), ("B", "two")])}]}})
}

/// What `kubectl patch --local` gives for [`env_patch`] on
/// [`original_pod`]: the patch's new item first, the rest in place.
fn merged_pod() -> Value {
    pod(env(&[("D", "4"), ("A", "1"), ("B", "two"), ("C", "3")]))
}

fn bad_env_patch() -> Value {
    json!({"spec": {"containers": [{"name": "nginx", "env": [{"$patch": "merge"}]}]}})
}

#[test]
fn apply_merges_env_by_name_with_the_kind_from_the_document() {
    let openapi = openapi_snippet();
    let original = json_file("pod.json", &original_pod());
    let patch = json_file("patch.json", &env_patch());
    let out = smp(&["apply", "--openapi", &openapi, &original, &patch], "");
    assert_eq!(assert_ok(&out), merged_pod());
    assert_eq!(stderr(&out), "");
}

#[test]
fn apply_with_an_explicit_definition() {
    let openapi = openapi_snippet();
    let mut original = original_pod();
    original.as_object_mut().unwrap().remove("kind");
    let original = json_file("pod.json", &original);
    let patch = json_file("patch.json", &env_patch());
    let args = ["apply", "--openapi", &openapi, "--definition", "io.k8s.api.core.v1.Pod", &original, &patch];
    let result = assert_ok(&smp(&args, ""));
    assert_eq!(result["spec"], merged_pod()["spec"]);
}

#[test]
fn apply_with_the_kubernetes_core_document() {
    if !Path::new(CORE_V1).exists() {
        eprintln!("SKIPPED: {CORE_V1} is absent");
        return;
    }
    let original = json_file("pod.json", &original_pod());
    let patch = json_file("patch.json", &env_patch());
    let out = smp(&["apply", "--openapi", CORE_V1, &original, &patch], "");
    assert_eq!(assert_ok(&out), merged_pod());
}

#[test]
fn yaml_in_and_yaml_out() {
    let openapi = openapi_snippet();
    let original = file(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {replicas: 3}\n\
         spec:\n  containers:\n  - name: nginx\n    image: nginx\n    env:\n\
         \x20   - {name: A, value: '1'}\n    - {name: B, value: '2'}\n    - {name: C, value: '3'}\n",
    );
    let patch = file(
        "patch.yaml",
        "spec:\n  containers:\n  - name: nginx\n    env:\n    - name: D\n      value: '4'\n    - name: B\n      value: two\n",
    );
    let args = ["apply", "--openapi", &openapi, "-o", "yaml", original.to_str().unwrap(), patch.to_str().unwrap()];
    let out = smp(&args, "");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("apiVersion: v1\n"), "{text}");
    let result: Value = serde_yaml_ng::from_str(&text).unwrap();
    let mut want = merged_pod();
    want["metadata"]["labels"] = json!({"replicas": 3});
    assert_eq!(result, want);
    assert!(result["metadata"]["labels"]["replicas"].is_i64(), "integers stay integers");
}

#[test]
fn stdin_as_one_input() {
    let patch = json_file("patch.json", &json!({"metadata": {"labels": {"app": "web"}}}));
    let out = smp(&["apply", "--untyped", "-", &patch], "metadata:\n  name: web\n");
    assert_eq!(assert_ok(&out), json!({"metadata": {"name": "web", "labels": {"app": "web"}}}));
    assert_eq!(stderr(&out), "", "--untyped silences the warning");
}

#[test]
fn only_one_input_from_stdin() {
    let out = smp(&["apply", "--untyped", "-", "-"], "{}");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("only one input can be read from stdin"), "{}", stderr(&out));
}

#[test]
fn without_a_schema_lists_are_replaced_with_a_warning() {
    let original = json_file("pod.json", &original_pod());
    let patch = json_file("patch.json", &env_patch());
    let out = smp(&["apply", &original, &patch], "");
    let result = assert_ok(&out);
    assert_eq!(result["spec"]["containers"], env_patch()["spec"]["containers"]);
    assert!(stderr(&out).starts_with("warning: no schema"), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1);
}

#[test]
fn a_bad_patch_exits_1_with_the_reason() {
    let openapi = openapi_snippet();
    let original = json_file("pod.json", &original_pod());
    let patch = json_file("patch.json", &bad_env_patch());
    let out = smp(&["apply", "--openapi", &openapi, &original, &patch], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("merging lists cannot yet be specified in the patch"), "{err}");
}

#[test]
fn a_missing_file_is_named() {
    let out = smp(&["apply", "--untyped", "/nonexistent/pod.json", "/nonexistent/patch.json"], "");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("original file \"/nonexistent/pod.json\""), "{err}");
    assert!(err.contains("No such file"), "{err}");
}

#[test]
fn a_document_that_is_not_an_object_is_refused() {
    let original = file("list.yaml", "- a\n- b\n");
    let out = smp(&["apply", "--untyped", original.to_str().unwrap(), "-"], "{}");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("must be an object, not a list"), "{}", stderr(&out));
}

#[test]
fn an_unknown_definition_is_named() {
    let openapi = openapi_snippet();
    let out = smp(&["apply", "--openapi", &openapi, "--definition", "io.example.Nope", "-", "-"], "{}");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("io.example.Nope"), "{}", stderr(&out));
}

#[test]
fn a_document_without_a_kind_asks_for_a_definition() {
    let openapi = openapi_snippet();
    let patch = json_file("patch.json", &json!({}));
    let out = smp(&["apply", "--openapi", &openapi, "-", &patch], r#"{"metadata": {"name": "x"}}"#);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("no apiVersion and kind"), "{err}");
    assert!(err.contains("--definition"), "{err}");
}

#[test]
fn usage_errors_exit_1() {
    let out = smp(&["apply", "--untyped", "only-one-file"], "");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn jsonl_answers_every_line_in_order() {
    let openapi = openapi_snippet();
    let good = json!({"original": original_pod(), "patch": env_patch()});
    let bad_patch = json!({"original": original_pod(), "patch": bad_env_patch()});
    let missing = json!({"original": original_pod()});
    let input = format!("{good}\nnot json\n{bad_patch}\n\n{missing}\n");
    let out = smp(&["apply", "--openapi", &openapi, "--jsonl"], &input);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let lines = lines(&out);
    assert_eq!(lines.len(), 5, "{}", stdout(&out));
    assert_eq!(lines[0], json!({"result": merged_pod()}));
    assert!(lines[1]["error"].as_str().unwrap().starts_with("invalid JSON"), "{}", lines[1]);
    assert!(lines[2]["error"].as_str().unwrap().contains("merging lists cannot yet be specified"), "{}", lines[2]);
    assert!(lines[3]["error"].as_str().unwrap().contains("empty line"), "{}", lines[3]);
    assert_eq!(lines[4], json!({"error": "missing field \"patch\""}));
}

#[test]
fn jsonl_from_a_file_with_a_fixed_definition() {
    let openapi = openapi_snippet();
    let case = json!({"original": {"spec": original_pod()["spec"]}, "patch": env_patch()});
    let cases = file("cases.jsonl", &format!("{case}\n{case}"));
    let definition = "io.k8s.api.core.v1.Pod";
    let args = ["apply", "--openapi", &openapi, "--definition", definition, "--jsonl", cases.to_str().unwrap()];
    let out = smp(&args, "");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let want = json!({"result": {"spec": merged_pod()["spec"]}}).to_string();
    assert_eq!(stdout(&out), format!("{want}\n{want}\n"));
}

/// Whether the engine has the operation yet; says so loudly when not.
fn implemented(out: &Output) -> bool {
    let text = format!("{}{}", stdout(out), stderr(out));
    let missing = text.contains("not implemented yet");
    if missing {
        eprintln!("SKIPPED: the engine does not implement this yet: {text}");
    }
    !missing
}

#[test]
fn diff_prints_the_two_way_patch() {
    let openapi = openapi_snippet();
    let original = json_file("pod.json", &original_pod());
    let modified = json_file("pod2.json", &merged_pod());
    let out = smp(&["diff", "--openapi", &openapi, &original, &modified], "");
    if !implemented(&out) {
        return;
    }
    let patch = json_file("patch.json", &assert_ok(&out));
    let applied = assert_ok(&smp(&["apply", "--openapi", &openapi, &original, &patch], ""));
    assert_eq!(applied, merged_pod());
}

#[test]
fn three_way_conflict_exits_2_with_both_sides() {
    let labels = |tier: &str| json!({"metadata": {"labels": {"tier": tier}}});
    let original = json_file("original.json", &labels("a"));
    let modified = json_file("modified.json", &labels("b"));
    let current = json_file("current.json", &labels("c"));
    let out = smp(&["three-way", "--untyped", &original, &modified, &current], "");
    if !implemented(&out) {
        return;
    }
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("\"tier\": \"b\"") && err.contains("\"tier\": \"c\""), "{err}");

    let out = smp(&["three-way", "--untyped", "--overwrite", &original, &modified, &current], "");
    assert_eq!(assert_ok(&out), labels("b"));

    let case = json!({"original": labels("a"), "modified": labels("b"), "current": labels("c")});
    let mut overwrite = case.clone();
    overwrite["overwrite"] = json!(true);
    let out = smp(&["three-way", "--untyped", "--jsonl", "-"], &format!("{case}\n{overwrite}\n"));
    let lines = lines(&out);
    assert_eq!(lines[0]["conflict"], json!(true), "{}", lines[0]);
    assert_eq!(lines[1], json!({"patch": labels("b")}));
}
