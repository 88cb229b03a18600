//! The writer of the bytes entry points: compact JSON straight from a
//! [`Node`], byte for byte what
//! [`write_json`](crate::bytes::write_json) (serde_json's compact writer
//! with Go's floats) writes, without serde's indirections.
//!
//! - keys in sorted order (the document keeps objects sorted);
//! - strings escaped as serde_json escapes them: `"` and `\` with a
//!   backslash, control characters as `\b`, `\t`, `\n`, `\f`, `\r` or
//!   `\u00xx`, everything else as it is;
//! - integers in decimal, floats as Go writes them ([`go_float`]), a float
//!   that is not finite as `null` (as serde_json does).

use super::compact::{Node, Object};
use crate::bytes::go_float;
use std::borrow::Cow;

fn write_node(out: &mut Vec<u8>, n: &Node<'_>) {
    match n {
        Node::Null => out.extend_from_slice(b"null"),
        Node::Bool(b) => write_bool(out, *b),
        Node::Int(i) => out.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes()),
        Node::Float(f) => write_float(out, *f),
        Node::Str(s) => write_text(out, s),
        Node::Array(a) => {
            out.push(b'[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_node(out, v);
            }
            out.push(b']');
        }
        Node::Object(o) => write_object(out, o),
    }
}

/// Appends `o` as compact JSON text.
pub(crate) fn write_object(out: &mut Vec<u8>, o: &Object<'_>) {
    out.push(b'{');
    for (i, (k, v)) in o.entries().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_text(out, k);
        out.push(b':');
        write_node(out, v);
    }
    out.push(b'}');
}

/// A string of the document: one borrowed from the text is copied as it
/// is (the reader borrows only strings that need no unescaping, which
/// need no escaping either); others are escaped.
// The `Cow` itself, not its text: whether it borrows is what counts.
#[allow(clippy::ptr_arg)]
fn write_text(out: &mut Vec<u8>, s: &Cow<'_, str>) {
    match s {
        Cow::Borrowed(s) => {
            debug_assert!(super::parse::is_plain(s.as_bytes()), "a borrowed string with bytes to escape: {s:?}");
            out.reserve(s.len() + 2);
            out.push(b'"');
            out.extend_from_slice(s.as_bytes());
            out.push(b'"');
        }
        Cow::Owned(s) => write_str(out, s),
    }
}

fn write_bool(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

fn write_float(out: &mut Vec<u8>, f: f64) {
    if f.is_finite() {
        out.extend_from_slice(go_float(f).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    if super::parse::is_plain(bytes) {
        // Almost every string: nothing to escape.
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut i = super::parse::plain_len(bytes);
    let mut run = 0;
    while let Some(&b) = bytes.get(i) {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x09 => b"\\t",
            0x0a => b"\\n",
            0x0c => b"\\f",
            0x0d => b"\\r",
            // The other control characters (`plain_len` stops at no other byte).
            _ => &[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]],
        };
        out.extend_from_slice(&bytes[run..i]);
        out.extend_from_slice(escape);
        i += 1;
        run = i;
        i += super::parse::plain_len(&bytes[i..]);
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any string, and any number, print as serde_json's writer with
        /// Go's floats prints them.
        #[test]
        fn strings_and_numbers_print_as_the_serde_writer(
            s in "(?s).{0,12}",
            raw in proptest::collection::vec(0u8..0x80, 0..12),
            i in proptest::prelude::any::<i64>(),
            u in proptest::prelude::any::<u64>(),
            f in proptest::prelude::any::<f64>(),
        ) {
            let raw = String::from_utf8(raw).unwrap();
            let v = serde_json::json!({"s": s, "raw": raw, "i": i, "u": u, "f": f, "list": [s, i, f, null, true]});
            let text = serde_json::to_vec(&v).unwrap();
            let node = crate::doc::compact::decode(&text).unwrap();
            let mut out = Vec::new();
            write_object(&mut out, &node);
            proptest::prop_assert_eq!(&out, &crate::bytes::to_json_vec(&node).unwrap());
        }
    }
}
