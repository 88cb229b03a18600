//! The messages of Kubernetes' protobuf encoding, read once from
//! `messages.txt` (written by `scripts/k8s-protobuf-table.py` from the
//! `generated.proto` files and the Go structs of k8s.io/api and
//! k8s.io/apimachinery).

use std::collections::HashMap;
use std::sync::OnceLock;

const TEXT: &str = include_str!("messages.txt");

/// How a field repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// One value.
    One,
    /// A list.
    Repeated,
    /// A map: entries with the key at 1 and the value at 2.
    Map,
}

/// One field of a message.
#[derive(Debug)]
pub struct Field {
    pub number: u32,
    /// The JSON name (`-` for an inlined field).
    pub json: &'static str,
    pub label: Label,
    /// A scalar (`string`, `int32`, ...) or a full message name; for a map,
    /// its value's (keys are strings).
    pub type_name: &'static str,
    /// A Go pointer: absent means omitted, zero is kept.
    pub pointer: bool,
    /// `omitempty`: zero values are omitted.
    pub omit_empty: bool,
    /// Its fields are its parent's in JSON.
    pub inline: bool,
}

/// One message.
#[derive(Debug, Default)]
pub struct Message {
    pub fields: Vec<Field>,
    /// A Go slice type: its JSON is the array of its field 1.
    pub list: bool,
}

impl Message {
    pub fn field(&self, number: u32) -> Option<&Field> {
        self.fields.iter().find(|f| f.number == number)
    }
}

/// Every message, by full name (`k8s.io.api.core.v1.ConfigMap`).
pub fn messages() -> &'static HashMap<&'static str, Message> {
    static TABLE: OnceLock<HashMap<&'static str, Message>> = OnceLock::new();
    TABLE.get_or_init(|| parse(TEXT))
}

fn parse(text: &'static str) -> HashMap<&'static str, Message> {
    let mut out = HashMap::new();
    let mut current: Option<(&str, Message)> = None;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        if let Some(header) = line.strip_prefix("message ") {
            if let Some((name, message)) = current.take() {
                out.insert(name, message);
            }
            let (name, list) = match header.strip_suffix(" list") {
                Some(name) => (name, true),
                None => (header, false),
            };
            current = Some((name, Message { fields: Vec::new(), list }));
            continue;
        }
        let parts: Vec<&'static str> = line.split(' ').collect();
        let (Some((_, message)), [number, json, label, type_name, flags]) = (current.as_mut(), parts.as_slice()) else {
            continue;
        };
        let label = match *label {
            "rep" => Label::Repeated,
            "map" => Label::Map,
            _ => Label::One,
        };
        let type_name =
            if label == Label::Map { type_name.split_once(',').map_or(*type_name, |(_, v)| v) } else { type_name };
        message.fields.push(Field {
            number: number.parse().unwrap_or(0),
            json,
            label,
            type_name,
            pointer: flags.contains('p'),
            omit_empty: flags.contains('o'),
            inline: flags.contains('i'),
        });
    }
    if let Some((name, message)) = current {
        out.insert(name, message);
    }
    out
}

/// The message of a kind: `v1` `ConfigMap` is `k8s.io.api.core.v1.ConfigMap`,
/// `networking.k8s.io/v1` `Ingress` is `k8s.io.api.networking.v1.Ingress`.
pub fn message_of(api_version: &str, kind: &str) -> Option<(&'static str, &'static Message)> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let package = match group.split('.').next().unwrap_or_default() {
        "" => "core",
        "internal" => "apiserverinternal",
        first => first,
    };
    let name = format!("k8s.io.api.{package}.{version}.{kind}");
    let found = messages().get_key_value(name.as_str());
    // Options are sent with the group version of the request.
    let found = found.or_else(|| match kind {
        "DeleteOptions" => messages().get_key_value("k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions"),
        _ => None,
    });
    found.map(|(k, v)| (*k, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_the_kinds_with_their_fields() {
        let (name, cm) = message_of("v1", "ConfigMap").unwrap();
        assert_eq!(name, "k8s.io.api.core.v1.ConfigMap");
        let data = cm.field(2).unwrap();
        assert_eq!((data.json, data.label, data.type_name, data.omit_empty), ("data", Label::Map, "string", true));
        assert_eq!(cm.field(3).unwrap().type_name, "bytes");
        let immutable = cm.field(4).unwrap();
        assert!(immutable.pointer);
        let (_, ingress) = message_of("networking.k8s.io/v1", "Ingress").unwrap();
        assert_eq!(ingress.field(1).unwrap().type_name, "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
        assert!(message_of("example.com/v1", "Backend").is_none());
        let (options, _) = message_of("apps/v1", "DeleteOptions").unwrap();
        assert_eq!(options, "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions");
        let volume = &messages()["k8s.io.api.core.v1.Volume"];
        assert!(volume.field(2).unwrap().inline);
        assert!(messages()["k8s.io.api.authentication.v1.ExtraValue"].list);
    }
}
