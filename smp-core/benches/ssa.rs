//! Server-side apply:
//!
//! - `deployment_three_managers`: an apply of a realistic Deployment
//!   configuration (a new image) to a live Deployment that three managers
//!   own parts of (the applier, a forced `replicas` applier, and an
//!   `Update` manager that wrote an annotation and a label);
//! - `env_list`: the same apply where the container's `env` (a list of type
//!   `map`) holds N elements, for N and 10N (linear growth expected).
//!
//! Run with `cargo bench -p smp-core --bench ssa`; `DIVAN_SAMPLE_COUNT`
//! overrides the sample count.
//!
//! When the Go reference is there (`SMPGO`, else `~/smpgo/smpgo`: see
//! `shared/reference`), the run first times it on the `env_list` lines in
//! the same session: `smpgo ssaapply` over a batch of K copies of a line
//! and over 2 copies, the difference per line (its start and schema load
//! cancel out), best of 3; beside it smp's time for the same line through
//! the batch contract (parse, apply, write), and the ratio. Times are CPU
//! time (user + system, of smpgo's process and of this one, from
//! `/proc/self/stat`), which a loaded machine disturbs less than wall time;
//! wall time where `/proc` is not there. Both sides check they give the
//! same object. `SSA_BENCH_REFERENCE=0` skips it.
//!
//! The benchmark runs on mimalloc, the allocator of the `smp` binary that
//! serves the batch contract (documents are trees of small allocations).

use divan::{Bencher, black_box};
use serde_json::{Value, json};
use smp_core::ssa::{self, Resource, Schema};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if std::env::var("SSA_BENCH_REFERENCE").as_deref() != Ok("0") {
        reference::report();
    }
    divan::main();
}

mod reference {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};

    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ssa/deployment.openapi.json");
    const DEFINITION: &str = "io.k8s.api.apps.v1.Deployment";

    fn smpgo() -> Option<PathBuf> {
        let p = match std::env::var_os("SMPGO") {
            Some(p) => PathBuf::from(p),
            None => PathBuf::from(std::env::var_os("HOME")?).join("smpgo/smpgo"),
        };
        p.is_file().then_some(p)
    }

    /// CPU time (user + system) of this process and of its waited-for
    /// children so far, from `/proc/self/stat` (clock ticks of 10 ms).
    fn cpu() -> Option<(Duration, Duration)> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let rest = &stat[stat.rfind(')')? + 2..];
        let f: Vec<u64> = rest.split(' ').skip(11).take(4).map(|x| x.parse().ok()).collect::<Option<_>>()?;
        let tick = |t: u64| Duration::from_millis(t * 10);
        Some((tick(f[0] + f[1]), tick(f[2] + f[3])))
    }

    /// The time `smpgo ssaapply` takes over `copies` copies of `line` (its
    /// CPU time, else wall time), and its first output line.
    fn run(go: &PathBuf, line: &str, copies: usize) -> (Duration, String) {
        let input: String = (0..copies).map(|_| format!("{line}\n")).collect();
        let before = cpu();
        let start = Instant::now();
        let mut child = Command::new(go)
            .args(["ssaapply", &format!("@{DOC}#{DEFINITION}")])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("smpgo runs");
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let out = child.wait_with_output().expect("smpgo answers");
        let elapsed = match (before, cpu()) {
            (Some((_, a)), Some((_, b))) => b - a,
            _ => start.elapsed(),
        };
        writer.join().unwrap().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        (elapsed, text.lines().next().unwrap_or("").to_string())
    }

    /// smp on the same line through the batch contract.
    fn ours(res: &Resource, line: &str) -> String {
        let input: Value = serde_json::from_str(line).unwrap();
        let out = ssa::apply(res, Some(&input["live"]), &input["applied"], "helm", false, "2030-01-02T00:00:00Z");
        serde_json::to_string(&json!({"result": out.unwrap()})).unwrap()
    }

    pub(super) fn report() {
        let Some(go) = smpgo() else {
            eprintln!("ssa bench: no smpgo (SMPGO or ~/smpgo/smpgo): the reference is not timed");
            return;
        };
        let s = schema();
        let res = Resource::for_definition(&s, DEFINITION, None).unwrap();
        for (n, copies) in [(100, 42), (1_000, 12)] {
            let live = live(&res, n);
            let line = json!({"live": live, "applied": config("web:1.1", n), "manager": "helm",
                              "force": false, "now": "2030-01-02T00:00:00Z"})
            .to_string();
            let (_, first) = run(&go, &line, 1);
            let theirs: Value = serde_json::from_str(&first).expect("smpgo's answer");
            let mine: Value = serde_json::from_str(&ours(&res, &line)).unwrap();
            assert_eq!(theirs, mine, "smpgo and smp differ on the N={n} line");
            let best = |f: &dyn Fn() -> Duration| (0..3).map(|_| f()).min().unwrap();
            let go_line = best(&|| {
                let (many, _) = run(&go, &line, copies);
                let (two, _) = run(&go, &line, 2);
                many.saturating_sub(two) / (copies as u32 - 2)
            });
            let our_line = best(&|| {
                let (before, start) = (cpu(), Instant::now());
                let runs = copies * 5;
                for _ in 0..runs {
                    black_box(ours(&res, black_box(&line)));
                }
                let spent = match (before, cpu()) {
                    (Some((a, _)), Some((b, _))) => b - a,
                    _ => start.elapsed(),
                };
                spent / runs as u32
            });
            eprintln!(
                "ssa bench: env_list N={n}, one batch line (parse, apply, write), CPU time: smpgo {:.2} ms, smp {:.2} ms, {:.1}x",
                go_line.as_secs_f64() * 1e3,
                our_line.as_secs_f64() * 1e3,
                go_line.as_secs_f64() / our_line.as_secs_f64()
            );
        }
    }
}

