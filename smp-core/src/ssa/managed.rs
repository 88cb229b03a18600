//! `metadata.managedFields` as the API server reads and writes it
//! (apimachinery's `managedfields/internal`): entries keyed by a manager
//! identifier (the JSON of the entry's manager, operation, apiVersion of an
//! `Update`, and subresource), each with its field set and time.

use super::fieldpath::Set;
use super::fieldsv1;
use super::time::Time;
use crate::value::go_json_string;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A manager's fields: the set, the apiVersion it was written at, and
/// whether it came from an apply.
#[derive(Clone, Debug, PartialEq)]
pub struct VersionedSet {
    /// The fields.
    pub set: Set,
    /// The apiVersion the manager wrote them at.
    pub api_version: String,
    /// Whether an apply wrote them.
    pub applied: bool,
}

/// The managers of an object: identifier → fields, identifier → time.
#[derive(Clone, Debug, Default)]
pub(crate) struct Managed {
    pub(crate) fields: BTreeMap<String, VersionedSet>,
    pub(crate) times: BTreeMap<String, Option<Time>>,
    /// The managers this operation stamped with its time.
    pub(crate) stamped: std::collections::BTreeSet<String>,
}

/// The parts of an entry that name its manager.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ManagerId {
    pub(crate) manager: String,
    pub(crate) operation: String,
    pub(crate) api_version: String,
    pub(crate) subresource: String,
}

impl ManagerId {
    /// `BuildManagerIdentifier`: the entry's JSON without fields and time,
    /// and without the apiVersion of an `Apply` (appliers are one manager
    /// across versions).
    pub(crate) fn identifier(&self) -> String {
        let mut out = String::from("{");
        let mut first = true;
        let mut field = |name: &str, v: &str, out: &mut String| {
            if v.is_empty() {
                return;
            }
            if !first {
                out.push(',');
            }
            first = false;
            out.push('"');
            out.push_str(name);
            out.push_str("\":");
            out.push_str(&go_json_string(v));
        };
        field("manager", &self.manager, &mut out);
        field("operation", &self.operation, &mut out);
        if self.operation != "Apply" {
            field("apiVersion", &self.api_version, &mut out);
        }
        field("subresource", &self.subresource, &mut out);
        out.push('}');
        out
    }

    /// The identifier read back (the reference unmarshals it).
    pub(crate) fn parse(identifier: &str) -> ManagerId {
        let v: Value = serde_json::from_str(identifier).unwrap_or(Value::Null);
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        ManagerId {
            manager: s("manager"),
            operation: s("operation"),
            api_version: s("apiVersion"),
            subresource: s("subresource"),
        }
    }

    /// How a conflict names its manager (`printManager`).
    pub(crate) fn print(identifier: &str) -> String {
        let Ok(v) = serde_json::from_str::<Value>(identifier) else {
            return super::value::go_quote(identifier);
        };
        if !v.is_object() {
            return super::value::go_quote(identifier);
        }
        let id = ManagerId::parse(identifier);
        let mut s = super::value::go_quote(&id.manager);
        if !id.subresource.is_empty() {
            s = format!("{s} with subresource {}", super::value::go_quote(&id.subresource));
        }
        if id.operation == "Update" {
            s = format!("{s} using {}", id.api_version);
        }
        s
    }
}

/// An entry as `GetManagedFields` reads it from an object.
#[derive(Clone, Debug, Default)]
pub(crate) struct Entry {
    pub(crate) id: ManagerId,
    pub(crate) time: Option<Time>,
    pub(crate) fields_type: String,
    pub(crate) fields_v1: Option<Value>,
}

/// The raw `metadata.managedFields` of an object, as the reference's
/// unstructured accessor reads it: `None` when absent, `null`, or not a list
/// of well-formed entries (the accessor then reports none).
pub(crate) fn entries_of(obj: &Value) -> Option<Vec<Entry>> {
    let list = obj.get("metadata")?.get("managedFields")?.as_array()?;
    let mut out = Vec::with_capacity(list.len());
    for item in list {
        let m = item.as_object()?;
        let s = |k: &str| -> Option<String> {
            match m.get(k) {
                None | Some(Value::Null) => Some(String::new()),
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => None,
            }
        };
        let time = match m.get("time") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(Time::parse(t)?),
            Some(_) => return None,
        };
        let fields_v1 = match m.get("fieldsV1") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.clone()),
        };
        out.push(Entry {
            id: ManagerId {
                manager: s("manager")?,
                operation: s("operation")?,
                api_version: s("apiVersion")?,
                subresource: s("subresource")?,
            },
            time,
            fields_type: s("fieldsType")?,
            fields_v1,
        });
    }
    Some(out)
}

