//! Lists: one algorithm for every list the patch meets, written once.
//!
//! - [`key`]: merge keys (one field or several), compared as Go's `==`,
//!   printed as `%v`, and the hashed indexes over them;
//! - [`element`]: what the algorithms ask of an element, implemented by
//!   the JSON engine and by the typed layer;
//! - [`keyed_merge`]: merging a patch into a list of objects by key,
//!   `$patch: delete|replace` elements and `$setElementOrder` included;
//! - [`keyed_diff`]: the patch between two lists of objects by key;
//! - [`sets`]: lists of scalars merged as sets;
//! - [`order`]: `$setElementOrder` validation and the ordering of merged
//!   lists (Go's stable sort, the interleave of server and patch items).
//! - [`patch_merge_key`]: the opt-in `$patchMergeKey` directive (elements
//!   matched by several fields), for apply, patch merging and diff.

pub(crate) mod element;
pub(crate) mod key;
pub(crate) mod keyed_diff;
pub(crate) mod keyed_merge;
pub(crate) mod order;
pub(crate) mod patch_merge_key;
pub(crate) mod sets;
