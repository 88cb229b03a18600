//! Merging a patch list into a list of objects identified by a merge key
//! (`mergeSlice` for maps, `mergeSliceWithSpecialElements`,
//! `mergeSliceWithoutSpecialElements`, and the `$setElementOrder` step of
//! `mergePatchIntoOriginal`), written once over [`Elements`].
//!
//! Keys are read once, before anything is merged, and numbered
//! ([`Interner`](crate::lists::key::Interner)); every later step (matching, deletion, ordering) works on
//! those numbers, so elements are never borrowed while they change and
//! every lookup is hashed. Errors are raised at the point where the
//! reference meets them, so that the same one is reported.
//!
//! Only the steps that read or change elements are generic over them;
//! those that work on the keys and the patch alone are compiled once for
//! every kind of element.

use super::element::{Elements, MergeElements, PatchObject, element_kind, missing_key};
use super::key::{Field, Key, KeyFields, KeyValue, Lookup, Tag, TagIndex, Uncomparable, number_keys, uncomparable};
use super::key::{KeyHasher, KeyMap};
use super::order::{
    gather, in_order, merge_sorted_lookup, sort_by_lookup, stable_order_by_key, validate_patch_with_order,
};
use crate::directive::{PATCH, PatchOp};
use crate::doc::copy_patch_value;
use crate::doc::{Document, Object as _};
use crate::error::{Error, ErrorKind, Result, bad_arg, no_merge_key};
use crate::value::{GoKind, fmt_s, fmt_v_map};

use std::borrow::Cow;
use std::collections::VecDeque;

/// The elements on their way through the merge, each with its key's tag
/// and whether it is a `$patch: delete` entry (those sort last). Kept side
/// by side rather than as one vector of triples, so that the live list is
/// merged where it is instead of being copied into a larger one.
struct Items<E> {
    elems: Vec<E>,
    meta: Vec<Meta>,
}

/// What the ordering steps know of an element.
struct Meta {
    key: Field<Tag>,
    delete: bool,
}

impl<E> Items<E> {
    fn with_capacity(n: usize) -> Self {
        Items { elems: Vec::with_capacity(n), meta: Vec::with_capacity(n) }
    }

    fn push(&mut self, elem: E, key: Field<Tag>, delete: bool) {
        self.elems.push(elem);
        self.meta.push(Meta { key, delete });
    }

    fn len(&self) -> usize {
        self.elems.len()
    }

    /// Keeps the elements whose flag in `kept` is set, in order.
    fn retain(&mut self, kept: &[bool]) {
        let mut flags = kept.iter();
        self.elems.retain(|_| flags.next().copied().unwrap_or(true));
        let mut flags = kept.iter();
        self.meta.retain(|_| flags.next().copied().unwrap_or(true));
    }

    /// The elements in the order given ([`in_order`]).
    fn into_ordered(self, order: &[usize]) -> Vec<E> {
        in_order(self.elems, order)
    }

    /// The items in the order given ([`in_order`]).
    fn ordered(self, order: &[usize]) -> Self {
        Items { elems: in_order(self.elems, order), meta: in_order(self.meta, order) }
    }
}

/// The `$patch` directive of a patch element.
#[derive(Clone, Copy)]
enum Directive<'p, P> {
    None,
    Delete,
    Replace,
    Merge,
    Other(&'p P),
}

impl<P> Directive<'_, P> {
    fn is_delete(&self) -> bool {
        matches!(self, Directive::Delete)
    }
}

/// A patch element, looked at once.
struct Entry<'p, P> {
    value: &'p P,
    directive: Directive<'p, P>,
    key: Field<Tag>,
}

impl<'p, P: Document> Entry<'p, P> {
    fn new(value: &'p P, key: Field<Tag>) -> Self {
        let directive = match value.as_object().and_then(|m| m.get(PATCH)) {
            None => Directive::None,
            Some(d) => match d.as_str().and_then(PatchOp::parse) {
                Some(PatchOp::Delete) => Directive::Delete,
                Some(PatchOp::Replace) => Directive::Replace,
                Some(PatchOp::Merge) => Directive::Merge,
                None => Directive::Other(d),
            },
        };
        Entry { value, directive, key }
    }
}

/// The keys of everything a merge meets, numbered before anything changes.
struct Keys<'p, P> {
    null: Tag,
    ids: usize,
    /// The tags of the null key, the live elements, the patch's and the
    /// order's, in one vector.
    tags: Vec<Field<Tag>>,
    /// Where the live elements' tags and the order's start in `tags`.
    live_at: usize,
    order_at: usize,
    patch: Vec<Entry<'p, P>>,
}

