//! The project's own fixtures: `tests/fixtures/*.smp`, one file per
//! behaviour area, readable without the reference's vectors.
//!
//! # Format
//!
//! A file is a sequence of blocks separated by blank lines. A block is one
//! or more `#` comment lines, then optionally a case: a kind line and its
//! `key: value` lines. A block of comments only is a note. Every case has a
//! comment saying what it pins down.
//!
//! ```text
//! # null deletes an existing key; a null for an absent key is dropped
//! apply
//! original: {"name":"a","value":"b"}
//! patch:    {"value":null,"other":null}
//! result:   {"name":"a"}
//! ```
//!
//! Values are one line of JSON, except:
//! - keys ending in `-text` hold raw text: as inputs (`original-text:`) the
//!   bytes are decoded as the reference decodes a document (so they may be
//!   invalid on purpose); as outputs (`result-text:`, `patch-text:`) they are
//!   compared byte for byte with the Go `encoding/json` rendering;
//! - `error:` holds a substring of the expected error message, as raw text,
//!   or as a JSON string when it starts with `"` (for `\n`).
//!
//! JSON outputs are compared exactly, object key order aside: an integer
//! (`1`) and a float (`1.0`) differ, as they do in the reference.
//!
//! Kinds and their keys (`schema:` is allowed everywhere it makes sense and
//! names a static schema: `merge-item`, the default, `precision-item`, `pod`,
//! `odd-item` or `untyped`, or `odd-openapi`, a small OpenAPI document):
//!
//! | kind | inputs | expected outcome |
//! | --- | --- | --- |
//! | `apply` | `original`, `patch` | `result` or `error` |
//! | `diff` | `original`, `modified`, options `ignore-deletions`, `ignore-changes-and-additions`, `set-element-order` (default true), preconditions | `patch` or `error`; optional `result` = apply(original, patch) |
//! | `three-way` | `original`, `modified`, `current`, `overwrite`, preconditions | `patch`, `error` or `conflict: true` (then `patch` is the overwrite outcome); optional `result` = apply(current, patch) |
//! | `merge-patches` | `patches` (a JSON array) | `result` or `error` |
//! | `conflicts` | `left`, `right` (SMP-aware) | `conflict: true/false` or `error` |
//! | `has-conflicts` | `left`, `right` (any JSON, checked both ways) | `conflict: true/false` |
//! | `preconditions` | `patch`, preconditions | `holds: true` or `error` |
//!
//! Preconditions are `require-unchanged: "<key>"` and
//! `require-metadata-unchanged: "<key>"`, repeatable, checked in order.

use serde_json::Value;
use smp_core::unstable::{normalize_numbers, to_go_json};
use smp_core::{
    DiffOptions, Precondition, Schema, Shape, StructSchema, ThreeWayOptions, apply, check_preconditions, decode,
    diff_with, has_conflicts, merge_patches, merging_maps_have_conflicts, three_way,
};
use smp_tests::merge_item::{MERGE_ITEM, PRECISION_ITEM};
use smp_tests::schema_tables::{field, scalar, scalars, string_map};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------
// Schemas

/// A small subset of a Pod, with the patch metadata of the Kubernetes
/// types: containers keyed by name, ports keyed by an integer
/// (`containerPort`), finalizers as a set of strings, volumes as a keyed
/// list with `retainKeys`, and atomic lists (`args`, `tolerations`).
static POD: StructSchema = StructSchema {
    name: "Pod",
    fields: &[
        field("apiVersion", "", "", scalar),
        field("kind", "", "", scalar),
        field("metadata", "", "", || Shape::Struct(&OBJECT_META)),
        field("spec", "", "", || Shape::Struct(&POD_SPEC)),
    ],
};

static OBJECT_META: StructSchema = StructSchema {
    name: "ObjectMeta",
    fields: &[
        field("name", "", "", scalar),
        field("labels", "", "", string_map),
        field("annotations", "", "", string_map),
        field("finalizers", "merge", "", scalars),
    ],
};

static POD_SPEC: StructSchema = StructSchema {
    name: "PodSpec",
    fields: &[
        field("containers", "merge", "name", || Shape::List(|| Shape::Struct(&CONTAINER))),
        field("volumes", "merge,retainKeys", "name", || Shape::List(|| Shape::Struct(&VOLUME))),
        field("tolerations", "", "", || Shape::List(|| Shape::Struct(&TOLERATION))),
        field("nodeSelector", "", "", string_map),
        field("restartPolicy", "", "", scalar),
    ],
};

