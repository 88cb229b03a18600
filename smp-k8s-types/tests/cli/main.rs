//! End-to-end tests of the `smp` binary, in one test binary (with the
//! helpers the modules share below).
//!
//! - [`daily`]: several documents, directories, names, exit codes, the
//!   last-applied annotation, explanations, diffs, parallel batches;
//! - [`extensions`]: the opt-in extensions (`--patch-merge-key`, `check`,
//!   `diff --checked`, `apply --strict`);
//! - [`flags`]: no flag ignored in silence;
//! - [`hostile_input`]: deep, huge or malformed input, output that goes
//!   nowhere;
//! - [`versus_kubectl`]: `smp apply` against `kubectl patch --local`, byte
//!   for byte;
//! - [`patch_types`]: `--type merge|json`, single and batch modes;
//! - [`server_side`]: `apply|update --server-side` over the Go reference's
//!   fixtures.
//!
//! Without kubectl the tests that compare with it say so and skip.

mod daily;
mod extensions;
mod flags;
mod hostile_input;
mod patch_types;
mod server_side;
mod versus_kubectl;

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The core/v1 OpenAPI v3 document of `../shared` (or `$SMP_SHARED`).
fn core_v1() -> PathBuf {
    let shared = std::env::var_os("SMP_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    shared.join("k8s/openapi-v3/api__v1_openapi.json")
}

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
    // Left by an earlier run whose process had the same id.
    let _ = std::fs::remove_dir_all(&dir);
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
    let core_v1 = core_v1();
    if !core_v1.exists() {
        eprintln!("SKIPPED: {} is absent (set $SMP_SHARED)", core_v1.display());
        return;
    }
    let original = json_file("pod.json", &original_pod());
    let patch = json_file("patch.json", &env_patch());
    let out = smp(&["apply", "--openapi", core_v1.to_str().unwrap(), &original, &patch], "");
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
fn without_schema_options_the_built_in_kind_of_the_document_is_used() {
    let original = json_file("pod.json", &original_pod());
    let patch = json_file("patch.json", &env_patch());
    let out = smp(&["apply", &original, &patch], "");
    assert_eq!(assert_ok(&out), merged_pod());
    assert_eq!(stderr(&out), "");
}

#[test]
fn without_schema_options_lists_are_replaced_only_with_untyped() {
    let original = json_file("pod.json", &original_pod());
    let patch = json_file("patch.json", &env_patch());
    let out = smp(&["apply", "--untyped", &original, &patch], "");
    let result = assert_ok(&out);
    assert_eq!(result["spec"]["containers"], env_patch()["spec"]["containers"]);
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

    let out = smp(&["apply", "-", &patch], r#"{"metadata": {"name": "x"}}"#);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("no apiVersion and kind") && err.contains("--kind KIND"), "{err}");
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

/// The kubectl to compare with: `$SMP_KUBECTL` (a path, to pick a
/// version), else `kubectl` on PATH; `None` (said loudly) without one.
fn kubectl_path() -> Option<PathBuf> {
    if let Some(chosen) = std::env::var_os("SMP_KUBECTL") {
        let chosen = PathBuf::from(chosen);
        assert!(chosen.is_file(), "SMP_KUBECTL names no file: {}", chosen.display());
        return Some(chosen);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).map(|dir| dir.join("kubectl")).find(|p| p.is_file());
    if found.is_none() {
        eprintln!("SKIPPED: kubectl is not on PATH (nor named by SMP_KUBECTL); smp was not compared with kubectl");
    }
    found
}

/// Runs kubectl with `args` and an empty kubeconfig; `None` (said loudly)
/// when there is no kubectl.
fn kubectl(args: &[&str]) -> Option<Output> {
    let kubectl = kubectl_path()?;
    let kubeconfig = file("kubeconfig", "");
    let out = Command::new(kubectl)
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env_remove("KUBERNETES_SERVICE_HOST")
        .output()
        .expect("kubectl runs");
    Some(out)
}

/// `kubectl patch --local -f OBJECT --type strategic -p PATCH -o json`;
/// `None` (said loudly) when kubectl is absent.
fn kubectl_patch(object: &Value, patch: &Value) -> Option<Value> {
    let object = json_file("object.json", object);
    let patch = patch.to_string();
    let out = kubectl(&["patch", "--local", "-f", &object, "--type", "strategic", "-o", "json", "-p", &patch])?;
    assert!(out.status.success(), "kubectl: {}", stderr(&out));
    Some(serde_json::from_slice(&out.stdout).expect("kubectl prints JSON"))
}

fn deployment() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}, "finalizers": ["a", "b"]},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": "nginx:1.25",
                            "ports": [{"containerPort": 80, "protocol": "TCP"}],
                            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                        },
                        {"name": "sidecar", "image": "busybox"},
                    ],
                    "volumes": [{"name": "data", "emptyDir": {}}],
                    "tolerations": [{"key": "k", "operator": "Exists"}],
                },
            },
        },
    })
}

