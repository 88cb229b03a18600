//! Preconditions: a patch that touches given keys is refused.

use crate::error::{ErrorKind, Result};
use crate::value::fmt_v;
use serde_json::Value;

/// A check on a computed patch; `true` means the patch may be sent.
#[derive(Clone, Copy)]
pub enum Precondition<'a> {
    /// The patch must not mention this top-level key (any value, null too).
    KeyUnchanged(&'a str),
    /// The patch must not mention this key under `metadata`.
    MetadataKeyUnchanged(&'a str),
    /// Any other test of the patch.
    Custom(&'a (dyn Fn(&Value) -> bool + Sync)),
}

impl Precondition<'_> {
    /// What kubectl requires of every patch it computes: `apiVersion`,
    /// `kind` and `metadata.name` unchanged.
    pub const KUBECTL: [Precondition<'static>; 3] = [
        Precondition::KeyUnchanged("apiVersion"),
        Precondition::KeyUnchanged("kind"),
        Precondition::MetadataKeyUnchanged("name"),
    ];

    /// Whether the patch passes.
    pub fn holds(&self, patch: &Value) -> bool {
        match self {
            Precondition::KeyUnchanged(k) => !patch.as_object().is_some_and(|m| m.contains_key(*k)),
            Precondition::MetadataKeyUnchanged(k) => {
                !patch.get("metadata").and_then(Value::as_object).is_some_and(|m| m.contains_key(*k))
            }
            Precondition::Custom(f) => f(patch),
        }
    }
}

impl std::fmt::Debug for Precondition<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Precondition::KeyUnchanged(k) => write!(f, "KeyUnchanged({k:?})"),
            Precondition::MetadataKeyUnchanged(k) => write!(f, "MetadataKeyUnchanged({k:?})"),
            Precondition::Custom(_) => write!(f, "Custom(..)"),
        }
    }
}

/// Fails with `precondition failed for: <patch>` at the first precondition
/// that does not hold.
pub fn check_preconditions(patch: &Value, preconditions: &[Precondition<'_>]) -> Result<()> {
    // The error prints the patch.
    super::check_nesting(patch)?;
    match preconditions.iter().find(|p| !p.holds(patch)) {
        Some(_) => Err(ErrorKind::PreconditionFailed { patch: fmt_v(patch) }.into()),
        None => Ok(()),
    }
}
