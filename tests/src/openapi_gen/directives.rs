//! Directives sprinkled into a patch made for an object: `$patch: delete`
//! and `$patch: replace` on keyed items and lists, `$patch: replace` and
//! `$patch: delete` on maps, `$deleteFromPrimitiveList`, `$setElementOrder`,
//! `$retainKeys` and nulls, placed where the schema says they apply.
//! Required fields are never deleted, so that results stay valid objects.

use super::{Ctx, Field, Gen, Node, keys_of};
use serde_json::{Map, Value, json};

/// The chance of descending into a field the patch does not touch.
const DESCEND: f64 = 0.35;
const NULL: f64 = 0.05;
const DELETE_ITEM: f64 = 0.4;
const REPLACE_LIST: f64 = 0.03;
const DUPLICATE_ITEM: f64 = 0.03;
const SET_ORDER: f64 = 0.15;
const DELETE_PRIMITIVES: f64 = 0.2;
const RETAIN_KEYS: f64 = 0.7;
/// `$retainKeys` where the schema does not ask for it: the reference
/// honours it on any map.
const RETAIN_KEYS_ANYWHERE: f64 = 0.03;
const REPLACE_MAP: f64 = 0.1;
const DELETE_MAP: f64 = 0.05;
/// A value of another JSON type, or a merge key of another type: the
/// result no longer fits the k8s-openapi type.
const WRONG_TYPE: f64 = 0.01;
const WRONG_KEY_TYPE: f64 = 0.03;

impl<'a> Gen<'a> {
    /// Adds directives to `patch`, a patch for `original`; returns what it
    /// added, as `directive@field` labels.
    pub fn sprinkle(&mut self, patch: &mut Value, original: &Value) -> Vec<String> {
        let def = self.root_of(original);
        let mut ops = Vec::new();
        if let Value::Object(p) = patch {
            self.sprinkle_struct(def, p, original.as_object(), Ctx::Top, &mut ops);
        }
        ops
    }

    fn sprinkle_struct(
        &mut self,
        def: &'a str,
        patch: &mut Map<String, Value>,
        orig: Option<&Map<String, Value>>,
        ctx: Ctx,
        ops: &mut Vec<String>,
    ) {
        for field in self.defs.fields(def) {
            let name = field.name;
            if ctx.keeps(name) || self.defs.is_fixed(def, name) {
                continue;
            }
            let original = orig.and_then(|o| o.get(name));
            let descended = !patch.contains_key(name) && self.descend_into(original, patch, name);
            match self.defs.node(field.schema) {
                Node::Struct(d) => self.sprinkle_object(&field, d, patch, original, ctx.child(name), ops),
                Node::Map(values) => self.sprinkle_map(&field, values, patch, original, ctx.child(name), ops),
                Node::List(item) if field.is_keyed_list() => self.sprinkle_keyed(&field, item, patch, original, ops),
                Node::List(item) if field.is_primitive_set(self.defs) => {
                    self.sprinkle_set(&field, item, patch, original, ops);
                }
                _ => {}
            }
            if descended && patch.get(name).is_some_and(|v| *v == json!({}) || *v == json!([])) {
                patch.remove(name);
            }
            if patch.get(name).is_some_and(|v| !v.is_null()) && self.rng.chance(WRONG_TYPE) {
                let wrong = other_type(&patch[name]);
                patch.insert(name.to_string(), wrong);
                ops.push(format!("wrong-type@{name}"));
            }
            if original.is_some()
                && !field.required
                && !ctx.needs(name)
                && !patch.contains_key(name)
                && self.rng.chance(NULL)
            {
                patch.insert(name.to_string(), Value::Null);
                ops.push(format!("null@{name}"));
            }
        }
    }

    /// Maybe starts an empty patch for a map or list of the original that
    /// the patch leaves alone, so that directives can go deeper.
    fn descend_into(&mut self, original: Option<&Value>, patch: &mut Map<String, Value>, name: &str) -> bool {
        let empty = match original {
            Some(Value::Object(_)) => json!({}),
            Some(Value::Array(_)) => json!([]),
            _ => return false,
        };
        if !self.rng.chance(DESCEND) {
            return false;
        }
        patch.insert(name.to_string(), empty);
        true
    }

