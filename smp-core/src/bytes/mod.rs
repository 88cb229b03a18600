//! JSON text in, JSON text out: [`apply_slice`], [`diff_slice`] and
//! [`three_way_slice`] for callers that hold documents as bytes (a command
//! line, a batch, a web hook).
//!
//! The documents are decoded as the reference decodes them ([`decode`](crate::decode)),
//! the operation takes them over without copying, and the result is written
//! as compact JSON: keys sorted, numbers as Go's `encoding/json` writes
//! them (`1`, not `1.0`; `1e+21`).
//!
//! The documents are decoded into the compact document (strings borrowed
//! from the text, objects as sorted vectors) and the engine runs on it,
//! the patches of an apply and of the diffs included. An apply reads its
//! patch first and its original with the patch as guide: the lists and
//! objects the patch does not reach stay text, written out as they are.
//! A three-way patch reads the live object with the desired one as guide:
//! what the desired object does not name stays text, which the diff never
//! looks into.
//!
//! Inside: this file holds the entry points; `documents` the operations
//! on documents already read, `members` the reader of a batch's line (a
//! JSON object of documents), `write` the writer. What those three offer
//! is not a stable API: smp's own command line, benchmarks and tests
//! reach it through `smp_core::unstable`.

pub(crate) mod documents;
pub(crate) mod members;
pub(crate) mod write;

use crate::doc::compact::{self, Reading};
use crate::engine::three_way::ThreeWayOptions;
use crate::error::Result;
use crate::schema::Schema;
use documents::{apply_object, diff_objects, three_way_objects};

/// Applies the patch text to the original text; the result as JSON text.
///
/// ```
/// use smp_core::{apply_slice, Schema};
///
/// let out = apply_slice(br#"{"a": 1, "b": [1.0]}"#, br#"{"a": null, "c": 2}"#, Schema::Untyped).unwrap();
/// assert_eq!(out, br#"{"b":[1],"c":2}"#);
/// ```
pub fn apply_slice(original: &[u8], patch: &[u8], schema: Schema<'_>) -> Result<Vec<u8>> {
    let size = original.len() + patch.len();
    let mut fixed = [None, None];
    let [f0, f1] = &mut fixed;
    // The patch first: the original is read with it as guide, the parts it
    // does not reach kept as text.
    let patch = decode_compact(patch, f1, Reading::Patch)?;
    let original = decode_compact(original, f0, Reading::OriginalOf(&patch))?;
    // An apply writes about what it read: one allocation, no regrowth; made
    // after the reading, whose working stacks are then gone.
    let mut out = Vec::with_capacity(size);
    apply_object(&mut out, original, patch, schema)?;
    Ok(out)
}

/// The two-way patch ([`diff`](crate::diff)) between two texts, as JSON text.
pub fn diff_slice(original: &[u8], modified: &[u8], schema: Schema<'_>) -> Result<Vec<u8>> {
    let mut fixed = [None, None];
    let [f0, f1] = &mut fixed;
    let (original, modified) =
        (decode_compact(original, f0, Reading::Compared)?, decode_compact(modified, f1, Reading::Compared)?);
    let mut out = Vec::with_capacity(256);
    diff_objects(&mut out, &original, &modified, schema)?;
    Ok(out)
}

/// The three-way patch ([`three_way`](crate::three_way)) of three texts, as JSON text.
pub fn three_way_slice(
    original: &[u8],
    modified: &[u8],
    current: &[u8],
    schema: Schema<'_>,
    options: ThreeWayOptions<'_>,
) -> Result<Vec<u8>> {
    let mut fixed = [None, None, None];
    let [f0, f1, f2] = &mut fixed;
    let (original, modified) =
        (decode_compact(original, f0, Reading::Compared)?, decode_compact(modified, f1, Reading::Compared)?);
    // The live object with the desired one as guide: what the desired one
    // does not name is kept as text.
    let current = decode_compact(current, f2, Reading::CurrentOf(&modified))?;
    let mut out = Vec::with_capacity(256);
    three_way_objects(&mut out, &original, &modified, &current, schema, options)?;
    Ok(out)
}

