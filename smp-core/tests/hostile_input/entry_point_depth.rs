//! One depth rule for every public entry point of smp-core that takes a
//! document or a typed value: input nested deeper than [`MAX_DEPTH`] is
//! refused with `TooDeep(MAX_DEPTH)` before anything recurses into it (shown
//! with 10,000 levels on a thread with 2 MiB of stack, where a recursion
//! would overflow), and input nested exactly `MAX_DEPTH` levels is not
//! refused for its depth.
//!
//! [`ENTRY_POINTS`] lists them (the test prints the list it covers).
//! `every_public_function_taking_a_document_is_listed` reads the sources:
//! a public function that takes a document (a `Value`, a `Map`, JSON text,
//! a compact document, a JSON patch, a typed value) must be listed there,
//! or in [`NOT_ENTRY_POINTS`] with the reason it needs no check.
//!
//! JSON text is read by a reader that stops at 127 levels (as serde_json
//! does): the text entry points refuse 10,000 levels with its error.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use smp_core::unstable::read_members;
use smp_core::{
    ApplyOptions, DiffOptions, ErrorKind, MAX_DEPTH, OpenApi, Precondition, Schema, StrategicMerge, WithOptions,
    json_patch, merge_patch,
};
use smp_core::{apply_slice, diff_slice, three_way_slice};

/// `levels` nested objects `{"a": {"a": ... 1}}`, built without recursion.
fn doc(levels: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..levels {
        let mut m = Map::new();
        m.insert("a".into(), v);
        v = Value::Object(m);
    }
    v
}

/// Drops a deep value without recursing (serde_json's drop recurses).
fn dismantle(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v)),
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
}

/// The text of [`doc`].
fn text(levels: usize) -> Vec<u8> {
    let mut t = "{\"a\":".repeat(levels).into_bytes();
    t.push(b'1');
    t.extend(std::iter::repeat_n(b'}', levels));
    t
}

/// A recursive derived type: each node is one object level of its JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Node {
    value: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    child: Option<Box<Node>>,
}

/// A chain of nodes whose JSON nests `levels` objects, built without
/// recursion.
fn chain(levels: usize) -> Node {
    let mut node = Node { value: 1, child: None };
    for _ in 1..levels {
        node = Node { value: 0, child: Some(Box::new(node)) };
    }
    node
}

fn drop_chain(node: Node) {
    let mut next = node.child;
    while let Some(mut n) = next {
        next = n.child.take();
    }
}

/// The patch `{"child": {"child": ...}}` for a [`Node`], `levels` deep.
fn node_patch(levels: usize) -> Value {
    let mut v = json!({"value": 2});
    for _ in 1..levels {
        v = Value::Object(Map::from_iter([("child".to_string(), v)]));
    }
    v
}

/// `[{"op": "add", "path": "/a", "value": value}]`, put together without
/// `json!`, which serialises (recursively) what it is given.
fn add_op(value: Value) -> Value {
    let mut op = json!({"op": "add", "path": "/a"});
    op["value"] = value;
    Value::Array(vec![op])
}

/// Whether the result is the depth error.
fn too_deep<T>(r: smp_core::Result<T>) -> bool {
    matches!(r, Err(e) if e.kind == ErrorKind::TooDeep(MAX_DEPTH))
}

const U: Schema<'static> = Schema::Untyped;

/// Runs `f` with a value nested `levels` deep, which it gets back to drop.
fn with_doc(levels: usize, f: impl FnOnce(&Value) -> bool) -> bool {
    let d = doc(levels);
    let refused = f(&d);
    dismantle(d);
    refused
}

fn with_chain(levels: usize, f: impl FnOnce(&Node) -> bool) -> bool {
    let c = chain(levels);
    let refused = f(&c);
    drop_chain(c);
    refused
}

/// An entry point and how it is called with input `levels` deep (at one
/// place: the document, the patch, ...); `true` when it is refused as too
/// deep.
struct EntryPoint {
    name: &'static str,
    refused: fn(usize) -> bool,
}

