//! The reader of a batch's line: a JSON object of several documents under
//! names (`{"original": {...}, "patch": {...}}`), each member read as the
//! entry points read a document of their own, some with others as guides.

use crate::doc::compact;
use crate::doc::parse;
pub use crate::doc::parse::Guides;
use crate::error::{ErrorKind, Result};
use std::borrow::Cow;

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

/// Reads a JSON object of several documents under names (a case of a batch:
/// `{"original": {...}, "patch": {...}}`) in one pass: its members in the
/// order written, duplicates kept, each value decoded as
/// [`apply_slice`](super::apply_slice) and friends decode a document of
/// their own (the object around them does not count towards the nesting
/// limit). Text that is not UTF-8 is read as the reference reads it
/// ([`text`](crate::text)) into `fixed`, which the members then borrow. A
/// `-0` integer literal is the integer 0, as the reference reads it.
pub fn read_members<'t>(text: &'t [u8], fixed: &'t mut Option<String>) -> Result<Vec<Member<'t>>> {
    read_guided_members(text, fixed, Guides::None)
}

/// [`read_members`], reading some members with others as guides, as the
/// entry points read their documents ([`Guides`]): an apply's original with
/// its patch ([`apply_slice`](super::apply_slice); what the patch does not
/// reach is kept as text, which
/// [`apply_object`](super::documents::apply_object) writes out as it is), a
/// three-way patch's live object with the desired object
/// ([`three_way_slice`](super::three_way_slice); what the desired object
/// does not name is kept as text). Such a member is the same value as
/// [`read_members`] gives, only cheaper to read and to hold.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::write::to_json_vec;

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
}
