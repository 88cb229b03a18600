//! A batch case line cut into its documents without parsing them, so that
//! each document is parsed once, by the bytes entry points of smp-core.
//!
//! One linear pass finds the top-level fields and their values, checks the
//! nesting (as [`prescan::json`] does) and finds the `-0` integer literals,
//! which the reference decodes as the integer 0. Anything unusual (a line
//! that is not one flat object of fields, too deep, an escaped key inside a
//! document) gives `None`: such a line takes the general path, which parses
//! it whole and says what is wrong.

use crate::prescan::{self, MAX_DEPTH};
use std::borrow::Cow;
use std::ops::Range;

/// A case line: its text with each `-0` integer written as `0` (same
/// length, so the ranges below index it), and its fields in line order.
pub struct CaseLine<'t> {
    pub text: Cow<'t, [u8]>,
    pub fields: Vec<CaseField>,
}

/// A top-level field of a case line.
pub struct CaseField {
    /// The key, quotes included, escapes not decoded.
    pub key: Range<usize>,
    /// The value as written.
    pub value: Range<usize>,
    /// For an object value: its last `apiVersion` and `kind` fields, when
    /// they are strings (quotes included).
    pub api_version: Option<Range<usize>>,
    pub kind: Option<Range<usize>>,
}

impl CaseLine<'_> {
    /// The value of the last field named `name` (JSON keeps the last of
    /// duplicate keys); `None` when it is absent or a key cannot be read.
    pub fn field(&self, name: &str) -> Option<Option<&CaseField>> {
        let mut found = None;
        for f in &self.fields {
            if self.string(&f.key)? == name {
                found = Some(f);
            }
        }
        Some(found)
    }

    /// The text of a range.
    pub fn slice(&self, range: &Range<usize>) -> &[u8] {
        &self.text[range.clone()]
    }

    /// A JSON string of the text, decoded; `None` if it is not valid.
    pub fn string(&self, range: &Range<usize>) -> Option<String> {
        serde_json::from_slice(self.slice(range)).ok()
    }
}

/// Cuts a case line; `None` sends it down the general path.
pub fn cut(bytes: &[u8]) -> Option<CaseLine<'_>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut s = Scanner { bytes, i: 0, zeros: Vec::new() };
    s.ws();
    s.expect(b'{')?;
    s.ws();
    let mut fields = Vec::new();
    if !s.eat(b'}') {
        loop {
            s.ws();
            let key = s.string()?;
            s.ws();
            s.expect(b':')?;
            s.ws();
            let start = s.i;
            let (api_version, kind) = if s.peek() == Some(b'{') {
                s.document()?
            } else {
                s.value(1)?;
                (None, None)
            };
            fields.push(CaseField { key, value: start..s.i, api_version, kind });
            s.ws();
            if !s.eat(b',') {
                s.expect(b'}')?;
                break;
            }
        }
    }
    s.ws();
    if s.i != bytes.len() {
        return None;
    }
    let text = if s.zeros.is_empty() {
        Cow::Borrowed(bytes)
    } else {
        let mut fixed = bytes.to_vec();
        for at in s.zeros {
            fixed[at] = b' ';
        }
        Cow::Owned(fixed)
    };
    Some(CaseLine { text, fields })
}

/// A document's `apiVersion` and `kind` strings, where it has them.
type TypeMeta = (Option<Range<usize>>, Option<Range<usize>>);

