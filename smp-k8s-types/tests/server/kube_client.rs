//! The test API server end to end with kube's client, in process: every
//! verb of `Api`, the four patch types (server-side apply refused as a
//! server without it refuses it), watches, a CRD with a `Controller`
//! reconciling to convergence, injected failures, and concurrent writers
//! (no lost update). Each patched object is compared with what smp's
//! engines give for the same inputs.

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::core::Status;
use kube::{CustomResource, CustomResourceExt, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use smp_k8s_types::k8s_openapi::api::apps::v1::Deployment;
use smp_k8s_types::k8s_openapi::api::autoscaling::v1::Scale;
use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
use smp_k8s_types::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use smp_k8s_types::server::{Fault, Server, Uids};
use smp_k8s_types::{Schema, shape_of_kind};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

fn api_error(e: kube::Error) -> Status {
    match e {
        kube::Error::Api(status) => *status,
        other => panic!("not an API error: {other:?}"),
    }
}

/// A Deployment's `spec.replicas` (its `spec` is optional in some
/// Kubernetes versions of k8s-openapi and not in others).
fn replicas(d: &Deployment) -> Option<i64> {
    serde_json::to_value(d).unwrap()["spec"]["replicas"].as_i64()
}

fn configmap(name: &str, data: Value) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name, "labels": {"app": name}}, "data": data})).unwrap()
}

fn deployment_json() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
                {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}]},
                {"name": "proxy", "image": "envoy"},
            ]}},
        },
    })
}

#[tokio::test]
async fn create_get_list_replace_delete() {
    let start = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let server = Server::builder().frozen_at(start).uids(Uids::sequential()).build();
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = cms.create(&PostParams::default(), &configmap("a", json!({"k": "1"}))).await.unwrap();
    let meta = &created.metadata;
    assert_eq!(meta.namespace.as_deref(), Some("default"));
    assert_eq!(meta.creation_timestamp.as_ref().unwrap().0.to_string(), "2023-11-14T22:13:20Z");
    // The three namespaces of a new cluster took uids 1 to 3.
    assert_eq!(meta.uid.as_deref(), Some("00000000-0000-0000-0000-000000000004"));
    assert_eq!(meta.generation, None, "ConfigMaps have no spec, hence no generation");
    let rv: u64 = meta.resource_version.as_deref().unwrap().parse().unwrap();

    // Already exists: 409 with the server's words.
    let e = api_error(cms.create(&PostParams::default(), &configmap("a", json!({}))).await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str()), (409, "AlreadyExists"));
    assert_eq!(e.message, r#"configmaps "a" already exists"#);

    // generateName.
    let mut generated = configmap("", json!({}));
    generated.metadata.name = None;
    generated.metadata.generate_name = Some("gen-".into());
    let generated = cms.create(&PostParams::default(), &generated).await.unwrap();
    let name = generated.name_any();
    assert!(name.starts_with("gen-") && name.len() == 9, "{name}");
    // Neither name nor generateName: 422 Invalid with the cause.
    let mut nameless = configmap("", json!({}));
    nameless.metadata.name = None;
    let e = api_error(cms.create(&PostParams::default(), &nameless).await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str()), (422, "Invalid"));
    assert_eq!(
        e.message,
        r#"ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required"#
    );

    // get, and 404 with the server's Status.
    assert_eq!(cms.get("a").await.unwrap(), created);
    let e = api_error(cms.get("nope").await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str(), e.message.as_str()), (404, "NotFound", r#"configmaps "nope" not found"#));

    // Update with the current resourceVersion, then with a stale one.
    let mut changed = created.clone();
    changed.data = Some([("k".to_string(), "2".to_string())].into());
    let replaced = cms.replace("a", &PostParams::default(), &changed).await.unwrap();
    let rv2: u64 = replaced.metadata.resource_version.as_deref().unwrap().parse().unwrap();
    assert!(rv2 > rv);
    let e = api_error(cms.replace("a", &PostParams::default(), &changed).await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        e.message,
        r#"Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again"#
    );
    // A replace that changes nothing writes nothing.
    let same = cms.replace("a", &PostParams::default(), &replaced).await.unwrap();
    assert_eq!(same.metadata.resource_version, replaced.metadata.resource_version);

    // Lists: labels, fields, pages.
    for i in 0..5 {
        cms.create(&PostParams::default(), &configmap(&format!("page-{i}"), json!({}))).await.unwrap();
    }
    let by_label = cms.list(&ListParams::default().labels("app=a")).await.unwrap();
    assert_eq!(by_label.items.iter().map(|c| c.name_any()).collect::<Vec<_>>(), ["a"]);
    let by_field = cms.list(&ListParams::default().fields("metadata.name=page-3")).await.unwrap();
    assert_eq!(by_field.items.len(), 1);
    let mut names = Vec::new();
    let mut params = ListParams::default().limit(3);
    loop {
        let page = cms.list(&params).await.unwrap();
        assert!(page.items.len() <= 3);
        names.extend(page.items.iter().map(|c| c.name_any()));
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => params = params.continue_token(&token),
            _ => break,
        }
    }
    let all: Vec<String> = cms.list(&ListParams::default()).await.unwrap().items.iter().map(|c| c.name_any()).collect();
    assert_eq!(names, all);
    assert_eq!(all.len(), 7);

    // Delete: gone, with the built-in kinds' Status of success.
    let deleted = cms.delete("a", &DeleteParams::default()).await.unwrap();
    assert!(deleted.is_right(), "built-in kinds answer with a Status");
    assert!(api_error(cms.get("a").await.unwrap_err()).is_not_found());
}

