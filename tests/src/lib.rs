//! Helpers shared by the workspace-level tests.

pub mod conformance;
pub mod merge_item;
