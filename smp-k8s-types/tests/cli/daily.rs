//! The command line as a daily tool: several documents, directories,
//! inline patches, names, exit codes, kind names, the last-applied
//! annotation, explanations, diffs and parallel batches.

use crate::{
    assert_ok, deployment, deployment_patch, file, json_file, kubectl, kubectl_patch, lines, service, smp, stderr,
    stdout,
};
use serde_json::{Value, json};
use std::path::Path;

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

fn config_map(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}})
}

/// A ConfigMap, a Deployment and a List with a Service, as one YAML stream.
fn multi_yaml() -> String {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [service()]});
    [config_map("a"), deployment(), list]
        .iter()
        .map(|doc| serde_yaml_ng::to_string(doc).unwrap())
        .collect::<Vec<_>>()
        .join("---\n")
}

const LABEL_PATCH: &str = r#"{"metadata": {"labels": {"team": "web", "yes": "y"}}}"#;

/// The objects of a YAML stream, lists flattened, as kubectl prints them.
fn objects_of_yaml(text: &str) -> Vec<Value> {
    let mut objects = Vec::new();
    for document in serde_yaml_ng::Deserializer::from_str(text) {
        let value: Value = serde::Deserialize::deserialize(document).unwrap();
        match value.get("items") {
            Some(Value::Array(items)) => objects.extend(items.iter().cloned()),
            _ => objects.push(value),
        }
    }
    objects
}

/// The JSON objects kubectl prints one after another.
fn json_stream(bytes: &[u8]) -> Vec<Value> {
    serde_json::Deserializer::from_slice(bytes).into_iter::<Value>().map(Result::unwrap).collect()
}

