//! Reading the texts of an apply for what the merge needs. The patch is
//! read first ([`parse_patch`]), with the elements of its
//! `$setElementOrder` lists kept as text: the merge reads their merge keys
//! only. Then the original, with the patch at hand: the lists and
//! objects that the patch does not reach are kept as their text
//! ([`Node::Raw`]) when that text is canonical, what the writer would write
//! for it. An apply then costs what its patch touches, in time and in
//! memory, rather than what the whole document holds: a patch of one label
//! on a document of a million list elements decodes none of them.
//!
//! The guide only says what is worth decoding; it never changes a result.
//! A kept value decodes itself the first time the engine looks into it,
//! and the text it keeps is written exactly as the decoded value would be.
//!
//! A member of an object of the original is decoded when:
//! - the patch object has the same key (when both values are objects, the
//!   member is read with the patch's value as its guide; when both are
//!   lists, the list is read but its elements are kept as text: a keyed
//!   merge reads their keys from the text, [`member_text`], and an element
//!   it merges into is decoded then, with that patch element as guide);
//! - a directive of the patch object names it (`$setElementOrder/K`,
//!   `$deleteFromPrimitiveList/K`: a list, read as above);
//! - its own key is a directive's (the engine compares the original's
//!   directives with the patch's);
//! - or the patch object holds `$patch` (the object is then read whole).

use super::{Invalid, Parsed, Parser, int64, plain_len};
use crate::directive::{ListDirective, PATCH};
use crate::doc::compact::{Lazy, Node, Object};
use crate::doc::key_order;

/// The longest list element a document of a diff keeps as text.
const SHORT_ELEMENT: usize = 1024;

/// Reads the JSON value that makes up `text`, as [`super::parse`] does,
/// keeping what `guide` (an object) does not reach as text, as `what` says
/// ([`Guided`]).
pub(in crate::doc) fn parse_guided<'a>(text: &'a str, guide: &Object<'_>, what: Guided) -> Parsed<Node<'a>> {
    let mut p = Parser::new(text);
    p.elements_as_text = what == Guided::Current;
    p.skip_ws();
    let v = if p.peek() == Some(b'{') {
        p.pos += 1;
        Node::Object(p.object_guided(guide, what)?)
    } else {
        p.value()?
    };
    p.end()?;
    Ok(v)
}

/// Reads the JSON value that makes up `text`, the patch of an apply, as
/// [`super::parse`] does, but for the elements of its `$setElementOrder`
/// lists: those that are lists or objects in canonical text are kept as
/// text. The merge reads only their merge keys ([`member_text`]), and
/// kubectl's patches name every element of a list there: a million small
/// objects, each an allocation, for a list of a million elements.
pub(in crate::doc) fn parse_patch(text: &str) -> Parsed<Node<'_>> {
    let mut p = Parser::new(text);
    let v = p.patch_value()?;
    p.end()?;
    Ok(v)
}

/// What a document is read with a guide for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::doc) enum Guided {
    /// The original of an apply, with its patch as guide: what the patch
    /// does not reach is kept as text where that text is canonical (it is
    /// written out), the lists it merges into with their elements as text.
    Original,
    /// The live object of a three-way patch, with the desired object as
    /// guide: the lists and objects of an object that the desired one's
    /// object at the same place does not name are kept as text, canonical
    /// or not (checked all the same). The diff from the live object to the
    /// desired one ignores deletions and never looks at them; the check
    /// for conflicts, without `overwrite`, decodes what it looks into.
    Current,
}

/// The keys that the directives of `guide` name, sorted; `None` when it
/// holds `$patch`.
fn named_by_directives<'g>(guide: &'g Object<'_>) -> Option<Vec<&'g str>> {
    let mut named = Vec::new();
    for (k, _) in guide.iter() {
        if !k.starts_with('$') {
            continue;
        }
        if k == PATCH {
            return None;
        }
        if let Some((_, name)) = ListDirective::parse(k) {
            named.push(name);
        }
    }
    named.sort_unstable();
    Some(named)
}

/// The text of the member `name` of the object whose canonical text is
/// `text` (a [`Lazy`] one), found without decoding the object: its keys are
/// sorted, its values canonical.
pub(in crate::doc) fn member_text<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    member(text, name).map(|(_, value)| value)
}