const fn entry(name: &'static str, refused: fn(usize) -> bool) -> EntryPoint {
    EntryPoint { name, refused }
}

/// Every entry point, with each of its document arguments deep in turn.
const ENTRY_POINTS: &[EntryPoint] = &[
    entry("apply (original)", |n| with_doc(n, |d| too_deep(smp_core::apply(d, &json!({}), U)))),
    entry("apply (patch)", |n| with_doc(n, |d| too_deep(smp_core::apply(&json!({}), d, U)))),
    entry("apply_with (original)", |n| {
        with_doc(n, |d| too_deep(smp_core::apply_with(d, &json!({}), U, ApplyOptions::default())))
    }),
    entry("apply_with (patch)", |n| {
        with_doc(n, |d| too_deep(smp_core::apply_with(&json!({}), d, U, ApplyOptions::default())))
    }),
    entry("apply_owned (original)", |n| {
        too_deep(smp_core::apply_owned(doc(n), &json!({}), U, ApplyOptions::default()))
    }),
    entry("apply_owned (patch)", |n| {
        with_doc(n, |d| too_deep(smp_core::apply_owned(json!({}), d, U, ApplyOptions::default())))
    }),
    entry("apply_in_place (target)", |n| {
        let mut d = doc(n);
        let refused = too_deep(smp_core::apply_in_place(&mut d, &json!({}), U));
        dismantle(d);
        refused
    }),
    entry("apply_in_place (patch)", |n| with_doc(n, |d| too_deep(smp_core::apply_in_place(&mut json!({}), d, U)))),
    entry("merge_patches", |n| {
        let patches = [json!({}), doc(n)];
        let refused = too_deep(smp_core::merge_patches(&patches, U));
        patches.into_iter().for_each(dismantle);
        refused
    }),
    entry("diff (original)", |n| with_doc(n, |d| too_deep(smp_core::diff(d, &json!({}), U)))),
    entry("diff (modified)", |n| with_doc(n, |d| too_deep(smp_core::diff(&json!({}), d, U)))),
    entry("diff_with", |n| with_doc(n, |d| too_deep(smp_core::diff_with(&json!({}), d, U, DiffOptions::default())))),
    entry("diff_checked (original)", |n| {
        with_doc(n, |d| too_deep(smp_core::diff_checked(d, &json!({}), U, DiffOptions::default())))
    }),
    entry("diff_checked (modified)", |n| {
        with_doc(n, |d| too_deep(smp_core::diff_checked(&json!({}), d, U, DiffOptions::default())))
    }),
    entry("three_way (original)", |n| {
        with_doc(n, |d| too_deep(smp_core::three_way(d, &json!({}), &json!({}), U, Default::default())))
    }),
    entry("three_way (modified)", |n| {
        with_doc(n, |d| too_deep(smp_core::three_way(&json!({}), d, &json!({}), U, Default::default())))
    }),
    entry("three_way (current)", |n| {
        with_doc(n, |d| too_deep(smp_core::three_way(&json!({}), &json!({}), d, U, Default::default())))
    }),
    entry("check", |n| with_doc(n, |d| too_deep(smp_core::check(d, U)))),
    entry("check_nesting", |n| with_doc(n, |d| too_deep(smp_core::check_nesting(d)))),
    entry("has_conflicts", |n| with_doc(n, |d| too_deep(smp_core::has_conflicts(&json!({}), d)))),
    entry("merging_maps_have_conflicts", |n| {
        with_doc(n, |d| too_deep(smp_core::merging_maps_have_conflicts(d, &json!({}), U)))
    }),
    entry("check_preconditions", |n| {
        with_doc(n, |d| too_deep(smp_core::check_preconditions(d, &Precondition::KUBECTL)))
    }),
    entry("merge_patch::create", |n| with_doc(n, |d| too_deep(merge_patch::create(&json!({}), d)))),
    entry("merge_patch::three_way", |n| {
        with_doc(n, |d| too_deep(merge_patch::three_way(&json!({}), &json!({}), d, &[])))
    }),
    entry("merge_patch::apply (document)", |n| with_doc(n, |d| too_deep(merge_patch::apply(d, &json!({}))))),
    entry("merge_patch::apply (patch)", |n| with_doc(n, |d| too_deep(merge_patch::apply(&json!({}), d)))),
    entry("json_patch::diff", |n| with_doc(n, |d| too_deep(json_patch::diff(&json!({}), d)))),
    entry("json_patch::guarded", |n| {
        with_doc(n, |d| too_deep(json_patch::guarded(&json!({"metadata": {"resourceVersion": "1"}}), d)))
    }),
    entry("json_patch::parse", |n| {
        let ops = add_op(doc(n - 2));
        let refused = too_deep(json_patch::parse(&ops));
        dismantle(ops);
        refused
    }),
    entry("json_patch::apply (document)", |n| {
        with_doc(n, |d| too_deep(json_patch::apply(d, &json_patch::Patch(vec![]))))
    }),
    entry("json_patch::apply (patch)", |n| {
        // Written out, the value sits in an operation in the list.
        let mut patch = json_patch::parse(&json!([{"op": "add", "path": "/b", "value": 1}])).unwrap();
        if let json_patch::PatchOperation::Add(add) = &mut patch.0[0] {
            add.value = doc(n - 2);
        }
        let refused = too_deep(json_patch::apply(&json!({}), &patch));
        for op in patch.0 {
            if let json_patch::PatchOperation::Add(add) = op {
                dismantle(add.value);
            }
        }
        refused
    }),
    entry("json_patch::apply_ops (document)", |n| with_doc(n, |d| too_deep(json_patch::apply_ops(d, &json!([]))))),
    entry("json_patch::apply_ops (operations)", |n| {
        let ops = add_op(doc(n - 2));
        let refused = too_deep(json_patch::apply_ops(&json!({}), &ops));
        dismantle(ops);
        refused
    }),
    entry("OpenApi::from_value", |n| {
        OpenApi::from_value(doc(n)).is_err_and(|e| e.to_string().contains(&format!("deeper than {MAX_DEPTH}")))
    }),
    // Typed values: a recursive derived type, and JSON as a typed value.
    entry("StrategicMerge::diff", |n| with_chain(n, |c| too_deep(c.diff(&chain(1))))),
    entry("StrategicMerge::diff_if_changed", |n| with_chain(n, |c| too_deep(chain(1).diff_if_changed(c)))),
    entry("StrategicMerge::apply (value)", |n| with_chain(n, |c| too_deep(c.apply(&json!({}))))),
    entry("StrategicMerge::apply (patch)", |n| with_doc(n, |d| too_deep(json!({}).apply(d)))),
    entry("StrategicMerge::apply (a patch for the type)", |n| {
        let patch = node_patch(n);
        let refused = too_deep(chain(1).apply(&patch));
        dismantle(patch);
        refused
    }),
    entry("StrategicMerge::apply_in_place", |n| {
        let mut c = chain(n);
        let refused = too_deep(c.apply_in_place(&json!({})));
        drop_chain(c);
        refused
    }),
    entry("StrategicMerge::three_way", |n| {
        with_chain(n, |c| too_deep(chain(1).three_way(c, &chain(1), Default::default())))
    }),
    entry("typed::check_depth", |n| with_chain(n, |c| too_deep(smp_core::typed::check_depth(c)))),
    entry("WithOptions::diff_with", |n| with_chain(n, |c| too_deep(chain(1).diff_with(c, DiffOptions::default())))),
    entry("WithOptions::diff_checked", |n| {
        with_chain(n, |c| too_deep(c.diff_checked(&chain(1), DiffOptions::default())))
    }),
    entry("WithOptions::apply_with (value)", |n| {
        with_chain(n, |c| too_deep(c.apply_with(&json!({}), ApplyOptions::default())))
    }),
    entry("WithOptions::apply_with (patch)", |n| {
        with_doc(n, |d| too_deep(chain(1).apply_with(d, ApplyOptions::default())))
    }),
    entry("WithOptions::three_way_with", |n| {
        with_chain(n, |c| too_deep(c.three_way_with(&chain(1), &chain(1), Default::default())))
    }),
    entry("WithOptions::check", |n| with_chain(n, |c| too_deep(c.check()))),
];

