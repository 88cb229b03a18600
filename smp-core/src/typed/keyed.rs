//! Lists of structs merged by key, on typed elements. Elements are found by
//! hashing their keys, and the order of the result comes from the same
//! ordering code as the JSON engine's (`engine::order`).

use super::fallback::{self, FieldPatch, Outcome, from_ref, to_value};
use super::{Field, StrategicMerge};
use crate::engine::PATCH;
use crate::engine::diff::Opts;
use crate::error::Result;
use crate::lists::order::{merge_sorted, sort_by_position};
use crate::value::{ScalarKey, fmt_v};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// A merge key as the JSON value it stands for.
fn key_value(k: ScalarKey<'_>) -> Value {
    match k {
        ScalarKey::Null => Value::Null,
        ScalarKey::Bool(b) => Value::Bool(b),
        ScalarKey::Int(i) => Value::from(i),
        ScalarKey::Float(f) => serde_json::Number::from_f64(f64::from_bits(f)).map_or(Value::Null, Value::Number),
        ScalarKey::Str(s) => Value::String(s.to_string()),
    }
}

/// The keys of typed elements, or `None` if one lacks its key.
fn keys_of<'a, T: StrategicMerge>(list: &'a [T], mk: &str) -> Option<Vec<ScalarKey<'a>>> {
    list.iter().map(|e| e.__field_key(mk)).collect()
}

/// The position of each key, or `None` if two are the same.
fn unique_index<'a>(keys: impl ExactSizeIterator<Item = ScalarKey<'a>>) -> Option<HashMap<ScalarKey<'a>, usize>> {
    let mut index = HashMap::with_capacity(keys.len());
    for (i, k) in keys.enumerate() {
        if index.insert(k, i).is_some() {
            return None;
        }
    }
    Some(index)
}

/// `{mk: key}`: an entry of `$setElementOrder`, or the start of an element's patch.
fn key_entry(mk: &str, key: ScalarKey<'_>) -> Map<String, Value> {
    let mut entry = Map::new();
    entry.insert(mk.to_string(), key_value(key));
    entry
}

/// The two-way diff of a keyed list (`diffListsOfMaps` with the ordering of
/// `diffLists`), matching elements by hashed key. Lists with missing or
/// duplicate keys go through the JSON engine.
pub(crate) fn diff_keyed_list<T: StrategicMerge>(
    old: &[T],
    new: &[T],
    mk: &str,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    if old.is_empty() {
        if !new.is_empty() && opts.additions() {
            patch.insert(field.key.to_string(), to_value(new)?);
        }
        return Ok(());
    }
    let elem_opts = opts.with_retain_keys(field.strategy.retain_keys);
    // Most often both lists hold the same keys in the same order: elements
    // then pair up by position, with no index and nothing allocated unless
    // an element changed.
    if let Some(changes) = diff_in_place(old, new, mk, field, elem_opts)? {
        if changes.len() > 1 && unique_index(new.iter().map(|e| e.__field_key(mk).unwrap_or(ScalarKey::Null))).is_none()
        {
            return fallback::diff_field(Some(&old.to_vec()), Some(&new.to_vec()), field, patch, opts);
        }
        return emit_keyed(changes, new, mk, true, field, patch, opts);
    }
    let (Some(old_keys), Some(new_keys)) = (keys_of(old, mk), keys_of(new, mk)) else {
        return fallback::diff_field(Some(&old.to_vec()), Some(&new.to_vec()), field, patch, opts);
    };
    let (Some(old_index), Some(new_index)) =
        (unique_index(old_keys.iter().copied()), unique_index(new_keys.iter().copied()))
    else {
        return fallback::diff_field(Some(&old.to_vec()), Some(&new.to_vec()), field, patch, opts);
    };

    let mut list = Vec::new();
    for (j, (e, &k)) in new.iter().zip(&new_keys).enumerate() {
        match old_index.get(&k) {
            Some(&i) => {
                let mut sub = old[i].__diff_object(e, elem_opts).map_err(|err| at(err, field, mk, key_value(k), j))?;
                if !sub.is_empty() {
                    sub.insert(mk.to_string(), key_value(k));
                    list.push(Value::Object(sub));
                }
            }
            None if opts.additions() => list.push(to_value(e)?),
            None => {}
        }
    }
    if opts.deletions() {
        // Deletions come last, in the order of their keys' `%v` text.
        let mut gone: Vec<(String, Value)> = old_keys
            .iter()
            .filter(|k| !new_index.contains_key(k))
            .map(|&k| {
                let v = key_value(k);
                (fmt_v(&v), v)
            })
            .collect();
        gone.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, k) in gone {
            let mut d = Map::new();
            d.insert(mk.to_string(), k);
            d.insert(PATCH.to_string(), Value::String("delete".into()));
            list.push(Value::Object(d));
        }
    }
    emit_keyed(list, new, mk, false, field, patch, opts)
}