/// Every kind of list in a Deployment: keyed (containers, env, ports,
/// volumes with `$retainKeys`), a set (finalizers) and a replaced list
/// (tolerations).
fn deployment_patch() -> Value {
    json!({
        "metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "finalizers": ["c"]},
        "spec": {
            "replicas": 3,
            "template": {"spec": {
                "$setElementOrder/containers": [{"name": "sidecar"}, {"name": "app"}],
                "containers": [
                    {"name": "app", "env": [{"name": "C", "value": "3"}, {"name": "A", "$patch": "delete"}],
                     "ports": [{"containerPort": 8080}]},
                ],
                "volumes": [{"name": "data", "$retainKeys": ["name", "configMap"], "configMap": {"name": "cm"}}],
                "tolerations": [{"key": "other", "operator": "Exists"}],
            }},
        },
    })
}

fn service() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {
            "selector": {"app": "web"},
            "ports": [{"name": "http", "port": 80, "targetPort": 8080}, {"name": "metrics", "port": 9090}],
        },
    })
}

/// Service ports are merged by `port`.
fn service_patch() -> Value {
    json!({"spec": {"ports": [{"port": 443, "name": "https"}, {"port": 80, "targetPort": 8081}, {"port": 9090, "$patch": "delete"}]}})
}

#[test]
fn kind_gives_what_kubectl_patch_local_gives() {
    let cases = [
        ("apps/v1/Deployment", deployment(), deployment_patch()),
        ("Deployment", deployment(), deployment_patch()),
        ("v1/Service", service(), service_patch()),
        ("service", service(), service_patch()),
    ];
    for (kind, object, patch) in cases {
        let Some(want) = kubectl_patch(&object, &patch) else { return };
        let (object_file, patch_file) = (json_file("object.json", &object), json_file("patch.json", &patch));
        let got = assert_ok(&smp(&["apply", "--kind", kind, &object_file, &patch_file], ""));
        assert_eq!(got, want, "--kind {kind}");
        assert_ne!(got["spec"], object["spec"], "--kind {kind}: the patch changed something");

        // The diff back to kubectl's result applies to the same result.
        let want_file = json_file("want.json", &want);
        let diff = assert_ok(&smp(&["diff", "--kind", kind, &object_file, &want_file], ""));
        let diff_file = json_file("diff.json", &diff);
        assert_eq!(assert_ok(&smp(&["apply", "--kind", kind, &object_file, &diff_file], "")), want, "--kind {kind}");
    }
}

