//! The patch between two lists of objects identified by a merge key
//! (`diffListsOfMaps` with the ordering and `$setElementOrder` of
//! `diffLists`), written once over [`DiffElements`].
//!
//! The reference pairs elements by the `%v` text of their keys, after
//! sorting both lists by it. When both lists have the same key texts in
//! the same order (the common case: a few fields changed) the sorted walk
//! pairs elements by position, so they are paired in place, unsorted.

use super::element::{DiffElements, missing_key};
use super::key::{Field, Interner, Key, KeyFields, Lookup, Tag, TagIndex, Uncomparable, uncomparable};
use super::order::{Step, go_sort_by, sort_by_lookup, walk_sorted};
use crate::diff_options::Opts;
use crate::directive::{PATCH, PatchOp};
use crate::doc::{Document, Object as _};
use crate::error::{Result, bad_arg};
use crate::value::GoKind;
use serde_json::Value;
use std::borrow::Cow;

/// A keyed list's part of a patch, in the document `P`.
pub(crate) struct ListPatch<P> {
    /// Changed and added elements, then deleted ones.
    pub(crate) patch: Vec<P>,
    /// The `$setElementOrder` entries (empty: none).
    pub(crate) order: Vec<P>,
}

impl<P> Default for ListPatch<P> {
    fn default() -> Self {
        ListPatch { patch: Vec::new(), order: Vec::new() }
    }
}

/// An element with its key.
struct Keyed<'e, E> {
    elem: &'e E,
    key: Key<'e>,
}

/// The patch from the keyed list `o` to `m`.
pub(crate) fn diff<L: DiffElements>(
    l: &L,
    fields: KeyFields<'_>,
    o: &[L::Elem],
    m: &[L::Elem],
    opts: Opts,
) -> Result<ListPatch<L::Patch>> {
    if o.is_empty() {
        if m.is_empty() || !opts.additions() {
            return Ok(ListPatch::default());
        }
        let patch = m.iter().map(|e| l.to_patch(e)).collect::<Result<_>>()?;
        return Ok(ListPatch { patch, order: Vec::new() });
    }
    let o_keys = keys_of(l, fields, o)?;
    let m_keys = keys_of(l, fields, m)?;

    // Changes and additions, each with the position of its element in `m`.
    let mut changes: Vec<(L::Patch, usize)> = Vec::new();
    let mut deletes: Vec<L::Patch> = Vec::new();
    // The patch of a changed element, with its key.
    let change = |a: &Keyed<'_, L::Elem>, b: &Keyed<'_, L::Elem>, at: usize| -> Result<Option<L::Patch>> {
        if l.unchanged(a.elem, b.elem) {
            return Ok(None);
        }
        let mut p = l.diff(a.elem, b.elem, opts).map_err(|e| fields.at(e, Some(&b.key), at))?;
        if p.is_empty() {
            return Ok(None);
        }
        for (k, v) in l.entry(b.elem, fields, &b.key).members() {
            p.insert(k, v.clone());
        }
        Ok(Some(L::Patch::object(p)))
    };
    let same_len = o_keys.len() == m_keys.len();
    // Equal strings (the common case) print alike and are `==`: compared once.
    let same_strings = same_len
        && o_keys
            .iter()
            .zip(&m_keys)
            .all(|(a, b)| matches!((a.key.one_str(), b.key.one_str()), (Some(x), Some(y)) if x == y));
    let in_place = same_strings || (same_len && o_keys.iter().zip(&m_keys).all(|(a, b)| same_text(&a.key, &b.key)));
    if in_place {
        for (j, (a, b)) in o_keys.iter().zip(&m_keys).enumerate() {
            changes.extend(change(a, b, j)?.map(|p| (p, j)));
        }
    } else {
        let o_sorted = sorted_by_text(&o_keys);
        let m_sorted = sorted_by_text(&m_keys);
        walk_sorted(
            &o_sorted,
            &m_sorted,
            |a, b| a.1.cmp(&b.1),
            |step| {
                match step {
                    Step::Both(i, j) => {
                        let (a, b) = (&o_keys[o_sorted[i].0], &m_keys[m_sorted[j].0]);
                        changes.extend(change(a, b, j)?.map(|p| (p, m_sorted[j].0)));
                    }
                    // The modified element is new.
                    Step::Right(j) if opts.additions() => {
                        let at = m_sorted[j].0;
                        changes.push((l.to_patch(m_keys[at].elem)?, at));
                    }
                    // The original element was removed.
                    Step::Left(i) if opts.deletions() => {
                        let gone = &o_keys[o_sorted[i].0];
                        let mut d = l.entry(gone.elem, fields, &gone.key);
                        d.insert(PATCH, L::Patch::from_json(Value::String(PatchOp::Delete.as_str().into())));
                        deletes.push(L::Patch::object(d));
                    }
                    _ => {}
                }
                Ok(())
            },
        )?;
    }
    let mut patch = order_by_modified(changes, &m_keys, in_place)?;
    let order_same = same_strings || is_order_same(&o_keys, &m_keys)?;
    patch.extend(deletes);
    let emit_order = opts.set_element_order()
        && ((opts.additions() && (!patch.is_empty() || !order_same)) || (opts.deletions() && !patch.is_empty()));
    let entry = |k: &Keyed<'_, L::Elem>| L::Patch::object(l.entry(k.elem, fields, &k.key));
    let order = if emit_order { m_keys.iter().map(entry).collect() } else { Vec::new() };
    Ok(ListPatch { patch, order })
}

