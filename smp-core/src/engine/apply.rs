//! Applying a patch (`StrategicMergePatch`) and merging patches
//! (`MergeStrategicMergeMapPatchUsingLookupPatchMeta`): one `mergeMap`, two
//! modes.

use super::order::{Lookup, Uncomparable, merge_sorted_lookup, sort_by_lookup};
use super::*;
use crate::error::{bad_arg, no_merge_key};
use crate::schema::{PatchMeta, Schema};
use crate::value::{GoKind, deep_eq, fmt_s, fmt_v, fmt_v_map, go_eq};
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
    let original = document(original)?.clone();
    let patch = document(patch)?.clone();
    Merger { mode: Mode::Apply }.merge_map(original, patch, schema, 0).map(Value::Object)
}

/// Applies a patch in place. On error `target` is left exactly as it was.
pub fn apply_in_place(target: &mut Value, patch: &Value, schema: Schema<'_>) -> Result<()> {
    *target = apply(target, patch, schema)?;
    Ok(())
}

/// Merges patches into one that does what applying them in turn does, keeping
/// nulls and directives (the reference's `MergeStrategicMergeMapPatch`).
pub fn merge_patches(patches: &[Value], schema: Schema<'_>) -> Result<Value> {
    let merger = Merger { mode: Mode::MergePatches };
    let mut acc = Map::new();
    for p in patches {
        acc = merger.merge_map(acc, document(p)?.clone(), schema, 0)?;
    }
    Ok(Value::Object(acc))
}

/// Decodes a document as the reference does: the text must be a JSON object
/// (`null` and empty input count as `{}`), and integers that do not fit an
/// `int64` become floats. Anything else is `invalid JSON document`.
pub fn decode(bytes: &[u8]) -> Result<Value> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    let mut v: Value = serde_json::from_slice(bytes).map_err(|_| ErrorKind::InvalidJsonDocument)?;
    match v {
        Value::Object(_) => {
            crate::value::normalize_numbers(&mut v);
            Ok(v)
        }
        Value::Null => Ok(Value::Object(Map::new())),
        _ => Err(ErrorKind::InvalidJsonDocument.into()),
    }
}

pub(crate) fn document(v: &Value) -> Result<&Map<String, Value>> {
    check_nesting(v)?;
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match v {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(EMPTY.get_or_init(Map::new)),
        _ => Err(ErrorKind::InvalidJsonDocument.into()),
    }
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
}

impl Merger {
    fn apply_mode(&self) -> bool {
        self.mode == Mode::Apply
    }