#[test]
fn the_kind_of_the_document_gives_the_same_as_kind() {
    for (object, patch) in [(deployment(), deployment_patch()), (service(), service_patch())] {
        let (object_file, patch_file) = (json_file("object.json", &object), json_file("patch.json", &patch));
        let kind = format!("{}/{}", object["apiVersion"].as_str().unwrap(), object["kind"].as_str().unwrap());
        let with_kind = assert_ok(&smp(&["apply", "--kind", &kind, &object_file, &patch_file], ""));
        let from_document = assert_ok(&smp(&["apply", &object_file, &patch_file], ""));
        assert_eq!(from_document, with_kind, "{kind}");
        let untyped = smp(&["apply", "--untyped", &object_file, &patch_file], "");
        let untyped: Option<Value> = serde_json::from_slice(&untyped.stdout).ok();
        assert_ne!(untyped.as_ref(), Some(&from_document), "{kind}: the schema matters for this patch");
    }
}

#[test]
fn kind_works_with_three_way() {
    let mut desired = deployment();
    desired["spec"]["template"]["spec"]["containers"][0]["env"] = json!([{"name": "A", "value": "1"}]);
    let (original, desired) = (json_file("original.json", &deployment()), json_file("desired.json", &desired));
    let out = smp(&["three-way", "--kind", "Deployment", &original, &desired, &original], "");
    let patch = assert_ok(&out);
    let env = &patch["spec"]["template"]["spec"]["containers"][0]["env"];
    assert_eq!(env, &json!([{"$patch": "delete", "name": "B"}]), "{patch}");
}

#[test]
fn an_ambiguous_or_unknown_kind_lists_the_candidates() {
    let out = smp(&["apply", "--kind", "Event", "-", "-"], "{}");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("ambiguous") && err.contains("v1/Event") && err.contains("events.k8s.io/v1/Event"), "{err}");

    let out = smp(&["apply", "--kind", "Deploymnet", "-", "-"], "{}");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("did you mean apps/v1/Deployment?"), "{}", stderr(&out));

    let out = smp(&["apply", "--kind", "example.com/v1/Widget", "-", "-"], "{}");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not a built-in kind") && stderr(&out).contains("--openapi"), "{}", stderr(&out));
}

#[test]
fn kind_and_openapi_exclude_each_other() {
    let openapi = openapi_snippet();
    let out = smp(&["apply", "--kind", "Pod", "--openapi", &openapi, "-", "-"], "{}");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot be used with"), "{}", stderr(&out));
}

fn widget() -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"items": [1]}})
}

