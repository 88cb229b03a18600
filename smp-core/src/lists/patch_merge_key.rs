//! The `$patchMergeKey` directive (opt-in; see `README.md`, multi-field
//! merge keys): list elements matched by the fields the directive names
//! instead of the list's single merge key. The reference never implemented
//! it; with the option off none of this runs and the directive is data.
//!
//! Apply, for a list whose patch carries the directive (in an element or in
//! a `$setElementOrder` entry), changes identity only:
//! - an element is matched by the fields its directive lists: a listed
//!   field present in the element must be equal in the live element, a
//!   listed field absent must be absent there; other fields are not looked
//!   at. An element without the directive is matched by the list's default
//!   merge key; a list without one (a replaced list) needs the directive.
//!   A `$setElementOrder` entry without the directive is matched by the
//!   fields of the patch's directives (when they all list the same);
//! - the fields must match one live element: none creates the element,
//!   several refuse the patch (an error naming the list and the key);
//! - `$patch: delete` elements are matched first, then the others in patch
//!   order (an element that creates one is matched by later ones);
//! - then each element, entry and live element is numbered by the element
//!   it names, and the list is merged and ordered by the reference's keyed
//!   merge on that number: exactly what the reference gives for the same
//!   list with one merge key whose value tells the elements apart (new
//!   elements before the live ones the patch does not name,
//!   `$setElementOrder`, server-only elements); `$patch: replace` takes
//!   the other elements as they are, each its own;
//! - the list is merged whatever its strategy: the directive turns a
//!   replaced list into a merged one for this patch;
//! - the directive never reaches the result (merging two patches keeps it,
//!   for the receiver);
//! - a list patch matches by at most [`MAX_FIELD_LISTS`] field lists, each
//!   indexing the live list once, and an element's identity holds only the
//!   listed fields it has: linear in the list and the patch.
//!
//! Diff, for a merged list with recommended merge keys: each element is
//! identified by all of them and carries the directive; a keyed list whose
//! elements the keys cannot tell apart (duplicates) is sent whole, with a
//! `$patch: replace` element (carrying the directive too).

use super::key::{KeyMap, KeySet};
use super::order::{in_order, stable_order_by, stable_order_by_key};
use crate::directive::{PATCH, PATCH_MERGE_KEY, PatchOp};
use crate::error::{Error, ErrorKind, Result, Segment, bad_arg};
use crate::value::{GoKind, deep_eq, fmt_s, fmt_v, fmt_v_map};
use serde_json::{Map, Value};

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

/// The values of an element's key fields that it has, by position in the
/// field list (an absent field is absent here): JSON text. Only the fields
/// present are kept, so an identity is never larger than its element,
/// however many fields a directive names.
type Identity = Vec<(u32, String)>;

/// The identity of `m` by the fields `list`: the fields are looked up in
/// the element or the element's members in the fields, whichever is
/// fewer, so the cost is bounded by the element's size.
fn identity(m: &Map<String, Value>, list: &FieldList) -> Identity {
    let mut id = Identity::new();
    if list.fields.len() <= m.len() {
        for (i, f) in list.fields.iter().enumerate() {
            if let Some(v) = m.get(f) {
                id.push((i as u32, v.to_string()));
            }
        }
        return id;
    }
    // In key order: put in field order (each field's position is its own).
    let mut positions = Vec::new();
    for (k, v) in m {
        if let Some(&i) = list.position.get(k.as_str()) {
            id.push((i as u32, v.to_string()));
            positions.push(i as u32);
        }
    }
    in_order(id, &stable_order_by_key(&positions))
}

/// The element's key fields and values, for messages and paths:
/// `port=53,protocol=UDP` (an absent field reads `protocol=<absent>`).
pub(crate) fn describe(m: &Map<String, Value>, fields: &[String]) -> String {
    let mut text = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(f);
        text.push('=');
        match m.get(f) {
            Some(v) => text.push_str(&fmt_v(v)),
            None => text.push_str("<absent>"),
        }
    }
    text
}

/// The path step of an element named by its key fields.
fn element_segment(m: &Map<String, Value>, fields: &[String]) -> Segment {
    let text = describe(m, fields);
    let (key, value) = text.split_once('=').unwrap_or((&text, ""));
    Segment::Keyed { key: key.to_string(), value: value.to_string() }
}