    fn sprinkle_object(
        &mut self,
        field: &Field<'a>,
        def: &'a str,
        patch: &mut Map<String, Value>,
        original: Option<&Value>,
        ctx: Ctx,
        ops: &mut Vec<String>,
    ) {
        let Some(Value::Object(p)) = patch.get_mut(field.name) else { return };
        self.sprinkle_struct(def, p, original.and_then(Value::as_object), ctx, ops);
        let fields = self.defs.fields(def);
        let p_retain = match (field.retains_keys(), ctx) {
            (true, _) => RETAIN_KEYS,
            (false, Ctx::Plain) => RETAIN_KEYS_ANYWHERE,
            (false, _) => 0.0,
        };
        if self.rng.chance(p_retain) {
            self.retain_keys(p, original, &fields, ops, field.name);
        }
        let all_optional = fields.iter().all(|f| !f.required);
        if ctx == Ctx::Plain && !field.required && all_optional {
            self.map_directive(p, ops, field.name);
        }
    }

    fn sprinkle_map(
        &mut self,
        field: &Field<'a>,
        values: &'a Value,
        patch: &mut Map<String, Value>,
        original: Option<&Value>,
        ctx: Ctx,
        ops: &mut Vec<String>,
    ) {
        let Some(Value::Object(p)) = patch.get_mut(field.name) else { return };
        if let Node::Struct(def) = self.defs.node(values) {
            for (k, v) in p.iter_mut() {
                if let Value::Object(entry) = v {
                    let orig = original.and_then(|o| o.get(k)).and_then(Value::as_object);
                    self.sprinkle_struct(def, entry, orig, Ctx::Plain, ops);
                }
            }
        }
        if ctx == Ctx::Plain && !field.required {
            self.map_directive(p, ops, field.name);
        }
    }

    /// `$patch: replace` (the patch becomes the whole map) or `$patch:
    /// delete` (the map goes).
    fn map_directive(&mut self, p: &mut Map<String, Value>, ops: &mut Vec<String>, name: &str) {
        if self.rng.chance(REPLACE_MAP) {
            p.insert("$patch".into(), json!("replace"));
            ops.push(format!("replace-map@{name}"));
        } else if self.rng.chance(DELETE_MAP) {
            *p = Map::from_iter([("$patch".to_string(), json!("delete"))]);
            ops.push(format!("delete-map@{name}"));
        }
    }