/// The entry points that read JSON text, refused at 10,000 levels by the
/// reader (127 levels at most).
const TEXT_ENTRY_POINTS: &[EntryPoint] = &[
    entry("decode", |n| smp_core::decode(&text(n)).is_err()),
    entry("unstable::compact::decode", |n| smp_core::unstable::compact::decode(&text(n)).is_err()),
    entry("apply_slice", |n| apply_slice(&text(n), b"{}", U).is_err()),
    entry("diff_slice", |n| diff_slice(b"{}", &text(n), U).is_err()),
    entry("three_way_slice", |n| three_way_slice(b"{}", b"{}", &text(n), U, Default::default()).is_err()),
    entry("unstable::read_members", |n| read_members(&text(n), &mut None).is_err()),
    entry("OpenApi::from_json_slice", |n| OpenApi::from_json_slice(&text(n)).is_err()),
];

/// Public functions that take a document but need no check of their own,
/// and why.
const NOT_ENTRY_POINTS: &[(&str, &str)] = &[
    ("unstable::apply_object", "takes compact documents, which only the text reader makes (127 levels at most)"),
    ("unstable::diff_objects", "takes compact documents, which only the text reader makes"),
    ("unstable::three_way_objects", "takes compact documents, which only the text reader makes"),
    ("unstable::apply_document", "takes compact documents, which only the text reader makes"),
    ("unstable::diff_document", "takes compact documents, which only the text reader makes"),
    ("unstable::three_way_document", "takes compact documents, which only the text reader makes"),
    ("unstable::apply_compact", "takes compact documents, which only the text reader makes"),
    ("unstable::read_guided_members", "the text reader of `read_members`, with guides"),
    ("unstable::compact::decode_guided", "the text reader of `decode`, with a guide"),
    ("unstable::compact::decode_as", "the text reader of `decode`, with a reading"),
    ("unstable::to_json_vec", "a writer of values the caller built (as serde_json::to_vec): reads no document"),
    ("unstable::write_json", "a writer of values the caller built (as serde_json::to_writer): reads no document"),
    ("text::as_go_reads", "cleans the bytes of a text; reads no nesting"),
    ("text::utf8_as_go_reads", "cleans the bytes of a text; reads no nesting"),
    ("text::file_as_kubectl_reads", "cleans the bytes of a text; reads no nesting"),
    ("Precondition::holds", "looks at the patch's top level (or runs the caller's closure)"),
];

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(f).unwrap();
    handle.join().expect("no stack overflow");
}

