//! Hostile input: deep nesting and garbage never crash the engine.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use smp_core::{ErrorKind, MAX_DEPTH, Schema, StrategicMerge, apply, diff, three_way};

/// `{"a": {"a": ... {"a": leaf}}}`, built without recursion.
fn nested(depth: usize, leaf: Value) -> Value {
    let mut v = leaf;
    for _ in 0..depth {
        let mut m = Map::new();
        m.insert("a".into(), v);
        v = Value::Object(m);
    }
    v
}

/// Drops a deep value without recursing (serde_json's drop recurses).
fn dismantle(mut v: Value) {
    let mut stack = vec![];
    loop {
        match v {
            Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v)),
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
        match stack.pop() {
            Some(next) => v = next,
            None => break,
        }
    }
}

#[test]
fn ten_thousand_levels_give_an_error_not_a_stack_overflow() {
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let deep = nested(10_000, json!(1));
            let other = nested(10_000, json!(2));
            let err = apply(&deep, &other, Schema::Untyped).unwrap_err();
            assert!(err.to_string().contains("nested deeper"), "{err}");
            let err = diff(&deep, &other, Schema::Untyped).unwrap_err();
            assert!(err.to_string().contains("nested deeper"), "{err}");
            let err = three_way(&deep, &other, &deep, Schema::Untyped, Default::default()).unwrap_err();
            assert!(err.to_string().contains("nested deeper"), "{err}");
            dismantle(deep);
            dismantle(other);
        })
        .unwrap();
    handle.join().expect("no stack overflow");
}

#[test]
fn the_deepest_accepted_documents_fit_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let a = nested(250, json!({"x": 1}));
            let b = nested(250, json!({"x": 2}));
            let patch = diff(&a, &b, Schema::Untyped).unwrap();
            assert_eq!(apply(&a, &patch, Schema::Untyped).unwrap(), b);
            three_way(&a, &b, &a, Schema::Untyped, Default::default()).unwrap();
        })
        .unwrap();
    handle.join().expect("no stack overflow");
}

#[test]
fn non_object_documents_are_rejected_with_the_reference_error() {
    for bad in [json!([1]), json!("s"), json!(1), json!(true)] {
        let err = apply(&bad, &json!({}), Schema::Untyped).unwrap_err();
        assert_eq!(err.to_string(), "invalid JSON document");
        let err = apply(&json!({}), &bad, Schema::Untyped).unwrap_err();
        assert_eq!(err.to_string(), "invalid JSON document");
    }
    assert_eq!(apply(&Value::Null, &Value::Null, Schema::Untyped).unwrap(), json!({}));
}

/// A recursive derived type: each node is one object level of its JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Node {
    value: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    child: Option<Box<Node>>,
}

/// A chain of `levels` nodes (`levels` nested objects), built and dropped
/// without recursion.
fn chain(levels: usize, leaf: i64) -> Node {
    let mut node = Node { value: leaf, child: None };
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

fn is_too_deep<T: std::fmt::Debug>(r: smp_core::Result<T>) -> bool {
    matches!(r, Err(e) if e.kind == ErrorKind::TooDeep(MAX_DEPTH))
}

/// Runs `f` on a thread with the default 2 MiB stack of spawned threads.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(f).unwrap();
    handle.join().expect("no stack overflow");
}

#[test]
fn typed_entry_points_refuse_ten_thousand_levels() {
    on_small_stack(|| {
        let (a, b) = (chain(10_000, 1), chain(10_000, 2));
        assert!(is_too_deep(a.diff(&b)));
        assert!(is_too_deep(a.three_way(&a, &b, Default::default())));
        assert!(is_too_deep(a.apply(&json!({"value": 3}))));
        let mut c = copy_chain(&a);
        assert!(is_too_deep(c.apply_in_place(&json!({"value": 3}))));
        drop_chain(c);
        drop_chain(a);
        drop_chain(b);
        // Arbitrary JSON as a typed value.
        let (x, y) = (nested(10_000, json!(1)), nested(10_000, json!(2)));
        assert!(is_too_deep(x.diff(&y)));
        assert!(is_too_deep(x.three_way(&x, &y, Default::default())));
        dismantle(x);
        dismantle(y);
    });
}

/// A copy of a chain, made without recursion (a derived `clone` recurses).
fn copy_chain(node: &Node) -> Node {
    let mut values = Vec::new();
    let mut cur = Some(node);
    while let Some(n) = cur {
        values.push(n.value);
        cur = n.child.as_deref();
    }
    let mut copy = Node { value: values.pop().unwrap_or_default(), child: None };
    while let Some(v) = values.pop() {
        copy = Node { value: v, child: Some(Box::new(copy)) };
    }
    copy
}

#[test]
fn typed_diff_accepts_exactly_what_the_engine_accepts() {
    on_small_stack(|| {
        // MAX_DEPTH nested objects are accepted everywhere; one more level
        // is refused everywhere, typed or not.
        for levels in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
            let (a, b) = (chain(levels, 1), chain(levels, 2));
            let (ja, jb) = (serde_json::to_value(&a).unwrap(), serde_json::to_value(&b).unwrap());
            let engine = diff(&ja, &jb, Schema::Static(Node::shape()));
            let typed = a.diff(&b);
            assert_eq!(typed.is_ok(), engine.is_ok(), "{levels} levels: typed {typed:?}");
            assert_eq!(typed.is_ok(), levels <= MAX_DEPTH, "{levels} levels");
            if let Ok(patch) = typed {
                assert_eq!(patch, engine.unwrap());
                assert_eq!(a.apply(&patch).unwrap(), b, "{levels} levels: apply refuses what diff gave");
            } else {
                assert!(is_too_deep(typed), "{levels} levels");
                assert!(is_too_deep(a.apply(&json!({}))), "{levels} levels");
            }
            drop_chain(a);
            drop_chain(b);
        }
    });
}

/// A patch object may hold any number of `$setElementOrder` directives:
/// each one orders its own list exactly as it does alone (and the keys the
/// directives deal with are looked up by hash, not by a scan per key).
#[test]
fn many_ordered_lists_in_one_object_each_apply_as_alone() {
    const LISTS: usize = 5_000;
    let schema = Schema::Untyped;
    let (mut original, mut patch) = (Map::new(), Map::new());
    for i in 0..LISTS {
        original.insert(format!("k{i}"), json!([1, 2, 3]));
        if i % 2 == 0 {
            patch.insert(format!("$setElementOrder/k{i}"), json!([3, 4, 1, 2]));
            patch.insert(format!("k{i}"), json!([4]));
        } else {
            patch.insert(format!("$setElementOrder/k{i}"), json!([3, 1, 2]));
        }
    }
    let (original, patch) = (Value::Object(original), Value::Object(patch));
    let all = apply(&original, &patch, schema).unwrap();
    let bytes = smp_core::apply_slice(original.to_string().as_bytes(), patch.to_string().as_bytes(), schema).unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), all);
    // Untyped lists are replaced; a directive alone reorders its list.
    assert_eq!((&all["k0"], &all["k1"]), (&json!([4]), &json!([3, 1, 2])));
    for i in [0, 1, LISTS / 2, LISTS - 1] {
        let key = format!("k{i}");
        let order = format!("$setElementOrder/{key}");
        let mut alone = Map::new();
        alone.insert(order.clone(), patch[&order].clone());
        if let Some(list) = patch.get(&key) {
            alone.insert(key.clone(), list.clone());
        }
        let one = apply(&json!({&key: original[&key]}), &Value::Object(alone), schema).unwrap();
        assert_eq!(all[&key], one[&key], "{key}");
    }
}
