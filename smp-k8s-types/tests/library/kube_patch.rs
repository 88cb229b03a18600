//! The kube helpers: typed `Patch::Strategic` values agree with the JSON
//! engine, apply back to the desired object, and carry a resourceVersion
//! only when asked.

use serde_json::{Value, json};
use smp_k8s_types::k8s_openapi::api::apps::v1::Deployment;
use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
use smp_k8s_types::kubectl::{LAST_APPLIED, apply_patch};
use smp_k8s_types::patch::Patch;
use smp_k8s_types::{LockError, Schema, StrategicMerge, StrategicPatch};

fn deployment(replicas: i32, env: &[(&str, &str)], images: &[(&str, &str)]) -> Deployment {
    let containers: Vec<Value> = images
        .iter()
        .map(|(name, image)| {
            let env: Vec<Value> = env.iter().map(|(n, v)| json!({"name": n, "value": v})).collect();
            json!({"name": name, "image": image, "env": env})
        })
        .collect();
    serde_json::from_value(json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "1207"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": containers}},
        },
    }))
    .unwrap()
}

fn live() -> Deployment {
    deployment(2, &[("A", "1"), ("B", "2")], &[("app", "app:1"), ("proxy", "envoy")])
}

fn desired() -> Deployment {
    deployment(3, &[("B", "two"), ("C", "3")], &[("app", "app:2"), ("proxy", "envoy")])
}

fn body(patch: Patch<Value>) -> Value {
    match patch {
        Patch::Strategic(body) => body,
        other => panic!("not a strategic merge patch: {other:?}"),
    }
}

fn json_of(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap()
}

fn schema() -> Schema<'static> {
    Schema::Static(Deployment::shape())
}

#[test]
fn the_typed_patch_is_the_json_engines_and_applies_to_the_desired_object() {
    let patch = body(live().strategic_patch(&desired()).unwrap());
    assert_eq!(patch, smp_k8s_types::diff(&json_of(&live()), &json_of(&desired()), schema()).unwrap());
    assert_eq!(live().apply(&patch).unwrap(), desired());
    let containers = &patch["spec"]["template"]["spec"]["containers"];
    assert_eq!(
        containers[0]["env"],
        json!([{"name": "B", "value": "two"}, {"name": "C", "value": "3"}, {"$patch": "delete", "name": "A"}])
    );
    assert!(patch["metadata"].is_null(), "no resourceVersion unless asked: {patch}");
}

#[test]
fn an_unchanged_object_gives_an_empty_patch() {
    assert_eq!(body(live().strategic_patch(&live()).unwrap()), json!({}));
}

#[test]
fn the_lock_carries_the_live_resource_version_as_controller_runtime_does() {
    let mut desired = desired();
    desired.metadata.resource_version = None;
    let patch = body(live().strategic_patch_with_lock(&desired).unwrap());
    assert_eq!(patch["metadata"], json!({"resourceVersion": "1207"}));

    // controller-runtime's MergeFromWithOptimisticLock: the live object
    // without a version, the desired one with the live version.
    let mut original = json_of(&live());
    original["metadata"].as_object_mut().unwrap().remove("resourceVersion");
    let mut modified = json_of(&desired);
    modified["metadata"]["resourceVersion"] = json!("1207");
    assert_eq!(patch, smp_k8s_types::diff(&original, &modified, schema()).unwrap());

    let without_lock = body(live().strategic_patch(&desired).unwrap());
    assert_eq!(without_lock["metadata"], json!({"resourceVersion": null}));
    assert_eq!(
        body(live().strategic_patch_with_lock(&live()).unwrap()),
        json!({"metadata": {"resourceVersion": "1207"}})
    );
}

#[test]
fn the_lock_needs_a_resource_version() {
    let mut unread = live();
    unread.metadata.resource_version = None;
    let err = unread.strategic_patch_with_lock(&desired()).unwrap_err();
    assert!(matches!(&err, LockError::NoResourceVersion { object } if object == "shop/web"), "{err:?}");
    assert_eq!(err.to_string(), "cannot lock the patch of shop/web: the live object has no metadata.resourceVersion");
    unread.metadata.resource_version = Some(String::new());
    assert!(unread.strategic_patch_with_lock(&desired()).is_err(), "an empty version is no version");
}

/// `live` as the cluster holds it after `kubectl apply` of `applied`.
fn applied_with_kubectl<T: StrategicPatch + kube::Resource<DynamicType = ()>>(live: &T, applied: &T) -> T {
    let patch = body(live.kubectl_apply_patch(applied, true).unwrap());
    live.apply(&patch).unwrap()
}

