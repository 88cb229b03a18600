//! The test API server under load, in process, through kube's client:
//! patches per second with one client and with eight at once, on one
//! shared object (every write waits for the one before it) and on an
//! object per client.
//!
//!     cargo bench -p smp-k8s-types --features server --bench server

use divan::Bencher;
use divan::counter::ItemsCount;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;
use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
use smp_k8s_types::server::Server;
use tokio::runtime::Runtime;

fn main() {
    divan::main();
}

/// Patches each client sends per iteration.
const PATCHES: usize = 50;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a tokio runtime")
}

fn configmap(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": {}})).expect("a ConfigMap")
}

/// `clients` clients each send `PATCHES` strategic merge patches of one
/// key, to the one shared object (`shared`) or to an object of their own.
fn patches(bencher: Bencher, clients: usize, shared: bool) {
    let rt = runtime();
    let server = rt.block_on(async { Server::new() });
    let names: Vec<String> =
        (0..clients).map(|c| if shared { "shared".to_owned() } else { format!("own-{c}") }).collect();
    rt.block_on(async {
        let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
        let mut made = std::collections::BTreeSet::new();
        for name in &names {
            if made.insert(name.clone()) {
                cms.create(&PostParams::default(), &configmap(name)).await.expect("created");
            }
        }
    });
    bencher.counter(ItemsCount::new(clients * PATCHES)).bench_local(|| {
        rt.block_on(async {
            let tasks: Vec<_> = names
                .iter()
                .enumerate()
                .map(|(c, name)| {
                    let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
                    let name = name.clone();
                    tokio::spawn(async move {
                        for j in 0..PATCHES {
                            let patch = json!({"data": {format!("client-{c}"): j.to_string()}});
                            cms.patch(&name, &PatchParams::default(), &Patch::Strategic(&patch))
                                .await
                                .expect("patched");
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await.expect("a client");
            }
        })
    });
}

#[divan::bench(args = [1, 8])]
fn one_shared_object(bencher: Bencher, clients: usize) {
    patches(bencher, clients, true);
}

#[divan::bench(args = [1, 8])]
fn an_object_per_client(bencher: Bencher, clients: usize) {
    patches(bencher, clients, false);
}
