//! Server-side apply against the Go reference's recorded results, and its
//! properties.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Value, json};
use smp_core::ssa::{self, Resource, Schema};

fn data(name: &str) -> String {
    let p = format!("{}/tests/data/ssa/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn schema(name: &str) -> Schema {
    Schema::from_openapi_v3(&serde_json::from_str(&data(name)).unwrap()).unwrap()
}

/// The engine's output line for a reference input line, in the reference
/// command's shape.
fn run(res: &Resource, op: &str, line: &Value) -> Value {
    let live = if line["live"].is_null() { None } else { Some(&line["live"]) };
    let now = line["now"].as_str().unwrap_or("2030-01-01T00:00:00Z");
    let manager = line["manager"].as_str().unwrap();
    let r = if op == "ssaapply" {
        ssa::apply(res, live, &line["applied"], manager, line["force"].as_bool().unwrap_or(false), now)
    } else {
        ssa::update(res, live, &line["new"], manager, now)
    };
    match r {
        Ok(r) => json!({"result": r}),
        Err(ssa::Error::Conflicts(c)) => {
            let list: Vec<Value> = c.sorted().iter().map(|c| json!({"manager": c.manager, "field": c.field})).collect();
            json!({"error": c.to_string(), "conflicts": list})
        }
        Err(e) => json!({"error": e.to_string()}),
    }
}

/// Runs a fixture; returns the lines that differ.
fn fixture(doc: &str, definition: &str, cases: &str) -> (usize, Vec<String>) {
    let s = schema(doc);
    let mut bad = Vec::new();
    let text = data(cases);
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        let case: Value = serde_json::from_str(l).unwrap();
        let op = case["op"].as_str().unwrap();
        let obj = if op == "ssaapply" { &case["in"]["applied"] } else { &case["in"]["new"] };
        let res =
            Resource::for_definition(&s, definition, obj["apiVersion"].as_str().zip(obj["kind"].as_str())).unwrap();
        let got = run(&res, op, &case["in"]);
        let want = &case["out"];
        let same = if want["error"].as_str().is_some_and(|e| e.starts_with("failed to decode managed fields:")) {
            // The reference quotes its JSON parser's buffer here; the cause
            // and the entry are what matter.
            got["error"].as_str().is_some_and(|e| e.starts_with("failed to decode managed fields:"))
        } else {
            got == *want
        };
        if !same {
            bad.push(format!("{cases}:{}\n  want {want}\n  got  {got}", i + 1));
        }
    }
    (lines.len(), bad)
}

