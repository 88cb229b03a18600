//! Long strings with escapes, as real objects carry them in annotations,
//! scripts, env values and messages: line breaks, tabs, quotes,
//! backslashes, control characters, characters Go escapes and serde_json
//! does not (`<`, `>`, `&`, U+2028, U+2029), and non-ASCII text.
//!
//! The engine's reader keeps a string of 64 bytes or more (quotes counted)
//! as its text when its escapes are all the writer's own, and decodes it
//! otherwise; [`write_escaped`] writes documents whose long strings use
//! the writer's escapes or others, so that both readings meet the same
//! values.
//!
//! ```
//! use smp_tests::long_text::{edited, is_long, long_text};
//! use smp_tests::rng::Rng;
//!
//! let mut rng = Rng::new(7);
//! let text = long_text(&mut rng);
//! assert!(is_long(&text));
//! assert_ne!(edited(&mut rng, &text), text);
//! ```

use crate::rng::Rng;
use serde_json::{Value, json};
use smp_core::unstable::to_go_json;

/// The chance that a free-text value the generators make is long.
pub const LONG_TEXT: f64 = 1.0 / 8.0;

/// Fragments of long strings.
const PIECES: &[&str] = &[
    "#!/bin/sh\nset -eu\n",
    "echo \"starting $HOSTNAME\" >> /var/log/app.log\n",
    "if [ -f /etc/app/app.conf ]; then exec /bin/app --config=/etc/app/app.conf; fi\n",
    "\tkey:\tvalue\r\n",
    "C:\\Program Files\\App\\bin\\app.exe ",
    "{\"level\":\"info\",\"msg\":\"ready\"} ",
    "<p>Tom & Jerry</p> ",
    "a && b || c > /dev/null 2>&1; ",
    "caf\u{e9} cr\u{e8}me br\u{fb}l\u{e9}e, ",
    "日本語のテキスト、",
    "rocket \u{1F680} smile \u{1F600} ",
    "line\u{2028}separator\u{2029}paragraph ",
    "bell\u{7} backspace\u{8} tab\u{b} feed\u{c} esc\u{1b}[0m ",
    "\u{1}\u{2}\u{3}\u{1e}\u{1f}\u{7f} ",
    "plain words with nothing to escape in them. ",
    "literal \\u003c and \\n, not escapes; ",
    "'single' \"double\" `back` ",
    "path/to/some/file.txt ",
    "100% done, %s and %d\n",
];

/// Fragments with escapes the writer writes itself, for strings at the
/// reader's threshold.
const ESCAPED: &[&str] = &["a\"b", "x\\y", "one\ntwo", "tab\there", "cr\r\n", "\u{1}\u{1f}", "\u{8}\u{c}"];

/// A long string: 64 to about 400 bytes mostly; a fifth of them, written
/// as serde_json writes them, 61 to 67 bytes long quotes included (the
/// reader's threshold is 64).
pub fn long_text(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 | 1 => near_threshold(rng),
        2 | 3 => json_blob(rng),
        _ => {
            let len = 64 + rng.below(337);
            pieces(rng, len)
        }
    }
}

/// Whether a generated string is one of [`long_text`]'s (no pool word is
/// this long).
pub fn is_long(s: &str) -> bool {
    s.len() >= 40
}

/// Whether `v` holds a string (a key aside) that passes `test`.
pub fn holds_string(v: &Value, test: &impl Fn(&str) -> bool) -> bool {
    match v {
        Value::String(s) => test(s),
        Value::Array(items) => items.iter().any(|item| holds_string(item, test)),
        Value::Object(members) => members.values().any(|item| holds_string(item, test)),
        _ => false,
    }
}

/// Whether `v` holds a long string.
pub fn has_long_string(v: &Value) -> bool {
    holds_string(v, &is_long)
}

/// A changed copy of `s`: a piece added, inserted or cut off.
pub fn edited(rng: &mut Rng, s: &str) -> String {
    let at = boundary(s, rng.below(s.len() + 1));
    let piece = *rng.pick(PIECES);
    let mut out = match rng.below(3) {
        0 => format!("{s}{piece}"),
        1 => format!("{}{piece}{}", &s[..at], &s[at..]),
        _ => s[..boundary(s, s.len() * 2 / 3)].to_string(),
    };
    if out == s {
        out.push('!');
    }
    out
}

/// `len` bytes (or a little more, to end on a character) of pieces.
fn pieces(rng: &mut Rng, len: usize) -> String {
    let mut s = String::new();
    while s.len() < len {
        let piece = *rng.pick(PIECES);
        s.push_str(piece);
    }
    s.truncate(boundary(&s, len));
    s
}

