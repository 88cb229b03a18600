use serde::{Deserialize, Serialize};
use smp_core::StrategicMerge;
use smp_core::schema::{MergeKey, Shape};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Port {
    port: u16,
    // A composite key's field after the first may be left out of an
    // element, once it says how it is defaulted.
    #[serde(default = "tcp", skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
    #[serde(default)]
    name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
struct Spec {
    #[patch(strategy = "merge", merge_key = "port,protocol,name")]
    ports: Vec<Port>,
}

fn tcp() -> Option<String> {
    Some("TCP".into())
}

fn main() {
    let Shape::Struct(spec) = Spec::shape() else { panic!("a struct") };
    // A type's own key of several fields: elements are named by all of them.
    assert_eq!(spec.fields[0].merge_key, Some(MergeKey::Composite(&["port", "protocol", "name"])));
    assert_eq!(spec.fields[0].meta().key_name(), Some("port"));
}
