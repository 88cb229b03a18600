//! The `$patchMergeKey` directive (opt-in; see `README.md`, multi-field
//! merge keys): list elements matched by the fields the directive names
//! instead of the list's single merge key. The reference never implemented
//! it; with the option off none of this runs and the directive is data.
//!
//! Apply, for a list whose patch carries the directive (in an element or in
//! a `$setElementOrder` entry):
//! - an element is matched by the fields its directive lists: a listed
//!   field present in the element must be equal in the live element, a
//!   listed field absent must be absent there; other fields are not looked
//!   at. An element without the directive is matched by the list's default
//!   merge key; a list without one (a replaced list) needs the directive;
//! - the fields must match one live element: none creates the element,
//!   several refuse the patch (an error naming the list and the key);
//! - `$patch: delete` elements run first, then the others in patch order;
//!   `$patch: replace` replaces the list with the other elements;
//! - the list is merged whatever its strategy: the directive turns a
//!   replaced list into a merged one for this patch;
//! - `$setElementOrder` entries are matched as elements are; the elements
//!   they name take the order of the entries, among the places those
//!   elements hold; the others keep their places (new elements are
//!   appended, in patch order);
//! - the directive never reaches the result.
//!
//! Diff, for a merged list with recommended merge keys: each element is
//! identified by all of them and carries the directive; a keyed list whose
//! elements the keys cannot tell apart (duplicates) is sent whole, with a
//! `$patch: replace` element (carrying the directive too).

use super::key::{KeyHasher, KeyMap, KeySet};
use crate::engine::PATCH;
use crate::error::{Error, ErrorKind, Result, Segment, bad_arg};
use crate::value::{GoKind, deep_eq, fmt_s, fmt_v, fmt_v_map};
use serde_json::{Map, Value};

/// The directive's key.
pub(crate) const PATCH_MERGE_KEY: &str = "$patchMergeKey";

/// Whether a patch list (or its `$setElementOrder` entries) uses the directive.
pub(crate) fn in_use(patch: &[Value], order: Option<&[Value]>) -> bool {
    let has = |v: &Value| v.as_object().is_some_and(|m| m.contains_key(PATCH_MERGE_KEY));
    patch.iter().any(has) || order.is_some_and(|o| o.iter().any(has))
}

/// Removes the directive from objects at any depth (depth is bounded by
/// the engine's entry checks).
pub(crate) fn strip(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove(PATCH_MERGE_KEY);
            m.values_mut().for_each(strip);
        }
        Value::Array(a) => a.iter_mut().for_each(strip),
        _ => {}
    }
}

/// The values of an element's key fields: JSON text, `None` when absent.
type Identity = Vec<Option<String>>;

fn identity(m: &Map<String, Value>, fields: &[String]) -> Identity {
    fields.iter().map(|f| m.get(f).map(|v| v.to_string())).collect()
}

/// The element's key fields and values, for messages and paths:
/// `port=53,protocol=UDP` (an absent field reads `protocol=<absent>`).
fn describe(m: &Map<String, Value>, fields: &[String]) -> String {
    let part = |f: &String| match m.get(f) {
        Some(v) => format!("{f}={}", fmt_v(v)),
        None => format!("{f}=<absent>"),
    };
    fields.iter().map(part).collect::<Vec<_>>().join(",")
}

/// The path step of an element named by its key fields.
fn element_segment(m: &Map<String, Value>, fields: &[String]) -> Segment {
    let text = describe(m, fields);
    let (key, value) = text.split_once('=').unwrap_or((&text, ""));
    Segment::Keyed { key: key.to_string(), value: value.to_string() }
}

/// The fields an element is matched by: its directive's, else the default
/// merge key.
fn key_fields(m: &Map<String, Value>, default_key: Option<&str>) -> Result<Vec<String>> {
    let Some(directive) = m.get(PATCH_MERGE_KEY) else {
        return match default_key {
            Some(k) => Ok(vec![k.to_string()]),
            None => Err(ErrorKind::BadPatchMergeKey(format!(
                "the list has no merge key, so every element needs $patchMergeKey: {}",
                fmt_v_map(m)
            ))
            .into()),
        };
    };
    let bad = |why: &str| ErrorKind::BadPatchMergeKey(format!("{why}: {}", fmt_s(directive)));
    let Value::Array(list) = directive else {
        return Err(bad("expected a list of field names").into());
    };
    let mut fields: Vec<String> = Vec::with_capacity(list.len());
    for f in list {
        match f.as_str() {
            Some(name) if !name.is_empty() && !fields.iter().any(|g| g == name) => fields.push(name.to_string()),
            Some(name) if !name.is_empty() => return Err(bad(&format!("{name:?} is listed twice")).into()),
            _ => return Err(bad("expected a list of field names").into()),
        }
    }
    if fields.is_empty() {
        return Err(bad("expected at least one field name").into());
    }
    if let Some(f) = fields.iter().find(|f| m.get(f.as_str()).is_some_and(Value::is_null)) {
        // The proposal identifies elements by their original key values:
        // a listed key cannot be removed in place, only by deleting the
        // element and creating it anew (which the diff does).
        return Err(ErrorKind::BadPatchMergeKey(format!(
            "key field {f:?} is null; to remove a key field, delete the element and create it without the field"
        ))
        .into());
    }
    Ok(fields)
}