/// The element patches of two lists whose keys are the same, position by
/// position (each sub-patch already carries its key), or `None` when the
/// keys differ somewhere.
fn diff_in_place<T: StrategicMerge>(
    old: &[T],
    new: &[T],
    mk: &str,
    field: &Field,
    elem_opts: Opts,
) -> Result<Option<Vec<Value>>> {
    if old.len() != new.len() {
        return Ok(None);
    }
    let mut changes = Vec::new();
    for (j, (a, b)) in old.iter().zip(new).enumerate() {
        let (Some(ka), Some(kb)) = (a.__field_key(mk), b.__field_key(mk)) else { return Ok(None) };
        if ka != kb {
            return Ok(None);
        }
        let mut sub = a.__diff_object(b, elem_opts).map_err(|err| at(err, field, mk, key_value(kb), j))?;
        if !sub.is_empty() {
            sub.insert(mk.to_string(), key_value(kb));
            changes.push(Value::Object(sub));
        }
    }
    Ok(Some(changes))
}

/// Writes a keyed list's patch and its `$setElementOrder`.
fn emit_keyed<T: StrategicMerge>(
    list: Vec<Value>,
    new: &[T],
    mk: &str,
    order_same: bool,
    field: &Field,
    patch: &mut Map<String, Value>,
    opts: Opts,
) -> Result<()> {
    let emit_order = opts.set_element_order()
        && ((opts.additions() && (!list.is_empty() || !order_same)) || (opts.deletions() && !list.is_empty()));
    if !list.is_empty() {
        patch.insert(field.key.to_string(), Value::Array(list));
    }
    if emit_order && !new.is_empty() {
        let order =
            new.iter().map(|e| Value::Object(key_entry(mk, e.__field_key(mk).unwrap_or(ScalarKey::Null)))).collect();
        patch.insert(format!("{}/{}", crate::engine::SET_ELEMENT_ORDER, field.key), Value::Array(order));
    }
    Ok(())
}

fn at(err: crate::Error, field: &Field, mk: &str, key: Value, index: usize) -> crate::Error {
    let mut elem = Map::new();
    elem.insert(mk.to_string(), key);
    err.at_element(mk, &Value::Object(elem), index).at_key(field.key)
}

/// Merges a patch list into a typed keyed list (`mergeSlice` for objects):
/// each patch element merges into the element with its key or is appended,
/// then the list is ordered: by `order` when the patch carries a
/// `$setElementOrder` for it, else patch items by the patch, interleaved
/// with the server's own items. Directives and odd inputs go through the
/// JSON engine.
pub(crate) fn apply_keyed_list<T: StrategicMerge>(
    list: &mut Vec<T>,
    patch: Option<&Value>,
    order: Option<&Value>,
    mk: &str,
    field: &Field,
) -> Result<Outcome<Vec<T>>> {
    let fallback = |list: &mut Vec<T>| {
        let fp = FieldPatch { value: patch, order, delete: None };
        fallback::apply_field(Some(list), fp, field)
    };
    let plain: &[Value] = patch.and_then(Value::as_array).map_or(&[], Vec::as_slice);
    let Some((targets, first)) = resolve_targets(list, plain, mk) else {
        return fallback(list);
    };
    let order_pos = match order {
        None => None,
        Some(order) => match order_positions(list, plain, order, mk, &first, &targets)? {
            Some(pos) => Some(pos),
            None => return fallback(list),
        },
    };
    if list.is_empty() && plain.is_empty() {
        return Ok(Outcome::Kept);
    }
    // Position in the patch of each live element's key, noted at the key's
    // first element; and of each appended element.
    let live_len = list.len();
    let mut patched: Vec<Option<usize>> = vec![None; live_len];
    let mut appended: Vec<usize> = Vec::new();
    for (j, (pv, target)) in plain.iter().zip(targets).enumerate() {
        let Value::Object(p) = pv else { unreachable!("checked plain") };
        let key = p.get(mk).cloned().unwrap_or(Value::Null);
        match target {
            Some(i) => {
                list[i].__apply_object(p).map_err(|err| at(err, field, mk, key, j))?;
                patched[i] = Some(j);
            }
            None => {
                // New elements are appended as the patch has them.
                list.push(from_ref(pv).map_err(|err| at(err, field, mk, key, j))?);
                appended.push(j);
            }
        }
    }
    // Each element's place: its position in the live list (the server
    // order; appended elements have none) and in the order that sorts the
    // patch's items (`$setElementOrder`, else the patch itself).
    let view = (0..list.len()).map(|idx| first.get(idx).copied());
    let pos: Vec<Option<usize>> = match order_pos {
        Some(pos) => pos,
        None => (0..list.len())
            .map(|idx| match first.get(idx) {
                Some(&f) => patched[f],
                None => Some(appended[idx - live_len]),
            })
            .collect(),
    };
    let items = std::mem::take(list).into_iter().zip(view.collect::<Vec<_>>()).zip(pos);
    *list = arrange(items);
    Ok(Outcome::Kept)
}

