//! What applying a two-way patch to its original gives in the reference:
//! the modified object, but for one change the reference's diff drops.
//!
//! The diff of a list of scalars merged as a set sorts the original list
//! *in place* (by Go's `%v` text) before comparing it with the modified
//! one (SEMANTICS §4.3, `diffListsOfScalars`). A modified list that holds
//! the same values, in that sorted order, then looks unchanged, no
//! `$setElementOrder` is emitted, and the original order stays.

use super::{Defs, Node};
use serde_json::{Map, Value};

/// `modified`, with the original order kept in sets whose change was only
/// a reordering into sorted order.
pub fn two_way_result(defs: &Defs, def: &str, original: &Value, modified: &Value) -> Value {
    let mut out = modified.clone();
    if let (Value::Object(o), Value::Object(m)) = (original, &mut out) {
        keep_struct(defs, def, o, m);
    }
    out
}

fn keep_struct(defs: &Defs, def: &str, original: &Map<String, Value>, modified: &mut Map<String, Value>) {
    for field in defs.fields(def) {
        let (Some(o), Some(m)) = (original.get(field.name), modified.get_mut(field.name)) else { continue };
        match (defs.node(field.schema), o, m) {
            (Node::List(_), Value::Array(os), Value::Array(ms)) if field.is_primitive_set(defs) => {
                let mut sorted = os.clone();
                sorted.sort_by_key(go_text);
                if sorted == *ms {
                    ms.clone_from(os);
                }
            }
            (Node::List(item), Value::Array(os), Value::Array(ms)) if field.is_keyed_list() => {
                let Some(item_def) = defs.target(item) else { continue };
                for mi in ms.iter_mut() {
                    let key = mi.get(field.merge_key).cloned();
                    let oi = os.iter().find(|oi| key.is_some() && oi.get(field.merge_key) == key.as_ref());
                    if let (Some(Value::Object(oi)), Value::Object(mi)) = (oi, mi) {
                        keep_struct(defs, item_def, oi, mi);
                    }
                }
            }
            (Node::Struct(d), Value::Object(oi), Value::Object(mi)) => keep_struct(defs, d, oi, mi),
            _ => {}
        }
    }
}

/// Go's `%v` text of a scalar, the sort key of the reference's diff.
fn go_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
