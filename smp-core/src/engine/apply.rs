//! Applying a patch (`StrategicMergePatch`) and merging patches
//! (`MergeStrategicMergeMapPatchUsingLookupPatchMeta`): one `mergeMap`, two
//! modes.

use super::*;
use crate::directive::{ListDirective, PATCH, PatchOp, RETAIN_KEYS};
use crate::doc::{Document, Object as _, compact, list_from_json, list_to_json};
use crate::doc::{copy_patch_value, take_patch_value};
use crate::error::Error;
use crate::error::bad_arg;
use crate::lists::element::MergeElements;
use crate::lists::key::{Key, KeyFields, KeySet, KeyValue, ValueIndex, uncomparable};
use crate::lists::keyed_merge;
use crate::lists::order::{check_merge_key, normalize_scalar_order, validate_patch_with_order};
use crate::lists::patch_merge_key;
use crate::lists::sets::merge_scalar_sets;
use crate::schema::{MergeKey, PatchMeta, Schema};
use crate::value::{GoKind, fmt_s, fmt_v, fmt_v_map};
use serde_json::{Map, Value};

/// Applies a strategic merge patch to `original`, as the API server does.
///
/// Both documents must be JSON objects (`null` counts as `{}`). The original
/// is not modified; on error nothing is returned but the error.
///
/// ```
/// use serde_json::json;
/// use smp_core::{apply, Schema};
///
/// let original = json!({"name": "web", "labels": {"app": "web", "tier": "x"}});
/// let patch = json!({"labels": {"tier": null, "env": "prod"}});
/// let result = apply(&original, &patch, Schema::Untyped).unwrap();
/// assert_eq!(result, json!({"name": "web", "labels": {"app": "web", "env": "prod"}}));
/// ```
pub fn apply(original: &Value, patch: &Value, schema: Schema<'_>) -> Result<Value> {
    apply_with(original, patch, schema, ApplyOptions::default())
}

/// Switches of [`apply_with`], all off by default (the reference).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Honour the `$patchMergeKey` directive: list elements carrying it are
    /// matched by the fields it names (see `README.md`, multi-field merge
    /// keys). Off, the directive is plain data, as in the reference. Turn
    /// it on only where the patch is applied by smp itself: API servers do
    /// not know the directive.
    pub patch_merge_key: bool,
    /// A patch naming a field the schema does not have is an error at that
    /// field's path, as the API server's `fieldValidation=Strict`.
    pub strict: bool,
}

/// [`apply`] with options.
pub fn apply_with(original: &Value, patch: &Value, schema: Schema<'_>, options: ApplyOptions) -> Result<Value> {
    let original = document(original)?;
    let patch = document(patch)?;
    apply_maps::<Value>(original.clone(), patch, schema, options).map(Value::Object)
}

/// [`apply_with`] on an original the caller gives away: it becomes the
/// result, without a copy.
pub fn apply_owned(original: Value, patch: &Value, schema: Schema<'_>, options: ApplyOptions) -> Result<Value> {
    if let Err(too_deep) = check_nesting(&original) {
        // Dropped without recursion.
        discard(original);
        return Err(too_deep);
    }
    let original = match original {
        Value::Null => Map::new(),
        Value::Object(m) => m,
        _ => return Err(ErrorKind::InvalidJsonDocument.into()),
    };
    apply_maps::<Value>(original, document(patch)?, schema, options).map(Value::Object)
}

/// [`apply_with`] on compact documents (the bytes entry points): the
/// original is taken over and becomes the result, which may borrow from
/// the patch's text as it does from the original's.
#[cfg(feature = "bytes")]
pub fn apply_compact<'a>(
    original: compact::Object<'a>,
    patch: &compact::Object<'a>,
    schema: Schema<'_>,
    options: ApplyOptions,
) -> Result<compact::Object<'a>> {
    apply_maps::<compact::Node<'a>>(original, patch, schema, options)
}

fn apply_maps<D: Document>(
    original: D::Object,
    patch: &D::Object,
    schema: Schema<'_>,
    options: ApplyOptions,
) -> Result<D::Object> {
    if options.strict {
        strict::check_known_fields(&patch.as_json_map(), schema, options.patch_merge_key)?;
    }
    let merger = Merger { mode: Mode::Apply, patch_merge_key: options.patch_merge_key };
    merger.merge_object::<D>(original, patch, schema, 0)
}