static CONTAINER: StructSchema = StructSchema {
    name: "Container",
    fields: &[
        field("name", "", "", scalar),
        field("image", "", "", scalar),
        field("args", "", "", scalars),
        field("ports", "merge", "containerPort", || Shape::List(|| Shape::Struct(&CONTAINER_PORT))),
        field("env", "merge", "name", || Shape::List(|| Shape::Struct(&ENV_VAR))),
    ],
};

static CONTAINER_PORT: StructSchema = StructSchema {
    name: "ContainerPort",
    fields: &[field("containerPort", "", "", scalar), field("protocol", "", "", scalar), field("name", "", "", scalar)],
};

static ENV_VAR: StructSchema =
    StructSchema { name: "EnvVar", fields: &[field("name", "", "", scalar), field("value", "", "", scalar)] };

static VOLUME: StructSchema = StructSchema {
    name: "Volume",
    fields: &[
        field("name", "", "", scalar),
        field("emptyDir", "", "", || Shape::Struct(&EMPTY_DIR)),
        field("hostPath", "", "", || Shape::Struct(&HOST_PATH)),
    ],
};

static EMPTY_DIR: StructSchema =
    StructSchema { name: "EmptyDirVolumeSource", fields: &[field("medium", "", "", scalar)] };

static HOST_PATH: StructSchema = StructSchema {
    name: "HostPathVolumeSource",
    fields: &[field("path", "", "", scalar), field("type", "", "", scalar)],
};

static TOLERATION: StructSchema = StructSchema {
    name: "Toleration",
    fields: &[field("key", "", "", scalar), field("operator", "", "", scalar), field("effect", "", "", scalar)],
};

/// Field metadata the Kubernetes types never use, to reach the lookup and
/// strategy errors: a strategy list the reference cannot read, an unknown
/// strategy word, and a list of lists.
static ODD_ITEM: StructSchema = StructSchema {
    name: "OddItem",
    fields: &[
        field("wordStrategy", "bogus", "", scalars),
        field("matrix", "merge", "", || Shape::List(scalars)),
        field("name", "", "", scalar),
    ],
};

/// Static schemas are parsed at compile time, so a strategy list the
/// reference cannot read only comes from a document, as here.
fn odd_openapi() -> Schema<'static> {
    static DOC: std::sync::OnceLock<smp_core::OpenApi> = std::sync::OnceLock::new();
    let doc = DOC.get_or_init(|| {
        smp_core::OpenApi::from_value(serde_json::json!({"openapi": "3.0.0", "components": {"schemas": {"OddItem": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "badStrategy": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/OddItem"},
                    "x-kubernetes-patch-strategy": "merge,replace",
                    "x-kubernetes-patch-merge-key": "name",
                },
            },
        }}}}))
        .expect("a valid document")
    });
    doc.definition("OddItem").expect("defined")
}

fn schema_named(name: &str) -> Option<Schema<'static>> {
    Some(match name {
        "merge-item" => Schema::of_struct(&MERGE_ITEM),
        "precision-item" => Schema::of_struct(&PRECISION_ITEM),
        "pod" => Schema::of_struct(&POD),
        "odd-item" => Schema::of_struct(&ODD_ITEM),
        "odd-openapi" => odd_openapi(),
        "untyped" => Schema::Untyped,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// Parsing

const KINDS: &[&str] = &["apply", "diff", "three-way", "merge-patches", "conflicts", "has-conflicts", "preconditions"];

const PRECONDITION_KEYS: &[&str] = &["require-unchanged", "require-metadata-unchanged"];

/// The keys a kind accepts.
fn allowed_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "apply" => &["schema", "original", "original-text", "patch", "patch-text", "result", "result-text", "error"],
        "diff" => &[
            "schema",
            "original",
            "original-text",
            "modified",
            "modified-text",
            "ignore-deletions",
            "ignore-changes-and-additions",
            "set-element-order",
            "require-unchanged",
            "require-metadata-unchanged",
            "patch",
            "patch-text",
            "error",
            "result",
            "result-text",
        ],
        "three-way" => &[
            "schema",
            "original",
            "original-text",
            "modified",
            "modified-text",
            "current",
            "current-text",
            "overwrite",
            "require-unchanged",
            "require-metadata-unchanged",
            "patch",
            "patch-text",
            "conflict",
            "error",
            "result",
            "result-text",
        ],
        "merge-patches" => &["schema", "patches", "result", "error"],
        "conflicts" => &["schema", "left", "right", "conflict", "error"],
        "has-conflicts" => &["left", "right", "conflict"],
        "preconditions" => &["patch", "require-unchanged", "require-metadata-unchanged", "holds", "error"],
        _ => &[],
    }
}

