//! Computing patches: the two-way diff (`CreateTwoWayMergePatch` /
//! `diffMaps`), which the three-way patch is built from.

use super::*;
pub use crate::diff_options::{DiffOptions, Opts};
use crate::directive::{ListDirective, PATCH, RETAIN_KEYS};
use crate::doc::{Document, Object as _, list_from_json, objects_deep_eq};
use crate::lists::element::{DiffElements, agreed_kind};
use crate::lists::key::KeyFields;
use crate::lists::keyed_diff;
use crate::lists::order::{Step, go_sort_by, sort_scalars, walk_sorted};
use crate::lists::patch_merge_key;
use crate::schema::{MergeKey, Schema};
use crate::value::{GoKind, fmt_v};
use serde_json::{Map, Value};

/// The two-way patch from `original` to `modified`, as
/// `CreateTwoWayMergePatch` computes it: `{}` when nothing changed.
///
/// ```
/// use serde_json::json;
/// use smp_core::{apply, diff, Schema};
///
/// let live = json!({"replicas": 1, "labels": {"app": "web", "tier": "x"}});
/// let desired = json!({"replicas": 3, "labels": {"app": "web"}});
/// let patch = diff(&live, &desired, Schema::Untyped).unwrap();
/// assert_eq!(patch, json!({"replicas": 3, "labels": {"tier": null}}));
/// assert_eq!(apply(&live, &patch, Schema::Untyped).unwrap(), desired);
/// ```
pub fn diff(original: &Value, modified: &Value, schema: Schema<'_>) -> Result<Value> {
    diff_with(original, modified, schema, DiffOptions { set_element_order: true, ..Default::default() })
}

/// The patch with explicit options (the reference's `diffMaps`).
pub fn diff_with(original: &Value, modified: &Value, schema: Schema<'_>, options: DiffOptions) -> Result<Value> {
    diff_maps(document(original)?, document(modified)?, schema, Opts::new(options), 0).map(Value::Object)
}

/// [`diff`] on any document; the patch is a document of the same kind.
#[cfg(feature = "bytes")]
pub(crate) fn diff_documents<D: Document>(
    original: &D::Object,
    modified: &D::Object,
    schema: Schema<'_>,
    options: DiffOptions,
) -> Result<D::Object> {
    diff_objects::<D>(original, modified, schema, Opts::new(options), 0)
}

/// `diffMaps` on JSON values.
pub(crate) fn diff_maps(
    original: &Map<String, Value>,
    modified: &Map<String, Value>,
    schema: Schema<'_>,
    opts: Opts,
    depth: usize,
) -> Result<Map<String, Value>> {
    diff_objects::<Value>(original, modified, schema, opts, depth)
}

/// `diffMaps`, on any document; the patch is a document of the same kind,
/// sharing the compared documents' strings where it can.
pub(crate) fn diff_objects<D: Document>(
    original: &D::Object,
    modified: &D::Object,
    schema: Schema<'_>,
    opts: Opts,
    depth: usize,
) -> Result<D::Object> {
    check_depth(depth)?;
    let mut patch = Members::default();
    let mut retain: Vec<&str> = Vec::new();
    for (key, m) in modified.members() {
        if opts.retain_keys && m.kind() != GoKind::Null {
            retain.push(key);
        }
        let Some(o) = original.get(key) else {
            if opts.additions() {
                patch.insert(key, m.clone());
            }
            continue;
        };
        if key == PATCH {
            match (o.as_str(), m.as_str()) {
                (Some(a), Some(b)) if a != b => {
                    patch.insert(key, m.clone());
                }
                (Some(_), Some(_)) => {}
                _ => return Err(ErrorKind::BadPatchMarker.into()),
            }
            continue;
        }
        let kind = m.kind();
        if o.kind() != kind {
            if opts.additions() {
                patch.insert(key, m.clone());
            }
            continue;
        }
        // The kind first: a scalar (most members) is then compared at once.
        let result = if kind == GoKind::Object
            && let (Some(o), Some(m)) = (o.as_object(), m.as_object())
        {
            diff_object_field::<D>(key, o, m, &mut patch, schema, opts, depth)
        } else if kind == GoKind::Array
            && let (Some(o), Some(m)) = (o.as_array(), m.as_array())
        {
            diff_list_field(key, o, m, &mut patch, schema, opts, depth)
        } else {
            if opts.additions() && !o.deep_eq(m) {
                patch.insert(key, m.clone());
            }
            Ok(())
        };
        result.map_err(|e| e.at_key(key))?;
    }
    if opts.deletions() {
        for (key, _) in original.members() {
            if modified.get(key).is_none() {
                patch.insert(key, D::default());
            }
        }
    }
    let removed_field = || original.members().any(|(k, v)| v.kind() != GoKind::Null && modified.get(k).is_none());
    if let Some(list) = retain_keys::<D>(patch.0.is_empty(), retain, removed_field) {
        patch.insert(RETAIN_KEYS, list);
    }
    Ok(D::Object::from_entries(patch.0))
}

