//! Modified copies of objects: scalars changed, optional fields added and
//! removed, list items added, removed, changed and reordered, map entries
//! changed. Required fields, `apiVersion`, `kind`, `metadata.name` and the
//! merge keys of list items stay.

use super::scalars::{KEYS, is_text_field};
use super::{Ctx, Field, Gen, Node, keys_of};
use crate::long_text::{edited, is_long};
use serde_json::{Map, Value};

/// The chance of removing a present optional field, a list item or a map entry.
const REMOVE: f64 = 0.15;
/// The chance of changing a field on a path to a field with a strategy.
const CHANGE_FAVOURED: f64 = 0.6;
/// The chance of changing any other field.
const CHANGE: f64 = 0.25;
/// The chance of considering an absent optional field for addition.
const ADD: f64 = 0.3;
/// The chance of adding items to a list, or entries to a map.
const GROW: f64 = 0.3;
/// The chance of shuffling a list.
const SHUFFLE: f64 = 0.25;

impl<'a> Gen<'a> {
    /// A modified copy of a generated object.
    pub fn mutate(&mut self, object: &Value) -> Value {
        let def = self.root_of(object);
        let fields = object.as_object().expect("an object");
        Value::Object(self.mutate_struct(def, fields, Ctx::Top, 0, &mut Vec::new()))
    }

    fn mutate_struct(
        &mut self,
        def: &'a str,
        fields: &Map<String, Value>,
        ctx: Ctx,
        depth: usize,
        stack: &mut Vec<&'a str>,
    ) -> Map<String, Value> {
        stack.push(def);
        let mut out = fields.clone();
        for field in self.defs.fields(def) {
            let name = field.name;
            match fields.get(name) {
                Some(_) if ctx.keeps(name) || self.defs.is_fixed(def, name) => {}
                Some(_) if !field.required && !ctx.needs(name) && self.rng.chance(REMOVE) => {
                    out.remove(name);
                }
                Some(v) => {
                    let p = if self.defs.leads_to_strategy(&field) { CHANGE_FAVOURED } else { CHANGE };
                    if self.rng.chance(p) {
                        let changed = self.mutate_field(&field, v, ctx.child(name), depth + 1, stack);
                        out.insert(name.to_string(), changed);
                    }
                }
                None => {
                    if self.rng.chance(ADD) && self.include(&field, depth, stack) {
                        let value = self.field_value(&field, depth + 1, stack);
                        out.insert(name.to_string(), value);
                    }
                }
            }
        }
        stack.pop();
        out
    }

    fn mutate_field(
        &mut self,
        field: &Field<'a>,
        value: &Value,
        ctx: Ctx,
        depth: usize,
        stack: &mut Vec<&'a str>,
    ) -> Value {
        let text = std::mem::replace(&mut self.text, is_text_field(field.name));
        let changed = self.mutate_field_value(field, value, ctx, depth, stack);
        self.text = text;
        changed
    }

    fn mutate_field_value(
        &mut self,
        field: &Field<'a>,
        value: &Value,
        ctx: Ctx,
        depth: usize,
        stack: &mut Vec<&'a str>,
    ) -> Value {
        match (self.defs.node(field.schema), value) {
            (Node::List(item), Value::Array(items)) if field.is_keyed_list() => {
                Value::Array(self.mutate_keyed(item, field.merge_key, items, depth, stack))
            }
            (Node::List(item), Value::Array(items)) if field.is_primitive_set(self.defs) => {
                let mut out: Vec<Value> = items.iter().filter(|_| !self.rng.chance(REMOVE)).cloned().collect();
                if self.rng.chance(GROW) {
                    let new = self.distinct_scalars(item, 2, &out);
                    out.extend(new);
                }
                self.maybe_shuffle(&mut out);
                Value::Array(out)
            }
            _ => self.mutate_value(field.schema, value, ctx, depth, stack),
        }
    }

    fn mutate_keyed(
        &mut self,
        item: &'a Value,
        key: &'a str,
        items: &[Value],
        depth: usize,
        stack: &mut Vec<&'a str>,
    ) -> Vec<Value> {
        let Node::Struct(def) = self.defs.node(item) else { panic!("merge key {key} on a list of {item}") };
        let mut out = Vec::new();
        for item in items {
            if self.rng.chance(REMOVE) {
                continue;
            }
            match item.as_object() {
                Some(fields) if self.rng.chance(CHANGE_FAVOURED) => {
                    out.push(Value::Object(self.mutate_struct(def, fields, Ctx::Item(key), depth, stack)));
                }
                _ => out.push(item.clone()),
            }
        }
        if self.rng.chance(GROW) {
            let taken: Vec<Value> = keys_of(&out, key).into_values().cloned().collect();
            let n = 1 + self.rng.below(2);
            let new = self.keyed_items(item, key, n, &taken, depth, stack);
            out.extend(new);
        }
        self.maybe_shuffle(&mut out);
        out
    }

    fn mutate_value(
        &mut self,
        schema: &'a Value,
        value: &Value,
        ctx: Ctx,
        depth: usize,
        stack: &mut Vec<&'a str>,
    ) -> Value {
        match (self.defs.node(schema), value) {
            (Node::Struct(def), Value::Object(fields)) => {
                Value::Object(self.mutate_struct(def, fields, ctx, depth, stack))
            }
            (Node::Map(values), Value::Object(entries)) => {
                let mut out = Map::new();
                for (k, v) in entries {
                    if self.rng.chance(REMOVE) {
                        continue;
                    }
                    let v = if self.rng.chance(CHANGE) {
                        self.mutate_value(values, v, Ctx::Plain, depth + 1, stack)
                    } else {
                        v.clone()
                    };
                    out.insert(k.clone(), v);
                }
                if self.rng.chance(GROW) {
                    let key = self.rng.pick(KEYS).to_string();
                    let v = self.value(values, depth + 1, stack);
                    out.insert(key, v);
                }
                Value::Object(out)
            }
            (Node::List(item), Value::Array(items)) => {
                let mut out = Vec::new();
                for v in items {
                    if self.rng.chance(REMOVE) {
                        continue;
                    }
                    let v = if self.rng.chance(CHANGE) {
                        self.mutate_value(item, v, Ctx::Plain, depth + 1, stack)
                    } else {
                        v.clone()
                    };
                    out.push(v);
                }
                if self.rng.chance(GROW) {
                    out.push(self.value(item, depth + 1, stack));
                }
                self.maybe_shuffle(&mut out);
                Value::Array(out)
            }
            // A long string of free text, mostly edited: kept text and
            // changed text side by side.
            (Node::Scalar(_), Value::String(s)) if self.text && is_long(s) && self.rng.chance(0.5) => {
                Value::String(edited(&mut self.rng, s))
            }
            (Node::Scalar(scalar), _) => {
                // A few tries at a different value; small pools may not have one.
                (0..4).map(|_| self.scalar(scalar)).find(|v| v != value).unwrap_or_else(|| value.clone())
            }
            _ => self.value(schema, depth, stack),
        }
    }

    fn maybe_shuffle(&mut self, items: &mut [Value]) {
        if self.rng.chance(SHUFFLE) {
            self.rng.shuffle(items);
        }
    }
}
