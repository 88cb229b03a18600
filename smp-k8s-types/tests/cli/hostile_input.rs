//! Input that is deep, huge, malformed or that YAML reads differently, and
//! output that goes nowhere.

use crate::{assert_ok, file, json_file, kubectl, lines, smp, stderr, stdout};
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

fn nested_json(depth: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
}

#[test]
fn deep_json_is_refused_before_parsing_and_never_read_as_yaml() {
    let empty = json_file("empty.json", &json!({}));
    for depth in [1_000, 100_000] {
        let deep = file("deep.json", &nested_json(depth)).display().to_string();
        let out = smp(&["apply", "--untyped", &deep, &empty], "");
        assert_eq!(out.status.code(), Some(1), "depth {depth}");
        let err = stderr(&out);
        assert!(err.contains("invalid JSON: nested deeper than 128 levels at line 1, column 641, in \"a\""), "{err}");
        assert!(!err.contains("YAML"), "{err}");

        let out = smp(&["apply", "--openapi", &deep, &empty, &empty], "");
        assert_eq!(out.status.code(), Some(1), "depth {depth}");
        assert!(
            stderr(&out).contains("OpenAPI document file") && stderr(&out).contains("nested deeper"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn deep_yaml_flow_collections_are_refused_before_parsing() {
    let empty = json_file("empty.json", &json!({}));
    let deep = file("deep.yaml", &format!("a: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000)));
    let out = smp(&["apply", "--untyped", deep.to_str().unwrap(), &empty], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("invalid YAML: nested deeper than 128 levels at line 1, column 132"),
        "{}",
        stderr(&out)
    );
}

/// Brackets inside strings are text, not nesting: kubectl reads a YAML
/// patch, and a JSON patch (which it reads as YAML), whose string holds
/// 200 of them.
#[test]
fn brackets_in_strings_are_no_nesting() {
    let object = json_file("cm.json", &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}));
    let many = "[".repeat(200);
    for (patch_type, patch) in [
        ("merge", format!("data: {{a: \"{many}\"}}")),
        ("strategic", format!("data:\n  a: '{many}' # {many}\n")),
        ("json", format!(r#"[{{"op": "add", "path": "/data", "value": {{"a": "{many}"}}}}]"#)),
    ] {
        let args = ["--type", patch_type, "-p", &patch, "-o", "json"];
        let out = smp(&[&["apply", &object][..], &args].concat(), "");
        assert_eq!(out.status.code(), Some(0), "{patch_type}: {}", stderr(&out));
        assert_eq!(assert_ok(&out)["data"]["a"], json!(many));
        let Some(theirs) = kubectl(&[&["patch", "--local", "-f", &object][..], &args].concat()) else { continue };
        assert_eq!(stdout(&out), stdout(&theirs), "{patch_type}");
    }
}

/// Text that ends inside a block scalar, without a final line break (the
/// parser once panicked on it), and text that starts with a character
/// whose first byte is that of a byte order mark: read as kubectl reads
/// them, from a file (whose last line kubectl ends) and from `-p`.
#[test]
fn unterminated_block_scalars_and_fullwidth_first_characters_read_as_kubectl_reads_them() {
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  c: |\n    x";
    let object = file("cm.yaml", cm).display().to_string();
    let fullwidth =
        file("fw.yaml", "Ｘ: 1\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n").display().to_string();
    for (object, patch) in [
        (&object, "{}"),
        (&object, "data:\n  d: |+\n    y"),
        (&object, "data:\n  d: >\n    y\n\n    z"),
        (&fullwidth, "{}"),
    ] {
        let args = ["--type", "merge", "-p", patch, "-o", "json"];
        let out = smp(&[&["apply", object][..], &args].concat(), "");
        assert_eq!(out.status.code(), Some(0), "{patch}: {}", stderr(&out));
        let Some(theirs) = kubectl(&[&["patch", "--local", "-f", object][..], &args].concat()) else { continue };
        assert_eq!(stdout(&out), stdout(&theirs), "{patch}");
    }
}

/// Text on which the YAML parser `panic!`s (a tag just before `,` in a
/// flow collection) is an error exit with a message, not a panic.
#[test]
fn text_the_yaml_parser_panics_on_is_an_error() {
    let object = file("tag.yaml", "a: [!x, 1]\n").display().to_string();
    for (object, patch) in [(object.as_str(), "{}"), ("-", "b: [!!str, 2]")] {
        let out = smp(&["apply", "--untyped", object, "-p", patch], "{}");
        assert_eq!(out.status.code(), Some(1), "{patch}: {}", stderr(&out));
        assert!(stderr(&out).contains("the YAML parser cannot read this text"), "{}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
}

#[test]
fn numbers_json_cannot_hold_are_refused_not_read_as_strings() {
    let original = json_file("original.json", &json!({"a": 1}));
    for patch in [r#"{"a": 1e309}"#, r#"{"a": -1e400}"#, r#"{"a": NaN}"#, r#"{"a": Infinity}"#] {
        let out = smp(&["apply", "--untyped", &original, "-"], patch);
        assert_eq!(out.status.code(), Some(1), "{patch}: {}", stdout(&out));
        assert!(stderr(&out).starts_with("error: patch from stdin: invalid JSON"), "{patch}: {}", stderr(&out));
        assert_eq!(stdout(&out), "");
    }
}

#[test]
fn negative_zero_is_the_integer_zero_as_for_kubectl() {
    let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {}});
    let object = json_file("widget.json", &widget);
    let patch = r#"{"spec": {"int": -0, "float": -0.0, "list": [-0, 1.0, 1e21, 1e-7]}}"#;
    // The merge patch keeps the float -0.0 of the patch, as kubectl's does.
    let out = smp(&["apply", "--type", "merge", &object, "-"], patch);
    assert!(stdout(&out).contains(r#""int": 0,"#), "{}", stdout(&out));
    assert!(stdout(&out).contains(r#""float": -0,"#), "{}", stdout(&out));
    let got = assert_ok(&out);
    assert_eq!(got["spec"]["int"], json!(0));
    assert!(got["spec"]["int"].is_i64());
    let Some(want) = kubectl(&["patch", "--local", "-f", &object, "--type", "merge", "-p", patch, "-o", "json"]) else {
        return;
    };
    assert!(want.status.success(), "kubectl: {}", stderr(&want));
    // The same text, number for number, as kubectl's.
    assert_eq!(stdout(&out), String::from_utf8(want.stdout).unwrap());
}

#[test]
fn an_inline_patch_is_its_first_yaml_document_as_for_kubectl() {
    let object = json_file("cm.json", &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}));
    let cases = [
        ("strategic", "---"),
        ("strategic", "---\ndata: {a: x}"),
        ("merge", "data: {a: x}\n---\ndata: {b: y}\n"),
        ("merge", "data: {a: x}\n---\n[: unread\n"),
        ("strategic", "# nothing"),
        ("json", " "),
        // Refused by both: an empty -p, a merge patch that is null.
        ("strategic", ""),
        ("merge", "---"),
        ("merge", "null"),
    ];
    for (patch_type, patch) in cases {
        let out = smp(&["apply", &object, "--type", patch_type, "-p", patch], "");
        let got: Option<Value> = serde_json::from_slice(&out.stdout).ok();
        assert_eq!(got.is_some(), out.status.success(), "{patch_type} {patch:?}: {}", stderr(&out));
        if let Some(got) = &got {
            assert!(got.get("data").is_none_or(|d| d.get("b").is_none()), "{patch}: {got}");
        }
        let args = ["patch", "--local", "-f", &object, "--type", patch_type, "-p", patch, "-o", "json"];
        let Some(want) = kubectl(&args) else {
            return;
        };
        let want: Option<Value> = serde_json::from_slice(&want.stdout).ok();
        assert_eq!(got, want, "{patch_type} {patch:?}");
    }
}

#[test]
fn yaml_output_is_kubectls_byte_for_byte() {
    // go-yaml's quoting, key order (`a9` before `a10`), number forms,
    // literal blocks and folding at 80 columns.
    let object = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a10": "x", "a9": "y"},
            "annotations": {"note": "word ".repeat(30), "script": "set -e\necho 'hi'\n", "star": "*x", "date": "2001-12-14",
                "colon": "a: b", "hash": "a #b", "bool": "yes", "num": "017", "dot": ".5", "six": "1:30", "empty": ""}},
        "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "c", "image": "nginx:1.25",
            "args": ["-c", "x > y", "{a}", "[b]", "@c", "`d`", "%e", "!f", "&g", "|h", "?i", "-", "~"],
            "resources": {"limits": {"cpu": 0.5, "memory": 1e9}}}]}}},
        "x": {"f": 1234567.5, "g": 1e-7, "h": 1e21, "i": [], "j": {}, "k": null},
    });
    let path = json_file("deploy.json", &object);
    let out = smp(&["apply", &path, "--type", "merge", "-p", "{}", "-o", "yaml"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("  labels:\n    a9: \"y\"\n    a10: x\n"), "{}", stdout(&out));
    let Some(want) = kubectl(&["patch", "--local", "-f", &path, "--type", "merge", "-p", "{}", "-o", "yaml"]) else {
        return;
    };
    assert!(want.status.success(), "kubectl: {}", stderr(&want));
    assert_eq!(stdout(&out), String::from_utf8(want.stdout).unwrap());
}

#[test]
fn json_output_is_kubectls_byte_for_byte() {
    // Indented by four, with `<`, `>`, `&`, U+2028 and U+2029 escaped and
    // floats written as Go writes them; each document of a stream printed
    // after the other.
    let text = "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}, \
        \"data\": {\"s\": \"<a&b>\\u2028\\u2029\\b\\f\\u0001\\u007f\\t\\\"\\\\ é\"}, \
        \"x\": {\"n\": 1.5e300, \"m\": 1e-7, \"i\": 12345678901234567890, \"e\": {}, \"l\": []}}";
    let object = file("cm.json", text).display().to_string();
    let stream = file(
        "two.yaml",
        "kind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\n---\nkind: Secret\napiVersion: v1\nmetadata: {name: b}\n",
    );
    let stream = stream.display().to_string();
    let patch = r#"{"metadata": {"labels": {"a<b": "c&d"}}}"#;
    for input in [&object, &stream] {
        let out = smp(&["apply", input, "--type", "merge", "-p", patch, "-o", "json"], "");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stdout(&out)
                .contains("\n    \"metadata\": {\n        \"labels\": {\n            \"a\\u003cb\": \"c\\u0026d\"")
        );
        let Some(want) = kubectl(&["patch", "--local", "-f", input, "--type", "merge", "-p", patch, "-o", "json"])
        else {
            return;
        };
        assert!(want.status.success(), "kubectl: {}", stderr(&want));
        assert_eq!(stdout(&out), String::from_utf8(want.stdout).unwrap());
    }
}

