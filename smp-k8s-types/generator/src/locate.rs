//! Where things are: the workspace, the k8s-openapi sources (through
//! `cargo metadata`) and their per-version directories.

use crate::Result;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The k8s-openapi release whose types are described.
pub const K8S_OPENAPI_VERSION: &str = "0.29";

/// The workspace root (this package lives in `smp-k8s-types/generator`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root exists")
}

/// The `src` directory of k8s-openapi, as resolved for the workspace.
pub fn k8s_openapi_src(workspace_root: &Path) -> Result<PathBuf> {
    // Under `cargo run`/`cargo test`, `CARGO` is the cargo that runs us.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .current_dir(workspace_root)
        .output()
        .map_err(|e| format!("running `cargo metadata`: {e}"))?;
    if !output.status.success() {
        return Err(format!("`cargo metadata` failed:\n{}", String::from_utf8_lossy(&output.stderr)).into());
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let wanted = format!("{K8S_OPENAPI_VERSION}.");
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "k8s-openapi" && p["version"].as_str().is_some_and(|v| v.starts_with(&wanted)))
        .ok_or_else(|| format!("k8s-openapi {K8S_OPENAPI_VERSION} is not in the workspace's dependencies"))?;
    let manifest = package["manifest_path"].as_str().ok_or("k8s-openapi has no manifest_path")?;
    Ok(Path::new(manifest).parent().ok_or("manifest_path has no parent")?.join("src"))
}

/// The version directories of k8s-openapi (`src/v1_33`...), as
/// `(minor version, directory)`, oldest first.
pub fn version_dirs(src: &Path) -> Result<Vec<(u32, PathBuf)>> {
    let mut versions = Vec::new();
    for entry in std::fs::read_dir(src)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if let Some(minor) = name.strip_prefix("v1_").and_then(|m| m.parse::<u32>().ok())
            && path.is_dir()
        {
            versions.push((minor, path));
        }
    }
    versions.sort();
    if versions.is_empty() {
        return Err(format!("no version directory (v1_NN) in {}", src.display()).into());
    }
    Ok(versions)
}

/// Where the generated implementations go: `smp-core/src/k8s`.
pub fn output_dir(workspace_root: &Path) -> PathBuf {
    workspace_root.join("smp-core/src/k8s")
}

/// The patch metadata table.
pub fn metadata_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("patch_metadata.txt")
}