#[tokio::test]
async fn finalizers_hold_a_deleted_object_until_they_are_removed() {
    let server = Server::new();
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut cm = configmap("held", json!({}));
    cm.metadata.finalizers = Some(vec!["example.com/wait".into()]);
    cms.create(&PostParams::default(), &cm).await.unwrap();
    let answer = cms.delete("held", &DeleteParams::default()).await.unwrap();
    let marked = answer.left().expect("the object, still there");
    assert!(marked.metadata.deletion_timestamp.is_some());
    assert_eq!(marked.metadata.deletion_grace_period_seconds, Some(0));
    assert!(cms.get("held").await.unwrap().metadata.deletion_timestamp.is_some());
    let unblock = json!({"metadata": {"finalizers": null}});
    cms.patch("held", &PatchParams::default(), &Patch::Merge(&unblock)).await.unwrap();
    assert!(api_error(cms.get("held").await.unwrap_err()).is_not_found());
}

/// Each patch type against a Deployment, the result compared with smp's
/// engine on the same inputs.
#[tokio::test]
async fn patches_of_every_type() {
    let server = Server::new();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let created: Deployment = serde_json::from_value(deployment_json()).unwrap();
    let created = deployments.create(&PostParams::default(), &created).await.unwrap();
    assert_eq!(created.metadata.generation, Some(1));
    let live = serde_json::to_value(&created).unwrap();
    let shape = shape_of_kind("apps/v1", "Deployment").unwrap();

    let strategic = json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "env": [{"name": "B", "value": "2"}]}]}}}});
    let patched = deployments.patch("web", &PatchParams::default(), &Patch::Strategic(&strategic)).await.unwrap();
    let expected = smp_k8s_types::apply(&live, &strategic, Schema::Static(shape)).unwrap();
    let patched = serde_json::to_value(&patched).unwrap();
    assert_eq!(patched["spec"], expected["spec"]);
    assert_eq!(patched["metadata"]["generation"], 2, "a spec change is a new generation");

    let merge = json!({"metadata": {"labels": {"tier": "front"}}, "spec": {"replicas": 3}});
    let merged = deployments.patch("web", &PatchParams::default(), &Patch::Merge(&merge)).await.unwrap();
    let expected = smp_k8s_types::smp_core::merge_patch::apply(&patched, &merge).unwrap();
    let merged = serde_json::to_value(&merged).unwrap();
    assert_eq!(merged["spec"], expected["spec"]);
    assert_eq!(merged["metadata"]["labels"], expected["metadata"]["labels"]);

    let ops = json!([
        {"op": "test", "path": "/spec/replicas", "value": 3},
        {"op": "replace", "path": "/spec/template/spec/containers/1/image", "value": "envoy:2"},
    ]);
    let json_patch: json_patch::Patch = serde_json::from_value(ops.clone()).unwrap();
    let after = deployments.patch("web", &PatchParams::default(), &Patch::Json::<()>(json_patch)).await.unwrap();
    let expected = smp_k8s_types::smp_core::json_patch::apply_ops(&merged, &ops).unwrap();
    assert_eq!(serde_json::to_value(&after).unwrap()["spec"], expected["spec"]);

    // A failed `test`: 422, the object as it was.
    let failing: json_patch::Patch =
        serde_json::from_value(json!([{"op": "test", "path": "/spec/replicas", "value": 9}])).unwrap();
    let e =
        api_error(deployments.patch("web", &PatchParams::default(), &Patch::Json::<()>(failing)).await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str()), (422, "Invalid"));
    assert_eq!(deployments.get("web").await.unwrap(), after);

    // resourceVersion in a patch is a precondition.
    let stale = json!({"metadata": {"resourceVersion": created.metadata.resource_version}, "spec": {"replicas": 5}});
    let e = api_error(deployments.patch("web", &PatchParams::default(), &Patch::Merge(&stale)).await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str()), (409, "Conflict"));
    assert!(e.message.starts_with(r#"Operation cannot be fulfilled on deployments.apps "web""#), "{}", e.message);
    let current = json!({"metadata": {"resourceVersion": after.metadata.resource_version}, "spec": {"replicas": 5}});
    deployments.patch("web", &PatchParams::default(), &Patch::Merge(&current)).await.unwrap();

    // A strategic patch the engine refuses: the engine's words.
    let bad = json!({"spec": {"template": {"spec": {"containers": [{"image": "no-name"}]}}}});
    let e = api_error(deployments.patch("web", &PatchParams::default(), &Patch::Strategic(&bad)).await.unwrap_err());
    let engine = smp_k8s_types::apply(&live, &bad, Schema::Static(shape)).unwrap_err();
    assert_eq!((e.code, e.message), (500, engine.kind.to_string()));

    // dryRun=All: the answer, not the store.
    let before = deployments.get("web").await.unwrap();
    let dry = PatchParams { dry_run: true, ..Default::default() };
    let answer = deployments.patch("web", &dry, &Patch::Merge(json!({"spec": {"replicas": 7}}))).await.unwrap();
    assert_eq!(replicas(&answer), Some(7));
    assert_eq!(deployments.get("web").await.unwrap(), before);
}

/// Server-side apply by two managers: a create, a conflict with the
/// server's message and causes, a forced apply, an update by a third
/// manager; each object is the engine's for the same inputs (a frozen
/// clock makes the timestamps equal).
#[tokio::test]
async fn server_side_apply_with_two_managers() {
    use smp_k8s_types::smp_core::ssa;
    let now = "2026-01-01T00:00:00Z";
    let server = Server::builder().frozen_at(UNIX_EPOCH + Duration::from_secs(1_767_225_600)).build();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let res = smp_k8s_types::ssa_schemas::resource("apps/v1", "Deployment").unwrap();
    let view = |d: &Deployment| {
        let v = serde_json::to_value(d).unwrap();
        (v["spec"].clone(), v["metadata"]["managedFields"].clone())
    };
    let mut config = deployment_json();
    let created = deployments.patch("web", &PatchParams::apply("alice"), &Patch::Apply(&config)).await.unwrap();
    config["metadata"]["namespace"] = json!("default");
    let engine = ssa::apply(&res, None, &config, "alice", false, now).unwrap();
    assert_eq!(view(&created), (engine["spec"].clone(), engine["metadata"]["managedFields"].clone()));
    assert_eq!(created.metadata.generation, Some(1));
    let live = serde_json::to_value(&created).unwrap();

    let bob =
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 3}});
    let e = api_error(deployments.patch("web", &PatchParams::apply("bob"), &Patch::Apply(&bob)).await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str()), (409, "Conflict"));
    assert_eq!(e.message, r#"Apply failed with 1 conflict: conflict with "alice": .spec.replicas"#);
    let cause = &e.details.unwrap().causes[0];
    assert_eq!(
        (cause.reason.as_str(), cause.message.as_str(), cause.field.as_str()),
        ("FieldManagerConflict", r#"conflict with "alice""#, ".spec.replicas")
    );
    assert_eq!(deployments.get("web").await.unwrap(), created, "a refused apply writes nothing");

    let forced = deployments.patch("web", &PatchParams::apply("bob").force(), &Patch::Apply(&bob)).await.unwrap();
    let engine = ssa::apply(&res, Some(&live), &bob, "bob", true, now).unwrap();
    assert_eq!(view(&forced), (engine["spec"].clone(), engine["metadata"]["managedFields"].clone()));
    assert_eq!(replicas(&forced), Some(3));
    let live = serde_json::to_value(&forced).unwrap();

    // A merge patch by a third manager: an Update entry.
    let carol = json!({"spec": {"minReadySeconds": 5}});
    let params = PatchParams { field_manager: Some("carol".into()), ..Default::default() };
    let updated = deployments.patch("web", &params, &Patch::Merge(&carol)).await.unwrap();
    let new = smp_k8s_types::smp_core::merge_patch::apply(&live, &carol).unwrap();
    let mut new = new;
    new["metadata"]["generation"] = json!(3);
    let engine = ssa::update(&res, Some(&live), &new, "carol", now).unwrap();
    assert_eq!(view(&updated), (engine["spec"].clone(), engine["metadata"]["managedFields"].clone()));
    let entries = updated.metadata.managed_fields.unwrap();
    assert!(entries.iter().any(|m| m.manager.as_deref() == Some("carol") && m.operation.as_deref() == Some("Update")));
}

#[tokio::test]
async fn the_status_subresource_keeps_spec_and_generation() {
    let server = Server::new();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let mut body = deployment_json();
    body["status"] = json!({"replicas": 9});
    let created = deployments.create(&PostParams::default(), &serde_json::from_value(body).unwrap()).await.unwrap();
    assert_eq!(created.status, None, "status is not written on create");
    let status = json!({"spec": {"replicas": 4}, "status": {"readyReplicas": 1}});
    let after = deployments.patch_status("web", &PatchParams::default(), &Patch::Merge(&status)).await.unwrap();
    assert_eq!(after.status.as_ref().unwrap().ready_replicas, Some(1));
    assert_eq!(replicas(&after), Some(1), "spec is not written through /status");
    assert_eq!(after.metadata.generation, Some(1));
    // And the main resource does not write the status.
    let main = json!({"status": {"readyReplicas": 3}});
    let after = deployments.patch("web", &PatchParams::default(), &Patch::Merge(&main)).await.unwrap();
    assert_eq!(after.status.as_ref().unwrap().ready_replicas, Some(1));
}

/// A Scale's `spec.replicas` (its `spec` is optional in some versions of
/// k8s-openapi).
fn spec_replicas(scale: &Scale) -> Option<i64> {
    serde_json::to_value(scale).unwrap()["spec"]["replicas"].as_i64()
}

fn with_replicas(scale: &Scale, replicas: i64) -> Scale {
    let mut value = serde_json::to_value(scale).unwrap();
    value["spec"]["replicas"] = replicas.into();
    serde_json::from_value(value).unwrap()
}

/// The `scale` subresource of a Deployment: an autoscaling/v1 `Scale`
/// whose writes change the Deployment's replicas (a new generation), its
/// resourceVersion a precondition, and the server's errors.
#[tokio::test]
async fn the_scale_subresource_reads_and_writes_replicas() {
    let server = Server::new();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let mut body = deployment_json();
    body["spec"]["selector"]["matchExpressions"] = json!([{"key": "tier", "operator": "In", "values": ["b", "a"]}]);
    let created = deployments.create(&PostParams::default(), &serde_json::from_value(body).unwrap()).await.unwrap();
    let scale = deployments.get_scale("web").await.unwrap();
    let shown = serde_json::to_value(&scale).unwrap();
    assert_eq!(shown["apiVersion"], "autoscaling/v1");
    assert_eq!(shown["spec"], json!({"replicas": 1}));
    assert_eq!(shown["status"], json!({"replicas": 0, "selector": "app=web,tier in (a,b)"}));
    assert_eq!(scale.metadata.resource_version, created.metadata.resource_version);
    assert_eq!(scale.metadata.uid, created.metadata.uid);

    // Each patch type, on the Scale.
    let pp = PatchParams::default();
    let merged = deployments.patch_scale("web", &pp, &Patch::Merge(json!({"spec": {"replicas": 3}}))).await.unwrap();
    assert_eq!(spec_replicas(&merged), Some(3));
    let after = deployments.get("web").await.unwrap();
    assert_eq!((replicas(&after), after.metadata.generation), (Some(3), Some(2)));
    let strategic = Patch::Strategic(json!({"spec": {"replicas": 4}}));
    assert_eq!(spec_replicas(&deployments.patch_scale("web", &pp, &strategic).await.unwrap()), Some(4));
    let ops: json_patch::Patch =
        serde_json::from_value(json!([{"op": "replace", "path": "/spec/replicas", "value": 5}])).unwrap();
    assert_eq!(spec_replicas(&deployments.patch_scale("web", &pp, &Patch::<()>::Json(ops)).await.unwrap()), Some(5));
    let after = deployments.get("web").await.unwrap();
    assert_eq!(replicas(&after), Some(5));
    let containers = &serde_json::to_value(&after).unwrap()["spec"]["template"]["spec"]["containers"];
    assert_eq!(containers.as_array().map(Vec::len), Some(2));

    // replace: a stale resourceVersion is 409, a current one writes.
    let stale = with_replicas(&scale, 7);
    let err = api_error(deployments.replace_scale("web", &PostParams::default(), &stale).await.unwrap_err());
    assert_eq!((err.code, err.reason.as_str()), (409, "Conflict"));
    assert_eq!(
        err.message,
        "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again"
    );
    let current = with_replicas(&deployments.get_scale("web").await.unwrap(), 7);
    let replaced = deployments.replace_scale("web", &PostParams::default(), &current).await.unwrap();
    assert_eq!(spec_replicas(&replaced), Some(7));
    assert_ne!(replaced.metadata.resource_version, current.metadata.resource_version);

    // Negative replicas: the server's 422 on the Scale kind.
    let err = api_error(
        deployments.patch_scale("web", &pp, &Patch::Merge(json!({"spec": {"replicas": -1}}))).await.unwrap_err(),
    );
    assert_eq!((err.code, err.reason.as_str()), (422, "Invalid"));
    assert_eq!(
        err.message,
        "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    );
    // A kind without a scale, and a missing object.
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    cms.create(&PostParams::default(), &configmap("c", json!({}))).await.unwrap();
    assert_eq!(api_error(cms.get_scale("c").await.unwrap_err()).code, 404);
    let err = api_error(deployments.get_scale("nope").await.unwrap_err());
    assert_eq!(err.message, "deployments.apps \"nope\" not found");
    assert_eq!(replicas(&deployments.get("web").await.unwrap()), Some(7));
}

/// Protobuf bodies the server cannot decode: 400 for bytes that are not a
/// Kubernetes protobuf object, 415 with the server's message for a custom
/// resource (which takes JSON and YAML only), never a panic; and
/// `DeleteOptions` in protobuf, decoded.
#[tokio::test]
async fn protobuf_bodies_it_cannot_decode_are_refused() {
    let server = Server::new();
    install_crd(&server).await;
    let client = server.client();
    let post = |path: &str, body: &[u8]| {
        http::Request::post(path)
            .header("content-type", "application/vnd.kubernetes.protobuf")
            .header("accept", "application/json")
            .body(body.to_vec())
            .unwrap()
    };
    let err = client.request_text(post("/api/v1/namespaces/default/configmaps", b"{}")).await.unwrap_err();
    let status = api_error(err);
    assert_eq!((status.code, status.reason.as_str()), (400, "BadRequest"));
    assert!(
        status.message.starts_with("error decoding the body: provided data does not appear to be a protobuf message"),
        "{}",
        status.message
    );
    // `k8s\0`, then a runtime.Unknown whose raw object is cut short.
    let cut = b"k8s\0\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\x05\x0a\x03\x0a\x05x";
    let status = api_error(client.request_text(post("/api/v1/namespaces/default/configmaps", cut)).await.unwrap_err());
    assert_eq!(status.message, "error decoding the body: metadata: unexpected EOF");
    // DeleteOptions in protobuf: a uid precondition that fails (field 2,
    // Preconditions, whose field 1 is the uid).
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    cms.create(&PostParams::default(), &configmap("kept", json!({}))).await.unwrap();
    let delete = http::Request::delete("/api/v1/namespaces/default/configmaps/kept")
        .header("content-type", "application/vnd.kubernetes.protobuf")
        .body(b"k8s\0\x0a\x13\x0a\x02v1\x12\x0dDeleteOptions\x12\x07\x12\x05\x0a\x03xyz".to_vec())
        .unwrap();
    let status = api_error(client.request_text(delete).await.unwrap_err());
    assert_eq!(status.code, 409);
    assert!(
        status.message.contains("Precondition failed: UID in precondition: xyz, UID in object meta: "),
        "{}",
        status.message
    );
    assert!(cms.get_opt("kept").await.unwrap().is_some());
    let status = api_error(
        client.request_text(post("/apis/example.com/v1/namespaces/default/counters", b"k8s\0")).await.unwrap_err(),
    );
    assert_eq!((status.code, status.reason.as_str()), (415, "UnsupportedMediaType"));
    assert_eq!(
        status.message,
        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"
    );
}

/// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`: the Deployment
/// printer's columns and cells, the age from the server's clock, and the
/// object of each row as `includeObject` asks.
#[tokio::test]
async fn tables_are_served_as_kubectl_asks_for_them() {
    let start = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let server = Server::builder().frozen_at(start).build();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    deployments.create(&PostParams::default(), &serde_json::from_value(deployment_json()).unwrap()).await.unwrap();
    server.clock().advance(Duration::from_secs(150));
    let client = server.client();
    let get = |query: &str| {
        http::Request::get(format!("/apis/apps/v1/namespaces/default/deployments{query}"))
            .header("accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
            .body(Vec::new())
            .unwrap()
    };
    let table: Value = client.request(get("")).await.unwrap();
    assert_eq!((table["kind"].as_str(), table["apiVersion"].as_str()), (Some("Table"), Some("meta.k8s.io/v1")));
    let columns: Vec<(&str, i64)> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["priority"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        columns,
        [
            ("Name", 0),
            ("Ready", 0),
            ("Up-to-date", 0),
            ("Available", 0),
            ("Age", 0),
            ("Containers", 1),
            ("Images", 1),
            ("Selector", 1)
        ]
    );
    let row = &table["rows"][0];
    assert_eq!(row["cells"], json!(["web", "0/1", 0, 0, "2m30s", "app,proxy", "app:1,envoy", "app=web"]));
    assert_eq!(row["object"]["kind"], "PartialObjectMetadata");
    assert_eq!(row["object"]["metadata"]["name"], "web");
    assert_eq!(table["metadata"]["resourceVersion"], server.resource_version().to_string());
    let bare: Value = client.request(get("?includeObject=None")).await.unwrap();
    assert_eq!(bare["rows"][0].get("object"), None);
    let whole: Value = client.request(get("/web?includeObject=Object")).await.unwrap();
    assert_eq!(whole["rows"][0]["object"]["spec"]["replicas"], 1);
    let status = api_error(client.request::<Value>(get("?includeObject=All")).await.unwrap_err());
    assert_eq!(status.code, 400);
}

#[tokio::test]
async fn unknown_fields_warn_or_fail_as_field_validation_says() {
    let server = Server::new();
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    cms.create(&PostParams::default(), &configmap("u", json!({"a": "b"}))).await.unwrap();
    let patch = json!({"data": {"c": "d"}, "bogus": 1, "metadata": {"colour": "red"}});
    let strict = PatchParams { field_validation: Some(kube::api::ValidationDirective::Strict), ..Default::default() };
    let e = api_error(cms.patch("u", &strict, &Patch::Merge(&patch)).await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str()), (400, "BadRequest"));
    assert_eq!(e.message, r#"strict decoding error: unknown field "bogus", unknown field "metadata.colour""#);
    // Warn (the default): dropped, the rest written.
    let patched = cms.patch("u", &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    assert_eq!(patched.data.unwrap()["c"], "d");
    assert_eq!(server.requests().last().unwrap().code, 200);
}

/// A watch from a resourceVersion sees the changes after it, in order.
#[tokio::test]
async fn watch_from_a_resource_version() {
    let server = Server::new();
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    cms.create(&PostParams::default(), &configmap("w", json!({"n": "0"}))).await.unwrap();
    let list = cms.list(&ListParams::default()).await.unwrap();
    let rv = list.metadata.resource_version.unwrap();
    let mut stream = cms.watch(&WatchParams::default().timeout(5), &rv).await.unwrap().boxed();
    let patch = json!({"data": {"n": "1"}});
    cms.patch("w", &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    cms.delete("w", &DeleteParams::default()).await.unwrap();
    match stream.try_next().await.unwrap().unwrap() {
        WatchEvent::Modified(cm) => assert_eq!(cm.data.unwrap()["n"], "1"),
        other => panic!("{other:?}"),
    }
    match stream.try_next().await.unwrap().unwrap() {
        WatchEvent::Deleted(cm) => assert_eq!(cm.name_any(), "w"),
        other => panic!("{other:?}"),
    }
}

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "example.com", version = "v1", kind = "Counter", namespaced, status = "CounterStatus")]
pub struct CounterSpec {
    target: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CounterStatus {
    count: i32,
}

async fn install_crd(server: &Server) {
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let crd = crds.create(&PostParams::default(), &Counter::crd()).await.unwrap();
    let conditions = crd.status.unwrap().conditions.unwrap();
    assert!(conditions.iter().any(|c| c.type_ == "Established" && c.status == "True"));
}

/// A `Controller` counts a custom resource's status up to its spec, one
/// merge patch of `/status` per pass, woken by its own writes.
#[tokio::test]
async fn a_controller_reconciles_a_custom_resource_to_convergence() {
    use kube::runtime::controller::{Action, Controller};
    use kube::runtime::watcher;

    let server = Server::new();
    install_crd(&server).await;
    let counters: Api<Counter> = Api::default_namespaced(server.client());
    counters.create(&PostParams::default(), &Counter::new("c", CounterSpec { target: 5 })).await.unwrap();

    #[derive(Debug)]
    struct Failed(kube::Error);
    impl std::fmt::Display for Failed {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            self.0.fmt(f)
        }
    }
    impl std::error::Error for Failed {}

    async fn reconcile(counter: Arc<Counter>, api: Arc<Api<Counter>>) -> Result<Action, Failed> {
        let count = counter.status.as_ref().map_or(0, |s| s.count);
        if count < counter.spec.target {
            let patch = json!({"status": {"count": count + 1}});
            api.patch_status(&counter.name_any(), &PatchParams::default(), &Patch::Merge(&patch))
                .await
                .map_err(Failed)?;
        }
        Ok(Action::await_change())
    }
    fn error_policy(_: Arc<Counter>, _: &Failed, _: Arc<Api<Counter>>) -> Action {
        Action::requeue(Duration::from_millis(10))
    }

    let controller = Controller::new(counters.clone(), watcher::Config::default())
        .run(reconcile, error_policy, Arc::new(counters.clone()))
        .for_each(|_| async {});
    let handle = tokio::spawn(controller);
    let converged = async {
        loop {
            let c = counters.get("c").await.unwrap();
            if c.status.as_ref().is_some_and(|s| s.count == 5) {
                return c;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let done = tokio::time::timeout(Duration::from_secs(30), converged).await.expect("converges");
    handle.abort();
    assert_eq!(done.metadata.generation, Some(1), "status writes are not new generations");
    let status_patches = server
        .requests()
        .iter()
        .filter(|r| r.verb == "patch" && r.subresource.as_deref() == Some("status"))
        .filter(|r| r.content_type == "application/merge-patch+json" && r.code == 200)
        .count();
    assert_eq!(status_patches, 5, "one patch per step, none wasted");

    // Strategic merge patches of custom resources: the server's 415.
    let e = api_error(
        counters
            .patch("c", &PatchParams::default(), &Patch::Strategic(json!({"spec": {"target": 1}})))
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, 415);
    assert_eq!(
        e.message,
        "the body of the request was in an unknown format - accepted media types include: \
         application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    );
    // Server-side apply of the custom resource, with the CRD's schema.
    let applied =
        json!({"apiVersion": "example.com/v1", "kind": "Counter", "metadata": {"name": "c"}, "spec": {"target": 7}});
    // (`spec.target` belongs to the manager that created the object.)
    let e = api_error(counters.patch("c", &PatchParams::apply("tuner"), &Patch::Apply(&applied)).await.unwrap_err());
    assert_eq!(
        e.message,
        r#"Apply failed with 1 conflict: conflict with "unknown" using example.com/v1: .spec.target"#
    );
    let after = counters.patch("c", &PatchParams::apply("tuner").force(), &Patch::Apply(&applied)).await.unwrap();
    assert_eq!(after.spec.target, 7);
    let managers: Vec<_> = after.metadata.managed_fields.unwrap().iter().map(|m| m.manager.clone().unwrap()).collect();
    assert!(managers.contains(&"tuner".to_string()), "{managers:?}");
    // Deleting the CRD takes its resources away.
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.delete("counters.example.com", &DeleteParams::default()).await.unwrap();
    assert_eq!(api_error(counters.get("c").await.unwrap_err()).code, 404);
}

/// Custom resources are pruned by their schema.
#[tokio::test]
async fn custom_resources_are_pruned_by_their_schema() {
    let server = Server::new();
    install_crd(&server).await;
    let api = kube::api::ApiResource::erase::<Counter>(&());
    let raw: Api<kube::api::DynamicObject> = Api::default_namespaced_with(server.client(), &api);
    let obj: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "example.com/v1", "kind": "Counter", "metadata": {"name": "p"},
        "spec": {"target": 1, "unknown": true}, "extra": 1
    }))
    .unwrap();
    let created = raw.create(&PostParams::default(), &obj).await.unwrap();
    assert_eq!(created.data["spec"], json!({"target": 1}));
    assert_eq!(created.data.get("extra"), None);
}

/// Conflict handling: injected 409s and an interleaved writer, retried
/// by the caller; the log shows what was sent.
#[tokio::test]
async fn injected_failures_and_the_request_log() {
    let server = Server::new();
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    cms.create(&PostParams::default(), &configmap("f", json!({"n": "0"}))).await.unwrap();
    server.clear_requests();

    // Two conflicts, then success: a retry loop sends three patches.
    server.inject(Fault::status(409).verb("patch").resource("configmaps").times(2));
    let mut attempts = 0;
    loop {
        attempts += 1;
        let patch = json!({"data": {"n": "1"}});
        match cms.patch("f", &PatchParams::default(), &Patch::Merge(&patch)).await {
            Ok(_) => break,
            Err(e) => assert!(api_error(e).is_conflict()),
        }
    }
    assert_eq!(attempts, 3);

    // 429 carries Retry-After.
    server.inject(Fault::too_many_requests(7).verb("get"));
    let e = api_error(cms.get("f").await.unwrap_err());
    assert_eq!((e.code, e.reason.as_str()), (429, "TooManyRequests"));
    assert_eq!(e.details.unwrap().retry_after_seconds, 7);
    server.inject(Fault::status(500).verb("list"));
    assert_eq!(api_error(cms.list(&ListParams::default()).await.unwrap_err()).code, 500);

    // Another writer changes the object between read and write: the
    // locked write fails, the re-read one succeeds, both changes stay.
    let read = cms.get("f").await.unwrap();
    server.inject(Fault::interleaved_write(|cm| cm["data"]["other"] = json!("x")).verb("update").name("f"));
    let mut mine = read.clone();
    mine.data.as_mut().unwrap().insert("n".into(), "2".into());
    assert!(api_error(cms.replace("f", &PostParams::default(), &mine).await.unwrap_err()).is_conflict());
    let mut mine = cms.get("f").await.unwrap();
    mine.data.as_mut().unwrap().insert("n".into(), "2".into());
    let done = cms.replace("f", &PostParams::default(), &mine).await.unwrap();
    assert_eq!(done.data.unwrap(), [("n".to_string(), "2".to_string()), ("other".to_string(), "x".to_string())].into());

    // Latency: the request waits, then succeeds.
    server.inject(Fault::latency(Duration::from_millis(20)).verb("get"));
    cms.get("f").await.unwrap();

    let log = server.requests();
    let patches: Vec<u16> = log.iter().filter(|r| r.verb == "patch").map(|r| r.code).collect();
    assert_eq!(patches, [409, 409, 200]);
    assert!(log.iter().filter(|r| r.verb == "patch").all(|r| r.content_type == "application/merge-patch+json"));
}

/// Concurrent writers, no lost update: on one object, each client's last
/// acknowledged value is the final one; through optimistic locking, the
/// counter equals the acknowledged increments and every other attempt was
/// a reported conflict; on many objects, every key written is there.
/// `SMP_SERVER_LOAD` sets the number of patches (800 by default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_lose_no_update() {
    let total: usize = std::env::var("SMP_SERVER_LOAD").ok().and_then(|n| n.parse().ok()).unwrap_or(800);
    const CLIENTS: usize = 8;
    let per_client = total / CLIENTS;
    let server = Server::new();
    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
    cms.create(&PostParams::default(), &configmap("shared", json!({"counter": "0"}))).await.unwrap();
    for c in 0..CLIENTS {
        cms.create(&PostParams::default(), &configmap(&format!("own-{c}"), json!({}))).await.unwrap();
    }
    let started = std::time::Instant::now();
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
        tasks.push(tokio::spawn(async move {
            let (mut last, mut increments, mut conflicts) = (None, 0usize, 0usize);
            let mut latencies = Vec::new();
            for j in 0..per_client {
                let t = std::time::Instant::now();
                // One object, no lock: strategic merge patches of one key.
                let patch = json!({"data": {format!("client-{c}"): j.to_string()}});
                cms.patch("shared", &PatchParams::default(), &Patch::Strategic(&patch)).await.unwrap();
                last = Some(j);
                // Many objects: a key per patch.
                let own = json!({"data": {format!("k{j}"): "v"}});
                cms.patch(&format!("own-{c}"), &PatchParams::default(), &Patch::Merge(&own)).await.unwrap();
                // Optimistic locking: read, increment, write with the resourceVersion.
                let read = cms.get("shared").await.unwrap();
                let n: usize = read.data.as_ref().unwrap()["counter"].parse().unwrap();
                let guarded = json!({
                    "metadata": {"resourceVersion": read.metadata.resource_version},
                    "data": {"counter": (n + 1).to_string()},
                });
                match cms.patch("shared", &PatchParams::default(), &Patch::Merge(&guarded)).await {
                    Ok(_) => increments += 1,
                    Err(e) => {
                        assert!(api_error(e).is_conflict());
                        conflicts += 1;
                    }
                }
                latencies.push(t.elapsed() / 4);
            }
            (last, increments, conflicts, latencies)
        }));
    }
    let (mut increments, mut conflicts, mut latencies) = (0, 0, Vec::new());
    let shared_final = |cm: &ConfigMap, c: usize| cm.data.as_ref().unwrap().get(&format!("client-{c}")).cloned();
    let mut lasts = Vec::new();
    for task in tasks {
        let (last, inc, conf, lat) = task.await.unwrap();
        lasts.push(last);
        increments += inc;
        conflicts += conf;
        latencies.extend(lat);
    }
    let elapsed = started.elapsed();
    let shared = cms.get("shared").await.unwrap();
    for (c, last) in lasts.iter().enumerate() {
        assert_eq!(shared_final(&shared, c), last.map(|j| j.to_string()), "client {c}");
        let own = cms.get(&format!("own-{c}")).await.unwrap();
        assert_eq!(own.data.map_or(0, |d| d.len()), per_client, "client {c}'s object");
    }
    assert_eq!(shared.data.as_ref().unwrap()["counter"], increments.to_string());
    assert_eq!(increments + conflicts, CLIENTS * per_client);
    latencies.sort();
    let requests = CLIENTS * per_client * 4;
    println!(
        "{requests} requests ({} patches) from {CLIENTS} clients in {elapsed:?}: {:.0} requests/s, \
         latency p50 {:?} p99 {:?}; {increments} increments, {conflicts} conflicts",
        CLIENTS * per_client * 3,
        requests as f64 / elapsed.as_secs_f64(),
        latencies[latencies.len() / 2],
        latencies[latencies.len() * 99 / 100],
    );
}

/// Server-side apply from typed objects (`PatchFrom::apply_from`): the body
/// holds only the fields the object sets, so a manager that sets nothing
/// but `replicas` conflicts on `replicas` alone, where the typed value sent
/// whole (its required `selector` and `template` at their defaults) also
/// claims those; the offline preview gives the server's objects and
/// conflicts before anything is sent.
#[tokio::test]
async fn typed_server_side_apply_sends_only_what_it_sets() {
    use smp_k8s_types::PatchFrom;
    use smp_k8s_types::server_side::preview_apply;
    let now = "2026-01-01T00:00:00Z";
    let server = Server::builder().frozen_at(UNIX_EPOCH + Duration::from_secs(1_767_225_600)).build();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let view = |v: &Value| (v["spec"].clone(), v["metadata"]["managedFields"].clone());
    let causes = |e: smp_k8s_types::api::Error| -> Vec<(String, String)> {
        assert!(e.is_conflict(), "{e}");
        let smp_k8s_types::api::Error::Api(kube::Error::Api(status)) = e else { panic!("not a refusal") };
        let mut c: Vec<_> =
            status.details.unwrap().causes.into_iter().map(|c| (c.message.clone(), c.field.clone())).collect();
        c.sort();
        c
    };

    let mut full = deployment_json();
    full["metadata"]["namespace"] = json!("default");
    let full: Deployment = serde_json::from_value(full).unwrap();
    let predicted = preview_apply(None, &full, "alice", false, now).unwrap();
    let created = deployments.apply_from(&full, &PatchParams::apply("alice")).await.unwrap();
    let created_json = serde_json::to_value(&created).unwrap();
    assert_eq!(view(&created_json), view(predicted.object.as_ref().unwrap()));

    let scaler: Deployment =
        serde_json::from_value(json!({"metadata": {"name": "web", "namespace": "default"}, "spec": {"replicas": 5}}))
            .unwrap();
    // The typed value sent whole claims the empty selector and template.
    let whole = serde_json::to_value(&scaler).unwrap();
    let e = deployments.patch("web", &PatchParams::apply("scaler"), &Patch::Apply(&whole)).await.unwrap_err();
    let whole_conflicts = causes(smp_k8s_types::api::Error::Api(e));
    assert!(whole_conflicts.iter().any(|(_, f)| f.starts_with(".spec.selector") || f.starts_with(".spec.template")));

    // The applied configuration claims replicas only; the preview knew.
    let p = preview_apply(Some(&created), &scaler, "scaler", false, now).unwrap();
    let e = deployments.apply_from(&scaler, &PatchParams::apply("scaler")).await.unwrap_err();
    let predicted: Vec<_> =
        p.conflicts.iter().map(|c| (format!("conflict with \"{}\"", c.manager), c.field.clone())).collect();
    assert_eq!(causes(e), predicted);
    assert_eq!(predicted, [(r#"conflict with "alice""#.to_string(), ".spec.replicas".to_string())]);

    // Forced: the server's object is the preview's.
    let p = preview_apply(Some(&created), &scaler, "scaler", true, now).unwrap();
    let forced = deployments.apply_from(&scaler, &PatchParams::apply("scaler").force()).await.unwrap();
    assert_eq!(replicas(&forced), Some(5));
    assert_eq!(view(&serde_json::to_value(&forced).unwrap()), view(p.object.as_ref().unwrap()));
    let lost: Vec<_> = p.lost.iter().map(|m| (m.manager.as_str(), m.fields.iter_paths()[0].to_string())).collect();
    assert_eq!(lost, [("alice", ".spec.replicas".to_string())]);
    let entries = forced.metadata.managed_fields.unwrap();
    let scaler_entry = entries.iter().find(|m| m.manager.as_deref() == Some("scaler")).unwrap();
    assert_eq!(scaler_entry.fields_v1.as_ref().unwrap().0, json!({"f:spec": {"f:replicas": {}}}));
}
