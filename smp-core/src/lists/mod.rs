//! Lists: one algorithm for every list the patch meets, written once.
//!
//! - [`index`]: the key index (positions of merge-key values, Go `==`);
//! - [`sets`]: lists of scalars merged as sets (`$deleteFromPrimitiveList`
//!   is applied by the engine on top);
//! - [`order`]: `$setElementOrder` (validation, server-order view,
//!   interleave) and the ordering of merged lists;
//! - [`patch_merge_key`]: the opt-in `$patchMergeKey` directive (elements
//!   matched by several fields), for apply, patch merging and diff.
//!
//! The position-based steps (`order::sort_by_position`,
//! `order::merge_sorted`) are generic over the element: the JSON engine
//! runs them on `serde_json::Value`, the typed layer on typed elements.

pub(crate) mod index;
pub(crate) mod order;
pub(crate) mod patch_merge_key;
pub(crate) mod sets;

pub(crate) use order::validate_patch_with_order;
