//! JSON text as the reference's decoder (Go's `encoding/json`) reads it.
//!
//! Go accepts two things in strings that serde_json refuses, and reads each
//! as the replacement character U+FFFD:
//! - a byte that does not belong to valid UTF-8 (each such byte on its own:
//!   a truncated three-byte sequence is two replacement characters);
//! - a `\u` escape of a UTF-16 surrogate that is not the leading half of a
//!   valid pair (the escape after a lone leading half is read on its own).
//!
//! [`as_go_reads`] rewrites such text into text serde_json reads to the same
//! values; valid text is returned as it is, after one pass that only looks.
//!
//! kubectl reads the files it is given (`-f`, JSON or YAML) differently:
//! before any parsing, each maximal invalid sequence becomes one U+FFFD (a
//! truncated three-byte sequence is one replacement, not two), which is
//! [`file_as_kubectl_reads`].

use std::borrow::Cow;

/// The replacement character, as the reference writes it for bad input.
const REPLACEMENT: char = '\u{FFFD}';

/// `text` with every byte outside valid UTF-8 and every unpaired surrogate
/// escape written as U+FFFD (`\ufffd` for an escape, so that lengths of
/// escapes stay the same).
///
/// ```
/// use smp_core::text::as_go_reads;
///
/// assert_eq!(as_go_reads(br#"{"a":"\ud800x"}"#), br#"{"a":"\ufffdx"}"#.as_slice());
/// assert_eq!(as_go_reads(b"{\"a\":\"\xff\"}"), "{\"a\":\"\u{fffd}\"}".as_bytes());
/// assert_eq!(as_go_reads(br#"{"a":"\ud83d\ude00"}"#), br#"{"a":"\ud83d\ude00"}"#.as_slice());
/// ```
pub fn as_go_reads(text: &[u8]) -> Cow<'_, [u8]> {
    let utf8 = utf8_as_go_reads(text);
    match unpaired_surrogates(utf8.as_bytes()) {
        None => match utf8 {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        },
        Some(escapes) => {
            let mut out = utf8.into_owned().into_bytes();
            for at in escapes {
                out[at + 2..at + 6].copy_from_slice(b"fffd");
            }
            Cow::Owned(out)
        }
    }
}

/// `text` as a string, each byte that is not part of valid UTF-8 read as
/// U+FFFD, as Go's `utf8.DecodeRune` steps over it (one byte at a time).
pub fn utf8_as_go_reads(text: &[u8]) -> Cow<'_, str> {
    let mut rest = match std::str::from_utf8(text) {
        Ok(s) => return Cow::Borrowed(s),
        Err(_) => text,
    };
    let mut out = String::with_capacity(text.len() + 8);
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return Cow::Owned(out);
            }
            Err(e) => {
                let (valid, bad) = rest.split_at(e.valid_up_to());
                // The prefix was just checked.
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push(REPLACEMENT);
                rest = &bad[1..];
            }
        }
    }
}

/// The text of a file as kubectl reads it: each maximal sequence of bytes
/// that is not UTF-8 (the longest prefix of a valid sequence, or one byte)
/// becomes U+FFFD, before the text is parsed.
///
/// ```
/// use smp_core::text::file_as_kubectl_reads;
///
/// assert_eq!(file_as_kubectl_reads(b"a\xe2\x82b"), "a\u{fffd}b".as_bytes());
/// assert_eq!(file_as_kubectl_reads(b"\xed\xa0\x80"), "\u{fffd}\u{fffd}\u{fffd}".as_bytes());
/// ```
pub fn file_as_kubectl_reads(text: &[u8]) -> Cow<'_, [u8]> {
    match String::from_utf8_lossy(text) {
        Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
        Cow::Owned(s) => Cow::Owned(s.into_bytes()),
    }
}

/// The positions of the backslashes of `\u` escapes that Go reads as
/// U+FFFD: a trailing surrogate on its own, or a leading one not followed
/// by an escape of a trailing one. `None` when there are none.
fn unpaired_surrogates(text: &[u8]) -> Option<Vec<usize>> {
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(off) = text[i..].iter().position(|&b| b == b'\\') {
        let at = i + off;
        if text.get(at + 1) != Some(&b'u') {
            // Any other escape is two bytes; a lone backslash is left to
            // the parser to refuse.
            i = (at + 2).min(text.len());
            continue;
        }
        i = at + 2;
        let Some(unit) = hex4(text, at + 2) else { continue };
        i = at + 6;
        match unit {
            0xD800..=0xDBFF => match trailing_half(text, at + 6) {
                Some(_) => i = at + 12,
                None => found.push(at),
            },
            0xDC00..=0xDFFF => found.push(at),
            _ => {}
        }
    }
    (!found.is_empty()).then_some(found)
}

