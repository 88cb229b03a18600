//! Writing YAML that YAML 1.1 readers (kubectl, go-yaml v2) and YAML 1.2
//! readers read back as the same JSON.
//!
//! A string is written plain only when no reader could take it for
//! anything else: it starts with a letter, `_` or `/`, holds no character
//! with a meaning in YAML where it stands, and is not one of YAML 1.1's
//! booleans or nulls (`y`, `n`, `yes`, `on`, `off`, ...). Anything else is
//! double-quoted with JSON-like escapes, or, for multi-line text, a literal
//! block. Numbers are written as the reference's JSON writes them.

use crate::numbers::write_go_number;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// `value` as a YAML document (without a `---` line).
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => mapping(&mut out, map, 0, true),
        Value::Array(items) if !items.is_empty() => sequence(&mut out, items, 0, true),
        other => {
            inline(&mut out, other, 2);
            out.push('\n');
        }
    }
    out
}

/// YAML 1.1's words for booleans and null, which a plain scalar must not be.
const RESERVED_WORDS: &[&str] = &["y", "n", "yes", "no", "on", "off", "true", "false", "null"];

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// A block mapping at `indent`; `padded` is false when the cursor already
/// stands where the first key goes (after `- `).
fn mapping(out: &mut String, map: &Map<String, Value>, indent: usize, padded: bool) {
    for (i, (key, value)) in map.iter().enumerate() {
        if padded || i > 0 {
            pad(out, indent);
        }
        key_string(out, key);
        out.push(':');
        match value {
            Value::Object(m) if !m.is_empty() => {
                out.push('\n');
                mapping(out, m, indent + 2, true);
            }
            Value::Array(items) if !items.is_empty() => {
                out.push('\n');
                sequence(out, items, indent, true);
            }
            scalar => {
                out.push(' ');
                inline(out, scalar, indent + 2);
                out.push('\n');
            }
        }
    }
}

/// A block sequence at `indent`, as kubectl writes it: under a key, at the
/// key's indentation.
fn sequence(out: &mut String, items: &[Value], indent: usize, padded: bool) {
    for (i, item) in items.iter().enumerate() {
        if padded || i > 0 {
            pad(out, indent);
        }
        out.push_str("- ");
        match item {
            Value::Object(m) if !m.is_empty() => mapping(out, m, indent + 2, false),
            Value::Array(inner) if !inner.is_empty() => sequence(out, inner, indent + 2, false),
            scalar => {
                inline(out, scalar, indent + 2);
                out.push('\n');
            }
        }
    }
}

/// A value on the current line: a scalar, `{}` or `[]`; a literal block's
/// lines are indented by `indent`.
fn inline(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_go_number(out, n),
        Value::String(s) => string(out, s, indent),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
    }
}

/// A string: plain, literal block or double-quoted.
fn string(out: &mut String, s: &str, indent: usize) {
    if is_plain_safe(s) {
        out.push_str(s);
    } else if is_literal_safe(s) {
        literal(out, s, indent);
    } else {
        double_quoted(out, s);
    }
}

/// A mapping key: plain or double-quoted (a key stays on one line).
fn key_string(out: &mut String, key: &str) {
    if is_plain_safe(key) { out.push_str(key) } else { double_quoted(out, key) }
}

/// Whether `s` reads back as the same string when written plain, in YAML
/// 1.1 and 1.2, as a key or a value in block context.
fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else { return false };
    let starts_well = first.is_ascii_alphabetic() || first == '_' || first == '/' || first.is_alphabetic();
    if !starts_well || s.ends_with([' ', ':']) || s.contains(": ") {
        return false;
    }
    if RESERVED_WORDS.iter().any(|w| w.eq_ignore_ascii_case(s)) {
        return false;
    }
    s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || (!c.is_ascii() && is_printable(c))
            || matches!(c, ' ' | '_' | '-' | '.' | '/' | ':' | '@' | '+' | '=' | '(' | ')' | '\'' | '"' | '!')
            || matches!(c, '$' | '%' | '*' | ';' | '?' | '~' | '^' | '&' | '<' | '>' | ',')
    })
}

/// Whether `s` can be a literal block (`|`): several lines of printable
/// text, none with trailing white space, the first with text not starting
/// with a space (which would change the block's indentation).
fn is_literal_safe(s: &str) -> bool {
    let body = s.trim_end_matches('\n');
    let Some(first_text) = body.split('\n').find(|line| !line.is_empty()) else { return false };
    s.contains('\n')
        && !first_text.starts_with(' ')
        && body.split('\n').all(|line| !line.ends_with(' '))
        && s.chars().all(|c| c == '\n' || is_printable(c))
}

