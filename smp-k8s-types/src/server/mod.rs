//! An in-memory Kubernetes API server for tests: the objects of every
//! built-in kind and of the CustomResourceDefinitions created in it, with
//! patches (strategic, merge, JSON, server-side apply) applied by smp's
//! engines exactly as kube-apiserver applies them, and `managedFields`
//! kept on every write of the kinds the field manager has a schema for.
//!
//! One implementation, served two ways:
//! - in process: [`Server::client`] is a `kube::Client` whose requests go
//!   straight to the server (no port, no process), so a `#[tokio::test]`
//!   runs a reconciler against it; [`Server::service`] is the
//!   `tower::Service` underneath;
//! - over HTTP: [`Server::listen`] serves on a loopback port, for kubectl
//!   (`smp serve` in the command line).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use kube::api::{Api, PostParams};
//! use smp_k8s_types::k8s_openapi::api::core::v1::ConfigMap;
//! use smp_k8s_types::server::Server;
//!
//! let server = Server::new();
//! let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
//! let mut cm = ConfigMap::default();
//! cm.metadata.name = Some("web".into());
//! let created = configmaps.create(&PostParams::default(), &cm).await.unwrap();
//! // (The namespaces `default`, `kube-system`, `kube-public` took 1 to 3.)
//! assert_eq!(created.metadata.resource_version.as_deref(), Some("4"));
//! assert_eq!(server.requests()[0].verb, "create");
//! # }
//! ```
//!
//! What it does not do, unlike kube-apiserver: admission, defaulting,
//! validation beyond the schema's fields, conversion between versions,
//! authentication and authorization, garbage collection of dependents;
//! `docs/testing-a-reconciler.md` lists the differences.

mod apply;
mod catalog;
mod clock;
mod crd;
mod fault;
mod handlers;
mod http;
mod object;
mod patch;
mod protobuf;
mod prune;
mod route;
mod scale;
mod scale_paths;
mod selector;
mod status;
mod store;
mod table;

pub use catalog::{KindSchema, ResourceType};
pub use clock::{Clock, Uids};
pub use fault::{Action, Fault, LoggedRequest};
pub use http::{ResponseBody, ServerService};
pub use scale_paths::{ScalePaths, SelectorSource};
pub use status::ApiError;

use catalog::Catalog;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;
use store::Store;

/// The server: cheap to clone, every clone the same server.
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").finish_non_exhaustive()
    }
}

pub(crate) struct Shared {
    state: Mutex<State>,
    clock: Clock,
    uids: Uids,
    faults: Mutex<Vec<Fault>>,
    log: Mutex<Vec<LoggedRequest>>,
}

/// What one write changes together: the resources served and the objects.
pub(crate) struct State {
    catalog: Catalog,
    store: Store,
    uids_given: u64,
}

/// Options of a [`Server`]: its clock and uid source.
#[derive(Debug)]
pub struct Builder {
    clock: Clock,
    uids: Uids,
}

impl Builder {
    /// The clock of `creationTimestamp` and `deletionTimestamp` (the
    /// machine's by default).
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// A manual clock standing at `start`.
    pub fn frozen_at(self, start: SystemTime) -> Self {
        self.clock(Clock::manual(start))
    }

    /// Where uids come from (random by default).
    pub fn uids(mut self, uids: Uids) -> Self {
        self.uids = uids;
        self
    }

    /// The server, with the namespaces `default`, `kube-system` and
    /// `kube-public`, as a new cluster has them.
    pub fn build(self) -> Server {
        let state = State { catalog: Catalog::built_in(), store: Store::default(), uids_given: 0 };
        let server = Server {
            shared: Arc::new(Shared {
                state: Mutex::new(state),
                clock: self.clock,
                uids: self.uids,
                faults: Mutex::new(Vec::new()),
                log: Mutex::new(Vec::new()),
            }),
        };
        for ns in ["default", "kube-system", "kube-public"] {
            let namespace = serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}});
            server.insert(namespace).expect("a namespace is valid");
        }
        server
    }
}

impl Default for Server {
    fn default() -> Self {
        Self::new()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Server {
    /// A server with the machine's clock and random uids.
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// A server with options.
    pub fn builder() -> Builder {
        Builder { clock: Clock::System, uids: Uids::random() }
    }

    /// A `kube::Client` whose requests this server answers in process
    /// (default namespace `default`). Needs a tokio runtime.
    pub fn client(&self) -> kube_client::Client {
        kube_client::Client::new(self.service(), "default")
    }

    /// The server as a `tower::Service` of HTTP requests.
    pub fn service(&self) -> ServerService {
        ServerService::new(self.shared.clone())
    }

    /// Serves HTTP on `addr` (e.g. `127.0.0.1:0`) from a task of the
    /// current tokio runtime; returns the address bound.
    pub async fn listen(&self, addr: SocketAddr) -> std::io::Result<SocketAddr> {
        http::listen(self.service(), addr).await
    }

    /// Creates an object directly, as `kubectl create -f` would (its
    /// `apiVersion` and `kind` name the resource); returns it as stored.
    pub fn insert(&self, object: serde_json::Value) -> Result<serde_json::Value, ApiError> {
        handlers::insert(&self.shared, object)
    }

    /// The next matching requests fail (or wait, or meet another writer).
    pub fn inject(&self, fault: Fault) {
        lock(&self.shared.faults).push(fault);
    }

    /// Every request answered so far, oldest first.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.shared.log).clone()
    }

    /// Forgets the requests logged so far.
    pub fn clear_requests(&self) {
        lock(&self.shared.log).clear();
    }

    /// The server's clock (advance a manual one with [`Clock::advance`]).
    pub fn clock(&self) -> &Clock {
        &self.shared.clock
    }

    /// The latest resourceVersion.
    pub fn resource_version(&self) -> u64 {
        lock(&self.shared.state).store.revision()
    }

    /// A kubeconfig that points kubectl at `addr` (plain HTTP, no
    /// credentials), namespace `default`.
    pub fn kubeconfig(addr: SocketAddr) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: smp\n  cluster:\n    server: http://{addr}\n\
             contexts:\n- name: smp\n  context:\n    cluster: smp\n    user: smp\n    namespace: default\n\
             current-context: smp\nusers:\n- name: smp\n  user: {{}}\n"
        )
    }
}
