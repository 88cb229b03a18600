//! Typed strategic merge patches on k8s-openapi values agree with the
//! JSON engine on their serialised form.
//!
//! Choose the Kubernetes version on the command line:
//! `cargo test -p smp-core --features k8s-kinds,k8s-openapi/latest`.
//! The values are written as JSON, as some fields are `Option`s in one
//! version and not in another (`Deployment.spec`).

use k8s_openapi::api::apps::v1::{ControllerRevision, Deployment};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
use serde_json::{Value, json};
use smp_core::{ErrorKind, MAX_DEPTH, Schema, StrategicMerge};

fn deployment_json() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [
                    {
                        "name": "app",
                        "image": "web:1",
                        "env": [{"name": "MODE", "value": "prod"}, {"name": "LOG", "value": "info"}],
                        "ports": [{"containerPort": 8080, "name": "http"}],
                    },
                    {
                        "name": "sidecar",
                        "image": "proxy:1",
                        "env": [{"name": "UPSTREAM", "value": "localhost"}],
                    },
                ]},
            },
        },
    })
}

fn deployment(v: Value) -> Deployment {
    serde_json::from_value(v).unwrap()
}

/// The deployment with `edit` applied to its JSON form.
fn edited(edit: impl FnOnce(&mut Value)) -> Deployment {
    let mut v = deployment_json();
    edit(&mut v);
    deployment(v)
}

fn schema() -> Schema<'static> {
    Schema::Static(Deployment::shape())
}

/// The typed diff is the JSON engine's, and applying it gives `desired`,
/// both typed and through the JSON engine.
fn check(live: &Deployment, desired: &Deployment) -> Value {
    let (live_json, desired_json) = (serde_json::to_value(live).unwrap(), serde_json::to_value(desired).unwrap());
    let patch = live.diff(desired).unwrap();
    assert_eq!(patch, smp_core::diff(&live_json, &desired_json, schema()).unwrap());
    assert_eq!(&live.apply(&patch).unwrap(), desired);
    assert_eq!(smp_core::apply(&live_json, &patch, schema()).unwrap(), desired_json);
    patch
}

#[test]
fn env_change_in_one_of_two_containers() {
    let live = deployment(deployment_json());
    let desired = edited(|v| {
        v["spec"]["template"]["spec"]["containers"][0]["env"] = json!([{"name": "MODE", "value": "debug"}, {"name": "LOG", "value": "info"}, {"name": "TRACE", "value": "1"}]);
    });
    let patch = check(&live, &desired);
    assert_eq!(
        patch,
        json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
            "containers": [{
                "$setElementOrder/env": [{"name": "MODE"}, {"name": "LOG"}, {"name": "TRACE"}],
                "env": [{"name": "MODE", "value": "debug"}, {"name": "TRACE", "value": "1"}],
                "name": "app",
            }],
        }}}})
    );
}

#[test]
fn equal_values_give_an_empty_patch() {
    let live = deployment(deployment_json());
    assert_eq!(live.diff(&live.clone()).unwrap(), json!({}));
}

#[test]
fn removals_reorders_and_quantities() {
    let live = deployment(deployment_json());
    let desired = edited(|v| {
        let containers = v["spec"]["template"]["spec"]["containers"].as_array_mut().unwrap();
        containers.swap(0, 1);
        containers[0].as_object_mut().unwrap().remove("env");
        containers[1]["resources"] = json!({"limits": {"memory": "256Mi", "cpu": "500m"}});
        v["spec"].as_object_mut().unwrap().remove("replicas");
        v["metadata"]["labels"] = json!({"tier": "front"});
    });
    check(&live, &desired);
}

#[test]
fn retain_keys_on_the_deployment_strategy() {
    let live = deployment(deployment_json());
    let desired = edited(|v| v["spec"]["strategy"] = json!({"type": "Recreate"}));
    let patch = check(&live, &desired);
    assert_eq!(patch["spec"]["strategy"], json!({"$retainKeys": ["type"], "rollingUpdate": null, "type": "Recreate"}));
}

