//! The writer of the bytes entry points: compact JSON straight from a
//! [`Node`], byte for byte what
//! [`write_json`](crate::bytes::write::write_json) (serde_json's compact writer
//! with Go's floats) writes, without serde's indirections.
//!
//! - keys in sorted order (the document keeps objects sorted);
//! - strings escaped as serde_json escapes them: `"` and `\` with a
//!   backslash, control characters as `\b`, `\t`, `\n`, `\f`, `\r` or
//!   `\u00xx`, everything else as it is;
//! - integers in decimal, floats as Go writes them ([`go_float`]), a float
//!   that is not finite as `null` (as serde_json does).

use super::compact::{Node, Object};
use crate::value::go_float;
use std::borrow::Cow;

pub(super) fn write_node(out: &mut Vec<u8>, n: &Node<'_>) {
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
        Node::Raw(lazy) => match lazy.canonical_text() {
            // What this writer writes for it.
            Some(text) => out.extend_from_slice(text.as_bytes()),
            None => write_node(out, n.decoded()),
        },
    }
}

/// Appends `o` as compact JSON text.
pub(crate) fn write_object(out: &mut Vec<u8>, o: &Object<'_>) {
    out.push(b'{');
    let mut first = true;
    let mut member = |k: &Cow<'_, str>, v: &Node<'_>| {
        write_key(out, k, first);
        first = false;
        write_node(out, v);
    };
    match o.one_run() {
        // No merging of runs to do.
        Some(members) => members.iter().for_each(|(k, v)| v.iter().for_each(|v| member(k, v))),
        None => o.entries().for_each(|(k, v)| member(k, v)),
    }
    out.push(b'}');
}

/// A member's key with the comma before it (unless `first`) and the colon
/// after it.
#[allow(clippy::ptr_arg)]
fn write_key(out: &mut Vec<u8>, k: &Cow<'_, str>, first: bool) {
    match k {
        Cow::Borrowed(k) => {
            debug_assert!(super::parse::is_plain(k.as_bytes()), "a borrowed key with bytes to escape: {k:?}");
            let comma = if first { &b""[..] } else { b"," };
            put_quoted(out, comma, k.as_bytes(), b"\":");
        }
        Cow::Owned(k) => {
            if !first {
                out.push(b',');
            }
            write_str(out, k);
            out.push(b':');
        }
    }
}

/// Appends `before`, a quote, `text`, then `after` (which starts with the
/// closing quote), with one check of the room left, and short texts copied
/// without a call to `memcpy`.
#[inline]
fn put_quoted(out: &mut Vec<u8>, before: &[u8], text: &[u8], after: &[u8]) {
    debug_assert!(before.len() <= 1 && after.len() <= 2);
    let n = text.len();
    // Room for the widest writes below: two bytes before, two after.
    out.reserve(n + 4);
    // SAFETY: the writes below stay inside the `n + 4` bytes reserved past
    // the length: at most one byte of `before`, the quote, `n` bytes of
    // `text` and two of `after`; the length grows by exactly what was written.
    unsafe {
        let start = out.len();
        let mut dst = out.as_mut_ptr().add(start);
        if let Some(&b) = before.first() {
            *dst = b;
            dst = dst.add(1);
        }
        *dst = b'"';
        dst = dst.add(1);
        copy_short(text, dst);
        dst = dst.add(n);
        std::ptr::copy_nonoverlapping(after.as_ptr(), dst, after.len());
        let written = before.len() + 1 + n + after.len();
        out.set_len(start + written);
    }
}

/// Appends `bytes`, short ones without a call to `memcpy`.
#[inline]
pub(super) fn extend_short(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len());
    // SAFETY: `bytes.len()` bytes are reserved past the length, which then
    // grows by what was written.
    unsafe {
        copy_short(bytes, out.as_mut_ptr().add(out.len()));
        out.set_len(out.len() + bytes.len());
    }
}

/// Copies `src` to `dst`; up to sixteen bytes as two overlapping words (or
/// halves), longer ones by `memcpy`.
///
/// # Safety
///
/// `dst` must be valid for `src.len()` bytes of writes, apart from `src`.
#[inline]
unsafe fn copy_short(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let p = src.as_ptr();
    // SAFETY: every read is inside `src` and every write inside the `n`
    // bytes at `dst` (the two halves overlap where `n` is not twice their size).
    unsafe {
        if n >= 8 {
            if n > 16 {
                std::ptr::copy_nonoverlapping(p, dst, n);
                return;
            }
            let (a, b) = (p.cast::<u64>().read_unaligned(), p.add(n - 8).cast::<u64>().read_unaligned());
            dst.cast::<u64>().write_unaligned(a);
            dst.add(n - 8).cast::<u64>().write_unaligned(b);
        } else if n >= 4 {
            let (a, b) = (p.cast::<u32>().read_unaligned(), p.add(n - 4).cast::<u32>().read_unaligned());
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else {
            for i in 0..n {
                *dst.add(i) = *p.add(i);
            }
        }
    }
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
            put_quoted(out, b"", s.as_bytes(), b"\"");
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
            s in "(?s).{0,40}",
            raw in proptest::collection::vec(0u8..0x80, 0..40),
            i in proptest::prelude::any::<i64>(),
            u in proptest::prelude::any::<u64>(),
            f in proptest::prelude::any::<f64>(),
        ) {
            let raw = String::from_utf8(raw).unwrap();
            // Strings and keys of every length the writer copies in its own way.
            let keys = serde_json::json!({&s: 1, &raw: [], format!("{s}{raw}"): {}});
            let v = serde_json::json!({"s": s, "raw": raw, "i": i, "u": u, "f": f, "list": [s, i, f, null, true], "keys": keys});
            let text = serde_json::to_vec(&v).unwrap();
            let node = crate::doc::compact::decode(&text).unwrap();
            let mut out = Vec::new();
            write_object(&mut out, &node);
            proptest::prop_assert_eq!(&out, &crate::bytes::write::to_json_vec(&node).unwrap());
        }
    }
}