/// The working list: elements (`None` once deleted) and, per set of key
/// fields, the positions of the live elements by their values. Each index
/// is built on first use and kept up to date, so each lookup is hashed.
struct Work {
    items: Vec<Option<Map<String, Value>>>,
    indexes: KeyMap<Vec<String>, KeyMap<Identity, Vec<usize>>>,
}

impl Work {
    fn new(list: Vec<Value>) -> Result<Self> {
        let mut items = Vec::with_capacity(list.len());
        for v in list {
            match v {
                Value::Object(m) => items.push(Some(m)),
                other => return Err(bad_arg(GoKind::Object, &other)),
            }
        }
        Ok(Work { items, indexes: KeyMap::default() })
    }

    /// The positions of the live elements matching `probe` on `fields`.
    fn find(&mut self, fields: &[String], probe: &Map<String, Value>) -> Vec<usize> {
        let items = &self.items;
        let index = self.indexes.entry(fields.to_vec()).or_insert_with(|| {
            let mut index: KeyMap<Identity, Vec<usize>> = KeyMap::default();
            for (i, m) in items.iter().enumerate() {
                if let Some(m) = m {
                    index.entry(identity(m, fields)).or_default().push(i);
                }
            }
            index
        });
        index.get(&identity(probe, fields)).cloned().unwrap_or_default()
    }

    /// The one element `probe` names; an error when it names several.
    fn find_one(&mut self, fields: &[String], probe: &Map<String, Value>) -> Result<Option<usize>> {
        match self.find(fields, probe).as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            several => {
                Err(ErrorKind::AmbiguousPatchMergeKey { key: describe(probe, fields), count: several.len() }.into())
            }
        }
    }

    fn unindex(&mut self, pos: usize) {
        let Some(m) = &self.items[pos] else { return };
        for (fields, index) in &mut self.indexes {
            if let Some(list) = index.get_mut(&identity(m, fields)) {
                list.retain(|&i| i != pos);
            }
        }
    }

    fn index(&mut self, pos: usize) {
        let Some(m) = &self.items[pos] else { return };
        for (fields, index) in &mut self.indexes {
            let list = index.entry(identity(m, fields)).or_default();
            let at = list.partition_point(|&i| i < pos);
            list.insert(at, pos);
        }
    }

    fn remove(&mut self, pos: usize) {
        self.unindex(pos);
        self.items[pos] = None;
    }

    fn push(&mut self, m: Map<String, Value>) {
        self.items.push(Some(m));
        self.index(self.items.len() - 1);
    }

    fn into_list(self) -> Vec<Value> {
        self.items.into_iter().flatten().map(Value::Object).collect()
    }
}

/// A list patch that uses the directive.
pub(crate) struct ListPatch<'a> {
    /// The list's default merge key, for elements without the directive.
    pub(crate) default_key: Option<&'a str>,
    /// The `$setElementOrder` entries, when the patch has them.
    pub(crate) order: Option<&'a [Value]>,
}