#[test]
fn bad_utf8_and_unpaired_surrogates_are_read_as_kubectl_reads_them() {
    // Go reads each byte outside UTF-8, and each unpaired surrogate escape,
    // as U+FFFD; serde_json alone would refuse the documents.
    let object = file("pod.json", "");
    let text = b"{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\", \
        \"labels\": {\"a\": \"x\xffy\", \"b\": \"\\udc00\"}}, \"spec\": {\"containers\": [{\"name\": \"c\xe2\x82\"}]}}";
    std::fs::write(&object, text).unwrap();
    let object = object.display().to_string();
    let patch = r#"{"metadata": {"labels": {"c": "\ud800z", "d": "\ud800\ud83d\ude00"}}}"#;
    let out = smp(&["apply", &object, "-"], patch);
    let got = assert_ok(&out);
    assert_eq!(got["metadata"]["labels"]["a"], json!("x\u{fffd}y"));
    assert_eq!(got["metadata"]["labels"]["c"], json!("\u{fffd}z"));
    // kubectl replaces a truncated sequence in a file by one U+FFFD.
    assert_eq!(got["spec"]["containers"][0]["name"], json!("c\u{fffd}"));
    // A batch line is JSON text, read as Go's encoding/json reads JSON (one
    // U+FFFD per bad byte), through the bytes entry points.
    let mut line = b"{\"original\": ".to_vec();
    line.extend_from_slice(text);
    line.extend_from_slice(format!(", \"patch\": {patch}}}\n").as_bytes());
    let batch = file("cases.jsonl", "");
    std::fs::write(&batch, &line).unwrap();
    let out = smp(&["apply", "--jsonl", &batch.display().to_string()], "");
    let answer: Value = serde_json::from_str(stdout(&out).trim()).expect("one answer line");
    let mut per_byte = got.clone();
    per_byte["spec"]["containers"][0]["name"] = json!("c\u{fffd}\u{fffd}");
    assert_eq!(answer["result"], per_byte, "{answer}");
    let Some(want) = kubectl(&["patch", "--local", "-f", &object, "--type", "strategic", "-p", patch, "-o", "json"])
    else {
        return;
    };
    assert!(want.status.success(), "kubectl: {}", stderr(&want));
    assert_eq!(got, serde_json::from_slice::<Value>(&want.stdout).unwrap());
}