impl<'p, P: Document> Keys<'p, P> {
    /// The keys of `live`, of the `patch_len` patch elements `patch` gives
    /// by position, and of `order`.
    fn new<L: MergeElements<Patch = P>>(
        l: &L,
        fields: KeyFields<'_>,
        live: &[L::Elem],
        (patch_len, patch): (usize, &dyn Fn(usize) -> &'p P),
        order: &'p [P],
    ) -> Self {
        // One sequence: the null key, the live keys, the patch's, the order's.
        let (live_at, patch_at, order_at) = (1, 1 + live.len(), 1 + live.len() + patch_len);
        let patch_key = |v: &'p P| fields.key_of(|n| v.field(n));
        let key = |i: usize| match i {
            0 => Field::Value(Key::One(KeyValue::Null)),
            i if i < patch_at => fields.key_of(|n| l.field(&live[i - live_at], n)),
            i if i < order_at => patch_key(patch(i - patch_at)),
            i => patch_key(&order[i - order_at]),
        };
        Self::of_tags(number_keys(order_at + order.len(), &key), (live_at, patch_at, order_at), patch)
    }

    /// The keys numbered, the patch elements among them looked at once.
    fn of_tags(
        tags: Vec<Field<Tag>>,
        (live_at, patch_at, order_at): (usize, usize, usize),
        patch: &dyn Fn(usize) -> &'p P,
    ) -> Self {
        let Field::Value(null) = tags[0] else { unreachable!("the null key is comparable") };
        let mut entries = Vec::with_capacity(order_at - patch_at);
        for (i, key) in tags[patch_at..order_at].iter().enumerate() {
            entries.push(Entry::new(patch(i), key.clone()));
        }
        Keys { null, ids: tags.len(), tags, live_at, order_at, patch: entries }
    }

    /// The live elements' keys.
    fn live(&self) -> &[Field<Tag>] {
        &self.tags[self.live_at..self.order_at - self.patch.len()]
    }

    /// The keys of the order's entries.
    fn order(&self) -> &[Field<Tag>] {
        &self.tags[self.order_at..]
    }

    /// What the reference's order lists hold for an element: its key, or
    /// nil when it has none.
    fn order_key(&self, key: &Field<Tag>) -> Tag {
        match key {
            Field::Value(t) => *t,
            _ => self.null,
        }
    }

    /// The live list as the server's order holds it.
    fn live_view(&self) -> Vec<Tag> {
        let mut view = Vec::with_capacity(self.live().len());
        for k in self.live() {
            view.push(self.order_key(k));
        }
        view
    }
}

/// The merge of a keyed list: `list` merged with `patch` (`mergeSlice`).
/// `delete_list` marks a `$deleteFromPrimitiveList` list, which deletes
/// scalars (and merges objects, as the reference does).
pub(crate) fn merge<L: MergeElements>(
    l: &L,
    fields: KeyFields<'_>,
    list: Vec<L::Elem>,
    patch: &[L::Patch],
    delete_list: bool,
) -> Result<Vec<L::Elem>> {
    merge_in(l, fields, list, patch, delete_list, true)
}

/// [`merge`]; `in_order`: a patch that names live elements in their order
/// and then adds new ones is merged where the elements are
/// ([`in_order_targets`]), else the general steps run.
fn merge_in<L: MergeElements>(
    l: &L,
    fields: KeyFields<'_>,
    mut list: Vec<L::Elem>,
    patch: &[L::Patch],
    delete_list: bool,
    in_order: bool,
) -> Result<Vec<L::Elem>> {
    let keys = Keys::new(l, fields, &list, (patch.len(), &|i| &patch[i]), &[]);
    if in_order
        && !delete_list
        && let Some(targets) = in_order_targets(l, &keys, &list)
    {
        merge_in_order(l, fields, &keys, &mut list, &targets)?;
        return Ok(list);
    }
    Ok(merge_slice(l, fields, &keys, list, delete_list)?.elems)
}

/// Where each element of a patch goes, when the patch has the shape most
/// patches have: objects without directives, which name live elements in
/// their order (each at most once) and then add new ones. The live
/// elements are objects whose keys are all distinct, none of them null
/// (a null key can be lost in the merge), and none is a deletion marker.
/// Then the reference's ordering of the merged list (`normalizeElementOrder`)
/// leaves the live elements where they are and puts the new ones, in patch
/// order, right after the last element named (at the start when none is):
/// its merge of the two sorted runs takes an element it cannot place by
/// the server's order (a new one) as soon as it meets it. The positions
/// (a live one for each element named, none for a new one), or `None`.
fn in_order_targets<L: MergeElements>(
    l: &L,
    keys: &Keys<'_, L::Patch>,
    live: &[L::Elem],
) -> Option<Vec<Option<usize>>> {
    if live.iter().all(|e| l.kind(e) == GoKind::Object && !l.is_delete(e)) { keys.in_order_targets() } else { None }
}

impl<P: Document> Keys<'_, P> {
    /// [`in_order_targets`], once the live elements are known to be
    /// objects that are no deletion markers.
    fn in_order_targets(&self) -> Option<Vec<Option<usize>>> {
        const ABSENT: u32 = u32::MAX;
        const NEW: u32 = u32::MAX - 1;
        let live = self.live();
        if live.len() >= NEW as usize {
            return None;
        }
        let comparable = |key: &Field<Tag>| match *key {
            Field::Value(Tag::Id(id)) if Tag::Id(id) != self.null => Some(id as usize),
            _ => None,
        };
        // The position of each live key: distinct keys only.
        let mut at = vec![ABSENT; self.ids];
        for (i, key) in live.iter().enumerate() {
            let id = comparable(key)?;
            if at[id] != ABSENT {
                return None;
            }
            at[id] = i as u32;
        }
        let mut targets = Vec::with_capacity(self.patch.len());
        let mut next = 0;
        let mut adding = false;
        for e in &self.patch {
            if !matches!(e.directive, Directive::None) || e.value.kind() != GoKind::Object {
                return None;
            }
            let id = comparable(&e.key)?;
            match at[id] {
                // A key new to the list, once.
                ABSENT => {
                    at[id] = NEW;
                    adding = true;
                    targets.push(None);
                }
                NEW => return None,
                pos if !adding && pos as usize >= next => {
                    next = pos as usize + 1;
                    targets.push(Some(pos as usize));
                }
                _ => return None,
            }
        }
        Some(targets)
    }
}

/// Merges each patch element into the live element at its target, or
/// builds it, as [`merge_plain`] does, the new elements then inserted
/// after the last element named ([`in_order_targets`]).
fn merge_in_order<L: MergeElements>(
    l: &L,
    fields: KeyFields<'_>,
    keys: &Keys<'_, L::Patch>,
    list: &mut Vec<L::Elem>,
    targets: &[Option<usize>],
) -> Result<()> {
    let mk = fields.name();
    let mut new = Vec::new();
    let mut after = 0;
    for (i, (e, target)) in keys.patch.iter().zip(targets).enumerate() {
        let at_element = |err: crate::Error| err.at_element(mk, &e.value.to_json(), i);
        match *target {
            Some(pos) => {
                let m = e.value.as_object().expect("an object (in_order_targets)");
                l.merge(&mut list[pos], &[m]).map_err(at_element)?;
                after = pos + 1;
            }
            None => new.push(l.build(e.value, &[]).map_err(at_element)?),
        }
    }
    list.splice(after..after, new);
    Ok(())
}

/// The merge of a keyed list that the patch orders with
/// `$setElementOrder` (the list's part of `mergePatchIntoOriginal`):
/// `None` when neither side has the list. `merge_strategy` is false for a
/// list the schema replaces.
pub(crate) fn merge_ordered<L: MergeElements>(
    l: &L,
    fields: KeyFields<'_>,
    list: Option<Vec<L::Elem>>,
    patch: Option<&[L::Patch]>,
    order: &[L::Patch],
    merge_strategy: bool,
) -> Result<Option<Vec<L::Elem>>> {
    merge_ordered_in(l, fields, list, patch, order, merge_strategy, true)
}

