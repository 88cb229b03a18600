//! Paths that were once super-linear, held linear: by counting the bytes
//! an operation allocates, or at a size where the quadratic version takes
//! minutes while the linear one takes a fraction of a second (in a debug
//! build). No test here reads a clock.

use serde_json::{Map, Value, json};
use smp_core::{ApplyOptions, Schema, apply, apply_slice, apply_with, json_patch};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting the bytes each thread allocates (tests
/// run on threads of their own, so one test's count is its own).
struct Counting;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to `System`; the count is a plain
// thread-local cell with no destructor, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.with(|a| a.set(a.get() + layout.size()));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.with(|a| a.set(a.get() + new_size));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The bytes `f` allocates on this thread.
fn allocated_by<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATED.with(Cell::get);
    let out = f();
    (out, ALLOCATED.with(Cell::get) - before)
}

#[test]
fn a_json_patch_move_costs_its_paths_not_the_value_moved() {
    // 1,000 moves of a list of 100,000 numbers back and forth, one level
    // deeper and back. Measuring the value on each move would allocate
    // 1,000 times its size; taking it out and putting it in allocates
    // nothing in proportion to it, beyond the copy of the document the
    // patch applies to and the one look at the result.
    let n = 100_000;
    let doc = json!({"a": (0..n).collect::<Vec<_>>(), "b": {}});
    let there = json!({"op": "move", "from": "/a", "path": "/b/a"});
    let back = json!({"op": "move", "from": "/b/a", "path": "/a"});
    let ops: Vec<Value> = (0..500).flat_map(|_| [there.clone(), back.clone()]).collect();
    let ops = Value::Array(ops);
    let (out, bytes) = allocated_by(|| json_patch::apply_ops(&doc, &ops).unwrap());
    assert_eq!(out, doc);
    let (_, one_copy) = allocated_by(|| doc.clone());
    assert!(bytes < 4 * one_copy, "{bytes} bytes allocated; one copy of the document takes {one_copy}");
}

/// An object of `n` keys `k0` … and the patch that keeps all of them
/// with `$retainKeys` and sets `k0`.
fn retained(n: usize) -> (Value, Value) {
    let names: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    let original: Map<String, Value> = names.iter().map(|k| (k.clone(), json!(1))).collect();
    let patch = json!({"spec": {"$retainKeys": names, "k0": 2}});
    (json!({"spec": original}), patch)
}

#[test]
fn retain_keys_of_a_hundred_thousand_keys_is_linear() {
    // A scan of the list per key: 5 * 10^9 string comparisons.
    let (original, patch) = retained(100_000);
    let out = apply(&original, &patch, Schema::Untyped).unwrap();
    assert_eq!(out["spec"].as_object().unwrap().len(), 100_000);
    assert_eq!(out["spec"]["k0"], json!(2));
    // The bytes entry point, on its own document model.
    let text =
        apply_slice(&serde_json::to_vec(&original).unwrap(), &serde_json::to_vec(&patch).unwrap(), Schema::Untyped)
            .unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&text).unwrap(), out);
}

/// A list of `n` objects with fields `f0` … `f7`, and a patch naming each
/// element by `$patchMergeKey` with `f0` and one of the seven others (seven
/// distinct field lists, each indexing the whole list once), adding a field.
fn named_by_seven_field_lists(n: usize) -> (Value, Value) {
    let element = |i: usize| Value::Object((0..8).map(|f| (format!("f{f}"), json!(i))).collect::<Map<_, _>>());
    let patch_element = |i: usize| {
        let mut e = element(i);
        e["$patchMergeKey"] = json!(["f0", format!("f{}", 1 + i % 7)]);
        e["changed"] = json!(true);
        e
    };
    (
        json!({"items": (0..n).map(element).collect::<Vec<_>>()}),
        json!({"items": (0..n).map(patch_element).collect::<Vec<_>>()}),
    )
}

#[test]
fn patch_merge_key_with_several_field_lists_allocates_in_proportion_to_the_list() {
    // Ten times the elements, about ten times the bytes (a hundred times
    // if each element were matched by a scan or an index built per element).
    let options = ApplyOptions { patch_merge_key: true, ..Default::default() };
    let bytes = |n: usize| {
        let (original, patch) = named_by_seven_field_lists(n);
        let (out, bytes) = allocated_by(|| apply_with(&original, &patch, Schema::Untyped, options).unwrap());
        let items = out["items"].as_array().unwrap();
        assert_eq!(items.len(), n);
        assert!(items.iter().all(|e| e["changed"] == json!(true) && e.get("$patchMergeKey").is_none()));
        bytes
    };
    let (small, large) = (bytes(500), bytes(5_000));
    assert!(large < 13 * small, "{small} bytes for 500 elements, {large} for 5,000");
}
