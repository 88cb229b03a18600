//! The Kubernetes OpenAPI v3 documents in the shared data folder
//! (`k8s/openapi-v3/*.json`), as smp schemas.

use serde_json::Value;
use smp_core::{OpenApi, Schema};
use std::path::{Path, PathBuf};

/// `$SMP_SHARED/k8s/openapi-v3`, else the one beside the project, if it is there.
pub fn openapi_dir() -> Option<PathBuf> {
    let shared = match std::env::var_os("SMP_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    let dir = shared.join("k8s").join("openapi-v3");
    dir.is_dir().then_some(dir)
}

/// One document per group/version, named as the API server serves them:
/// `api__v1_openapi.json`, `apis__apps__v1_openapi.json`, ...
pub struct K8sSchemas {
    docs: Vec<(String, OpenApi)>,
}

impl K8sSchemas {
    /// Loads every document of `dir`.
    pub fn load(dir: &Path) -> Result<Self, String> {
        let mut docs = Vec::new();
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            let Some(file) = path.file_name().and_then(|n| n.to_str()) else { continue };
            let Some(stem) = file.strip_suffix("_openapi.json") else { continue };
            let group_version = match stem.strip_prefix("apis__") {
                Some(gv) => gv.replace("__", "/"),
                None => stem.strip_prefix("api__").unwrap_or(stem).to_string(),
            };
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let doc = OpenApi::from_json_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            docs.push((group_version, doc));
        }
        Ok(K8sSchemas { docs })
    }

    /// The schema of a built-in kind, e.g. (`apps/v1`, `Deployment`) →
    /// `io.k8s.api.apps.v1.Deployment`.
    pub fn schema(&self, api_version: &str, kind: &str) -> Result<Schema<'_>, String> {
        let (_, doc) = self
            .docs
            .iter()
            .find(|(gv, _)| gv == api_version)
            .ok_or_else(|| format!("no OpenAPI document for {api_version}"))?;
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("core", api_version));
        // networking.k8s.io -> networking, rbac.authorization.k8s.io -> rbac
        let group = group.split('.').next().unwrap_or(group);
        let name = format!("io.k8s.api.{group}.{version}.{kind}");
        doc.definition(&name).map_err(|e| format!("{name}: {e}"))
    }

    /// The schema of an object, from its `apiVersion` and `kind`.
    pub fn schema_of(&self, object: &Value) -> Result<Schema<'_>, String> {
        let api_version = object.get("apiVersion").and_then(Value::as_str).ok_or("object without apiVersion")?;
        let kind = object.get("kind").and_then(Value::as_str).ok_or("object without kind")?;
        self.schema(api_version, kind)
    }
}
