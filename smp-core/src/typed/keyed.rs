//! Lists of structs merged by key, on typed elements. Elements are found by
//! hashing their keys, and the order of the result comes from the same
//! ordering code as the JSON engine's (`engine::order`).

use super::fallback::{self, FieldPatch, Outcome, from_value, to_value};
use super::{Field, StrategicMerge};
use crate::engine::PATCH;
use crate::engine::diff::Opts;
use crate::engine::order::{merge_sorted, sort_by_position};
use crate::error::Result;
use crate::value::{ScalarKey, fmt_v};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A merge-key value that owns its text, for indexes that outlive a borrow.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

impl Key {
    fn of(k: ScalarKey<'_>) -> Key {
        match k {
            ScalarKey::Null => Key::Null,
            ScalarKey::Bool(b) => Key::Bool(b),
            ScalarKey::Int(i) => Key::Int(i),
            ScalarKey::Float(f) => Key::Float(f),
            ScalarKey::Str(s) => Key::Str(s.to_string()),
        }
    }

    fn to_value(&self) -> Value {
        match self {
            Key::Null => Value::Null,
            Key::Bool(b) => Value::Bool(*b),
            Key::Int(i) => Value::from(*i),
            Key::Float(f) => serde_json::Number::from_f64(f64::from_bits(*f)).map_or(Value::Null, Value::Number),
            Key::Str(s) => Value::String(s.clone()),
        }
    }
}

/// The keys of typed elements, or `None` if one lacks its key.
fn keys_of<T: StrategicMerge>(list: &[T], mk: &str) -> Option<Vec<Key>> {
    list.iter().map(|e| e.__field_key(mk).map(Key::of)).collect()
}

fn all_unique(keys: &[Key]) -> bool {
    let mut seen = std::collections::HashSet::with_capacity(keys.len());
    keys.iter().all(|k| seen.insert(k))
}

/// The two-way diff of a keyed list (`diffListsOfMaps` with the ordering of
/// `diffLists`), matching elements by hashed key. Lists with missing or
/// duplicate keys go through the JSON engine.
pub(crate) fn diff_keyed_list<T: StrategicMerge>(
    old: &[T],
    new: &[T],
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    let mk = field.meta.merge_key;
    if old.is_empty() {
        if !new.is_empty() && opts.additions() {
            patch.insert(field.key.to_string(), to_value(new)?);
        }
        return Ok(());
    }
    let (Some(old_keys), Some(new_keys)) = (keys_of(old, mk), keys_of(new, mk)) else {
        return fallback::diff_field(Some(&old.to_vec()), Some(&new.to_vec()), field, patch, opts);
    };
    if !all_unique(&old_keys) || !all_unique(&new_keys) {
        return fallback::diff_field(Some(&old.to_vec()), Some(&new.to_vec()), field, patch, opts);
    }
    let strategy = field.meta.parse()?;
    let elem_opts = opts.with_retain_keys(strategy.retain_keys);
    let old_index: HashMap<&Key, usize> = old_keys.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let equal_means_empty = fallback::equal_means_empty(T::shape());

    let mut list = Vec::new();
    for (j, (e, k)) in new.iter().zip(&new_keys).enumerate() {
        match old_index.get(k) {
            Some(&i) => {
                if old[i] == *e && equal_means_empty {
                    continue;
                }
                let mut sub = old[i].__diff_object(e, elem_opts).map_err(|err| at(err, field, mk, k, j))?;
                if !sub.is_empty() {
                    sub.insert(mk.to_string(), k.to_value());
                    list.push(Value::Object(sub));
                }
            }
            None if opts.additions() => list.push(to_value(e)?),
            None => {}
        }
    }
    if opts.deletions() {
        let new_set: std::collections::HashSet<&Key> = new_keys.iter().collect();
        // Deletions come last, in the order of their keys' `%v` text.
        let mut gone: Vec<(String, &Key)> =
            old_keys.iter().filter(|k| !new_set.contains(k)).map(|k| (fmt_v(&k.to_value()), k)).collect();
        gone.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, k) in gone {
            let mut d = Map::new();
            d.insert(mk.to_string(), k.to_value());
            d.insert(PATCH.to_string(), Value::String("delete".into()));
            list.push(Value::Object(d));
        }
    }
    let order_same = old_keys == new_keys;
    let emit_order = opts.set_element_order()
        && ((opts.additions() && (!list.is_empty() || !order_same)) || (opts.deletions() && !list.is_empty()));
    if !list.is_empty() {
        patch.insert(field.key.to_string(), Value::Array(list));
    }
    if emit_order && !new_keys.is_empty() {
        let order = new_keys
            .iter()
            .map(|k| {
                let mut entry = Map::new();
                entry.insert(mk.to_string(), k.to_value());
                Value::Object(entry)
            })
            .collect();
        patch.insert(format!("{}/{}", crate::engine::SET_ELEMENT_ORDER, field.key), Value::Array(order));
    }
    Ok(())
}

