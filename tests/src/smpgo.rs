//! Running the Go reference's field manager: `smpgo ssaapply|ssaupdate`
//! (`shared/reference`, built by its `build.sh`), one process per
//! operation and schema, one line in and one line out.

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// `$SMPGO`, else `~/smpgo/smpgo`, if it is there.
pub fn find() -> Option<PathBuf> {
    let path = match std::env::var_os("SMPGO") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(std::env::var_os("HOME")?).join("smpgo").join("smpgo"),
    };
    path.is_file().then_some(path)
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// smpgo processes by operation and schema.
pub struct Smpgo {
    binary: PathBuf,
    openapi_dir: PathBuf,
    processes: BTreeMap<(String, String), Process>,
}

impl Smpgo {
    /// `openapi_dir`: the built-in kinds' OpenAPI v3 documents (`k8s/openapi-v3`).
    pub fn new(binary: PathBuf, openapi_dir: &Path) -> Self {
        Smpgo { binary, openapi_dir: openapi_dir.to_path_buf(), processes: BTreeMap::new() }
    }

    /// The version line of the binary (`smpgo version`).
    pub fn version(&self) -> String {
        Command::new(&self.binary)
            .arg("version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().replace('\n', " "))
            .unwrap_or_else(|e| format!("(smpgo version failed: {e})"))
    }

    /// One line of `smpgo OP KIND`: `op` is `ssaapply` or `ssaupdate`;
    /// `kind` a built-in kind or `@PATH#DEFINITION`.
    pub fn run(&mut self, op: &str, kind: &str, line: &Value) -> Result<Value, String> {
        let key = (op.to_string(), kind.to_string());
        if !self.processes.contains_key(&key) {
            let mut child = Command::new(&self.binary)
                .args([op, kind])
                .env("SMPGO_OPENAPI_DIR", &self.openapi_dir)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .map_err(|e| format!("starting {}: {e}", self.binary.display()))?;
            let stdin = child.stdin.take().expect("piped");
            let stdout = BufReader::new(child.stdout.take().expect("piped"));
            self.processes.insert(key.clone(), Process { child, stdin, stdout });
        }
        let p = self.processes.get_mut(&key).expect("inserted above");
        writeln!(p.stdin, "{line}").and_then(|()| p.stdin.flush()).map_err(|e| format!("writing to smpgo: {e}"))?;
        let mut answer = String::new();
        p.stdout.read_line(&mut answer).map_err(|e| format!("reading from smpgo: {e}"))?;
        if answer.is_empty() {
            return Err("smpgo ended without answering".into());
        }
        serde_json::from_str(&answer).map_err(|e| format!("smpgo's answer is not JSON ({e}): {answer}"))
    }
}

impl Drop for Smpgo {
    fn drop(&mut self) {
        for (_, mut p) in std::mem::take(&mut self.processes) {
            drop(p.stdin);
            let _ = p.child.wait();
        }
    }
}
