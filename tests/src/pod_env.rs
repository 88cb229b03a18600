//! The Pod scaling series of the shared bench cases (`pod-env<N>.<op>`),
//! at any size. Self-contained (serde_json only), so that the engine
//! benchmark includes this very file instead of keeping a copy.

use serde_json::{Map, Value, json};

/// A Pod whose one container has `n` env vars, with every tenth value
/// changed when `changed`.
pub fn pod(n: usize, changed: bool) -> Value {
    let env: Vec<Value> = (0..n)
        .map(|i| {
            let value = if changed && i % 10 == 0 { format!("changed-{i:06}") } else { format!("value-{i:06}") };
            json!({"name": format!("ENV_{i:06}"), "value": value})
        })
        .collect();
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": format!("scale-{n}"), "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "busybox:1.36", "env": env}]}
    })
}

/// The case `pod-env<n>.<variant>` as the shipped files hold it (without
/// `description` and `expected`). Variants: `apply` (every tenth env var
/// changed by a plain patch), `apply-ordered` (the same with
/// `$setElementOrder`, as kubectl sends it: `diff` computes it), `twoway`,
/// `threeway`, and `apply-label` (a patch that only adds a label).
pub fn pod_env_case(n: usize, variant: &str, diff: impl FnOnce(&Value, &Value) -> Value) -> Value {
    let (original, modified) = (pod(n, false), pod(n, true));
    let mut case = Map::new();
    case.insert("kind".into(), json!("Pod"));
    match variant {
        "apply" => {
            let env: Vec<Value> =
                modified["spec"]["containers"][0]["env"].as_array().unwrap().iter().step_by(10).cloned().collect();
            case.insert("op".into(), json!("apply"));
            case.insert("patch".into(), json!({"spec": {"containers": [{"name": "app", "env": env}]}}));
        }
        "apply-ordered" => {
            case.insert("op".into(), json!("apply"));
            case.insert("patch".into(), diff(&original, &modified));
        }
        "apply-label" => {
            case.insert("op".into(), json!("apply"));
            case.insert("patch".into(), json!({"metadata": {"labels": {"tier": "web"}}}));
        }
        "twoway" => {
            case.insert("op".into(), json!("twoway"));
            case.insert("modified".into(), modified);
        }
        "threeway" => {
            let mut current = original.clone();
            current["metadata"]["uid"] = json!("0b6e6d9e-1111-2222-3333-444455556666");
            current["metadata"]["resourceVersion"] = json!("1");
            current["status"] = json!({"phase": "Running"});
            case.insert("op".into(), json!("threeway"));
            case.insert("overwrite".into(), json!(true));
            case.insert("modified".into(), modified);
            case.insert("current".into(), current);
        }
        other => panic!("unknown variant {other:?}"),
    }
    case.insert("original".into(), original);
    Value::Object(case)
}