/// [`member_text`] with the member's key, as the text holds it.
pub(in crate::doc) fn member<'a>(text: &'a str, name: &str) -> Option<(&'a str, &'a str)> {
    let mut p = Parser::scanner(text);
    if !p.closes(b'{') || p.closes(b'}') {
        return None;
    }
    loop {
        p.closes(b'"');
        let key = p.canonical_string()?;
        p.closes(b':');
        let start = p.pos;
        let order = key_order(key, name);
        if order.is_gt() || p.canonical().is_none() {
            return None;
        }
        if order.is_eq() {
            return Some((key, &text[start..p.pos]));
        }
        if !p.closes(b',') {
            return None;
        }
    }
}

impl<'a> Parser<'a> {
    /// The rest of an object whose opening brace was read, with `guide`,
    /// the guide's object at the same place, for `what`.
    pub(super) fn object_guided(&mut self, guide: &Object<'_>, what: Guided) -> Parsed<Object<'a>> {
        let Some(named) = named_by_directives(guide) else {
            return self.object();
        };
        let original = what == Guided::Original;
        self.object_of(|p, key| {
            p.skip_ws();
            match guide.get(key) {
                Some(Node::Object(sub)) if p.peek() == Some(b'{') => {
                    p.pos += 1;
                    p.object_guided(sub, what).map(Node::Object)
                }
                // A list the patch merges into: its elements are looked up
                // by key, and only those the patch names are merged.
                Some(Node::Array(_)) if original && p.peek() == Some(b'[') => p.list_of_kept(),
                Some(_) => p.value(),
                None if key.starts_with('$') => p.value(),
                None if named.binary_search(&key).is_ok() => match p.peek() {
                    Some(b'[') if original => p.list_of_kept(),
                    _ => p.value(),
                },
                None if original => p.kept_or_read(),
                None => p.kept_as_written(),
            }
        })
    }

    /// The value at the cursor: a list or an object kept as its text,
    /// checked but not looked at for canonical form (a live object is not
    /// written out), anything else read.
    fn kept_as_written(&mut self) -> Parsed<Node<'a>> {
        let start = self.pos;
        if !matches!(self.peek(), Some(b'{' | b'[')) {
            return self.value();
        }
        self.skip_value()?;
        Ok(Node::Raw(Lazy::as_written(&self.text[start..self.pos])))
    }

    /// Moves past the value at the cursor (from the whitespace before it),
    /// checked exactly as [`Parser::value`] reads it, within the nesting
    /// limit, but decoding nothing other than its numbers and escaped
    /// strings.
    fn skip_value(&mut self) -> Parsed<()> {
        let (close, object) = match self.next_token()? {
            b'{' => (b'}', true),
            b'[' => (b']', false),
            _ => {
                self.pos -= 1;
                return self.value().map(drop);
            }
        };
        self.open()?;
        self.skip_ws();
        if self.peek() == Some(close) {
            self.pos += 1;
        } else {
            loop {
                if object {
                    self.member_key()?;
                }
                self.skip_value()?;
                match self.next_token()? {
                    b',' => {}
                    c if c == close => break,
                    _ => return Err(Invalid),
                }
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// A value of a patch ([`parse_patch`]), from the whitespace before it.
    pub(super) fn patch_value(&mut self) -> Parsed<Node<'a>> {
        self.skip_ws();
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                self.patch_object().map(Node::Object)
            }
            Some(b'[') => {
                self.pos += 1;
                self.list_of(Self::patch_value)
            }
            _ => self.value(),
        }
    }

