//! Hostile input never crashes, hangs or recurses without bound, in one
//! test binary.
//!
//! - [`entry_point_depth`]: every public entry point refuses input nested
//!   deeper than `MAX_DEPTH` before it recurses (the list is checked
//!   against the sources);
//! - [`robustness`]: deep nesting and garbage through the engine.
//!
//! The allocation counts of once super-linear paths are a binary of their
//! own (`scaling`): its counting allocator is the whole binary's.

mod entry_point_depth;
mod robustness;
