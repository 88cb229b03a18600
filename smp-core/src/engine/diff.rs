//! Computing patches: two-way (`CreateTwoWayMergePatch`), three-way
//! (`CreateThreeWayMergePatch`) and the conflict check.

use crate::error::{ErrorKind, Result};
use crate::schema::Schema;
use serde_json::Value;

/// Switches of the reference's `DiffOptions`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffOptions {
    /// Emit `$setElementOrder/<list>` for merged lists.
    pub set_element_order: bool,
    /// Emit only deletions.
    pub ignore_changes_and_additions: bool,
    /// Emit no deletions.
    pub ignore_deletions: bool,
}

/// The two-way patch from `original` to `modified`.
pub fn diff(original: &Value, modified: &Value, schema: Schema<'_>) -> Result<Value> {
    diff_with(original, modified, schema, DiffOptions { set_element_order: true, ..Default::default() })
}

/// The two-way patch with explicit options.
pub fn diff_with(_original: &Value, _modified: &Value, _schema: Schema<'_>, _options: DiffOptions) -> Result<Value> {
    Err(ErrorKind::Unsupported("diff is not implemented yet".into()).into())
}