#[test]
fn the_kubectl_flow_records_the_desired_object_and_removes_what_it_no_longer_has() {
    let first = applied_with_kubectl(&live(), &live());
    let recorded = first.metadata.annotations.as_ref().unwrap()[LAST_APPLIED].clone();
    assert!(recorded.ends_with("}\n"), "{recorded}");
    let mut recorded: Value = serde_json::from_str(&recorded).unwrap();
    recorded["metadata"].as_object_mut().unwrap().remove("annotations");
    assert_eq!(recorded, json_of(&live()));

    // A server-side addition survives; what the last apply had and the
    // desired object drops is deleted.
    let mut on_server = first.clone();
    on_server.metadata.labels = Some([("injected".into(), "yes".into())].into());
    let without_proxy = deployment(3, &[("B", "two")], &[("app", "app:2")]);
    let patch = body(on_server.kubectl_apply_patch(&without_proxy, true).unwrap());
    assert_eq!(
        patch,
        apply_patch(&json_of(&on_server), &json_of(&without_proxy), schema(), true).unwrap(),
        "the typed flow is the JSON one"
    );
    let result = on_server.apply(&patch).unwrap();
    assert_eq!(result.metadata.labels, on_server.metadata.labels);
    let spec = &json_of(&result)["spec"];
    assert_eq!(
        spec["template"]["spec"]["containers"],
        json!([{"name": "app", "image": "app:2", "env": [{"name": "B", "value": "two"}]}])
    );
    assert_eq!(spec["replicas"], 3);
}

#[test]
fn without_overwrite_a_change_on_the_server_is_a_conflict() {
    let first = applied_with_kubectl(&ConfigMap::default(), &config_map("1"));
    let mut changed_on_server = first.clone();
    changed_on_server.data = Some([("key".into(), "server".into())].into());
    let err = changed_on_server.kubectl_apply_patch(&config_map("2"), false).unwrap_err();
    assert!(err.is_conflict(), "{err}");
    let patch = body(changed_on_server.kubectl_apply_patch(&config_map("2"), true).unwrap());
    assert_eq!(patch["data"], json!({"key": "2"}));
}

fn config_map(value: &str) -> ConfigMap {
    ConfigMap { data: Some([("key".into(), value.into())].into()), ..Default::default() }
}

#[test]
fn an_idle_reconcile_sends_nothing_and_a_change_sends_the_same_patch() {
    assert!(live().strategic_patch_if_changed(&live()).unwrap().is_none());
    assert!(live().strategic_patch_with_lock_if_changed(&live()).unwrap().is_none());
    assert_eq!(
        body(live().strategic_patch_if_changed(&desired()).unwrap().unwrap()),
        body(live().strategic_patch(&desired()).unwrap())
    );
    assert_eq!(
        body(live().strategic_patch_with_lock_if_changed(&desired()).unwrap().unwrap()),
        body(live().strategic_patch_with_lock(&desired()).unwrap())
    );
}

#[test]
fn a_desired_object_without_the_version_is_idle_when_the_rest_is_equal() {
    let mut desired = live();
    desired.metadata.resource_version = None;
    assert!(live().strategic_patch_with_lock_if_changed(&desired).unwrap().is_none());
    assert!(
        live().strategic_patch_if_changed(&desired).unwrap().is_some(),
        "without the lock, clearing the version is a change"
    );
    desired.metadata.labels = Some([("team".into(), "shop".into())].into());
    let patch = body(live().strategic_patch_with_lock_if_changed(&desired).unwrap().unwrap());
    assert_eq!(patch["metadata"], json!({"labels": {"team": "shop"}, "resourceVersion": "1207"}));
}

#[test]
fn equal_objects_whose_patch_is_not_empty_are_idle() {
    // An unsorted set of scalars: the reference's diff of two equal objects
    // re-sends its order, which changes nothing.
    let mut live = live();
    live.metadata.finalizers = Some(vec!["b".into(), "a".into()]);
    assert_ne!(body(live.strategic_patch(&live).unwrap()), json!({}));
    assert!(live.strategic_patch_if_changed(&live).unwrap().is_none());
    let mut unversioned = live.clone();
    unversioned.metadata.resource_version = None;
    assert!(live.strategic_patch_with_lock_if_changed(&unversioned).unwrap().is_none());
    let lock = body(live.strategic_patch_with_lock(&unversioned).unwrap());
    assert_ne!(lock, json!({"metadata": {"resourceVersion": "1207"}}), "the case the version alignment covers");
}

#[test]
fn the_idle_check_still_needs_a_resource_version() {
    let mut unread = live();
    unread.metadata.resource_version = None;
    assert!(unread.strategic_patch_with_lock_if_changed(&unread).is_err());
}
