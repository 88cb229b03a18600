//! Peak heap memory of the JSON engine on a large Pod: one container with
//! N = 100,000 env vars (the generator of the `engine` benchmarks), with
//! an empty patch, with a patch that lists every env var in
//! `$setElementOrder`, as kubectl sends it, and with patches of every
//! tenth env var (plain, and with that `$setElementOrder`).
//!
//! Each case is measured two ways:
//!
//! - `compact`: from JSON text to JSON text through `apply_slice`, on the
//!   compact document (strings borrowed from the text);
//! - `bytes`: from JSON text to JSON text on `serde_json::Value`s: decode
//!   the Pod and the patch, apply, encode the result;
//! - `decoded`: apply alone, on decoded values.
//!
//! divan's allocation profiler gives, per iteration, the bytes allocated
//! and the peak held at once (`max alloc`). Before the benchmarks run, the
//! peak of one run of each case is printed with its ratio to the size of
//! the input text: the figure the engine's memory work is measured by.
//!
//! Run with `cargo bench -p smp-core --bench memory`. `SMP_SHARED` names
//! the shared folder (default `../shared` beside the workspace), whose
//! OpenAPI documents give the Pod schema.

use divan::{AllocProfiler, Bencher, black_box};
use serde_json::{Value, json};
use smp_core::{OpenApi, Schema, apply, decode};
use std::alloc::{GlobalAlloc, Layout};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};

#[global_allocator]
static ALLOC: PeakAlloc =
    PeakAlloc { inner: AllocProfiler::system(), current: AtomicUsize::new(0), peak: AtomicUsize::new(0) };

/// divan's profiler, and the peak of bytes held at once since the last
/// [`PeakAlloc::reset`], for the summary.
struct PeakAlloc {
    inner: AllocProfiler,
    current: AtomicUsize,
    peak: AtomicUsize,
}