/// [`merge_ordered`]; `in_place`: a list the patch leaves in order is
/// merged where it is ([`in_place_targets`]), else the general steps run.
fn merge_ordered_in<L: MergeElements>(
    l: &L,
    fields: KeyFields<'_>,
    list: Option<Vec<L::Elem>>,
    patch: Option<&[L::Patch]>,
    order: &[L::Patch],
    merge_strategy: bool,
    in_place: bool,
) -> Result<Option<Vec<L::Elem>>> {
    let mk = fields.name();
    validate_patch_with_order(patch.unwrap_or(&[]), order, mk, Some(fields))?;
    let list = match list {
        Some(mut live) if merge_strategy && in_place => {
            match in_place_targets(l, fields, &live, patch.unwrap_or(&[]), order) {
                Some(targets) => {
                    merge_in_place(l, fields, &mut live, patch.unwrap_or(&[]), &targets)?;
                    return Ok(Some(live));
                }
                None => Some(live),
            }
        }
        other => other,
    };
    let patch_list = patch.unwrap_or(&[]);
    let kind = element_kind(l, list.as_deref().unwrap_or(&[]), (patch_list.len(), &|i| &patch_list[i]));
    // Without a live list, the patch list minus its directives is taken.
    let stripped = match (&list, patch) {
        (None, Some(p)) => without_directives(p, l.keeps_directives()),
        _ => Vec::new(),
    };
    let live_list = list.as_deref().unwrap_or(&[]);
    let keys = match (&list, patch) {
        (None, Some(_)) => Keys::new(l, fields, live_list, (stripped.len(), &|i| &*stripped[i]), order),
        _ => Keys::new(l, fields, live_list, (patch_list.len(), &|i| &patch_list[i]), order),
    };
    // `normalizeSliceOrder` checks the server order's elements for the key
    // too. The merge keeps each live element or deletes it (by its key), so
    // every live element must be an object carrying the key; the merged
    // list's check below finds most of those first, not those of a list
    // the schema replaces (or a `$patch: replace` list).
    let live_keys = match &list {
        Some(o) => check_keys(l, fields, keys.live(), o),
        None => Ok(()),
    };
    let (merged, view): (Items<L::Elem>, Vec<Tag>) = match (list, patch) {
        (None, None) => return Ok(None),
        (Some(o), None) => (live_items(l, &keys, o), keys.live_view()),
        (None, Some(_)) => (build_all(l, &keys)?, Vec::new()),
        (Some(o), Some(_)) => {
            let view = if merge_strategy && matches!(kind, Ok(GoKind::Object)) {
                server_order_view(&keys)
            } else {
                keys.live_view()
            };
            let merged = if merge_strategy { merge_slice(l, fields, &keys, o, false)? } else { build_all(l, &keys)? };
            (merged, view)
        }
    };
    let key_error = |i: usize| key_error(l, fields, &merged.meta[i].key, &merged.elems[i]);
    let sorted = order_merged(fields, &keys, &merged.meta, (kind, live_keys), order, &view, &key_error)?;
    Ok(Some(merged.into_ordered(&sorted)))
}

/// The patch list minus its directives (`removeDirectives`), unless the
/// receiver reads them (`keep_directives`).
fn without_directives<P: Document>(patch: &[P], keep_directives: bool) -> Vec<Cow<'_, P>> {
    let mut kept = Vec::with_capacity(patch.len());
    for v in patch {
        if keep_directives {
            kept.push(Cow::Borrowed(v));
        } else if let Some(v) = strip_directives(v) {
            kept.push(v);
        }
    }
    kept
}

/// A new element from each patch element (the list the patch replaces, or
/// the patch list without a live one).
fn build_all<L: MergeElements>(l: &L, keys: &Keys<'_, L::Patch>) -> Result<Items<L::Elem>> {
    let mut items = Items::with_capacity(keys.patch.len());
    for e in &keys.patch {
        items.push(l.build(e.value, &[])?, e.key.clone(), e.directive.is_delete());
    }
    Ok(items)
}

/// Checks that each element carries its key (`keys`).
fn check_keys<L: Elements>(l: &L, fields: KeyFields<'_>, keys: &[Field<Tag>], elems: &[L::Elem]) -> Result<()> {
    for (key, elem) in keys.iter().zip(elems) {
        if !matches!(key, Field::Value(_)) {
            return Err(key_error(l, fields, key, elem));
        }
    }
    Ok(())
}

/// The order of a list merged under `$setElementOrder`: the merged items
/// split into those the order names and the server's own, then ordered
/// ([`normalize`]), as positions in `items`. `kind` is the lists' element
/// type and `live_keys` the check of the live elements' keys, each
/// reported where the reference meets it; `key_error(i)` is the error of
/// the item `i` without its key.
fn order_merged<P: Document>(
    fields: KeyFields<'_>,
    keys: &Keys<'_, P>,
    items: &[Meta],
    (kind, live_keys): (Result<GoKind>, Result<()>),
    order: &[P],
    view: &[Tag],
    key_error: &dyn Fn(usize) -> Error,
) -> Result<Vec<usize>> {
    let named = FirstMatch::new(keys.order(), keys.ids);
    let mut found = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Field::Value(tag) = item.key else { return Err(key_error(i)) };
        found.push(named.find(tag)?.is_some());
    }
    let objects = kind? == GoKind::Object;
    if objects {
        live_keys?;
    }
    let (mut patch_items, mut server_only) = (Vec::new(), Vec::new());
    for (i, found) in found.into_iter().enumerate() {
        if found { patch_items.push(i) } else { server_only.push(i) }
    }
    normalize(fields, keys, items, patch_items, server_only, (keys.order(), &|i| &order[i]), objects, view)
}

/// The list the patch merges into without changing its order, the common
/// case (every diff of a list whose elements kept their order): the order
/// list names the live elements one by one, by distinct comparable keys,
/// and the patch only merges into some of them (no directive). Both of the
/// reference's ordering passes then keep the live order, and nothing can
/// fail but the merges, so the elements are merged where they are. Gives,
/// for each patch element, the position of the element it merges into;
/// `None` when the case does not hold (the general merge decides).
///
/// Called once the patch is validated against the order: the patch
/// elements are then a subsequence of the order, so each is found by
/// walking the live list forward once.
fn in_place_targets<'p, L: MergeElements>(
    l: &L,
    fields: KeyFields<'_>,
    live: &[L::Elem],
    patch: &'p [L::Patch],
    order: &[L::Patch],
) -> Option<Vec<(usize, &'p PatchObject<L>)>> {
    if live.is_empty() || order.len() != live.len() {
        return None;
    }
    if !live.iter().all(|e| l.kind(e) == GoKind::Object && !l.is_delete(e)) {
        return None;
    }
    in_place_targets_by_key(fields, &|i| fields.key_of(|n| l.field(&live[i], n)), patch, order)
}