#[test]
fn a_custom_resource_without_openapi_asks_for_openapi_or_untyped() {
    let original = json_file("widget.json", &widget());
    let patch = json_file("patch.json", &json!({"spec": {"items": [2]}}));
    let out = smp(&["apply", &original, &patch], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(err.contains("\"Widget\"") && err.contains("\"example.com/v1\""), "{err}");
    assert!(err.contains("--openapi DOC") && err.contains("--untyped"), "{err}");

    let out = smp(&["apply", "--untyped", &original, &patch], "");
    assert_eq!(assert_ok(&out)["spec"], json!({"items": [2]}));
}

#[test]
fn a_built_in_kind_missing_from_the_openapi_documents_is_still_known() {
    let openapi = openapi_snippet();
    let object = json_file("service.json", &service());
    let patch = json_file("patch.json", &service_patch());
    let from_openapi = assert_ok(&smp(&["apply", "--openapi", &openapi, &object, &patch], ""));
    let built_in = assert_ok(&smp(&["apply", "--kind", "v1/Service", &object, &patch], ""));
    assert_eq!(from_openapi, built_in);

    let widget = json_file("widget.json", &widget());
    let out = smp(&["apply", "--openapi", &openapi, &widget, &patch], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("neither built in nor in the OpenAPI documents"), "{}", stderr(&out));
}

#[test]
fn jsonl_takes_each_case_kind_from_its_documents() {
    let deployment_case = json!({"original": deployment(), "patch": deployment_patch()});
    let service_case = json!({"original": service(), "patch": service_patch()});
    let widget_case = json!({"original": widget(), "patch": {}});
    let input = format!("{deployment_case}\n{service_case}\n{widget_case}\n");
    let out = smp(&["apply", "--jsonl"], &input);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let answers = lines(&out);
    assert_eq!(answers.len(), 3, "{}", stdout(&out));
    for (line, (kind, case)) in
        answers.iter().zip([("apps/v1/Deployment", &deployment_case), ("v1/Service", &service_case)])
    {
        let (object, patch) = (json_file("object.json", &case["original"]), json_file("patch.json", &case["patch"]));
        let want = assert_ok(&smp(&["apply", "--kind", kind, &object, &patch], ""));
        assert_eq!(line, &json!({"result": want}), "{kind}");
    }
    assert!(answers[2]["error"].as_str().unwrap().contains("not a built-in kind"), "{}", answers[2]);

    // With --kind, every case uses that kind.
    let out = smp(&["apply", "--kind", "v1/Service", "--jsonl"], &format!("{service_case}\n{widget_case}\n"));
    let answers = lines(&out);
    assert!(answers[0].get("result").is_some() && answers[1].get("result").is_some(), "{}", stdout(&out));
}

/// Strategic cases are answered from the documents' text, each parsed once;
/// `--patch-merge-key` takes the general path (the line parsed whole),
/// which must answer documents without the directive the same way, errors
/// and all.
#[test]
fn jsonl_answers_from_the_text_as_from_the_parsed_line() {
    let pod = |image: &str| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
               "spec": {"containers": [{"name": "a", "image": image}, {"name": "b", "image": "y"}]}})
    };
    let container_patch = json!({"spec": {"containers": [{"name": "c", "image": "z"}, {"name": "a", "image": "w"}]}});
    let apply_lines = [
        // `-0` is the integer 0, in documents and elsewhere.
        r#"{"original": {"a": -0, "b": [1, -0, -0.0]}, "patch": {"c": -0}, "id": -0}"#.to_string(),
        // A byte order mark, a repeated field (the last counts), a null document.
        format!("\u{feff}{}", r#"{"patch": {"x": 1}, "original": null, "patch": {"y": [2]}}"#),
        // The kind from the original, or from the patch.
        json!({"original": pod("x"), "patch": container_patch}).to_string(),
        json!({"original": {"spec": pod("x")["spec"]}, "patch": pod("v")}).to_string(),
        json!({"original": pod("x"), "patch": {"spec": {"containers": [{"image": "no name"}]}}}).to_string(),
        // Keys spelt with escapes, odd spacing, fields that are not documents.
        r#"{"original": {"ki\u006ed": "Pod", "apiVersion": "v1", "spec": {}}, "patch": {"spec": {"x": 1}}}"#.to_string(),
        " {\t\"original\" :{ \"a\":{\"b\" :[ ]} } ,\r\"patch\": {\"a\": {\"b\": [1]}}, \"extra\": [true, {\"q\": null}] } "
            .to_string(),
        // Lines the general path refuses, each with its message.
        r#"{"original": {"a": }, "patch": {}}"#.to_string(),
        r#"{"original": [], "patch": {}}"#.to_string(),
        r#"{"original": {}, "patch": {}, "extra": tru}"#.to_string(),
        r#"{"original": {}}"#.to_string(),
        r#"{"original": {}, "patch": {"a": 1e999}}"#.to_string(),
        r#"{"original": {"apiVersion": "v9", "kind": "Nothing"}, "patch": {}}"#.to_string(),
        format!(r#"{{"original": {{"a": {}1{}}}, "patch": {{}}}}"#, "[".repeat(130), "]".repeat(130)),
    ];
    let apply_input = apply_lines.join("\n") + "\n";
    let labels = |tier: &str| json!({"metadata": {"labels": {"tier": tier}}});
    let three_way_input = [
        json!({"original": labels("a"), "modified": labels("b"), "current": labels("c")}),
        json!({"original": labels("a"), "modified": labels("b"), "current": labels("c"), "overwrite": true}),
        json!({"original": pod("x"), "modified": pod("y"), "current": pod("x"), "overwrite": false}),
    ]
    .map(|case| case.to_string())
    .join("\n");
    let diff_input = format!("{}\n", json!({"original": pod("x"), "modified": pod("y")}));
    let runs = [("apply", &apply_input), ("three-way", &three_way_input), ("diff", &diff_input)];
    for ((command, input), schema) in runs.iter().flat_map(|run| [(run, "--jsonl"), (run, "--untyped")]) {
        let from_text = smp(&[command, "--jsonl", schema], input);
        let parsed = smp(&[command, "--jsonl", schema, "--patch-merge-key"], input);
        assert_eq!(from_text.status.code(), parsed.status.code(), "{command} {schema}: {}", stderr(&from_text));
        assert_eq!(stdout(&from_text), stdout(&parsed), "{command} {schema}");
    }
    let untyped = smp(&["apply", "--jsonl", "--untyped"], &apply_input);
    assert!(stdout(&untyped).starts_with(r#"{"result":{"a":0,"b":[1,0,-0],"c":0}}"#), "{}", stdout(&untyped));
    assert_eq!(lines(&untyped)[1], json!({"result": {"y": [2]}}));
    let answers = lines(&smp(&["apply", "--jsonl"], &apply_input));
    assert_eq!(answers.len(), apply_lines.len());
    let containers = &answers[2]["result"]["spec"]["containers"];
    assert_eq!(
        containers,
        &json!([{"name": "c", "image": "z"}, {"name": "a", "image": "w"}, {"name": "b", "image": "y"}])
    );
    assert!(answers[4]["error"].as_str().unwrap().contains("does not contain declared merge key"), "{}", answers[4]);
    for (i, start) in
        [(7, "invalid JSON"), (8, "\"original\" must be an object"), (9, "invalid JSON"), (10, "missing field")]
    {
        assert!(answers[i]["error"].as_str().unwrap().starts_with(start), "{i}: {}", answers[i]);
    }
}

/// Long case lines (64 KiB and more) have their original read with the
/// patch as guide, the parts the patch does not reach kept as text: the
/// answers are those of the single-case route, whichever field comes
/// first, in compact or spaced text, whatever the patch reaches.
#[test]
fn long_jsonl_lines_answer_as_single_cases() {
    let names: Vec<(String, String)> = (0..3000).map(|i| (format!("E{i:05}"), format!("v{i}"))).collect();
    let long = pod(env(&names.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect::<Vec<_>>()));
    let patches = [
        json!({"metadata": {"labels": {"release": "r2"}}}),
        env_patch(),
        json!({"spec": {"containers": [{"name": "nginx", "$setElementOrder/env": [{"name": "E00002"}, {"name": "E00001"}]}]}}),
        json!({"spec": {"$patch": "replace", "containers": []}}),
        json!({"metadata": {"$retainKeys": ["name"], "name": "web"}}),
        bad_env_patch(),
    ];
    let original = json_file("long.json", &long);
    for patch in patches {
        let single = smp(&["apply", "--kind", "Pod", &original, &json_file("patch.json", &patch)], "");
        let want = match single.status.code() {
            Some(0) => json!({"result": assert_ok(&single)}),
            _ => json!({"error": stderr(&single).trim().trim_start_matches("error: ")}),
        };
        let (o, p) = (long.to_string(), patch.to_string());
        let spaced = serde_json::to_string_pretty(&long).unwrap().replace('\n', " ");
        let lines = [
            format!(r#"{{"original":{o},"patch":{p}}}"#),
            format!(r#"{{"patch":{p},"original":{o}}}"#),
            format!(r#"{{"original":{spaced},"patch":{p}}}"#),
        ];
        assert!(lines[0].len() >= 64 * 1024);
        let out = smp(&["apply", "--kind", "Pod", "--jsonl"], &(lines.join("\n") + "\n"));
        assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
        let answers = self::lines(&out);
        assert_eq!(answers.len(), 3);
        for (line, answer) in lines.iter().zip(&answers) {
            if want.get("error").is_some() {
                assert!(answer.get("error").is_some(), "{patch}: {answer:.200}");
            } else {
                assert_eq!(answer, &want, "{patch}, line {:.100}", line);
            }
        }
    }
}

/// A line of over a mebibyte gets room for the rest of the input at once
/// when the input's length is known: a file named, or standard input
/// redirected from a file. Answers are the same whichever way the lines
/// come, a pipe included, and lines after a long one are answered too.
#[test]
fn lines_over_a_mebibyte_answer_alike_from_a_file_stdin_or_a_pipe() {
    let names: Vec<(String, String)> = (0..40_000).map(|i| (format!("E{i:06}"), format!("v{i}"))).collect();
    let long = pod(env(&names.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect::<Vec<_>>()));
    let long_line = format!(r#"{{"original":{long},"patch":{}}}"#, env_patch());
    assert!(long_line.len() > 1 << 20);
    let short_line = format!(r#"{{"original":{},"patch":{}}}"#, original_pod(), env_patch());
    let text = [long_line.as_str(), &short_line, &long_line, &short_line].join("\n") + "\n";
    let path = file("long.jsonl", &text);
    let args = ["apply", "--kind", "Pod", "--jsonl"];
    let named = Command::new(env!("CARGO_BIN_EXE_smp")).args(args).arg(&path).output().unwrap();
    let redirected =
        Command::new(env!("CARGO_BIN_EXE_smp")).args(args).stdin(std::fs::File::open(&path).unwrap()).output().unwrap();
    let piped = smp(&args, &text);
    for out in [&named, &redirected, &piped] {
        assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    }
    assert_eq!(stdout(&named), stdout(&piped));
    assert_eq!(stdout(&redirected), stdout(&piped));
    let answers = lines(&piped);
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[1], json!({"result": merged_pod()}));
    let env = &answers[0]["result"]["spec"]["containers"][0]["env"];
    assert_eq!(env.as_array().map(Vec::len), Some(40_000 + 2), "{:.300}", answers[0]);
    assert_eq!(answers[0], answers[2]);
}

/// Runs `op` on the documents as files, and again with each document in a
/// directory of its own: files of one JSON object take the compact route,
/// directories the general one. Both give the same bytes and exit code.
fn assert_routes_agree(op: &str, docs: &[String], extra: &[&str], what: &str) {
    let files: Vec<PathBuf> = docs.iter().enumerate().map(|(i, d)| file(&format!("doc{i}.json"), d)).collect();
    let dirs: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            let dir = f.with_extension("d");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(f, dir.join("doc.json")).unwrap();
            dir
        })
        .collect();
    let run = |paths: &[PathBuf]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_smp"));
        command.arg(op).args(extra).args(paths);
        command.output().unwrap()
    };
    // An apply's patch is a file either way.
    let mut general_paths = dirs;
    if op == "apply" {
        general_paths[1] = files[1].clone();
    }
    let (compact, general) = (run(&files), run(&general_paths));
    assert_eq!(compact.status.code(), general.status.code(), "{what}: {}", stderr(&general));
    assert_eq!(stdout(&compact), stdout(&general), "{what}");
    // (Messages name the file, which the general route found in its directory.)
    assert_eq!(stderr(&compact), stderr(&general).replace(".d/doc.json", ".json"), "{what}");
}

/// The compact route (files of one JSON object) answers exactly as the
/// general route: on the shared bench cases, and on what it hands over to
/// the general route (floats, lists, errors, a removed kind) or writes
/// with care (Go's escapes, long strings with escapes, `-0`).
#[test]
fn files_of_one_object_answer_as_the_general_route() {
    let cases = core_v1().parent().unwrap().parent().unwrap().parent().unwrap().join("bench-cases");
    for name in [
        "deploy-apply-small",
        "deploy-twoway-1env",
        "deploy-threeway",
        "pod-env100.apply",
        "pod-env100.twoway",
        "pod-env100.threeway",
    ] {
        let case: Value =
            serde_json::from_str(&std::fs::read_to_string(cases.join(format!("{name}.json"))).unwrap()).unwrap();
        let (op, fields) = match case["op"].as_str().unwrap() {
            "apply" => ("apply", &["original", "patch"][..]),
            "twoway" => ("diff", &["original", "modified"][..]),
            _ => ("three-way", &["original", "modified", "current"][..]),
        };
        let docs: Vec<String> = fields.iter().map(|f| serde_json::to_string_pretty(&case[*f]).unwrap()).collect();
        assert_routes_agree(op, &docs, &[], name);
        // Compact text, which a diff keeps as text in long lists.
        let docs: Vec<String> = fields.iter().map(|f| case[*f].to_string()).collect();
        assert_routes_agree(op, &docs, &[], name);
    }
    let long = "line one\n\"quoted\" <b>&</b>\t\u{2028}".repeat(8);
    let pod = |env_vars: Value, extra: Value| {
        let mut pod = pod(env_vars);
        pod["metadata"]["annotations"] = extra;
        pod.to_string()
    };
    let original = pod(env(&[("A", "1"), ("B", "2")]), json!({"note": long, "n": "<&>"}));
    let applies = [
        json!({"metadata": {"annotations": {"note": format!("{long}!")}}}).to_string(),
        json!({"spec": {"terminationGracePeriodSeconds": 1.0}}).to_string(),
        r#"{"spec": {"terminationGracePeriodSeconds": -0}}"#.to_string(),
        r#"{"spec": {"terminationGracePeriodSeconds": 18446744073709551616}}"#.to_string(),
        json!({"kind": null}).to_string(),
        json!({"$patch": "delete"}).to_string(),
        bad_env_patch().to_string(),
        env_patch().to_string(),
    ];
    for patch in &applies {
        assert_routes_agree("apply", &[original.clone(), patch.clone()], &[], patch);
    }
    let with_float = pod(env(&[("A", "1")]), json!({})).replace(r#""kind":"Pod""#, r#""kind":"Pod","x":1.0"#);
    assert_routes_agree("apply", &[with_float, env_patch().to_string()], &[], "a float in the original");
    let list =
        json!({"apiVersion": "v1", "kind": "List", "items": [serde_json::from_str::<Value>(&original).unwrap()]});
    assert_routes_agree("apply", &[list.to_string(), env_patch().to_string()], &[], "a list");
    for refused in [
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 5}}),
        json!({"apiVersion": {"v": 1}, "kind": "ConfigMap", "metadata": {"name": "a"}}),
    ] {
        assert_routes_agree("apply", &[refused.to_string(), json!({"data": {"a": "b"}}).to_string()], &[], "refused");
    }
    let modified = pod(env(&[("B", "3"), ("C", "4")]), json!({"note": long}));
    assert_routes_agree("diff", &[original.clone(), modified.clone()], &[], "diff");
    assert_routes_agree("diff", &[original.clone(), modified.clone()], &["--exit-code"], "diff --exit-code");
    assert_routes_agree("diff", &[original.clone(), original.clone()], &["--exit-code"], "no change");
    let current = pod(env(&[("A", "1"), ("B", "9")]), json!({"note": "live"}));
    for extra in [&[][..], &["--overwrite"][..]] {
        assert_routes_agree("three-way", &[original.clone(), modified.clone(), current.clone()], extra, "three-way");
    }
    // Long lists in compact text, whose elements a diff keeps as text:
    // elements added at the end are written out from that text.
    let vars = |n: usize, tag: &str| {
        let names: Vec<(String, String)> = (0..n).map(|i| (format!("V{i:03}"), format!("{tag}{}", i % 7))).collect();
        let pairs: Vec<(&str, &str)> = names.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        pod(env(&pairs), json!({}))
    };
    let (long, longer) = (vars(100, "x"), vars(103, "y"));
    assert_routes_agree("diff", &[long.clone(), longer.clone()], &[], "long lists");
    assert_routes_agree("three-way", &[long.clone(), longer, long], &["--overwrite"], "long lists");
}