    /// The rest of an object of a patch whose opening brace was read.
    #[inline(never)]
    fn patch_object(&mut self) -> Parsed<Object<'a>> {
        self.object_of(|p, key| {
            p.skip_ws();
            if ListDirective::SetElementOrder.starts(key) && p.peek() == Some(b'[') {
                p.list_of_kept()
            } else {
                p.patch_value()
            }
        })
    }

    /// The list at the cursor, its elements that are lists or objects in
    /// canonical text kept as that text.
    fn list_of_kept(&mut self) -> Parsed<Node<'a>> {
        self.pos += 1;
        self.list_of(|p| {
            p.skip_ws();
            p.kept_or_read()
        })
    }

    /// The value at the cursor: a list or an object in canonical text kept
    /// as that text, anything else read.
    pub(super) fn kept_or_read(&mut self) -> Parsed<Node<'a>> {
        let start = self.pos;
        if matches!(self.peek(), Some(b'{' | b'[')) {
            if self.elements_as_text {
                if self.skip_short_canonical() {
                    return Ok(Node::Raw(Lazy::compared(&self.text[start..self.pos])));
                }
            } else if self.skip_canonical() {
                return Ok(Node::Raw(Lazy::new(&self.text[start..self.pos])));
            }
        }
        self.value()
    }

    /// Moves past the value at the cursor if its text is canonical: what
    /// the writer writes for the value it decodes to (no whitespace,
    /// strings without escapes, keys in increasing order and so each once,
    /// numbers only integers within `int64` other than `-0`), within the
    /// nesting limit. Otherwise the cursor stays where it was.
    pub(super) fn skip_canonical(&mut self) -> bool {
        let (start, depth) = (self.pos, self.depth);
        let canonical = self.canonical().is_some();
        if !canonical {
            (self.pos, self.depth) = (start, depth);
        }
        canonical
    }

    /// [`Parser::skip_canonical`] of a value whose text is at most
    /// [`SHORT_ELEMENT`] bytes long. A longer one is read: kept as text, it
    /// would be scanned again, whole, by each look into it.
    fn skip_short_canonical(&mut self) -> bool {
        let mut end = (self.pos + SHORT_ELEMENT).min(self.text.len());
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        // The text is cut short for the scan, and then restored.
        let (text, bytes) = (self.text, self.bytes);
        self.text = &text[..end];
        self.bytes = &bytes[..end];
        let canonical = self.skip_canonical();
        (self.text, self.bytes) = (text, bytes);
        canonical
    }

    fn canonical(&mut self) -> Option<()> {
        let b = self.peek()?;
        self.pos += 1;
        match b {
            b'"' => self.canonical_string().map(drop),
            b'{' => {
                self.open().ok()?;
                if !self.closes(b'}') {
                    let mut last: Option<&str> = None;
                    loop {
                        if !self.closes(b'"') {
                            return None;
                        }
                        let key = self.canonical_string()?;
                        if last.is_some_and(|last| key_order(last, key).is_ge()) || !self.closes(b':') {
                            return None;
                        }
                        last = Some(key);
                        self.canonical()?;
                        if !self.closes(b',') {
                            break;
                        }
                    }
                    self.closes(b'}').then_some(())?;
                }
                self.depth -= 1;
                Some(())
            }
            b'[' => {
                self.open().ok()?;
                if !self.closes(b']') {
                    loop {
                        self.canonical()?;
                        if !self.closes(b',') {
                            break;
                        }
                    }
                    self.closes(b']').then_some(())?;
                }
                self.depth -= 1;
                Some(())
            }
            b't' => self.closes_all(b"rue"),
            b'f' => self.closes_all(b"alse"),
            b'n' => self.closes_all(b"ull"),
            b'-' | b'0'..=b'9' => {
                self.pos -= 1;
                self.canonical_int()
            }
            _ => None,
        }
    }

    /// Moves past `b` if it is the byte at the cursor.
    fn closes(&mut self, b: u8) -> bool {
        let here = self.peek() == Some(b);
        self.pos += usize::from(here);
        here
    }

    fn closes_all(&mut self, rest: &[u8]) -> Option<()> {
        self.bytes[self.pos..].starts_with(rest).then(|| self.pos += rest.len())
    }

    /// The rest of a string without escapes whose opening quote was read.
    #[inline(always)]
    fn canonical_string(&mut self) -> Option<&'a str> {
        let start = self.pos;
        self.pos += plain_len(&self.bytes[self.pos..]);
        if self.peek() != Some(b'"') {
            return None;
        }
        // SAFETY: both ends are next to a quote, an ASCII byte: they are on
        // character boundaries of the text.
        let s = unsafe { self.text.get_unchecked(start..self.pos) };
        self.pos += 1;
        Some(s)
    }

    /// An integer within `int64`, written as it prints: no fraction, no
    /// exponent, not `-0`.
    fn canonical_int(&mut self) -> Option<()> {
        let negative = self.closes(b'-');
        let start = self.pos;
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return None,
        }
        if matches!(self.peek(), Some(b'.' | b'e' | b'E' | b'0'..=b'9')) {
            return None;
        }
        // `-0` reads as the integer 0, which prints as `0`.
        if negative && &self.bytes[start..self.pos] == b"0" {
            return None;
        }
        int64(&self.bytes[start..self.pos], negative).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Document;
    use crate::doc::compact::decode_guided;
    use proptest::prelude::*;

    fn text(n: &Node<'_>) -> String {
        let mut out = Vec::new();
        crate::doc::print::write_node(&mut out, n);
        String::from_utf8(out).unwrap()
    }

    fn skip(text: &str) -> Option<usize> {
        let mut p = Parser::new(text);
        p.skip_canonical().then_some(p.pos)
    }

    #[test]
    fn canonical_text_is_what_the_writer_writes() {
        for t in [r#"{}"#, "[]", r#"{"a":[1,-2,"x",true,false,null,{}],"b":{"c":9223372036854775807}}"#, r#"[{"":0}]"#]
        {
            assert_eq!(skip(t), Some(t.len()), "{t}");
        }
        for t in [
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a": 1}"#,
            "[1,2 ]",
            "[1.0]",
            "[1e3]",
            "[-0]",
            "[9223372036854775808]",
            r#"["a\nb"]"#,
            r#"["\u0041"]"#,
            "[01]",
            "[tru]",
            "[1,]",
            "{",
        ] {
            let mut p = Parser::new(t);
            assert!(!p.skip_canonical(), "{t}");
            assert_eq!(p.pos, 0, "the cursor stays: {t}");
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(skip(&deep(super::super::NESTING_LIMIT)).is_some());
        assert!(skip(&deep(super::super::NESTING_LIMIT + 1)).is_none());
    }

    #[test]
    fn what_the_patch_does_not_reach_is_kept_as_text() {
        let original = br#"{"a":{"x":[1,2],"y":{"z":1}},"b":[{"k":1}],"c":{"d":1},"e":{"f" : 1},"$retainKeys":["a"]}"#;
        let patch = crate::doc::compact::decode(br#"{"a":{"y":{"w":2}},"$setElementOrder/b":[]}"#).unwrap();
        let doc = decode_guided(original, Some(&patch)).unwrap();
        let raw = |n: Option<&Node<'_>>| matches!(n, Some(Node::Raw(_)));
        let a = doc.get("a").and_then(Node::as_object).unwrap();
        assert!(raw(a.get("x")), "untouched under a touched object");
        assert!(!raw(a.get("y")) && !raw(doc.get("a")), "touched");
        assert!(!raw(doc.get("b")), "named by a directive");
        let b = doc.get("b").and_then(Node::as_array).unwrap();
        assert!(matches!(b[0], Node::Raw(_)), "its elements are read by key only");
        assert!(raw(doc.get("c")));
        assert!(!raw(doc.get("e")), "not canonical text");
        assert!(!raw(doc.get("$retainKeys")), "the original's own directive");
        // Written as the whole document is read without a guide.
        let whole = crate::doc::compact::decode(original).unwrap();
        assert_eq!(text(&Node::Object(doc.clone())), text(&Node::Object(whole.clone())));
        assert_eq!(Node::Object(doc.clone()), Node::Object(whole.clone()));
        // A patch with `$patch` reads its object whole.
        let replace = crate::doc::compact::decode(br#"{"$patch":"replace"}"#).unwrap();
        let doc = decode_guided(original, Some(&replace)).unwrap();
        assert!(doc.iter().all(|(_, v)| !matches!(v, Node::Raw(_))));
    }

    #[test]
    fn a_patch_keeps_the_elements_of_its_order_lists_as_text() {
        let t = r#"{"a":[{"b":1}],"$setElementOrder/a":[{"name":"x"},{"name" : "y"},"s",[1],{"name":1.5}],
            "c":[{"$setElementOrder/d":[{"k":2}],"d":[{"k":2}]}],"e":{"\u0024setElementOrder/f":[{"k":1}]}}"#;
        let Ok(Node::Object(patch)) = parse_patch(t) else { panic!("an object") };
        let raw = |n: &Node<'_>| matches!(n, Node::Raw(_));
        let order = patch.get("$setElementOrder/a").and_then(Node::as_array).unwrap();
        let kept: Vec<bool> = order.iter().map(raw).collect();
        // Canonical lists and objects only: spaces and floats are read.
        assert_eq!(kept, [true, false, false, true, false]);
        assert!(!raw(&patch.get("a").and_then(Node::as_array).unwrap()[0]), "a patch list's own elements");
        let c = patch.get("c").and_then(Node::as_array).unwrap()[0].as_object().unwrap();
        assert!(raw(&c.get("$setElementOrder/d").and_then(Node::as_array).unwrap()[0]), "inside a patch list");
        let e = patch.get("e").and_then(Node::as_object).unwrap();
        assert!(raw(&e.get("$setElementOrder/f").and_then(Node::as_array).unwrap()[0]), "an escaped key");
        // The merge key is read from the text, and the value is the one
        // read whole.
        assert_eq!(order[0].field("name").value().and_then(|k| k.as_str()), Some("x"));
        let whole = super::super::parse(t).unwrap();
        assert_eq!(text(&Node::Object(patch.clone())), text(&whole));
        assert_eq!(Node::Object(patch), whole);
    }

    #[test]
    fn a_kept_value_decodes_itself_when_looked_into() {
        let original = br#"{"keep":{"list":[{"name":"a","v":1},{"name":"b"}],"n":-3}}"#;
        let patch = crate::doc::compact::decode(br#"{"other":1}"#).unwrap();
        let doc = decode_guided(original, Some(&patch)).unwrap();
        let kept = doc.get("keep").unwrap();
        assert!(matches!(kept, Node::Raw(_)));
        assert_eq!(kept.kind(), crate::value::GoKind::Object);
        let list = kept.as_object().and_then(|o| o.get("list")).and_then(Node::as_array).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(kept.to_json(), serde_json::json!({"list": [{"name": "a", "v": 1}, {"name": "b"}], "n": -3}));
        assert!(kept.deep_eq(&Node::from_json(kept.to_json())));
        assert!(kept.deep_eq(&kept.clone()));
        let whole = Node::Object(crate::doc::compact::decode(original).unwrap());
        assert!(Node::Object(doc.clone()).deep_eq(&whole));
        let Ok(object) = kept.clone().into_object() else { panic!("an object") };
        assert_eq!(object.len(), 2);
    }

    #[test]
    fn a_kept_objects_scalar_members_are_read_from_its_text() {
        let t = r#"{"$patch":"delete","a":{"b":1},"i":-12,"l":[1],"n":null,"name":"x","t":true,"z":false}"#;
        let text = format!(r#"{{"k":{t}}}"#);
        let doc = decode_guided(text.as_bytes(), Some(&Object::default())).unwrap();
        let kept = doc.get("k").unwrap();
        assert!(matches!(kept, Node::Raw(_)));
        let whole = Node::from_json(serde_json::from_str(t).unwrap());
        for name in ["$patch", "a", "i", "l", "n", "name", "t", "z", "missing", "", "zz", "$"] {
            let show = |f: crate::lists::key::Field<crate::lists::key::KeyValue<'_>>| match f {
                crate::lists::key::Field::Value(k) => format!("{:?}", k.to_value()),
                other => format!("{other:?}"),
            };
            assert_eq!(show(kept.field(name)), show(whole.field(name)), "{name}");
        }
        let list = decode_guided(br#"{"k":[{"a":1}]}"#, Some(&Object::default())).unwrap();
        assert!(matches!(list.get("k").unwrap().field("a"), crate::lists::key::Field::NotObject));
    }

    /// Random JSON values, as text written compact and sorted (mostly
    /// canonical) or with one of the changes that make text not canonical.
    fn json_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            (-1e6..1e6f64).prop_map(serde_json::Value::from),
            "[a-c\"\\\\\u{e9}\n]{0,3}".prop_map(serde_json::Value::String),
        ];
        let value = leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::Array),
                proptest::collection::vec(("[a-d]{0,2}", inner), 0..6)
                    .prop_map(|members| serde_json::Value::Object(members.into_iter().collect())),
            ]
        });
        let edits = prop_oneof![
            Just(None),
            Just(Some((",", ", "))),
            Just(Some((":", ": "))),
            Just(Some(("0", "-0"))),
            Just(Some(("1", "1.0"))),
            Just(Some((r#""a":"#, r#""z":1,"a":"#))),
            Just(Some((r#""b""#, r#""a""#))),
            Just(Some(("e", "\\u0065"))),
        ];
        (value, edits).prop_map(|(v, edit)| {
            let text = serde_json::to_string(&v).unwrap();
            match edit {
                Some((from, to)) => text.replacen(from, to, 1),
                None => text,
            }
        })
    }

    fn has_float(n: &Node<'_>) -> bool {
        match n {
            Node::Float(_) => true,
            Node::Array(a) => a.iter().any(has_float),
            Node::Object(o) => o.iter().any(|(_, v)| has_float(v)),
            _ => false,
        }
    }

    fn parse_current<'a>(text: &'a str, guide: &Object<'_>) -> Parsed<Node<'a>> {
        parse_guided(text, guide, Guided::Current)
    }

    #[test]
    fn what_the_desired_object_does_not_name_is_kept_as_text() {
        let current = r#"{"spec": {"b": [1, 2], "a": 1}, "status": {"z": [{"k": 1.5}], "y": "s"},
            "metadata": {"managed": [{"f": {"g": 1}}], "labels": {"x": "1"}}, "$retainKeys": ["a"], "n": null}"#;
        let modified = crate::doc::compact::decode(br#"{"spec": {"a": 2}, "metadata": {"labels": {}}}"#).unwrap();
        let Ok(Node::Object(doc)) = parse_current(current, &modified) else { panic!("an object") };
        let raw = |n: Option<&Node<'_>>| matches!(n, Some(Node::Raw(_)));
        assert!(raw(doc.get("status")), "not named, not canonical: kept");
        assert!(!raw(doc.get("spec")) && !raw(doc.get("$retainKeys")), "named; a directive");
        let spec = doc.get("spec").and_then(Node::as_object).unwrap();
        assert!(raw(spec.get("b")), "below a named object");
        let metadata = doc.get("metadata").and_then(Node::as_object).unwrap();
        assert!(raw(metadata.get("managed")) && !raw(metadata.get("labels")));
        // The same value as a whole reading, written alike.
        let whole = super::super::parse(current).unwrap();
        assert_eq!(text(&Node::Object(doc.clone())), text(&whole));
        assert!(Node::Object(doc.clone()).deep_eq(&whole) && whole.deep_eq(&Node::Object(doc.clone())));
        let status = doc.get("status").unwrap();
        assert_eq!(status.kind(), crate::value::GoKind::Object);
        assert_eq!(status.field("y").value().and_then(|k| k.as_str()), Some("s"));
        assert_eq!(status.to_json(), serde_json::json!({"z": [{"k": 1.5}], "y": "s"}));
        // A text that differs but reads alike is the same value.
        let other = parse_current(r#"{"status": {"y": "s", "z": [{"k": 15e-1}]}}"#, &Object::default()).unwrap();
        assert!(other.as_object().and_then(|o| o.get("status")).unwrap().deep_eq(status));
        // Text that is kept is still checked whole.
        for bad in [
            r#"{"status": {"a": [1, }}"#,
            r#"{"status": {"a": 01}}"#,
            r#"{"status": {"a": "\x"}}"#,
            r#"{"status": {"a": 1e999}}"#,
        ] {
            assert!(parse_current(bad, &Object::default()).is_err(), "{bad}");
            assert!(super::super::parse(bad).is_err(), "{bad}");
        }
        let deep = |n: usize| format!(r#"{{"status": {}{}}}"#, "[".repeat(n), "]".repeat(n));
        assert!(parse_current(&deep(super::super::NESTING_LIMIT - 1), &Object::default()).is_ok());
        assert!(parse_current(&deep(super::super::NESTING_LIMIT), &Object::default()).is_err());
        assert!(super::super::parse(&deep(super::super::NESTING_LIMIT)).is_err());
    }

    proptest! {
        /// A live object read with a desired one as guide is the value read
        /// whole, compared and written alike; errors alike.
        #[test]
        fn a_guided_live_object_is_the_whole_one(t in json_text(), g in json_text()) {
            let guide = match super::super::parse(&g) {
                Ok(Node::Object(o)) => o,
                _ => Object::default(),
            };
            let t = format!(r#"{{"a": {t}, "b": {{"c": {t}}}}}"#);
            let (kept, whole) = (parse_current(&t, &guide), super::super::parse(&t));
            prop_assert_eq!(kept.is_ok(), whole.is_ok());
            if let (Ok(kept), Ok(whole)) = (kept, whole) {
                prop_assert_eq!(text(&kept), text(&whole));
                prop_assert!(kept.deep_eq(&whole) && whole.deep_eq(&kept));
                prop_assert_eq!(kept.to_json(), whole.to_json());
            }
        }

        /// A document of a diff, whose long lists keep their elements as
        /// text, is the value read whole: compared, written, looked into
        /// (keys picked, fields read) alike; errors alike. The lists hold
        /// the random texts among elements of their own, more than a diff
        /// reads before keeping, and one of them longer than is kept.
        #[test]
        fn a_compared_document_is_the_whole_one(t in json_text(), u in json_text(), at in 0usize..80) {
            let long = format!(r#"{{"name":"{}","value":{t}}}"#, "x".repeat(super::SHORT_ELEMENT));
            let mut elements: Vec<String> =
                (0..80).map(|i| format!(r#"{{"name":"e{}","value":{}}}"#, i % 70, [&u, "1", &t][i % 3])).collect();
            elements[at] = t.clone();
            elements[(at + 40) % 80] = long;
            let list = format!("[{}]", elements.join(","));
            let doc = format!(r#"{{"a": {list}, "b": [{list}, {t}], "c": {{"d": {list}}}}}"#);
            let (compared, whole) = (super::super::parse_compared(&doc), super::super::parse(&doc));
            prop_assert_eq!(compared.is_ok(), whole.is_ok());
            let (Ok(compared), Ok(whole)) = (compared, whole) else { return Ok(()) };
            // Written through serde (the command line's formats) before
            // anything decodes the kept elements, and again after.
            let serialized = serde_json::to_string(&compared).unwrap();
            prop_assert_eq!(&serialized, &serde_json::to_string(&whole).unwrap());
            // Looked into first: comparing with decoded values decodes them.
            let (kept, read) = (compared.as_object().unwrap(), whole.as_object().unwrap());
            let (kept, read) = (kept.get("a").unwrap().as_array().unwrap(), read.get("a").unwrap().as_array().unwrap());
            prop_assert!(kept.iter().any(|e| matches!(e, Node::Raw(_))), "long lists keep elements");
            for (i, (k, r)) in kept.iter().zip(read).enumerate() {
                let keys: &[&str] = &["value", "name", "name", "zz", ""];
                prop_assert_eq!(text(&Node::Object(k.pick(keys))), text(&Node::Object(r.pick(keys))));
                for name in keys {
                    prop_assert_eq!(format!("{:?}", k.field(name).value().map(|v| v.to_value())),
                        format!("{:?}", r.field(name).value().map(|v| v.to_value())));
                }
                for (j, other) in kept.iter().enumerate() {
                    if k.same_at_a_glance(other) {
                        prop_assert!(r.deep_eq(&read[j]), "{} and {} are not equal", i, j);
                    }
                }
            }
            prop_assert_eq!(text(&compared), text(&whole));
            prop_assert!(compared.deep_eq(&whole) && whole.deep_eq(&compared));
            prop_assert_eq!(compared.to_json(), whole.to_json());
            prop_assert_eq!(serde_json::to_string(&compared).unwrap(), serialized);
        }

        /// Text taken as canonical is exactly what the writer writes for the
        /// value it reads as; and what the writer writes (integers and
        /// strings without escapes) is taken as canonical.
        #[test]
        fn canonical_means_written_as_is(t in json_text()) {
            let Ok(node) = super::super::parse(&t) else { return Ok(()) };
            let written = text(&node);
            if matches!(node, Node::Array(_) | Node::Object(_)) {
                match skip(&t) {
                    Some(end) => {
                        prop_assert_eq!(end, t.len());
                        prop_assert_eq!(&written, &t);
                    }
                    // Floats and escapes are never taken as canonical.
                    None => prop_assert!(written != t || written.contains('\\') || has_float(&node), "refused {}", t),
                }
            }
        }
    }
}