/// [`in_place_targets`] once the live elements are known to be objects
/// that are no deletion markers, as many as the order's entries;
/// `live_key(i)` is the key of the live element `i`.
fn in_place_targets_by_key<'p, 'e, P: Document>(
    fields: KeyFields<'_>,
    live_key: &dyn Fn(usize) -> Field<Key<'e>>,
    patch: &'p [P],
    order: &[P],
) -> Option<Vec<(usize, &'p P::Object)>> {
    // Each live key's hash, rather than the keys and a table of them
    // (sixteen bytes an element while the repeats are looked for, eight
    // after, instead of about eighty): a hash found is confirmed
    // by `==` on the key, read again from the element, and a hash that
    // repeats is taken for a repeated key. Either way a collision only
    // sends the list to the general merge.
    let hasher = KeyHasher::default();
    let mut hashes: Vec<u64> = Vec::with_capacity(order.len());
    for (i, o) in order.iter().enumerate() {
        let Field::Value(key) = live_key(i) else { return None };
        // (An order entry that is no object has no field: `Field::NotObject`.)
        let Field::Value(named) = fields.key_of(|n| o.field(n)) else { return None };
        // A map or list key is never `==` (the reference panics on it).
        if key.go_eq(&named) != Some(true) {
            return None;
        }
        hashes.push(key.identity_hash(&hasher)?);
    }
    let mut sorted = hashes.clone();
    sorted.sort_unstable();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        // Duplicate keys: the ordering passes move them.
        return None;
    }
    drop(sorted);
    let mut targets = Vec::with_capacity(patch.len());
    let mut next = 0;
    for p in patch {
        let m = p.as_object()?;
        if m.get(PATCH).is_some() {
            return None;
        }
        let Field::Value(key) = fields.key_of(|n| p.field(n)) else { return None };
        // A null key can lose the key in the merge (`lost_key`), which fails
        // in the general steps.
        let values = match &key {
            Key::One(v) => std::slice::from_ref(v),
            Key::Several(vs) => vs.as_slice(),
        };
        if values.iter().any(|v| v.is_null()) {
            return None;
        }
        let hash = key.identity_hash(&hasher)?;
        let at = next + hashes[next..].iter().position(|&h| h == hash)?;
        match live_key(at) {
            Field::Value(k) if k.go_eq(&key) == Some(true) => {}
            _ => return None,
        }
        targets.push((at, m));
        next = at + 1;
    }
    Some(targets)
}

/// Merges each patch element into the live element at its target (from
/// [`in_place_targets`]), in list order, as `mergeSliceWithoutSpecialElements`
/// does.
fn merge_in_place<L: MergeElements>(
    l: &L,
    fields: KeyFields<'_>,
    live: &mut [L::Elem],
    patch: &[L::Patch],
    targets: &[(usize, &PatchObject<L>)],
) -> Result<()> {
    let mk = fields.name();
    for (i, (p, &(at, m))) in patch.iter().zip(targets).enumerate() {
        l.merge(&mut live[at], &[m]).map_err(|err| err.at_element(mk, &p.to_json(), i))?;
    }
    Ok(())
}

/// A patch element without its directives (`removeDirectives`); `None`
/// when the element is itself a directive.
fn strip_directives<P: Document>(v: &P) -> Option<Cow<'_, P>> {
    fn has_directive<P: Document>(v: &P) -> bool {
        if let Some(m) = v.as_object() {
            return m.get(PATCH).is_some() || m.members().any(|(_, v)| has_directive(v));
        }
        v.as_array().is_some_and(|a| a.iter().any(has_directive))
    }
    if !has_directive(v) {
        return Some(Cow::Borrowed(v));
    }
    copy_patch_value(v, false).map(Cow::Owned)
}

/// The live elements as items (the list itself, not a copy).
fn live_items<L: MergeElements>(l: &L, keys: &Keys<'_, L::Patch>, list: Vec<L::Elem>) -> Items<L::Elem> {
    let mut meta = Vec::with_capacity(list.len());
    for (elem, key) in list.iter().zip(keys.live()) {
        meta.push(Meta { key: key.clone(), delete: l.is_delete(elem) });
    }
    Items { meta, elems: list }
}

/// The error for `elem`, whose key is `key`, when that is no key: `elem`
/// is no object, or lacks the key.
fn key_error<L: Elements>(l: &L, fields: KeyFields<'_>, key: &Field<Tag>, elem: &L::Elem) -> Error {
    match key {
        Field::NotObject => match l.to_json(elem) {
            Ok(json) => bad_arg(GoKind::Object, &json),
            Err(err) => err,
        },
        _ => missing_key(l, fields, elem),
    }
}

/// Whether a merge took the key away from `elem`, whose key was `before`:
/// merging a null for a null key deletes the key (the only change a merge
/// makes to a key, as the patch element's key equals the element's), and
/// the reference then finds no key in the merged list.
fn lost_key<L: Elements, P>(
    l: &L,
    fields: KeyFields<'_>,
    keys: &Keys<'_, P>,
    before: &Field<Tag>,
    elem: &L::Elem,
) -> bool {
    matches!(before, Field::Value(t) if *t == keys.null)
        && matches!(fields.key_of(|n| l.field(elem, n)), Field::Missing)
}

