//! What an apply would do, before it is sent: the object it would leave,
//! the fields the applier would own, the fields other managers would lose,
//! and the conflicts a non-forced apply meets. Nothing is written: this is
//! [`apply`](super::apply) twice at most (unforced, then forced when asked)
//! and a comparison of the `managedFields` before and after.

use super::conflicts::Conflict;
use super::fieldpath::Set;
use super::managed::{self, Managed, ManagerId};
use super::{Error, Resource, apply};
use serde_json::Value;

/// A manager's fields, named as `managedFields` names the manager.
#[derive(Clone, Debug, PartialEq)]
pub struct ManagerFields {
    /// The manager's name.
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    /// The fields.
    pub fields: Set,
}

/// What an apply would do ([`preview`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Preview {
    /// The object the apply would leave, with its `managedFields`; `None`
    /// when it would be refused for conflicts (not forced).
    pub object: Option<Value>,
    /// Whether the object, `managedFields` aside, would change.
    pub changed: bool,
    /// The fields other managers own that the apply would change: the
    /// conflicts of an unforced apply, taken over by a forced one.
    pub conflicts: Vec<Conflict>,
    /// The fields the applier would own afterwards.
    pub owned: Set,
    /// The fields each other manager would lose (taken over by force, or
    /// removed from the object).
    pub lost: Vec<ManagerFields>,
}

fn managers_of(obj: Option<&Value>) -> Managed {
    obj.and_then(managed::entries_of).and_then(|e| managed::decode(&e).ok()).unwrap_or_default()
}

fn without_managed_fields(obj: &Value) -> Value {
    let mut copy = obj.clone();
    if let Some(Value::Object(meta)) = copy.get_mut("metadata") {
        meta.remove("managedFields");
    }
    copy
}

/// Previews an apply of `applied` by `manager` to `live` (arguments as
/// [`apply`]). An error is an input the apply would refuse for another
/// reason than conflicts.
pub fn preview(
    res: &Resource,
    live: Option<&Value>,
    applied: &Value,
    manager: &str,
    force: bool,
    now: &str,
) -> Result<Preview, Error> {
    let (result, conflicts) = match apply(res, live, applied, manager, false, now) {
        Err(Error::Conflicts(c)) if force => (apply(res, live, applied, manager, true, now)?, c.0),
        Err(Error::Conflicts(c)) => {
            return Ok(Preview { object: None, changed: false, conflicts: c.0, owned: Set::new(), lost: Vec::new() });
        }
        other => (other?, Vec::new()),
    };
    let (before, after) = (managers_of(live), managers_of(Some(&result)));
    let mut owned = Set::new();
    let mut lost = Vec::new();
    for (id, vs) in &after.fields {
        let who = ManagerId::parse(id);
        if who.manager == manager && who.operation == "Apply" {
            owned = vs.set.clone();
        }
    }
    for (id, vs) in &before.fields {
        let who = ManagerId::parse(id);
        if who.manager == manager && who.operation == "Apply" {
            continue;
        }
        let gone = match after.fields.get(id) {
            Some(now) => vs.set.difference(&now.set),
            None => vs.set.clone(),
        };
        if !gone.is_empty() {
            lost.push(ManagerFields { manager: who.manager, operation: who.operation, fields: gone });
        }
    }
    let changed = live.is_none_or(|l| without_managed_fields(l) != without_managed_fields(&result));
    Ok(Preview { object: Some(result), changed, conflicts, owned, lost })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssa::Schema;
    use serde_json::json;

    fn schema() -> Schema {
        Schema::from_openapi_v3(&json!({"components": {"schemas": {"T": {
            "type": "object",
            "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "T"}],
            "properties": {
                "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                "metadata": {"type": "object"},
                "spec": {"type": "object", "properties": {
                    "replicas": {"type": "integer"}, "image": {"type": "string"}
                }}
            }
        }}}}))
        .unwrap()
    }

    fn cfg(spec: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "T", "metadata": {"name": "a"}, "spec": spec})
    }

    #[test]
    fn a_preview_names_conflicts_owners_and_losses() {
        let s = schema();
        let res = Resource::for_kind(&s, "example.com/v1", "T").unwrap();
        let t = "2026-01-01T00:00:00Z";
        let live = apply(&res, None, &cfg(json!({"replicas": 2, "image": "a"})), "alice", false, t).unwrap();
        let bob = cfg(json!({"replicas": 3}));

        let p = preview(&res, Some(&live), &bob, "bob", false, t).unwrap();
        assert_eq!(p.object, None);
        let fields: Vec<_> = p.conflicts.iter().map(|c| (c.manager.as_str(), c.field.as_str())).collect();
        assert_eq!(fields, [("alice", ".spec.replicas")]);

        let p = preview(&res, Some(&live), &bob, "bob", true, t).unwrap();
        let forced = apply(&res, Some(&live), &bob, "bob", true, t).unwrap();
        assert_eq!(p.object.as_ref(), Some(&forced), "the object a forced apply leaves");
        assert!(p.changed);
        assert_eq!(p.conflicts.len(), 1);
        let paths = |s: &Set| s.iter_paths().iter().map(ToString::to_string).collect::<Vec<_>>();
        assert_eq!(paths(&p.owned), [".spec.replicas"]);
        assert_eq!(p.lost.len(), 1);
        assert_eq!((p.lost[0].manager.as_str(), p.lost[0].operation.as_str()), ("alice", "Apply"));
        assert_eq!(paths(&p.lost[0].fields), [".spec.replicas"]);

        // Alice applying what she applied: nothing changes, nobody loses.
        let again = preview(&res, Some(&live), &cfg(json!({"replicas": 2, "image": "a"})), "alice", false, t).unwrap();
        assert!(!again.changed);
        assert!(again.lost.is_empty() && again.conflicts.is_empty());
        assert_eq!(again.object.as_ref(), Some(&live));
    }
}