struct Scanner<'t> {
    bytes: &'t [u8],
    i: usize,
    /// Where the `-0` integer literals start.
    zeros: Vec<usize>,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    /// Skips JSON whitespace.
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        let here = self.peek() == Some(b);
        if here {
            self.i += 1;
        }
        here
    }

    fn expect(&mut self, b: u8) -> Option<()> {
        self.eat(b).then_some(())
    }

    /// A string, quotes included.
    fn string(&mut self) -> Option<Range<usize>> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let end = prescan::string_end(self.bytes, self.i);
        if end >= self.bytes.len() {
            return None;
        }
        let range = self.i..end + 1;
        self.i = end + 1;
        Some(range)
    }

    /// Notes a `-0` integer literal starting here.
    fn note_zero(&mut self) {
        let b = |k: usize| self.bytes.get(self.i + k).copied();
        if b(0) == Some(b'-') && b(1) == Some(b'0') && !matches!(b(2), Some(b'.' | b'e' | b'E' | b'0'..=b'9')) {
            self.zeros.push(self.i);
        }
    }

    /// Skips one value inside a container at nesting `depth`; the parser
    /// checks its syntax later.
    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' | b'[' => self.nested(depth),
            _ => {
                let start = self.i;
                while let Some(b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'+' | b'-' | b'.') = self.peek() {
                    self.note_zero();
                    self.i += 1;
                }
                (self.i > start).then_some(())
            }
        }
    }

    /// Skips an object or a list opening inside a container at `depth`.
    fn nested(&mut self, depth: usize) -> Option<()> {
        let mut d = depth;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string()?;
                    continue;
                }
                b'{' | b'[' => {
                    d += 1;
                    if d > MAX_DEPTH {
                        return None;
                    }
                }
                b'}' | b']' => {
                    d -= 1;
                    if d == depth {
                        self.i += 1;
                        return Some(());
                    }
                }
                b'-' => self.note_zero(),
                _ => {}
            }
            self.i += 1;
        }
    }

    /// Skips a document (an object value of the line), noting its last
    /// `apiVersion` and `kind` when they are strings.
    fn document(&mut self) -> Option<TypeMeta> {
        let (mut api_version, mut kind) = (None, None);
        self.expect(b'{')?;
        self.ws();
        if self.eat(b'}') {
            return Some((None, None));
        }
        loop {
            self.ws();
            let key = self.string()?;
            let name = &self.bytes[key.start + 1..key.end - 1];
            if name.contains(&b'\\') {
                return None;
            }
            self.ws();
            self.expect(b':')?;
            self.ws();
            let start = self.i;
            let is_string = self.peek() == Some(b'"');
            self.value(2)?;
            let meta = is_string.then_some(start..self.i);
            match name {
                b"apiVersion" => api_version = meta,
                b"kind" => kind = meta,
                _ => {}
            }
            self.ws();
            if !self.eat(b',') {
                self.expect(b'}')?;
                return Some((api_version, kind));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(line: &str) -> Vec<(String, String)> {
        let cut = cut(line.as_bytes()).expect("a plain case line");
        cut.fields
            .iter()
            .map(|f| (cut.string(&f.key).unwrap(), String::from_utf8(cut.slice(&f.value).to_vec()).unwrap()))
            .collect()
    }

    #[test]
    fn fields_and_their_values_as_written() {
        let line = r#" {"original": {"a": [1, {"b": "}"}]}, "patch" :null,"id":-7, "x": "a\"b"} "#;
        assert_eq!(
            fields(line),
            [
                ("original".into(), r#"{"a": [1, {"b": "}"}]}"#.into()),
                ("patch".into(), "null".into()),
                ("id".into(), "-7".into()),
                ("x".into(), r#""a\"b""#.into()),
            ]
        );
        assert!(fields("{}").is_empty());
    }

    #[test]
    fn negative_zero_integers_become_zero() {
        let cut = cut(br#"{"o": {"a": -0, "b": [-0.5, -0e1, -01, "-0"]}}"#).unwrap();
        assert_eq!(&cut.text[..], br#"{"o": {"a":  0, "b": [-0.5, -0e1, -01, "-0"]}}"#);
    }

    #[test]
    fn the_last_duplicate_wins() {
        let cut = cut(br#"{"patch": {}, "patch": {"a": 1}}"#).unwrap();
        let patch = cut.field("patch").unwrap().unwrap();
        assert_eq!(cut.slice(&patch.value), br#"{"a": 1}"#);
        assert!(cut.field("original").unwrap().is_none());
    }

    #[test]
    fn documents_name_their_kind() {
        let cut =
            cut(br#"{"o": {"kind": "Pod", "spec": {"kind": "x"}, "apiVersion": "v1"}, "p": {"kind": 1}}"#).unwrap();
        let (o, p) = (&cut.fields[0], &cut.fields[1]);
        assert_eq!(cut.string(o.kind.as_ref().unwrap()).unwrap(), "Pod");
        assert_eq!(cut.string(o.api_version.as_ref().unwrap()).unwrap(), "v1");
        assert!(p.kind.is_none(), "not a string");
    }

    #[test]
    fn unusual_lines_take_the_general_path() {
        let deep = format!(r#"{{"o": {}{}}}"#, "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        let not_deep = format!(r#"{{"o": {}{}}}"#, "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        assert!(cut(deep.as_bytes()).is_none());
        assert!(cut(not_deep.as_bytes()).is_some());
        for line in [
            "",
            "  ",
            "[]",
            "{",
            r#"{"a"}"#,
            r#"{"a": 1,}"#,
            r#"{"a": 1} x"#,
            r#"{"a": {"\u006bind": 1}}"#,
            r#"{"a": "x"#,
        ] {
            assert!(cut(line.as_bytes()).is_none(), "{line}");
        }
    }
}