/// Whether the entries ask to reset the managed fields (`[]`, or one empty
/// entry).
pub(crate) fn is_reset(entries: &Option<Vec<Entry>>) -> bool {
    match entries {
        Some(e) if e.is_empty() => true,
        Some(e) if e.len() == 1 => {
            let x = &e[0];
            x.id == ManagerId::default() && x.time.is_none() && x.fields_type.is_empty() && x.fields_v1.is_none()
        }
        _ => false,
    }
}

/// `DecodeManagedFields`.
pub(crate) fn decode(entries: &[Entry]) -> Result<Managed, String> {
    let mut managed = Managed::default();
    for (i, e) in entries.iter().enumerate() {
        if e.id.operation != "Apply" && e.id.operation != "Update" {
            return Err("operation must be `Apply` or `Update`".into());
        }
        if e.id.api_version.is_empty() {
            return Err("apiVersion must not be empty".into());
        }
        match e.fields_type.as_str() {
            "FieldsV1" => {}
            "" => return Err(format!("missing fieldsType in managed fields entry {i}")),
            other => {
                return Err(format!(
                    "invalid fieldsType {} in managed fields entry {i}",
                    super::value::go_quote(other)
                ));
            }
        }
        let set = match &e.fields_v1 {
            None => Set::new(),
            Some(v) => fieldsv1::decode(v).map_err(|err| {
                format!("error decoding versioned set from {}: error decoding set: {}", e.id.identifier(), err)
            })?,
        };
        let id = e.id.identifier();
        managed.fields.insert(
            id.clone(),
            VersionedSet { set, api_version: e.id.api_version.clone(), applied: e.id.operation == "Apply" },
        );
        managed.times.insert(id, e.time);
    }
    Ok(managed)
}

/// `encodeManagedFields`: the entries, sorted as the server sorts them
/// (operation, time, manager, apiVersion, subresource); `None` when there is
/// no manager.
pub(crate) fn encode(managed: &Managed) -> Option<Value> {
    if managed.fields.is_empty() {
        return None;
    }
    struct Out {
        id: ManagerId,
        time: Option<Time>,
        fields: Value,
    }
    let mut entries: Vec<Out> = managed
        .fields
        .iter()
        .map(|(ident, vs)| {
            let mut id = ManagerId::parse(ident);
            id.api_version = vs.api_version.clone();
            if vs.applied {
                id.operation = "Apply".into();
            }
            Out { id, time: managed.times.get(ident).copied().flatten(), fields: fieldsv1::encode(&vs.set) }
        })
        .collect();
    entries.sort_by(|p, q| {
        let secs = |t: &Option<Time>| t.map(|t| t.unix()).unwrap_or(0);
        p.id.operation
            .cmp(&q.id.operation)
            .then(secs(&p.time).cmp(&secs(&q.time)))
            .then_with(|| p.id.manager.cmp(&q.id.manager))
            .then_with(|| p.id.api_version.cmp(&q.id.api_version))
            .then_with(|| p.id.subresource.cmp(&q.id.subresource))
    });
    let list = entries
        .into_iter()
        .map(|e| {
            let mut m = Map::new();
            let mut put = |k: &str, v: &str| {
                if !v.is_empty() {
                    m.insert(k.into(), Value::String(v.into()));
                }
            };
            put("manager", &e.id.manager);
            put("operation", &e.id.operation);
            put("apiVersion", &e.id.api_version);
            put("subresource", &e.id.subresource);
            put("fieldsType", "FieldsV1");
            if let Some(t) = e.time {
                m.insert("time".into(), Value::String(t.to_string()));
            }
            m.insert("fieldsV1".into(), e.fields);
            Value::Object(m)
        })
        .collect();
    Some(Value::Array(list))
}
