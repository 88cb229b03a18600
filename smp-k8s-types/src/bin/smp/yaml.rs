//! YAML as `kubectl -o yaml` writes it, byte for byte: go-yaml v2's
//! choices (a string is plain unless YAML 1.1 would read it as something
//! else, then double-quoted; multi-line text is a literal block; numbers
//! as go-yaml reads them back from the reference's JSON; keys in its
//! natural order, `a9` before `a10`) written by the libyaml emitter go-yaml
//! is a port of (which folds long plain text at 80 columns, and quotes
//! what a plain scalar cannot hold).

use crate::numbers::write_go_number;
use crate::yaml_scalar::{self, Scalar};
use libyaml_safer::{Emitter, Encoding, Event, MappingStyle, ScalarStyle, SequenceStyle};
use serde_json::Value;
use std::cmp::Ordering;
use std::io;

/// `value` as a YAML document (without a `---` line).
pub fn to_string(value: &Value) -> io::Result<String> {
    let mut out = Vec::new();
    let mut emitter = Emitter::new();
    emitter.set_output_string(&mut out);
    emitter.set_unicode(true);
    let mut emit = |event: Event| emitter.emit(event).map_err(io::Error::other);
    emit(Event::stream_start(Encoding::Utf8))?;
    emit(Event::document_start(None, &[], true))?;
    node(&mut emit, value)?;
    emit(Event::document_end(true))?;
    emit(Event::stream_end())?;
    drop(emitter);
    let mut text = String::from_utf8(out).map_err(io::Error::other)?;
    // After a block scalar that keeps its final line breaks the emitter
    // ends the document with `...`; go-yaml never writes it.
    if text.ends_with("\n...\n") {
        text.truncate(text.len() - "...\n".len());
    }
    Ok(text)
}

fn node(emit: &mut impl FnMut(Event) -> io::Result<()>, value: &Value) -> io::Result<()> {
    match value {
        Value::Null => scalar(emit, "null", ScalarStyle::Plain),
        Value::Bool(b) => scalar(emit, if *b { "true" } else { "false" }, ScalarStyle::Plain),
        Value::Number(n) => scalar(emit, &number(n), ScalarStyle::Plain),
        Value::String(s) => string(emit, s, false),
        Value::Array(items) => {
            emit(Event::sequence_start(None, None, true, SequenceStyle::Block))?;
            items.iter().try_for_each(|item| node(emit, item))?;
            emit(Event::sequence_end())
        }
        Value::Object(map) => {
            emit(Event::mapping_start(None, None, true, MappingStyle::Block))?;
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| natural_order(a.0, b.0));
            for (key, value) in entries {
                string(emit, key, true)?;
                node(emit, value)?;
            }
            emit(Event::mapping_end())
        }
    }
}

fn scalar(emit: &mut impl FnMut(Event) -> io::Result<()>, text: &str, style: ScalarStyle) -> io::Result<()> {
    emit(Event::scalar(None, None, text, true, true, style))
}

/// A string: a literal block when it has a line break, plain when it reads
/// back as itself, else double-quoted (the emitter may still quote what a
/// plain or block scalar cannot hold). A `<<` key is quoted: go-yaml
/// writes it plain, and it then reads back as a merge key.
fn string(emit: &mut impl FnMut(Event) -> io::Result<()>, s: &str, key: bool) -> io::Result<()> {
    let style = if s.contains('\n') {
        ScalarStyle::Literal
    } else if yaml_scalar::reads_back_as_text(s) && !(key && s == "<<") {
        ScalarStyle::Plain
    } else {
        ScalarStyle::DoubleQuoted
    };
    scalar(emit, s, style)
}

/// A number as go-yaml writes what it reads from the reference's JSON
/// text of it: integers as they are, other numbers as Go's shortest `'g'`
/// format (`1e+06`, `1.5`).
fn number(n: &serde_json::Number) -> String {
    let mut json = String::new();
    write_go_number(&mut json, n);
    match yaml_scalar::scalar(&json, None, true) {
        Ok(Scalar::Int(i)) => i.to_string(),
        Ok(Scalar::Uint(u)) => u.to_string(),
        Ok(Scalar::Float(f)) => yaml_scalar::float_text(f),
        _ => json,
    }
}