#[test]
fn deployment_histories_match_the_reference() {
    let (n, bad) = fixture("deployment.openapi.json", "io.k8s.api.apps.v1.Deployment", "deployment.jsonl");
    assert!(bad.is_empty(), "{} of {n} differ:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn pod_histories_match_the_reference() {
    let (n, bad) = fixture("pod.openapi.json", "io.k8s.api.core.v1.Pod", "pod.jsonl");
    // The reference checks an applied object's kind against the field
    // manager's (Pod); this fixture names the definition, so a Service
    // configuration is refused differently: skip that line.
    let bad: Vec<_> = bad.into_iter().filter(|b| !b.contains("Kind=Service")).collect();
    assert!(bad.is_empty(), "{} of {n} differ:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn custom_resource_histories_match_the_reference() {
    let (n, bad) = fixture("widget.openapi.json", "com.example.v1.Widget", "widget.jsonl");
    assert!(bad.is_empty(), "{} of {n} differ:\n{}", bad.len(), bad.join("\n"));
}

// ---------------------------------------------------------------------------
// Properties, over the custom resource's schema.

fn cases() -> u32 {
    std::env::var("SSA_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(48)
}

/// The cases, and the failures kept beside this file
/// (`ssa.proptest-regressions`), whichever test binary it is part of.
fn config() -> ProptestConfig {
    let persistence = FileFailurePersistence::WithSource("proptest-regressions");
    ProptestConfig { failure_persistence: Some(Box::new(persistence)), ..ProptestConfig::with_cases(cases()) }
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
}

fn spec() -> impl Strategy<Value = Value> {
    let name = prop::sample::select(vec!["a", "b", "c", "d"]);
    (
        prop::option::of(0i64..5),
        prop::collection::btree_set(name.clone(), 0..4),
        prop::collection::btree_map(
            name.clone(),
            (prop::option::of(prop::sample::select(vec![80i64, 81])), 0i64..3),
            0..3,
        ),
        prop::collection::btree_map(name.clone(), name.clone(), 0..3),
        prop::option::of(prop::collection::vec(name, 0..3)),
    )
        .prop_map(|(replicas, tags, routes, labels, args)| {
            let mut spec = serde_json::Map::new();
            if let Some(r) = replicas {
                spec.insert("replicas".into(), json!(r));
            }
            if !tags.is_empty() {
                spec.insert("tags".into(), json!(tags));
            }
            if !routes.is_empty() {
                let r: Vec<Value> = routes
                    .iter()
                    .map(|(h, (port, w))| match port {
                        Some(p) => json!({"host": h, "port": p, "weight": w}),
                        None => json!({"host": h, "weight": w}),
                    })
                    .collect();
                spec.insert("routes".into(), Value::Array(r));
            }
            if !labels.is_empty() {
                spec.insert("config".into(), json!({"labels": labels}));
            }
            if let Some(a) = args {
                spec.insert("args".into(), json!(a));
            }
            Value::Object(spec)
        })
}

fn managers(obj: &Value) -> Vec<(String, Value)> {
    obj["metadata"]["managedFields"]
        .as_array()
        .map(|l| l.iter().map(|e| (e["manager"].as_str().unwrap().to_string(), e["fieldsV1"].clone())).collect())
        .unwrap_or_default()
}

proptest! {
    #![proptest_config(config())]

    /// Applying the same configuration twice changes nothing: no entry, no
    /// time, no field.
    #[test]
    fn applying_twice_changes_nothing(a in spec(), b in spec(), force in any::<bool>()) {
        let s = schema("widget.openapi.json");
        let res = Resource::for_definition(&s, "com.example.v1.Widget", None).unwrap();
        let live = ssa::apply(&res, None, &widget(b), "other", false, "2030-01-01T00:00:00Z").unwrap();
        let Ok(once) = ssa::apply(&res, Some(&live), &widget(a.clone()), "me", force, "2030-01-02T00:00:00Z") else {
            return Ok(()); // a conflict: nothing to apply twice
        };
        let twice = ssa::apply(&res, Some(&once), &widget(a), "me", force, "2030-01-03T00:00:00Z").unwrap();
        prop_assert_eq!(once, twice);
    }

    /// After an apply and an apply of the empty configuration by the same
    /// manager, the fields it alone owned are gone: what is left is exactly
    /// what the other manager applied.
    #[test]
    fn applying_nothing_removes_what_only_the_applier_owned(a in spec(), b in spec()) {
        let s = schema("widget.openapi.json");
        let res = Resource::for_definition(&s, "com.example.v1.Widget", None).unwrap();
        let other = ssa::apply(&res, None, &widget(b.clone()), "other", false, "2030-01-01T00:00:00Z").unwrap();
        let mine = ssa::apply(&res, Some(&other), &widget(a), "me", true, "2030-01-02T00:00:00Z").unwrap();
        let empty = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
        let after = ssa::apply(&res, Some(&mine), &empty, "me", false, "2030-01-03T00:00:00Z").unwrap();
        // Only the other manager is left, owning what it owned before.
        let other_before: Vec<_> = managers(&mine).into_iter().filter(|(m, _)| m == "other").collect();
        prop_assert_eq!(managers(&after), other_before);
        // Nothing is left that nobody owns: when the other manager applies
        // nothing too, the spec is gone.
        let none = ssa::apply(&res, Some(&after), &empty, "other", false, "2030-01-04T00:00:00Z").unwrap();
        prop_assert!(none.get("spec").is_none_or(|s| s.as_object().is_some_and(|m| m.is_empty())), "{}", none);
        prop_assert!(managers(&none).is_empty());
    }

    /// Two managers applying the same value share the field: no conflict,
    /// and both own the same set.
    #[test]
    fn two_appliers_of_one_value_share_it(a in spec()) {
        let s = schema("widget.openapi.json");
        let res = Resource::for_definition(&s, "com.example.v1.Widget", None).unwrap();
        let first = ssa::apply(&res, None, &widget(a.clone()), "one", false, "2030-01-01T00:00:00Z").unwrap();
        let second = ssa::apply(&res, Some(&first), &widget(a), "two", false, "2030-01-02T00:00:00Z").unwrap();
        let m = managers(&second);
        prop_assert_eq!(&second["spec"], &first["spec"]);
        if m.len() == 2 {
            prop_assert_eq!(&m[0].1, &m[1].1);
        } else {
            // Nothing but the name and kind was applied: no entry at all.
            prop_assert!(m.is_empty());
        }
    }
}

#[test]
fn conflicts_name_manager_and_field_as_the_server() {
    let s = schema("deployment.openapi.json");
    let res = Resource::for_definition(&s, "io.k8s.api.apps.v1.Deployment", None).unwrap();
    let d = |spec: Value, labels: Value| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "d", "labels": labels}, "spec": spec})
    };
    let c = |img: &str, pull: &str| json!({"template": {"spec": {"containers": [{"name": "web", "image": img, "imagePullPolicy": pull}]}}});
    let live = ssa::apply(
        &res,
        None,
        &d(c("a", "Always"), json!({"app.kubernetes.io/name": "x"})),
        "one",
        false,
        "2030-01-01T00:00:00Z",
    )
    .unwrap();
    let err = ssa::apply(
        &res,
        Some(&live),
        &d(c("a", "Never"), json!({"app.kubernetes.io/name": "y"})),
        "two",
        false,
        "2030-01-02T00:00:00Z",
    )
    .unwrap_err();
    let fields: Vec<String> = err.conflicts().unwrap().sorted().into_iter().map(|c| c.field).collect();
    assert_eq!(
        fields,
        vec![".metadata.labels.app.kubernetes.io/name", ".spec.template.spec.containers[name=\"web\"].imagePullPolicy"]
    );
    assert!(err.to_string().starts_with("Apply failed with 2 conflicts: conflicts with \"one\":\n- "));
    // Forced, the field changes hands and the object is as applied.
    let forced = ssa::apply(
        &res,
        Some(&live),
        &d(c("a", "Never"), json!({"app.kubernetes.io/name": "y"})),
        "two",
        true,
        "2030-01-02T00:00:00Z",
    )
    .unwrap();
    assert_eq!(forced["metadata"]["labels"]["app.kubernetes.io/name"], "y");
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..3).prop_map(|i| json!(i)),
        Just(json!(1.5)),
        prop::sample::select(vec!["a", "b", "host", "80", "k:{}", "f:x"]).prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "spec",
                    "tags",
                    "routes",
                    "host",
                    "port",
                    "args",
                    "config",
                    "metadata",
                    "labels",
                    "managedFields",
                    "x"
                ]),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