#[test]
fn a_patch_that_removes_the_kind_is_refused_as_by_kubectl() {
    let pod =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}});
    let object = json_file("pod.json", &pod);
    let patches = [
        r#"{"kind": null}"#,
        r#"{"kind": ""}"#,
        r#"{"kind": 5}"#,
        r#"{"$patch": "replace", "x": 1}"#,
        r#"{"$patch": "delete"}"#,
        r#"{"$retainKeys": ["spec"], "spec": {}}"#,
    ];
    let mut lines = String::new();
    for patch in patches {
        let out = smp(&["apply", &object, "-"], patch);
        assert!(!out.status.success(), "{patch}: {}", stdout(&out));
        assert!(stderr(&out).contains("Object 'Kind' is missing in '{"), "{patch}: {}", stderr(&out));
        lines.push_str(&format!("{{\"original\": {pod}, \"patch\": {patch}}}\n"));
        if let Some(want) =
            kubectl(&["patch", "--local", "-f", &object, "--type", "strategic", "-p", patch, "-o", "json"])
        {
            assert!(!want.status.success(), "{patch}: kubectl took it: {}", stdout(&want));
            assert!(stderr(&want).contains("Object 'Kind' is missing in '{"), "{}", stderr(&want));
        }
    }
    // Patches that keep a kind are applied, in the batch as well.
    for kept in [
        r#"{"kind": "Service"}"#,
        r#"{"$retainKeys": ["kind", "spec"], "spec": {}}"#,
        r#"{"metadata": {"labels": {"kind": "x"}}}"#,
    ] {
        assert_ok(&smp(&["apply", &object, "-"], kept));
        lines.push_str(&format!("{{\"original\": {pod}, \"patch\": {kept}}}\n"));
    }
    let out = smp(&["apply", "--jsonl", "-"], &lines);
    let answers: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), patches.len() + 3);
    for (answer, patch) in answers.iter().zip(patches) {
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(error.contains("Object 'Kind' is missing in '{"), "{patch}: {answer}");
    }
    assert!(answers[patches.len()..].iter().all(|a| a.get("result").is_some()), "{answers:?}");
    // A document without a kind (which kubectl does not read) is smp's own.
    let bare = json_file("bare.json", &json!({"spec": {"a": 1}}));
    assert_ok(&smp(&["apply", "--untyped", &bare, "-"], r#"{"$patch": "replace", "x": 1}"#));
}

/// Strings and keys that YAML 1.1 reads as booleans, numbers or null when
/// they are not quoted.
fn yaml_1_1_trap() -> Value {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "labels": {"y": "n", "on": "off", "yes": "no"}},
        "spec": {
            "true": "True", "false": "FALSE", "null": "~", "1_000": "1_000", "0x1F": "0o17", "1:20": "2001-12-14",
            "=": "<<", "<<": ".inf", "a: b": "c #d", "multi": "line1\nline2\n", "lead": "  x\ny", "e": "",
            "nel": "a\u{85}b", "list": ["y", "n", "Yes", "-", "- x", "? y", "| z", "1e3", ".5", "+1", "0b101"],
            "numbers": [1000, -0.5, 1.5e300, 1e-7, 123456789012_i64],
            "nested": {"k": [{"a": "on"}, [["off"]], {}, []]},
        },
    })
}

