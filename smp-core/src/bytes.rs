//! JSON text in, JSON text out: [`apply_slice`], [`diff_slice`] and
//! [`three_way_slice`] for callers that hold documents as bytes (a command
//! line, a batch, a web hook), and the writer of their output.
//!
//! The documents are decoded as the reference decodes them ([`decode`](crate::decode)),
//! the operation takes them over without copying, and the result is written
//! as compact JSON: keys sorted, numbers as Go's `encoding/json` writes
//! them (see [`GoFloats`]).
//!
//! The documents are decoded into the [`compact`](mod@compact) document (strings
//! borrowed from the text, objects as sorted vectors) and the engine runs
//! on it, the patches of an apply and of the diffs included. An apply
//! reads its patch first and its original with the patch as guide
//! ([`compact::decode_guided`]): the lists and objects the patch does not
//! reach stay text, written out as they are. A three-way patch reads the
//! live object with the desired one as guide
//! ([`Reading::CurrentOf`]): what the desired
//! object does not name stays text, which the diff never looks into.

use crate::doc::compact::{self, Reading};
use crate::doc::parse;
pub use crate::doc::parse::Guides;
use crate::doc::print;
use crate::engine::apply::{ApplyOptions, apply_compact};
use crate::engine::diff::{DiffOptions, diff_documents};
use crate::engine::three_way::{ThreeWayOptions, three_way_objects as three_way};
use crate::error::{ErrorKind, Result};
use crate::schema::Schema;
use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};
use std::borrow::Cow;
use std::io::{self, Write};

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

/// [`apply_slice`] on documents already read: appends the result's text to
/// `out`, which is left as it was on error. The patch is freed once merged,
/// before the result is written: a large apply does not hold it beside
/// the output.
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

/// [`diff_slice`] on documents already read: appends the patch's text to
/// `out`, which is left as it was on error.
pub fn diff_objects(
    out: &mut Vec<u8>,
    original: &compact::Object<'_>,
    modified: &compact::Object<'_>,
    schema: Schema<'_>,
) -> Result<()> {
    print::write_object(out, &diff_document(original, modified, schema)?);
    Ok(())
}

/// [`three_way_slice`] on documents already read: appends the patch's text
/// to `out`, which is left as it was on error.
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

/// One member of a JSON object read by [`read_members`].
#[derive(Debug)]
pub struct Member<'t> {
    /// The key, decoded.
    pub key: Cow<'t, str>,
    /// The value, as a compact document.
    pub value: compact::Node<'t>,
    /// The value's text.
    pub text: &'t str,
}

/// Reads a JSON object of several documents under names (a case of a
/// batch: `{"original": {...}, "patch": {...}}`) in one pass: its members
/// in the order written, duplicates kept, each value decoded as
/// [`apply_slice`] and friends decode a document of their own (the object
/// around them does not count towards the nesting limit). Text that is not
/// UTF-8 is read as the reference reads it ([`text`](crate::text)) into
/// `fixed`, which the members then borrow. A `-0` integer literal is the
/// integer 0, as the reference reads it.
pub fn read_members<'t>(text: &'t [u8], fixed: &'t mut Option<String>) -> Result<Vec<Member<'t>>> {
    read_guided_members(text, fixed, Guides::None)
}

/// [`read_members`], reading some members with others as guides, as the
/// entry points read their documents ([`Guides`]): an apply's original
/// with its patch ([`apply_slice`]; what the patch does not reach is kept
/// as text, which [`apply_object`] writes out as it is), a three-way
/// patch's live object with the desired object ([`three_way_slice`]; what
/// the desired object does not name is kept as text). Such a member is the
/// same value as [`read_members`] gives, only cheaper to read and to hold.
pub fn read_guided_members<'t>(
    text: &'t [u8],
    fixed: &'t mut Option<String>,
    guides: Guides<'_>,
) -> Result<Vec<Member<'t>>> {
    let text: &'t str = match std::str::from_utf8(text) {
        Ok(text) => text,
        Err(_) => fixed.insert(crate::text::utf8_as_go_reads(text).into_owned()),
    };
    let members = parse::parse_members(text, guides).map_err(|_| ErrorKind::InvalidJsonDocument)?;
    Ok(members.into_iter().map(|(key, value, span)| Member { key, value, text: &text[span] }).collect())
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

/// `value` (a `serde_json::Value` or a [`compact`](mod@compact) document) as compact
/// JSON text, as the functions of this module write it.
pub fn to_json_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    write_json(&mut out, value).map_err(|e| ErrorKind::Serialize(e.to_string()))?;
    Ok(out)
}

/// Writes `value` as compact JSON: keys sorted, strings escaped as
/// serde_json escapes them, floats as Go writes them.
pub fn write_json<W: ?Sized + Write, T: ?Sized + Serialize>(out: &mut W, value: &T) -> io::Result<()> {
    Ok(value.serialize(&mut serde_json::Serializer::with_formatter(out, GoFloats(CompactFormatter)))?)
}

pub use crate::value::go_float;

/// A serde_json formatter with floats as Go writes them ([`go_float`]).
pub struct GoFloats<F>(pub F);

/// Indented JSON with Go's floats.
pub fn pretty() -> GoFloats<PrettyFormatter<'static>> {
    GoFloats(PrettyFormatter::new())
}

