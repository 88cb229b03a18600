//! The kubectl flow refuses documents nested deeper than the engine's limit
//! before it copies or prints them; so does every public function of this
//! crate that takes a document or a typed value (`ENTRY_POINTS`, checked
//! against the sources as smp-core's `entry_point_depth` test checks its own).

use serde_json::{Map, Value, json};
use smp_core::{ErrorKind, MAX_DEPTH, Schema};
use smp_k8s_types::crd_schema;
use smp_k8s_types::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceValidation, JSONSchemaProps,
};
use smp_k8s_types::kubectl::{apply_patch, last_applied, merge_apply_patch, typed_apply_patch, with_last_applied};

/// `{"a": {"a": ... leaf}}`, built without recursion.
fn nested(depth: usize, leaf: Value) -> Value {
    let mut v = leaf;
    for _ in 0..depth {
        let mut m = Map::new();
        m.insert("a".into(), v);
        v = Value::Object(m);
    }
    v
}

/// Drops a deep value without recursing (serde_json's drop recurses).
fn dismantle(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => stack.extend(m.into_iter().map(|(_, v)| v)),
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
}

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(f).unwrap();
    handle.join().expect("no stack overflow");
}

#[test]
fn apply_patch_refuses_a_hundred_thousand_levels() {
    on_small_stack(|| {
        // Put in place, not through `json!`, which serialises (recursively) what it is given.
        let object = |data: Value| {
            let mut o = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
            o.as_object_mut().unwrap().insert("data".into(), data);
            o
        };
        let deep = object(nested(100_000, json!(1)));
        let shallow = object(json!({"a": "1"}));
        for (live, desired) in [(&deep, &shallow), (&shallow, &deep)] {
            let err = apply_patch(live, desired, Schema::Untyped, true).unwrap_err();
            assert_eq!(err.kind, ErrorKind::TooDeep(MAX_DEPTH));
            let err = merge_apply_patch(live, desired).unwrap_err();
            assert_eq!(err.kind, ErrorKind::TooDeep(MAX_DEPTH));
        }
        dismantle(deep);
    });
}

#[test]
fn typed_apply_patch_refuses_a_deep_custom_resource_schema() {
    on_small_stack(|| {
        let mut props = JSONSchemaProps::default();
        for _ in 0..10_000 {
            props = JSONSchemaProps { not: Some(Box::new(props)), ..Default::default() };
        }
        let mut crd = CustomResourceDefinition::default();
        crd.spec.versions = vec![Default::default()];
        crd.spec.versions[0].schema = Some(CustomResourceValidation { open_api_v3_schema: Some(props) });
        let err = typed_apply_patch(&crd, &CustomResourceDefinition::default(), true).unwrap_err();
        assert_eq!(err.kind, ErrorKind::TooDeep(MAX_DEPTH));
        // Dropped without recursion.
        let mut next = crd.spec.versions.pop().and_then(|v| v.schema).and_then(|s| s.open_api_v3_schema);
        while let Some(mut p) = next {
            next = p.not.take().map(|b| *b);
        }
    });
}

/// A CRD whose schema nests `levels` objects in its JSON (`not` of `not`
/// of ...: the CRD itself, `spec`, `versions`, the version, `schema`,
/// `openAPIV3Schema` and the chain).
fn deep_crd(levels: usize) -> CustomResourceDefinition {
    let mut props = JSONSchemaProps::default();
    for _ in 0..levels.saturating_sub(6) {
        props = JSONSchemaProps { not: Some(Box::new(props)), ..Default::default() };
    }
    let mut crd = CustomResourceDefinition::default();
    crd.spec.versions = vec![Default::default()];
    crd.spec.versions[0].schema = Some(CustomResourceValidation { open_api_v3_schema: Some(props) });
    crd
}

/// Drops a CRD of [`deep_crd`] without recursion.
fn drop_crd(mut crd: CustomResourceDefinition) {
    let mut next = crd.spec.versions.pop().and_then(|v| v.schema).and_then(|s| s.open_api_v3_schema);
    while let Some(mut p) = next {
        next = p.not.take().map(|b| *b);
    }
}

fn too_deep<T>(r: smp_core::Result<T>) -> bool {
    matches!(r, Err(e) if e.kind == ErrorKind::TooDeep(MAX_DEPTH))
}

fn with_doc(levels: usize, f: impl FnOnce(&Value) -> bool) -> bool {
    let d = nested(levels, json!(1));
    let refused = f(&d);
    dismantle(d);
    refused
}

fn with_crd(levels: usize, f: impl FnOnce(&CustomResourceDefinition) -> bool) -> bool {
    let crd = deep_crd(levels);
    let refused = f(&crd);
    drop_crd(crd);
    refused
}

/// An entry point, called with input `levels` deep; `true` when refused
/// as too deep.
struct EntryPoint {
    name: &'static str,
    refused: fn(usize) -> bool,
}

