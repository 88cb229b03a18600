//! The three-way patch of `kubectl apply`.

use super::preconditions::Precondition;
use crate::error::{ErrorKind, Result};
use crate::schema::Schema;
use serde_json::Value;

/// Options of [`three_way`].
#[derive(Clone, Copy, Default)]
pub struct ThreeWayOptions<'a> {
    /// Send the patch even when the live object changed the same fields.
    pub overwrite: bool,
    /// Checked on the patch before the conflict check.
    pub preconditions: &'a [Precondition<'a>],
}

/// The patch that brings `current` (live) to `modified` (desired), deleting
/// what was removed since `original` (last applied).
pub fn three_way(
    _original: &Value,
    _modified: &Value,
    _current: &Value,
    _schema: Schema<'_>,
    _options: ThreeWayOptions<'_>,
) -> Result<Value> {
    Err(ErrorKind::Unsupported("three-way is not implemented yet".into()).into())
}
