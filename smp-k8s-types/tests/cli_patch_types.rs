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

    // Applying a JSON patch (a list of operations) is left to kubectl for
    // now: the reader takes objects only, and says so.
    let ops = r#"[{"op":"add","path":"/spec/ports/-","value":443}]"#;
    let (code, _, err) = smp(&["apply", "--type", "json", path, "-p", ops], "");
    assert_eq!(code, 1, "{err}");

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