const fn entry(name: &'static str, refused: fn(usize) -> bool) -> EntryPoint {
    EntryPoint { name, refused }
}

const ENTRY_POINTS: &[EntryPoint] = &[
    entry("kubectl::with_last_applied", |n| with_doc(n, |d| too_deep(with_last_applied(d)))),
    entry("kubectl::last_applied", |n| with_doc(n, |d| too_deep(last_applied(d)))),
    entry("kubectl::apply_patch (live)", |n| {
        with_doc(n, |d| too_deep(apply_patch(d, &json!({}), Schema::Untyped, true)))
    }),
    entry("kubectl::apply_patch (desired)", |n| {
        with_doc(n, |d| too_deep(apply_patch(&json!({}), d, Schema::Untyped, true)))
    }),
    entry("kubectl::merge_apply_patch", |n| with_doc(n, |d| too_deep(merge_apply_patch(&json!({}), d)))),
    entry("kubectl::typed_apply_patch", |n| {
        with_crd(n, |c| too_deep(typed_apply_patch(c, &CustomResourceDefinition::default(), true)))
    }),
    entry("crd_schema::openapi", |n| {
        with_doc(n, |d| {
            crd_schema::openapi(std::slice::from_ref(d), None)
                .is_err_and(|e| e.contains(&format!("deeper than {MAX_DEPTH}")))
        })
    }),
    entry("crd_schema::check", |n| {
        with_doc(n, |d| {
            crd_schema::check(std::slice::from_ref(d), None)
                .is_err_and(|e| e.contains(&format!("deeper than {MAX_DEPTH}")))
        })
    }),
    #[cfg(feature = "kube")]
    entry("api::patch_for", |n| {
        use smp_k8s_types::api::{Lock, Route, patch_for};
        with_crd(n, |c| {
            let mut live = CustomResourceDefinition::default();
            live.metadata.resource_version = Some("1".into());
            matches!(patch_for(Route::Strategic, Lock::None, &live, c), Err(e) if e.to_string().contains("deeper than"))
        })
    }),
    #[cfg(feature = "kube")]
    entry("StrategicPatch::strategic_patch", |n| {
        use smp_k8s_types::StrategicPatch;
        with_crd(n, |c| too_deep(CustomResourceDefinition::default().strategic_patch(c)))
    }),
    #[cfg(feature = "kube")]
    entry("StrategicPatch::strategic_patch_if_changed", |n| {
        use smp_k8s_types::StrategicPatch;
        with_crd(n, |c| too_deep(c.strategic_patch_if_changed(&CustomResourceDefinition::default())))
    }),
    #[cfg(feature = "kube")]
    entry("StrategicPatch::strategic_patch_with_lock", |n| {
        use smp_k8s_types::StrategicPatch;
        with_crd(n, |c| {
            let mut live = CustomResourceDefinition::default();
            live.metadata.resource_version = Some("1".into());
            matches!(live.strategic_patch_with_lock(c), Err(e) if e.to_string().contains("deeper than"))
        })
    }),
    #[cfg(feature = "kube")]
    entry("StrategicPatch::strategic_patch_with_lock_if_changed", |n| {
        use smp_k8s_types::StrategicPatch;
        with_crd(n, |c| {
            let mut live = CustomResourceDefinition::default();
            live.metadata.resource_version = Some("1".into());
            matches!(live.strategic_patch_with_lock_if_changed(c), Err(e) if e.to_string().contains("deeper than"))
        })
    }),
    #[cfg(feature = "kube")]
    entry("StrategicPatch::kubectl_apply_patch", |n| {
        use smp_k8s_types::StrategicPatch;
        with_crd(n, |c| too_deep(c.kubectl_apply_patch(&CustomResourceDefinition::default(), true)))
    }),
];

/// Entry points that refuse deep input on a small stack, but whose work at
/// the limit needs a thread's default 8 MiB: finding the fields a typed
/// object leaves at their defaults reads it back with serde, whose frames
/// per level are large in debug builds.
const LARGE_STACK_ENTRY_POINTS: &[EntryPoint] = &[
    #[cfg(feature = "kube")]
    entry("server_side::apply_configuration", |n| {
        with_crd(n, |c| too_deep(smp_k8s_types::server_side::apply_configuration(c)))
    }),
    #[cfg(feature = "kube")]
    entry("server_side::preview_apply_with", |n| {
        use smp_k8s_types::server_side::{PreviewError, preview_apply_with};
        let schema = smp_core::ssa::DerivedSchema::of_spec::<String>("v1", "T").unwrap();
        let deep = |r: Result<_, PreviewError>| matches!(r, Err(e) if e.to_string().contains("deeper than"));
        with_crd(n, |c| {
            deep(preview_apply_with(&schema.resource(), None, c, "m", false, "2026-01-01T00:00:00Z"))
                && deep(preview_apply_with(
                    &schema.resource(),
                    Some(c),
                    &CustomResourceDefinition::default(),
                    "m",
                    false,
                    "2026-01-01T00:00:00Z",
                ))
        })
    }),
];

