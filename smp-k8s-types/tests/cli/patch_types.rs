//! `smp --type merge|json`: the JSON merge patch route (custom resources)
//! and RFC 6902 patches from the command line, single and batch modes.

use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

fn smp(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_smp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("smp runs");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("smp ends");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8");
    (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
}

fn lines(out: &str) -> Vec<Value> {
    out.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

#[test]
fn merge_diff_and_three_way_in_batch_mode() {
    let original = widget(json!({"size": 1, "ports": [80], "tier": "gold"}));
    let modified = widget(json!({"size": 2.0, "ports": [80, 443]}));
    let current = widget(json!({"size": 1, "ports": [80], "tier": "gold", "defaulted": true}));
    let case = json!({"original": original, "modified": modified}).to_string();
    let (code, out, err) =
        smp(&["diff", "--type", "merge", "--untyped", "--jsonl"], &format!("{case}\n{{\"original\": 1}}\n"));
    assert_eq!(code, 0, "{err}");
    let answers = lines(&out);
    assert_eq!(answers[0], json!({"patch": {"spec": {"size": 2, "ports": [80, 443], "tier": null}}}));
    assert!(answers[1]["error"].is_string(), "a bad line gets an error line");
    assert_eq!(answers[0]["patch"], smp_core::merge_patch::create(&original, &modified).unwrap());

    let case = json!({"original": original, "modified": modified, "current": current}).to_string();
    let (code, out, err) = smp(&["three-way", "--type", "merge", "--untyped", "--jsonl"], &format!("{case}\n"));
    assert_eq!(code, 0, "{err}");
    let want = smp_core::merge_patch::three_way(&original, &modified, &current, &[]).unwrap();
    assert_eq!(lines(&out)[0]["patch"], want);
    assert_eq!(want, json!({"spec": {"size": 2, "ports": [80, 443], "tier": null}}));
}

/// `three-way --type merge` holds kubectl apply's preconditions on this
/// route (`CreateThreeWayJSONMergePatch` with apiVersion, kind and
/// metadata.name unchanged), with kubectl's message
/// (`tests/kubectl/merge_patch.rs` checks the library's against kubectl).
#[test]
fn merge_three_way_keeps_kubectls_preconditions() {
    let original = widget(json!({"a": 1}));
    let modified = widget(json!({"a": 2}));
    let mut renamed = original.clone();
    renamed["metadata"]["name"] = json!("other");
    let mut other_kind = original.clone();
    other_kind["kind"] = json!("Gadget");
    for (current, core) in [
        (&renamed, "precondition failed for: map[metadata:map[name:w] spec:map[a:2]]"),
        (&other_kind, "precondition failed for: map[kind:Widget spec:map[a:2]]"),
    ] {
        let case = json!({"original": original, "modified": modified, "current": current}).to_string();
        let (code, out, err) = smp(&["three-way", "--type", "merge", "--untyped", "--jsonl"], &format!("{case}\n"));
        assert_eq!(code, 0, "{err}");
        let answer = &lines(&out)[0];
        assert!(answer["error"].as_str().is_some_and(|e| e.contains(core)), "{answer}");
    }
    // Unchanged, the patch goes through.
    let case = json!({"original": original, "modified": modified, "current": original}).to_string();
    let (_, out, _) = smp(&["three-way", "--type", "merge", "--untyped", "--jsonl"], &format!("{case}\n"));
    assert_eq!(lines(&out)[0]["patch"], json!({"spec": {"a": 2}}));
}

#[test]
fn merge_and_json_patches_apply_from_files() {
    let dir = std::env::temp_dir().join(format!("smp-cli-types-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let object = dir.join("w.json");
    std::fs::write(&object, widget(json!({"size": 1, "ports": [80]})).to_string()).unwrap();
    let path = object.to_str().unwrap();

    let (code, out, err) =
        smp(&["apply", "--type", "merge", path, "-p", r#"{"spec":{"size":null,"ports":[443]}}"#], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["spec"], json!({"ports": [443]}));

    let ops = r#"[{"op":"add","path":"/spec/ports/-","value":443}]"#;
    let (code, out, err) = smp(&["apply", "--type", "json", path, "-p", ops], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["spec"], json!({"size": 1, "ports": [80, 443]}));

    let modified = dir.join("m.json");
    std::fs::write(&modified, widget(json!({"size": 1, "ports": [80, 8080]})).to_string()).unwrap();
    let (code, out, err) = smp(&["diff", "--type", "json", path, modified.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        json!([{"op": "replace", "path": "/spec/ports", "value": [80, 8080]}])
    );
    let (code, _, err) = smp(&["three-way", "--type", "json", path, path, path], "");
    assert_eq!(code, 1, "no three-way JSON patch: {err}");
    assert!(err.contains("--type merge"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `kubectl` offline (an empty kubeconfig); `None`, said loudly, when
/// it is not on PATH.
fn kubectl(args: &[&str]) -> Option<(i32, String, String)> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let Some(kubectl) = std::env::split_paths(&path).map(|dir| dir.join("kubectl")).find(|p| p.is_file()) else {
        eprintln!("SKIPPED: kubectl is not on PATH; smp was not compared with kubectl");
        return None;
    };
    let out = Command::new(kubectl)
        .args(args)
        .env("KUBECONFIG", "/dev/null")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .output()
        .expect("kubectl runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8");
    Some((out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr)))
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("smp-cli-types-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn json_patches_apply_as_kubectl_applies_them() {
    let dir = scratch("json-apply");
    let object = dir.join("w.json");
    let widget = widget(json!({"size": 1, "ports": [80, 443, 8080], "m": {"a": 1, "b/c": {"d~e": 2}}, "f": 1.5}));
    std::fs::write(&object, widget.to_string()).unwrap();
    let path = object.to_str().unwrap();
    let cases = [
        r#"[{"op":"add","path":"/spec/ports/-","value":9090}]"#,
        r#"[{"op":"add","path":"/spec/ports/1","value":81},{"op":"remove","path":"/spec/ports/0"}]"#,
        r#"[{"op":"remove","path":"/spec/m/b~1c/d~0e"},{"op":"add","path":"/spec/m/x~1y","value":null}]"#,
        r#"[{"op":"replace","path":"/spec/size","value":2.0},{"op":"add","path":"/spec/big","value":1e3}]"#,
        r#"[{"op":"move","from":"/spec/m","path":"/spec/n"},{"op":"copy","from":"/spec/n","path":"/spec/o"}]"#,
        r#"[{"op":"test","path":"/spec/size","value":1.0},{"op":"test","path":"/spec/f","value":1.5}]"#,
        r#"[{"op":"test","path":"/spec/nothing","value":null},{"op":"add","path":"/spec/t","value":true}]"#,
        // Where the server's library departs from RFC 6902.
        r#"[{"op":"replace","path":"/spec/absent","value":1}]"#,
        r#"[{"op":"remove","path":"/spec/ports/-1"},{"op":"replace","path":"/spec/ports/-2","value":1}]"#,
        r#"[{"op":"add","path":"/spec/ports/-3","value":7},{"op":"add","path":"/spec/ports/+1","value":8}]"#,
        r#"[{"op":"replace","path":"/spec/ports/01","value":5}]"#,
        r#"[]"#,
        r#"[{"op":"add","path":"spec/x","value":1},{"op":"remove","path":"abc/spec/size"}]"#,
        r#"[{"op":"add","path":"/spec/~2","value":1},{"op":"add","path":"/spec/~","value":2}]"#,
        r#"[{"op":"add","path":"/spec/n"},{"op":"replace","path":"/spec/size"}]"#,
        r#"[{"op":"copy","from":"/spec/absent","path":"/spec/c"},{"op":"add","path":"/","value":3}]"#,
        r#"[{"op":"replace","path":"","value":1},{"op":"replace","path":"","value":null}]"#,
        r#"[{"op":"test","path":"","value":{}}]"#,
        r#"[{"op":"add","path":"/spec/ports/-","value":1,"op":"remove"}]"#,
        // Failures: both refuse, nothing is printed.
        r#"[{"op":"add","path":"","value":{"kind":"Widget"}}]"#,
        r#"[{"op":"move","from":"/spec/size","path":""}]"#,
        r#"[{"op":"add","path":"spec","value":1}]"#,
        r#"[{"op":"test","path":"/spec/size"}]"#,
        r#"[{"op":"move","from":"/spec","path":"/spec/m/x"}]"#,
        r#"[{"op":"remove","path":"/spec/ports/-"}]"#,
        r#"[{"op":"add","path":"/spec/ports/-0/x","value":1}]"#,
        r#"[{"op":"remove","path":"/spec/absent"}]"#,
        r#"[{"op":"add","path":"/spec/x/y","value":1}]"#,
        r#"[{"op":"add","path":"/spec/ports/9","value":1}]"#,
        r#"[{"op":"remove","path":"/spec/ports/-9"}]"#,
        r#"[{"op":"test","path":"/spec/size","value":2}]"#,
        r#"[{"op":"test","path":"/spec/size","value":"1"}]"#,
        r#"[{"op":"move","from":"/spec/absent","path":"/spec/n"}]"#,
        r#"[{"op":"add","path":"/spec/t","value":1},{"op":"bogus","path":"/a"}]"#,
        r#"{"op":"add","path":"/spec/t","value":1}"#,
    ];
    let mut compared = 0;
    for ops in cases {
        let (code, out, err) = smp(&["apply", "--type", "json", path, "-p", ops], "");
        let Some((kcode, kout, kerr)) =
            kubectl(&["patch", "--local", "-f", path, "--type", "json", "-o", "json", "-p", ops])
        else {
            return;
        };
        assert_eq!(code == 0, kcode == 0, "{ops}: smp {code} {err}; kubectl {kcode} {kerr}");
        if code == 0 {
            let ours: Value = serde_json::from_str(&out).unwrap();
            let theirs: Value = serde_json::from_str(&kout).unwrap();
            assert_eq!(ours, theirs, "{ops}");
        } else {
            assert!(out.is_empty(), "{ops}: a failed patch prints nothing: {out}");
        }
        compared += 1;
    }
    assert_eq!(compared, cases.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_json_patch_names_the_operation_and_its_path() {
    let dir = scratch("json-errors");
    let object = dir.join("w.yaml");
    std::fs::write(&object, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 1}\n")
        .unwrap();
    let path = object.to_str().unwrap();
    let ops = dir.join("ops.yaml");
    std::fs::write(&ops, "- {op: add, path: /spec/ports, value: [80]}\n- {op: remove, path: /spec/gone}\n").unwrap();
    let (code, out, err) = smp(&["apply", "--type", "json", path, ops.to_str().unwrap()], "");
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("operation 1 (remove /spec/gone): path is invalid"), "{err}");
    let (code, _, err) = smp(&["apply", "--type", "json", path, "-p", r#"[{"op":"add","value":1}]"#], "");
    assert_eq!(code, 1);
    assert!(err.contains("operation 0 (add): missing field `path`"), "{err}");
    let (code, _, err) = smp(&["apply", "--type", "json", path, "-p", r#"{"op":"add"}"#], "");
    assert_eq!(code, 1);
    assert!(err.contains("a JSON patch is a list of operations, not an object"), "{err}");

    // Batch mode takes the list of operations as the case's patch.
    let good = json!({"original": {"a": [1]}, "patch": [{"op": "add", "path": "/a/-", "value": 2}]});
    let bad = json!({"original": {"a": [1]}, "patch": [{"op": "test", "path": "/a/0", "value": 2}]});
    let (code, out, err) = smp(&["apply", "--type", "json", "--jsonl"], &format!("{good}\n{bad}\n"));
    assert_eq!(code, 0, "{err}");
    let answers = lines(&out);
    assert_eq!(answers[0], json!({"result": {"a": [1, 2]}}));
    assert_eq!(answers[1], json!({"error": "operation 0 (test /a/0): value did not match"}));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A CRD for `Widget` in two versions: v1 (storage) keys `ports` by
/// `port` and `protocol`, `routes` by `name`, holds `tags` as a set; in
/// v1alpha1 every list is atomic.
const WIDGET_CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              routes: {type: array, items: {type: object, properties: {name: {type: string}, to: {type: string}}}}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              routes:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items: {type: object, required: [name], properties: {name: {type: string}, to: {type: string}}}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items: {type: object, properties: {port: {type: integer}, protocol: {type: string}}}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
"#;

fn crd_widget(version: &str) -> Value {
    json!({
        "apiVersion": format!("example.com/{version}"), "kind": "Widget", "metadata": {"name": "w", "finalizers": ["a"]},
        "spec": {"size": 1, "tags": ["x", "y"], "routes": [{"name": "r1", "to": "a"}, {"name": "r2", "to": "b"}],
            "ports": [{"port": 80, "protocol": "TCP"}], "extra": {"k": {"v": 1}}}
    })
}

#[test]
fn with_a_crd_the_default_is_the_merge_patch_custom_resources_take() {
    let dir = scratch("crd-merge");
    let crd = dir.join("crd.yaml");
    std::fs::write(&crd, WIDGET_CRD).unwrap();
    let object = dir.join("w.json");
    std::fs::write(&object, crd_widget("v1").to_string()).unwrap();
    let (crd, path) = (crd.to_str().unwrap(), object.to_str().unwrap());
    let patches = [
        json!({"spec": {"routes": [{"name": "r1", "to": "z"}], "tags": ["q"], "size": null}}),
        json!({"metadata": {"finalizers": ["b"], "labels": {"l": "1"}}, "spec": {"extra": {"k": {"w": 2}}}}),
    ];
    for patch in &patches {
        let patch = patch.to_string();
        let (code, out, err) = smp(&["apply", "--crd", crd, path, "-p", &patch], "");
        assert_eq!(code, 0, "{err}");
        assert!(err.is_empty(), "no warning on the merge route: {err}");
        let ours: Value = serde_json::from_str(&out).unwrap();
        let Some((kcode, kout, kerr)) =
            kubectl(&["patch", "--local", "-f", path, "--type", "merge", "-o", "json", "-p", &patch])
        else {
            return;
        };
        assert_eq!(kcode, 0, "{kerr}");
        assert_eq!(ours, serde_json::from_str::<Value>(&kout).unwrap(), "{patch}");
    }
    // diff gives the merge patch: a changed list whole.
    let mut desired = crd_widget("v1");
    desired["spec"]["routes"][0]["to"] = json!("z");
    let modified = dir.join("m.json");
    std::fs::write(&modified, desired.to_string()).unwrap();
    let (code, out, err) = smp(&["diff", "--crd", crd, path, modified.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let patch: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(patch, json!({"spec": {"routes": [{"name": "r1", "to": "z"}, {"name": "r2", "to": "b"}]}}));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_a_crd_and_strategic_merge_lists_merge_as_their_markers_say() {
    let dir = scratch("crd-strategic");
    let crd = dir.join("crd.yaml");
    std::fs::write(&crd, WIDGET_CRD).unwrap();
    let object = dir.join("w.json");
    std::fs::write(&object, crd_widget("v1").to_string()).unwrap();
    let (crd, path) = (crd.to_str().unwrap(), object.to_str().unwrap());
    let patch = json!({
        "metadata": {"finalizers": ["b"]},
        "spec": {"routes": [{"name": "r1", "to": "z"}], "tags": ["q"], "ports": [{"port": 443, "protocol": "TCP"}],
            "extra": {"k": {"w": 2}}}
    })
    .to_string();
    // `ports` is keyed by port and protocol: a strategic merge by the first
    // field would merge 53/UDP into 53/TCP, so it is refused...
    let (code, _, err) = smp(&["apply", "--crd", crd, "--type", "strategic", path, "-p", &patch], "");
    assert_eq!(code, 1);
    assert!(
        err.contains("Widget v1.spec.ports: x-kubernetes-list-map-keys names several fields (port, protocol)")
            && err.contains("Pass --patch-merge-key"),
        "{err}"
    );
    // ... unless --patch-merge-key pairs elements by both, without a warning.
    let (code, out, err) =
        smp(&["apply", "--crd", crd, "--type", "strategic", "--patch-merge-key", path, "-p", &patch], "");
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    // With the $patchMergeKey extension, elements pair by every map key.
    let mut dns = crd_widget("v1");
    dns["spec"]["ports"] = json!([{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]);
    let mut udp_only = dns.clone();
    udp_only["spec"]["ports"].as_array_mut().unwrap().remove(0);
    let (both, one) = (dir.join("dns.json"), dir.join("udp.json"));
    std::fs::write(&both, dns.to_string()).unwrap();
    std::fs::write(&one, udp_only.to_string()).unwrap();
    let (both, one) = (both.to_str().unwrap(), one.to_str().unwrap());
    let keyed = |command: &str, args: &[&str]| {
        let options = [command, "--crd", crd, "--type", "strategic", "--patch-merge-key"];
        let (code, out, err) = smp(&[&options[..], args].concat(), "");
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let dns_patch = keyed("diff", &[both, one]).to_string();
    let merged = keyed("apply", &[both, "-p", &dns_patch]);
    assert_eq!(merged["spec"]["ports"], json!([{"port": 53, "protocol": "UDP"}]), "{dns_patch}");
    let result: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(result["metadata"]["finalizers"], json!(["b", "a"]), "ObjectMeta's finalizers are a set");
    assert_eq!(result["spec"]["routes"], json!([{"name": "r1", "to": "z"}, {"name": "r2", "to": "b"}]));
    assert_eq!(result["spec"]["tags"], json!(["q", "x", "y"]));
    let mut ports = result["spec"]["ports"].as_array().unwrap().clone();
    ports.sort_by_key(|p| p["port"].as_u64());
    assert_eq!(ports, [json!({"port": 80, "protocol": "TCP"}), json!({"port": 443, "protocol": "TCP"})]);
    assert_eq!(result["spec"]["extra"], json!({"k": {"v": 1, "w": 2}}));

    // The two-way patch keys the lists too, and applies back.
    let mut desired = crd_widget("v1");
    desired["spec"]["routes"][1]["to"] = json!("c");
    let modified = dir.join("m.json");
    std::fs::write(&modified, desired.to_string()).unwrap();
    let (code, out, err) =
        smp(&["diff", "--crd", crd, "--type", "strategic", "--patch-merge-key", path, modified.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    let patch: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        patch,
        json!({"spec": {"$setElementOrder/routes": [{"name": "r1"}, {"name": "r2"}], "routes": [{"name": "r2", "to": "c"}]}})
    );

    // The document's apiVersion picks its version: in v1alpha1 lists are atomic.
    std::fs::write(&object, crd_widget("v1alpha1").to_string()).unwrap();
    let routes = r#"{"spec": {"routes": [{"name": "r1", "to": "z"}]}}"#;
    let (code, out, err) =
        smp(&["apply", "--crd", crd, "--type", "strategic", "--patch-merge-key", path, "-p", routes], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["spec"]["routes"], json!([{"name": "r1", "to": "z"}]));
    // --version chooses the schema for every document of the kind.
    let (code, out, err) = smp(
        &["apply", "--crd", crd, "--type", "strategic", "--patch-merge-key", "--version", "v1", path, "-p", routes],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["spec"]["routes"].as_array().unwrap().len(), 2);
    // Without apiVersion and kind, the storage version (batch mode).
    let case = json!({"original": {"spec": {"routes": [{"name": "r1", "to": "a"}]}},
        "patch": {"spec": {"routes": [{"name": "r2", "to": "b"}]}}});
    let (code, out, err) =
        smp(&["apply", "--crd", crd, "--type", "strategic", "--patch-merge-key", "--jsonl"], &format!("{case}\n"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        lines(&out)[0]["result"]["spec"]["routes"],
        json!([{"name": "r2", "to": "b"}, {"name": "r1", "to": "a"}])
    );

    let strategic = ["--type", "strategic", "--patch-merge-key"];
    let (code, _, err) =
        smp(&[&["apply", "--crd", crd, "--version", "v9", path, "-p", routes][..], &strategic].concat(), "");
    assert_eq!(code, 1);
    assert!(err.contains("no version \"v9\" (it has v1alpha1, v1)"), "{err}");
    let (code, _, err) = smp(&["apply", "--crd", path, path, "-p", routes], "");
    assert_eq!(code, 1);
    assert!(err.contains("no CustomResourceDefinition in it"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A list keyed by port and protocol: live 53/TCP, the desired object adds
/// 53/UDP. Merged by port alone, UDP would overwrite TCP; smp refuses that
/// merge and, with --patch-merge-key, pairs elements by both fields in
/// apply (a patch written by hand), diff and three-way.
#[test]
fn a_list_keyed_by_two_fields_loses_no_element() {
    let dir = scratch("crd-two-keys");
    let crd = dir.join("crd.yaml");
    std::fs::write(&crd, WIDGET_CRD).unwrap();
    let mut live = crd_widget("v1");
    live["spec"]["ports"] = json!([{"port": 53, "protocol": "TCP"}]);
    let mut desired = live.clone();
    desired["spec"]["ports"] = json!([{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]);
    let (live_file, desired_file) = (dir.join("live.json"), dir.join("desired.json"));
    std::fs::write(&live_file, live.to_string()).unwrap();
    std::fs::write(&desired_file, desired.to_string()).unwrap();
    let (crd, live_file, desired_file) =
        (crd.to_str().unwrap(), live_file.to_str().unwrap(), desired_file.to_str().unwrap());
    let udp = r#"{"spec": {"ports": [{"port": 53, "protocol": "UDP"}]}}"#;
    let both = |ports: &Value| {
        let mut ports = ports.as_array().unwrap().clone();
        ports.sort_by_key(|p| p["protocol"].as_str().map(String::from));
        ports
    };
    for args in [
        &["apply", live_file, "-p", udp][..],
        &["diff", live_file, desired_file],
        &["three-way", live_file, desired_file, live_file],
    ] {
        let (code, _, err) = smp(&[&args[..1], &["--crd", crd, "--type", "strategic"], &args[1..]].concat(), "");
        assert_eq!(code, 1, "{args:?}");
        assert!(err.contains("spec.ports") && err.contains("(port, protocol)"), "{args:?}: {err}");
    }
    let keyed = |args: &[&str]| {
        let options = ["--crd", crd, "--type", "strategic", "--patch-merge-key"];
        let (code, out, err) = smp(&[&args[..1], &options, &args[1..]].concat(), "");
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(err.is_empty(), "no warning: {err}");
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let applied = keyed(&["apply", live_file, "-p", udp]);
    assert_eq!(both(&applied["spec"]["ports"]), both(&desired["spec"]["ports"]));
    for patch in [keyed(&["diff", live_file, desired_file]), keyed(&["three-way", live_file, desired_file, live_file])]
    {
        let applied = keyed(&["apply", live_file, "-p", &patch.to_string()]);
        assert_eq!(both(&applied["spec"]["ports"]), both(&desired["spec"]["ports"]), "{patch}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A v1beta1 CRD's one `validation` schema serves its 2,000 versions: it
/// is translated once, and its warning (a map list without keys) printed
/// once, not once per version; a merge patch does not translate it at all.
#[test]
fn a_schema_shared_by_many_versions_is_read_once() {
    let dir = scratch("crd-shared");
    let versions: Vec<Value> =
        (0..2000).map(|i| json!({"name": format!("v{i}"), "served": true, "storage": i == 0})).collect();
    let list = json!({"type": "array", "x-kubernetes-list-type": "map", "items": {"type": "object"}});
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "versions": versions,
            "validation": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object",
                "properties": {"items": list}}}}}}});
    let (crd_file, object) = (dir.join("crd.json"), dir.join("w.json"));
    std::fs::write(&crd_file, crd.to_string()).unwrap();
    let widget = json!({"apiVersion": "example.com/v1999", "kind": "Widget", "spec": {"items": [{"a": 1}]}});
    std::fs::write(&object, widget.to_string()).unwrap();
    let (crd_file, object) = (crd_file.to_str().unwrap(), object.to_str().unwrap());
    let patch = r#"{"spec": {"items": [{"b": 2}]}}"#;
    let (code, out, err) = smp(&["apply", "--crd", crd_file, "--type", "strategic", object, "-p", patch], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.lines().count(), 1, "one warning: {}", err.lines().take(3).collect::<Vec<_>>().join("\n"));
    assert!(err.starts_with("smp: warning: Widget v0 (and 1999 more versions).spec.items"), "{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["spec"]["items"], json!([{"b": 2}]));
    let (code, _, err) = smp(&["apply", "--crd", crd_file, object, "-p", patch], "");
    assert_eq!((code, err.as_str()), (0, ""));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--strict` refuses a patch that adds a field the schema does not have,
/// whatever the patch type (a typo such as `replcas` is never merged in):
/// built-in kinds and custom resources, the merge patch a CRD defaults to.
#[test]
fn strict_refuses_unknown_fields_with_every_patch_type() {
    let dir = scratch("strict");
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"replicas": 1, "x-legacy": true}});
    let (crd, deploy, widget) = (dir.join("crd.yaml"), dir.join("d.json"), dir.join("w.json"));
    std::fs::write(&crd, WIDGET_CRD).unwrap();
    std::fs::write(&deploy, deployment.to_string()).unwrap();
    std::fs::write(&widget, crd_widget("v1").to_string()).unwrap();
    let (crd, deploy, widget) = (crd.to_str().unwrap(), deploy.to_str().unwrap(), widget.to_str().unwrap());
    let cases: [(&[&str], &str, &str); 6] = [
        (&["--type", "strategic", deploy], r#"{"spec": {"replcas": 3}}"#, r#"{"spec": {"replicas": 3}}"#),
        (&["--type", "merge", deploy], r#"{"spec": {"replcas": 3}}"#, r#"{"spec": {"replicas": 3}}"#),
        (
            &["--type", "json", deploy],
            r#"[{"op": "add", "path": "/spec/replcas", "value": 3}]"#,
            r#"[{"op": "replace", "path": "/spec/replicas", "value": 3}]"#,
        ),
        (&["--crd", crd, widget], r#"{"spec": {"replcas": 3}}"#, r#"{"spec": {"size": 3}}"#),
        (
            &["--crd", crd, "--type", "json", widget],
            r#"[{"op": "add", "path": "/spec/routes/-", "value": {"name": "r3", "too": "x"}}]"#,
            r#"[{"op": "add", "path": "/spec/routes/-", "value": {"name": "r3", "to": "x"}}]"#,
        ),
        (
            &["--crd", crd, "--type", "strategic", "--patch-merge-key", widget],
            r#"{"spec": {"routes": [{"name": "r1", "too": "x"}]}}"#,
            r#"{"spec": {"routes": [{"name": "r1", "to": "x"}]}}"#,
        ),
    ];
    for (args, typo, fine) in cases {
        let run = |patch: &str| smp(&[&["apply", "--strict"][..], args, &["-p", patch]].concat(), "");
        let (code, out, err) = run(typo);
        assert_eq!((code, out.as_str()), (1, ""), "{args:?} {typo}");
        assert!(err.contains(": unknown field \""), "{args:?}: {err}");
        let (code, _, err) = run(fine);
        assert_eq!(code, 0, "{args:?} {fine}: {err}");
        // Without --strict the typo is merged in, as the API server does
        // without fieldValidation=Strict.
        let (code, _, err) = smp(&[&["apply"][..], args, &["-p", typo]].concat(), "");
        assert_eq!(code, 0, "{args:?} {typo}: {err}");
    }
    // The original's own unknown fields are not the patch's.
    let (code, _, err) = smp(&["apply", "--strict", "--type", "merge", deploy, "-p", "{}"], "");
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