/// The fields of an element's own directive; `None` without one.
fn directive_fields(m: &Map<String, Value>) -> Result<Option<Vec<String>>> {
    let Some(directive) = m.get(PATCH_MERGE_KEY) else { return Ok(None) };
    let bad = |why: &str| ErrorKind::BadPatchMergeKey(format!("{why}: {}", fmt_s(directive)));
    let Value::Array(list) = directive else {
        return Err(bad("expected a list of field names").into());
    };
    let mut fields: Vec<String> = Vec::with_capacity(list.len());
    let mut seen: KeySet<&str> = KeySet::default();
    for f in list {
        match f.as_str() {
            Some(name) if !name.is_empty() && seen.insert(name) => fields.push(name.to_string()),
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
    Ok(Some(fields))
}

/// The fields an element is matched by: its directive's, else `inherited`
/// (the list's directive, for `$setElementOrder` entries), else the
/// default merge key.
fn key_fields(m: &Map<String, Value>, inherited: Option<&[String]>, default_key: Option<&str>) -> Result<Vec<String>> {
    if let Some(fields) = directive_fields(m)? {
        return Ok(fields);
    }
    match (inherited, default_key) {
        (Some(fields), _) => Ok(fields.to_vec()),
        (None, Some(k)) => Ok(vec![k.to_string()]),
        (None, None) => Err(ErrorKind::BadPatchMergeKey(format!(
            "the list has no merge key, so every element needs $patchMergeKey: {}",
            fmt_v_map(m)
        ))
        .into()),
    }
}

/// The most distinct field lists one list patch may match by. Each one
/// indexes the whole live list, so the bound keeps a patch linear in the
/// size of the list (a client names one list: the recommended keys).
pub(crate) const MAX_FIELD_LISTS: usize = 8;

/// A field list with the position of each field.
struct FieldList {
    fields: Vec<String>,
    position: KeyMap<String, usize>,
}

impl FieldList {
    fn new(fields: Vec<String>) -> Self {
        let mut position = KeyMap::default();
        for (i, f) in fields.iter().enumerate() {
            position.insert(f.clone(), i);
        }
        FieldList { fields, position }
    }
}

/// Which element each patch element, deletion and order entry names,
/// found by the fields each one lists: the live elements, then the new
/// ones the patch adds, each an item (`None` once deleted). Each field
/// list indexes the items on first use and is kept up to date.
struct Matcher<'a> {
    items: Vec<Option<&'a Map<String, Value>>>,
    lists: Vec<FieldList>,
    list_of: KeyMap<Vec<String>, usize>,
    indexes: Vec<KeyMap<Identity, Vec<usize>>>,
}

impl<'a> Matcher<'a> {
    fn new(live: &'a [Value]) -> Result<Self> {
        let mut items = Vec::with_capacity(live.len());
        for v in live {
            match v {
                Value::Object(m) => items.push(Some(m)),
                other => return Err(bad_arg(GoKind::Object, other)),
            }
        }
        Ok(Matcher { items, lists: Vec::new(), list_of: KeyMap::default(), indexes: Vec::new() })
    }

    /// The number of a field list, its index built on first use.
    fn list(&mut self, fields: Vec<String>) -> Result<usize> {
        if let Some(&n) = self.list_of.get(&fields) {
            return Ok(n);
        }
        if self.lists.len() == MAX_FIELD_LISTS {
            return Err(ErrorKind::BadPatchMergeKey(format!(
                "a list patch may match elements by at most {MAX_FIELD_LISTS} different field lists"
            ))
            .into());
        }
        let list = FieldList::new(fields.clone());
        let mut index: KeyMap<Identity, Vec<usize>> = KeyMap::default();
        for (i, m) in self.items.iter().enumerate() {
            if let Some(m) = m {
                index.entry(identity(m, &list)).or_default().push(i);
            }
        }
        self.lists.push(list);
        self.indexes.push(index);
        self.list_of.insert(fields, self.lists.len() - 1);
        Ok(self.lists.len() - 1)
    }

    /// The one item `probe` names by the field list `n`; an error when it
    /// names several.
    fn find_one(&self, n: usize, probe: &Map<String, Value>) -> Result<Option<usize>> {
        let list = &self.lists[n];
        match self.indexes[n].get(&identity(probe, list)).map(Vec::as_slice).unwrap_or_default() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            several => {
                Err(ErrorKind::AmbiguousPatchMergeKey { key: describe(probe, &list.fields), count: several.len() }
                    .into())
            }
        }
    }

    fn remove(&mut self, pos: usize) {
        let Some(m) = self.items[pos].take() else { return };
        for (list, index) in self.lists.iter().zip(&mut self.indexes) {
            if let Some(at) = index.get_mut(&identity(m, list)) {
                at.retain(|&i| i != pos);
            }
        }
    }

    fn push(&mut self, m: &'a Map<String, Value>) -> usize {
        let pos = self.items.len();
        self.items.push(Some(m));
        for (list, index) in self.lists.iter().zip(&mut self.indexes) {
            index.entry(identity(m, list)).or_default().push(pos);
        }
        pos
    }
}