/// Applies a patch in place. On error `target` is left exactly as it was.
pub fn apply_in_place(target: &mut Value, patch: &Value, schema: Schema<'_>) -> Result<()> {
    *target = apply(target, patch, schema)?;
    Ok(())
}

/// Merges patches into one that does what applying them in turn does, keeping
/// nulls and directives (the reference's `MergeStrategicMergeMapPatch`).
pub fn merge_patches(patches: &[Value], schema: Schema<'_>) -> Result<Value> {
    patches.iter().try_for_each(check_nesting)?;
    let merger = Merger::new(Mode::MergePatches);
    let mut acc = Map::new();
    for p in patches {
        acc = merger.merge_map(acc, document(p)?, schema, 0)?;
    }
    Ok(Value::Object(acc))
}

/// Decodes a document as the reference does: the text must be a JSON object
/// (`null` and empty input count as `{}`), integers that do not fit an
/// `int64` become floats, and bytes outside UTF-8 and unpaired surrogate
/// escapes in strings are U+FFFD ([`text`](crate::text)). Anything else is
/// `invalid JSON document`.
pub fn decode(bytes: &[u8]) -> Result<Value> {
    // The compact reader decodes numbers as Go does (serde_json reads `-0`
    // as a float; Go's `strconv.ParseInt` reads it as the integer 0).
    let text = crate::text::as_go_reads(bytes);
    Ok(Value::Object(compact::decode(&text)?.json_map()))
}

/// `MergeOptions`: the server applies (`{true, true}`); the three-way diff
/// merges two patches (`{false, false}`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    /// Execute parallel lists and `$retainKeys`; drop unmatched nulls.
    Apply,
    /// Carry directives over and keep nulls.
    MergePatches,
}

pub(crate) struct Merger {
    pub(crate) mode: Mode,
    /// `$patchMergeKey` is a directive (see `lists::patch_merge_key`).
    pub(crate) patch_merge_key: bool,
}

impl Merger {
    /// A merger that behaves as the reference.
    pub(crate) fn new(mode: Mode) -> Self {
        Merger { mode, patch_merge_key: false }
    }

    fn apply_mode(&self) -> bool {
        self.mode == Mode::Apply
    }

    /// A copy of a patch value taken as it is: without `$patch` objects
    /// (and, when `drop_nulls`, null members), and without `$patchMergeKey`
    /// when that is a directive.
    fn take_patch_value<T: Document>(&self, v: &T, drop_nulls: bool) -> Option<T> {
        if self.patch_merge_key && !self.apply_mode() {
            // Patches merged into one keep their directives for the receiver.
            return Some(v.clone());
        }
        let v = copy_patch_value(v, drop_nulls)?;
        Some(if self.patch_merge_key { strip_patch_merge_key(v) } else { v })
    }

    /// [`Merger::take_patch_value`] of a value the caller gives away.
    fn take_patch_value_owned<T: Document>(&self, v: T, drop_nulls: bool) -> Option<T> {
        if self.patch_merge_key && !self.apply_mode() {
            return Some(v);
        }
        let v = take_patch_value(v, drop_nulls)?;
        Some(if self.patch_merge_key { strip_patch_merge_key(v) } else { v })
    }

