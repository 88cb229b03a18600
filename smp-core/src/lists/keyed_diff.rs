//! The patch between two lists of objects identified by a merge key
//! (`diffListsOfMaps` with the ordering and `$setElementOrder` of
//! `diffLists`), written once over [`DiffElements`].
//!
//! The reference pairs elements by the `%v` text of their keys, after
//! sorting both lists by it. When both lists have the same key texts in
//! the same order (the common case: a few fields changed) the sorted walk
//! pairs elements by position, so they are paired in place, unsorted.

use super::element::{DiffElements, missing_key};
use super::key::{Field, Interner, Key, KeyFields, TagIndex, Uncomparable, uncomparable};
use super::order::{Step, gather, go_sort_order, in_order, lookup_order, stable_order_by_key, walk_sorted};
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
        let mut patch = Vec::with_capacity(m.len());
        for e in m {
            patch.push(l.to_patch(e)?);
        }
        return Ok(ListPatch { patch, order: Vec::new() });
    }
    let o_keys = keys_of(l, fields, o)?;
    let m_keys = keys_of(l, fields, m)?;

    // Changes and additions, each with the position of its element in `m`.
    let mut changes: Vec<(L::Patch, usize)> = Vec::new();
    let mut deletes: Vec<L::Patch> = Vec::new();
    let pairing = pair(&o_keys, &m_keys);
    for step in &pairing.steps {
        match *step {
            Pair::Both { old, new, at } => {
                let (a, b, key) = (&o[old], &m[new], &m_keys[new]);
                if l.unchanged(a, b) {
                    continue;
                }
                let mut p = l.diff(a, b, opts).map_err(|e| fields.at(e, Some(key), at))?;
                if p.is_empty() {
                    continue;
                }
                for (k, v) in l.entry(b, fields, key).members() {
                    p.insert(k, v.clone());
                }
                changes.push((L::Patch::object(p), new));
            }
            // The modified element is new.
            Pair::Added(new) if opts.additions() => changes.push((l.to_patch(&m[new])?, new)),
            // The original element was removed.
            Pair::Removed(old) if opts.deletions() => {
                let mut d = l.entry(&o[old], fields, &o_keys[old]);
                d.insert(PATCH, L::Patch::from_json(Value::String(PatchOp::Delete.as_str().into())));
                deletes.push(L::Patch::object(d));
            }
            _ => {}
        }
    }
    let mut patch = order_by_modified(changes, &m_keys, pairing.in_place)?;
    let order_same = pairing.same_strings || is_order_same(&o_keys, &m_keys)?;
    patch.extend(deletes);
    let emit_order = opts.set_element_order()
        && ((opts.additions() && (!patch.is_empty() || !order_same)) || (opts.deletions() && !patch.is_empty()));
    let mut order = Vec::new();
    if emit_order {
        order.reserve(m.len());
        for (e, key) in m.iter().zip(&m_keys) {
            order.push(L::Patch::object(l.entry(e, fields, key)));
        }
    }
    Ok(ListPatch { patch, order })
}

/// The keys of a list's elements; each must be an object carrying its key.
fn keys_of<'e, L: DiffElements>(l: &L, fields: KeyFields<'_>, list: &'e [L::Elem]) -> Result<Vec<Key<'e>>> {
    let mut keys = Vec::with_capacity(list.len());
    for e in list {
        keys.push(match fields.key_of(|n| l.field(e, n)) {
            Field::Value(key) => key,
            Field::Missing => return Err(missing_key(l, fields, e)),
            Field::NotObject => return Err(bad_arg(GoKind::Object, &l.to_json(e)?)),
        });
    }
    Ok(keys)
}

/// A step of the walk that pairs the elements of the two lists.
enum Pair {
    /// An original element (`old`) and a modified one (`new`) with the
    /// same key; `at` is where an error of their diff says it happened.
    Both { old: usize, new: usize, at: usize },
    /// A modified element no original one pairs with.
    Added(usize),
    /// An original element no modified one pairs with.
    Removed(usize),
}

/// How the elements of two lists pair up, by their keys.
struct Pairing {
    /// In the order the reference meets them.
    steps: Vec<Pair>,
    /// Both lists have the same string keys in the same order.
    same_strings: bool,
    /// Both lists have keys that print alike in the same order: each
    /// element pairs with the one at its position.
    in_place: bool,
}