proptest! {
    #![proptest_config(config())]

    /// Arbitrary live objects and configurations never panic, and a failed
    /// apply or update returns an error, nothing half-applied.
    #[test]
    fn arbitrary_input_is_an_error_or_a_result(live in any_json(), spec in any_json(), meta in any_json(), force in any::<bool>()) {
        let s = schema("widget.openapi.json");
        let res = Resource::for_definition(&s, "com.example.v1.Widget", None).unwrap();
        let cfg = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta, "spec": spec});
        let before = live.clone();
        let _ = ssa::apply(&res, Some(&live), &cfg, "me", force, "2030-01-01T00:00:00Z");
        let _ = ssa::update(&res, Some(&live), &cfg, "me", "2030-01-01T00:00:00Z");
        prop_assert_eq!(live, before);
    }
}

#[test]
fn deep_documents_are_refused() {
    let s = schema("widget.openapi.json");
    let res = Resource::for_definition(&s, "com.example.v1.Widget", None).unwrap();
    let mut deep = json!(1);
    for _ in 0..300 {
        deep = json!({"x": deep});
    }
    let cfg =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"config": deep}});
    assert!(ssa::apply(&res, None, &cfg, "me", false, "2030-01-01T00:00:00Z").is_err());
    let bad_now = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
    assert!(ssa::apply(&res, None, &bad_now, "me", false, "yesterday").is_err());
}