/// `mergeSlice` on a list merged by key.
fn merge_slice<L: MergeElements>(
    l: &L,
    fields: KeyFields<'_>,
    keys: &Keys<'_, L::Patch>,
    original: Vec<L::Elem>,
    delete_list: bool,
) -> Result<Items<L::Elem>> {
    if original.is_empty() && keys.patch.is_empty() {
        return Ok(Items::with_capacity(0));
    }
    let kind = element_kind(l, &original, (keys.patch.len(), &|i| keys.patch[i].value))?;
    if kind != GoKind::Object {
        if delete_list {
            let doomed = super::key::ValueIndex::of_members(keys.patch.iter().map(|e| e.value.as_member()));
            let mut kept = Items::with_capacity(original.len());
            for (e, key) in original.into_iter().zip(keys.live()) {
                let member = l.as_member(&e).ok_or_else(uncomparable)?;
                if !doomed.contains_key(&Key::One(member))? {
                    kept.push(e, key.clone(), false);
                }
            }
            return Ok(kept);
        }
        // The map partitioner meets a scalar.
        return Err(match original.first() {
            Some(e) => bad_arg(GoKind::Object, &l.to_json(e)?),
            None => bad_arg(GoKind::Object, &keys.patch[0].value.to_json()),
        });
    }

    // `mergeSliceWithSpecialElements`.
    let Special { mut plain, replace, deletes } = keys.special(fields.name())?;
    let mut work = live_items(l, keys, original);
    if !deletes.is_empty() {
        // Every element whose key matches a delete goes (`deleteMatchingEntries`).
        work.retain(&not_deleted(&work.meta, deletes, keys.ids)?);
    }
    let server_len = work.len();
    if replace {
        work = Items::with_capacity(plain.len());
        for &i in &plain {
            let e = &keys.patch[i];
            work.push(l.build(e.value, &[])?, e.key.clone(), false);
        }
        plain.clear();
    } else {
        merge_plain(l, fields, keys, &mut work, &plain)?;
    }
    // The order the server had: after deletions, before appends (or the
    // replacement list itself).
    let server_order_len = if replace { work.len() } else { server_len };
    let key_error = |i: usize| key_error(l, fields, &work.meta[i].key, &work.elems[i]);
    let sorted = order_plain(fields, keys, &work.meta, &plain, server_order_len, &key_error)?;
    Ok(work.ordered(&sorted))
}

/// What `mergeSliceWithSpecialElements` finds in a patch list: the plain
/// elements (positions in the patch), whether one says `$patch: replace`,
/// and the keys the `$patch: delete` ones name.
struct Special {
    plain: Vec<usize>,
    replace: bool,
    deletes: Vec<Tag>,
}

impl<P: Document> Keys<'_, P> {
    /// The patch's [`Special`] elements; `mk` names the merge key in
    /// messages.
    fn special(&self, mk: &str) -> Result<Special> {
        let mut special = Special { plain: Vec::with_capacity(self.patch.len()), replace: false, deletes: Vec::new() };
        for (i, e) in self.patch.iter().enumerate() {
            let Some(m) = e.value.as_object() else {
                return Err(bad_arg(GoKind::Object, &e.value.to_json()));
            };
            match e.directive {
                Directive::None => special.plain.push(i),
                Directive::Delete => match e.key {
                    Field::Value(t) => special.deletes.push(t),
                    _ => return Err(no_merge_key(&m.as_json_map(), mk).at_element(mk, &e.value.to_json(), i)),
                },
                Directive::Replace => special.replace = true,
                Directive::Merge => return Err(ErrorKind::MergeDirectiveInList.into()),
                Directive::Other(v) => {
                    let (value, map) = (fmt_s(&v.to_json()), fmt_v_map(&m.as_json_map()));
                    return Err(ErrorKind::UnknownPatchType { value, map }.into());
                }
            }
        }
        Ok(special)
    }
}

/// Which items no deletion names: the keys `deletes` of `$patch: delete`
/// elements remove every item with an equal key.
fn not_deleted(items: &[Meta], deletes: Vec<Tag>, ids: usize) -> Result<Vec<bool>> {
    let doomed = TagIndex::new(&deletes, ids);
    let mut kept = Vec::with_capacity(items.len());
    for item in items {
        kept.push(match item.key {
            Field::Value(t) => doomed.lookup(t).get().map_err(|Uncomparable| uncomparable())?.is_none(),
            _ => true,
        });
    }
    Ok(kept)
}

/// The order of a list merged by `mergeSliceWithSpecialElements`, as
/// positions in `items`: the items the plain patch elements name, ordered
/// by the patch, and the server's own, ordered by the server's order (the
/// first `server_order_len` items), then interleaved ([`normalize`]).
/// `key_error(i)` is the error of the item `i` without its key.
fn order_plain<P: Document>(
    fields: KeyFields<'_>,
    keys: &Keys<'_, P>,
    items: &[Meta],
    plain: &[usize],
    server_order_len: usize,
    key_error: &dyn Fn(usize) -> Error,
) -> Result<Vec<usize>> {
    let mut view = Vec::with_capacity(server_order_len);
    for m in &items[..server_order_len] {
        view.push(keys.order_key(&m.key));
    }
    // `partitionMapsByPresentInList(merged, patch)`: the plain patch
    // elements are objects carrying the key (checked by the merge before).
    let mut order_keys = Vec::with_capacity(plain.len());
    let mut in_patch = TagIndex::new(&[], keys.ids);
    for &i in plain {
        let key = keys.patch[i].key.clone();
        if let Field::Value(tag) = key {
            in_patch.push(tag, order_keys.len());
        }
        order_keys.push(key);
    }
    let mut patch_items = Vec::new();
    let mut server_only = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Field::Value(tag) = item.key else { return Err(key_error(i)) };
        if in_patch.lookup(tag).get().map_err(|Uncomparable| uncomparable())?.is_some() {
            patch_items.push(i);
        } else {
            server_only.push(i);
        }
    }
    let order = |i: usize| keys.patch[plain[i]].value;
    normalize(fields, keys, items, patch_items, server_only, (&order_keys, &order), true, &view)
}