/// A literal block with the chomping indicator that keeps `s`'s final
/// line breaks: `|-` none, `|` one, `|+` more.
fn literal(out: &mut String, s: &str, indent: usize) {
    let body = s.trim_end_matches('\n');
    let breaks = s.len() - body.len();
    out.push_str(match breaks {
        0 => "|-",
        1 => "|",
        _ => "|+",
    });
    for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
        out.push('\n');
        if !line.is_empty() {
            pad(out, indent);
            out.push_str(line);
        }
    }
}

/// Characters YAML 1.1 lets stand unescaped in a double-quoted scalar
/// (and reads as themselves: NEL, LS and PS are line breaks there).
fn is_printable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

fn double_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_printable(c) => out.push(c),
            c => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What a YAML 1.2 reader gives back, checked to be what kubectl's
    /// YAML 1.1 reads too.
    fn read_back(text: &str) -> Value {
        let yaml_1_2: Value = serde_yaml_ng::from_str(text).unwrap();
        let yaml_1_1 = crate::yaml_read::documents(text.as_bytes()).unwrap();
        assert_eq!(yaml_1_1, std::slice::from_ref(&yaml_1_2), "{text}");
        yaml_1_2
    }

    #[test]
    fn yaml_1_1_words_and_numbers_are_quoted() {
        let value = json!({
            "yes": "on", "y": "n", "1_000": "1_000", "false": "No", "~": "null", "Off": "NULL",
            "0x1F": "1:20", "date": "2001-12-14", "dot": ".inf", "e": "", "<<": "=",
        });
        let text = to_string(&value);
        for word in ["\"yes\": \"on\"", "\"y\": \"n\"", "\"1_000\": \"1_000\"", "\"false\": \"No\"", "\"~\": \"null\""]
        {
            assert!(text.contains(word), "{word} in\n{text}");
        }
        assert!(text.contains("date: \"2001-12-14\"") && text.contains("\"<<\": \"=\""), "{text}");
        assert_eq!(read_back(&text), value);
    }

    #[test]
    fn plain_where_nothing_else_can_be_read() {
        let value = json!({"image": "nginx:1.25", "cmd": "echo it's done", "path": "/var/log", "uni": "héllo ✓"});
        let text = to_string(&value);
        assert_eq!(text, "cmd: echo it's done\nimage: nginx:1.25\npath: /var/log\nuni: héllo ✓\n");
        assert_eq!(read_back(&text), value);
    }

    #[test]
    fn multi_line_text_is_a_literal_block_when_it_can_be() {
        let value = json!({"a": "line1\nline2\n", "b": "x\ny", "c": "x\n\n", "d": "  lead\nx", "e": "t \nx", "f": "\n", "g\nh": 1});
        let text = to_string(&value);
        assert!(text.starts_with("a: |\n  line1\n  line2\nb: |-\n  x\n  y\nc: |+\n  x\n\n"), "{text}");
        assert!(
            text.contains("d: \"  lead\\nx\"")
                && text.contains("e: \"t \\nx\"")
                && text.contains("f: \"\\n\"")
                && text.contains("\"g\\nh\": 1"),
            "{text}"
        );
        assert_eq!(read_back(&text), value);
    }

    #[test]
    fn nesting_as_kubectl_writes_it() {
        let value = json!({"a": [1, {"b": [], "c": {}}, [2, 3], []], "d": {"e": null, "f": true}, "g": 1.5});
        let text = to_string(&value);
        assert_eq!(text, "a:\n- 1\n- b: []\n  c: {}\n- - 2\n  - 3\n- []\nd:\n  e: null\n  f: true\ng: 1.5\n");
        assert_eq!(read_back(&text), value);
        assert_eq!(to_string(&json!({})), "{}\n");
    }

    #[test]
    fn unprintable_and_line_breaking_characters_are_escaped() {
        let value = json!({"a": "x\u{85}y\u{2028}z\u{1}\u{7f}\t"});
        let text = to_string(&value);
        assert_eq!(text, "a: \"x\\u0085y\\u2028z\\u0001\\u007F\\t\"\n");
        assert_eq!(read_back(&text), value);
    }
}