#[test]
fn multi_document_yaml_in_and_out_round_trips_through_kubectl() {
    let multi = file("multi.yaml", &multi_yaml()).display().to_string();
    let out = smp(&["apply", &multi, "-p", LABEL_PATCH, "-o", "yaml"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("\n---\n").count(), 2, "three documents: {text}");
    assert!(text.contains("kind: List"), "a list stays a list: {text}");
    let ours = objects_of_yaml(&text);
    assert_eq!(ours.len(), 3);
    let Some(want) = kubectl(&["patch", "--local", "-f", &multi, "-p", LABEL_PATCH, "-o", "json"]) else { return };
    assert!(want.status.success(), "kubectl: {}", stderr(&want));
    assert_eq!(ours, json_stream(&want.stdout));

    // kubectl reads smp's YAML stream back as the same objects.
    let written = file("written.yaml", &text).display().to_string();
    let back = kubectl(&["patch", "--local", "-f", &written, "--type", "merge", "-p", "{}", "-o", "json"]).unwrap();
    assert!(back.status.success(), "kubectl: {}", stderr(&back));
    assert_eq!(json_stream(&back.stdout), ours);
}

#[test]
fn names_as_kubectl_prints_them() {
    let multi = file("multi.yaml", &multi_yaml()).display().to_string();
    let out = smp(&["apply", &multi, "-p", LABEL_PATCH, "-o", "name"], "");
    assert_eq!(stdout(&out), "configmap/a\ndeployment.apps/web\nservice/web\n", "{}", stderr(&out));
    let Some(want) = kubectl(&["patch", "--local", "-f", &multi, "-p", LABEL_PATCH, "-o", "name"]) else { return };
    assert_eq!(stdout(&out), stdout(&want));
}

#[test]
fn a_list_stays_a_list_with_each_item_of_its_own_kind() {
    let list = json!({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [deployment(), config_map("a")]});
    let object = json_file("list.json", &list);
    // Finalizers are a set in every kind's metadata: merged, not replaced.
    let patch = json!({"metadata": {"finalizers": ["c"], "labels": {"team": "web"}}});
    let out = smp(&["apply", &object, "-p", &patch.to_string()], "");
    let result = assert_ok(&out);
    assert_eq!(result["kind"], "List");
    // The patch's new items first, as the reference orders them.
    assert_eq!(result["items"][0]["metadata"]["finalizers"], json!(["c", "a", "b"]));
    assert_eq!(result["items"][1]["metadata"]["finalizers"], json!(["c"]));
    let Some(want) = kubectl_patch(&deployment(), &patch) else { return };
    assert_eq!(result["items"][0], want, "the Deployment is merged as kubectl merges it");
}

#[test]
fn directories_and_recursion_like_kubectl() {
    let top = file("a.yaml", &serde_yaml_ng::to_string(&config_map("a")).unwrap());
    let dir = top.parent().unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/b.json"), config_map("b").to_string()).unwrap();
    std::fs::write(dir.join("notes.txt"), "not: [a manifest").unwrap();
    let dir = dir.display().to_string();
    for (recursive, want) in [(false, "configmap/a\n"), (true, "configmap/a\nconfigmap/b\n")] {
        let mut args = vec!["apply", dir.as_str(), "-p", LABEL_PATCH, "-o", "name"];
        if recursive {
            args.push("-R");
        }
        let out = smp(&args, "");
        assert_eq!(stdout(&out), want, "-R {recursive}: {}", stderr(&out));
        let Some(kubectl_names) = kubectl(&[&["patch", "--local", "-f"][..], &args[1..]].concat()) else { continue };
        assert_eq!(stdout(&out), stdout(&kubectl_names), "-R {recursive}");
    }
    let empty = Path::new(&dir).join("sub");
    std::fs::remove_file(empty.join("b.json")).unwrap();
    let out = smp(&["apply", empty.to_str().unwrap(), "-p", "{}"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no .json, .yaml or .yml files"), "{}", stderr(&out));
}

/// `-R` walks as kubectl's (Go's `filepath.Walk`): a link to a file is
/// read, a link to a directory is not followed (no object twice, no loop
/// through a link to the directory itself).
#[cfg(unix)]
#[test]
fn recursion_does_not_follow_links_to_directories() {
    use std::os::unix::fs::symlink;
    let top = file("a.json", &config_map("a").to_string());
    let root = top.parent().unwrap();
    let (dir, other) = (root.join("d"), root.join("other"));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::rename(&top, dir.join("a.json")).unwrap();
    std::fs::write(dir.join("sub/b.json"), config_map("b").to_string()).unwrap();
    std::fs::write(other.join("c.json"), config_map("c").to_string()).unwrap();
    symlink(&other, dir.join("linked")).unwrap();
    symlink(other.join("c.json"), dir.join("linked-file.json")).unwrap();
    symlink(".", dir.join("self")).unwrap();
    symlink(".", dir.join("self2")).unwrap();
    let dir = dir.display().to_string();
    let args = ["-R", dir.as_str(), "--type", "merge", "-p", "{}", "-o", "name"];
    let out = smp(&[&["apply"][..], &args].concat(), "");
    assert_eq!(stdout(&out), "configmap/a\nconfigmap/c\nconfigmap/b\n", "{}", stderr(&out));
    let Some(kubectl_names) = kubectl(&[&["patch", "--local", "-f"][..], &args[1..], &["-R"]].concat()) else { return };
    assert_eq!(stdout(&out), stdout(&kubectl_names));
}

#[test]
fn an_inline_patch_gives_what_kubectl_gives() {
    let object = json_file("deploy.json", &deployment());
    let patch = deployment_patch().to_string();
    let got = assert_ok(&smp(&["apply", "--kind", "deploy", &object, "-p", &patch], ""));
    let Some(want) = kubectl_patch(&deployment(), &deployment_patch()) else { return };
    assert_eq!(got, want);
    let yaml_patch = "spec:\n  replicas: 5\n";
    assert_eq!(assert_ok(&smp(&["apply", &object, "--patch", yaml_patch], ""))["spec"]["replicas"], 5);
    let out = smp(&["apply", &object, &object, "-p", "{}"], "");
    assert_eq!(out.status.code(), Some(1), "a patch file and -p exclude each other");
}

#[test]
fn diff_exit_code_like_git_diff() {
    let (old, new) = (deployment(), {
        let mut d = deployment();
        d["spec"]["replicas"] = json!(5);
        d
    });
    let (old, new) = (json_file("old.json", &old), json_file("new.json", &new));
    let same = smp(&["diff", "--exit-code", &old, &old], "");
    assert_eq!((same.status.code(), stdout(&same)), (Some(0), "{}\n".to_string()), "{}", stderr(&same));
    let changed = smp(&["diff", "--exit-code", &old, &new], "");
    assert_eq!(changed.status.code(), Some(1), "{}", stderr(&changed));
    assert_eq!(serde_json::from_slice::<Value>(&changed.stdout).unwrap(), json!({"spec": {"replicas": 5}}));
    assert_eq!(smp(&["diff", &old, &new], "").status.code(), Some(0), "without the flag");
    let error = smp(&["diff", "--exit-code", &old, "/nonexistent.json"], "");
    assert_eq!(error.status.code(), Some(2));
    let names = smp(&["diff", "-o", "name", &old, &new], "");
    assert_eq!(stdout(&names), "deployment.apps/web\n");
}

#[test]
fn kind_names_as_kubectl_accepts_them() {
    let object = json_file("deploy.json", &deployment());
    let patch = json_file("patch.json", &deployment_patch());
    let want = assert_ok(&smp(&["apply", "--kind", "apps/v1/Deployment", &object, &patch], ""));
    for kind in ["deploy", "deployments", "Deployment.apps", "deployments.v1.apps", "DEPLOYMENT"] {
        assert_eq!(assert_ok(&smp(&["apply", "--kind", kind, &object, &patch], "")), want, "--kind {kind}");
    }
    let out = smp(&["apply", "--kind", "Deploymnet", &object, &patch], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("did you mean apps/v1/Deployment?"), "{}", stderr(&out));
}

/// The patch `kubectl apply` sends for (last applied, desired, live), as
/// the kubectl oracle captures it; `None`, said loudly, without it.
fn kubectl_apply_oracle(last: &str, desired: &str, live: &str) -> Option<Value> {
    let shared = std::env::var_os("SMP_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    let script = shared.join("oracle/smp_threeway.py");
    if !script.is_file() || kubectl(&["version", "--client"]).is_none() {
        eprintln!("SKIPPED: {} or kubectl is missing; smp was not compared with kubectl apply", script.display());
        return None;
    }
    let out = std::process::Command::new("python3").arg(&script).args([last, desired, live]).output().ok()?;
    assert!(out.status.success(), "oracle: {}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).expect("the oracle prints the patch kubectl sent"))
}

#[test]
fn three_way_from_the_annotation_sends_what_kubectl_apply_sends() {
    // kubectl sets the namespace from its context: the objects name it.
    let mut last = deployment();
    last["metadata"]["namespace"] = json!("default");
    last["metadata"]["labels"]["old"] = json!("x");
    let mut live = last.clone();
    live["metadata"]["annotations"] = json!({LAST_APPLIED: last.to_string()});
    live["status"] = json!({"replicas": 2});
    let mut desired = last.clone();
    desired["metadata"]["labels"].as_object_mut().unwrap().remove("old");
    desired["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1.26 <&>");
    let (last, live, desired) =
        (json_file("last.json", &last), json_file("live.json", &live), json_file("desired.json", &desired));
    let patch = assert_ok(&smp(&["three-way", "--from-annotation", "--overwrite", &desired, &live], ""));
    // The patch records the new last-applied configuration, as Go writes it.
    let recorded = patch["metadata"]["annotations"][LAST_APPLIED].as_str().expect("the annotation is set");
    assert!(recorded.ends_with("}\n") && recorded.contains(r#""annotations":{}"#), "{recorded}");
    assert!(recorded.contains(r#"nginx:1.26 \u003c\u0026\u003e"#), "{recorded}");
    assert_eq!(patch["metadata"]["labels"], json!({"old": null}));
    if let Some(want) = kubectl_apply_oracle(&last, &desired, &live) {
        assert_eq!(patch, want);
    }

    // Without the annotation: last applied is `{}`, and the patch still
    // records the annotation, so it is not empty.
    let plain = json_file("plain.json", &deployment());
    let desired = json_file("desired-plain.json", &deployment());
    let out = smp(&["three-way", "--from-annotation", "--exit-code", &desired, &plain], "");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let patch: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(patch.as_object().unwrap().keys().collect::<Vec<_>>(), ["metadata"]);
    assert!(patch["metadata"]["annotations"][LAST_APPLIED].is_string(), "{patch}");
}

#[test]
fn explain_says_what_the_patch_did() {
    let object = json_file("deploy.json", &deployment());
    let patch = json_file("patch.json", &deployment_patch());
    let out = smp(&["apply", "--explain", &object, &patch], "");
    let plain = assert_ok(&smp(&["apply", &object, &patch], ""));
    assert_eq!(assert_ok(&out), plain, "the result is unchanged");
    let explanation = stderr(&out);
    for line in [
        "metadata.finalizers: $deleteFromPrimitiveList removed \"a\"",
        "metadata.finalizers: merged as a set; added \"c\"",
        "spec.template.spec.containers: $setElementOrder reordered 2 items",
        "spec.template.spec.containers[name=app].env: merged by name; 1 added, 1 deleted",
        "spec.template.spec.containers[name=app].ports: merged by containerPort; 1 added",
        "spec.template.spec.containers: merged by name; 1 updated",
        "spec.template.spec.volumes[name=data]: $retainKeys removed emptyDir",
        "spec.template.spec.tolerations: replaced (1 items, was 1)",
        "spec: set replicas (2 → 3)",
    ] {
        assert!(explanation.lines().any(|l| l == line), "missing {line:?} in\n{explanation}");
    }
}

#[test]
fn diff_shows_before_and_after() {
    let object = json_file("deploy.json", &deployment());
    let out = smp(&["apply", "--diff", &object, "-p", r#"{"spec": {"replicas": 3}}"#], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("--- a/deployment.apps/web\n+++ b/deployment.apps/web\n@@ "), "{text}");
    assert!(text.contains("\n-  replicas: 2\n+  replicas: 3\n"), "{text}");
    assert!(!text.contains('\x1b'), "no colour off a terminal");
}

#[test]
fn help_shows_an_example_per_subcommand() {
    let top = stdout(&smp(&["--help"], ""));
    for command in ["apply", "diff", "three-way"] {
        assert!(top.contains(&format!("smp {command} ")), "{command} in\n{top}");
        let help = stdout(&smp(&[command, "--help"], ""));
        assert!(help.contains("Examples:") && help.contains(&format!("smp {command} ")), "{help}");
    }
}

#[test]
fn jsonl_jobs_keep_the_order_of_the_cases() {
    let input: String = (0..2_000)
        .map(|i| format!("{}\n", json!({"original": {"n": i, "keep": true}, "patch": {"n": i * 2}})))
        .collect();
    let one = smp(&["apply", "--untyped", "--jsonl", "--jobs", "1"], &input);
    let two = smp(&["apply", "--untyped", "--jsonl", "-j", "2"], &input);
    let default = smp(&["apply", "--untyped", "--jsonl"], &input);
    let answers = lines(&one);
    assert_eq!(answers.len(), 2_000);
    for (i, answer) in answers.iter().enumerate() {
        assert_eq!(answer, &json!({"result": {"n": i * 2, "keep": true}}));
    }
    assert_eq!(stdout(&two), stdout(&one));
    assert_eq!(stdout(&default), stdout(&one));
}
