//! Custom resources end to end: a kube `CustomResource` whose spec derives
//! `StrategicMerge`, its CRD schema with the server-side-apply markers,
//! the typed operations on kube's generated root type, and the `Api`
//! extension against a fake API server on loopback that behaves as the
//! real one does where it matters (415 to strategic patches on custom
//! resources, 409 to a stale `resourceVersion`, 422 to a failed JSON patch
//! `test`), recording every request.

use kube::CustomResource;
use kube::CustomResourceExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use smp_k8s_types::StrategicMerge;
use smp_k8s_types::api::{Change, Lock, PatchFrom, Route, patch_for};
use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
use smp_k8s_types::patch::Patch;
use smp_k8s_types::{StrategicPatch, kubectl};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
pub struct Port {
    name: String,
    port: u16,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
pub struct Volume {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    size: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
pub struct Rollout {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    canary: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blue_green: Option<bool>,
}

/// The example of the docs: every kind of `#[patch]` attribute once.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
#[kube(group = "example.com", version = "v1", kind = "Backend", namespaced)]
#[kube(derive = "PartialEq", derive = "StrategicMerge")]
#[schemars(transform = smp_k8s_types::crd::list_markers::<Self>)]
pub struct BackendSpec {
    replicas: i32,
    #[patch(strategy = "merge", merge_key = "name")]
    ports: Vec<Port>,
    #[patch(strategy = "merge")]
    tags: Vec<String>,
    args: Vec<String>,
    #[patch(strategy = "merge,retainKeys", merge_key = "name")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    volumes: Option<Vec<Volume>>,
    #[patch(strategy = "retainKeys")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rollout: Option<Rollout>,
    #[patch(strategy = "replace")]
    selector: BTreeMap<String, String>,
}

fn spec_schema() -> Value {
    let crd = serde_json::to_value(Backend::crd()).unwrap();
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"].clone()
}

#[test]
fn crd_schema_carries_the_server_side_apply_markers() {
    let yaml = serde_yaml_ng::to_string(&Backend::crd()).unwrap();
    println!("{yaml}");
    let spec = spec_schema();
    let props = &spec["properties"];
    // Keyed list: a map list keyed by the merge key.
    assert_eq!(props["ports"]["type"], "array");
    assert_eq!(props["ports"]["x-kubernetes-list-type"], "map");
    assert_eq!(props["ports"]["x-kubernetes-list-map-keys"], json!(["name"]));
    assert_eq!(props["ports"]["items"]["required"], json!(["name", "port"]));
    // Merge list of scalars: a set. No strategy: atomic.
    assert_eq!(props["tags"]["x-kubernetes-list-type"], "set");
    assert_eq!(props["tags"].get("x-kubernetes-list-map-keys"), None);
    assert_eq!(props["args"]["x-kubernetes-list-type"], "atomic");
    // `merge,retainKeys` on an optional list: the same markers as merge.
    assert_eq!(props["volumes"]["x-kubernetes-list-type"], "map");
    assert_eq!(props["volumes"]["x-kubernetes-list-map-keys"], json!(["name"]));
    assert_eq!(props["volumes"]["nullable"], true);
    // A replaced map is atomic; retainKeys on a struct has no SSA marker.
    assert_eq!(props["selector"]["x-kubernetes-map-type"], "atomic");
    assert_eq!(props["rollout"].get("x-kubernetes-map-type"), None);
    assert_eq!(props["replicas"].get("x-kubernetes-list-type"), None);
    // Nothing else is marked.
    let marked: Vec<&str> = props
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| v.as_object().unwrap().keys().any(|k| k.starts_with("x-kubernetes")))
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(marked, ["args", "ports", "selector", "tags", "volumes"]);
    assert!(yaml.contains("x-kubernetes-list-type: map"), "{yaml}");
}

#[test]
fn json_schema_also_carries_the_patch_extensions() {
    // The CRD (JSONSchemaProps) has no room for them; the schemars schema does.
    let schema = serde_json::to_value(schemars::schema_for!(BackendSpec)).unwrap();
    let props = &schema["properties"];
    assert_eq!(props["ports"]["x-kubernetes-patch-strategy"], "merge");
    assert_eq!(props["ports"]["x-kubernetes-patch-merge-key"], "name");
    assert_eq!(props["tags"]["x-kubernetes-patch-strategy"], "merge");
    assert_eq!(props["args"].get("x-kubernetes-patch-strategy"), None);
    assert_eq!(props["selector"]["x-kubernetes-patch-strategy"], "replace");
    let volumes = props["volumes"].to_string();
    assert!(volumes.contains(r#""x-kubernetes-patch-strategy":"merge,retainKeys""#), "{volumes}");
    let rollout = props["rollout"].to_string();
    assert!(rollout.contains(r#""x-kubernetes-patch-strategy":"retainKeys""#), "{rollout}");
}

fn backend(ports: &[(&str, u16)]) -> Backend {
    let spec = BackendSpec {
        replicas: 1,
        ports: ports.iter().map(|(n, p)| Port { name: n.to_string(), port: *p }).collect(),
        tags: vec!["a".into()],
        args: vec![],
        volumes: None,
        rollout: None,
        selector: BTreeMap::from([("app".into(), "web".into())]),
    };
    let mut b = Backend::new("web", spec);
    b.metadata.namespace = Some("default".into());
    b
}

#[test]
fn generated_root_type_has_the_typed_operations() {
    let live = backend(&[("http", 80)]);
    let mut desired = live.clone();
    desired.spec.ports.push(Port { name: "https".into(), port: 443 });
    let patch = live.diff(&desired).unwrap();
    // A replace-strategy map is always in the reference's two-way patch.
    assert_eq!(
        patch,
        json!({"spec": {
            "$setElementOrder/ports": [{"name": "http"}, {"name": "https"}],
            "ports": [{"name": "https", "port": 443}],
            "selector": {"app": "web"}
        }})
    );
    assert_eq!(live.apply(&patch).unwrap(), desired);
    // The same as the JSON engine with the derived schema.
    let json_patch = smp_core::diff(&serde_json::to_value(&live).unwrap(), &serde_json::to_value(&desired).unwrap(), {
        smp_core::Schema::Static(<Backend as smp_core::StrategicMerge>::shape())
    })
    .unwrap();
    assert_eq!(json_patch, patch);
}

#[test]
fn kubectl_apply_patch_takes_the_merge_route_for_custom_resources() {
    let live = backend(&[("http", 80)]);
    let desired = backend(&[("http", 80), ("https", 443)]);
    let Patch::Merge(body) = live.kubectl_apply_patch(&desired, true).unwrap() else {
        panic!("a custom resource gets a merge patch, as kubectl sends")
    };
    assert_eq!(body["spec"], json!({"ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}]}));
    assert!(body["metadata"]["annotations"][kubectl::LAST_APPLIED].is_string());
    // A built-in kind keeps the strategic route.
    let cm = ConfigMap::default();
    assert!(matches!(cm.kubectl_apply_patch(&cm.clone(), true).unwrap(), Patch::Strategic(_)));
    assert_eq!(Route::of::<Backend>(), Route::CustomResource);
    assert_eq!(Route::of::<ConfigMap>(), Route::Strategic);
}

mod fake_apiserver {
    //! A fake API server on 127.0.0.1: custom resources `backends` of
    //! `example.com/v1` and core `configmaps`, in namespace `default`.
    use serde_json::{Value, json};
    use smp_core::{Schema, json_patch, merge_patch};
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    use tokio::net::TcpListener;

    /// One request as the server saw it.
    #[derive(Clone, Debug)]
    pub struct Request {
        pub method: String,
        pub path: String,
        pub content_type: String,
        pub body: Value,
    }

    #[derive(Default)]
    pub struct State {
        pub objects: BTreeMap<String, Value>,
        pub version: u64,
        pub requests: Vec<Request>,
    }

    impl State {
        /// Another writer changes the object: a new resourceVersion.
        pub fn touch(&mut self, path: &str) {
            self.version += 1;
            let version = self.version.to_string();
            self.objects.get_mut(path).expect("stored")["metadata"]["resourceVersion"] = json!(version);
        }
    }

    fn status(code: u16, reason: &str, message: &str) -> (u16, Value) {
        let body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code});
        (code, body)
    }

    fn handle(state: &mut State, method: &str, path: &str, content_type: &str, body: &Value) -> (u16, Value) {
        let custom = path.starts_with("/apis/example.com/");
        match method {
            "GET" => match state.objects.get(path) {
                Some(o) => (200, o.clone()),
                None => status(404, "NotFound", "not found"),
            },
            "POST" => {
                let name = body["metadata"]["name"].as_str().unwrap_or_default();
                let key = format!("{path}/{name}");
                state.version += 1;
                let mut object = body.clone();
                object["metadata"]["resourceVersion"] = json!(state.version.to_string());
                object["metadata"]["uid"] = json!("0b5e");
                state.objects.insert(key, object.clone());
                (201, object)
            }
            "PATCH" => {
                let Some(stored) = state.objects.get(path).cloned() else {
                    return status(404, "NotFound", "not found");
                };
                let stale = body
                    .pointer("/metadata/resourceVersion")
                    .is_some_and(|v| Some(v) != stored.pointer("/metadata/resourceVersion"));
                let patched = match content_type {
                    "application/strategic-merge-patch+json" if custom => {
                        return status(
                            415,
                            "UnsupportedMediaType",
                            "the body of the request was in an unknown format - accepted media types include: \
                             application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
                        );
                    }
                    "application/strategic-merge-patch+json" | "application/merge-patch+json" if stale => {
                        return status(
                            409,
                            "Conflict",
                            "Operation cannot be fulfilled: the object has been modified; please apply your changes \
                             to the latest version and try again",
                        );
                    }
                    "application/strategic-merge-patch+json" => {
                        let shape = <k8s_openapi::api::core::v1::ConfigMap as smp_core::StrategicMerge>::shape();
                        smp_core::apply(&stored, body, Schema::Static(shape)).map_err(|e| e.to_string())
                    }
                    "application/merge-patch+json" => merge_patch::apply(&stored, body).map_err(|e| e.to_string()),
                    "application/json-patch+json" => serde_json::from_value::<json_patch::Patch>(body.clone())
                        .map_err(|e| e.to_string())
                        .and_then(|p| json_patch::apply(&stored, &p).map_err(|e| e.to_string())),
                    other => return status(415, "UnsupportedMediaType", &format!("unknown format {other}")),
                };
                match patched {
                    Ok(mut object) => {
                        state.version += 1;
                        object["metadata"]["resourceVersion"] = json!(state.version.to_string());
                        state.objects.insert(path.to_string(), object.clone());
                        (200, object)
                    }
                    Err(e) => status(422, "Invalid", &e),
                }
            }
            _ => status(405, "MethodNotAllowed", "method not allowed"),
        }
    }

    /// Serves until the test ends; returns the address and the state.
    pub async fn start() -> (String, Arc<Mutex<State>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
        let addr = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = shared.clone();
                tokio::spawn(async move {
                    let (read, mut write) = stream.into_split();
                    let mut read = BufReader::new(read);
                    loop {
                        let mut line = String::new();
                        if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let mut parts = line.split_whitespace();
                        let (method, target) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or(""));
                        let path = target.split('?').next().unwrap_or("").to_string();
                        let (mut length, mut content_type) = (0, String::new());
                        loop {
                            let mut header = String::new();
                            if read.read_line(&mut header).await.unwrap_or(0) == 0 {
                                return;
                            }
                            let header = header.trim_end();
                            if header.is_empty() {
                                break;
                            }
                            let (name, value) = header.split_once(':').unwrap_or((header, ""));
                            match name.to_ascii_lowercase().as_str() {
                                "content-length" => length = value.trim().parse().unwrap_or(0),
                                "content-type" => content_type = value.trim().to_string(),
                                _ => {}
                            }
                        }
                        let mut bytes = vec![0; length];
                        if read.read_exact(&mut bytes).await.is_err() {
                            return;
                        }
                        let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                        let (code, answer) = {
                            let mut state = state.lock().unwrap();
                            let request = Request {
                                method: method.clone(),
                                path: path.clone(),
                                content_type: content_type.clone(),
                                body: body.clone(),
                            };
                            state.requests.push(request);
                            handle(&mut state, &method, &path, &content_type, &body)
                        };
                        let text = answer.to_string();
                        let head = format!(
                            "HTTP/1.1 {code} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                            text.len()
                        );
                        if write.write_all(head.as_bytes()).await.is_err()
                            || write.write_all(text.as_bytes()).await.is_err()
                        {
                            return;
                        }
                    }
                });
            }
        });
        (addr, state)
    }
}

async fn client(addr: &str) -> kube::Client {
    let mut config = kube::Config::new(addr.parse().unwrap());
    config.default_namespace = "default".into();
    kube::Client::try_from(config).unwrap()
}

/// The requests since the last call: (method, content type, body).
fn drain(state: &std::sync::Mutex<fake_apiserver::State>) -> Vec<(String, String, Value)> {
    let mut state = state.lock().unwrap();
    let requests = std::mem::take(&mut state.requests);
    for r in &requests {
        println!("{} {} [{}] {}", r.method, r.path, r.content_type, r.body);
    }
    requests.into_iter().map(|r| (r.method, r.content_type, r.body)).collect()
}

const BACKEND: &str = "/apis/example.com/v1/namespaces/default/backends/web";
const MERGE: &str = "application/merge-patch+json";
const JSON_PATCH: &str = "application/json-patch+json";

#[tokio::test]
async fn reconcile_against_a_fake_apiserver() {
    let (addr, state) = fake_apiserver::start().await;
    let api: kube::Api<Backend> = kube::Api::namespaced(client(&addr).await, "default");
    let params = kube::api::PatchParams { field_manager: Some("backend-operator".into()), ..Default::default() };
    let add_port = |name: &'static str, port: u16| {
        move |b: &mut Backend| {
            if !b.spec.ports.iter().any(|p| p.name == name) {
                b.spec.ports.push(Port { name: name.into(), port })
            }
        }
    };

    // Absent: created.
    let (_, change) =
        api.create_or_patch("web", &params, Lock::None, || backend(&[("http", 80)]), |_| {}).await.unwrap();
    assert_eq!(change, Change::Created);
    let sent = drain(&state);
    assert_eq!(sent.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["GET", "POST"]);

    // Without lock: a JSON merge patch, the keyed list sent whole.
    let new = || unreachable!("exists");
    let (got, change) = api.create_or_patch("web", &params, Lock::None, new, add_port("https", 443)).await.unwrap();
    assert_eq!(change, Change::Patched);
    assert_eq!(got.spec.ports.len(), 2);
    let sent = drain(&state);
    assert_eq!(sent.len(), 2);
    assert_eq!((sent[1].0.as_str(), sent[1].1.as_str()), ("PATCH", MERGE));
    assert_eq!(sent[1].2, json!({"spec": {"ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}]}}));

    // Nothing to change: the empty patch is still sent.
    let (_, change) = api.create_or_patch("web", &params, Lock::None, new, add_port("https", 443)).await.unwrap();
    assert_eq!(change, Change::Unchanged);
    let sent = drain(&state);
    assert_eq!((sent[1].0.as_str(), sent[1].1.as_str(), &sent[1].2), ("PATCH", MERGE, &json!({})));

    // With lock: a JSON patch guarded by the resourceVersion just read.
    let current = state.lock().unwrap().version.to_string();
    let (_, change) =
        api.create_or_patch("web", &params, Lock::ResourceVersion, new, add_port("metrics", 9090)).await.unwrap();
    assert_eq!(change, Change::Patched);
    let sent = drain(&state);
    assert_eq!((sent[1].0.as_str(), sent[1].1.as_str()), ("PATCH", JSON_PATCH));
    assert_eq!(
        sent[1].2,
        json!([
            {"op": "test", "path": "/metadata/resourceVersion", "value": current},
            {"op": "add", "path": "/spec/ports/2", "value": {"name": "metrics", "port": 9090}}
        ])
    );

    // A stale read with lock: the server refuses (422 on the failed test),
    // the caller gets a conflict, and nothing is retried.
    let live = api.get("web").await.unwrap();
    state.lock().unwrap().touch(BACKEND);
    let mut desired = live.clone();
    desired.spec.replicas = 3;
    let err = api.patch_from_with_lock("web", &live, &desired, &params).await.unwrap_err();
    assert!(err.is_conflict(), "{err}");
    let sent = drain(&state);
    assert_eq!(sent.iter().filter(|r| r.0 == "PATCH").count(), 1, "a conflict is not retried");

    // A strategic patch forced on a custom resource: 415, then once more
    // on the custom-resource route.
    let live = api.get("web").await.unwrap();
    let got = api.patch_from_via(Route::Strategic, Lock::None, "web", &live, &desired, &params).await.unwrap();
    assert_eq!(got.spec.replicas, 3);
    let sent = drain(&state);
    let patches: Vec<(&str, &Value)> = sent.iter().filter(|r| r.0 == "PATCH").map(|r| (r.1.as_str(), &r.2)).collect();
    assert_eq!(
        patches,
        [
            ("application/strategic-merge-patch+json", &json!({"spec": {"replicas": 3, "selector": {"app": "web"}}})),
            (MERGE, &json!({"spec": {"replicas": 3}}))
        ]
    );
}

#[tokio::test]
async fn builtin_kinds_stay_strategic_and_a_stale_lock_is_a_conflict() {
    let (addr, state) = fake_apiserver::start().await;
    let api: kube::Api<ConfigMap> = kube::Api::namespaced(client(&addr).await, "default");
    let params = kube::api::PatchParams::default();
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some("c".into());
    cm.data = Some(BTreeMap::from([("a".into(), "1".into())]));
    let live = api.create(&Default::default(), &cm).await.unwrap();
    let mut desired = live.clone();
    desired.data.as_mut().unwrap().insert("b".into(), "2".into());

    let got = api.patch_from("c", &live, &desired, &params).await.unwrap();
    assert_eq!(got.data.unwrap().len(), 2);
    let sent = drain(&state);
    assert_eq!(sent[1], ("PATCH".into(), "application/strategic-merge-patch+json".into(), json!({"data": {"b": "2"}})));

    // `live` is stale now: with lock, 409 Conflict, not retried.
    let err = api.patch_from_with_lock("c", &live, &desired, &params).await.unwrap_err();
    assert!(err.is_conflict(), "{err}");
    let sent = drain(&state);
    assert_eq!(sent.len(), 1);
    let version = live.metadata.resource_version.clone().unwrap();
    assert_eq!(sent[0].2, json!({"data": {"b": "2"}, "metadata": {"resourceVersion": version}}));
}

/// A port identified by number and protocol: DNS serves 53/TCP and 53/UDP.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
pub struct DnsPort {
    port: u16,
    protocol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

/// A custom resource whose list is keyed by two fields.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
#[kube(group = "example.com", version = "v1", kind = "Resolver", namespaced)]
#[kube(derive = "PartialEq", derive = "StrategicMerge")]
#[schemars(transform = smp_k8s_types::crd::list_markers::<Self>)]
pub struct ResolverSpec {
    #[patch(strategy = "merge", merge_key = "port,protocol")]
    ports: Vec<DnsPort>,
}

fn dns_port(port: u16, protocol: &str) -> DnsPort {
    DnsPort { port, protocol: protocol.into(), name: None }
}

fn resolver(name: &str, ports: Vec<DnsPort>) -> Resolver {
    let mut r = Resolver::new(name, ResolverSpec { ports });
    r.metadata.namespace = Some("default".into());
    r
}

#[test]
fn a_composite_key_identifies_elements_in_every_typed_operation() {
    let live = resolver("dns", vec![dns_port(53, "TCP")]);
    let desired = resolver("dns", vec![dns_port(53, "TCP"), dns_port(53, "UDP")]);
    let patch = live.diff(&desired).unwrap();
    assert_eq!(
        patch["spec"]["$setElementOrder/ports"],
        json!([{"port": 53, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}])
    );
    assert_eq!(live.apply(&patch).unwrap(), desired);
    // Three-way (kubectl apply's), from a last-applied of the live state.
    let three_way = live.three_way(&live, &desired, Default::default()).unwrap();
    assert_eq!(live.apply(&three_way).unwrap(), desired);
    // A change to one of two elements sharing a port changes that one only.
    let mut renamed = desired.clone();
    renamed.spec.ports[1].name = Some("dns-udp".into());
    assert_eq!(desired.apply(&desired.diff(&renamed).unwrap()).unwrap(), renamed);

    // The custom-resource routes send both ports.
    for lock in [Lock::None, Lock::ResourceVersion] {
        let mut live = live.clone();
        live.metadata.resource_version = Some("7".into());
        let sent = match patch_for(Route::CustomResource, lock, &live, &desired).unwrap() {
            Patch::Merge(p) => {
                let mut object = serde_json::to_value(&live).unwrap();
                json_patch::merge(&mut object, &p);
                object
            }
            Patch::Json(p) => {
                let mut object = serde_json::to_value(&live).unwrap();
                json_patch::patch(&mut object, &p).unwrap();
                object
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(sent["spec"], serde_json::to_value(&desired.spec).unwrap(), "{lock:?}");
    }
    let Patch::Merge(body) = live.kubectl_apply_patch(&desired, true).unwrap() else { panic!("a merge patch") };
    assert_eq!(body["spec"]["ports"], serde_json::to_value(&desired.spec.ports).unwrap());

    // A server would merge a strategic merge patch by `port` alone: the
    // forced strategic route refuses, naming the list.
    let mut locked = live.clone();
    locked.metadata.resource_version = Some("7".into());
    for lock in [Lock::None, Lock::ResourceVersion] {
        let err = patch_for(Route::Strategic, lock, &locked, &desired).unwrap_err();
        assert!(matches!(err, smp_k8s_types::api::Error::CompositeKey { .. }), "{err}");
        assert!(err.to_string().starts_with("spec.ports: the merge key `port,protocol` has several fields"), "{err}");
    }
    // A patch that leaves the list alone goes.
    let mut relabeled = live.clone();
    relabeled.metadata.labels = Some([("a".to_string(), "b".to_string())].into());
    assert!(matches!(patch_for(Route::Strategic, Lock::None, &live, &relabeled).unwrap(), Patch::Strategic(_)));

    // The generated CRD keys the list by both fields.
    let crd = serde_json::to_value(Resolver::crd()).unwrap();
    let ports = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["ports"];
    assert_eq!(ports["x-kubernetes-list-map-keys"], json!(["port", "protocol"]));
}

#[tokio::test]
async fn reconcile_a_composite_key_against_a_fake_apiserver() {
    let (addr, state) = fake_apiserver::start().await;
    let api: kube::Api<Resolver> = kube::Api::namespaced(client(&addr).await, "default");
    let params = kube::api::PatchParams::default();
    let add_udp = |r: &mut Resolver| {
        if !r.spec.ports.iter().any(|p| p.port == 53 && p.protocol == "UDP") {
            r.spec.ports.push(dns_port(53, "UDP"));
        }
    };
    for (name, lock) in [("plain", Lock::None), ("locked", Lock::ResourceVersion)] {
        let new = || resolver(name, vec![dns_port(53, "TCP")]);
        let (_, change) = api.create_or_patch(name, &params, lock, new, |_| {}).await.unwrap();
        assert_eq!(change, Change::Created);
        let (got, change) = api.create_or_patch(name, &params, lock, new, add_udp).await.unwrap();
        assert_eq!(change, Change::Patched, "{lock:?}");
        let want = vec![dns_port(53, "TCP"), dns_port(53, "UDP")];
        assert_eq!(got.spec.ports, want, "{lock:?}: the server's answer");
        let stored =
            state.lock().unwrap().objects[&format!("/apis/example.com/v1/namespaces/default/resolvers/{name}")].clone();
        assert_eq!(stored["spec"]["ports"], serde_json::to_value(&want).unwrap(), "{lock:?}: the stored object");
        // The next pass has nothing to do.
        let (got, change) = api.create_or_patch(name, &params, lock, new, add_udp).await.unwrap();
        assert_eq!(change, Change::Unchanged, "{lock:?}");
        assert_eq!(got.spec.ports, want);
        drain(&state);
    }
}