/// Public functions that take a document but need no check of their own.
const NOT_ENTRY_POINTS: &[(&str, &str)] = &[
    ("server_side::apply_patch", "wraps `server_side::apply_configuration`, which checks"),
    ("server_side::preview_apply", "calls `server_side::preview_apply_with`, which checks"),
    ("PatchFrom::apply_from", "sends what `server_side::apply_patch` computes, which checks"),
    ("PatchFrom::patch_from", "sends what `api::patch_for` computes, which checks"),
    ("PatchFrom::patch_from_with_lock", "sends what `api::patch_for` computes, which checks"),
    ("PatchFrom::patch_from_via", "sends what `api::patch_for` computes, which checks"),
];

#[test]
fn every_entry_point_refuses_ten_thousand_levels_and_accepts_the_limit() {
    on_stack(2 * 1024 * 1024, || refusals(ENTRY_POINTS, &[10_000, MAX_DEPTH + 1, MAX_DEPTH]));
    on_stack(2 * 1024 * 1024, || refusals(LARGE_STACK_ENTRY_POINTS, &[10_000, MAX_DEPTH + 1]));
    on_stack(8 * 1024 * 1024, || refusals(LARGE_STACK_ENTRY_POINTS, &[MAX_DEPTH]));
}

fn on_stack(size: usize, f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new().stack_size(size).spawn(f).unwrap();
    handle.join().expect("no stack overflow");
}

/// Each entry point called at each depth: refused as too deep above
/// [`MAX_DEPTH`], accepted at it.
fn refusals(entries: &'static [EntryPoint], depths: &'static [usize]) {
    {
        let mut wrong = Vec::new();
        for e in entries {
            for (levels, refused) in depths.iter().map(|&l| (l, l > MAX_DEPTH)) {
                if (e.refused)(levels) != refused {
                    wrong.push(format!(
                        "{}: {levels} levels {}refused as too deep",
                        e.name,
                        if refused { "not " } else { "" }
                    ));
                }
            }
        }
        let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
        println!("{} entry points covered at {depths:?} levels:\n  {}", names.len(), names.join("\n  "));
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}

/// The public functions of a source file that take a document (a
/// `Value`, a typed value): `pub fn` items and the methods of public traits.
fn functions_taking_documents(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_public_trait = false;
    let lines: Vec<&str> = source.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("pub trait ") {
            in_public_trait = true;
        } else if line.starts_with('}') {
            in_public_trait = false;
        }
        if !(trimmed.starts_with("pub fn ") || (in_public_trait && trimmed.starts_with("fn "))) {
            continue;
        }
        let signature = lines[i..].iter().take(12).copied().collect::<Vec<_>>().join(" ");
        let signature = signature.split('{').next().unwrap();
        let name = signature.split("fn ").nth(1).unwrap().split(['(', '<']).next().unwrap().to_string();
        let params = parameters(signature).replace("&self", "");
        if ["Value", "&Self", "&T", "&K"].iter().any(|t| params.contains(t)) {
            found.push(name);
        }
    }
    found
}

/// The text between the first `(` of a signature and its matching `)`.
fn parameters(signature: &str) -> &str {
    let Some(start) = signature.find('(') else { return "" };
    let mut open = 0;
    for (i, c) in signature[start..].char_indices() {
        match c {
            '(' => open += 1,
            ')' if open == 1 => return &signature[start + 1..start + i],
            ')' => open -= 1,
            _ => {}
        }
    }
    ""
}

#[test]
fn every_public_function_taking_a_document_is_listed() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let listed: Vec<&str> = (ENTRY_POINTS.iter().chain(LARGE_STACK_ENTRY_POINTS).map(|e| e.name))
        .chain(NOT_ENTRY_POINTS.iter().map(|(name, _)| *name))
        .collect();
    let base = |l: &str| l.split(' ').next().unwrap().rsplit("::").next().unwrap().to_string();
    let mut missing = Vec::new();
    // The modules behind the `kube` feature are read when it is on.
    let files: &[&str] = if cfg!(feature = "kube") {
        &["kubectl.rs", "crd_schema.rs", "api.rs", "patch.rs", "crd.rs", "server_side.rs"]
    } else {
        &["kubectl.rs", "crd_schema.rs"]
    };
    for file in files {
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        for f in functions_taking_documents(&source) {
            if !listed.iter().any(|l| base(l) == f) {
                missing.push(format!("{file}: {f}"));
            }
        }
    }
    assert!(missing.is_empty(), "public functions taking a document, not in the depth test:\n{}", missing.join("\n"));
}
