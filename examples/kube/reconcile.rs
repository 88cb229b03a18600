//! An operator's reconcile step on a k8s-openapi `Deployment`: change what
//! the operator manages on a copy of the live object, compute the typed
//! strategic merge patch, and send it with `Api::patch(.., &Patch::Strategic(..))`.
//! The patch names only what changed, so fields other controllers manage
//! (an injected sidecar, annotations) are left alone, and it carries the
//! live resourceVersion so that the API server refuses it (409) if the
//! object changed in between.
//!
//! Run with `cargo run -p smp-examples-kube --example reconcile`. With a cluster configured
//! (kubeconfig or in-cluster), it reconciles the Deployment
//! `smp-example-web` in the current namespace, creating it first if it is
//! missing; otherwise it prints the patch it would send.

use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{Container, EnvVar, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use kube::api::{Api, PatchParams, PostParams};
use smp_k8s_types::StrategicPatch;
use smp_k8s_types::patch::Patch;
use std::collections::BTreeMap;

const NAME: &str = "smp-example-web";
const APP: &str = "app";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = match kube::Client::try_default().await {
        Ok(client) => client,
        Err(e) => {
            println!("No cluster is configured: {e}\n\nThe patch for a sample live object:");
            return print_offline_patch();
        }
    };
    let api: Api<Deployment> = Api::default_namespaced(client);
    if api.get_opt(NAME).await?.is_none() {
        println!("Creating the Deployment {NAME}, which the example reconciles.");
        api.create(&PostParams::default(), &initial()).await?;
    }
    for pass in 1..=2 {
        let sent = reconcile(&api, NAME).await?;
        println!("Pass {pass}: {}", if sent { "patch sent" } else { "nothing to change, no request" });
    }
    Ok(())
}

/// One pass; whether it sent a patch.
async fn reconcile(api: &Api<Deployment>, name: &str) -> Result<bool, Box<dyn std::error::Error>> {
    let live = api.get(name).await?;
    let mut desired = live.clone();
    set_owned_fields(&mut desired);
    let Some(patch) = live.strategic_patch_with_lock_if_changed(&desired)? else {
        return Ok(false); // idle: nothing to change, no request
    };
    // A 409 Conflict here: the object changed since `get`; run again.
    println!("Sending the strategic merge patch:\n{}", body(&patch));
    api.patch(name, &PatchParams::default(), &patch).await?;
    Ok(true)
}

/// What the cluster might hold: the operator's first version, plus a
/// sidecar a webhook injected and a resourceVersion the server assigned.
fn print_offline_patch() -> Result<(), Box<dyn std::error::Error>> {
    let mut live = initial();
    live.metadata.namespace = Some("default".into());
    live.metadata.resource_version = Some("1207".into());
    pod_spec(&mut live).containers.push(Container {
        name: "istio-proxy".into(),
        image: Some("istio/proxyv2:1.22".into()),
        ..Default::default()
    });

    let mut desired = live.clone();
    set_owned_fields(&mut desired);
    let patch = live.strategic_patch_with_lock(&desired)?;
    println!("{}", body(&patch));

    // What the API server does with it: the desired object, sidecar kept.
    if let Patch::Strategic(patch) = &patch {
        let updated = smp_k8s_types::StrategicMerge::apply(&live, patch)?;
        assert_eq!(updated, desired);
        println!("\nApplied to the live object, it gives the desired one; the sidecar is kept.");
        assert!(updated.strategic_patch_with_lock_if_changed(&desired)?.is_none());
        println!("A second pass finds nothing to change and sends no request.");
    }
    Ok(())
}

/// The Deployment as the operator first created it.
fn initial() -> Deployment {
    let labels = BTreeMap::from([("app".to_string(), NAME.to_string())]);
    Deployment {
        metadata: ObjectMeta { name: Some(NAME.into()), labels: Some(labels.clone()), ..Default::default() },
        spec: DeploymentSpec {
            replicas: Some(1),
            selector: LabelSelector { match_labels: Some(labels.clone()), ..Default::default() },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta { labels: Some(labels), ..Default::default() }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: APP.into(),
                        image: Some("nginx:1.26".into()),
                        env: Some(vec![env("LOG_LEVEL", "info"), env("WORKERS", "2")]),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            },
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The operator's part of the desired state, set on a copy of the live
/// object: three replicas, a newer image, more workers, a cache, and no
/// `LOG_LEVEL`.
fn set_owned_fields(deployment: &mut Deployment) {
    deployment.spec.replicas = Some(3);
    let Some(app) = pod_spec(deployment).containers.iter_mut().find(|c| c.name == APP) else { return };
    app.image = Some("nginx:1.27".into());
    app.env = Some(vec![env("WORKERS", "4"), env("CACHE_SIZE", "256Mi")]);
}

fn pod_spec(deployment: &mut Deployment) -> &mut PodSpec {
    deployment.spec.template.spec.get_or_insert_with(Default::default)
}

fn env(name: &str, value: &str) -> EnvVar {
    EnvVar { name: name.into(), value: Some(value.into()), ..Default::default() }
}

fn body(patch: &Patch<serde_json::Value>) -> String {
    match patch {
        Patch::Strategic(body) => serde_json::to_string_pretty(body).unwrap_or_else(|e| format!("<{e}>")),
        other => format!("{other:?}"),
    }
}