/// YAML text whose plain scalars, keys, tags and aliases YAML 1.1 (what
/// kubectl reads) and YAML 1.2 read differently.
const YAML_1_1_INPUT: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: a
x:
  bools: [yes, Yes, y, N, on, OFF, True, tRue, 'yes', !!str on]
  nulls: [~, Null, '', !!null '']
  ints: [017, 0x1F, 1_000, 0b101, -0b101, 0o17, +12, -017, 08, 0_1, 0x, 9223372036854775808, 99999999999999999999]
  floats: [1.5e3, .5, 1_0.5, 6., +.5, 1.0, 1e400, .5_0, .e3, 1.5.5, !!float 3]
  text: [2001-12-14, 1:30, !custom 3, ! 12, !!binary aGVsbG8=]
  block: |
    on
  keys: {yes: 1, 'yes': 2, on: 3, 017: 4, 1e6: 5, 0.1234567891: 6, \"<<\": 7, 1.5: 8}
  base: &b {k: v, p: 1}
  merged: {p: 0, <<: *b, m: 2, n: 3}
  copies: [*b, *b]
";

#[test]
fn yaml_scalars_keys_and_aliases_are_read_as_kubectl_reads_them() {
    let object = file("yaml11.yaml", YAML_1_1_INPUT).display().to_string();
    let got = assert_ok(&smp(&["apply", &object, "--type", "merge", "-p", "{}", "-o", "json"], ""));
    let x = &got["x"];
    assert_eq!(x["bools"], json!([true, true, true, false, true, false, true, "tRue", "yes", "on"]));
    assert_eq!(
        x["ints"].as_array().unwrap()[..9],
        json!([15, 31, 1000, 5, -5, 15, 12, -15, 8]).as_array().unwrap()[..]
    );
    assert_eq!(x["keys"], json!({"true": 3, "yes": 2, "15": 4, "1e+06": 5, "0.12345679": 6, "<<": 7, "1.5": 8}));
    assert_eq!(x["merged"], json!({"k": "v", "p": 1, "m": 2, "false": 3}));
    for (text, refusal) in [
        ("a: !!int 1.5\n", "cannot decode !!float `1.5` as a !!int"),
        ("a: &a [*a]\n", "anchor 'a' value contains itself"),
        ("a: *b\n", "unknown anchor 'b' referenced"),
        ("a: {[1]: x}\n", "invalid map key"),
        ("a: -.inf\n", "unsupported value: -Inf"),
        ("a: !!binary 'aGVs bG8='\n", "invalid base64 data"),
    ] {
        let bad = file("bad.yaml", &format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a}}\n{text}"));
        let bad = bad.display().to_string();
        let out = smp(&["apply", &bad, "--type", "merge", "-p", "{}"], "");
        assert_eq!(out.status.code(), Some(1), "{text}: {}", stdout(&out));
        assert!(stderr(&out).contains(refusal), "{text}: {}", stderr(&out));
        if let Some(want) = kubectl(&["patch", "--local", "-f", &bad, "--type", "merge", "-p", "{}", "-o", "json"]) {
            assert!(!want.status.success(), "{text}: kubectl took it: {}", stdout(&want));
            assert!(stderr(&want).contains(refusal), "{text}: {}", stderr(&want));
        }
    }
    let Some(want) = kubectl(&["patch", "--local", "-f", &object, "--type", "merge", "-p", "{}", "-o", "json"]) else {
        return;
    };
    assert!(want.status.success(), "kubectl: {}", stderr(&want));
    assert_eq!(got, serde_json::from_slice::<Value>(&want.stdout).unwrap());
}

