//! `smp serve`: the test API server (`smp_k8s_types::server`) on a
//! loopback port, for kubectl.

use smp_k8s_types::server::Server;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

pub fn run(listen: SocketAddr, kubeconfig: Option<PathBuf>, log: bool) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the server: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(async {
        let server = Server::new();
        let addr = match server.listen(listen).await {
            Ok(addr) => addr,
            Err(e) => {
                eprintln!("error: cannot listen on {listen}: {e}");
                return ExitCode::from(1);
            }
        };
        let path =
            kubeconfig.unwrap_or_else(|| std::env::temp_dir().join(format!("smp-serve-{}.kubeconfig", addr.port())));
        if let Err(e) = std::fs::write(&path, Server::kubeconfig(addr)) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
        println!("serving http://{addr} kubeconfig {}", path.display());
        let _ = std::io::stdout().flush();
        let mut shown = 0;
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if log {
                let requests = server.requests();
                for r in &requests[shown..] {
                    let query = if r.query.is_empty() { String::new() } else { format!("?{}", r.query) };
                    if r.method == "GET" {
                        eprintln!("{} {}{query} {}", r.method, r.path, r.code);
                    } else {
                        let body = serde_json::Value::String(r.body.clone());
                        eprintln!("{} {}{query} {} {} {body}", r.method, r.path, r.code, r.content_type);
                    }
                }
                shown = requests.len();
            }
        }
    })
}
