//! The kubectl flow refuses documents nested deeper than the engine's limit
//! before it copies or prints them.

use serde_json::{Map, Value, json};
use smp_core::{ErrorKind, MAX_DEPTH, Schema};
use smp_k8s_types::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceValidation, JSONSchemaProps,
};
use smp_k8s_types::kubectl::{apply_patch, merge_apply_patch, typed_apply_patch};

/// `{"a": {"a": ... leaf}}`, built without recursion.
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

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(f).unwrap();
    handle.join().expect("no stack overflow");
}

#[test]
fn apply_patch_refuses_a_hundred_thousand_levels() {
    on_small_stack(|| {
        // Put in place, not through `json!`, which serialises (recursively) what it is given.
        let object = |data: Value| {
            let mut o = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
            o.as_object_mut().unwrap().insert("data".into(), data);
            o
        };
        let deep = object(nested(100_000, json!(1)));
        let shallow = object(json!({"a": "1"}));
        for (live, desired) in [(&deep, &shallow), (&shallow, &deep)] {
            let err = apply_patch(live, desired, Schema::Untyped, true).unwrap_err();
            assert_eq!(err.kind, ErrorKind::TooDeep(MAX_DEPTH));
            let err = merge_apply_patch(live, desired).unwrap_err();
            assert_eq!(err.kind, ErrorKind::TooDeep(MAX_DEPTH));
        }
        dismantle(deep);
    });
}

#[test]
fn typed_apply_patch_refuses_a_deep_custom_resource_schema() {
    on_small_stack(|| {
        let mut props = JSONSchemaProps::default();
        for _ in 0..10_000 {
            props = JSONSchemaProps { not: Some(Box::new(props)), ..Default::default() };
        }
        let mut crd = CustomResourceDefinition::default();
        crd.spec.versions = vec![Default::default()];
        crd.spec.versions[0].schema = Some(CustomResourceValidation { open_api_v3_schema: Some(props) });
        let err = typed_apply_patch(&crd, &CustomResourceDefinition::default(), true).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooDeep(MAX_DEPTH));
        // Dropped without recursion.
        let mut next = crd.spec.versions.pop().and_then(|v| v.schema).and_then(|s| s.open_api_v3_schema);
        while let Some(mut p) = next {
            next = p.not.take().map(|b| *b);
        }
    });
}