/// A list patch that uses the directive.
pub(crate) struct ListPatch<'a> {
    /// The list's default merge key, for elements without the directive.
    pub(crate) default_key: Option<&'a str>,
    /// The `$setElementOrder` entries, when the patch has them.
    pub(crate) order: Option<&'a [Value]>,
}

/// The list patch rewritten for the reference's keyed merge: every live
/// element, patch element and order entry carries, under the directive's
/// own name, the number of the element it names (or a number of its own),
/// so that the list is merged by that one key, exactly as the reference
/// merges a list whose single merge key tells the elements apart.
pub(crate) struct Numbered {
    /// The live elements, numbered.
    pub(crate) live: Option<Vec<Value>>,
    /// The patch elements, numbered instead of their directive.
    pub(crate) patch: Option<Vec<Value>>,
    /// The `$setElementOrder` entries, as `{$patchMergeKey: number}`.
    pub(crate) order: Option<Vec<Value>>,
    /// The path step of each numbered element named in the patch.
    names: KeyMap<u64, Segment>,
    /// The directive each number stands for, when merging patches (whose
    /// result keeps them for its receiver).
    directives: Option<KeyMap<u64, Value>>,
}

/// The key the numbered lists are merged by.
pub(crate) const NUMBER_KEY: &str = PATCH_MERGE_KEY;

impl Numbered {
    /// An error of the keyed merge, with the element it names by its key
    /// fields instead of its number.
    pub(crate) fn error(&self, mut e: Error) -> Error {
        if let Some(Segment::Keyed { key, value }) = e.path.segments().first()
            && key == NUMBER_KEY
            && let Some(named) = value.parse::<u64>().ok().and_then(|n| self.names.get(&n))
        {
            let mut segments = e.path.segments().to_vec();
            segments[0] = named.clone();
            e.path = crate::error::Path::from_segments(segments);
        }
        e
    }

    /// The merged list without the numbers: with the directives they
    /// stand for when merging patches, else with none.
    pub(crate) fn finish(&self, mut list: Vec<Value>) -> Vec<Value> {
        for e in &mut list {
            let Value::Object(m) = e else { continue };
            let number = m.remove(NUMBER_KEY).and_then(|n| n.as_u64());
            let directive = number.and_then(|n| self.directives.as_ref()?.get(&n));
            if let Some(d) = directive {
                m.insert(PATCH_MERGE_KEY.to_string(), d.clone());
            }
        }
        list
    }
}

/// Numbers above those of items: for deletions and order entries that
/// name no element.
const UNMATCHED: u64 = 1 << 40;

/// The numbers handed out so far.
struct Numbering {
    unmatched: u64,
    /// The path step of each item a patch element names.
    names: KeyMap<u64, Segment>,
    /// The field list of the patch's directives, when they all list the
    /// same (`Some(None)`: they differ).
    shared: Option<Option<Vec<String>>>,
}

impl Numbering {
    /// Notes the field list of a patch element's directive.
    fn share(&mut self, fields: &[String]) {
        match &self.shared {
            None => self.shared = Some(Some(fields.to_vec())),
            Some(Some(s)) if s != fields => self.shared = Some(None),
            Some(_) => {}
        }
    }

