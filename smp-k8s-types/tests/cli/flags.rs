//! No flag is ignored in silence: each one given where it changes nothing
//! (by command and patch type, the table of `src/bin/smp/flags.rs`) is
//! refused, naming it; the same flag where it applies runs.

use crate::{file, json_file, smp, stderr};
use serde_json::json;

/// (the flag refused, a command line where it changes nothing, the same
/// flag where it applies): `D` is a Deployment file, `C` a CRD file.
const CASES: &[(&str, &str, &str)] = &[
    ("--type", "check D --type merge", "check D --type strategic"),
    ("--type json", "three-way D D D --type json", "three-way D D D --type merge"),
    ("--kind", "apply D -p {} --type merge --kind deploy", "apply D -p {} --type merge --kind deploy --strict"),
    ("--kind", "diff D D --type json --kind deploy", "diff D D --kind deploy"),
    ("--version", "apply --crd C D -p {} --version v1", "apply --crd C D -p {} --version v1 --strict"),
    ("--patch-merge-key", "apply D -p {} --type merge --patch-merge-key", "apply D -p {} --patch-merge-key"),
    ("--patch-merge-key", "diff --crd C D D --patch-merge-key", "diff --crd C --type strategic D D --patch-merge-key"),
    ("--patch-merge-key", "three-way D D D --type merge --patch-merge-key", "three-way D D D --patch-merge-key"),
    ("--strict", "apply D -p {} --untyped --strict", "apply D -p {} --strict"),
    ("--checked", "diff D D --type merge --checked", "diff D D --checked"),
    ("--checked", "diff D D --type json --checked", "diff D D --checked"),
    ("--overwrite", "three-way D D D --type merge --overwrite", "three-way D D D --overwrite"),
    ("--exit-code", "diff --untyped --jsonl --exit-code", "diff D D --exit-code"),
    ("-R", "apply --untyped --jsonl -R", "apply D -p {} -R"),
    ("-R", "check --jsonl -R", "check D -R"),
    ("--explain", "apply --untyped --jsonl --explain", "apply D -p {} --explain"),
    ("-o", "apply --untyped --jsonl -o json", "apply D -p {} -o json"),
    ("-o", "check D -o yaml", "check D"),
    ("-o", "apply D -p {} --diff -o yaml", "apply D -p {} --diff"),
    ("--max-line-bytes", "apply D -p {} --max-line-bytes 1M", "apply --untyped --jsonl --max-line-bytes 1M"),
    ("--jobs", "diff D D --jobs 2", "diff --untyped --jsonl --jobs 2"),
];

#[test]
fn every_flag_that_would_change_nothing_is_refused() {
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {}});
    let d = json_file("d.json", &deploy);
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ws.example.com}\n\
               spec:\n  group: example.com\n  names: {kind: W, plural: ws}\n  versions:\n  - name: v1\n    served: true\n    \
               storage: true\n    schema: {openAPIV3Schema: {type: object}}\n";
    let c = file("crd.yaml", crd).display().to_string();
    let words = |line: &str| -> Vec<String> {
        line.split(' ')
            .map(|w| {
                if w == "D" {
                    d.clone()
                } else if w == "C" {
                    c.clone()
                } else {
                    w.to_string()
                }
            })
            .collect()
    };
    let case = r#"{"original": {}, "patch": {}, "modified": {}, "object": {}}"#.to_string() + "\n";
    for (flag, refused, applies) in CASES {
        let refused = words(refused);
        let out = smp(&refused.iter().map(String::as_str).collect::<Vec<_>>(), &case);
        // An error exits with 1, with 2 under --exit-code.
        let error = if refused.iter().any(|w| w == "--exit-code") { 2 } else { 1 };
        assert_eq!(out.status.code(), Some(error), "{refused:?}: {}", stderr(&out));
        let said = format!("error: {flag} does not apply here: ");
        assert!(stderr(&out).starts_with(&said), "{refused:?}: {}", stderr(&out));
        let applies = words(applies);
        let out = smp(&applies.iter().map(String::as_str).collect::<Vec<_>>(), &case);
        assert_eq!(out.status.code(), Some(0), "{applies:?}: {}", stderr(&out));
    }
}