/// go-yaml v2's order of string keys: character by character, letters
/// before other characters, and runs of digits compared as numbers.
fn natural_order(a: &str, b: &str) -> Ordering {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    for i in 0..a.len().min(b.len()) {
        if a[i] == b[i] {
            continue;
        }
        let (al, bl) = (a[i].is_alphabetic(), b[i].is_alphabetic());
        if al && bl {
            return a[i].cmp(&b[i]);
        }
        if al || bl {
            return if bl { Ordering::Less } else { Ordering::Greater };
        }
        // Digits after a non-zero digit carry on a number already begun.
        let carried =
            (a[i] == '0' || b[i] == '0') && a[..i].iter().rev().take_while(|c| c.is_ascii_digit()).any(|c| *c != '0');
        let run = |s: &[char]| {
            let digits = s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            let value = s[i..i + digits]
                .iter()
                .fold(u64::from(carried), |n, c| n.wrapping_mul(10).wrapping_add(u64::from(*c as u32 - '0' as u32)));
            (value, digits)
        };
        let ((an, ad), (bn, bd)) = (run(&a), run(&b));
        return an.cmp(&bn).then(ad.cmp(&bd)).then(a[i].cmp(&b[i]));
    }
    a.len().cmp(&b.len())
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

    /// `x` in an object as kubectl prints it (`kubectl patch --local -o
    /// yaml` printed each expected text below).
    fn object(x: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "X", "x": x})
    }

    #[test]
    fn yaml_1_1_words_numbers_and_dates_are_quoted_as_kubectl_quotes_them() {
        let value = object(json!({
            "yes": "on", "y": "n", "1_000": "1_000", "false": "No", "~": "null", "Off": "NULL",
            "0x1F": "1:20", "date": "2001-12-14", "dot": ".inf", "e": "", "<<": "=",
        }));
        let text = to_string(&value).unwrap();
        // kubectl writes the `<<` key plain, which reads back as a merge key:
        // smp quotes it.
        let kubectl = "apiVersion: v1\nkind: X\nx:\n  <<: =\n  \"~\": \"null\"\n  \"0x1F\": \"1:20\"\n  \"1_000\": \"1_000\"\n  \
                       \"Off\": \"NULL\"\n  date: \"2001-12-14\"\n  dot: \".inf\"\n  e: \"\"\n  \"false\": \"No\"\n  \"y\": \"n\"\n  \
                       \"yes\": \"on\"\n";
        assert_eq!(text, kubectl.replace("  <<: =", "  \"<<\": ="));
        assert_eq!(read_back(&text), value);
    }

    #[test]
    fn plain_where_nothing_else_can_be_read() {
        let value = json!({"image": "nginx:1.25", "cmd": "echo it's done", "path": "/var/log", "uni": "héllo ✓"});
        let text = to_string(&value).unwrap();
        assert_eq!(text, "cmd: echo it's done\nimage: nginx:1.25\npath: /var/log\nuni: héllo ✓\n");
        assert_eq!(read_back(&text), value);
    }

    #[test]
    fn multi_line_text_as_kubectl_writes_it() {
        let value = object(
            json!({"a": "line1\nline2\n", "b": "x\ny", "c": "x\n\n", "d": "  lead\nx", "e": "t \nx", "f": "\n", "g\nh": 1}),
        );
        let text = to_string(&value).unwrap();
        let kubectl = "apiVersion: v1\nkind: X\nx:\n  a: |\n    line1\n    line2\n  b: |-\n    x\n    y\n  c: |+\n    x\n\n  \
                       d: |2-\n      lead\n    x\n  e: \"t \\nx\"\n  f: |2+\n\n  ? |-\n    g\n    h\n  : 1\n";
        assert_eq!(text, kubectl);
        assert_eq!(read_back(&text), value);
    }

    #[test]
    fn nesting_numbers_and_key_order_as_kubectl_writes_them() {
        let value = object(json!({
            "a": [1, {"b": [], "c": {}}, [2, 3], []], "d": {"e": null, "f": true}, "g": 1.5, "h": 1e-7,
            "i": 1234567.5, "j": 1e21, "k": 9223372036854775807_i64, "a10": 1, "a9": 2, "a09": 3, "b0": 4, "b00": 5,
        }));
        let text = to_string(&value).unwrap();
        let kubectl = "apiVersion: v1\nkind: X\nx:\n  a:\n  - 1\n  - b: []\n    c: {}\n  - - 2\n    - 3\n  - []\n  a9: 2\n  \
                       a09: 3\n  a10: 1\n  b0: 4\n  b00: 5\n  d:\n    e: null\n    f: true\n  g: 1.5\n  h: 1e-07\n  \
                       i: 1.2345675e+06\n  j: 1e+21\n  k: 9223372036854775807\n";
        assert_eq!(text, kubectl);
        assert_eq!(read_back(&text), value);
        assert_eq!(to_string(&json!({})).unwrap(), "{}\n");
    }

    #[test]
    fn long_text_folds_at_eighty_columns() {
        let long = "word ".repeat(30).trim_end().to_string();
        let text = to_string(&json!({"k": long})).unwrap();
        assert!(text.lines().all(|line| line.len() <= 82), "{text}");
        assert!(text.lines().count() > 1, "{text}");
        assert_eq!(read_back(&text), json!({"k": long}));
    }

    #[test]
    fn unprintable_and_line_breaking_characters_are_escaped() {
        // kubectl itself cannot print these (its YAML step refuses or folds
        // them); smp escapes them, and they read back.
        let value = json!({"a": "x\u{85}y\u{2028}z\u{1}\u{7f}\t"});
        let text = to_string(&value).unwrap();
        assert_eq!(text, "a: \"x\\Ny\\Lz\\x01\\x7F\\t\"\n");
        assert_eq!(read_back(&text), value);
    }
}