    fn fresh(&mut self) -> u64 {
        self.unmatched += 1;
        self.unmatched
    }

    /// The number of the item the patch element `m` (at `i`) names; `new`:
    /// an element that names none is added as an item.
    fn element<'a>(
        &mut self,
        matcher: &mut Matcher<'a>,
        m: &'a Map<String, Value>,
        i: usize,
        default_key: Option<&str>,
        new: bool,
    ) -> Result<u64> {
        let at = |e: Error| match directive_fields(m) {
            Ok(Some(fields)) => e.within(element_segment(m, &fields)),
            Ok(None) => match default_key {
                Some(k) if m.contains_key(k) => e.within(element_segment(m, &[k.to_string()])),
                _ => e.within(Segment::Index(i)),
            },
            Err(_) => e.within(Segment::Index(i)),
        };
        let fields = key_fields(m, None, default_key).map_err(at)?;
        if m.contains_key(PATCH_MERGE_KEY) {
            self.share(&fields);
        }
        let segment = element_segment(m, &fields);
        let n = matcher.list(fields).map_err(at)?;
        let number = match matcher.find_one(n, m).map_err(at)? {
            Some(pos) => pos as u64,
            None if new => matcher.push(m) as u64,
            None => return Ok(self.fresh()),
        };
        self.names.entry(number).or_insert(segment);
        Ok(number)
    }
}

impl ListPatch<'_> {
    /// Numbers the lists (see [`Numbered`]): deletions are matched first,
    /// then the other elements in patch order (an element that matches
    /// none is new, and later elements may match it), then the order's
    /// entries against the merged elements.
    /// `keep_directives`: patches are merged, and the result keeps each
    /// element's directive.
    pub(crate) fn number(
        &self,
        original: Option<Vec<Value>>,
        patch: Option<Vec<Value>>,
        keep_directives: bool,
    ) -> Result<Numbered> {
        let had_live = original.is_some();
        let live_list = original.unwrap_or_default();
        let patch_list = patch.as_deref().unwrap_or_default();
        let mut matcher = Matcher::new(&live_list)?;
        let mut numbering = Numbering { unmatched: UNMATCHED, names: KeyMap::default(), shared: None };
        let mut numbers: Vec<u64> = vec![0; patch_list.len()];
        let mut deletes = Vec::new();
        let mut plain = Vec::new();
        let mut replace = false;
        for (i, p) in patch_list.iter().enumerate() {
            let Value::Object(m) = p else {
                return Err(bad_arg(GoKind::Object, p).within(Segment::Index(i)));
            };
            match m.get(PATCH) {
                None => plain.push((i, m)),
                Some(Value::String(s)) if s == PatchOp::Delete.as_str() => deletes.push((i, m)),
                Some(Value::String(s)) if s == PatchOp::Replace.as_str() => {
                    replace = true;
                    numbers[i] = numbering.fresh();
                }
                Some(Value::String(s)) if s == PatchOp::Merge.as_str() => {
                    return Err(ErrorKind::MergeDirectiveInList.into());
                }
                Some(other) => {
                    return Err(ErrorKind::UnknownPatchType { value: fmt_s(other), map: fmt_v_map(m) }.into());
                }
            }
        }
        if replace {
            // The list becomes the other elements, as they are (the diff
            // sends a list whose elements the keys cannot tell apart so):
            // each is an item of its own.
            matcher = Matcher::new(&[])?;
            for &(i, _) in &deletes {
                numbers[i] = numbering.fresh();
            }
            for &(i, m) in &plain {
                if let Some(fields) = directive_fields(m).map_err(|e| e.within(Segment::Index(i)))? {
                    numbering.share(&fields);
                }
                numbers[i] = matcher.push(m) as u64;
            }
        } else {
            for &(i, m) in &deletes {
                numbers[i] = numbering.element(&mut matcher, m, i, self.default_key, false)?;
                if numbers[i] < UNMATCHED {
                    matcher.remove(numbers[i] as usize);
                }
            }
            for &(i, m) in &plain {
                numbers[i] = numbering.element(&mut matcher, m, i, self.default_key, true)?;
            }
        }
        let inherited = numbering.shared.take().flatten();
        let order = match self.order {
            None => None,
            Some(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for (j, entry) in entries.iter().enumerate() {
                    let m = entry.as_object().ok_or_else(|| bad_arg(GoKind::Object, entry))?;
                    let fields = key_fields(m, inherited.as_deref(), self.default_key)
                        .map_err(|e| e.within(Segment::Index(j)))?;
                    let at = |e: Error| e.within(element_segment(m, &fields));
                    let n = matcher.list(fields.clone()).map_err(at)?;
                    let number = match matcher.find_one(n, m).map_err(at)? {
                        Some(pos) => pos as u64,
                        None => numbering.fresh(),
                    };
                    let mut named = Map::new();
                    named.insert(NUMBER_KEY.to_string(), Value::from(number));
                    out.push(Value::Object(named));
                }
                Some(out)
            }
        };
        drop(matcher);
        let mut directives = keep_directives.then(KeyMap::default);
        let mut numbered = |mut v: Value, n: u64| {
            if let Value::Object(m) = &mut v
                && let Some(d) = m.insert(NUMBER_KEY.to_string(), Value::from(n))
                && let Some(directives) = &mut directives
            {
                directives.entry(n).or_insert(d);
            }
            v
        };
        let live = had_live.then(|| {
            let mut live = Vec::with_capacity(live_list.len());
            for (i, v) in live_list.into_iter().enumerate() {
                live.push(numbered(v, i as u64));
            }
            live
        });
        let patch = patch.map(|p| {
            let mut patch = Vec::with_capacity(p.len());
            for (v, &n) in p.into_iter().zip(&numbers) {
                patch.push(numbered(v, n));
            }
            patch
        });
        Ok(Numbered { live, patch, order, names: numbering.names, directives })
    }
}