impl ListPatch<'_> {
    /// Applies the patch list to the live list. `merge` merges a patch
    /// element into its live element; `take` cleans an element taken whole.
    pub(crate) fn apply(
        &self,
        original: Vec<Value>,
        patch: Vec<Value>,
        mut merge: impl FnMut(Map<String, Value>, Map<String, Value>) -> Result<Map<String, Value>>,
        take: impl Fn(Value) -> Option<Value>,
    ) -> Result<Vec<Value>> {
        let mut deletes = Vec::new();
        let mut plain = Vec::new();
        let mut replace = false;
        for (i, p) in patch.into_iter().enumerate() {
            let Value::Object(m) = p else {
                return Err(bad_arg(GoKind::Object, &p).within(Segment::Index(i)));
            };
            match m.get(PATCH) {
                None => plain.push((i, m)),
                Some(Value::String(s)) if s == "delete" => deletes.push((i, m)),
                Some(Value::String(s)) if s == "replace" => replace = true,
                Some(Value::String(s)) if s == "merge" => return Err(ErrorKind::MergeDirectiveInList.into()),
                Some(other) => {
                    return Err(ErrorKind::UnknownPatchType { value: fmt_s(other), map: fmt_v_map(&m) }.into());
                }
            }
        }
        let mut work = if replace { Work::new(Vec::new())? } else { Work::new(original)? };
        if replace {
            let taken = plain.into_iter().filter_map(|(_, m)| take(Value::Object(m)));
            for v in taken {
                let Value::Object(m) = v else { unreachable!("objects stay objects") };
                work.push(m);
            }
            return self.ordered(work);
        }
        for (i, d) in deletes {
            let at = |e: Error| self.at_element(e, &d, i);
            let fields = key_fields(&d, self.default_key).map_err(at)?;
            if let Some(pos) = work.find_one(&fields, &d).map_err(at)? {
                work.remove(pos);
            }
        }
        for (i, mut p) in plain {
            let at = |e: Error, p: &Map<String, Value>| self.at_element(e, p, i);
            let fields = key_fields(&p, self.default_key).map_err(|e| at(e, &p))?;
            match work.find_one(&fields, &p).map_err(|e| at(e, &p))? {
                Some(pos) => {
                    let segment = element_segment(&p, &fields);
                    p.remove(PATCH_MERGE_KEY);
                    // An error aborts the whole patch: the element is taken out freely.
                    work.unindex(pos);
                    let live = work.items[pos].take().expect("found elements are live");
                    work.items[pos] = Some(merge(live, p).map_err(|e| e.within(segment))?);
                    work.index(pos);
                }
                None => {
                    if let Some(Value::Object(m)) = take(Value::Object(p)) {
                        work.push(m);
                    }
                }
            }
        }
        self.ordered(work)
    }

    /// The error, under the element (named by its key fields when they can
    /// be read, else by position).
    fn at_element(&self, e: Error, m: &Map<String, Value>, i: usize) -> Error {
        match key_fields(m, self.default_key) {
            Ok(fields) => e.within(element_segment(m, &fields)),
            Err(_) => e.within(Segment::Index(i)),
        }
    }

    /// The merged list in the order `$setElementOrder` gives (see the
    /// module notes), or as it is without one.
    fn ordered(&self, mut work: Work) -> Result<Vec<Value>> {
        let Some(order) = self.order else { return Ok(work.into_list()) };
        let mut rank: Vec<Option<usize>> = vec![None; work.items.len()];
        for (j, entry) in order.iter().enumerate() {
            let m = entry.as_object().ok_or_else(|| bad_arg(GoKind::Object, entry))?;
            let fields = key_fields(m, self.default_key).map_err(|e| e.within(Segment::Index(j)))?;
            if let Some(pos) = work.find_one(&fields, m).map_err(|e| e.within(element_segment(m, &fields)))? {
                rank[pos].get_or_insert(j);
            }
        }
        let slots: Vec<usize> = (0..rank.len()).filter(|&i| rank[i].is_some() && work.items[i].is_some()).collect();
        let mut named: Vec<(usize, Map<String, Value>)> =
            slots.iter().map(|&i| (rank[i].unwrap_or(0), work.items[i].take().expect("live"))).collect();
        named.sort_by_key(|(r, _)| *r);
        for (&slot, (_, m)) in slots.iter().zip(named) {
            work.items[slot] = Some(m);
        }
        Ok(work.into_list())
    }

    /// Merges two patch lists into one (the three-way patch): elements
    /// with the same key fields and values merge, the others are appended.
    pub(crate) fn merge_patches(
        &self,
        original: Vec<Value>,
        patch: Vec<Value>,
        mut merge: impl FnMut(Map<String, Value>, Map<String, Value>) -> Result<Map<String, Value>>,
    ) -> Result<Vec<Value>> {
        let key = |m: &Map<String, Value>| -> Option<(Vec<String>, Identity)> {
            let fields = key_fields(m, self.default_key).ok()?;
            let id = identity(m, &fields);
            Some((fields, id))
        };
        let mut work = Work::new(original)?;
        let mut positions: KeyMap<(Vec<String>, Identity), usize> = KeyMap::default();
        for (i, m) in work.items.iter().enumerate() {
            if let Some(k) = m.as_ref().and_then(key) {
                positions.entry(k).or_insert(i);
            }
        }
        for p in patch {
            let Value::Object(p) = p else { return Err(bad_arg(GoKind::Object, &p)) };
            match key(&p).and_then(|k| positions.get(&k).copied()) {
                Some(pos) => {
                    let live = work.items[pos].take().expect("indexed elements are live");
                    work.items[pos] = Some(merge(live, p)?);
                }
                None => {
                    if let Some(k) = key(&p) {
                        positions.insert(k, work.items.len());
                    }
                    work.items.push(Some(p));
                }
            }
        }
        Ok(work.into_list())
    }
}