#[test]
fn a_patch_written_by_hand() {
    let live = deployment(deployment_json());
    let patch = json!({"spec": {"template": {"spec": {"containers": [
        {"name": "sidecar", "env": [{"name": "UPSTREAM", "$patch": "delete"}]},
        {"name": "new", "image": "new:1"},
    ]}}}});
    let typed = serde_json::to_value(live.apply(&patch).unwrap()).unwrap();
    let untyped = smp_core::apply(&serde_json::to_value(&live).unwrap(), &patch, schema()).unwrap();
    assert_eq!(typed, untyped);
    let names: Vec<&Value> =
        typed["spec"]["template"]["spec"]["containers"].as_array().unwrap().iter().map(|c| &c["name"]).collect();
    assert_eq!(names, ["app", "sidecar", "new"]);
}

/// Equal objects diff to nothing, except where the reference sends
/// something anyway: an unsorted set of scalars gets a `$setElementOrder`
/// (here deep inside the pod template), a replace-strategy object is sent
/// whole. The typed diff skips equal subtrees only when neither is there.
#[test]
fn equal_values_with_the_reference_quirks() {
    let with_unsorted_finalizers = edited(|v| {
        v["spec"]["template"]["metadata"]["finalizers"] = json!(["b.example.com/x", "a.example.com/y"]);
    });
    let patch = check(&with_unsorted_finalizers, &with_unsorted_finalizers.clone());
    assert_eq!(
        patch,
        json!({"spec": {"template": {"metadata": {"$setElementOrder/finalizers": ["b.example.com/x", "a.example.com/y"]}}}})
    );

    let sorted = edited(|v| v["spec"]["template"]["metadata"]["finalizers"] = json!(["a", "b"]));
    assert_eq!(check(&sorted, &sorted.clone()), json!({}));

    use k8s_openapi::api::policy::v1::PodDisruptionBudget;
    let pdb: PodDisruptionBudget = serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    }))
    .unwrap();
    let patch = pdb.diff(&pdb.clone()).unwrap();
    let engine = serde_json::to_value(&pdb).unwrap();
    assert_eq!(patch, smp_core::diff(&engine, &engine, Schema::Static(PodDisruptionBudget::shape())).unwrap());
    assert_eq!(patch, json!({"spec": {"selector": {"matchLabels": {"app": "web"}}}}));
}

/// `JSONSchemaProps` nested `levels` deep through `not`, built and dropped
/// without recursion.
fn schema_chain(levels: usize, description: &str) -> JSONSchemaProps {
    let mut props = JSONSchemaProps { description: Some(description.into()), ..Default::default() };
    for _ in 1..levels {
        props = JSONSchemaProps { not: Some(Box::new(props)), ..Default::default() };
    }
    props
}

fn drop_schema_chain(props: JSONSchemaProps) {
    let mut next = props.not;
    while let Some(mut p) = next {
        next = p.not.take();
    }
}

#[test]
fn a_custom_resource_schema_ten_thousand_levels_deep_is_refused_not_a_stack_overflow() {
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let (a, b) = (schema_chain(10_000, "a"), schema_chain(10_000, "b"));
            let too_deep = |r: smp_core::Result<Value>| matches!(r, Err(e) if e.kind == ErrorKind::TooDeep(MAX_DEPTH));
            assert!(too_deep(a.diff(&b)));
            assert!(too_deep(a.three_way(&b, &b, Default::default())));
            assert!(matches!(a.apply(&json!({})), Err(e) if e.kind == ErrorKind::TooDeep(MAX_DEPTH)));
            drop_schema_chain(a);
            drop_schema_chain(b);
        })
        .unwrap();
    handle.join().expect("no stack overflow");
}

#[test]
fn a_custom_resource_schema_at_the_depth_limit_is_diffed_and_applied() {
    // The typed walk of this large type takes more than the default 2 MiB
    // of stack for 256 levels in unoptimised builds.
    let handle = std::thread::Builder::new()
        .stack_size(64 * 1024 * 1024)
        .spawn(|| {
            let (a, b) = (schema_chain(MAX_DEPTH, "a"), schema_chain(MAX_DEPTH, "b"));
            let patch = a.diff(&b).unwrap();
            let engine = smp_core::diff(
                &serde_json::to_value(&a).unwrap(),
                &serde_json::to_value(&b).unwrap(),
                Schema::Static(JSONSchemaProps::shape()),
            );
            assert_eq!(Ok(patch.clone()), engine);
            assert_eq!(a.apply(&patch).unwrap(), b);
            let (c, d) = (schema_chain(MAX_DEPTH + 1, "a"), schema_chain(MAX_DEPTH + 1, "b"));
            assert!(matches!(c.diff(&d), Err(e) if e.kind == ErrorKind::TooDeep(MAX_DEPTH)));
            for x in [a, b, c, d] {
                drop_schema_chain(x);
            }
        })
        .unwrap();
    handle.join().expect("no stack overflow");
}