/// JSON on one line with Go's floats.
pub fn compact() -> GoFloats<CompactFormatter> {
    GoFloats(CompactFormatter)
}

macro_rules! delegate {
    ($($name:ident $(($arg:ident: $ty:ty))?;)*) => {$(
        fn $name<W: ?Sized + Write>(&mut self, writer: &mut W $(, $arg: $ty)?) -> io::Result<()> {
            self.0.$name(writer $(, $arg)?)
        }
    )*};
}

impl<F: Formatter> Formatter for GoFloats<F> {
    fn write_f64<W: ?Sized + Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(go_float(value).as_bytes())
    }

    delegate! {
        begin_array;
        end_array;
        begin_array_value(first: bool);
        end_array_value;
        begin_object;
        end_object;
        begin_object_key(first: bool);
        end_object_key;
        begin_object_value;
        end_object_value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode;
    use serde_json::json;

    #[test]
    fn floats_as_go_writes_them() {
        let cases = [
            (1.0, "1"),
            (-0.0, "-0"),
            (1.5, "1.5"),
            (1e3, "1000"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1e300, "1e+300"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-10, "1.5e-10"),
            (-2.5e-7, "-2.5e-7"),
            (123456.789, "123456.789"),
        ];
        for (f, want) in cases {
            assert_eq!(go_float(f), want, "{f:e}");
        }
    }

    #[test]
    fn the_writer_sorts_keys_and_writes_go_floats() {
        let value = json!({"b": [1.0, 2, 1e21, "1.0"], "a": "<&>"});
        assert_eq!(String::from_utf8(to_json_vec(&value).unwrap()).unwrap(), r#"{"a":"<&>","b":[1,2,1e+21,"1.0"]}"#);
    }

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

    /// A document's text as the bytes entry points write what they read.
    fn printed(doc: &compact::Node<'_>) -> String {
        String::from_utf8(to_json_vec(doc).unwrap()).unwrap()
    }

    #[test]
    fn members_read_as_documents_of_their_own() {
        let line = br#" {"original": {"b": [1, -0, -0.0, 1e2], "a": "x\u00e9\"", "b": 2}, "patch" :null, "id": -0, "patch": {"k": []}} "#;
        let mut fixed = None;
        let members = read_members(line, &mut fixed).unwrap();
        let keys: Vec<_> = members.iter().map(|m| m.key.as_ref()).collect();
        assert_eq!(keys, ["original", "patch", "id", "patch"]);
        let texts: Vec<_> = members.iter().map(|m| m.text).collect();
        assert_eq!(texts, [r#"{"b": [1, -0, -0.0, 1e2], "a": "x\u00e9\"", "b": 2}"#, "null", "-0", r#"{"k": []}"#]);
        for m in &members {
            // Each value is what a text of its own decodes to.
            if m.text.starts_with('{') {
                let own = compact::decode(m.text.as_bytes()).unwrap();
                assert_eq!(printed(&m.value), printed(&compact::Node::Object(own)));
            }
        }
        assert_eq!(printed(&members[0].value), r#"{"a":"xé\"","b":2}"#);
        // As Go reads it, `-0` is the integer 0 (`-0.0` stays a float).
        assert_eq!(printed(&members[2].value), "0");
        let mut fixed = None;
        let members = read_members(line, &mut fixed).unwrap();
        assert_eq!(printed(&members[2].value), "0");
        let doc = r#"{"b": [1, -0, -0.0, 1e2], "a": "x", "b": [1, -0, -0.0, 1e2]}"#;
        assert_eq!(
            printed(&read_members(format!(r#"{{"d": {doc}}}"#).as_bytes(), &mut None).unwrap()[0].value),
            r#"{"a":"x","b":[1,0,-0,100]}"#
        );
        for bad in [&b""[..], b"[]", b"{", br#"{"a" 1}"#, br#"{"a": 1,}"#, br#"{"a": 1} x"#, br#"{"a": 01}"#] {
            assert!(read_members(bad, &mut None).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn members_nest_as_deep_as_documents_of_their_own() {
        let nested = |depth: usize| "{\"a\":".repeat(depth) + "1" + &"}".repeat(depth);
        for depth in [126, 127, 128] {
            let doc = nested(depth);
            let line = format!(r#"{{"original": {doc}}}"#);
            assert_eq!(
                read_members(line.as_bytes(), &mut None).is_ok(),
                compact::decode(doc.as_bytes()).is_ok(),
                "{depth}"
            );
        }
        assert!(read_members(format!(r#"{{"o": {}}}"#, nested(127)).as_bytes(), &mut None).is_ok());
    }

    #[test]
    fn members_not_utf8_read_as_the_reference_reads_them() {
        let line = b"{\"original\": {\"a\": \"x\xffy\"}, \"patch\": {\"k\xe2\x82\": 1}}";
        let mut fixed = None;
        let members = read_members(line, &mut fixed).unwrap();
        assert_eq!(printed(&members[0].value), "{\"a\":\"x\u{fffd}y\"}");
        assert_eq!(printed(&members[1].value), "{\"k\u{fffd}\u{fffd}\":1}");
        assert_eq!(members[1].text, "{\"k\u{fffd}\u{fffd}\": 1}");
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