/// The trailing half of a surrogate pair escaped at `at` (`\uDC00` to
/// `\uDFFF`), if the escape there is one.
pub(crate) fn trailing_half(text: &[u8], at: usize) -> Option<u16> {
    if text.get(at..at + 2) != Some(b"\\u".as_slice()) {
        return None;
    }
    hex4(text, at + 2).filter(|n| (0xDC00..=0xDFFF).contains(n))
}

/// The four hex digits at `at`, if there are four.
pub(crate) fn hex4(text: &[u8], at: usize) -> Option<u16> {
    let digits = text.get(at..at + 4)?;
    let mut n = 0u16;
    for &d in digits {
        n = n * 16 + (d as char).to_digit(16)? as u16;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(text: &[u8]) -> String {
        String::from_utf8(as_go_reads(text).into_owned()).unwrap()
    }

    #[test]
    fn invalid_bytes_are_one_replacement_each() {
        // Go's DecodeRune steps one byte over anything invalid: a truncated
        // three-byte sequence gives two replacements, an encoded surrogate
        // three.
        assert_eq!(go(b"a\xe2\x82b"), "a\u{fffd}\u{fffd}b");
        assert_eq!(go(b"\xed\xa0\x80"), "\u{fffd}\u{fffd}\u{fffd}");
        assert_eq!(go(b"\xff\xfe"), "\u{fffd}\u{fffd}");
        assert_eq!(go(b"ok \xc3\xa9 \xc3"), "ok \u{e9} \u{fffd}");
    }

    #[test]
    fn files_lose_maximal_invalid_sequences() {
        // What kubectl patch --local -f prints for these bytes in a string.
        let cases: [(&[u8], &str); 5] = [
            (b"a\xe2\x82b", "a\u{fffd}b"),
            (b"\xed\xa0\x80", "\u{fffd}\u{fffd}\u{fffd}"),
            (b"\xf4\x90\x80\x80", "\u{fffd}\u{fffd}\u{fffd}\u{fffd}"),
            (b"\xc0\xaf", "\u{fffd}\u{fffd}"),
            (b"\xe2\x82\xe2\x82\xac", "\u{fffd}\u{20ac}"),
        ];
        for (bytes, want) in cases {
            assert_eq!(file_as_kubectl_reads(bytes), want.as_bytes(), "{bytes:x?}");
        }
    }

    #[test]
    fn unpaired_surrogate_escapes_become_replacements() {
        assert_eq!(go(br#""\ud800""#), r#""\ufffd""#);
        assert_eq!(go(br#""\udc00\ud800""#), r#""\ufffd\ufffd""#);
        // After a lone leading half, the next escape is read on its own.
        assert_eq!(go(br#""\ud800\ud83d\ude00""#), r#""\ufffd\ud83d\ude00""#);
        assert_eq!(go(br#""\ud800\u0041""#), r#""\ufffd\u0041""#);
        assert_eq!(go(br#""\uD83D\uDE00""#), r#""\uD83D\uDE00""#);
    }

    #[test]
    fn escaped_backslashes_are_not_escapes() {
        assert_eq!(go(br#""\\ud800""#), r#""\\ud800""#);
        assert_eq!(go(br#""\\\ud800""#), r#""\\\ufffd""#);
    }

    #[test]
    fn valid_text_is_borrowed() {
        assert!(matches!(as_go_reads(br#"{"a":"\u00e9\n"}"#), Cow::Borrowed(_)));
        assert!(matches!(as_go_reads(b"\\u12"), Cow::Borrowed(_)));
        assert!(matches!(as_go_reads(b"ends with \\"), Cow::Borrowed(_)));
    }

    #[test]
    fn serde_json_reads_the_rewritten_text_as_go_reads_the_original() {
        // The values kubectl prints for these inputs.
        let cases: [(&[u8], &str); 4] = [
            (br#"{"y":"\ud800"}"#, "\u{fffd}"),
            (br#"{"y":"\udc00x"}"#, "\u{fffd}x"),
            (br#"{"y":"\ud800\u0041"}"#, "\u{fffd}A"),
            (b"{\"y\":\"a\xffb\"}", "a\u{fffd}b"),
        ];
        for (text, want) in cases {
            let v: serde_json::Value = serde_json::from_slice(&as_go_reads(text)).unwrap();
            assert_eq!(v["y"], want, "{}", String::from_utf8_lossy(text));
        }
    }
}