fn schema() -> Schema {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ssa/deployment.openapi.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    Schema::from_openapi_v3(&doc).unwrap()
}

fn config(image: &str, env: usize) -> Value {
    let env: Vec<Value> = (0..env).map(|i| json!({"name": format!("VAR_{i:05}"), "value": format!("v{i}")})).collect();
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "prod", "labels": {"app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop"}},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "web"}, "annotations": {"prometheus.io/scrape": "true"}},
                "spec": {
                    "serviceAccountName": "web",
                    "securityContext": {"runAsNonRoot": true, "fsGroup": 2000},
                    "containers": [{
                        "name": "web", "image": image, "imagePullPolicy": "IfNotPresent",
                        "args": ["--port=8080", "--log-level=info"],
                        "ports": [{"name": "http", "containerPort": 8080}, {"name": "metrics", "containerPort": 9090}],
                        "env": env,
                        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                        "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": 5},
                        "volumeMounts": [{"name": "config", "mountPath": "/etc/web"}]
                    }, {
                        "name": "proxy", "image": "envoy:1.30",
                        "ports": [{"containerPort": 15001}]
                    }],
                    "volumes": [{"name": "config", "configMap": {"name": "web-config"}}],
                    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}]
                }
            }
        }
    })
}

/// The live object: applied by `helm`, scaled by `hpa` (forced), annotated
/// by `kubectl-annotate` (an update).
fn live(res: &Resource, env: usize) -> Value {
    let t = "2030-01-01T00:00:00Z";
    let o = ssa::apply(res, None, &config("web:1.0", env), "helm", false, t).unwrap();
    let scale = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "prod"}, "spec": {"replicas": 5}});
    let o = ssa::apply(res, Some(&o), &scale, "hpa", true, t).unwrap();
    let mut n = o.clone();
    n["metadata"]["annotations"] = json!({"owner": "team-shop"});
    n["metadata"]["labels"]["tier"] = json!("frontend");
    ssa::update(res, Some(&o), &n, "kubectl-annotate", t).unwrap()
}

#[divan::bench]
fn deployment_three_managers(bencher: Bencher) {
    let s = schema();
    let res = Resource::for_definition(&s, "io.k8s.api.apps.v1.Deployment", None).unwrap();
    let live = live(&res, 8);
    let cfg = config("web:1.1", 8);
    bencher.bench(|| {
        ssa::apply(&res, Some(black_box(&live)), black_box(&cfg), "helm", false, "2030-01-02T00:00:00Z").unwrap()
    });
}

#[divan::bench(args = [100, 1_000])]
fn env_list(bencher: Bencher, n: usize) {
    let s = schema();
    let res = Resource::for_definition(&s, "io.k8s.api.apps.v1.Deployment", None).unwrap();
    let live = live(&res, n);
    let cfg = config("web:1.1", n);
    bencher.bench(|| {
        ssa::apply(&res, Some(black_box(&live)), black_box(&cfg), "helm", false, "2030-01-02T00:00:00Z").unwrap()
    });
}
