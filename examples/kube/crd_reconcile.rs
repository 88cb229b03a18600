//! A custom resource reconciled on the routes the API server accepts for
//! it: a JSON merge patch, or a JSON patch guarded by the resourceVersion
//! when the lock is asked for (the server refuses strategic merge patches
//! on custom resources with 415). The same `#[patch(...)]` attributes put
//! the server-side-apply list markers into the CRD.
//!
//! With a cluster configured (kubeconfig or in-cluster) and the CRD this
//! program prints installed (`cargo run ... | kubectl apply -f -` of the
//! first document), it creates or patches the Backend `smp-example` in the
//! default namespace; otherwise it prints the requests it would send.
//!
//!     cargo run -p smp-examples-kube --example crd_reconcile
//!
//! Its test runs the same passes against smp's in-process test API server
//! (`smp_k8s_types::server`), with no cluster:
//!
//!     cargo test -p smp-examples-kube --example crd_reconcile

use kube::api::{Api, PatchParams};
use kube::{Client, CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use smp_k8s_types::StrategicMerge;
use smp_k8s_types::api::{Change, Lock, PatchFrom, Route, patch_for};
use smp_k8s_types::patch::Patch;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
pub struct Port {
    name: String,
    port: u16,
}

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, StrategicMerge)]
#[kube(group = "example.com", version = "v1", kind = "Backend", namespaced)]
#[kube(derive = "PartialEq", derive = "StrategicMerge")]
#[schemars(transform = smp_k8s_types::crd::list_markers::<Self>)]
pub struct BackendSpec {
    replicas: i32,
    /// Merged by name: `x-kubernetes-list-type: map` in the CRD.
    #[patch(strategy = "merge", merge_key = "name")]
    ports: Vec<Port>,
}

const NAME: &str = "smp-example";

/// What this operator owns: three replicas and an `https` port. Other
/// writers' ports stay.
fn set_owned_fields(backend: &mut Backend) {
    backend.spec.replicas = 3;
    if !backend.spec.ports.iter().any(|p| p.name == "https") {
        backend.spec.ports.push(Port { name: "https".into(), port: 443 });
    }
}

fn new_backend() -> Backend {
    Backend::new(NAME, BackendSpec { replicas: 1, ports: vec![Port { name: "http".into(), port: 80 }] })
}

/// One pass: create or patch, the patch sent even when empty.
async fn reconcile(api: &Api<Backend>, lock: Lock) -> Result<Change, Box<dyn std::error::Error>> {
    let params = PatchParams { field_manager: Some("backend-operator".into()), ..Default::default() };
    let (_, change) = api.create_or_patch(NAME, &params, lock, new_backend, set_owned_fields).await?;
    // With the lock, a conflict (`err.is_conflict()`) means the object
    // changed since it was read: run the pass again.
    Ok(change)
}

fn show(patch: &Patch<serde_json::Value>) -> String {
    let (content_type, body) = match patch {
        Patch::Merge(body) => ("application/merge-patch+json", body.to_string()),
        Patch::Json(ops) => ("application/json-patch+json", serde_json::to_string(ops).unwrap_or_default()),
        Patch::Strategic(body) => ("application/strategic-merge-patch+json", body.to_string()),
        _ => ("?", String::new()),
    };
    format!("PATCH {content_type}\n  {body}")
}

/// Two passes against a cluster: without the lock, then with it.
async fn run(client: Client) -> Result<[Change; 2], Box<dyn std::error::Error>> {
    let api: Api<Backend> = Api::default_namespaced(client);
    let first = reconcile(&api, Lock::None).await?;
    println!("first pass: {first:?}");
    let second = reconcile(&api, Lock::ResourceVersion).await?;
    println!("second pass (locked): {second:?}");
    Ok([first, second])
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", serde_json::to_string_pretty(&Backend::crd())?);
    match Client::try_default().await {
        Ok(client) => {
            run(client).await?;
        }
        Err(e) => {
            eprintln!("no cluster ({e}); the requests a pass would send to a live Backend:");
            let mut live = new_backend();
            live.metadata.resource_version = Some("41".into());
            let mut desired = live.clone();
            set_owned_fields(&mut desired);
            for lock in [Lock::None, Lock::ResourceVersion] {
                println!("{lock:?}: {}", show(&patch_for(Route::CustomResource, lock, &live, &desired)?));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::{Patch as KubePatch, PostParams};
    use serde_json::json;
    use smp_k8s_types::server::Server;

    #[tokio::test]
    async fn reconciles_against_the_test_server() {
        let server = Server::new();
        let crds: Api<CustomResourceDefinition> = Api::all(server.client());
        crds.create(&PostParams::default(), &Backend::crd()).await.unwrap();

        assert_eq!(run(server.client()).await.unwrap(), [Change::Created, Change::Unchanged]);
        let api: Api<Backend> = Api::default_namespaced(server.client());
        let created = api.get(NAME).await.unwrap();
        assert_eq!(created.spec.replicas, 3);
        let ports: Vec<&str> = created.spec.ports.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(ports, ["http", "https"]);

        // Another writer adds a port and scales down: the pass restores
        // the replicas and keeps the other writer's port.
        let other = json!({"spec": {"replicas": 1, "ports": [
            {"name": "http", "port": 80}, {"name": "https", "port": 443}, {"name": "metrics", "port": 9090}
        ]}});
        api.patch(NAME, &PatchParams::default(), &KubePatch::Merge(&other)).await.unwrap();
        server.clear_requests();
        assert_eq!(reconcile(&api, Lock::ResourceVersion).await.unwrap(), Change::Patched);
        let after = api.get(NAME).await.unwrap();
        assert_eq!(after.spec.replicas, 3);
        assert_eq!(after.spec.ports.len(), 3);
        // Custom resources take no strategic merge patch: the locked pass
        // sent one JSON patch, guarded by the resourceVersion it read.
        let patches: Vec<_> = server.requests().into_iter().filter(|r| r.verb == "patch").collect();
        assert_eq!(patches.len(), 1);
        assert_eq!(patches[0].content_type, "application/json-patch+json");
        assert!(patches[0].body.contains("/metadata/resourceVersion"), "{}", patches[0].body);
        assert_eq!(patches[0].code, 200);
    }
}