/// The first character boundary of `s` at or after `at`.
fn boundary(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at += 1;
    }
    at
}

fn near_threshold(rng: &mut Rng) -> String {
    let want = 61 + rng.below(7);
    let mut s = rng.pick(ESCAPED).to_string();
    while serde_json::to_string(&s).expect("a string").len() < want {
        s.push(char::from(b'a' + (s.len() % 26) as u8));
    }
    s
}

/// A configuration as kubectl's last-applied annotation holds one: JSON
/// text as Go writes it (`<`, `>`, `&`, U+2028 and U+2029 escaped).
fn json_blob(rng: &mut Rng) -> String {
    let (note_len, script_len) = (8 + rng.below(80), 8 + rng.below(120));
    let (note, script) = (pieces(rng, note_len), pieces(rng, script_len));
    let blob = json!({
        "apiVersion": "v1",
        "data": {"run.sh": script},
        "kind": "ConfigMap",
        "metadata": {"annotations": {"note": note}, "name": "cfg", "namespace": "default"},
    });
    to_go_json(&blob)
}

/// `v` as JSON text, each of its long strings written with serde_json's
/// escapes or, half of the time, with escapes chosen at random among all
/// that JSON allows (`\u003c`, `\/`, uppercase hex, `\u000a`, surrogate
/// pairs...); keys and other values as serde_json writes them. A document
/// so written holds long strings the reader keeps as text beside long
/// strings it decodes.
pub fn write_escaped(v: &Value, rng: &mut Rng) -> String {
    let mut out = String::new();
    write(v, rng, &mut out);
    out
}

fn write(v: &Value, rng: &mut Rng, out: &mut String) {
    match v {
        Value::String(s) if is_long(s) && rng.chance(0.5) => {
            out.push('"');
            out.push_str(&escaped(s, rng));
            out.push('"');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, rng, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).expect("a key"));
                out.push(':');
                write(item, rng, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The text between the quotes of `s`, with escapes chosen at random: for
/// each character that may be escaped, the writer's own escape or another
/// one (decoded to the same string).
pub fn escaped(s: &str, rng: &mut Rng) -> String {
    let mut out = String::new();
    let mut units = [0u16; 2];
    for c in s.chars() {
        let odd = rng.chance(0.5);
        let hex = |out: &mut String, unit: u16, upper: bool| {
            out.push_str(&if upper { format!("\\u{unit:04X}") } else { format!("\\u{unit:04x}") });
        };
        match c {
            '"' | '\\' if odd => hex(&mut out, c as u16, rng.chance(0.5)),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' if !odd => out.push_str("\\n"),
            '\t' if !odd => out.push_str("\\t"),
            '\r' if !odd => out.push_str("\\r"),
            '\u{8}' if !odd => out.push_str("\\b"),
            '\u{c}' if !odd => out.push_str("\\f"),
            '\0'..='\u{1f}' => hex(&mut out, c as u16, odd && rng.chance(0.5)),
            '/' if odd => out.push_str("\\/"),
            '<' | '>' | '&' | '\u{7f}' | '\u{2028}' | '\u{2029}' if odd => hex(&mut out, c as u16, rng.chance(0.5)),
            c if !c.is_ascii() && odd => {
                let upper = rng.chance(0.5);
                for unit in c.encode_utf16(&mut units) {
                    hex(&mut out, *unit, upper);
                }
            }
            c if c.is_ascii_alphabetic() && rng.chance(0.02) => hex(&mut out, c as u16, rng.chance(0.5)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_text_reads_back_as_the_string() {
        let mut rng = Rng::new(3);
        for _ in 0..500 {
            let s = long_text(&mut rng);
            let text = format!("\"{}\"", escaped(&s, &mut rng));
            assert_eq!(serde_json::from_str::<String>(&text).unwrap(), s, "{text}");
            let doc = json!({"a": [s.clone(), 1.5, null], "b": {"c": s}});
            assert_eq!(serde_json::from_str::<Value>(&write_escaped(&doc, &mut rng)).unwrap(), doc);
        }
    }

    #[test]
    fn long_strings_are_long_and_edits_differ() {
        let mut rng = Rng::new(5);
        let mut at_threshold = 0;
        for _ in 0..500 {
            let s = long_text(&mut rng);
            let text_len = serde_json::to_string(&s).unwrap().len();
            assert!(is_long(&s) && text_len >= 61, "{s:?}");
            at_threshold += usize::from((61..=67).contains(&text_len));
            assert_ne!(edited(&mut rng, &s), s);
        }
        assert!(at_threshold > 50, "{at_threshold}");
    }
}