impl PeakAlloc {
    fn reset(&self) {
        self.peak.store(self.current.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Bytes held at the peak since the last reset, beyond what was held
    /// at the reset.
    fn peak_since(&self, base: usize) -> usize {
        self.peak.load(Ordering::Relaxed).saturating_sub(base)
    }

    fn grew(&self, by: usize) {
        let now = self.current.fetch_add(by, Ordering::Relaxed) + by;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    fn shrank(&self, by: usize) {
        self.current.fetch_sub(by, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { self.inner.alloc(layout) };
        if !ptr.is_null() {
            self.grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { self.inner.alloc_zeroed(layout) };
        if !ptr.is_null() {
            self.grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { self.inner.dealloc(ptr, layout) };
        self.shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size >= layout.size() {
                self.grew(new_size - layout.size());
            } else {
                self.shrank(layout.size() - new_size);
            }
        }
        new
    }
}

const N: usize = 100_000;

fn main() {
    let Some(cases) = CASES.as_ref() else {
        eprintln!();
        eprintln!("*******************************************************************");
        eprintln!("*** memory benchmarks: NOT RUN. The shared folder with          ***");
        eprintln!("*** k8s/openapi-v3/ was not found (set SMP_SHARED or put it at  ***");
        eprintln!("*** ../shared beside the workspace).                            ***");
        eprintln!("*******************************************************************");
        eprintln!();
        return;
    };
    eprintln!("\nPeak heap of one run, and its ratio to the input text (Pod + patch):");
    eprintln!("  {:<34} {:>12} {:>14} {:>8}", "case", "input", "peak", "ratio");
    for case in cases {
        for way in WAYS {
            let base = ALLOC.current.load(Ordering::Relaxed);
            ALLOC.reset();
            drop(black_box(case.run(way)));
            let peak = ALLOC.peak_since(base);
            let input = case.input_bytes();
            eprintln!(
                "  {:<34} {:>9.1} MB {:>11.1} MB {:>7.1}x",
                format!("{} {way}", case.name),
                mb(input),
                mb(peak),
                peak as f64 / input as f64
            );
        }
    }
    eprintln!();
    divan::main();
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

const WAYS: [&str; 3] = ["compact", "bytes", "decoded"];

struct Case {
    name: &'static str,
    schema: Schema<'static>,
    texts: [Vec<u8>; 2],
    values: [Value; 2],
}

impl Case {
    fn new(name: &'static str, schema: Schema<'static>, original: Value, patch: Value) -> Case {
        let texts = [serde_json::to_vec(&original).unwrap(), serde_json::to_vec(&patch).unwrap()];
        Case { name, schema, texts, values: [original, patch] }
    }

    fn input_bytes(&self) -> usize {
        self.texts.iter().map(Vec::len).sum()
    }

    fn run(&self, way: &str) -> Vec<u8> {
        match way {
            "compact" => smp_core::apply_slice(&self.texts[0], &self.texts[1], self.schema).unwrap(),
            "bytes" => {
                let original = decode(&self.texts[0]).unwrap();
                let patch = decode(&self.texts[1]).unwrap();
                let result = apply(&original, &patch, self.schema).unwrap();
                serde_json::to_vec(&result).unwrap()
            }
            _ => {
                let result = apply(&self.values[0], &self.values[1], self.schema).unwrap();
                vec![u8::from(result.is_object())]
            }
        }
    }
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("SMP_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// A Pod whose one container has `n` env vars (as the `engine`
/// benchmarks generate it).
fn pod(n: usize) -> Value {
    let env: Vec<Value> =
        (0..n).map(|i| json!({"name": format!("ENV_{i:06}"), "value": format!("value-{i:06}")})).collect();
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": format!("scale-{n}"), "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "busybox:1.36", "env": env}]}
    })
}

/// What kubectl sends when nothing changed but the lists are listed in
/// order: `$setElementOrder` of the containers and of every env var.
fn full_order_patch(n: usize) -> Value {
    let order: Vec<Value> = (0..n).map(|i| json!({"name": format!("ENV_{i:06}")})).collect();
    json!({"spec": {
        "$setElementOrder/containers": [{"name": "app"}],
        "containers": [{"name": "app", "$setElementOrder/env": order}],
    }})
}

/// A patch of every tenth env var's value, plain or with kubectl's
/// `$setElementOrder` of every env var.
fn tenth_patch(n: usize, ordered: bool) -> Value {
    let env: Vec<Value> = (0..n)
        .step_by(10)
        .map(|i| json!({"name": format!("ENV_{i:06}"), "value": format!("patched-{i:06}")}))
        .collect();
    let mut container = json!({"name": "app", "env": env});
    if ordered {
        let order: Vec<Value> = (0..n).map(|i| json!({"name": format!("ENV_{i:06}")})).collect();
        container["$setElementOrder/env"] = Value::Array(order);
    }
    json!({"spec": {"$setElementOrder/containers": [{"name": "app"}], "containers": [container]}})
}

static CASES: LazyLock<Option<Vec<Case>>> = LazyLock::new(|| {
    let path = shared_dir().join("k8s/openapi-v3/api__v1_openapi.json");
    let bytes = std::fs::read(&path).ok()?;
    let doc: &'static OpenApi = Box::leak(Box::new(OpenApi::from_json_slice(&bytes).unwrap()));
    let schema = doc.definition("io.k8s.api.core.v1.Pod").unwrap();
    let original = pod(N);
    let ordered = apply(&original, &full_order_patch(N), schema).unwrap();
    assert_eq!(ordered, original, "the full $setElementOrder changes nothing");
    Some(vec![
        Case::new("pod-env100000 empty", schema, original.clone(), json!({})),
        Case::new("pod-env100000 full-order", schema, original.clone(), full_order_patch(N)),
        Case::new("pod-env100000 tenth", schema, original.clone(), tenth_patch(N, false)),
        Case::new("pod-env100000 tenth-ordered", schema, original, tenth_patch(N, true)),
    ])
});

fn case_args() -> Vec<String> {
    let Some(cases) = CASES.as_ref() else { return Vec::new() };
    cases.iter().flat_map(|c| WAYS.map(|way| format!("{} {way}", c.name))).collect()
}

#[divan::bench(args = case_args(), sample_count = 5, sample_size = 1)]
fn peak_memory(bencher: Bencher, arg: &str) {
    let (name, way) = arg.rsplit_once(' ').unwrap();
    let case = CASES.as_ref().unwrap().iter().find(|c| c.name == name).unwrap();
    bencher.bench(|| case.run(black_box(way)));
}