/// What [`diff`] emits for a list.
#[derive(Default)]
pub(crate) struct ListDiff {
    /// Changed and added elements, then deletions.
    pub(crate) patch: Vec<Value>,
    /// `$setElementOrder` entries.
    pub(crate) order: Vec<Value>,
}

/// What the diff is asked for (the reference's `DiffOptions`).
#[derive(Clone, Copy)]
pub(crate) struct Emit {
    pub(crate) additions: bool,
    pub(crate) deletions: bool,
    pub(crate) set_element_order: bool,
}

/// The patch of a merged list identified by `keys` (the recommended merge
/// keys, or the default key alone). `None` when every element is an object
/// told apart by the keys and the keys are the default key alone: then the
/// reference's diff is exact and is used. `diff_elem` diffs two elements.
pub(crate) fn diff(
    o: &[Value],
    m: &[Value],
    keys: &[&str],
    emit: Emit,
    mut diff_elem: impl FnMut(&Map<String, Value>, &Map<String, Value>, usize) -> Result<Map<String, Value>>,
) -> Result<Option<ListDiff>> {
    let fields: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    let (Some(o_ids), Some(m_ids)) = (distinct(o, &fields), distinct(m, &fields)) else {
        // The keys cannot tell the elements apart: the whole list is sent.
        if !emit.additions || lists_deep_eq(o, m) {
            return Ok(Some(ListDiff::default()));
        }
        // The directive routes the list through this module on apply, which
        // needs no merge key in the elements.
        let marker = [
            (PATCH.to_string(), Value::String("replace".into())),
            (PATCH_MERGE_KEY.to_string(), Value::Array(fields.iter().map(|f| Value::String(f.clone())).collect())),
        ];
        let mut patch = vec![Value::Object(Map::from_iter(marker))];
        patch.extend(m.iter().cloned());
        return Ok(Some(ListDiff { patch, order: Vec::new() }));
    };
    if fields.len() == 1 {
        return Ok(None);
    }
    let directive = Value::Array(fields.iter().map(|f| Value::String(f.clone())).collect());
    let keyed = |e: &Map<String, Value>| {
        let mut out = Map::new();
        out.insert(PATCH_MERGE_KEY.to_string(), directive.clone());
        for f in &fields {
            if let Some(v) = e.get(f) {
                out.insert(f.clone(), v.clone());
            }
        }
        out
    };
    let in_original: KeyMap<&Identity, usize> = o_ids.iter().enumerate().map(|(i, id)| (id, i)).collect();
    let in_modified: KeyMap<&Identity, usize> = m_ids.iter().enumerate().map(|(i, id)| (id, i)).collect();
    let as_map = |v: &Value| v.as_object().cloned().unwrap_or_default();
    let mut patch = Vec::new();
    for (j, id) in m_ids.iter().enumerate() {
        let new = as_map(&m[j]);
        match in_original.get(id) {
            Some(&i) => {
                let d = diff_elem(&as_map(&o[i]), &new, j)?;
                if !d.is_empty() {
                    let mut e = keyed(&new);
                    e.extend(d);
                    patch.push(Value::Object(e));
                }
            }
            None if emit.additions => {
                let mut e = keyed(&new);
                e.extend(new);
                patch.push(Value::Object(e));
            }
            None => {}
        }
    }
    let order_same = o_ids == m_ids;
    let changed = !patch.is_empty();
    if emit.deletions {
        for (i, id) in o_ids.iter().enumerate() {
            if !in_modified.contains_key(id) {
                let mut e = keyed(&as_map(&o[i]));
                e.insert(PATCH.to_string(), Value::String("delete".into()));
                patch.push(Value::Object(e));
            }
        }
    }
    let emit_order = emit.set_element_order
        && ((emit.additions && (changed || !order_same)) || (emit.deletions && !patch.is_empty()));
    let order = if emit_order { m.iter().map(|e| Value::Object(keyed(&as_map(e)))).collect() } else { Vec::new() };
    Ok(Some(ListDiff { patch, order }))
}

/// The identities of a list's elements; `None` when one is not an object
/// or two are the same.
fn distinct(list: &[Value], fields: &[String]) -> Option<Vec<Identity>> {
    let mut seen = KeySet::with_capacity_and_hasher(list.len(), KeyHasher::default());
    let mut out = Vec::with_capacity(list.len());
    for e in list {
        let id = identity(e.as_object()?, fields);
        if !seen.insert(id.clone()) {
            return None;
        }
        out.push(id);
    }
    Some(out)
}

fn lists_deep_eq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(v, w)| deep_eq(v, w))
}

/// The key under which the conflict check pairs an element carrying the
/// directive: its key fields and values.
pub(crate) fn conflict_key(e: &Value) -> Option<String> {
    let m = e.as_object()?;
    let fields = key_fields(m, None).ok()?;
    Some(format!("{}\u{0}{}", fields.join(","), describe(m, &fields)))
}
