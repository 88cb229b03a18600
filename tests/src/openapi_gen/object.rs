//! New random objects and subtrees.

use super::scalars::{KEYS, is_text_field};
use super::{Field, Gen, Node, Scalar};
use serde_json::{Map, Value, json};

/// Beyond this depth only required fields are generated.
const MAX_DEPTH: usize = 10;
/// The chance of an optional field on a path to a field with a strategy.
const FAVOURED: f64 = 0.45;
/// The chance of any other optional field.
const RARE: f64 = 0.06;
/// Tries at drawing a merge key not yet used in a list.
const KEY_TRIES: usize = 8;
/// The chance of an empty list or map.
const EMPTY: f64 = 0.05;

impl<'a> Gen<'a> {
    /// A random object of a built-in kind, with its `apiVersion`, `kind`
    /// and `metadata.name` set.
    pub fn object(&mut self, api_version: &str, kind: &str) -> Value {
        let def = self.defs.kind_definition(api_version, kind).unwrap_or_else(|e| panic!("{e}"));
        let mut object = self.struct_value(def, 0, &mut Vec::new());
        let metadata = object.entry("metadata").or_insert_with(|| json!({}));
        metadata["name"] = json!("object");
        Value::Object(object)
    }

    /// The fields of a definition; `stack` holds the definitions above, so
    /// that recursive types stop.
    pub(super) fn struct_value(&mut self, def: &'a str, depth: usize, stack: &mut Vec<&'a str>) -> Map<String, Value> {
        stack.push(def);
        let mut out = Map::new();
        for field in self.defs.fields(def) {
            if self.include(&field, depth, stack) {
                let value = self.field_value(&field, depth + 1, stack);
                out.insert(field.name.to_string(), value);
            }
        }
        if let Some((api_version, kind)) = self.defs.fixed(def) {
            out.insert("apiVersion".into(), json!(api_version));
            out.insert("kind".into(), json!(kind));
        }
        stack.pop();
        out
    }

    /// Whether to generate an absent optional field.
    pub(super) fn include(&mut self, field: &Field<'a>, depth: usize, stack: &[&'a str]) -> bool {
        if field.required {
            return true;
        }
        if depth >= MAX_DEPTH || self.defs.target(field.schema).is_some_and(|d| stack.contains(&d)) {
            return false;
        }
        let p = if self.defs.leads_to_strategy(field) { FAVOURED } else { RARE };
        self.rng.chance(p)
    }

    /// A value for a field: lists follow the field's strategy.
    pub(super) fn field_value(&mut self, field: &Field<'a>, depth: usize, stack: &mut Vec<&'a str>) -> Value {
        let text = std::mem::replace(&mut self.text, is_text_field(field.name));
        let value = self.new_field_value(field, depth, stack);
        self.text = text;
        value
    }

    fn new_field_value(&mut self, field: &Field<'a>, depth: usize, stack: &mut Vec<&'a str>) -> Value {
        match self.defs.node(field.schema) {
            Node::List(_) if self.rng.chance(EMPTY) => json!([]),
            Node::Map(_) if self.rng.chance(EMPTY) => json!({}),
            Node::List(item) if field.is_keyed_list() => {
                let n = 1 + self.rng.below(3);
                Value::Array(self.keyed_items(item, field.merge_key, n, &[], depth, stack))
            }
            Node::List(item) if field.is_primitive_set(self.defs) => {
                let n = 1 + self.rng.below(3);
                Value::Array(self.distinct_scalars(item, n, &[]))
            }
            _ => self.value(field.schema, depth, stack),
        }
    }

    pub(super) fn value(&mut self, schema: &'a Value, depth: usize, stack: &mut Vec<&'a str>) -> Value {
        match self.defs.node(schema) {
            Node::Struct(def) => Value::Object(self.struct_value(def, depth, stack)),
            Node::Map(values) => {
                let keys = self.rng.subset(KEYS, 2);
                let keys = if keys.is_empty() { vec![*self.rng.pick(KEYS)] } else { keys };
                keys.into_iter().map(|k| (k.to_string(), self.value(values, depth + 1, stack))).collect()
            }
            Node::List(item) => {
                let n = 1 + self.rng.below(2);
                (0..n).map(|_| self.value(item, depth + 1, stack)).collect()
            }
            Node::Scalar(scalar) => self.scalar(scalar),
            Node::Any => self.any_value(),
        }
    }

    /// Up to `n` items with merge keys distinct from each other and from `taken`.
    pub(super) fn keyed_items(
        &mut self,
        item: &'a Value,
        key: &str,
        n: usize,
        taken: &[Value],
        depth: usize,
        stack: &mut Vec<&'a str>,
    ) -> Vec<Value> {
        let Node::Struct(def) = self.defs.node(item) else {
            panic!("merge key {key} on a list of {item}");
        };
        let key_type = self.key_type(def, key);
        let mut used = taken.to_vec();
        let mut items = Vec::new();
        for _ in 0..n {
            let Some(k) = (0..KEY_TRIES).map(|_| self.key_value(key_type)).find(|k| !used.contains(k)) else {
                break;
            };
            let mut fields = self.struct_value(def, depth, stack);
            fields.insert(key.to_string(), k.clone());
            used.push(k);
            items.push(Value::Object(fields));
        }
        items
    }

    /// The scalar type of the merge key `key` of the items of `def`.
    pub(super) fn key_type(&self, def: &str, key: &str) -> Option<Scalar<'a>> {
        let field = self.defs.fields(def).into_iter().find(|f| f.name == key)?;
        match self.defs.node(field.schema) {
            Node::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// Up to `n` scalars of the items' type, distinct from each other and from `taken`.
    pub(super) fn distinct_scalars(&mut self, item: &'a Value, n: usize, taken: &[Value]) -> Vec<Value> {
        let Node::Scalar(scalar) = self.defs.node(item) else {
            panic!("a set of non-scalars: {item}");
        };
        let mut out: Vec<Value> = Vec::new();
        for _ in 0..n {
            let v = self.scalar(scalar);
            if !out.contains(&v) && !taken.contains(&v) {
                out.push(v);
            }
        }
        out
    }

    /// Arbitrary JSON: a small object, sometimes nested.
    pub(super) fn any_value(&mut self) -> Value {
        let key = *self.rng.pick(KEYS);
        if self.rng.chance(0.3) { json!({ key: { "x": [1, "y"] } }) } else { json!({ key: "v" }) }
    }
}
