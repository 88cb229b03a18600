//! Which fields with a patch strategy a run exercised.

use super::{Defs, Node};
use serde_json::Value;
use std::collections::BTreeSet;

/// A field as (definition name, JSON field name).
pub type DefField = (String, String);

/// Every generated field with a patch strategy reachable from `root`.
pub fn strategy_fields(defs: &Defs, root: &str) -> BTreeSet<DefField> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![root.to_string()];
    let mut out = BTreeSet::new();
    while let Some(def) = todo.pop() {
        if !seen.insert(def.clone()) {
            continue;
        }
        for field in defs.fields(&def) {
            if !field.strategy.is_empty() {
                out.insert((def.clone(), field.name.to_string()));
            }
            todo.extend(defs.target(field.schema).map(String::from));
        }
    }
    out
}

/// Adds to `out` the fields with a patch strategy that `value`, an object
/// of definition `def` (or a patch for one), holds.
pub fn touched_strategy_fields(defs: &Defs, def: &str, value: &Value, out: &mut BTreeSet<DefField>) {
    let Value::Object(map) = value else { return };
    for field in defs.fields(def) {
        let Some(v) = map.get(field.name).filter(|v| !v.is_null()) else { continue };
        if !field.strategy.is_empty() {
            out.insert((def.to_string(), field.name.to_string()));
        }
        touched_below(defs, field.schema, v, out);
    }
}

fn touched_below(defs: &Defs, schema: &Value, value: &Value, out: &mut BTreeSet<DefField>) {
    match (defs.node(schema), value) {
        (Node::Struct(def), _) => touched_strategy_fields(defs, def, value, out),
        (Node::List(item), Value::Array(items)) => items.iter().for_each(|v| touched_below(defs, item, v, out)),
        (Node::Map(values), Value::Object(entries)) => {
            entries.values().for_each(|v| touched_below(defs, values, v, out))
        }
        _ => {}
    }
}