    /// `mergeMap`.
    pub(crate) fn merge_map(
        &self,
        mut original: Map<String, Value>,
        mut patch: Map<String, Value>,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<Map<String, Value>> {
        check_depth(depth)?;
        if let Some(directive) = patch.get(PATCH) {
            return match directive.as_str() {
                Some("replace") => {
                    patch.remove(PATCH);
                    Ok(patch)
                }
                Some("delete") => Ok(Map::new()),
                _ => Err(ErrorKind::UnknownPatchType { value: fmt_s(directive), map: fmt_v_map(&patch) }.into()),
            };
        }
        self.apply_retain_keys(&mut original, &mut patch)?;
        self.merge_ordered_lists(&mut original, &mut patch, schema, depth)?;

        // Deletions from primitive lists run after everything else: the
        // reference's order is random, and this is one of its outcomes.
        let (deletes, rest): (Vec<_>, Vec<_>) =
            patch.into_iter().partition(|(k, _)| k.starts_with(DELETE_FROM_PRIMITIVE_LIST));
        for (k, v) in rest.into_iter().chain(deletes) {
            self.merge_key(&mut original, k, v, schema, depth)?;
        }
        Ok(original)
    }

    /// One key of the per-key loop of `mergeMap`.
    fn merge_key(
        &self,
        original: &mut Map<String, Value>,
        key: String,
        patch_v: Value,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<()> {
        let mut key = key;
        let mut is_delete_list = false;
        if key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
            if !self.apply_mode() {
                original.insert(key, patch_v);
                return Ok(());
            }
            let field = directive_field(&key, DELETE_FROM_PRIMITIVE_LIST, ErrorKind::BadDeleteFromPrimitiveList)
                .map_err(|e| e.at_key(&key))?;
            key = field.to_string();
            is_delete_list = true;
        }
        if patch_v.is_null() {
            original.remove(&key);
            if self.apply_mode() {
                return Ok(());
            }
        }
        let same_kind = original.get(&key).map(|o| GoKind::of(o) == GoKind::of(&patch_v));
        if same_kind != Some(true) {
            // Absent from the original, or of another type: take the patch value.
            if !is_delete_list {
                let mut v = patch_v;
                if self.apply_mode() {
                    discard_nulls(&mut v);
                }
                match remove_directives(v) {
                    Some(v) => original.insert(key, v),
                    None => original.remove(&key),
                };
            }
            return Ok(());
        }
        let slot = original.get_mut(&key).expect("checked above");
        let result = match patch_v {
            Value::Object(p) => self.merge_object_field(slot, p, &key, schema, depth),
            Value::Array(p) => self.merge_list_field(slot, p, &key, schema, is_delete_list, depth),
            scalar => {
                *slot = scalar;
                Ok(())
            }
        };
        result.map_err(|e| e.at_key(&key))
    }

    fn merge_object_field(
        &self,
        slot: &mut Value,
        patch: Map<String, Value>,
        key: &str,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<()> {
        let (sub, meta) = schema.lookup_struct(key)?;
        let strategy = meta.strategy()?;
        if strategy.replace {
            *slot = Value::Object(patch);
            return Ok(());
        }
        let Value::Object(orig) = std::mem::take(slot) else { unreachable!("kinds checked") };
        *slot = Value::Object(self.merge_map(orig, patch, sub, depth + 1)?);
        Ok(())
    }

    fn merge_list_field(
        &self,
        slot: &mut Value,
        patch: Vec<Value>,
        key: &str,
        schema: Schema<'_>,
        is_delete_list: bool,
        depth: usize,
    ) -> Result<()> {
        let (elem, meta) = schema.lookup_slice(key)?;
        let strategy = meta.strategy()?;
        if !(strategy.merge || is_delete_list) {
            *slot = Value::Array(patch);
            return Ok(());
        }
        let Value::Array(orig) = std::mem::take(slot) else { unreachable!("kinds checked") };
        *slot = Value::Array(self.merge_slice(orig, patch, elem, meta, is_delete_list, depth + 1)?.merged);
        Ok(())
    }

    /// `applyRetainKeysDirective`.
    fn apply_retain_keys(&self, original: &mut Map<String, Value>, patch: &mut Map<String, Value>) -> Result<()> {
        let Some(retain) = patch.remove(RETAIN_KEYS) else {
            return Ok(());
        };
        if !self.apply_mode() {
            match original.get(RETAIN_KEYS) {
                Some(existing) if !deep_eq(existing, &retain) => {
                    return Err(
                        ErrorKind::RetainKeysMismatch { original: fmt_v(existing), patch: fmt_v(&retain) }.into()
                    );
                }
                Some(_) => {}
                None => {
                    original.insert(RETAIN_KEYS.to_string(), retain);
                }
            }
            return Ok(());
        }
        let Value::Array(list) = retain else {
            return Err(ErrorKind::BadRetainKeys.into());
        };
        let keep = KeyIndex::new(&list);
        for (k, v) in patch.iter() {
            if v.is_null() || k.starts_with(DELETE_FROM_PRIMITIVE_LIST) || k.starts_with(SET_ELEMENT_ORDER) {
                continue;
            }
            if !keep.contains(&Value::String(k.clone()))? {
                return Err(ErrorKind::BadRetainKeys.into());
            }
        }
        if keep.has_object || keep.has_array {
            // Go panics hashing an object or list.
            return Err(ErrorKind::BadRetainKeys.into());
        }
        original.retain(|k, _| list.iter().any(|x| x.as_str() == Some(k)));
        Ok(())
    }

    /// `mergePatchIntoOriginal`: every `$setElementOrder/<f>` with its list `f`.
    fn merge_ordered_lists(
        &self,
        original: &mut Map<String, Value>,
        patch: &mut Map<String, Value>,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<()> {
        let directives: Vec<String> = patch.keys().filter(|k| k.starts_with(SET_ELEMENT_ORDER)).cloned().collect();
        for key in directives {
            // `$setElementOrder/$setElementOrder/x` takes `$setElementOrder/x`
            // as its list; the reference then never visits that key (a Go
            // map range skips keys deleted during the loop).
            let Some(order) = patch.remove(&key) else { continue };
            self.merge_ordered_list(original, patch, &key, order, schema, depth).map_err(|e| e.at_key(&key))?;
        }
        Ok(())
    }

    fn merge_ordered_list(
        &self,
        original: &mut Map<String, Value>,
        patch: &mut Map<String, Value>,
        key: &str,
        order: Value,
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<()> {
        if !self.apply_mode() {
            match original.get(key) {
                Some(existing) if !deep_eq(existing, &order) => {
                    return Err(ErrorKind::BadSetElementOrder.into());
                }
                Some(_) => {}
                None => {
                    original.insert(key.to_string(), order.clone());
                }
            }
        }
        let Value::Array(order) = order else {
            return Err(bad_arg(GoKind::Array, &order));
        };
        let field = directive_field(key, SET_ELEMENT_ORDER, ErrorKind::BadSetElementOrder)?.to_string();
        // An error aborts the whole patch, so the lists are taken out freely.
        let orig_list = take_list(original, &field)?;
        let patch_list = take_list(patch, &field)?;
        if let Some(list) = self.order_list(orig_list, patch_list, &field, &order, schema, depth)? {
            original.insert(field, Value::Array(list));
        }
        Ok(())
    }

    /// Merges the list under `field` and orders it by `order`. `None` when
    /// neither side has the list.
    fn order_list(
        &self,
        orig: Option<Vec<Value>>,
        patch: Option<Vec<Value>>,
        field: &str,
        order: &[Value],
        schema: Schema<'_>,
        depth: usize,
    ) -> Result<Option<Vec<Value>>> {
        let (elem, meta) = schema.lookup_slice(field)?;
        let strategy = meta.strategy()?;
        let mk = meta.key_name();
        validate_patch_with_order(patch.as_deref().unwrap_or(&[]), order, mk)?;

        let empty: &[Value] = &[];
        let kind = slice_element_type(&[orig.as_deref().unwrap_or(empty), patch.as_deref().unwrap_or(empty)]);
        // The server-order view of the live list (see `server_order_view`).
        let (merged, view): (Vec<Value>, Vec<Value>) = match (orig, patch) {
            (None, None) => return Ok(None),
            (Some(o), None) => {
                let view = o.iter().map(|e| order_key(e, mk, !mk.is_empty()).clone()).collect();
                (o, view)
            }
            (None, Some(p)) => {
                let merged = remove_directives(Value::Array(p)).and_then(|v| match v {
                    Value::Array(a) => Some(a),
                    _ => None,
                });
                (merged.unwrap_or_default(), Vec::new())
            }
            (Some(o), Some(p)) => {
                let mut view = if strategy.merge && matches!(kind, Ok(GoKind::Object)) && !mk.is_empty() {
                    server_order_view(&o, &p, mk)
                } else {
                    o.iter().map(|e| order_key(e, mk, !mk.is_empty()).clone()).collect()
                };
                let merged = if strategy.merge {
                    let m = self.merge_slice(o, p, elem, meta, false, depth + 1)?;
                    if let Some(live) = m.live_view {
                        view = live;
                    }
                    m.merged
                } else {
                    p
                };
                (merged, view)
            }
        };

        // Partition into items named by the order list and server-only items.
        let mut in_order = Vec::with_capacity(merged.len());
        if mk.is_empty() {
            // A Go hash set: objects and lists cannot be members.
            let set = KeyIndex::new(order);
            if set.has_object || set.has_array || merged.iter().any(|e| ScalarKey::of(e).is_none()) {
                return Err(uncomparable());
            }
            for e in &merged {
                in_order.push(set.contains(e)?);
            }
        } else {
            let index = ListIndex::new(order, mk);
            for e in &merged {
                let m = e.as_object().ok_or_else(|| bad_arg(GoKind::Object, e))?;
                let kv = m.get(mk).ok_or_else(|| no_merge_key(m, mk))?;
                in_order.push(index.find(kv)?.is_some());
            }
        }
        let kind = kind?;
        let objects = kind == GoKind::Object;
        let (patch_items, server_only): (Vec<_>, Vec<_>) =
            merged.into_iter().zip(in_order).partition(|(_, found)| *found);
        let patch_items = patch_items.into_iter().map(|(v, _)| v).collect();
        let server_only = server_only.into_iter().map(|(v, _)| v).collect();
        normalize_element_order(patch_items, server_only, order, &view, mk, objects).map(Some)
    }

    /// `mergeSlice`: merges a patch list into a list with the merge strategy.
    pub(crate) fn merge_slice(
        &self,
        original: Vec<Value>,
        patch: Vec<Value>,
        elem: Schema<'_>,
        meta: PatchMeta<'_>,
        is_delete_list: bool,
        depth: usize,
    ) -> Result<MergedList> {
        check_depth(depth)?;
        if original.is_empty() && patch.is_empty() {
            return Ok(MergedList { merged: original, live_view: None });
        }
        let mk = meta.key_name();
        let kind = slice_element_type(&[&original, &patch])?;
        if kind != GoKind::Object {
            if self.apply_mode() && is_delete_list {
                let deletes = KeyIndex::new(&patch);
                let mut kept = Vec::with_capacity(original.len());
                for v in original {
                    if !deletes.contains(&v)? {
                        kept.push(v);
                    }
                }
                return Ok(MergedList { merged: kept, live_view: None });
            }
            if !mk.is_empty() {
                // The map partitioner meets a scalar.
                let first = original.first().or(patch.first()).expect("not both empty");
                return Err(bad_arg(GoKind::Object, first));
            }
            let (merged, server_order) = merge_scalar_sets(original, &patch)?;
            let in_patch = KeyIndex::new(&patch);
            let mut patch_items = Vec::new();
            let mut server_only = Vec::new();
            for v in merged {
                if in_patch.contains(&v)? {
                    patch_items.push(v);
                } else {
                    server_only.push(v);
                }
            }
            let merged = normalize_element_order(patch_items, server_only, &patch, &server_order, "", false)?;
            return Ok(MergedList { merged, live_view: Some(server_order) });
        }

        if mk.is_empty() {
            return Err(ErrorKind::NoMergeKeyDeclared(elem.name()).into());
        }
        let (work, patch, replaced) = merge_special_elements(original, patch, mk)?;
        let server_len = if replaced { 0 } else { work.len() };
        let mut work = work;
        let patch = if replaced { Vec::new() } else { patch };
        if !replaced {
            self.merge_plain_elements(&mut work, &patch, elem, mk, depth)?;
        }
        // The order the server had: after deletions, before appends (or the
        // replacement list itself).
        let server_order_len = if replaced { work.len() } else { server_len };
        let view: Vec<Value> = work[..server_order_len].iter().map(|e| order_key(e, mk, true).clone()).collect();

        // `partitionMapsByPresentInList(merged, patch)`: the plain patch
        // elements are objects carrying the key (checked by the merge above).
        let in_patch = KeyIndex::new(patch.iter().filter_map(|p| p.get(mk)));
        let mut patch_items = Vec::new();
        let mut server_only = Vec::new();
        for v in work {
            let m = v.as_object().ok_or_else(|| bad_arg(GoKind::Object, &v))?;
            let kv = m.get(mk).ok_or_else(|| no_merge_key(m, mk))?;
            if in_patch.contains(kv)? {
                patch_items.push(v);
            } else {
                server_only.push(v);
            }
        }
        let merged = normalize_element_order(patch_items, server_only, &patch, &view, mk, true)?;
        Ok(MergedList { merged, live_view: None })
    }

    /// `mergeSliceWithoutSpecialElements`: merges each patch element into the
    /// first element with the same key, or appends it.
    fn merge_plain_elements(
        &self,
        work: &mut Vec<Value>,
        patch: &[Value],
        elem: Schema<'_>,
        mk: &str,
        depth: usize,
    ) -> Result<()> {
        let mut index = ListIndex::new(work, mk);
        for (i, p) in patch.iter().enumerate() {
            let pm = p.as_object().ok_or_else(|| bad_arg(GoKind::Object, p))?;
            let kv = pm.get(mk).ok_or_else(|| no_merge_key(pm, mk).at_element(mk, p, i))?;
            match index.find(kv)? {
                Some(pos) => {
                    let Value::Object(orig) = std::mem::take(&mut work[pos]) else { unreachable!("indexed objects") };
                    let merged =
                        self.merge_map(orig, pm.clone(), elem, depth + 1).map_err(|e| e.at_element(mk, p, i))?;
                    work[pos] = Value::Object(merged);
                }
                None => {
                    index.push(kv, work.len());
                    work.push(p.clone());
                }
            }
        }
        Ok(())
    }
}

/// `append(original, patch...)` then `deduplicateScalars`. Returns the
/// merged set and the live list as the reference sees it afterwards: when
/// the patch fits in the live list's spare capacity, the append and the
/// in-place de-duplication write into the live list's memory.
fn merge_scalar_sets(original: Vec<Value>, patch: &[Value]) -> Result<(Vec<Value>, Vec<Value>)> {
    let n = original.len();
    let shares_memory = n + patch.len() <= decoded_capacity(n);
    let mut buf = original;
    let live = if shares_memory { Vec::new() } else { buf.clone() };
    buf.extend(patch.iter().cloned());
    let len = dedup_scalars_in_place(&mut buf)?;
    let live = if shares_memory { buf[..n].to_vec() } else { live };
    buf.truncate(len);
    Ok((buf, live))
}

/// Removes the list under `key`; a value that is not a list is an error.
fn take_list(map: &mut Map<String, Value>, key: &str) -> Result<Option<Vec<Value>>> {
    match map.remove(key) {
        None => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(other) => Err(bad_arg(GoKind::Array, &other)),
    }
}

/// The result of merging a list.
pub(crate) struct MergedList {
    pub(crate) merged: Vec<Value>,
    /// For sets of scalars, the live list as the reference sees it after
    /// the merge (see `merge_scalar_sets`).
    pub(crate) live_view: Option<Vec<Value>>,
}

/// `mergeSliceWithSpecialElements`: executes `$patch: delete` elements and
/// notes `$patch: replace`. Returns (working list, plain patch elements,
/// replaced); when replaced, the working list is the plain patch elements.
fn merge_special_elements(original: Vec<Value>, patch: Vec<Value>, mk: &str) -> Result<(Vec<Value>, Vec<Value>, bool)> {
    let mut plain = Vec::with_capacity(patch.len());
    let mut replace = false;
    let mut deletes: Vec<Value> = Vec::new();
    for (i, p) in patch.into_iter().enumerate() {
        let Some(m) = p.as_object() else {
            return Err(bad_arg(GoKind::Object, &p));
        };
        match m.get(PATCH) {
            None => plain.push(p),
            Some(Value::String(s)) if s == "delete" => match m.get(mk) {
                Some(kv) => deletes.push(kv.clone()),
                None => return Err(no_merge_key(m, mk).at_element(mk, &p, i)),
            },
            Some(Value::String(s)) if s == "replace" => replace = true,
            Some(Value::String(s)) if s == "merge" => {
                return Err(ErrorKind::MergeDirectiveInList.into());
            }
            Some(other) => {
                return Err(ErrorKind::UnknownPatchType { value: fmt_s(other), map: fmt_v_map(m) }.into());
            }
        }
    }
    let mut original = original;
    if !deletes.is_empty() {
        let doomed = KeyIndex::new(&deletes);
        // Every element whose key matches a delete goes (`deleteMatchingEntries`).
        let mut kept = Vec::with_capacity(original.len());
        for e in original {
            let gone = match e.as_object().and_then(|m| m.get(mk)) {
                Some(kv) => doomed.contains(kv)?,
                None => false,
            };
            if !gone {
                kept.push(e);
            }
        }
        original = kept;
    }
    if replace { Ok((plain, Vec::new(), true)) } else { Ok((original, plain, false)) }
}

/// Positions of objects in a list by merge-key value, kept up to date as
/// elements are appended. Answers as the reference's linear search
/// (`findMapInSliceBasedOnKeyValue`) does, which stops at the first element
/// that is not an object (an error), that has an equal key, or whose key is
/// a map (or a list) when a map (or a list) is looked up (`==` panics).
struct ListIndex {
    first: std::collections::HashMap<OwnedKey, usize>,
    first_non_object: Option<usize>,
    first_object_key: Option<usize>,
    first_array_key: Option<usize>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum OwnedKey {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

impl OwnedKey {
    /// `None` for objects and lists.
    fn of(v: &Value) -> Option<OwnedKey> {
        Some(match ScalarKey::of(v)? {
            ScalarKey::Null => OwnedKey::Null,
            ScalarKey::Bool(b) => OwnedKey::Bool(b),
            ScalarKey::Int(i) => OwnedKey::Int(i),
            ScalarKey::Float(f) => OwnedKey::Float(f),
            ScalarKey::Str(s) => OwnedKey::Str(s.to_string()),
        })
    }
}

impl ListIndex {
    fn new(list: &[Value], mk: &str) -> Self {
        let mut idx = ListIndex {
            first: Default::default(),
            first_non_object: None,
            first_object_key: None,
            first_array_key: None,
        };
        for (i, e) in list.iter().enumerate() {
            match e.as_object() {
                Some(m) => {
                    if let Some(kv) = m.get(mk) {
                        idx.push(kv, i);
                    }
                }
                None => {
                    idx.first_non_object.get_or_insert(i);
                }
            }
        }
        idx
    }

    fn find(&self, kv: &Value) -> Result<Option<usize>> {
        let (hit, panics_at) = match OwnedKey::of(kv) {
            Some(k) => (self.first.get(&k).copied(), None),
            None if kv.is_object() => (None, self.first_object_key),
            None => (None, self.first_array_key),
        };
        // The linear search stops at the first of these.
        match [self.first_non_object, panics_at, hit].into_iter().flatten().min() {
            None => Ok(None),
            Some(i) if Some(i) == self.first_non_object => Err(ErrorKind::NotAMap(i).into()),
            Some(i) if Some(i) == panics_at => Err(uncomparable()),
            found => Ok(found),
        }
    }

    fn push(&mut self, kv: &Value, pos: usize) {
        match OwnedKey::of(kv) {
            Some(k) => {
                self.first.entry(k).or_insert(pos);
            }
            None if kv.is_object() => {
                self.first_object_key.get_or_insert(pos);
            }
            None => {
                self.first_array_key.get_or_insert(pos);
            }
        }
    }
}

/// `validatePatchWithSetOrderList`: the patch list, minus deletions and
/// directive elements, must be a subsequence of the order list.
fn validate_patch_with_order(patch: &[Value], order: &[Value], mk: &str) -> Result<()> {
    if patch.is_empty() || order.is_empty() {
        return Ok(());
    }
    let mut non_delete: Vec<&Value> = Vec::with_capacity(patch.len());
    for p in patch {
        if !mk.is_empty() {
            let m = p.as_object().ok_or_else(|| bad_arg(GoKind::Object, p))?;
            if m.get(PATCH).and_then(Value::as_str) == Some("delete") {
                continue;
            }
        }
        non_delete.push(p);
    }
    let (mut pi, mut oi) = (0, 0);
    while pi < non_delete.len() && oi < order.len() {
        let p = non_delete[pi];
        if p.as_object().is_some_and(|m| m.contains_key(PATCH)) {
            pi += 1;
            continue;
        }
        if merge_key_value_equal(p, &order[oi], mk)? {
            pi += 1;
        }
        oi += 1;
    }
    if pi < non_delete.len() {
        return Err(ErrorKind::OrderMismatch { patch: fmt_v_list(patch), order: fmt_v_list(order) }.into());
    }
    Ok(())
}

/// `mergeKeyValueEqual`.
fn merge_key_value_equal(left: &Value, right: &Value, mk: &str) -> Result<bool> {
    if mk.is_empty() {
        return go_eq(left, right).ok_or_else(uncomparable);
    }
    let l = left.as_object().ok_or_else(|| bad_arg(GoKind::Object, left))?;
    let r = right.as_object().ok_or_else(|| bad_arg(GoKind::Object, right))?;
    let lv = l.get(mk).ok_or_else(|| no_merge_key(l, mk))?;
    let rv = r.get(mk).ok_or_else(|| no_merge_key(r, mk))?;
    go_eq(lv, rv).ok_or_else(uncomparable)
}

/// `normalizeElementOrder`: sorts patch items by the patch order and
/// server-only items by the server order, then interleaves them.
pub(crate) fn normalize_element_order(
    patch_items: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &[Value],
    server_order_keys: &[Value],
    mk: &str,
    objects: bool,
) -> Result<Vec<Value>> {
    let patch_items = normalize_slice_order(patch_items, patch_order, mk, objects)?;
    // The server order list holds keys already (see `order_key`).
    let v = KeyIndex::new(server_order_keys);
    let server_only = sort_by_index(server_only, &v, mk, objects)?;
    let pos = |items: &[Value]| -> Vec<Lookup> { items.iter().map(|e| v.lookup(order_key(e, mk, objects))).collect() };
    let lp = pos(&server_only);
    let rp = pos(&patch_items);
    merge_sorted_lookup(server_only, &lp, patch_items, &rp).map_err(|Uncomparable| uncomparable())
}

/// `normalizeSliceOrder` against an order list of elements.
pub(crate) fn normalize_slice_order(items: Vec<Value>, order: &[Value], mk: &str, objects: bool) -> Result<Vec<Value>> {
    if objects {
        for o in order {
            let m = o.as_object().ok_or_else(|| bad_arg(GoKind::Object, o))?;
            if !m.contains_key(mk) {
                return Err(no_merge_key(m, mk));
            }
        }
    }
    let idx = KeyIndex::new(order.iter().map(|o| order_key(o, mk, objects)));
    sort_by_index(items, &idx, mk, objects)
}

/// `normalizeSliceOrder` with the order given as an index of keys; delete
/// elements are moved to the end.
fn sort_by_index(items: Vec<Value>, idx: &KeyIndex<'_>, mk: &str, objects: bool) -> Result<Vec<Value>> {
    let mut deletes = Vec::new();
    let mut rest = Vec::with_capacity(items.len());
    if objects {
        for e in items {
            let m = e.as_object().ok_or_else(|| bad_arg(GoKind::Object, &e))?;
            if !m.contains_key(mk) {
                return Err(no_merge_key(m, mk));
            }
            if m.get(PATCH).and_then(Value::as_str) == Some("delete") {
                deletes.push(e);
            } else {
                rest.push(e);
            }
        }
    } else {
        rest = items;
    }
    let pos: Vec<Lookup> = rest.iter().map(|e| idx.lookup(order_key(e, mk, objects))).collect();
    let mut sorted = sort_by_lookup(rest, pos).map_err(|Uncomparable| uncomparable())?;
    sorted.extend(deletes);
    Ok(sorted)
}

/// The list the reference uses as "server order" after merging a keyed list
/// under `$setElementOrder`: a Go slice header of the live list's length
/// that sees the in-place deletions and appends of the merge. It shows the
/// live list minus the deleted elements, then the first appended patch
/// elements, then stale copies of the old tail.
fn server_order_view<'v>(original: &'v [Value], patch: &'v [Value], mk: &str) -> Vec<Value> {
    let key_of = |e: &Value| e.as_object().and_then(|m| m.get(mk)).cloned();
    let scalar_key_of = |e: &'v Value| e.as_object().and_then(|m| m.get(mk)).and_then(ScalarKey::of);
    let n = original.len();
    let mut alive = vec![true; n];
    // Every slot is written below: by a survivor, or by a stale copy for
    // each deletion.
    let mut view: Vec<Value> = vec![Value::Null; n];
    let mut positions: HashMap<ScalarKey<'v>, std::collections::VecDeque<usize>> = HashMap::new();
    for (i, e) in original.iter().enumerate() {
        if let Some(k) = scalar_key_of(e) {
            positions.entry(k).or_default().push_back(i);
        }
    }
    let mut len = n;
    let mut last = n; // one past the last alive element
    let mut stale: Vec<(usize, usize)> = Vec::new(); // (slot, index of O shown there)
    let mut replaced = false;
    for p in patch {
        let Some(m) = p.as_object() else { continue };
        match m.get(PATCH).and_then(Value::as_str) {
            Some("delete") => {
                let Some(k) = m.get(mk).and_then(ScalarKey::of) else {
                    continue;
                };
                if let Some(q) = positions.get_mut(&k) {
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
            Some("replace") => replaced = true,
            _ => {}
        }
    }
    let survivors: Vec<usize> = (0..n).filter(|&i| alive[i]).collect();
    for (slot, &i) in survivors.iter().enumerate() {
        view[slot] = key_of(&original[i]).unwrap_or(Value::Null);
    }
    for (slot, i) in stale {
        view[slot] = key_of(&original[i]).unwrap_or(Value::Null);
    }
    if !replaced {
        let mut present: std::collections::HashSet<ScalarKey<'v>> =
            survivors.iter().filter_map(|&i| scalar_key_of(&original[i])).collect();
        let mut work_len = survivors.len();
        for p in patch {
            let Some(m) = p.as_object() else { continue };
            if m.contains_key(PATCH) {
                continue;
            }
            let Some(kv) = m.get(mk) else { continue };
            // A map or list key matches nothing, so its element is appended.
            let appended = ScalarKey::of(kv).is_none_or(|k| present.insert(k));
            if appended {
                work_len += 1;
                if work_len <= n {
                    view[work_len - 1] = kv.clone();
                }
            }
        }
    }
    view
}