/// `mergeSliceWithoutSpecialElements`: each patch element merges into the
/// first element with its key, or is appended. The patch elements bound for
/// one element are merged into it together, in patch order: the reference
/// merges them one by one on JSON, where a step in between may hold what the
/// typed element cannot (a later patch element fixing an earlier one).
fn merge_plain<L: MergeElements>(
    l: &L,
    fields: KeyFields<'_>,
    keys: &Keys<'_, L::Patch>,
    work: &mut Items<L::Elem>,
    plain: &[usize],
) -> Result<()> {
    let mk = fields.name();
    let live_len = work.len();
    let PlainTargets { targets, appended } = keys.plain_targets(mk, &work.meta, plain)?;
    let mut rest = targets.as_slice();
    for (pos, elem) in work.elems.iter_mut().enumerate() {
        let patches = take_group(&mut rest, pos);
        if let Some(&first) = patches.first() {
            let maps = keys.objects(plain, &patches);
            let at = plain[first];
            l.merge(elem, &maps).map_err(|err| err.at_element(mk, &keys.patch[at].value.to_json(), first))?;
            if lost_key(l, fields, keys, &work.meta[pos].key, elem) {
                work.meta[pos].key = Field::Missing;
            }
        }
    }
    for (n, &first) in appended.iter().enumerate() {
        let then = keys.objects(plain, &take_group(&mut rest, live_len + n));
        let e = &keys.patch[plain[first]];
        let elem = l.build(e.value, &then).map_err(|err| err.at_element(mk, &e.value.to_json(), first))?;
        let key =
            if !then.is_empty() && lost_key(l, fields, keys, &e.key, &elem) { Field::Missing } else { e.key.clone() };
        work.push(elem, key, false);
    }
    Ok(())
}

/// Where the plain patch elements of [`merge_plain`] go.
struct PlainTargets {
    /// (target position, index in `plain`), grouped by target, each group
    /// in patch order; the positions past the live items are those of the
    /// appended elements.
    targets: Vec<(usize, usize)>,
    /// The first patch element (index in `plain`) of each appended element.
    appended: Vec<usize>,
}

impl<P: Document> Keys<'_, P> {
    /// The [`PlainTargets`] of the patch elements `plain` merged into the
    /// items `items` (the reference's linear search for each, which fails
    /// where it does); `mk` names the merge key in messages.
    fn plain_targets(&self, mk: &str, items: &[Meta], plain: &[usize]) -> Result<PlainTargets> {
        let live_len = items.len();
        let mut index = FirstMatch::new(items.iter().map(|m| &m.key), self.ids);
        let mut targets: Vec<(usize, usize)> = Vec::with_capacity(plain.len());
        let mut appended: Vec<usize> = Vec::new();
        for (i, &at) in plain.iter().enumerate() {
            let e = &self.patch[at];
            let Some(pm) = e.value.as_object() else { return Err(bad_arg(GoKind::Object, &e.value.to_json())) };
            let Field::Value(tag) = e.key else {
                return Err(no_merge_key(&pm.as_json_map(), mk).at_element(mk, &e.value.to_json(), i));
            };
            match index.find(tag)? {
                Some(pos) => targets.push((pos, i)),
                None => {
                    index.push(tag, live_len + appended.len());
                    appended.push(i);
                }
            }
        }
        Ok(PlainTargets { targets: by_target(&targets), appended })
    }

    /// The objects of the patch elements `group` (indexes in `plain`),
    /// which are objects.
    fn objects(&self, plain: &[usize], group: &[usize]) -> Vec<&P::Object> {
        let mut objects = Vec::with_capacity(group.len());
        for &i in group {
            objects.push(self.patch[plain[i]].value.as_object().expect("checked by plain_targets"));
        }
        objects
    }
}

/// The indexes of the first group of `rest` when its target is `pos` (none
/// else), taken off `rest`.
fn take_group(rest: &mut &[(usize, usize)], pos: usize) -> Vec<usize> {
    let mut group = Vec::new();
    let mut left: &[(usize, usize)] = rest;
    while let Some((&(p, i), later)) = left.split_first()
        && p == pos
    {
        group.push(i);
        left = later;
    }
    *rest = left;
    group
}

/// (target position, patch element) pairs grouped by target, each group
/// in the order given.
fn by_target(targets: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut positions = Vec::with_capacity(targets.len());
    for &(pos, _) in targets {
        // A position in the merged list.
        positions.push(pos as u32);
    }
    gather(targets, &stable_order_by_key(&positions))
}

/// Positions of objects in a list by key, kept up to date as elements are
/// appended. Answers as the reference's linear search
/// (`findMapInSliceBasedOnKeyValue`) does, which stops at the first element
/// that is not an object (an error), that has an equal key, or whose key
/// is a map (or a list) when a map (or a list) is looked up (`==` panics).
struct FirstMatch {
    index: TagIndex,
    first_non_object: Option<usize>,
    first_object_key: Option<usize>,
    first_array_key: Option<usize>,
}

impl FirstMatch {
    fn new<'k>(keys: impl IntoIterator<Item = &'k Field<Tag>>, ids: usize) -> Self {
        let mut m = FirstMatch {
            index: TagIndex::new(&[], ids),
            first_non_object: None,
            first_object_key: None,
            first_array_key: None,
        };
        for (i, k) in keys.into_iter().enumerate() {
            match k {
                Field::Value(t) => m.push(*t, i),
                Field::Missing => {}
                Field::NotObject => {
                    m.first_non_object.get_or_insert(i);
                }
            }
        }
        m
    }

    fn push(&mut self, tag: Tag, pos: usize) {
        match tag {
            Tag::Id(_) => self.index.push(tag, pos),
            Tag::Object => {
                self.first_object_key.get_or_insert(pos);
            }
            Tag::Array => {
                self.first_array_key.get_or_insert(pos);
            }
        }
    }

    fn find(&self, tag: Tag) -> Result<Option<usize>> {
        let (hit, panics_at) = match tag {
            Tag::Id(_) => (self.index.lookup(tag).found(), None),
            Tag::Object => (None, self.first_object_key),
            Tag::Array => (None, self.first_array_key),
        };
        // The linear search stops at the first of these.
        match [self.first_non_object, panics_at, hit].into_iter().flatten().min() {
            None => Ok(None),
            Some(i) if Some(i) == self.first_non_object => Err(ErrorKind::NotAMap(i).into()),
            Some(i) if Some(i) == panics_at => Err(uncomparable()),
            found => Ok(found),
        }
    }
}