struct Field {
    key: String,
    value: String,
    line: usize,
}

struct Case {
    file: String,
    line: usize,
    comment: String,
    kind: String,
    fields: Vec<Field>,
}

impl Case {
    fn get(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.key == key)
    }

    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn loc(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// Parses one fixture file into cases; fixture mistakes are reported with
/// their `file:line`.
fn parse_file(name: &str, text: &str) -> (Vec<Case>, Vec<String>) {
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    let mut comment: Vec<String> = Vec::new();
    let mut current: Option<Case> = None;
    let finish = |current: &mut Option<Case>, comment: &mut Vec<String>, cases: &mut Vec<Case>| {
        if let Some(case) = current.take() {
            cases.push(case);
        }
        comment.clear();
    };
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_end();
        let at = format!("{name}:{line_no}");
        if line.trim().is_empty() {
            finish(&mut current, &mut comment, &mut cases);
        } else if let Some(c) = line.strip_prefix('#') {
            if current.is_some() {
                errors.push(format!("{at}: a comment inside a case (separate cases with a blank line)"));
            } else {
                comment.push(c.trim().to_string());
            }
        } else if current.is_none() {
            if !KINDS.contains(&line) {
                errors.push(format!("{at}: expected a case kind ({}), found {line:?}", KINDS.join(", ")));
                // Skip the rest of this block.
                current = Some(Case {
                    file: name.into(),
                    line: line_no,
                    comment: String::new(),
                    kind: "?".into(),
                    fields: vec![],
                });
                continue;
            }
            if comment.is_empty() {
                errors.push(format!("{at}: a case without a comment saying what it pins down"));
            }
            current = Some(Case {
                file: name.into(),
                line: line_no,
                comment: comment.join(" "),
                kind: line.to_string(),
                fields: Vec::new(),
            });
        } else if let Some(case) = current.as_mut() {
            if case.kind == "?" {
                continue;
            }
            let Some((key, value)) = line.split_once(':') else {
                errors.push(format!("{at}: expected `key: value`, found {line:?}"));
                continue;
            };
            let key = key.trim();
            if !allowed_keys(&case.kind).contains(&key) {
                errors.push(format!("{at}: unknown key {key:?} for a case of kind {}", case.kind));
                continue;
            }
            if case.has(key) && !PRECONDITION_KEYS.contains(&key) {
                errors.push(format!("{at}: duplicate key {key:?}"));
                continue;
            }
            case.fields.push(Field { key: key.to_string(), value: value.trim().to_string(), line: line_no });
        }
    }
    finish(&mut current, &mut comment, &mut cases);
    // Keep the well-formed cases; report the others.
    cases.retain(|case| {
        case.kind != "?" && check_shape(case).map_err(|e| errors.push(format!("{}: {e}", case.loc()))).is_ok()
    });
    (cases, errors)
}

/// Exactly one of the given keys (or, with `optional`, at most one).
fn one_of(case: &Case, keys: &[&str], optional: bool) -> Result<(), String> {
    let n = keys.iter().filter(|k| case.has(k)).count();
    match n {
        1 => Ok(()),
        0 if optional => Ok(()),
        _ => Err(format!(
            "a case of kind {} needs {} of {}",
            case.kind,
            if optional { "at most one" } else { "exactly one" },
            keys.join(", ")
        )),
    }
}

/// An optional `result` (of applying the expected patch) needs that patch.
fn result_needs_patch(case: &Case) -> Result<(), String> {
    one_of(case, &["result", "result-text"], true)?;
    let has_result = case.has("result") || case.has("result-text");
    if has_result && !(case.has("patch") || case.has("patch-text")) {
        return Err("a `result` needs the expected `patch` it applies".into());
    }
    Ok(())
}