fn controller_revision(data: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"}, "revision": 1, "data": data})
}

/// A `ControllerRevision`'s `data` is a `RawExtension`, a Go struct without
/// JSON fields: kubectl (`patch --local`, `edit`) merges scalars, additions
/// and removals below it, and fails on objects or lists on both sides.
#[test]
fn below_a_raw_extension_the_reference_finds_no_field() {
    let live = json!({"a": {"b": 1}, "x": 1, "l": [1], "s": "t"});
    let no_field =
        |k: &str| Err(format!("data.{k}: unable to find api field in struct RawExtension for the json field \"{k}\""));
    let cases = [
        (json!({"a": {"b": 2}}), no_field("a")),
        (json!({"x": 2, "s": null}), Ok(json!({"a": {"b": 1}, "l": [1], "x": 2}))),
        (json!({"l": [2]}), no_field("l")),
        (json!({"n": {"b": 2}}), Ok(json!({"a": {"b": 1}, "l": [1], "n": {"b": 2}, "s": "t", "x": 1}))),
        (json!({"a": "flat"}), Ok(json!({"a": "flat", "l": [1], "s": "t", "x": 1}))),
        (json!({"$patch": "replace", "z": 1}), Ok(json!({"z": 1}))),
        (json!({"a": {"$patch": "delete"}}), no_field("a")),
    ];
    let schema = Schema::Static(smp_core::k8s::shape_of_kind("apps/v1", "ControllerRevision").unwrap());
    let typed_live: ControllerRevision = serde_json::from_value(controller_revision(live.clone())).unwrap();
    for (patch, want) in cases {
        let patch = json!({"data": patch});
        let got = smp_core::apply(&controller_revision(live.clone()), &patch, schema);
        let got = got.map(|o| o["data"].clone()).map_err(|e| e.to_string());
        assert_eq!(got, want, "patch {patch}");
        let typed = typed_live.apply(&patch).map(|o| serde_json::to_value(o.data).unwrap()).map_err(|e| e.to_string());
        assert_eq!(typed, want, "typed, patch {patch}");
    }
    // Two-way: a changed object below the extension cannot be diffed; an
    // equal one, a scalar or an addition can.
    let diff = |a: Value, b: Value| {
        smp_core::diff(&controller_revision(a), &controller_revision(b), schema).map_err(|e| e.to_string())
    };
    assert_eq!(diff(json!({"a": {"b": 1}, "x": 1}), json!({"a": {"b": 2}, "x": 1})), no_field("a"));
    assert_eq!(diff(json!({"a": {"b": 1}, "x": 1}), json!({"a": {"b": 1}, "x": 2})), Ok(json!({"data": {"x": 2}})));
    assert_eq!(
        diff(json!({"a": {"b": 1}}), json!({"a": {"b": 1}, "n": {"c": 1}})),
        Ok(json!({"data": {"n": {"c": 1}}}))
    );
    assert_eq!(diff(json!({"l": [1]}), json!({"l": [2]})), no_field("l"));
}

/// The apiextensions types holding arbitrary JSON have the Go fields of
/// their structs (untagged, so named as in Go) and nothing else.
#[test]
fn below_custom_resource_schema_json_the_go_struct_fields_apply() {
    let schema = Schema::Static(JSONSchemaProps::shape());
    let props = json!({"type": "object", "default": {"a": {"b": 1}}, "items": {"type": "object", "properties": {"x": {"type": "string"}}}});
    let patch = json!({"default": {"a": {"b": 2}}});
    let err = smp_core::apply(&props, &patch, schema).unwrap_err().to_string();
    assert_eq!(err, "default.a: unable to find api field in struct JSON for the json field \"a\"");
    let patch = json!({"items": {"properties": {"x": {"type": "integer"}}}});
    let err = smp_core::apply(&props, &patch, schema).unwrap_err().to_string();
    assert_eq!(
        err,
        "items.properties: unable to find api field in struct JSONSchemaPropsOrArray for the json field \"properties\""
    );
    // Scalars below them merge.
    let merged = smp_core::apply(&props, &json!({"items": {"type": "array"}}), schema).unwrap();
    assert_eq!(merged["items"]["type"], "array");
}