/// The members of a patch object in the order they are found, made an
/// object once, at the end: one sort, where inserting each into a sorted
/// object could move the others every time.
struct Members<D>(Vec<(String, D)>);

impl<D> Default for Members<D> {
    fn default() -> Self {
        Members(Vec::new())
    }
}

impl<D> Members<D> {
    fn insert(&mut self, key: &str, v: D) {
        self.0.push((key.to_string(), v));
    }
}

/// Adds `$retainKeys` (the non-null keys of the modified map, sorted) when
/// the map changed or lost a non-null key.
pub(crate) fn add_retain_keys(patch: &mut Map<String, Value>, retain: Vec<&str>, removed_field: impl FnOnce() -> bool) {
    if let Some(list) = retain_keys::<Value>(patch.is_empty(), retain, removed_field) {
        patch.insert(RETAIN_KEYS.to_string(), list);
    }
}

/// The `$retainKeys` list of a map's patch (empty or not): the non-null
/// keys of the modified map, sorted, when the map changed or lost a
/// non-null key.
fn retain_keys<D: Document>(empty: bool, mut retain: Vec<&str>, removed_field: impl FnOnce() -> bool) -> Option<D> {
    if retain.is_empty() || (empty && !removed_field()) {
        return None;
    }
    // Keys are unique strings, so sorting by `%v` is sorting by key.
    retain.sort_unstable();
    let mut list = Vec::with_capacity(retain.len());
    for k in retain {
        list.push(D::from_json(Value::String(k.to_string())));
    }
    Some(D::array(list))
}

/// `handleMapDiff`.
fn diff_object_field<D: Document>(
    key: &str,
    o: &D::Object,
    m: &D::Object,
    patch: &mut Members<D>,
    schema: Schema<'_>,
    opts: Opts,
    depth: usize,
) -> Result<()> {
    let (sub, meta) = match schema.lookup_struct(key) {
        Ok(found) => found,
        // Without metadata, equal values still need no patch.
        Err(_) if objects_deep_eq::<D>(o, m) => return Ok(()),
        Err(e) => return Err(e),
    };
    let strategy = meta.strategy()?;
    if strategy.replace {
        // The reference sends a replace-strategy map whole, changed or not.
        if opts.additions() {
            patch.insert(key, D::object(m.clone()));
        }
        return Ok(());
    }
    let sub_patch = diff_objects::<D>(o, m, sub, Opts { retain_keys: strategy.retain_keys, ..opts }, depth + 1)?;
    if !sub_patch.is_empty() {
        patch.insert(key, D::object(sub_patch));
    }
    Ok(())
}

fn lists_deep_eq<D: Document>(a: &[D], b: &[D]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(v, w)| v.deep_eq(w))
}

