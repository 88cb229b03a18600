use serde::{Deserialize, Serialize};
use serde_json::json;
use smp_core::StrategicMerge;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
#[serde(rename_all = "camelCase")]
struct Port {
    container_port: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(strategy = "merge", merge_key = "containerPort")]
    ports: Vec<Port>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[patch(strategy = "merge", merge_key = "containerPort")]
    extra_ports: Option<Vec<Port>>,
    #[patch(strategy = "merge")]
    finalizers: Vec<String>,
}

fn main() {
    let live = Spec {
        ports: vec![Port { container_port: 80, protocol: None }],
        extra_ports: None,
        finalizers: vec!["a".into()],
    };
    let mut desired = live.clone();
    desired.ports.push(Port { container_port: 443, protocol: Some("TCP".into()) });
    let patch = live.diff(&desired).unwrap();
    assert_eq!(
        patch,
        json!({
            "$setElementOrder/ports": [{"containerPort": 80}, {"containerPort": 443}],
            "ports": [{"containerPort": 443, "protocol": "TCP"}]
        })
    );
    assert_eq!(live.apply(&patch).unwrap(), desired);
}
