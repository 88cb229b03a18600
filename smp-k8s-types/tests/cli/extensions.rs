//! smp's opt-in extensions on the command line: `--patch-merge-key` (with
//! `--jsonl` and an OpenAPI document carrying recommended merge keys),
//! `smp check`, `diff --checked` and `apply --strict`.

use crate::{assert_ok, file, json_file, kubectl_patch, lines, smp, stderr, stdout};
use serde_json::{Value, json};

/// A Service-like definition: ports merged by `port`, recommended keys
/// `port,protocol`.
fn openapi() -> String {
    json_file(
        "svc-openapi.json",
        &json!({"openapi": "3.0.0", "components": {"schemas": {
            "svc": {"properties": {"replicas": {"type": "integer"},
                "ports": {"type": "array", "items": {"$ref": "#/components/schemas/port"},
                    "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "port",
                    "x-smp-recommended-patch-merge-key": "port,protocol"}}},
            "port": {"properties": {"port": {"type": "integer"}, "protocol": {"type": "string"},
                "name": {"type": "string"}}}
        }}}),
    )
}

fn ports(udp_name: &str) -> Value {
    json!({"ports": [{"port": 53, "protocol": "TCP", "name": "t"}, {"port": 53, "protocol": "UDP", "name": udp_name}]})
}

fn batch(command: &str, extra: &[&str], cases: &[Value]) -> (Vec<Value>, Option<i32>) {
    let doc = openapi();
    let text: String = cases.iter().map(|c| format!("{c}\n")).collect();
    let cases = file("cases.jsonl", &text).display().to_string();
    let mut args = vec![command, "--openapi", doc.as_str(), "--definition", "svc", "--jsonl", cases.as_str()];
    args.extend_from_slice(extra);
    let out = smp(&args, "");
    (lines(&out), out.status.code())
}

#[test]
fn patch_merge_key_round_trips_through_diff_and_apply_in_batches() {
    let (live, desired) = (ports("u"), ports("x"));
    let (answers, code) = batch("diff", &["--patch-merge-key"], &[json!({"original": live, "modified": desired})]);
    assert_eq!(code, Some(0));
    let patch = answers[0]["patch"].clone();
    assert_eq!(patch["ports"][0]["$patchMergeKey"], json!(["port", "protocol"]));
    let case = json!({"original": live, "patch": patch});
    let (answers, _) = batch("apply", &["--patch-merge-key"], std::slice::from_ref(&case));
    assert_eq!(answers[0], json!({"result": desired}));
    // Without the option the directive is data, and the reference's patch
    // renames the TCP port.
    let (answers, _) = batch("apply", &[], &[case]);
    assert_ne!(answers[0]["result"], desired);
    let (answers, _) = batch("diff", &[], &[json!({"original": live, "modified": desired})]);
    assert_eq!(answers[0]["patch"]["ports"], json!([{"name": "x", "port": 53}]));
}

#[test]
fn patch_merge_key_in_three_way_batches() {
    let last = ports("u");
    let desired = json!({"ports": [{"port": 53, "protocol": "TCP", "name": "t"}]});
    let case = json!({"original": last, "modified": desired, "current": last});
    let (answers, code) = batch("three-way", &["--patch-merge-key"], &[case]);
    assert_eq!(code, Some(0));
    let patch = answers[0]["patch"].clone();
    let keys = json!(["port", "protocol"]);
    assert_eq!(patch["ports"], json!([{"$patch": "delete", "$patchMergeKey": keys, "port": 53, "protocol": "UDP"}]));
    let (answers, _) = batch("apply", &["--patch-merge-key"], &[json!({"original": last, "patch": patch})]);
    assert_eq!(answers[0]["result"], desired);
}

