//! The JSON engine's opt-in features, in one test binary.
//!
//! - [`patch_merge_key`]: the `$patchMergeKey` directive and recommended
//!   merge keys, on the multi-field merge key proposal's examples and as a
//!   round-trip property;
//! - [`patch_merge_key_order`]: the directive changes identity only, not
//!   what the reference does with the elements;
//! - [`ssa`]: server-side apply against the Go reference's recorded
//!   results (`tests/data/ssa`), and its properties.

mod patch_merge_key;
mod patch_merge_key_order;
mod ssa;