#[test]
fn every_entry_point_refuses_ten_thousand_levels_and_accepts_the_limit() {
    on_small_stack(|| {
        let mut wrong = Vec::new();
        for e in ENTRY_POINTS {
            if !(e.refused)(10_000) {
                wrong.push(format!("{}: 10,000 levels not refused as too deep", e.name));
            }
            if !(e.refused)(MAX_DEPTH + 1) {
                wrong.push(format!("{}: {} levels not refused as too deep", e.name, MAX_DEPTH + 1));
            }
            if (e.refused)(MAX_DEPTH) {
                wrong.push(format!("{}: {MAX_DEPTH} levels refused as too deep", e.name));
            }
        }
        for e in TEXT_ENTRY_POINTS {
            if !(e.refused)(10_000) {
                wrong.push(format!("{}: 10,000 levels of text not refused", e.name));
            }
        }
        let names: Vec<&str> = ENTRY_POINTS.iter().chain(TEXT_ENTRY_POINTS).map(|e| e.name).collect();
        println!("{} entry points covered:\n  {}", names.len(), names.join("\n  "));
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    });
}

/// The source files of the public API: the modules that are public, and
/// the private ones whose items `lib.rs` re-exports.
const PUBLIC_SOURCES: &[&str] = &[
    "bytes/documents.rs",
    "bytes/members.rs",
    "bytes/mod.rs",
    "bytes/write.rs",
    "check.rs",
    "doc/compact.rs",
    "engine/apply.rs",
    "engine/conflicts.rs",
    "engine/diff.rs",
    "engine/mod.rs",
    "engine/preconditions.rs",
    "engine/three_way.rs",
    "error.rs",
    "json_patch/apply.rs",
    "json_patch/mod.rs",
    "merge_patch.rs",
    "nesting.rs",
    "schema/openapi.rs",
    "text.rs",
    "typed/depth.rs",
    "typed/mod.rs",
    "typed_options.rs",
];