/// `handleSliceDiff`.
fn diff_list_field<D: Document>(
    key: &str,
    o: &[D],
    m: &[D],
    patch: &mut Members<D>,
    schema: Schema<'_>,
    opts: Opts,
    depth: usize,
) -> Result<()> {
    let (elem, meta) = match schema.lookup_slice(key) {
        Ok(found) => found,
        Err(_) if lists_deep_eq(o, m) => return Ok(()),
        Err(e) => return Err(e),
    };
    let strategy = meta.strategy()?;
    if !strategy.merge && opts.diff.patch_merge_key && meta.recommended()?.is_some() {
        // A replaced list whose elements have recommended keys: sent by
        // element with the directive, which makes apply merge it.
        let lists = diff_by_key_fields(&D::json_list(o), &D::json_list(m), elem, meta, opts, depth + 1)?;
        insert_key_field_diff(patch, key, lists.unwrap_or_default());
        return Ok(());
    }
    if !strategy.merge {
        if opts.additions() && !lists_deep_eq(o, m) {
            patch.insert(key, D::array(m.to_vec()));
        }
        return Ok(());
    }
    let opts = Opts { retain_keys: strategy.retain_keys, ..opts };
    if opts.diff.patch_merge_key
        && let Some(lists) = diff_by_key_fields(&D::json_list(o), &D::json_list(m), elem, meta, opts, depth + 1)?
    {
        insert_key_field_diff(patch, key, lists);
        return Ok(());
    }
    let lists = diff_lists(o, m, elem, meta.merge_key, opts, depth + 1)?;
    if !lists.patch.is_empty() {
        patch.insert(key, D::array(lists.patch));
    }
    if !lists.deletions.is_empty() {
        patch.insert(&ListDirective::DeleteFromPrimitiveList.key(key), D::array(lists.deletions));
    }
    if !lists.order.is_empty() {
        patch.insert(&ListDirective::SetElementOrder.key(key), D::array(lists.order));
    }
    Ok(())
}

/// Puts a list's patch by key fields into the patch.
fn insert_key_field_diff<D: Document>(patch: &mut Members<D>, key: &str, lists: patch_merge_key::ListDiff) {
    if !lists.patch.is_empty() || lists.whole {
        patch.insert(key, D::from_json(Value::Array(lists.patch)));
    }
    if !lists.order.is_empty() {
        patch.insert(&ListDirective::SetElementOrder.key(key), D::from_json(Value::Array(lists.order)));
    }
}

/// The diff of a keyed list with `$patchMergeKey` on: identified by the
/// recommended merge keys (or the default key alone, when elements share
/// it). `None` where the reference's diff is exact.
fn diff_by_key_fields(
    o: &[Value],
    m: &[Value],
    elem: Schema<'_>,
    meta: crate::schema::PatchMeta<'_>,
    opts: Opts,
    depth: usize,
) -> Result<Option<patch_merge_key::ListDiff>> {
    let keys = match meta.recommended()? {
        Some(keys) => keys.to_vec(),
        None => match meta.key_name() {
            Some(key) => vec![key],
            None => return Ok(None),
        },
    };
    let emit = patch_merge_key::Emit {
        additions: opts.additions(),
        deletions: opts.deletions(),
        set_element_order: opts.set_element_order(),
    };
    let diff_elem = |a: &Map<String, Value>, b: &Map<String, Value>, j: usize| {
        diff_maps(a, b, elem, opts, depth).map_err(|e| e.within(crate::error::Segment::Index(j)))
    };
    let replaced = !meta.strategy()?.merge;
    patch_merge_key::diff(o, m, &keys, emit, replaced, diff_elem)
}

struct ListDiff<D> {
    /// Changed and added elements (then deleted ones, for lists of objects).
    patch: Vec<D>,
    /// `$deleteFromPrimitiveList` values.
    deletions: Vec<D>,
    /// `$setElementOrder` entries.
    order: Vec<D>,
}

impl<D> Default for ListDiff<D> {
    fn default() -> Self {
        ListDiff { patch: Vec::new(), deletions: Vec::new(), order: Vec::new() }
    }
}