/// The required inputs and outcomes of each kind.
fn check_shape(case: &Case) -> Result<(), String> {
    match case.kind.as_str() {
        "apply" => {
            one_of(case, &["original", "original-text"], false)?;
            one_of(case, &["patch", "patch-text"], false)?;
            one_of(case, &["result", "result-text", "error"], false)
        }
        "diff" => {
            one_of(case, &["original", "original-text"], false)?;
            one_of(case, &["modified", "modified-text"], false)?;
            one_of(case, &["patch", "patch-text", "error"], false)?;
            result_needs_patch(case)
        }
        "three-way" => {
            one_of(case, &["original", "original-text"], false)?;
            one_of(case, &["modified", "modified-text"], false)?;
            one_of(case, &["current", "current-text"], false)?;
            if case.has("conflict") {
                if case.get("conflict").unwrap().value != "true" {
                    return Err("`conflict:` of a three-way case can only be `true`".into());
                }
                if case.has("overwrite") || case.has("error") {
                    return Err(
                        "`conflict: true` runs without overwrite, then with it; drop `overwrite`/`error`".into()
                    );
                }
                one_of(case, &["patch", "patch-text"], true)?;
            } else {
                one_of(case, &["patch", "patch-text", "error"], false)?;
            }
            result_needs_patch(case)
        }
        "merge-patches" => {
            one_of(case, &["patches"], false)?;
            one_of(case, &["result", "error"], false)
        }
        "conflicts" => {
            one_of(case, &["left"], false)?;
            one_of(case, &["right"], false)?;
            one_of(case, &["conflict", "error"], false)
        }
        "has-conflicts" => {
            one_of(case, &["left"], false)?;
            one_of(case, &["right"], false)?;
            one_of(case, &["conflict"], false)
        }
        "preconditions" => {
            one_of(case, &["patch"], false)?;
            one_of(case, &["holds", "error"], false)?;
            match case.get("holds") {
                Some(f) if f.value != "true" => Err("`holds:` can only be `true`; write the expected `error:`".into()),
                _ => Ok(()),
            }
        }
        other => Err(format!("unknown kind {other}")),
    }
}

// ---------------------------------------------------------------------------
// Values

/// A JSON value from a fixture line, with numbers typed as the reference
/// decodes them.
fn json(f: &Field) -> Result<Value, String> {
    let mut v: Value =
        serde_json::from_str(&f.value).map_err(|e| format!("line {}: bad JSON for {:?}: {e}", f.line, f.key))?;
    normalize_numbers(&mut v);
    Ok(v)
}

fn boolean(f: &Field) -> Result<bool, String> {
    match f.value.as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(format!("line {}: {:?} must be true or false, found {other:?}", f.line, f.key)),
    }
}

/// An input document: `key:` holds a JSON object, `key-text:` raw bytes
/// that are decoded as the reference decodes them (errors included).
fn input_doc(case: &Case, key: &str) -> Result<smp_core::Result<Value>, String> {
    if let Some(f) = case.get(key) {
        let v = json(f)?;
        if !v.is_object() {
            return Err(format!("line {}: {key:?} must be a JSON object (use {key}-text for other input)", f.line));
        }
        return Ok(Ok(v));
    }
    let f = case.get(&format!("{key}-text")).ok_or_else(|| format!("missing {key}"))?;
    Ok(decode(f.value.as_bytes()))
}

/// The expected error substring of an `error:` line.
fn error_text(f: &Field) -> Result<String, String> {
    if f.value.starts_with('"') {
        serde_json::from_str::<String>(&f.value).map_err(|e| format!("line {}: bad JSON string: {e}", f.line))
    } else {
        Ok(f.value.clone())
    }
}