/// Pairs the elements of the lists whose keys are `o` and `m`.
fn pair(o: &[Key<'_>], m: &[Key<'_>]) -> Pairing {
    let same_len = o.len() == m.len();
    // Equal strings (the common case) print alike and are `==`: compared once.
    let same_strings =
        same_len && o.iter().zip(m).all(|(a, b)| matches!((a.one_str(), b.one_str()), (Some(x), Some(y)) if x == y));
    let in_place = same_strings || (same_len && o.iter().zip(m).all(|(a, b)| same_text(a, b)));
    let mut steps = Vec::with_capacity(m.len());
    if in_place {
        for j in 0..m.len() {
            steps.push(Pair::Both { old: j, new: j, at: j });
        }
        return Pairing { steps, same_strings, in_place };
    }
    let (o_sorted, m_sorted) = (ByText::new(o), ByText::new(m));
    walk_sorted(
        &o_sorted.order,
        &m_sorted.order,
        |&a, &b| o_sorted.texts[a].cmp(&m_sorted.texts[b]),
        |step| {
            steps.push(match step {
                Step::Both(i, j) => Pair::Both { old: o_sorted.order[i], new: m_sorted.order[j], at: j },
                Step::Right(j) => Pair::Added(m_sorted.order[j]),
                Step::Left(i) => Pair::Removed(o_sorted.order[i]),
            })
        },
    );
    Pairing { steps, same_strings, in_place }
}

/// Whether two keys print alike with `%v`.
fn same_text(a: &Key<'_>, b: &Key<'_>) -> bool {
    a.text() == b.text()
}

/// The `%v` text of each key, and the positions of the keys sorted by it
/// (`sortMergeListsByNameArray`, without recursion).
struct ByText<'e> {
    texts: Vec<Cow<'e, str>>,
    order: Vec<usize>,
}

impl<'e> ByText<'e> {
    fn new(keys: &[Key<'e>]) -> Self {
        let mut texts = Vec::with_capacity(keys.len());
        for key in keys {
            texts.push(key.text());
        }
        let order = go_sort_order(texts.len(), &|a, b| texts[a] <= texts[b]);
        ByText { texts, order }
    }
}

/// Sorts the changes and additions by the position of their key in the
/// modified list (`normalizeSliceOrder(patch, modified)`).
fn order_by_modified<P: Document>(changes: Vec<(P, usize)>, m: &[Key<'_>], in_place: bool) -> Result<Vec<P>> {
    let mut rest = Vec::with_capacity(changes.len());
    if in_place && changes.len() < 2 {
        // Nothing to sort: Go's sort compares nothing either.
        for (v, _) in changes {
            rest.push(v);
        }
        return Ok(rest);
    }
    let (mut at, mut deletes) = (Vec::with_capacity(changes.len()), Vec::new());
    for (v, j) in changes {
        if v.field(PATCH).value().and_then(|d| d.as_str()) == Some(PatchOp::Delete.as_str()) {
            deletes.push(v);
        } else {
            rest.push(v);
            at.push(j);
        }
    }
    let mut patch = match modified_order(&at, m, in_place)? {
        Some(order) => in_order(rest, &order),
        None => rest,
    };
    patch.extend(deletes);
    Ok(patch)
}

/// The order [`order_by_modified`] puts changes in, given the position
/// of each in the modified list whose keys are `m`; `None` when they stay
/// where they are.
fn modified_order(at: &[usize], m: &[Key<'_>], in_place: bool) -> Result<Option<Vec<usize>>> {
    // Only the changed elements' keys are looked up, so only they are
    // numbered: the modified list is scanned for the first position of
    // each, without adding its other keys (usually most of them) to a table.
    let mut interner = Interner::with_capacity(at.len());
    let mut tags = Vec::with_capacity(at.len());
    for &j in at {
        tags.push(interner.tag(&m[j]));
    }
    let mut walked = None;
    if in_place && interner.len() < at.len() {
        // Changed elements share a key. The reference walks both lists
        // sorted by key text (an unstable sort) and lists the changes in
        // that walk's order, which the stable ordering by first position
        // keeps among equal keys; pairing in place listed them by position.
        let mut rank = vec![0; m.len()];
        for (r, i) in ByText::new(m).order.into_iter().enumerate() {
            rank[i] = r as u32;
        }
        let order = stable_order_by_key(&gather(&rank, at));
        tags = gather(&tags, &order);
        walked = Some(order);
    }
    let mut index = TagIndex::new(&[], interner.len());
    for (p, k) in m.iter().enumerate() {
        if let Some(tag) = interner.get(k) {
            index.push(tag, p);
        }
    }
    let mut pos = Vec::with_capacity(tags.len());
    for &t in &tags {
        pos.push(index.lookup(t));
    }
    let sorted = lookup_order(&pos).map_err(|Uncomparable| uncomparable())?;
    Ok(match (walked, sorted) {
        (Some(walked), Some(sorted)) => Some(gather(&walked, &sorted)),
        (walked, None) => walked,
        (None, sorted) => sorted,
    })
}

/// `isOrderSame`: the keys of both lists are `==` position by position.
fn is_order_same(o: &[Key<'_>], m: &[Key<'_>]) -> Result<bool> {
    if o.len() != m.len() {
        return Ok(false);
    }
    for (a, b) in o.iter().zip(m) {
        if !a.go_eq(b).ok_or_else(uncomparable)? {
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
