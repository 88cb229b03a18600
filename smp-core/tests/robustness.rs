//! Hostile input: deep nesting and garbage never crash the engine.

use serde_json::{Map, Value, json};
use smp_core::{Schema, apply, diff, three_way};

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