/// What [`diff`] emits for a list.
#[derive(Default)]
pub(crate) struct ListDiff {
    /// Changed and added elements, then deletions.
    pub(crate) patch: Vec<Value>,
    /// `$setElementOrder` entries.
    pub(crate) order: Vec<Value>,
    /// `patch` is the list itself, sent even when empty.
    pub(crate) whole: bool,
}

/// What the diff is asked for (the reference's `DiffOptions`).
#[derive(Clone, Copy)]
pub(crate) struct Emit {
    pub(crate) additions: bool,
    pub(crate) deletions: bool,
    pub(crate) set_element_order: bool,
}

/// The patch of a list identified by `keys` (the recommended merge keys,
/// or the default key alone). `None` when every element is an object told
/// apart by the keys and the keys are the default key alone: then the
/// reference's diff is exact and is used. `replaced`: a list the reference
/// replaces whole, sent whole (as the reference sends it) when the keys
/// cannot tell its elements apart. `diff_elem` diffs two elements.
pub(crate) fn diff(
    o: &[Value],
    m: &[Value],
    keys: &[&str],
    emit: Emit,
    replaced: bool,
    mut diff_elem: impl FnMut(&Map<String, Value>, &Map<String, Value>, usize) -> Result<Map<String, Value>>,
) -> Result<Option<ListDiff>> {
    let mut fields = Vec::with_capacity(keys.len());
    let mut names = Vec::with_capacity(keys.len());
    for k in keys {
        fields.push(k.to_string());
        names.push(Value::String(k.to_string()));
    }
    // The directive's value: the fields' names.
    let directive = Value::Array(names);
    let list = FieldList::new(fields.clone());
    let (Some(o_ids), Some(m_ids)) = (distinct(o, &list), distinct(m, &list)) else {
        // The keys cannot tell the elements apart: the whole list is sent.
        if !emit.additions || lists_deep_eq(o, m) {
            return Ok(Some(ListDiff::default()));
        }
        if replaced {
            return Ok(Some(ListDiff { patch: m.to_vec(), order: Vec::new(), whole: true }));
        }
        // The directive routes the list through this module on apply, which
        // needs no merge key in the elements.
        let mut marker = Map::new();
        marker.insert(PATCH.to_string(), Value::String(PatchOp::Replace.as_str().into()));
        marker.insert(PATCH_MERGE_KEY.to_string(), directive);
        let mut patch = vec![Value::Object(marker)];
        patch.extend(m.iter().cloned());
        return Ok(Some(ListDiff { patch, order: Vec::new(), whole: false }));
    };
    if fields.len() == 1 && !replaced {
        return Ok(None);
    }
    if o.is_empty() && !emit.additions {
        return Ok(Some(ListDiff::default()));
    }
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
    let (in_original, in_modified) = (positions(&o_ids), positions(&m_ids));
    // Borrowed: only a new element is copied whole into the patch.
    let empty = Map::new();
    let mut patch = Vec::new();
    for (j, id) in m_ids.iter().enumerate() {
        let new = object(&m[j], &empty);
        match in_original.get(id) {
            Some(&i) => {
                let d = diff_elem(object(&o[i], &empty), new, j)?;
                if !d.is_empty() {
                    let mut e = keyed(new);
                    e.extend(d);
                    patch.push(Value::Object(e));
                }
            }
            None if emit.additions => {
                let mut e = keyed(new);
                e.extend(new.clone());
                patch.push(Value::Object(e));
            }
            None => {}
        }
    }
    let order_same = o_ids == m_ids;
    let changed = !patch.is_empty();
    if emit.deletions {
        // In the order of their keys, as the reference's merge walk over
        // the sorted lists finds them.
        let (mut deleted, mut keys) = (Vec::new(), Vec::new());
        for (i, id) in o_ids.iter().enumerate() {
            if !in_modified.contains_key(id) {
                deleted.push(i);
                keys.push(sort_key(object(&o[i], &empty), &fields));
            }
        }
        for k in stable_order_by(keys.len(), &|a, b| keys[a].cmp(&keys[b])) {
            let i = deleted[k];
            let mut e = keyed(object(&o[i], &empty));
            e.insert(PATCH.to_string(), Value::String(PatchOp::Delete.as_str().into()));
            patch.push(Value::Object(e));
        }
    }
    // As the reference, a list that was empty is sent whole, with no order.
    let emit_order = !o.is_empty()
        && emit.set_element_order
        && ((emit.additions && (changed || !order_same)) || (emit.deletions && !patch.is_empty()));
    let mut order = Vec::new();
    if emit_order {
        order.reserve(m.len());
        for e in m {
            order.push(Value::Object(keyed(object(e, &empty))));
        }
    }
    Ok(Some(ListDiff { patch, order, whole: false }))
}

