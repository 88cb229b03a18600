//! What the list algorithms ask of an element: the element abstraction
//! that the JSON engine (elements are `serde_json::Value`) and the typed
//! layer (elements are Rust values) each implement.
//!
//! Patches are always JSON, borrowed: a patch element is read in place and
//! merged into an element, or turned into a new one.

use super::key::{Field, Key, KeyFields, KeyValue};
use crate::diff_options::Opts;
use crate::doc::Document;
use crate::error::{ErrorKind, Result, bad_arg, no_merge_key};
use crate::value::{GoKind, fmt_v_list};
use serde_json::Value;

/// The elements of one list: how to read their keys and print them.
pub(crate) trait Elements {
    /// The element type.
    type Elem;

    /// The value of the field `name` of an element.
    fn field<'e>(&self, e: &'e Self::Elem, name: &str) -> Field<KeyValue<'e>>;

    /// The JSON kind of an element (typed elements of keyed lists are
    /// objects).
    fn kind(&self, e: &Self::Elem) -> GoKind;

    /// The element's JSON, for a patch or an error message.
    fn to_json(&self, e: &Self::Elem) -> Result<Value>;
}

/// Elements that patches merge into (the schema below the list, the depth).
pub(crate) trait MergeElements: Elements {
    /// The document the patch is (JSON for typed elements, the live
    /// document's own kind for the JSON engine's).
    type Patch: Document;

    /// The element as a set member (a scalar), where it is one.
    fn as_member<'e>(&self, e: &'e Self::Elem) -> Option<KeyValue<'e>>;

    /// The element is itself a `$patch: delete` directive (when patches
    /// are merged together).
    fn is_delete(&self, _e: &Self::Elem) -> bool {
        false
    }

    /// Patch values are taken with their directives (patches merged into
    /// one, for a receiver that reads them).
    fn keeps_directives(&self) -> bool {
        false
    }

    /// Merges patch elements (objects) into an element, one after the other.
    fn merge(&self, e: &mut Self::Elem, patches: &[&PatchObject<Self>]) -> Result<()>;

    /// A new element from a patch element as the patch has it, with more
    /// patch elements merged into it one after the other.
    fn build(&self, patch: &Self::Patch, then: &[&PatchObject<Self>]) -> Result<Self::Elem>;
}

/// An object of the patch of elements `L`.
pub(crate) type PatchObject<L> = <<L as MergeElements>::Patch as Document>::Object;

/// An object of the patch computed for elements `L`.
pub(crate) type DiffObject<L> = <<L as DiffElements>::Patch as Document>::Object;

/// Elements that are diffed (the schema below the list, the options).
pub(crate) trait DiffElements: Elements {
    /// The document the patch is written in (JSON for typed elements, the
    /// compared documents' own kind for the JSON engine's).
    type Patch: Document;

    /// The patch from one element to another.
    fn diff(&self, old: &Self::Elem, new: &Self::Elem, opts: Opts) -> Result<DiffObject<Self>>;

    /// An added element, as the patch holds it.
    fn to_patch(&self, e: &Self::Elem) -> Result<Self::Patch>;

    /// `{field: value, ...}` of an element's key `key` (an entry of
    /// `$setElementOrder`, the start of a changed element's patch, or of a
    /// `$patch: delete` entry).
    fn entry(&self, e: &Self::Elem, fields: KeyFields<'_>, key: &Key<'_>) -> DiffObject<Self>;

    /// The two elements are known to diff to nothing without walking them
    /// (equal values of a type where that always holds).
    fn unchanged(&self, _old: &Self::Elem, _new: &Self::Elem) -> bool {
        false
    }
}

/// The error for an element that lacks its merge key.
pub(crate) fn missing_key<L: Elements>(l: &L, fields: KeyFields<'_>, e: &L::Elem) -> crate::Error {
    match l.to_json(e) {
        Ok(Value::Object(m)) => no_merge_key(&m, fields.name()),
        Ok(other) => bad_arg(GoKind::Object, &other),
        Err(err) => err,
    }
}

/// The element type shared by the live list and the `patch_len` patch
/// elements `patch` gives by position (`sliceElementType`).
pub(crate) fn element_kind<'p, L: Elements, P: Document + 'p>(
    l: &L,
    live: &[L::Elem],
    (patch_len, patch): (usize, &dyn Fn(usize) -> &'p P),
) -> Result<GoKind> {
    let mut kinds = Vec::with_capacity(live.len() + patch_len);
    for e in live {
        kinds.push(l.kind(e));
    }
    for i in 0..patch_len {
        kinds.push(patch(i).kind());
    }
    agreed_kind(&kinds, &|| {
        let mut lists = [Vec::with_capacity(live.len()), Vec::with_capacity(patch_len)];
        for e in live {
            lists[0].push(l.to_json(e)?);
        }
        for i in 0..patch_len {
            lists[1].push(patch(i).to_json());
        }
        Ok(lists)
    })
}

/// The one kind of a list's elements (`sliceElementType` on their kinds);
/// `lists` gives the two lists for the message when the kinds differ.
pub(crate) fn agreed_kind(kinds: &[GoKind], lists: &dyn Fn() -> Result<[Vec<Value>; 2]>) -> Result<GoKind> {
    let mut kind = None;
    for &k in kinds {
        match kind {
            None if k == GoKind::Null => {
                // The reference dereferences a nil type here and panics.
                return Err(ErrorKind::NullFirstElement.into());
            }
            None if k == GoKind::Array => return Err(ErrorKind::ListOfLists.into()),
            None => kind = Some(k),
            Some(prev) if prev != k => {
                let [a, b] = lists()?;
                return Err(ErrorKind::MixedElementTypes(format!("[{} {}]", fmt_v_list(&a), fmt_v_list(&b))).into());
            }
            Some(_) => {}
        }
    }
    kind.ok_or_else(|| ErrorKind::NoElements.into())
}