    /// `$retainKeys`: the keys of the patch, some of the original's, and
    /// the required ones; rarely missing one of the patch's (an error).
    fn retain_keys(
        &mut self,
        p: &mut Map<String, Value>,
        original: Option<&Value>,
        fields: &[Field<'a>],
        ops: &mut Vec<String>,
        name: &str,
    ) {
        let mut keys: Vec<String> = p.keys().filter(|k| !k.starts_with('$')).cloned().collect();
        if !keys.is_empty() && self.rng.chance(0.1) {
            keys.remove(self.rng.below(keys.len()));
        }
        let orig_keys: Vec<String> =
            original.and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k.clone()).collect();
        let required = fields.iter().filter(|f| f.required).map(|f| f.name.to_string());
        for k in self.rng.subset(&orig_keys, 2).into_iter().chain(required) {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        p.insert("$retainKeys".into(), json!(keys));
        ops.push(format!("retainKeys@{name}"));
    }

    fn sprinkle_keyed(
        &mut self,
        field: &Field<'a>,
        item: &'a Value,
        patch: &mut Map<String, Value>,
        original: Option<&Value>,
        ops: &mut Vec<String>,
    ) {
        let (name, key) = (field.name, field.merge_key);
        let Node::Struct(def) = self.defs.node(item) else { return };
        let orig_items: &[Value] = original.and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let orig_keys: Vec<Value> = keys_of(orig_items, key).into_values().cloned().collect();
        let Some(Value::Array(items)) = patch.get_mut(name) else { return };
        let patch_keys: Vec<Value> = keys_of(items, key).into_values().cloned().collect();
        // Patch items for original items the patch leaves alone.
        for k in &orig_keys {
            if !patch_keys.contains(k) && self.rng.chance(DESCEND) {
                items.push(json!({ key: k }));
            }
        }
        let fields = self.defs.fields(def);
        for p in items.iter_mut() {
            let Value::Object(p) = p else { continue };
            let orig = p.get(key).and_then(|k| orig_items.iter().find(|o| o.get(key) == Some(k)));
            self.sprinkle_struct(def, p, orig.and_then(Value::as_object), Ctx::Item(key), ops);
            if self.rng.chance(if field.retains_keys() { RETAIN_KEYS } else { RETAIN_KEYS_ANYWHERE }) {
                self.retain_keys(p, orig, &fields, ops, name);
            }
        }
        if let Some(k) = orig_keys.iter().find(|k| !patch_keys.contains(k)).filter(|_| self.rng.chance(DELETE_ITEM)) {
            items.push(json!({ key: k, "$patch": "delete" }));
            ops.push(format!("delete-item@{name}"));
        }
        if !items.is_empty() && self.rng.chance(DUPLICATE_ITEM) {
            let copy = items[self.rng.below(items.len())].clone();
            items.push(copy);
            ops.push(format!("duplicate-item@{name}"));
        }
        if let Some(Value::Object(p)) = items.last_mut().filter(|_| self.rng.chance(WRONG_KEY_TYPE))
            && let Some(k) = p.get_mut(key)
        {
            *k = other_scalar(k);
            ops.push(format!("wrong-key-type@{name}"));
        }
        if self.rng.chance(REPLACE_LIST) {
            items.push(json!({"$patch": "replace"}));
            ops.push(format!("replace-list@{name}"));
        }
        let order_key = format!("$setElementOrder/{name}");
        if !patch.contains_key(&order_key) && self.rng.chance(SET_ORDER) {
            let mut order = orig_keys.clone();
            order.extend(patch_keys.iter().filter(|k| !orig_keys.contains(k)).cloned());
            self.rng.shuffle(&mut order);
            let order: Vec<Value> = order.into_iter().map(|k| json!({ key: k })).collect();
            patch.insert(order_key, Value::Array(order));
            ops.push(format!("setElementOrder@{name}"));
        }
    }

    fn sprinkle_set(
        &mut self,
        field: &Field<'a>,
        item: &'a Value,
        patch: &mut Map<String, Value>,
        original: Option<&Value>,
        ops: &mut Vec<String>,
    ) {
        let name = field.name;
        let orig: Vec<Value> = original.and_then(Value::as_array).cloned().unwrap_or_default();
        let added: Vec<Value> = patch.get(name).and_then(Value::as_array).cloned().unwrap_or_default();
        if self.rng.chance(DELETE_PRIMITIVES) {
            // Never a value the patch also adds: the reference's result
            // then depends on its map iteration order.
            let kept: Vec<Value> = orig.iter().filter(|v| !added.contains(v)).cloned().collect();
            let mut gone = self.rng.subset(&kept, 2);
            if self.rng.chance(0.3) {
                let known: Vec<Value> = orig.iter().chain(&added).cloned().collect();
                gone.extend(self.distinct_scalars(item, 1, &known));
            }
            patch.insert(format!("$deleteFromPrimitiveList/{name}"), Value::Array(gone));
            ops.push(format!("deleteFromPrimitiveList@{name}"));
        }
        let order_key = format!("$setElementOrder/{name}");
        if !patch.contains_key(&order_key) && self.rng.chance(SET_ORDER) {
            let mut order = orig;
            for v in &added {
                if !order.contains(v) {
                    order.push(v.clone());
                }
            }
            self.rng.shuffle(&mut order);
            patch.insert(order_key, Value::Array(order));
            ops.push(format!("setElementOrder@{name}"));
        }
    }
}

/// A value of another JSON type than `v`.
fn other_type(v: &Value) -> Value {
    match v {
        Value::Object(_) => json!("x"),
        Value::Array(_) => json!({"x": "y"}),
        Value::String(_) => json!(["x"]),
        _ => json!({"x": 1}),
    }
}

/// A scalar of another type than `v` that reads the same: `80` → `"80"`.
fn other_scalar(v: &Value) -> Value {
    match v {
        Value::String(s) => s.parse::<i64>().map_or_else(|_| json!(true), |n| json!(n)),
        other => json!(other.to_string()),
    }
}