    /// [`Merger::merge_object`] of two patches ([`Mode::MergePatches`]),
    /// the second given away: its members that the first lacks, and that
    /// none of its directives names, are what the per-key loop would take
    /// whole, and are moved into the result rather than copied (the
    /// three-way patch merges its changes, which may list a million
    /// elements, into its deletions, which mostly lack them).
    pub(crate) fn merge_patch_into<D: Document>(
        &self,
        original: D::Object,
        mut patch: D::Object,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<D::Object> {
        if self.apply_mode() || patch.get(PATCH).is_some() {
            return self.merge_object::<D>(original, &patch, schema, depth);
        }
        let named = |k: &str| patch.get(&ListDirective::SetElementOrder.key(k)).is_some();
        let mut keys = Vec::new();
        for (k, _) in patch.members() {
            if !k.starts_with('$') && original.get(k).is_none() && !named(k) {
                keys.push(k.to_owned());
            }
        }
        let mut moved = Vec::with_capacity(keys.len());
        for k in keys {
            if let Some(v) = patch.remove(&k) {
                moved.push((k, v));
            }
        }
        let mut merged = self.merge_object::<D>(original, &patch, schema, depth)?;
        for (k, v) in moved {
            if let Some(v) = self.take_patch_value_owned(v, false) {
                merged.insert(&k, v);
            }
        }
        Ok(merged)
    }

    /// `mergeMap` on JSON values.
    pub(crate) fn merge_map(
        &self,
        original: Map<String, Value>,
        patch: &Map<String, Value>,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<Map<String, Value>> {
        self.merge_object::<Value>(original, patch, schema, depth)
    }

    /// `mergeMap`, on any document; the patch is a document of the same
    /// kind, borrowed: only what the result keeps of it is copied.
    pub(crate) fn merge_object<D: Document>(
        &self,
        mut original: D::Object,
        patch: &D::Object,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<D::Object> {
        check_depth(depth)?;
        if let Some(directive) = patch.get(PATCH) {
            return match directive.as_str().and_then(PatchOp::parse) {
                Some(PatchOp::Replace) => Ok(patch.filter_map_members(|k, v| (k != PATCH).then(|| v.clone()))),
                Some(PatchOp::Delete) => Ok(D::Object::default()),
                _ => Err(ErrorKind::UnknownPatchType {
                    value: fmt_s(&directive.to_json()),
                    map: fmt_v_map(&patch.as_json_map()),
                }
                .into()),
            };
        }
        self.apply_retain_keys::<D>(&mut original, patch)?;
        // Keys of the patch that the directives have dealt with.
        let mut done = Done::default();
        self.merge_ordered_lists::<D>(&mut original, patch, &mut done, schema, depth)?;

        // Deletions from primitive lists run after everything else: the
        // reference's order is random, and this is one of its outcomes.
        let is_delete = |k: &str| ListDirective::DeleteFromPrimitiveList.starts(k);
        let rest = patch.members().filter(|(k, _)| !is_delete(k));
        let deletes = patch.members().filter(|(k, _)| is_delete(k));
        for (k, v) in rest.chain(deletes) {
            if !done.skipped(k) {
                self.merge_key::<D>(&mut original, k, v, schema, depth)?;
            }
        }
        Ok(original)
    }

    /// One key of the per-key loop of `mergeMap`.
    fn merge_key<D: Document>(
        &self,
        original: &mut D::Object,
        key: &str,
        patch_v: &D,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<()> {
        let mut key = key;
        let mut is_delete_list = false;
        if ListDirective::DeleteFromPrimitiveList.starts(key) {
            if !self.apply_mode() {
                original.insert(key, patch_v.clone());
                return Ok(());
            }
            key = ListDirective::DeleteFromPrimitiveList
                .field(key)
                .ok_or_else(|| Error::from(ErrorKind::BadDeleteFromPrimitiveList).at_key(key))?;
            is_delete_list = true;
        }
        if patch_v.is_null() {
            original.remove(key);
            if self.apply_mode() {
                return Ok(());
            }
        }
        let same_kind = original.get(key).map(|o| o.kind() == patch_v.kind());
        if same_kind != Some(true) {
            // Absent from the original, or of another type: take the patch value.
            if !is_delete_list {
                match self.take_patch_value(patch_v, self.apply_mode()) {
                    Some(v) => original.insert(key, v),
                    None => drop(original.remove(key)),
                };
            }
            return Ok(());
        }
        let slot = original.get_mut(key).expect("checked above");
        let result = if let Some(p) = patch_v.as_object() {
            self.merge_object_field(slot, p, key, schema, depth)
        } else if let Some(p) = patch_v.as_array() {
            self.merge_list_field(slot, p, key, schema, is_delete_list, depth)
        } else {
            *slot = patch_v.clone();
            Ok(())
        };
        result.map_err(|e| e.at_key(key))
    }

    fn merge_object_field<D: Document>(
        &self,
        slot: &mut D,
        patch: &D::Object,
        key: &str,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<()> {
        let (sub, meta) = schema.lookup_struct(key)?;
        let strategy = meta.strategy()?;
        if strategy.replace {
            *slot = D::object(patch.filter_map_members(|_, v| Some(v.clone())));
            return Ok(());
        }
        let orig = std::mem::take(slot).into_object_for(patch).unwrap_or_default();
        *slot = D::object(self.merge_object::<D>(orig, patch, sub, depth + 1)?);
        Ok(())
    }

    fn merge_list_field<D: Document>(
        &self,
        slot: &mut D,
        patch: &[D],
        key: &str,
        schema: Schema<'_>,
        is_delete_list: bool,
        depth: usize,
    ) -> Result<()> {
        let (elem, meta) = schema.lookup_slice(key)?;
        let strategy = meta.strategy()?;
        if self.patch_merge_key && !is_delete_list && patch_merge_key::in_use(&D::json_list(patch), None) {
            // The directive makes any list a merged one.
            let orig = list_to_json(std::mem::take(slot).into_array().unwrap_or_default());
            let merged = self.merge_by_directive(
                Some(orig),
                Some(D::json_list(patch).into_owned()),
                None,
                elem,
                meta,
                depth + 1,
            )?;
            *slot = D::array(list_from_json(merged.unwrap_or_default()));
            return Ok(());
        }
        if !(strategy.merge || is_delete_list) {
            *slot = D::array(patch.to_vec());
            return Ok(());
        }
        let orig = std::mem::take(slot).into_array().unwrap_or_default();
        *slot = D::array(self.merge_slice(orig, patch, elem, meta, is_delete_list, depth + 1)?.merged);
        Ok(())
    }

    /// `applyRetainKeysDirective`.
    /// (The per-key loop skips `$retainKeys`.)
    fn apply_retain_keys<D: Document>(&self, original: &mut D::Object, patch: &D::Object) -> Result<()> {
        let Some(retain) = patch.get(RETAIN_KEYS) else {
            return Ok(());
        };
        if !self.apply_mode() {
            match original.get(RETAIN_KEYS) {
                Some(existing) if !existing.deep_eq(retain) => {
                    let original = fmt_v(&existing.to_json());
                    return Err(ErrorKind::RetainKeysMismatch { original, patch: fmt_v(&retain.to_json()) }.into());
                }
                Some(_) => {}
                None => original.insert(RETAIN_KEYS, retain.clone()),
            }
            return Ok(());
        }
        let kept = retained_keys(retain, patch)?;
        original.retain_keys(|k| kept.keeps(k));
        Ok(())
    }

    /// `mergePatchIntoOriginal`: every `$setElementOrder/<f>` with its list `f`.
    /// Every `$setElementOrder` key and every list merged here is `done`:
    /// the per-key loop skips them.
    fn merge_ordered_lists<'p, D: Document + 'p>(
        &self,
        original: &mut D::Object,
        patch: &'p D::Object,
        done: &mut Done<'p>,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<()> {
        let mut directives = Vec::new();
        for (k, v) in patch.members() {
            if ListDirective::SetElementOrder.starts(k) {
                directives.push((k, v));
            }
        }
        for (key, order) in directives {
            // `$setElementOrder/$setElementOrder/x` takes `$setElementOrder/x`
            // as its list; the reference then never visits that key (a Go
            // map range skips keys deleted during the loop).
            if done.taken(key) {
                continue;
            }
            done.take(key);
            self.merge_ordered_list::<D>(original, patch, done, key, order, schema, depth)
                .map_err(|e| e.at_key(key))?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn merge_ordered_list<'p, D: Document + 'p>(
        &self,
        original: &mut D::Object,
        patch: &'p D::Object,
        done: &mut Done<'p>,
        key: &str,
        order: &D,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<()> {
        if !self.apply_mode() {
            match original.get(key) {
                Some(existing) if !existing.deep_eq(order) => {
                    return Err(ErrorKind::BadSetElementOrder.into());
                }
                Some(_) => {}
                None => original.insert(key, order.clone()),
            }
        }
        let Some(order) = order.as_array() else {
            return Err(bad_arg(GoKind::Array, &order.to_json()));
        };
        let field = ListDirective::SetElementOrder.field(key).ok_or(ErrorKind::BadSetElementOrder)?;
        // An error aborts the whole patch, so the live list is taken out freely.
        let orig_list = take_list::<D>(original, field)?;
        let patch_list = match patch.get_key_value(field) {
            Some((k, v)) if !done.taken(k) => {
                done.take(k);
                Some(v.as_array().ok_or_else(|| bad_arg(GoKind::Array, &v.to_json()))?)
            }
            _ => None,
        };
        if let Some(list) = self.order_list(orig_list, patch_list, field, order, schema, depth)? {
            original.insert(field, D::array(list));
        }
        Ok(())
    }

    /// Merges the list under `field` and orders it by `order`. `None` when
    /// neither side has the list.
    fn order_list<D: Document>(
        &self,
        orig: Option<Vec<D>>,
        patch: Option<&[D]>,
        field: &str,
        order: &[D],
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<Option<Vec<D>>> {
        let (elem, meta) = schema.lookup_slice(field)?;
        if self.patch_merge_key
            && patch_merge_key::in_use(&D::json_list(patch.unwrap_or(&[])), Some(&D::json_list(order)))
        {
            let (orig, patch) = (orig.map(list_to_json), patch.map(|p| D::json_list(p).into_owned()));
            let merged = self.merge_by_directive(orig, patch, Some(&D::json_list(order)), elem, meta, depth + 1)?;
            return Ok(merged.map(list_from_json));
        }
        let strategy = meta.strategy()?;
        if let Some(mk) = &meta.merge_key {
            let elems = live_elements(self, elem, depth + 1);
            return keyed_merge::merge_ordered(&elems, KeyFields::of(mk), orig, patch, order, strategy.merge);
        }
        // Lists of scalars.
        validate_patch_with_order(patch.unwrap_or(&[]), order, "", None)?;

        let empty: &[D] = &[];
        let kind = slice_element_type(&[orig.as_deref().unwrap_or(empty), patch.unwrap_or(empty)]);
        // The server-order view of the live list (see `merge_scalar_sets`).
        let (merged, view): (Vec<D>, Vec<D>) = match (orig, patch) {
            (None, None) => return Ok(None),
            (Some(o), None) => {
                let view = o.clone();
                (o, view)
            }
            (None, Some(p)) => {
                let mut taken = Vec::with_capacity(p.len());
                for v in p {
                    if let Some(v) = self.take_patch_value(v, false) {
                        taken.push(v);
                    }
                }
                (taken, Vec::new())
            }
            (Some(o), Some(p)) => {
                let mut view = o.clone();
                let merged = if strategy.merge {
                    let m = self.merge_slice(o, p, elem, meta, false, depth + 1)?;
                    if let Some(live) = m.live_view {
                        view = live;
                    }
                    m.merged
                } else {
                    p.to_vec()
                };
                (merged, view)
            }
        };

        // Partition into items named by the order list and server-only
        // items; a Go hash set, where objects and lists cannot be members.
        let set = ValueIndex::of_members(order.iter().map(D::as_member));
        if set.has_uncomparable() || merged.iter().any(|e| matches!(e.kind(), GoKind::Object | GoKind::Array)) {
            return Err(uncomparable());
        }
        let mut in_order = Vec::with_capacity(merged.len());
        for e in &merged {
            in_order.push(set.contains_key(&Key::One(e.as_member()))?);
        }
        // A list of objects without a merge key (no object got this far):
        // the reference's ordering still reads every item, order entry and
        // server-order item as an object carrying the empty merge key "".
        if kind? == GoKind::Object {
            merged.iter().chain(order).chain(&view).try_for_each(|e| check_merge_key(e, ""))?;
        }
        let (mut patch_items, mut server_only) = (Vec::new(), Vec::new());
        for (v, found) in merged.into_iter().zip(in_order) {
            if found {
                patch_items.push(v);
            } else {
                server_only.push(v);
            }
        }
        normalize_scalar_order(patch_items, server_only, order, &view).map(Some)
    }

    /// A list whose patch uses `$patchMergeKey`: elements matched by the
    /// fields the directive names (`lists::patch_merge_key`), then merged
    /// and ordered as the reference merges a list whose one merge key
    /// tells those elements apart. `None` when neither side has the list.
    fn merge_by_directive(
        &self,
        original: Option<Vec<Value>>,
        patch: Option<Vec<Value>>,
        order: Option<&[Value]>,
        elem: Schema<'_>,
        meta: PatchMeta<'_>,
        depth: usize,
    ) -> Result<Option<Vec<Value>>> {
        check_depth(depth)?;
        let list = patch_merge_key::ListPatch { default_key: meta.merge_key.map(|k| k.primary()), order };
        let mut numbered = list.number(original, patch, !self.apply_mode())?;
        let key = MergeKey::One(patch_merge_key::NUMBER_KEY);
        let fields = KeyFields::primary(&key);
        let elems = live_elements(self, elem, depth);
        let (live, patch) = (numbered.live.take(), numbered.patch.take());
        let merged = match &numbered.order {
            Some(order) => keyed_merge::merge_ordered(&elems, fields, live, patch.as_deref(), order, true),
            None => {
                keyed_merge::merge(&elems, fields, live.unwrap_or_default(), patch.as_deref().unwrap_or(&[]), false)
                    .map(Some)
            }
        };
        Ok(merged.map_err(|e| numbered.error(e))?.map(|list| numbered.finish(list)))
    }

    /// `mergeSlice`: merges a patch list into a list with the merge strategy.
    pub(crate) fn merge_slice<D: Document>(
        &self,
        original: Vec<D>,
        patch: &[D],
        elem: Schema<'_>,
        meta: PatchMeta<'_>,
        is_delete_list: bool,
        depth: usize,
    ) -> Result<MergedList<D>> {
        check_depth(depth)?;
        if let Some(mk) = &meta.merge_key {
            let elems = live_elements(self, elem, depth);
            let merged = keyed_merge::merge(&elems, KeyFields::of(mk), original, patch, is_delete_list)?;
            return Ok(MergedList { merged, live_view: None });
        }
        // Lists of scalars.
        if original.is_empty() && patch.is_empty() {
            return Ok(MergedList { merged: Vec::new(), live_view: None });
        }
        let kind = slice_element_type(&[&original, patch])?;
        if kind == GoKind::Object {
            return Err(ErrorKind::NoMergeKeyDeclared(elem.name()).into());
        }
        if self.apply_mode() && is_delete_list {
            let deletes = ValueIndex::of_members(patch.iter().map(D::as_member));
            let mut kept = Vec::with_capacity(original.len());
            for v in original {
                if !deletes.contains_key(&Key::One(v.as_member()))? {
                    kept.push(v);
                }
            }
            return Ok(MergedList { merged: kept, live_view: None });
        }
        let (merged, server_order) = merge_scalar_sets(original, patch)?;
        let in_patch = ValueIndex::of_members(patch.iter().map(D::as_member));
        let mut patch_items = Vec::new();
        let mut server_only = Vec::new();
        for v in merged {
            if in_patch.contains_key(&Key::One(v.as_member()))? {
                patch_items.push(v);
            } else {
                server_only.push(v);
            }
        }
        let merged = normalize_scalar_order(patch_items, server_only, patch, &server_order)?;
        Ok(MergedList { merged, live_view: Some(server_order) })
    }
}

/// What merging into the live elements of a list needs: the merger, the
/// schema of the elements, their depth.
pub(crate) struct ApplyCx<'m, 's> {
    merger: &'m Merger,
    schema: Schema<'s>,
    depth: usize,
}

fn live_elements<'m, 's, D>(merger: &'m Merger, schema: Schema<'s>, depth: usize) -> Docs<ApplyCx<'m, 's>, D> {
    Docs::new(ApplyCx { merger, schema, depth })
}

impl<D: Document> MergeElements for Docs<ApplyCx<'_, '_>, D> {
    type Patch = D;

    fn as_member<'e>(&self, e: &'e D) -> Option<KeyValue<'e>> {
        Some(e.as_member())
    }

    fn is_delete(&self, e: &D) -> bool {
        e.field(PATCH).value().and_then(KeyValue::as_str).and_then(PatchOp::parse) == Some(PatchOp::Delete)
    }

    fn merge(&self, e: &mut D, patches: &[&D::Object]) -> Result<()> {
        let taken = std::mem::take(e);
        let mut orig = match patches.first() {
            Some(first) => taken.into_object_for(first),
            None => taken.into_object(),
        }
        .unwrap_or_default();
        for patch in patches {
            orig = self.cx.merger.merge_object::<D>(orig, patch, self.cx.schema, self.cx.depth + 1)?;
        }
        *e = D::object(orig);
        Ok(())
    }

    fn keeps_directives(&self) -> bool {
        // Patches merged into one keep `$patchMergeKey` for the receiver.
        self.cx.merger.patch_merge_key && !self.cx.merger.apply_mode()
    }

    fn build(&self, patch: &D, then: &[&D::Object]) -> Result<D> {
        let mut e = patch.clone();
        if self.cx.merger.patch_merge_key && self.cx.merger.apply_mode() {
            e = strip_patch_merge_key(e);
        }
        if !then.is_empty() {
            self.merge(&mut e, then)?;
        }
        Ok(e)
    }
}

/// A patch value without `$patchMergeKey` (the directive is read on JSON).
fn strip_patch_merge_key<D: Document>(v: D) -> D {
    let mut json = v.into_json();
    patch_merge_key::strip(&mut json);
    D::from_json(json)
}

/// Removes the list under `key`; a value that is not a list is an error.
fn take_list<D: Document>(map: &mut D::Object, key: &str) -> Result<Option<Vec<D>>> {
    match map.remove(key).map(D::into_array) {
        None => Ok(None),
        Some(Ok(a)) => Ok(Some(a)),
        Some(Err(other)) => Err(bad_arg(GoKind::Array, &other.to_json())),
    }
}

/// Keys of a patch object already dealt with: the `$setElementOrder`
/// directives and their lists. Usually few, but a patch may hold any
/// number of them, so they are looked up by hash (every key of the object
/// is looked up once).
#[derive(Default)]
struct Done<'p>(KeySet<&'p str>);

impl<'p> Done<'p> {
    /// Taken by a directive (`$retainKeys` is taken first).
    fn taken(&self, key: &str) -> bool {
        key == RETAIN_KEYS || self.0.contains(key)
    }

    fn take(&mut self, key: &'p str) {
        self.0.insert(key);
    }

    /// Skipped by the per-key loop: taken, or a `$setElementOrder` key.
    fn skipped(&self, key: &str) -> bool {
        ListDirective::SetElementOrder.starts(key) || self.taken(key)
    }
}

/// The result of merging a list.
pub(crate) struct MergedList<D> {
    pub(crate) merged: Vec<D>,
    /// For sets of scalars, the live list as the reference sees it after
    /// the merge (see `merge_scalar_sets`).
    pub(crate) live_view: Option<Vec<D>>,
}

/// The names a `$retainKeys` list keeps, looked up by hash (the reference
/// builds a Go map of them): a map of many keys is filtered in linear time.
pub(crate) struct RetainedKeys<'p>(KeySet<&'p str>);

impl RetainedKeys<'_> {
    /// Whether the list keeps the key `k` of the original map.
    pub(crate) fn keeps(&self, k: &str) -> bool {
        self.0.contains(k)
    }
}

/// The `$retainKeys` list of a patch map in apply mode
/// (`applyRetainKeysDirective`), checked: every other key the patch sets
/// must be in it (nulls and order and delete-list directives excepted).
pub(crate) fn retained_keys<'p, D: Document>(retain: &'p D, patch: &D::Object) -> Result<RetainedKeys<'p>> {
    let Some(list) = retain.as_array() else {
        return Err(ErrorKind::BadRetainKeys.into());
    };
    let keep = ValueIndex::of_members(list.iter().map(D::as_member));
    for (k, v) in patch.members() {
        if k == RETAIN_KEYS
            || v.is_null()
            || ListDirective::DeleteFromPrimitiveList.starts(k)
            || ListDirective::SetElementOrder.starts(k)
        {
            continue;
        }
        if !keep.contains_key(&Key::One(KeyValue::Str(k)))? {
            return Err(ErrorKind::BadRetainKeys.into());
        }
    }
    if keep.has_uncomparable() {
        // Go panics hashing an object or list.
        return Err(ErrorKind::BadRetainKeys.into());
    }
    // Only a string equals a key.
    Ok(RetainedKeys(list.iter().filter_map(D::as_str).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::compact::Node;
    use proptest::prelude::*;

    /// Patch-like JSON of a PodSpec: containers (merged by `name`) with env
    /// lists, directives in every place they may stand, nulls, and values
    /// of the wrong type now and then.
    fn patch() -> impl Strategy<Value = Value> {
        let name = prop_oneof![Just("a"), Just("b"), Just("c")].prop_map(Value::from);
        let env = (name.clone(), prop_oneof![Just(Value::Null), "[xy]{0,2}".prop_map(Value::from)])
            .prop_map(|(n, v)| serde_json::json!({"name": n, "value": v}));
        let directive = prop_oneof![Just(None), Just(Some("delete")), Just(Some("replace")), Just(Some("merge"))];
        let container = (
            name.clone(),
            proptest::option::of(proptest::collection::vec(env.clone(), 0..4)),
            proptest::option::of(proptest::collection::vec(name.clone(), 0..3)),
            directive.clone(),
        )
            .prop_map(|(n, env, order, d)| {
                let mut c = serde_json::json!({"name": n});
                if let Some(env) = env {
                    c["env"] = Value::Array(env);
                }
                if let Some(order) = order {
                    c["$setElementOrder/env"] = order.into_iter().map(|n| serde_json::json!({"name": n})).collect();
                }
                if let Some(d) = d {
                    c["$patch"] = d.into();
                }
                c
            });
        let member = prop_oneof![
            proptest::collection::vec(container, 0..3).prop_map(|c| ("containers", Value::Array(c))),
            proptest::collection::vec(name.clone(), 0..3).prop_map(|n| (
                "$setElementOrder/containers",
                n.into_iter().map(|n| serde_json::json!({"name": n})).collect()
            )),
            Just(("hostname", Value::Null)),
            "[xy]{0,2}".prop_map(|s| ("hostname", Value::from(s))),
            proptest::collection::vec(name.clone(), 0..3).prop_map(|n| ("$retainKeys", Value::from(n))),
            Just(("nodeSelector", serde_json::json!({"a": null, "b": "1", "$patch": "replace"}))),
            Just(("nodeSelector", serde_json::json!({"a": "2"}))),
            Just(("containers", Value::from("not a list"))),
            Just(("$patch", Value::from("replace"))),
        ];
        proptest::collection::vec(member, 0..5).prop_map(|members| {
            let spec: Map<String, Value> = members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            serde_json::json!({ "spec": spec, "metadata": {"labels": {"a": "1"}} })
        })
    }

    use crate::schema::{FieldSchema, MergeKey, Shape, Strategy as Patch, StructSchema};

    const NAME: Option<MergeKey<'static>> = Some(MergeKey::One("name"));
    static ENV: StructSchema =
        StructSchema { name: "EnvVar", fields: &[FieldSchema::new("name", Patch::NONE, None, || Shape::Scalar)] };
    static CONTAINER: StructSchema = StructSchema {
        name: "Container",
        fields: &[FieldSchema::new("env", Patch::MERGE, NAME, || Shape::List(|| Shape::Struct(&ENV)))],
    };
    static SPEC: StructSchema = StructSchema {
        name: "PodSpec",
        fields: &[
            FieldSchema::new("containers", Patch::MERGE, NAME, || Shape::List(|| Shape::Struct(&CONTAINER))),
            FieldSchema::new("nodeSelector", Patch::NONE, None, || Shape::Map(|| Shape::Scalar)),
        ],
    };
    static META: StructSchema = StructSchema {
        name: "ObjectMeta",
        fields: &[FieldSchema::new("labels", Patch::NONE, None, || Shape::Map(|| Shape::Scalar))],
    };
    static POD: StructSchema = StructSchema {
        name: "Pod",
        fields: &[
            FieldSchema::new("spec", Patch::RETAIN_KEYS, None, || Shape::Struct(&SPEC)),
            FieldSchema::new("metadata", Patch::NONE, None, || Shape::Struct(&META)),
        ],
    };

    fn merged<D: Document>(a: &Value, b: &Value, owned: bool) -> String {
        // A PodSpec's own patches too, directives at the top.
        let (a, b, schema) = match (a.get("spec"), b.get("spec")) {
            (Some(x), Some(y)) if a.get("metadata").is_none() => (x, y, Schema::of_struct(&SPEC)),
            _ => (a, b, Schema::of_struct(&POD)),
        };
        let merger = Merger::new(Mode::MergePatches);
        let (a, b) =
            (D::from_json(a.clone()).into_object().ok().unwrap(), D::from_json(b.clone()).into_object().ok().unwrap());
        let out = if owned {
            merger.merge_patch_into::<D>(a, b, schema, 0)
        } else {
            merger.merge_object::<D>(a, &b, schema, 0)
        };
        match out {
            Ok(m) => crate::value::to_go_json(&Value::Object(m.as_json_map().into_owned())),
            Err(e) => format!("error: {e}"),
        }
    }

    proptest! {
        /// Merging a patch given away moves what the borrowed merge copies,
        /// and gives what it gives, errors included, on both documents.
        #[test]
        fn a_patch_given_away_merges_as_a_borrowed_one(a in patch(), b in patch(), whole in 0..3) {
            // The first lacks `spec` now and then, as most deletions do; or
            // both are PodSpecs.
            let a = match whole {
                0 => serde_json::json!({"metadata": a["metadata"]}),
                1 => serde_json::json!({"spec": a["spec"]}),
                _ => a,
            };
            let b = if whole == 1 { serde_json::json!({"spec": b["spec"]}) } else { b };
            let want = merged::<Value>(&a, &b, false);
            prop_assert_eq!(&merged::<Value>(&a, &b, true), &want);
            prop_assert_eq!(&merged::<Node<'_>>(&a, &b, true), &want);
        }
    }
}