fn at(err: crate::Error, field: &Field, mk: &str, key: &Key, index: usize) -> crate::Error {
    let mut elem = Map::new();
    elem.insert(mk.to_string(), key.to_value());
    err.at_element(mk, &Value::Object(elem), index).at_key(field.key)
}

/// Merges a patch list into a typed keyed list (`mergeSlice` for objects):
/// each patch element merges into the element with its key or is appended,
/// then patch items are ordered by the patch and interleaved with the
/// server's own items. Directives and odd inputs go through the JSON engine.
pub(crate) fn apply_keyed_list<T: StrategicMerge>(
    list: &mut Vec<T>,
    patch: Vec<Value>,
    field: &Field,
) -> Result<Outcome<Vec<T>>> {
    let mk = field.meta.merge_key;
    let plain = |p: &Value| {
        p.as_object().is_some_and(|m| !m.contains_key(PATCH) && m.get(mk).is_some_and(|k| ScalarKey::of(k).is_some()))
    };
    let list_keys = keys_of(list, mk);
    let patch_keys: Option<Vec<Key>> =
        patch.iter().map(|p| if plain(p) { ScalarKey::of(&p[mk]).map(Key::of) } else { None }).collect();
    let (Some(list_keys), Some(patch_keys)) = (list_keys, patch_keys) else {
        let fp = FieldPatch { value: Some(Value::Array(patch)), ..Default::default() };
        return fallback::apply_field(Some(list), fp, field);
    };
    if !all_unique(&patch_keys) {
        let fp = FieldPatch { value: Some(Value::Array(patch)), ..Default::default() };
        return fallback::apply_field(Some(list), fp, field);
    }
    if list.is_empty() && patch.is_empty() {
        return Ok(Outcome::Kept);
    }
    // Position of each key in the live list (first occurrence) and in the patch.
    let mut live_pos: HashMap<Key, usize> = HashMap::with_capacity(list_keys.len());
    for (i, k) in list_keys.iter().enumerate() {
        live_pos.entry(k.clone()).or_insert(i);
    }
    let patch_pos: HashMap<&Key, usize> = patch_keys.iter().enumerate().map(|(i, k)| (k, i)).collect();

    let mut keys = list_keys;
    for (j, (p, k)) in patch.into_iter().zip(&patch_keys).enumerate() {
        let Value::Object(p) = p else { unreachable!("checked plain") };
        match live_pos.get(k) {
            Some(&i) => list[i].__apply_object(p).map_err(|err| at(err, field, mk, k, j))?,
            None => {
                // New elements are appended as the patch has them.
                list.push(from_value(Value::Object(p)).map_err(|err| at(err, field, mk, k, j))?);
                keys.push(k.clone());
            }
        }
    }

    let mut patch_items = Vec::new();
    let mut patch_order = Vec::new();
    let mut server_only = Vec::new();
    let mut server_order = Vec::new();
    for (e, k) in std::mem::take(list).into_iter().zip(keys) {
        let live = live_pos.get(&k).copied();
        match patch_pos.get(&k) {
            Some(&p) => {
                patch_items.push((e, live));
                patch_order.push(Some(p));
            }
            None => {
                server_only.push((e, live));
                server_order.push(live);
            }
        }
    }
    let patch_items = sort_by_position(patch_items, patch_order);
    let server_only = sort_by_position(server_only, server_order);
    let rp: Vec<Option<usize>> = patch_items.iter().map(|(_, l)| *l).collect();
    let lp: Vec<Option<usize>> = server_only.iter().map(|(_, l)| *l).collect();
    *list = merge_sorted(server_only, &lp, patch_items, &rp).into_iter().map(|(e, _)| e).collect();
    Ok(Outcome::Kept)
}