#[test]
fn ambiguous_directives_are_error_lines() {
    let patch = json!({"ports": [{"$patchMergeKey": ["port"], "port": 53, "name": "x"}]});
    let (answers, code) = batch("apply", &["--patch-merge-key"], &[json!({"original": ports("u"), "patch": patch})]);
    assert_eq!(code, Some(0), "a bad line does not stop the batch");
    assert_eq!(
        answers[0]["error"],
        "ports[port=53]: port=53 matches 2 elements of the list; name more key fields in $patchMergeKey to tell them apart"
    );
}

#[test]
fn check_reports_duplicate_keys_and_exits_with_1() {
    let doc = openapi();
    let dup = json_file("dup.json", &ports("u"));
    let out = smp(&["check", "--openapi", &doc, "--definition", "svc", &dup], "");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("ports: elements 0, 1 have the same merge key port=53;"), "{}", stdout(&out));
    let fine = json_file("fine.json", &json!({"ports": [{"port": 53}, {"port": 80}]}));
    let out = smp(&["check", "--openapi", &doc, "--definition", "svc", &fine], "");
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), String::new()));
    let (answers, code) = batch("check", &[], &[json!({"object": ports("u")}), json!({"object": {"ports": []}})]);
    assert_eq!(code, Some(1));
    assert_eq!(answers[0]["findings"][0]["path"], "ports");
    assert_eq!(answers[1], json!({"findings": []}));
}

#[test]
fn check_knows_the_built_in_kinds() {
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "dns"},
        "spec": {"ports": [{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]}});
    let out = smp(&["check", &json_file("svc.json", &svc)], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("the recommended merge keys port,protocol tell them apart"), "{}", stdout(&out));
}

#[test]
fn checked_diff_refuses_a_corrupting_patch() {
    let (answers, _) = batch("diff", &["--checked"], &[json!({"original": ports("u"), "modified": ports("x")})]);
    let error = answers[0]["error"].as_str().unwrap();
    assert!(
        error.starts_with("the patch would not give the desired object: the result differs at ports[0].name"),
        "{error}"
    );
    let (answers, _) =
        batch("diff", &["--checked", "--patch-merge-key"], &[json!({"original": ports("u"), "modified": ports("x")})]);
    assert!(answers[0].get("patch").is_some(), "{}", answers[0]);
}

#[test]
fn strict_apply_names_the_unknown_field() {
    let (answers, _) = batch("apply", &["--strict"], &[json!({"original": {"replicas": 1}, "patch": {"replicsa": 2}})]);
    assert_eq!(answers[0]["error"], "replicsa: unknown field \"replicsa\"");
    let (answers, _) = batch("apply", &[], &[json!({"original": {"replicas": 1}, "patch": {"replicsa": 2}})]);
    assert_eq!(answers[0]["result"], json!({"replicas": 1, "replicsa": 2}));
}

/// Off by default, `$patchMergeKey` is plain data, exactly as kubectl (the
/// Go reference) treats it; on, the element is matched by port and protocol.
#[test]
fn without_the_option_the_directive_is_data_as_for_kubectl() {
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "dns"},
        "spec": {"ports": [{"port": 53, "protocol": "TCP", "name": "t"}, {"port": 53, "protocol": "UDP", "name": "u"}]}});
    let patch = json!({"spec": {"ports": [{"$patchMergeKey": ["port", "protocol"], "port": 53, "protocol": "UDP", "name": "x"}]}});
    let (object, patch_file) = (json_file("svc.json", &svc), json_file("patch.json", &patch));
    let off = assert_ok(&smp(&["apply", &object, &patch_file], ""));
    if let Some(want) = kubectl_patch(&svc, &patch) {
        assert_eq!(off, want);
    }
    assert_eq!(off["spec"]["ports"][0]["$patchMergeKey"], json!(["port", "protocol"]));
    let on = assert_ok(&smp(&["apply", "--patch-merge-key", &object, &patch_file], ""));
    assert_eq!(
        on["spec"]["ports"],
        json!([{"port": 53, "protocol": "TCP", "name": "t"}, {"port": 53, "protocol": "UDP", "name": "x"}])
    );
}
