//! The operations of the text entry points on documents already read:
//! each appends its result's text to a buffer (`*_object(s)`) or gives
//! it as a document (`*_document`), for a caller that reads its documents
//! itself (a batch reads several from one line).

use crate::doc::compact;
use crate::doc::print;
use crate::engine::apply::{ApplyOptions, apply_compact};
use crate::engine::diff::{DiffOptions, diff_documents};
use crate::engine::three_way::{ThreeWayOptions, three_way_objects as three_way};
use crate::error::Result;
use crate::schema::Schema;

/// [`apply_slice`](super::apply_slice) on documents already read: appends
/// the result's text to `out`, which is left as it was on error. The patch
/// is freed once merged, before the result is written: a large apply does
/// not hold it beside the output.
pub fn apply_object<'a>(
    out: &mut Vec<u8>,
    original: compact::Object<'a>,
    patch: compact::Object<'a>,
    schema: Schema<'_>,
) -> Result<()> {
    let result = apply_document(original, &patch, schema)?;
    drop(patch);
    print::write_object(out, &result);
    Ok(())
}

/// [`diff_slice`](super::diff_slice) on documents already read: appends the
/// patch's text to `out`, which is left as it was on error.
pub fn diff_objects(
    out: &mut Vec<u8>,
    original: &compact::Object<'_>,
    modified: &compact::Object<'_>,
    schema: Schema<'_>,
) -> Result<()> {
    print::write_object(out, &diff_document(original, modified, schema)?);
    Ok(())
}

/// [`three_way_slice`](super::three_way_slice) on documents already read:
/// appends the patch's text to `out`, which is left as it was on error.
pub fn three_way_objects(
    out: &mut Vec<u8>,
    original: &compact::Object<'_>,
    modified: &compact::Object<'_>,
    current: &compact::Object<'_>,
    schema: Schema<'_>,
    options: ThreeWayOptions<'_>,
) -> Result<()> {
    print::write_object(out, &three_way_document(original, modified, current, schema, options)?);
    Ok(())
}

/// The result of [`apply_object`] as a document, for a writer of another
/// form (`compact::Object` is `Serialize`: indented JSON, YAML).
pub fn apply_document<'a>(
    original: compact::Object<'a>,
    patch: &compact::Object<'a>,
    schema: Schema<'_>,
) -> Result<compact::Object<'a>> {
    apply_compact(original, patch, schema, ApplyOptions::default())
}

/// The patch of [`diff_objects`] as a document.
pub fn diff_document<'a>(
    original: &compact::Object<'a>,
    modified: &compact::Object<'a>,
    schema: Schema<'_>,
) -> Result<compact::Object<'a>> {
    let options = DiffOptions { set_element_order: true, ..Default::default() };
    diff_documents::<compact::Node<'a>>(original, modified, schema, options)
}

/// The patch of [`three_way_objects`] as a document.
pub fn three_way_document<'a>(
    original: &compact::Object<'a>,
    modified: &compact::Object<'a>,
    current: &compact::Object<'a>,
    schema: Schema<'_>,
    options: ThreeWayOptions<'_>,
) -> Result<compact::Object<'a>> {
    three_way::<compact::Node<'a>>(original, modified, current, schema, options)
}