/// Decodes a compact document as `reading` says ([`compact::decode_as`]).
/// Text that is not UTF-8 is first read as the reference reads it
/// ([`text`](crate::text)) into `fixed`, which the document then borrows;
/// valid text, the usual case, is checked once.
fn decode_compact<'t>(
    text: &'t [u8],
    fixed: &'t mut Option<String>,
    reading: Reading<'_, '_>,
) -> Result<compact::Object<'t>> {
    match compact::decode_as(text, reading) {
        Err(_) if std::str::from_utf8(text).is_err() => {
            let fixed: &'t String = fixed.insert(crate::text::utf8_as_go_reads(text).into_owned());
            compact::decode_as(fixed.as_bytes(), reading)
        }
        decoded => decoded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode;

    #[test]
    fn slices_give_what_the_value_functions_give() {
        let (o, p) = (br#"{"x": {"y": 1, "z": [1, 2]}, "w": null}"#, br#"{"x": {"y": null, "q": 1.5}}"#);
        let want = crate::apply(&decode(o).unwrap(), &decode(p).unwrap(), Schema::Untyped).unwrap();
        assert_eq!(apply_slice(o, p, Schema::Untyped).unwrap(), serde_json::to_vec(&want).unwrap());
        let patch = diff_slice(o, p, Schema::Untyped).unwrap();
        assert_eq!(patch, br#"{"w":null,"x":{"q":1.5,"y":null,"z":null}}"#);
        let opts = ThreeWayOptions::default();
        assert_eq!(
            three_way_slice(o, p, o, Schema::Untyped, opts).unwrap(),
            br#"{"w":null,"x":{"q":1.5,"y":null,"z":null}}"#
        );
        assert_eq!(apply_slice(b"[1]", b"{}", Schema::Untyped).unwrap_err().to_string(), "invalid JSON document");
    }

    #[test]
    fn bad_utf8_and_unpaired_surrogates_read_as_the_reference_reads_them() {
        // kubectl patch --local reads these strings as U+FFFD (one per bad
        // byte) instead of refusing the document.
        let o = b"{\"a\": \"x\xffy\", \"k\xe2\x82\": 1}";
        let p = br#"{"b": "\ud800z", "c": "\udc00\ud83d\ude00"}"#;
        assert_eq!(
            String::from_utf8(apply_slice(o, p, Schema::Untyped).unwrap()).unwrap(),
            "{\"a\":\"x\u{fffd}y\",\"b\":\"\u{fffd}z\",\"c\":\"\u{fffd}\u{1f600}\",\"k\u{fffd}\u{fffd}\":1}"
        );
        let want = crate::apply(&decode(o).unwrap(), &decode(p).unwrap(), Schema::Untyped).unwrap();
        assert_eq!(apply_slice(o, p, Schema::Untyped).unwrap(), serde_json::to_vec(&want).unwrap());
        assert_eq!(
            String::from_utf8(diff_slice(o, p, Schema::Untyped).unwrap()).unwrap(),
            "{\"a\":null,\"b\":\"\u{fffd}z\",\"c\":\"\u{fffd}\u{1f600}\",\"k\u{fffd}\u{fffd}\":null}"
        );
        let opts = ThreeWayOptions::default();
        let (a, b) = (decode(o).unwrap(), decode(p).unwrap());
        let want = crate::three_way(&a, &b, &a, Schema::Untyped, opts).unwrap();
        assert_eq!(three_way_slice(o, p, o, Schema::Untyped, opts).unwrap(), serde_json::to_vec(&want).unwrap());
        assert!(want.get("b").is_some());
        // Text that is still not JSON stays refused.
        assert!(apply_slice(b"{\"a\": \xff}", b"{}", Schema::Untyped).is_err());
    }
}