/// The element as an object (`empty` for any other value).
fn object<'v>(v: &'v Value, empty: &'v Map<String, Value>) -> &'v Map<String, Value> {
    v.as_object().unwrap_or(empty)
}

/// What the reference sorts a keyed list by, field by field: each
/// field's `%v` text, an absent field first.
fn sort_key(m: &Map<String, Value>, fields: &[String]) -> Vec<Option<String>> {
    let mut key = Vec::with_capacity(fields.len());
    for f in fields {
        key.push(m.get(f).map(fmt_v));
    }
    key
}

/// The position of each identity of a list (the last, for repeats).
fn positions(ids: &[Identity]) -> KeyMap<&Identity, usize> {
    let mut at = KeyMap::default();
    for (i, id) in ids.iter().enumerate() {
        at.insert(id, i);
    }
    at
}

/// The identities of a list's elements; `None` when one is not an object
/// or two are the same.
fn distinct(list: &[Value], fields: &FieldList) -> Option<Vec<Identity>> {
    let mut ids = Vec::with_capacity(list.len());
    for e in list {
        ids.push(identity(e.as_object()?, fields));
    }
    let different = positions(&ids).len();
    (different == ids.len()).then_some(ids)
}

fn lists_deep_eq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(v, w)| deep_eq(v, w))
}

/// The key under which the conflict check pairs an element carrying the
/// directive: its key fields and values.
pub(crate) fn conflict_key(e: &Value) -> Option<String> {
    let m = e.as_object()?;
    let fields = key_fields(m, None, None).ok()?;
    Some(format!("{}\u{0}{}", fields.join(","), describe(m, &fields)))
}