#[test]
fn yaml_output_reads_back_unchanged_in_kubectl() {
    let object = json_file("widget.json", &yaml_1_1_trap());
    let out = smp(&["apply", "--untyped", "-o", "yaml", &object, "-"], "{}");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let yaml = file("widget.yaml", &stdout(&out)).display().to_string();
    let Some(back) = kubectl(&["patch", "--local", "-f", &yaml, "--type", "merge", "-p", "{}", "-o", "json"]) else {
        return;
    };
    assert!(back.status.success(), "kubectl: {}\n{}", stderr(&back), stdout(&out));
    let back: Value = serde_json::from_slice(&back.stdout).unwrap();
    assert_eq!(back, yaml_1_1_trap(), "{}", stdout(&out));
}

#[test]
fn jsonl_lines_are_bounded_and_the_batch_goes_on() {
    let case = json!({"original": {"a": 1}, "patch": {"b": 2}});
    let long = json!({"original": {"a": "x".repeat(2000)}, "patch": {}});
    let input = format!("{case}\n{long}\n{case}\n{}", "y".repeat(5000));
    let out = smp(&["apply", "--untyped", "--jsonl", "-", "--max-line-bytes", "1K"], &input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answers = lines(&out);
    assert_eq!(answers.len(), 4, "{}", stdout(&out));
    let too_long = json!({"error": "the line is longer than 1024 bytes (see --max-line-bytes)"});
    assert_eq!(answers[0], json!({"result": {"a": 1, "b": 2}}));
    assert_eq!(answers[1], too_long);
    assert_eq!(answers[2], answers[0]);
    assert_eq!(answers[3], too_long);
}

#[test]
fn a_line_larger_than_memory_allows_is_skipped_not_read() {
    // 300 MB on one line, with at most 200 MB of data memory.
    let script = r#"ulimit -d 200000 && exec "$0" "$@""#;
    let mut child = Command::new("sh")
        .args(["-c", script, env!("CARGO_BIN_EXE_smp"), "apply", "--untyped", "--jsonl", "--max-line-bytes", "1M"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..300 {
            stdin.write_all(&chunk)?;
        }
        stdin.write_all(b"\n{\"original\": {}, \"patch\": {\"a\": 1}}\n")
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().expect("smp reads all its input");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answers = lines(&out);
    assert_eq!(answers.len(), 2, "{}", stdout(&out));
    assert!(answers[0]["error"].as_str().unwrap().contains("longer than 1048576 bytes"), "{}", answers[0]);
    assert_eq!(answers[1], json!({"result": {"a": 1}}));
}

#[test]
fn a_closed_stdout_is_an_error() {
    let object = json_file("object.json", &json!({"a": 1}));
    for jsonl in [false, true] {
        let mut args = vec!["apply", "--untyped"];
        let stdin = if jsonl {
            args.push("--jsonl");
            r#"{"original": {}, "patch": {}}"#
        } else {
            args.extend([object.as_str(), "-"]);
            "{}"
        };
        let mut child = Command::new("sh")
            .args(["-c", r#"exec "$0" "$@" >&-"#, env!("CARGO_BIN_EXE_smp")])
            .args(&args)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "--jsonl {jsonl}");
        assert!(stderr(&out).contains("cannot write output: stdout is not open"), "{}", stderr(&out));
    }
}

/// `--jobs 400` under a memory limit (400 stacks of 2 MiB are 800 MB):
/// smp starts at most one thread per core, goes on with fewer where the
/// system refuses one, and answers every case.
#[cfg(unix)]
#[test]
fn jobs_the_system_refuses_are_done_without() {
    let mut child = Command::new("sh")
        .args(["-c", r#"ulimit -v 200000 && exec "$0" "$@""#, env!("CARGO_BIN_EXE_smp")])
        .args(["apply", "--untyped", "--jsonl", "--jobs", "400"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let cases = r#"{"original": {"a": 1}, "patch": {"b": 2}}"#.to_string() + "\n";
    let _ = child.stdin.take().unwrap().write_all(cases.repeat(100).as_bytes());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(lines(&out), vec![json!({"result": {"a": 1, "b": 2}}); 100]);
}

/// What smp writes on stderr or stdout that cannot be written: an error
/// exit, never a panic (101) nor a success that lost its text. stderr is
/// `/dev/full` (ENOSPC) or a pipe whose reader is gone (EPIPE).
#[cfg(unix)]
#[test]
fn unwritable_stderr_and_stdout_are_error_exits() {
    let object = json_file("object.json", &json!({"a": 1}));
    // A map list without keys: merged whole, with a warning.
    let keyless = TWO_KEY_CRD.replace("                x-kubernetes-list-map-keys: [port, protocol]\n", "");
    let crd = file("crd.yaml", &keyless).display().to_string();
    let cr = json_file("cr.json", &json!({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {}}));
    let run = |args: &[&str], redirect: &str| {
        let script = format!(r#"exec "$0" "$@" {redirect}"#);
        Command::new("sh").args(["-c", &script, env!("CARGO_BIN_EXE_smp")]).args(args).output().unwrap()
    };
    let cases: [(&[&str], &str); 6] = [
        (&["apply", "--untyped", &object, "-p", "{"], "2>/dev/full"),
        (&["apply", "--untyped", &object, "-p", "{\"b\": 1}", "--explain"], "2>/dev/full >/dev/null"),
        (&["apply", "--crd", &crd, "--type", "strategic", &cr, "-p", "{}"], "2>/dev/full >/dev/null"),
        (&["--help"], ">/dev/full"),
        (&["--version"], ">/dev/full"),
        (&["apply", "--untyped", &object, "-p", "{}"], ">/dev/full"),
    ];
    let warned = run(cases[2].0, ">/dev/null");
    assert_eq!(warned.status.code(), Some(0), "{}", stderr(&warned));
    assert!(stderr(&warned).contains("warning: Widget v1.spec.ports"), "{}", stderr(&warned));
    for (args, redirect) in cases {
        let out = run(args, redirect);
        assert_eq!(out.status.code(), Some(1), "{args:?} {redirect}: {}", stderr(&out));
    }
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_smp"))
        .args(["apply", "--untyped", &object, "-p", "{"])
        .stderr(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "an error on a closed pipe");
}

/// A CRD whose `ports` list is keyed by `port` and `protocol`.
const TWO_KEY_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
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
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port, protocol]
                  properties:
                    port: {type: integer}
                    protocol: {type: string}
";

/// Messages name what is at fault: the live object whose last-applied
/// annotation is bad, a CRD file once; `1<>/dev/null` is an open stdout;
/// a batch's `"patch": null` of type json is no operations, as `-p null`.
#[cfg(unix)]
#[test]
fn messages_name_what_is_at_fault() {
    let desired =
        json_file("desired.json", &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}));
    let annotations = json!({"kubectl.kubernetes.io/last-applied-configuration": "{not json"});
    let live = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "annotations": annotations}});
    let live = json_file("live.json", &live);
    let out = smp(&["three-way", "--from-annotation", &desired, &live], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with(&format!("error: current file {live:?}: annotation")), "{}", stderr(&out));

    let out = smp(&["apply", "--crd", "/nonexistent/crd.yaml", &desired, "-p", "{}"], "");
    assert!(stderr(&out).starts_with("error: cannot read CRD file \"/nonexistent/crd.yaml\""), "{}", stderr(&out));

    let out = Command::new("sh")
        .args(["-c", r#"exec "$0" "$@" 1<>/dev/null"#, env!("CARGO_BIN_EXE_smp")])
        .args(["apply", &desired, "-p", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let inline = assert_ok(&smp(&["apply", "--type", "json", &desired, "-p", "null"], ""));
    let batch = smp(&["apply", "--type", "json", "--jsonl"], &format!(r#"{{"original": {inline}, "patch": null}}"#));
    assert_eq!(lines(&batch), [json!({"result": inline})]);
}

#[test]
fn batch_errors_name_the_document() {
    let deep = format!(r#"{{"original": {{}}, "patch": {}}}"#, nested_json(200));
    let input = [
        r#"{"original": [1], "patch": {}}"#.to_string(),
        r#"{"original": {}, "patch": "x"}"#.to_string(),
        r#"{"original": {"a": 1}, "patch": {"a": 1e309}}"#.to_string(),
        r#"{"original": {"a": NaN}, "patch": {}}"#.to_string(),
        deep,
    ]
    .join("\n");
    let out = smp(&["apply", "--untyped", "--jsonl"], &input);
    let errors: Vec<String> = lines(&out).iter().map(|l| l["error"].as_str().unwrap().to_string()).collect();
    assert_eq!(errors[0], "\"original\" must be an object, not a list");
    assert_eq!(errors[1], "\"patch\" must be an object, not a string");
    assert!(errors[2].starts_with("invalid JSON: in \"patch\": number out of range"), "{}", errors[2]);
    assert!(errors[3].starts_with("invalid JSON: in \"original\": expected value"), "{}", errors[3]);
    let want = "invalid JSON: nested deeper than 128 levels at line 1, column 662, in \"patch\"";
    assert_eq!(errors[4], want);
}

/// A Pod patch whose `$setElementOrder` contradicts its list: the
/// reference's message quotes both lists whole.
fn order_mismatch_patch(n: usize) -> Value {
    let env: Vec<Value> = (0..n).map(|i| json!({"name": format!("VAR_{i:06}"), "value": "v"})).collect();
    let order: Vec<Value> = (0..n).rev().map(|i| json!({"name": format!("VAR_{i:06}")})).collect();
    json!({"spec": {"containers": [{"name": "app", "$setElementOrder/env": order, "env": env}]}})
}

#[test]
fn error_texts_are_bounded() {
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                     "spec": {"containers": [{"name": "app", "image": "i"}]}});
    let object = json_file("pod.json", &pod);
    let patch = order_mismatch_patch(20_000);
    let out = smp(&["apply", &object, &json_file("patch.json", &patch)], "");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("The order in patch list") && err.contains(" more bytes)"), "{}", &err[..200]);
    assert!(err.len() < 5_000, "{} bytes", err.len());

    let case = json!({"original": pod, "patch": patch});
    let out = smp(&["apply", "--jsonl"], &format!("{case}\n"));
    let answer = &lines(&out)[0];
    assert!(answer["error"].as_str().unwrap().len() < 5_000, "{} bytes", stdout(&out).len());
}
