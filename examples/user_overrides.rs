//! User overrides: an operator generates a pod-like spec and lets users
//! adjust it with a partial spec that uses strategic merge directives:
//! `$patch: delete` removes a generated container, `$setElementOrder` puts
//! the containers in the user's order, a `null` removes a generated field.
//!
//! Run with `cargo run --example user_overrides`.

use serde::{Deserialize, Serialize};
use serde_json::json;
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct PodSpec {
    #[patch(strategy = "merge", merge_key = "name")]
    containers: Vec<Container>,
    #[serde(rename = "serviceAccountName", skip_serializing_if = "Option::is_none")]
    service_account_name: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Container {
    name: String,
    image: String,
    #[patch(strategy = "merge", merge_key = "name")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    env: Vec<EnvVar>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct EnvVar {
    name: String,
    value: String,
}

fn env(name: &str, value: &str) -> EnvVar {
    EnvVar { name: name.into(), value: value.into() }
}

fn main() {
    let generated = PodSpec {
        containers: vec![
            Container { name: "app".into(), image: "app:2.3".into(), env: vec![env("LOG", "info")] },
            Container { name: "metrics".into(), image: "exporter:1".into(), env: vec![] },
            Container { name: "proxy".into(), image: "envoy:1.30".into(), env: vec![] },
        ],
        service_account_name: Some("backend".into()),
    };

    let overrides = json!({
        "$setElementOrder/containers": [{"name": "proxy"}, {"name": "app"}],
        "containers": [
            {"name": "app", "env": [{"name": "LOG", "value": "debug"}, {"name": "TRACE", "value": "1"}]},
            {"name": "metrics", "$patch": "delete"}
        ],
        "serviceAccountName": null
    });

    match generated.apply(&overrides) {
        Ok(spec) => {
            println!("{}", serde_json::to_string_pretty(&spec).expect("JSON"));
            let names: Vec<&str> = spec.containers.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(names, ["proxy", "app"]);
            assert_eq!(spec.service_account_name, None);
        }
        Err(e) => eprintln!("the overrides do not apply: {e}"),
    }

    // A bad override names the offending place and leaves the spec alone.
    let bad = json!({"containers": [{"image": "no-name"}]});
    let err = generated.apply(&bad).unwrap_err();
    println!("\nrejected override: {err}");
}