/// `diffLists`.
fn diff_lists<D: Document>(
    o: &[D],
    m: &[D],
    elem: Schema<'_>,
    mk: Option<MergeKey<'_>>,
    opts: Opts,
    depth: usize,
) -> Result<ListDiff<D>> {
    if o.is_empty() {
        if m.is_empty() || !opts.additions() {
            return Ok(ListDiff::default());
        }
        return Ok(ListDiff { patch: m.to_vec(), ..Default::default() });
    }
    let mut kinds = Vec::with_capacity(o.len() + m.len());
    for e in o.iter().chain(m) {
        kinds.push(e.kind());
    }
    let kind = agreed_kind(&kinds, &|| Ok([D::json_list(o).into_owned(), D::json_list(m).into_owned()]))?;
    match kind {
        GoKind::Object => {
            let mk = mk.unwrap_or(MergeKey::One(""));
            let elems = Docs::<_, D>::new(DiffCx { schema: elem, depth });
            let lists = keyed_diff::diff(&elems, KeyFields::of(&mk), o, m, opts)?;
            Ok(ListDiff { patch: lists.patch, deletions: Vec::new(), order: lists.order })
        }
        _ => {
            let lists = diff_lists_of_scalars(&D::json_list(o), &D::json_list(m), opts)?;
            let (patch, deletions, order) =
                (list_from_json(lists.patch), list_from_json(lists.deletions), list_from_json(lists.order));
            Ok(ListDiff { patch, deletions, order })
        }
    }
}

/// What diffing the elements of two lists needs: their schema and depth.
pub(crate) struct DiffCx<'s> {
    schema: Schema<'s>,
    depth: usize,
}

impl<D: Document> DiffElements for Docs<DiffCx<'_>, D> {
    type Patch = D;

    fn diff(&self, old: &D, new: &D, opts: Opts) -> Result<D::Object> {
        let (Some(a), Some(b)) = (old.as_object(), new.as_object()) else { unreachable!("keyed elements are objects") };
        diff_objects::<D>(a, b, self.cx.schema, opts, self.cx.depth)
    }

    fn to_patch(&self, e: &D) -> Result<D> {
        Ok(e.clone())
    }

    fn entry(&self, e: &D, fields: KeyFields<'_>, _: &crate::lists::key::Key<'_>) -> D::Object {
        // The element's own key members, shared rather than rebuilt.
        let names = fields.names();
        if fields.is_composite() {
            // A null field after the first names what its absence names,
            // and merged into the element it would delete the field.
            let first = fields.name();
            let keep = |k: &str, v: &D| names.contains(&k) && (k == first || v.kind() != GoKind::Null);
            return e
                .as_object()
                .map(|o| o.filter_map_members(|k, v| keep(k, v).then(|| v.clone())))
                .unwrap_or_default();
        }
        e.pick(names)
    }

    fn unchanged(&self, old: &D, new: &D) -> bool {
        old.same_at_a_glance(new)
    }
}

/// The values of a list with their `%v` texts, as Go's sort orders them
/// by those texts.
fn sorted_by_text(list: &[Value]) -> Vec<(String, &Value)> {
    let mut sorted = Vec::with_capacity(list.len());
    for v in list {
        sorted.push((fmt_v(v), v));
    }
    go_sort_by(&mut sorted, |a, b| a.0 < b.0);
    sorted
}

/// `diffListsOfScalars`: a merge walk over both lists sorted by `%v` text.
fn diff_lists_of_scalars(o: &[Value], m: &[Value], opts: Opts) -> Result<ListDiff<Value>> {
    let (o_sorted, m_sorted) = (sorted_by_text(o), sorted_by_text(m));
    let mut additions = Vec::new();
    let mut deletions = Vec::new();
    walk_sorted(
        &o_sorted,
        &m_sorted,
        |a, b| a.0.cmp(&b.0),
        |step| match step {
            Step::Both(..) => {}
            Step::Left(i) if opts.deletions() => deletions.push(o_sorted[i].1.clone()),
            Step::Right(j) if opts.additions() => additions.push(m_sorted[j].1.clone()),
            _ => {}
        },
    );
    let n = dedup_scalars_in_place(&mut deletions)?;
    deletions.truncate(n);
    let additions = sort_scalars(additions, m)?;
    // The reference compares the original sorted in place with modified, so
    // an unsorted but unchanged list still gets an order directive.
    let mut sorted_original = Vec::with_capacity(o_sorted.len());
    for (_, v) in &o_sorted {
        sorted_original.push((*v).clone());
    }
    let emit_order = opts.set_element_order()
        && ((opts.deletions() && !deletions.is_empty()) || (opts.additions() && !lists_deep_eq(&sorted_original, m)));
    let order = if emit_order { m.to_vec() } else { Vec::new() };
    Ok(ListDiff { patch: additions, deletions, order })
}
