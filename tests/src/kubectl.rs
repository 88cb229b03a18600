//! Running the Go reference: `kubectl patch --local`, which applies a
//! strategic merge patch to a file offline, with the patch metadata of the
//! Go types compiled into kubectl.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// kubectl's answer: the patched object, or its error message (without the
/// `error: ` prefix).
pub type Outcome = Result<Value, String>;

/// `$SMP_KUBECTL`, else `kubectl` on `PATH`.
pub fn find() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SMP_KUBECTL") {
        let path = PathBuf::from(path);
        return path.is_file().then_some(path);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join("kubectl")).find(|p| p.is_file())
}

pub struct Kubectl {
    binary: PathBuf,
    dir: PathBuf,
    kubeconfig: PathBuf,
    counter: AtomicUsize,
}

impl Kubectl {
    /// Uses `dir` (created if needed) for the object files and an empty
    /// kubeconfig, so that no user configuration is read.
    pub fn new(binary: PathBuf, dir: &Path) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let kubeconfig = dir.join("empty-kubeconfig");
        std::fs::write(&kubeconfig, "")?;
        Ok(Kubectl { binary, dir: dir.to_path_buf(), kubeconfig, counter: AtomicUsize::new(0) })
    }

    /// `kubectl patch --local -f OBJECT --type strategic -p PATCH -o json`,
    /// printing `metadata.managedFields` too (kubectl drops them by default).
    pub fn patch(&self, object: &Value, patch: &Value) -> Outcome {
        self.patch_as(object, patch, "strategic")
    }

    /// [`patch`](Self::patch) with another `--type`: `merge` (RFC 7386)
    /// or `json` (RFC 6902).
    pub fn patch_as(&self, object: &Value, patch: &Value, patch_type: &str) -> Outcome {
        self.patch_text(object, &patch.to_string(), patch_type)
    }

    /// [`patch_as`](Self::patch_as) with the patch given as text, sent as
    /// it is (kubectl passes text starting with `{` through unchanged).
    pub fn patch_text(&self, object: &Value, patch_text: &str, patch_type: &str) -> Outcome {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let file = self.dir.join(format!("object-{n}.json"));
        std::fs::write(&file, object.to_string()).map_err(|e| format!("harness: writing {}: {e}", file.display()))?;
        let mut cmd = Command::new(&self.binary);
        cmd.args(["patch", "--local", "-f"]).arg(&file).args([
            "--type",
            patch_type,
            "-o",
            "json",
            "--show-managed-fields",
        ]);
        // Linux limits one argument to 128 KiB.
        let patch_file = self.dir.join(format!("patch-{n}.json"));
        if patch_text.len() > 100_000 {
            std::fs::write(&patch_file, patch_text).map_err(|e| format!("harness: writing patch: {e}"))?;
            cmd.arg("--patch-file").arg(&patch_file);
        } else {
            cmd.arg("-p").arg(patch_text);
        }
        cmd.env("KUBECONFIG", &self.kubeconfig)
            .env("GOGC", "off")
            .env("GOMAXPROCS", "1")
            .env_remove("KUBERNETES_SERVICE_HOST")
            .env_remove("KUBERNETES_SERVICE_PORT");
        let out = cmd.output();
        let _ = std::fs::remove_file(&file);
        let _ = std::fs::remove_file(&patch_file);
        let out = out.map_err(|e| format!("harness: running {}: {e}", self.binary.display()))?;
        if out.status.success() {
            serde_json::from_slice(&out.stdout).map_err(|e| {
                format!("harness: unparseable kubectl output ({e}): {}", String::from_utf8_lossy(&out.stdout))
            })
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            let err = err.strip_suffix('\n').unwrap_or(&err);
            Err(err.strip_prefix("error: ").unwrap_or(err).to_string())
        }
    }

    /// Runs every (object, patch) pair on `threads` threads; results in input order.
    pub fn patch_all(&self, cases: &[(&Value, &Value)], threads: usize) -> Vec<Outcome> {
        self.patch_all_as(cases, threads, "strategic")
    }

    /// [`patch_all`](Self::patch_all) with another `--type`.
    pub fn patch_all_as(&self, cases: &[(&Value, &Value)], threads: usize, patch_type: &str) -> Vec<Outcome> {
        let texts: Vec<(&Value, String)> = cases.iter().map(|(o, p)| (*o, p.to_string())).collect();
        self.patch_all_texts(&texts, threads, patch_type)
    }

    /// [`patch_all_as`](Self::patch_all_as) with the patches given as text.
    pub fn patch_all_texts(&self, cases: &[(&Value, String)], threads: usize, patch_type: &str) -> Vec<Outcome> {
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; cases.len()]);
        std::thread::scope(|s| {
            for _ in 0..threads.max(1) {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((object, patch)) = cases.get(i) else { break };
                        let outcome = self.patch_text(object, patch, patch_type);
                        results.lock().unwrap()[i] = Some(outcome);
                    }
                });
            }
        });
        results.into_inner().unwrap().into_iter().map(|r| r.expect("every case ran")).collect()
    }
}
