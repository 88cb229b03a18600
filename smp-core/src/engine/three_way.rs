//! The three-way patch of `kubectl apply` (`CreateThreeWayMergePatch`).

use super::apply::{Merger, Mode};
use super::conflicts::conflicts_in_place_with;
use super::diff::{DiffOptions, Opts, diff_objects};
use super::document;
use super::preconditions::{Precondition, check_preconditions};
use crate::doc::{Document, Object as _};
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
    /// `$patchMergeKey` in the patch, as [`DiffOptions::patch_merge_key`].
    pub patch_merge_key: bool,
}

/// The patch that brings `current` (the live object) to `modified` (the
/// desired configuration), deleting only what was removed since `original`
/// (the last applied configuration), as `kubectl apply` computes it.
///
/// Without `overwrite`, a patch that would undo changes made to the live
/// object since `original` fails with a conflict ([`crate::Error::is_conflict`]).
///
/// ```
/// use serde_json::json;
/// use smp_core::{three_way, Schema, ThreeWayOptions};
///
/// let last_applied = json!({"replicas": 2, "labels": {"app": "web", "old": "x"}});
/// let desired = json!({"replicas": 3, "labels": {"app": "web"}});
/// // The server added a label nobody applied; it is kept.
/// let live = json!({"replicas": 2, "labels": {"app": "web", "old": "x", "injected": "y"}});
/// let patch = three_way(&last_applied, &desired, &live, Schema::Untyped, ThreeWayOptions::default()).unwrap();
/// assert_eq!(patch, json!({"replicas": 3, "labels": {"old": null}}));
/// ```
pub fn three_way(
    original: &Value,
    modified: &Value,
    current: &Value,
    schema: Schema<'_>,
    options: ThreeWayOptions<'_>,
) -> Result<Value> {
    let (original, modified, current) = (document(original)?, document(modified)?, document(current)?);
    three_way_objects::<Value>(original, modified, current, schema, options).map(Value::Object)
}

/// [`three_way`] on any document; the patch is a document of the same kind.
pub(crate) fn three_way_objects<D: Document>(
    original: &D::Object,
    modified: &D::Object,
    current: &D::Object,
    schema: Schema<'_>,
    options: ThreeWayOptions<'_>,
) -> Result<D::Object> {
    let diff = |pair: Pair, opts: DiffOptions| {
        let (from, to) = match pair {
            Pair::CurrentToModified => (current, modified),
            Pair::OriginalToModified => (original, modified),
            Pair::OriginalToCurrent => (original, current),
        };
        diff_objects::<D>(from, to, schema, Opts::new(opts), 0)
    };
    three_way_with::<D>(diff, schema, options, options.patch_merge_key)
}

/// The two documents a diff of the three-way patch compares.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Pair {
    /// The live object to the desired one: changes and additions.
    CurrentToModified,
    /// The last applied configuration to the desired one: deletions.
    OriginalToModified,
    /// The last applied configuration to the live object: what others changed.
    OriginalToCurrent,
}

/// `CreateThreeWayMergePatch` over any differ (the JSON engine's on either
/// document, or the typed layer's on typed values), whose patches are
/// documents `P`: the patch is the deletions merged with the changes,
/// checked against the preconditions and, without `overwrite`, against
/// what changed on the live object. `patch_merge_key` turns on the
/// `$patchMergeKey` directive in the diffs and the merge.
pub(crate) fn three_way_with<P: Document>(
    diff: impl Fn(Pair, DiffOptions) -> Result<P::Object>,
    schema: Schema<'_>,
    options: ThreeWayOptions<'_>,
    patch_merge_key: bool,
) -> Result<P::Object> {
    let pmk = patch_merge_key;
    let delta = diff(
        Pair::CurrentToModified,
        DiffOptions { ignore_deletions: true, set_element_order: true, patch_merge_key: pmk, ..Default::default() },
    )?;
    let deletions = diff(
        Pair::OriginalToModified,
        DiffOptions {
            ignore_changes_and_additions: true,
            set_element_order: true,
            patch_merge_key: pmk,
            ..Default::default()
        },
    )?;
    let merger = Merger { patch_merge_key: pmk, ..Merger::new(Mode::MergePatches) };
    let patch = merger.merge_patch_into::<P>(deletions, delta, schema, 0)?;
    if options.preconditions.is_empty() && options.overwrite {
        return Ok(patch);
    }
    // The checks are written on JSON.
    let mut patch = Value::Object(patch.as_json_map().into_owned());
    check_preconditions(&patch, options.preconditions)?;
    if !options.overwrite {
        let changed = diff(Pair::OriginalToCurrent, DiffOptions { patch_merge_key: pmk, ..Default::default() })?;
        let mut changed = Value::Object(changed.as_json_map().into_owned());
        if conflicts_in_place_with(&mut patch, &mut changed, schema, pmk)? {
            return Err(ErrorKind::Conflict { patch, changed }.into());
        }
    }
    // The conflict check sorts lists of the patch in place: it is sent so.
    Ok(P::from_json(patch).into_object().unwrap_or_default())
}