fn show(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Compares an outcome with whichever of `<key>`, `<key>-text` and `error`
/// the case has.
fn judge(case: &Case, key: &str, got: &smp_core::Result<Value>) -> Result<(), String> {
    if let Some(f) = case.get(key) {
        let want = json(f)?;
        return match got {
            Ok(v) if *v == want => Ok(()),
            Ok(v) => Err(format!("{key}:\n     got  {}\n     want {}", show(v), show(&want))),
            Err(e) => Err(format!("{key}: got error {:?}, want {}", e.to_string(), show(&want))),
        };
    }
    if let Some(f) = case.get(&format!("{key}-text")) {
        return match got {
            Ok(v) if to_go_json(v) == f.value => Ok(()),
            Ok(v) => Err(format!("{key}-text:\n     got  {}\n     want {}", to_go_json(v), f.value)),
            Err(e) => Err(format!("{key}-text: got error {:?}, want {}", e.to_string(), f.value)),
        };
    }
    if let Some(f) = case.get("error") {
        let want = error_text(f)?;
        return match got {
            Err(e) if e.to_string().contains(&want) && !e.is_conflict() => Ok(()),
            Err(e) => Err(format!("error: got {:?}, want it to contain {want:?}", e.to_string())),
            Ok(v) => Err(format!("error: got {}, want an error containing {want:?}", show(v))),
        };
    }
    Ok(())
}

/// The expected patch of a case, as a value (from `patch:` or `patch-text:`).
fn expected_patch(case: &Case) -> Result<Option<Value>, String> {
    if let Some(f) = case.get("patch") {
        return json(f).map(Some);
    }
    if let Some(f) = case.get("patch-text") {
        return decode(f.value.as_bytes()).map(Some).map_err(|e| format!("line {}: patch-text: {e}", f.line));
    }
    Ok(None)
}

fn preconditions(case: &Case) -> Result<Vec<(String, bool)>, String> {
    let mut out = Vec::new();
    for f in &case.fields {
        if PRECONDITION_KEYS.contains(&f.key.as_str()) {
            let key = json(f)?;
            let key = key.as_str().ok_or_else(|| format!("line {}: {} takes a JSON string", f.line, f.key))?;
            out.push((key.to_string(), f.key == "require-metadata-unchanged"));
        }
    }
    Ok(out)
}

fn to_preconditions(list: &[(String, bool)]) -> Vec<Precondition<'_>> {
    list.iter()
        .map(|(k, meta)| if *meta { Precondition::MetadataKeyUnchanged(k) } else { Precondition::KeyUnchanged(k) })
        .collect()
}

// ---------------------------------------------------------------------------
// Running

