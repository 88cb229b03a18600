//! Finding the fields that kubectl's Go types do not have (kubectl may be
//! older than the OpenAPI documents).

use super::{Defs, Node, Scalar};
use serde_json::{Map, Value, json};

/// An object of definition `def` holding every field whose value is an
/// object or a list (keyed lists with one item), down to where types
/// recurse. kubectl, patching such an object with itself, looks up the
/// patch metadata of every one of those fields in its Go types, and fails
/// on the first it does not know.
pub fn probe_tree(defs: &Defs, def: &str) -> Value {
    tree(defs, def, &mut Vec::new())
}

fn tree<'a>(defs: &'a Defs, def: &'a str, stack: &mut Vec<&'a str>) -> Value {
    stack.push(def);
    let mut out = Map::new();
    for field in defs.fields(def) {
        let value = match defs.node(field.schema) {
            Node::Struct(d) if !stack.contains(&d) => tree(defs, d, stack),
            Node::List(item) if field.is_keyed_list() => match defs.node(item) {
                Node::Struct(d) if !stack.contains(&d) => {
                    let mut item = tree(defs, d, stack);
                    item[field.merge_key] = key_of_type(defs, d, field.merge_key);
                    json!([item])
                }
                _ => json!([]),
            },
            Node::List(_) => json!([]),
            Node::Map(_) | Node::Any => json!({}),
            Node::Struct(_) | Node::Scalar(_) => continue,
        };
        out.insert(field.name.to_string(), value);
    }
    stack.pop();
    Value::Object(out)
}

fn key_of_type(defs: &Defs, def: &str, key: &str) -> Value {
    let field = defs.fields(def).into_iter().find(|f| f.name == key);
    match field.map(|f| defs.node(f.schema)) {
        Some(Node::Scalar(Scalar::Integer)) => json!(1),
        _ => json!("k"),
    }
}