/// The elements with their keys; each must be an object carrying its key.
fn keys_of<'e, L: DiffElements>(l: &L, fields: KeyFields<'_>, list: &'e [L::Elem]) -> Result<Vec<Keyed<'e, L::Elem>>> {
    let mut keyed = Vec::with_capacity(list.len());
    for e in list {
        keyed.push(match fields.key_of(|n| l.field(e, n)) {
            Field::Value(key) => Keyed { elem: e, key },
            Field::Missing => return Err(missing_key(l, fields, e)),
            Field::NotObject => return Err(bad_arg(GoKind::Object, &l.to_json(e)?)),
        });
    }
    Ok(keyed)
}

/// Whether two keys print alike with `%v`.
fn same_text(a: &Key<'_>, b: &Key<'_>) -> bool {
    a.text() == b.text()
}

/// Positions of the elements sorted by the `%v` text of their keys
/// (`sortMergeListsByNameArray`, without recursion).
fn sorted_by_text<'e, E>(list: &[Keyed<'e, E>]) -> Vec<(usize, Cow<'e, str>)> {
    let mut out: Vec<(usize, Cow<'e, str>)> = list.iter().enumerate().map(|(i, k)| (i, k.key.text())).collect();
    go_sort_by(&mut out, |a, b| a.1 <= b.1);
    out
}

/// Sorts the changes and additions by the position of their key in the
/// modified list (`normalizeSliceOrder(patch, modified)`).
fn order_by_modified<E, P: Document>(changes: Vec<(P, usize)>, m: &[Keyed<'_, E>], in_place: bool) -> Result<Vec<P>> {
    if in_place && changes.len() < 2 {
        // Nothing to sort: Go's sort compares nothing either.
        return Ok(changes.into_iter().map(|(v, _)| v).collect());
    }
    let (deletes, rest): (Vec<_>, Vec<_>) = changes
        .into_iter()
        .partition(|(v, _)| v.field(PATCH).value().and_then(|d| d.as_str()) == Some(PatchOp::Delete.as_str()));
    // Only the changed elements' keys are looked up, so only they are
    // numbered: the modified list is scanned for the first position of
    // each, without adding its other keys (usually most of them) to a table.
    let mut interner = Interner::with_capacity(rest.len());
    let mut tags: Vec<Tag> = rest.iter().map(|(_, j)| interner.tag(&m[*j].key)).collect();
    let mut rest = rest;
    if in_place && interner.len() < rest.len() {
        // Changed elements share a key. The reference walks both lists
        // sorted by key text (an unstable sort) and lists the changes in
        // that walk's order, which the stable ordering by first position
        // keeps among equal keys; pairing in place listed them by position.
        let mut rank = vec![0; m.len()];
        for (r, (i, _)) in sorted_by_text(m).into_iter().enumerate() {
            rank[i] = r;
        }
        let mut walked: Vec<((P, usize), Tag)> = rest.into_iter().zip(tags).collect();
        walked.sort_by_key(|((_, j), _)| rank[*j]);
        (rest, tags) = walked.into_iter().unzip();
    }
    let mut index = TagIndex::new([], interner.len());
    for (p, k) in m.iter().enumerate() {
        if let Some(tag) = interner.get(&k.key) {
            index.push(tag, p);
        }
    }
    let pos: Vec<Lookup> = tags.iter().map(|&t| index.lookup(t)).collect();
    let sorted = sort_by_lookup(rest, pos).map_err(|Uncomparable| uncomparable())?;
    Ok(sorted.into_iter().chain(deletes).map(|(v, _)| v).collect())
}

/// `isOrderSame`: the keys of both lists are `==` position by position.
fn is_order_same<E>(o: &[Keyed<'_, E>], m: &[Keyed<'_, E>]) -> Result<bool> {
    if o.len() != m.len() {
        return Ok(false);
    }
    for (a, b) in o.iter().zip(m) {
        if !a.key.go_eq(&b.key).ok_or_else(uncomparable)? {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Docs;
    use serde_json::{Map, json};

    /// Elements whose diff is their field `v` when it changed.
    struct Plain;

    impl DiffElements for Docs<Plain, Value> {
        type Patch = Value;

        fn diff(&self, old: &Value, new: &Value, _: Opts) -> Result<Map<String, Value>> {
            let mut m = Map::new();
            if old["v"] != new["v"] {
                m.insert("v".into(), new["v"].clone());
            }
            Ok(m)
        }

        fn to_patch(&self, e: &Value) -> Result<Value> {
            Ok(e.clone())
        }

        fn entry(&self, _: &Value, fields: KeyFields<'_>, key: &Key<'_>) -> Map<String, Value> {
            fields.entry(key)
        }
    }

    fn run(o: Value, m: Value) -> (Vec<Value>, Vec<Value>) {
        let mk = crate::schema::MergeKey::One("k");
        let opts = Opts::new(crate::DiffOptions { set_element_order: true, ..Default::default() });
        let p = diff(&Docs::new(Plain), KeyFields::primary(&mk), o.as_array().unwrap(), m.as_array().unwrap(), opts)
            .unwrap();
        (p.patch, p.order)
    }

    #[test]
    fn in_place_and_sorted_pairing_agree() {
        // Same texts in the same order: paired in place, changes in order.
        let (patch, order) =
            run(json!([{"k": 2, "v": 1}, {"k": 1, "v": 1}]), json!([{"k": 2, "v": 2}, {"k": 1, "v": 3}]));
        assert_eq!(patch, vec![json!({"k": 2, "v": 2}), json!({"k": 1, "v": 3})]);
        assert_eq!(order, vec![json!({"k": 2}), json!({"k": 1})]);
        // `1` and `"1"` print alike: paired, but not the same key for `==`.
        let (patch, order) = run(json!([{"k": 1, "v": 1}]), json!([{"k": "1", "v": 1}]));
        assert!(patch.is_empty());
        assert_eq!(order, vec![json!({"k": "1"})]);
    }

    /// Changed elements that share a key are listed as the reference's walk
    /// over the lists sorted by key meets them, also where the lists pair
    /// in place: as kubectl sends the patch of 20 ports, all 8080, renamed
    /// (the order of `order::tests::equal_keys_sort_as_kubectl_sorts_them`).
    #[test]
    fn changes_of_one_key_come_in_the_reference_walks_order() {
        let list = |tag: &str| (0..20).map(|i| json!({"k": 8080, "v": format!("{tag}{i}")})).collect::<Value>();
        let (patch, _) = run(list("a"), list("b"));
        let names: Vec<&str> = patch.iter().map(|p| p["v"].as_str().unwrap()).collect();
        let want = [1, 6, 4, 19, 12, 7, 9, 8, 11, 15, 14, 0, 2, 13, 5, 3, 18, 17, 16, 10].map(|i| format!("b{i}"));
        assert_eq!(names, want);
    }
}