/// `normalizeElementOrder`: patch items sorted by the order list, the
/// server's own by the server order (`view`), then interleaved. Items are
/// given and returned as positions in `items`, so that they move once,
/// when the caller puts them in the order returned ([`in_order`]).
#[allow(clippy::too_many_arguments)]
fn normalize<'p, P: Document + 'p>(
    fields: KeyFields<'_>,
    keys: &Keys<'_, P>,
    items: &[Meta],
    patch_items: Vec<usize>,
    server_only: Vec<usize>,
    (order_keys, order): (&[Field<Tag>], &dyn Fn(usize) -> &'p P),
    objects: bool,
    view: &[Tag],
) -> Result<Vec<usize>> {
    // `normalizeSliceOrder`: the order's entries are objects with the key.
    let mk = fields.name();
    for (i, k) in order_keys.iter().enumerate().filter(|_| objects) {
        match k {
            Field::Value(_) => {}
            Field::NotObject => return Err(bad_arg(GoKind::Object, &order(i).to_json())),
            Field::Missing => return Err(no_merge_key(&order(i).as_object().expect("an object").as_json_map(), mk)),
        }
    }
    let mut by_order = TagIndex::new(&[], keys.ids);
    for (i, k) in order_keys.iter().enumerate() {
        by_order.push(keys.order_key(k), i);
    }
    let patch_items = sort_by_index(items, patch_items, &by_order)?;
    let by_server = TagIndex::new(view, keys.ids);
    let server_only = sort_by_index(items, server_only, &by_server)?;
    let lp = lookups(items, &server_only, &by_server);
    let rp = lookups(items, &patch_items, &by_server);
    merge_sorted_lookup(server_only, &lp, patch_items, &rp).map_err(|Uncomparable| uncomparable())
}

/// Where `index` finds each of the items at `at`.
fn lookups(items: &[Meta], at: &[usize], index: &TagIndex) -> Vec<Lookup> {
    let mut found = Vec::with_capacity(at.len());
    for &i in at {
        found.push(index.lookup(tag_of(&items[i])));
    }
    found
}

fn tag_of(item: &Meta) -> Tag {
    match item.key {
        Field::Value(t) => t,
        // Items are checked before they are ordered.
        _ => Tag::Object,
    }
}

/// Sorts positions of items by the items' positions in an index;
/// `$patch: delete` entries go last.
fn sort_by_index(items: &[Meta], at: Vec<usize>, index: &TagIndex) -> Result<Vec<usize>> {
    let (mut deletes, mut rest) = (Vec::new(), Vec::with_capacity(at.len()));
    for i in at {
        if items[i].delete { deletes.push(i) } else { rest.push(i) }
    }
    let pos = lookups(items, &rest, index);
    let mut sorted = sort_by_lookup(rest, pos).map_err(|Uncomparable| uncomparable())?;
    sorted.extend(deletes);
    Ok(sorted)
}

/// The list the reference uses as "server order" after merging a keyed list
/// under `$setElementOrder`: a Go slice header of the live list's length
/// that sees the in-place deletions and appends of the merge. It shows the
/// live list minus the deleted elements, then the first appended patch
/// elements, then stale copies of the old tail.
fn server_order_view<P: Document>(keys: &Keys<'_, P>) -> Vec<Tag> {
    let n = keys.live().len();
    let key_of = |i: usize| keys.order_key(&keys.live()[i]);
    let scalar = |k: &Field<Tag>| match k {
        Field::Value(t @ Tag::Id(_)) => Some(*t),
        _ => None,
    };
    let mut alive = vec![true; n];
    let mut view: Vec<Tag> = vec![keys.null; n];
    // The live positions of each key, for the deletions (only they need it).
    let mut positions: KeyMap<Tag, VecDeque<usize>> = KeyMap::default();
    if keys.patch.iter().any(|e| e.directive.is_delete()) {
        for (i, k) in keys.live().iter().enumerate() {
            if let Some(t) = scalar(k) {
                positions.entry(t).or_default().push_back(i);
            }
        }
    }
    let mut len = n;
    let mut last = n; // one past the last alive element
    let mut stale: Vec<(usize, usize)> = Vec::new(); // (slot, live index shown there)
    let mut replaced = false;
    for e in &keys.patch {
        if e.value.as_object().is_none() {
            continue;
        }
        match e.directive {
            Directive::Delete => {
                let Some(t) = scalar(&e.key) else { continue };
                if let Some(q) = positions.get_mut(&t) {
                    while let Some(i) = q.pop_front() {
                        while last > 0 && !alive[last - 1] {
                            last -= 1;
                        }
                        // Slot len-1 keeps the element that was last.
                        stale.push((len - 1, last - 1));
                        alive[i] = false;
                        len -= 1;
                    }
                }
            }
            Directive::Replace => replaced = true,
            _ => {}
        }
    }
    let mut survivors = Vec::with_capacity(n);
    for (i, &alive) in alive.iter().enumerate() {
        if alive {
            survivors.push(i);
        }
    }
    for (slot, &i) in survivors.iter().enumerate() {
        view[slot] = key_of(i);
    }
    for (slot, i) in stale {
        view[slot] = key_of(i);
    }
    if !replaced {
        // The keys present, by interned id.
        let mut present = vec![false; keys.ids];
        for t in survivors.iter().filter_map(|&i| scalar(&keys.live()[i])) {
            if let Tag::Id(id) = t {
                present[id as usize] = true;
            }
        }
        let mut work_len = survivors.len();
        for e in &keys.patch {
            if e.value.as_object().is_none() || !matches!(e.directive, Directive::None) {
                continue;
            }
            let Field::Value(t) = e.key else { continue };
            // A map or list key matches nothing, so its element is appended.
            let appended = match t {
                Tag::Id(id) => !std::mem::replace(&mut present[id as usize], true),
                _ => true,
            };
            if appended {
                work_len += 1;
                if work_len <= n {
                    view[work_len - 1] = t;
                }
            }
        }
    }
    view
}

#[cfg(test)]
mod tests {
    use super::{in_order, merge_in, merge_ordered_in};
    use crate::engine::Docs;
    use crate::error::Result;
    use crate::lists::element::MergeElements;
    use crate::lists::key::{KeyFields, KeyValue};
    use crate::schema::MergeKey;
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    /// Elements merged member by member (`null` removes one), which is all
    /// the ordering steps need to be told apart.
    struct Shallow;

    impl MergeElements for Docs<Shallow, Value> {
        type Patch = Value;

        fn as_member<'e>(&self, e: &'e Value) -> Option<KeyValue<'e>> {
            Some(KeyValue::Json(e))
        }

        fn is_delete(&self, e: &Value) -> bool {
            e.get("$patch").and_then(Value::as_str) == Some("delete")
        }

        fn merge(&self, e: &mut Value, patches: &[&Map<String, Value>]) -> Result<()> {
            let Value::Object(m) = e else { return Err(crate::error::ErrorKind::NoElements.into()) };
            for p in patches {
                for (k, v) in p.iter() {
                    if v.is_null() {
                        m.remove(k);
                    } else {
                        m.insert(k.clone(), v.clone());
                    }
                }
            }
            Ok(())
        }

        fn build(&self, patch: &Value, then: &[&Map<String, Value>]) -> Result<Value> {
            let mut e = patch.clone();
            self.merge(&mut e, then)?;
            Ok(e)
        }
    }

    /// Merge keys, some printed alike, some that Go cannot compare.
    fn key() -> impl Strategy<Value = Option<Value>> {
        prop_oneof![
            8 => prop::sample::select(vec![json!("a"), json!("b"), json!("c"), json!("d"), json!("e")]).prop_map(Some),
            1 => prop::sample::select(vec![json!(1), json!("1"), json!(null), json!({"x": 1}), json!([1])]).prop_map(Some),
            1 => Just(None),
        ]
    }

    fn element(v: u8, directive: Option<&'static str>) -> impl Strategy<Value = Value> {
        key().prop_map(move |k| {
            let mut m = Map::new();
            if let Some(k) = k {
                m.insert("k".into(), k);
            }
            m.insert("v".into(), json!(v));
            if let Some(d) = directive {
                m.insert("$patch".into(), json!(d));
            }
            Value::Object(m)
        })
    }

    fn list(v: u8) -> impl Strategy<Value = Vec<Value>> {
        let e = prop_oneof![
            12 => element(v, None),
            1 => element(v, Some("delete")),
            1 => element(v, Some("replace")),
            1 => Just(json!("scalar")),
        ];
        prop::collection::vec(e, 0..7)
    }

    /// An order list: the live keys as they are (the common case), or
    /// taken from anywhere.
    fn order_of(live: &[Value], mode: u8, other: Vec<Value>) -> Vec<Value> {
        let keys = |l: &[Value]| -> Vec<Value> {
            l.iter().filter_map(|e| e.get("k").map(|k| json!({ "k": k.clone() }))).collect()
        };
        match mode {
            0..=5 => keys(live),
            6 => keys(&other),
            _ => other.iter().map(|e| e.get("k").map_or(json!({}), |k| json!({ "k": k.clone() }))).collect(),
        }
    }

    fn run(live: &Option<Vec<Value>>, patch: &Option<Vec<Value>>, order: &[Value], in_place: bool) -> String {
        let mk = MergeKey::One("k");
        let out = merge_ordered_in(
            &Docs::new(Shallow),
            KeyFields::primary(&mk),
            live.clone(),
            patch.as_deref(),
            order,
            true,
            in_place,
        );
        match out {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error: {e}"),
        }
    }

    fn run_plain(live: &[Value], patch: &[Value], in_order: bool) -> String {
        let mk = MergeKey::One("k");
        match merge_in(&Docs::new(Shallow), KeyFields::primary(&mk), live.to_vec(), patch, false, in_order) {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error: {e}"),
        }
    }

    proptest! {
        /// Merging a patch that names live elements in order where they
        /// are gives what the general steps give, errors included.
        #[test]
        fn in_order_merge_is_the_general_merge(live in list(0), patch in list(1)) {
            prop_assert_eq!(run_plain(&live, &patch, true), run_plain(&live, &patch, false));
        }

        /// The same on lists that the in-order merge takes: distinct keys,
        /// a patch naming a subsequence of them, then new ones (whose
        /// place the reference's ordering decides).
        #[test]
        fn in_order_merge_on_aligned_lists(
            keys in prop::sample::subsequence(vec!["a", "b", "c", "d", "e", "f"], 0..6),
            picked in prop::collection::vec(any::<bool>(), 6),
            new in prop::sample::subsequence(vec!["x", "y", "z"], 0..3),
        ) {
            let live: Vec<Value> = keys.iter().map(|k| json!({"k": k, "v": 0})).collect();
            let mut patch: Vec<Value> =
                keys.iter().zip(&picked).filter(|(_, p)| **p).map(|(k, _)| json!({"k": k, "v": 1, "w": null})).collect();
            patch.extend(new.iter().map(|k| json!({"k": k, "v": 2})));
            prop_assert_eq!(run_plain(&live, &patch, true), run_plain(&live, &patch, false));
        }

        /// Merging a list that the patch leaves in order where it is gives
        /// what the general steps give, errors included.
        #[test]
        fn in_place_merge_is_the_general_merge(
            live in prop::option::weighted(0.9, list(0)),
            patch in prop::option::weighted(0.9, list(1)),
            mode in 0u8..8,
            other in list(2),
        ) {
            let order = order_of(live.as_deref().unwrap_or(&[]), mode, other);
            prop_assert_eq!(run(&live, &patch, &order, true), run(&live, &patch, &order, false));
        }

        /// The same on lists that the in-place merge takes: distinct keys,
        /// the order naming them, a patch merging into a subsequence.
        #[test]
        fn in_place_merge_on_aligned_lists(
            keys in prop::sample::subsequence(vec!["a", "b", "c", "d", "e", "f"], 1..6),
            picked in prop::collection::vec(any::<bool>(), 6),
            extra in prop::option::of(element(3, None)),
        ) {
            let live: Vec<Value> = keys.iter().map(|k| json!({"k": k, "v": 0})).collect();
            let order: Vec<Value> = keys.iter().map(|k| json!({"k": k})).collect();
            let mut patch: Vec<Value> =
                keys.iter().zip(&picked).filter(|(_, p)| **p).map(|(k, _)| json!({"k": k, "v": 1, "w": null})).collect();
            patch.extend(extra);
            let (live, patch) = (Some(live), Some(patch));
            prop_assert_eq!(run(&live, &patch, &order, true), run(&live, &patch, &order, false));
        }
    }

    proptest! {
        /// Putting items in order in place gives what picking them by
        /// position into a new list gives.
        #[test]
        fn in_place_order_is_the_permutation(order in (0usize..60).prop_flat_map(|n| Just((0..n).collect::<Vec<_>>()).prop_shuffle())) {
            let items: Vec<String> = (0..order.len()).map(|i| format!("item{i}")).collect();
            let want: Vec<String> = order.iter().map(|&i| items[i].clone()).collect();
            prop_assert_eq!(in_order(items, &order), want);
        }
    }
}