fn run_case(case: &Case) -> Result<(), String> {
    let schema = match case.get("schema") {
        Some(f) => schema_named(&f.value).ok_or_else(|| format!("line {}: unknown schema {:?}", f.line, f.value))?,
        None => Schema::of_struct(&MERGE_ITEM),
    };
    match case.kind.as_str() {
        "apply" => {
            let got = match (input_doc(case, "original")?, input_doc(case, "patch")?) {
                (Ok(o), Ok(p)) => apply(&o, &p, schema),
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            judge(case, "result", &got)
        }
        "diff" => {
            let flag = |key: &str, default: bool| case.get(key).map_or(Ok(default), boolean);
            let options = DiffOptions {
                set_element_order: flag("set-element-order", true)?,
                ignore_changes_and_additions: flag("ignore-changes-and-additions", false)?,
                ignore_deletions: flag("ignore-deletions", false)?,
                ..Default::default()
            };
            let pre = preconditions(case)?;
            let (original, modified) = (input_doc(case, "original")?, input_doc(case, "modified")?);
            let got = match (&original, &modified) {
                (Ok(o), Ok(m)) => diff_with(o, m, schema, options)
                    .and_then(|p| check_preconditions(&p, &to_preconditions(&pre)).map(|()| p)),
                (Err(e), _) | (_, Err(e)) => Err(e.clone()),
            };
            judge(case, "patch", &got)?;
            // The expected patch, applied to the original.
            if case.has("result") || case.has("result-text") {
                let patch = expected_patch(case)?.ok_or("a result needs an expected patch")?;
                let original = original.map_err(|e| format!("original: {e}"))?;
                judge(case, "result", &apply(&original, &patch, schema))
                    .map_err(|e| format!("apply(original, patch) {e}"))?;
            }
            Ok(())
        }
        "three-way" => {
            let pre = preconditions(case)?;
            let pre = to_preconditions(&pre);
            let overwrite = case.get("overwrite").map_or(Ok(false), boolean)?;
            let (o, m, c) = (input_doc(case, "original")?, input_doc(case, "modified")?, input_doc(case, "current")?);
            let run = |overwrite: bool| match (&o, &m, &c) {
                (Ok(o), Ok(m), Ok(c)) => {
                    three_way(o, m, c, schema, ThreeWayOptions { overwrite, preconditions: &pre, ..Default::default() })
                }
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => Err(e.clone()),
            };
            if case.has("conflict") {
                match run(false) {
                    Err(e) if e.is_conflict() => {}
                    Err(e) => return Err(format!("conflict: got error {:?}, want a conflict", e.to_string())),
                    Ok(p) => return Err(format!("conflict: got patch {}, want a conflict", show(&p))),
                }
                judge(case, "patch", &run(true)).map_err(|e| format!("with overwrite, {e}"))?;
            } else {
                judge(case, "patch", &run(overwrite))?;
            }
            if case.has("result") || case.has("result-text") {
                let patch = expected_patch(case)?.ok_or("a result needs an expected patch")?;
                let current = c.map_err(|e| format!("current: {e}"))?;
                judge(case, "result", &apply(&current, &patch, schema))
                    .map_err(|e| format!("apply(current, patch) {e}"))?;
            }
            Ok(())
        }
        "merge-patches" => {
            let f = case.get("patches").unwrap();
            let Value::Array(patches) = json(f)? else {
                return Err(format!("line {}: patches must be a JSON array", f.line));
            };
            judge(case, "result", &merge_patches(&patches, schema))
        }
        "conflicts" => {
            let (l, r) = (json(case.get("left").unwrap())?, json(case.get("right").unwrap())?);
            let got = merging_maps_have_conflicts(&l, &r, schema);
            match (got, case.get("conflict")) {
                (Ok(b), Some(f)) if b == boolean(f)? => Ok(()),
                (Ok(b), Some(_)) => Err(format!("conflict: got {b}")),
                (Ok(b), None) => Err(format!("got conflict={b}, want an error")),
                (Err(e), None) => {
                    let want = error_text(case.get("error").unwrap())?;
                    if e.to_string().contains(&want) {
                        Ok(())
                    } else {
                        Err(format!("error: got {:?}, want it to contain {want:?}", e.to_string()))
                    }
                }
                (Err(e), Some(_)) => Err(format!("got error {:?}", e.to_string())),
            }
        }
        "has-conflicts" => {
            let (l, r) = (json(case.get("left").unwrap())?, json(case.get("right").unwrap())?);
            let want = boolean(case.get("conflict").unwrap())?;
            for (a, b, dir) in [(&l, &r, "left/right"), (&r, &l, "right/left")] {
                let got = has_conflicts(a, b).map_err(|e| e.to_string())?;
                if got != want {
                    return Err(format!("{dir}: got conflict={got}"));
                }
            }
            Ok(())
        }
        "preconditions" => {
            let patch = json(case.get("patch").unwrap())?;
            let pre = preconditions(case)?;
            let got = check_preconditions(&patch, &to_preconditions(&pre));
            match (got, case.get("error")) {
                (Ok(()), None) => Ok(()),
                (Ok(()), Some(_)) => Err("the preconditions hold, want an error".into()),
                (Err(e), None) => Err(format!("got error {:?}, want the preconditions to hold", e.to_string())),
                (Err(e), Some(f)) => {
                    let want = error_text(f)?;
                    if e.to_string().contains(&want) {
                        Ok(())
                    } else {
                        Err(format!("error: got {:?}, want it to contain {want:?}", e.to_string()))
                    }
                }
            }
        }
        other => Err(format!("unknown kind {other}")),
    }
}

fn fixture_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "smp"))
        .collect();
    files.sort();
    files
}

#[test]
fn fixtures() {
    let (mut passed, mut failed) = (0usize, 0usize);
    let files = fixture_files();
    assert!(!files.is_empty(), "no tests/fixtures/*.smp files");
    for path in files {
        let name = format!("fixtures/{}", path.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let (cases, errors) = parse_file(&name, &text);
        for e in &errors {
            eprintln!("FAIL {e}");
        }
        failed += errors.len();
        if cases.is_empty() {
            eprintln!("FAIL {name}: no cases");
            failed += 1;
        }
        let mut file_failed = 0;
        for case in &cases {
            match run_case(case) {
                Ok(()) => passed += 1,
                Err(why) => {
                    eprintln!("FAIL {} ({}): {why}", case.loc(), case.comment);
                    file_failed += 1;
                }
            }
        }
        failed += file_failed;
        println!("{name}: {} cases, {file_failed} failed", cases.len());
    }
    println!("fixtures: {passed} passed, {failed} failed");
    assert_eq!(failed, 0, "fixture failures (see FAIL lines above)");
}
