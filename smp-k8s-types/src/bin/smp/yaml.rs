//! YAML as `kubectl -o yaml` writes it, byte for byte: go-yaml v2's
//! choices (a string is plain unless YAML 1.1 would read it as something
//! else, then double-quoted; multi-line text is a literal block; numbers
//! as go-yaml reads them back from the reference's JSON; keys in its
//! natural order, `a9` before `a10`, sorted as go-yaml sorts them)
//! written by the libyaml emitter go-yaml is a port of (which folds long
//! plain text at 80 columns, and quotes what a plain scalar cannot hold).

use crate::numbers::write_go_number;
use crate::yaml_scalar::{self, Scalar};
use libyaml_safer::{Emitter, Encoding, Event, MappingStyle, ScalarStyle, SequenceStyle};
use serde_json::Value;
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
            sort_keys(&mut entries);
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

/// go-yaml v2's order of string keys (`keyList.Less`): at the first
/// character that differs, two letters compare as characters, a letter
/// goes after anything else, and other characters compare as the runs of
/// digits starting there, read as numbers (a zero after a non-zero digit
/// carries on the number before it). This is not a total order (`-01` <
/// `-0a` < `-1` < `-01`): go-yaml sorts with it all the same, and so does
/// [`sort_keys`].
pub fn go_yaml_less(a: &str, b: &str) -> bool {
    let mut at = 0;
    for (x, y) in a.chars().zip(b.chars()) {
        if x != y {
            return less_at(a, b, at, x, y);
        }
        at += x.len_utf8();
    }
    a.chars().count() < b.chars().count()
}

/// [`go_yaml_less`] at the first difference, at byte `at`, `x` in `a` and
/// `y` in `b`.
fn less_at(a: &str, b: &str, at: usize, x: char, y: char) -> bool {
    let (x_letter, y_letter) = (is_letter(x), is_letter(y));
    if x_letter && y_letter {
        return x < y;
    }
    if x_letter || y_letter {
        return y_letter;
    }
    let carried = (x == '0' || y == '0') && a[..at].chars().rev().take_while(|c| is_digit(*c)).any(|c| c != '0');
    // Go's int64 arithmetic, wrapping; a digit of another script counts as
    // its distance from '0'.
    let run = |s: &str| {
        s[at..].chars().take_while(|c| is_digit(*c)).fold((i64::from(carried), 0usize), |(n, len), c| {
            (n.wrapping_mul(10).wrapping_add(i64::from(c as u32) - i64::from('0' as u32)), len + 1)
        })
    };
    let ((an, a_len), (bn, b_len)) = (run(a), run(b));
    if an != bn {
        return an < bn;
    }
    if a_len != b_len {
        return a_len < b_len;
    }
    x < y
}

/// Go's `unicode.IsLetter`: the general category L.
fn is_letter(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    matches!(
        get_general_category(c),
        G::UppercaseLetter | G::LowercaseLetter | G::TitlecaseLetter | G::ModifierLetter | G::OtherLetter
    )
}

/// Go's `unicode.IsDigit`: the general category Nd.
fn is_digit(c: char) -> bool {
    c.is_ascii_digit()
        || (!c.is_ascii()
            && unicode_general_category::get_general_category(c)
                == unicode_general_category::GeneralCategory::DecimalNumber)
}

/// Orders a mapping's entries as go-yaml v2 does: [`go_yaml_less`] run
/// through Go's `sort.Sort` step by step, from the keys' byte order (as
/// the reference's JSON has them). Go's sort never fails on an order that
/// is not total, and neither does this. Where the order is total the result
/// is kubectl's; where it is not, kubectl's depends on the iteration order
/// of a Go map, which varies from run to run, and this is one of its
/// results.
pub fn sort_keys<V>(entries: &mut [(&String, V)]) {
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    smp_core::unstable::go_sort_by(entries, |a, b| go_yaml_less(a.0, b.0));
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
    fn keys_that_go_yaml_cannot_order_totally_are_written_without_a_panic() {
        // `-01` < `-0a` < `-1` < `-01`: Rust's own sort may panic on such
        // an order, Go's runs to the end (so does the writer's).
        assert!(go_yaml_less("x-01", "x-0a") && go_yaml_less("x-0a", "x-1") && go_yaml_less("x-1", "x-01"));
        let pieces = ["0", "1", "01", "0a", "a", "-", ".", "10", "00", "9", "b", "٣", "é"];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..200 {
            let mut map = serde_json::Map::new();
            while map.len() < 40 {
                let key: String = (0..1 + next(3)).map(|_| pieces[next(pieces.len())]).collect();
                map.insert(format!("k-{key}"), json!("v"));
            }
            let value = Value::Object(map);
            assert_eq!(read_back(&to_string(&value).unwrap()), value);
        }
    }

    #[test]
    fn keys_of_other_scripts_ordered_as_kubectl_orders_them() {
        // Go's letters are the general category L (not Rust's alphabetic:
        // `Ⅻ` and a combining mark are not letters), its digits Nd (`٣`
        // and `１` count as their distance from '0'), and its numbers wrap
        // as int64s.
        let value = object(json!({
            "a3": 1, "a٣": 1, "a-": 1, "aⅫ": 1, "a\u{301}": 1, "aa": 1, "aª": 1, "a１": 1, "a99999999999999999999": 1,
            "a0a": 1, "a00": 1, "aＡ": 1,
        }));
        let text = to_string(&value).unwrap();
        let keys: Vec<&str> = text.lines().skip(3).map(|l| l.trim().split(':').next().unwrap()).collect();
        // `kubectl patch --local -o yaml` printed this order.
        let kubectl =
            ["a-", "a\u{301}", "aⅫ", "a00", "a0a", "a3", "a٣", "a１", "a99999999999999999999", "aa", "aª", "aＡ"];
        assert_eq!(keys, kubectl, "{text}");
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