/// `normalizeElementOrder` on typed items given as ((item, server
/// position), patch position): items with a patch position are sorted by
/// it, the others by server position, and the two interleave by server
/// position.
fn arrange<T>(items: impl Iterator<Item = ((T, Option<usize>), Option<usize>)>) -> Vec<T> {
    let (mut patch_items, mut patch_order, mut server_only, mut server_order) = (vec![], vec![], vec![], vec![]);
    for ((e, view), pos) in items {
        match pos {
            Some(p) => {
                patch_items.push((e, view));
                patch_order.push(Some(p));
            }
            None => {
                server_only.push((e, view));
                server_order.push(view);
            }
        }
    }
    let patch_items = sort_by_position(patch_items, patch_order);
    let server_only = sort_by_position(server_only, server_order);
    let rp: Vec<Option<usize>> = patch_items.iter().map(|(_, l)| *l).collect();
    let lp: Vec<Option<usize>> = server_only.iter().map(|(_, l)| *l).collect();
    merge_sorted(server_only, &lp, patch_items, &rp).into_iter().map(|(e, _)| e).collect()
}

/// Where `$setElementOrder` puts each element of the merged list: for the
/// live elements (in order) then the appended patch elements, the position
/// of its key in the order list, if there. `None` (the JSON engine decides)
/// unless the engine's order step reduces to that: unique live keys, order
/// entries that are objects with a scalar key, and a list on both sides.
/// The reference's own check (`validatePatchWithSetOrderList`) runs here.
fn order_positions<T: StrategicMerge>(
    list: &[T],
    patch: &[Value],
    order: &Value,
    mk: &str,
    first: &[usize],
    targets: &[Option<usize>],
) -> Result<Option<Vec<Option<usize>>>> {
    let Value::Array(order) = order else { return Ok(None) };
    if list.is_empty() || first.iter().enumerate().any(|(i, &f)| i != f) {
        return Ok(None);
    }
    let mut index: HashMap<ScalarKey<'_>, usize> = HashMap::with_capacity(order.len());
    for (i, o) in order.iter().enumerate() {
        let Some(k) = o.as_object().and_then(|m| m.get(mk)).and_then(ScalarKey::of) else { return Ok(None) };
        index.entry(k).or_insert(i);
    }
    crate::lists::validate_patch_with_order(patch, order, mk)?;
    let live = list.iter().map(|e| e.__field_key(mk).and_then(|k| index.get(&k).copied()));
    // Appended elements: their patch keys are unique and new (checked when
    // the targets were resolved).
    let appended = patch.iter().zip(targets).filter(|(_, t)| t.is_none()).map(|(p, _)| {
        let k = p.get(mk).and_then(ScalarKey::of).expect("resolved targets have scalar keys");
        index.get(&k).copied()
    });
    Ok(Some(live.chain(appended).collect()))
}

/// Matches a patch list with a typed list by hashed keys: for each patch
/// element the first live element with its key (`None`: it is appended),
/// and for each live element the first one that shares its key. `None`
/// when a live element lacks its key, or a patch element is not a plain
/// object with a scalar key (no `$patch`), or two patch elements share a key.
fn resolve_targets<T: StrategicMerge>(
    list: &[T],
    patch: &[Value],
    mk: &str,
) -> Option<(Vec<Option<usize>>, Vec<usize>)> {
    let mut live: HashMap<ScalarKey<'_>, usize> = HashMap::with_capacity(list.len());
    let mut first = Vec::with_capacity(list.len());
    for (i, e) in list.iter().enumerate() {
        first.push(*live.entry(e.__field_key(mk)?).or_insert(i));
    }
    let mut seen = HashSet::with_capacity(patch.len());
    let mut targets = Vec::with_capacity(patch.len());
    for p in patch {
        let m = p.as_object().filter(|m| !m.contains_key(PATCH))?;
        let k = ScalarKey::of(m.get(mk)?)?;
        if !seen.insert(k) {
            return None;
        }
        targets.push(live.get(&k).copied());
    }
    Some((targets, first))
}