/// Parameter types that carry a document.
const DOCUMENT_TYPES: &[&str] =
    &["Value", "Map<", "[u8]", "Object<", "Patch", "&Self", "&T", "&mut T", "&mut Self", "Node<"];

/// The public functions of `source` that take a document: `pub fn` items
/// (not `pub(crate)`, not `#[doc(hidden)]`) and the provided methods of
/// public traits.
fn functions_taking_documents(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_public_trait = false;
    let mut hidden = false;
    let lines: Vec<&str> = source.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("pub trait ") {
            in_public_trait = true;
        } else if line.starts_with('}') {
            in_public_trait = false;
        }
        if trimmed.starts_with("#[doc(hidden)]") {
            hidden = true;
            continue;
        }
        let is_fn = trimmed.starts_with("pub fn ") || (in_public_trait && trimmed.starts_with("fn "));
        if !is_fn {
            if !trimmed.starts_with("#[") && !trimmed.starts_with("///") {
                hidden = false;
            }
            continue;
        }
        let was_hidden = std::mem::replace(&mut hidden, false);
        if was_hidden {
            continue;
        }
        // The signature, up to its body.
        let signature: String =
            lines[i..].iter().take(12).copied().collect::<Vec<_>>().join(" ").split('{').next().unwrap().to_string();
        let name = signature.split("fn ").nth(1).unwrap().split(['(', '<']).next().unwrap().to_string();
        let params = parameters(&signature).replace("&self", "").replace("&mut self", "");
        if DOCUMENT_TYPES.iter().any(|t| params.contains(t)) {
            found.push(name);
        }
    }
    found
}

/// The text between the first `(` of a signature and its matching `)`.
fn parameters(signature: &str) -> &str {
    let Some(start) = signature.find('(') else { return "" };
    let mut open = 0;
    for (i, c) in signature[start..].char_indices() {
        match c {
            '(' => open += 1,
            ')' if open == 1 => return &signature[start + 1..start + i],
            ')' => open -= 1,
            _ => {}
        }
    }
    ""
}

#[test]
fn every_public_function_taking_a_document_is_listed() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let listed: Vec<&str> = ENTRY_POINTS
        .iter()
        .chain(TEXT_ENTRY_POINTS)
        .map(|e| e.name)
        .chain(NOT_ENTRY_POINTS.iter().map(|(name, _)| *name))
        .collect();
    // A function is listed under its name, with or without a path before
    // it and an argument after it.
    let is_listed = |f: &str| listed.iter().any(|l| l.split(' ').next().unwrap().rsplit("::").next().unwrap() == f);
    let mut missing = Vec::new();
    let mut scanned = Vec::new();
    for file in PUBLIC_SOURCES {
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        for f in functions_taking_documents(&source) {
            if !is_listed(&f) {
                missing.push(format!("{file}: {f}"));
            }
            scanned.push(f);
        }
    }
    assert!(missing.is_empty(), "public functions taking a document, not in the depth test:\n{}", missing.join("\n"));
    // And the scan sees every function the test lists.
    for name in listed {
        let f = name.split(' ').next().unwrap().rsplit("::").next().unwrap();
        assert!(scanned.iter().any(|s| s == f), "{name} not found in the sources");
    }
}
