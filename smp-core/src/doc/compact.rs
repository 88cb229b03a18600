//! The compact document: JSON decoded for one patch operation, from text
//! to text, with as little allocation as that allows.
//!
//! - Strings and keys are borrowed from the input text wherever they need
//!   no unescaping (almost always); only escaped ones are copied, except
//!   long strings whose escapes are the writer's own, kept as their text
//!   ([`Node::Raw`]) until something looks into them.
//! - An object is one vector of members kept sorted by key (the order in
//!   which the reference writes them), searched by bisection: no tree of
//!   nodes, no owned key per member.
//! - Numbers are decoded as the reference decodes them: an integer that
//!   fits an `int64` is one, everything else a `float64`; they print as
//!   `serde_json::Value` numbers print (the bytes path's writer).
//!
//! Text is read by the document's own reader (`doc::parse`),
//! which accepts what serde_json accepts and decodes what the `Value` path
//! decodes, and written by its own writer (`doc::print`), byte
//! for byte serde_json's compact writer with Go's floats. (The `Serialize`
//! impl, with the engine's operations on the document in `ops`, is that
//! writer through serde, for the command line's output formats.)
//!
//! Why this rather than a fast JSON crate's document: simd-json's borrowed
//! values need a mutable copy of the input (it unescapes in place) and
//! keep objects as hash maps in input order; sonic-rs's documents keep
//! input order too; either way every object would still need sorting for
//! lookups and output, numbers re-decoded as the reference decodes them
//! (`int64` or `float64`), and the output writing through our Go float
//! writer. serde_json's `RawValue` only defers parsing, which the engine
//! needs on nearly every object it visits. Reading JSON straight into
//! borrowed strings and sorted vectors takes one pass and one allocation
//! per object or list; driving serde_json's parser through serde's visitor
//! into the same document took more instructions (counted with callgrind;
//! the figure is in `docs/performance.md`).

use super::member::{Field, KeyValue};
use super::parse::Guided;
use super::{key_order, same_bytes};
use crate::error::{ErrorKind, Result};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::cell::Cell;

#[cfg(feature = "bytes")]
mod ops;

/// A JSON value borrowing its strings from the text it was decoded from.
#[derive(Clone, Debug, Default)]
pub enum Node<'a> {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits an `int64`.
    Int(i64),
    /// Any other number.
    Float(f64),
    /// A string. Only the reader borrows strings, and only those written
    /// without escapes (so that the writer copies them as they are).
    Str(Cow<'a, str>),
    /// A list.
    Array(Vec<Node<'a>>),
    /// An object.
    Object(Object<'a>),
    /// A list or an object still as its text: what the original of an
    /// apply holds where the patch does not reach; or a long string whose
    /// escapes are the writer's own, as the reader leaves it.
    Raw(Lazy<'a>),
}

/// A list, an object or a string kept as its text, checked to be valid
/// JSON within the nesting limit, decoded the first time anything looks
/// into it.
///
/// Mostly the text is canonical: what the writer writes for the value it
/// decodes to, so it is written as it is, and two such texts are equal
/// exactly when their values are. The original of an apply keeps the
/// parts its patch does not touch so: they cost neither decoding nor
/// memory beyond the text. Long strings with escapes are kept so wherever
/// they are read (kubectl's last-applied annotation, files in a
/// ConfigMap): a diff or a merge mostly only carries them over. The
/// documents of a diff keep the elements of long lists so: a keyed diff
/// reads their keys from the text and compares equal ones as text.
///
/// The live object of a three-way patch keeps the lists and objects that
/// the desired one does not name, whatever their text: with `overwrite`,
/// the reference never looks into them.
pub struct Lazy<'a> {
    text: &'a str,
    /// The decoded value, once something looked into it: a `Box<Node<'a>>`
    /// turned into a pointer without its type. (A cell of the box would
    /// make `Node` invariant in `'a`, and documents of two texts could no
    /// longer meet in one operation.) The two low bits of its address are
    /// flags ([`NOT_CANONICAL`], [`ELEMENTS_AS_TEXT`]): a box's address is
    /// a multiple of 8, and without a word of its own for the flags, a
    /// `Node` takes 32 bytes instead of 40.
    decoded: Cell<*const ()>,
}

/// The bit of [`Lazy::decoded`]'s address that says the text is not
/// canonical.
const NOT_CANONICAL: usize = 1;

/// The bit of [`Lazy::decoded`]'s address that says the value decodes as
/// a document of a diff does (`Reading::Compared`): the elements of its
/// lists kept as text again.
const ELEMENTS_AS_TEXT: usize = 2;

/// Both flags.
const FLAGS: usize = NOT_CANONICAL | ELEMENTS_AS_TEXT;

// The flags live in the low bits of a box's address.
const _: () = assert!(std::mem::align_of::<Node<'static>>() > FLAGS);

// Documents are mostly nodes: four words each, kept so by the flag's
// place above. (The compiler then tells a node's kind from an object's
// capacity word: a few instructions more per look, for less memory on
// large documents; `docs/performance.md` has the measurements.)
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Node<'static>>() == 32);

impl<'a> Lazy<'a> {
    /// `text` must be canonical JSON of a list, an object
    /// (`Parser::skip_canonical` says so) or a string
    /// (`Parser::canonical_escapes_end`).
    pub(super) fn new(text: &'a str) -> Self {
        Lazy { text, decoded: Cell::new(std::ptr::null()) }
    }

    /// [`Lazy::new`], decoding as a document of a diff is read (the
    /// elements of its lists kept as text where canonical).
    pub(super) fn compared(text: &'a str) -> Self {
        Lazy { text, decoded: Cell::new(std::ptr::without_provenance(ELEMENTS_AS_TEXT)) }
    }

    /// `text` must be valid JSON of a list or an object within the nesting
    /// limit (`Parser::skip_value` says so); it is written once decoded.
    pub(super) fn as_written(text: &'a str) -> Self {
        Lazy { text, decoded: Cell::new(std::ptr::without_provenance(NOT_CANONICAL)) }
    }

    /// Whether the text is what the writer writes for the value.
    fn is_canonical(&self) -> bool {
        self.decoded.get().addr() & NOT_CANONICAL == 0
    }

    /// The decoded value's box, or null.
    fn node(&self) -> *mut Node<'a> {
        self.decoded.get().map_addr(|a| a & !FLAGS).cast::<Node<'a>>().cast_mut()
    }

    /// Sets the decoded value's box (or null), keeping the flag.
    fn set_node(&self, node: *mut Node<'a>) {
        let flag = self.decoded.get().addr() & FLAGS;
        self.decoded.set(node.cast_const().cast::<()>().map_addr(|a| a | flag));
    }

    /// The text, when it is what the writer writes for the value.
    pub(super) fn canonical_text(&self) -> Option<&'a str> {
        self.is_canonical().then_some(self.text)
    }

    fn decode(&self) -> Node<'a> {
        // Canonical text always reads back (it was checked to be valid
        // JSON within the nesting limit when it was kept). A string is read
        // decoded, not kept as text again.
        if self.text.starts_with('"') {
            super::parse::parse_string(self.text)
        } else if self.decoded.get().addr() & ELEMENTS_AS_TEXT != 0 {
            super::parse::parse_compared(self.text)
        } else {
            super::parse::parse(self.text)
        }
        .unwrap_or_default()
    }

    #[cold]
    fn decoded(&self) -> &Node<'a> {
        let mut node = self.node();
        if node.is_null() {
            node = Box::into_raw(Box::new(self.decode()));
            self.set_node(node);
        }
        // SAFETY: the pointer is a box this value owns, set once and freed
        // only when the value is dropped or given away (`into_decoded`),
        // which no shared borrow outlives. The node is decoded from
        // `self.text` alone, so whatever `'a` this value is seen with
        // (`Lazy` is covariant), what the node borrows lives as long as the
        // text does.
        unsafe { &*node }
    }

    /// [`Document::field`]: a scalar member (a merge key, `$patch`) is read
    /// from the text, without decoding the object (a keyed list whose
    /// elements a patch does not reach is merged reading their keys only).
    fn field(&self, name: &str) -> Field<KeyValue<'_>> {
        if !self.text.starts_with('{') {
            return Field::NotObject;
        }
        if !self.is_canonical() {
            return self.decoded_field(name);
        }
        let Some(value) = super::parse::member_text(self.text, name) else {
            return Field::Missing;
        };
        Field::Value(match value.as_bytes()[0] {
            // Canonical: without escapes, an integer within `int64`.
            b'"' => KeyValue::Str(&value[1..value.len() - 1]),
            b't' => KeyValue::Bool(true),
            b'f' => KeyValue::Bool(false),
            b'n' => KeyValue::Null,
            b'{' | b'[' => return self.decoded_field(name),
            _ => match value.parse() {
                Ok(i) => KeyValue::Int(i),
                Err(_) => return self.decoded_field(name),
            },
        })
    }

    /// [`Document::pick`] of an object in canonical text, read from the
    /// text: each member's own text is canonical, scalars read as they
    /// are, lists and objects kept as text.
    fn pick(&self, keys: &[&str]) -> Object<'a> {
        let mut members: Vec<Member<'a>> = Vec::with_capacity(keys.len());
        for &key in keys {
            if members.iter().any(|(kept, _)| kept == key) {
                continue;
            }
            let Some((key, value)) = super::parse::member(self.text, key) else { continue };
            let node = match value.as_bytes()[0] {
                // Canonical too, and read as this value reads.
                b'{' | b'[' if self.decoded.get().addr() & ELEMENTS_AS_TEXT != 0 => Node::Raw(Lazy::compared(value)),
                b'{' | b'[' => Node::Raw(Lazy::new(value)),
                // Canonical: without escapes.
                b'"' => Node::Str(Cow::Borrowed(&value[1..value.len() - 1])),
                _ => super::parse::parse(value).unwrap_or_default(),
            };
            members.push((Cow::Borrowed(key), Some(node)));
        }
        sort_members(&mut members);
        Object { sorted: members.len(), members }
    }

    #[cold]
    fn decoded_field(&self, name: &str) -> Field<KeyValue<'_>> {
        match self.decoded() {
            Node::Object(o) => o.get(name).map_or(Field::Missing, |v| Field::Value(v.member())),
            _ => Field::NotObject,
        }
    }

    /// The object, decoded with `patch` as guide (the value has not been
    /// decoded yet) as the original it is merged into.
    fn into_decoded_for(self, patch: &Object<'_>) -> Object<'a> {
        if self.node().is_null()
            && let Ok(Node::Object(o)) = super::parse::parse_guided(self.text, patch, Guided::Original)
        {
            return o;
        }
        match self.into_decoded() {
            Node::Object(o) => o,
            // The caller saw an object's text.
            _ => Object::default(),
        }
    }

    #[cold]
    fn into_decoded(self) -> Node<'a> {
        let node = self.node();
        self.set_node(std::ptr::null_mut());
        if node.is_null() {
            self.decode()
        } else {
            // SAFETY: a box this value owned (see `decoded`), taken out of
            // it above, so that dropping the value does not free it.
            *unsafe { Box::from_raw(node) }
        }
    }
}

impl Drop for Lazy<'_> {
    fn drop(&mut self) {
        let node = self.node();
        if !node.is_null() {
            // SAFETY: a box this value owns (see `decoded`).
            drop(unsafe { Box::from_raw(node) });
        }
    }
}

impl Clone for Lazy<'_> {
    fn clone(&self) -> Self {
        let flag = self.decoded.get().addr() & FLAGS;
        Lazy { text: self.text, decoded: Cell::new(std::ptr::without_provenance(flag)) }
    }
}

impl std::fmt::Debug for Lazy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Lazy").field(&self.text).finish()
    }
}

// SAFETY: the value owns what its pointer points to, as a `Box` would
// (`Node` is `Send`); the pointer is not shared with any other value.
unsafe impl Send for Lazy<'_> {}

impl<'a> Node<'a> {
    /// The value, decoded if it was kept as text.
    pub(super) fn decoded(&self) -> &Node<'a> {
        match self {
            Node::Raw(lazy) => lazy.decoded(),
            other => other,
        }
    }

    /// The value as a merge key or a set member
    /// ([`Document::as_member`](crate::doc::Document::as_member)).
    pub(crate) fn member(&self) -> KeyValue<'_> {
        match self {
            Node::Null => KeyValue::Null,
            Node::Bool(b) => KeyValue::Bool(*b),
            Node::Int(i) => KeyValue::Int(*i),
            Node::Float(f) => KeyValue::Float(*f),
            Node::Str(s) => KeyValue::Str(s),
            Node::Array(_) | Node::Object(_) => KeyValue::Compact(self),
            // Decoded: a key is told from its node's kind.
            Node::Raw(lazy) => lazy.decoded().member(),
        }
    }

    /// The value as JSON ([`Document::to_json`](crate::doc::Document::to_json)).
    pub(crate) fn json(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Int(i) => Value::from(*i),
            Node::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Node::Str(s) => Value::String(s.to_string()),
            Node::Array(a) => Value::Array(a.iter().map(Node::json).collect()),
            Node::Object(o) => Value::Object(o.json_map()),
            Node::Raw(lazy) => lazy.decoded().json(),
        }
    }

    /// The string, when the value is one (decoded if it was kept as text).
    pub fn as_str(&self) -> Option<&str> {
        match self.decoded() {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl PartialEq for Node<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.decoded(), other.decoded()) {
            (Node::Null, Node::Null) => true,
            (Node::Bool(a), Node::Bool(b)) => a == b,
            (Node::Int(a), Node::Int(b)) => a == b,
            (Node::Float(a), Node::Float(b)) => a == b,
            (Node::Str(a), Node::Str(b)) => a == b,
            (Node::Array(a), Node::Array(b)) => a == b,
            (Node::Object(a), Node::Object(b)) => a == b,
            _ => false,
        }
    }
}

/// An object: members sorted by key, in two sorted runs (the decoded
/// members, then members added in increasing key order, as a patch adds
/// them), so that adding keeps the cost of a merge linear. A removed
/// member leaves an empty slot until the object is printed or sorted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object<'a> {
    members: Vec<Member<'a>>,
    /// Members `..sorted` are one sorted run, `sorted..` another.
    sorted: usize,
}

/// Runs of members up to this long are searched by a scan, longer ones by
/// bisection.
const SHORT_OBJECT: usize = 8;

impl<'a> Object<'a> {
    /// The member `key`.
    pub(super) fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.position(key).and_then(|i| self.members[i].1.as_ref())
    }

    fn position(&self, key: &str) -> Option<usize> {
        let (head, tail) = self.members.split_at(self.sorted);
        let find = |run: &[(Cow<'_, str>, _)]| {
            if run.len() <= SHORT_OBJECT {
                // Most objects are short: a scan that compares only keys of
                // the same length costs less than bisection's comparisons.
                run.iter().position(|(k, _)| k.len() == key.len() && same_bytes(k.as_bytes(), key.as_bytes()))
            } else {
                run.binary_search_by(|(k, _)| k.as_ref().cmp(key)).ok()
            }
        };
        find(head).or_else(|| find(tail).map(|i| i + self.sorted))
    }

    /// Makes the two runs one.
    fn merge_runs(&mut self) {
        // A stable sort of two sorted runs is one linear merge.
        sort_members(&mut self.members);
        self.sorted = self.members.len();
    }

    /// The members, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Node<'a>)> {
        let (head, tail) = self.members.split_at(self.sorted);
        MergeRuns { head, tail }.filter_map(|(k, v)| v.as_ref().map(|v| (k.as_ref(), v)))
    }

    /// The members with their keys as stored, in key order (for the
    /// writer: a borrowed key is text as the reader found it).
    pub(super) fn entries(&self) -> impl Iterator<Item = (&Cow<'a, str>, &Node<'a>)> {
        let (head, tail) = self.members.split_at(self.sorted);
        MergeRuns { head, tail }.filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
    }

    /// The members when they are one sorted run (removed ones as `None`):
    /// as the reader leaves an object, and most objects are written.
    pub(super) fn one_run(&self) -> Option<&[Member<'a>]> {
        (self.sorted == self.members.len()).then_some(&self.members[..])
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.iter().filter(|(_, v)| v.is_some()).count()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The object as a JSON object.
    pub(crate) fn json_map(&self) -> Map<String, Value> {
        super::json_map(self.iter().map(|(k, v)| (k.to_string(), v.json())).collect())
    }

    /// The object of decoded members (in any order, the last of equal keys
    /// winning, as in the reference's decoder).
    pub(super) fn from_members(mut members: Vec<(Cow<'a, str>, Option<Node<'a>>)>) -> Self {
        if !members.is_sorted_by(|a, b| key_order(&a.0, &b.0).is_lt()) {
            // A stable sort keeps equal keys in the order written: the last
            // of each run wins.
            sort_members(&mut members);
            let same =
                |a: &Member<'_>, b: &Member<'_>| a.0.len() == b.0.len() && same_bytes(a.0.as_bytes(), b.0.as_bytes());
            if members.windows(2).any(|w| same(&w[0], &w[1])) {
                // `dedup` keeps the first of a run: it takes each later one's value.
                members.dedup_by(|later, kept| {
                    let dup = same(later, kept);
                    if dup {
                        std::mem::swap(later, kept);
                    }
                    dup
                });
            }
        }
        let sorted = members.len();
        Object { members, sorted }
    }
}

/// Sorts members by key, stably (equal keys stay in the order written).
fn sort_members(members: &mut [Member<'_>]) {
    members.sort_by(|a, b| key_order(&a.0, &b.0));
}

/// The members of two sorted runs, in order.
struct MergeRuns<'r, 'a> {
    head: &'r [Member<'a>],
    tail: &'r [Member<'a>],
}

impl<'r, 'a> Iterator for MergeRuns<'r, 'a> {
    type Item = &'r Member<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let from_tail = match (self.head.first(), self.tail.first()) {
            (Some(h), Some(t)) => t.0 < h.0,
            (Some(_), None) => false,
            (None, _) => true,
        };
        let run = if from_tail { &mut self.tail } else { &mut self.head };
        let (first, rest) = run.split_first()?;
        *run = rest;
        Some(first)
    }
}

/// A number as the reference decodes it: beyond `int64`, a `float64`.
fn number<'a>(n: &Number) -> Node<'a> {
    match n.as_i64() {
        Some(i) => Node::Int(i),
        None => Node::Float(n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Decodes UTF-8 text (anything else is refused: the bytes entry points
/// first read such text as the reference does, [`crate::text`]) as
/// [`decode`](crate::decode) does (a JSON object;
/// `null` and empty text count as `{}`; anything else is `invalid JSON
/// document`), nested no deeper than serde_json allows (127 levels, below
/// [`MAX_DEPTH`](crate::MAX_DEPTH)).
pub fn decode(text: &[u8]) -> Result<Object<'_>> {
    // Not through `decode_as`, so that without the bytes entry points the
    // other readings are not compiled.
    read(text, super::parse::parse)
}

/// [`decode`] of the original of an apply, with its patch as `guide`: the
/// lists and objects the patch does not reach are kept as their text
/// ([`Node::Raw`]) where that text is canonical.
pub fn decode_guided<'t>(text: &'t [u8], guide: Option<&Object<'_>>) -> Result<Object<'t>> {
    decode_as(text, guide.map_or(Reading::Whole, Reading::OriginalOf))
}

/// How [`decode_as`] reads a text. Whatever it keeps as text ([`Node::Raw`])
/// decodes itself when looked into: the reading changes what an operation
/// costs, never its result.
#[derive(Clone, Copy, Debug)]
pub enum Reading<'g, 'p> {
    /// Every value decoded.
    Whole,
    /// A document of a diff: the elements of lists that are lists or
    /// objects in canonical text are kept as that text.
    Compared,
    /// The patch of an apply: the elements of its `$setElementOrder` lists
    /// kept as text (the merge reads their merge keys only).
    Patch,
    /// The original of an apply, with its patch as guide ([`decode_guided`]).
    OriginalOf(&'g Object<'p>),
    /// The live object of a three-way patch, with the desired object as
    /// guide: the lists and objects the desired one does not name are kept
    /// as text, checked but not decoded, whatever their text (with
    /// `overwrite`, the reference never looks into them; without, they
    /// decode themselves when the check of what changed looks).
    CurrentOf(&'g Object<'p>),
}

/// [`decode`], reading the text as `reading` says.
pub fn decode_as<'t>(text: &'t [u8], reading: Reading<'_, '_>) -> Result<Object<'t>> {
    read(text, |text| match reading {
        Reading::Whole => super::parse::parse(text),
        Reading::Compared => super::parse::parse_compared(text),
        Reading::Patch => super::parse::parse_patch(text),
        Reading::OriginalOf(guide) => super::parse::parse_guided(text, guide, Guided::Original),
        Reading::CurrentOf(guide) => super::parse::parse_guided(text, guide, Guided::Current),
    })
}

/// [`decode_as`], reading the text with `parse`.
fn read<'t>(text: &'t [u8], parse: impl FnOnce(&'t str) -> super::parse::Parsed<Node<'t>>) -> Result<Object<'t>> {
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(Object::default());
    }
    // UTF-8 is checked once for the whole text (invalid bytes anywhere are
    // an error either way), then the parser needs not check each string.
    let text = std::str::from_utf8(text).map_err(|_| ErrorKind::InvalidJsonDocument)?;
    match parse(text) {
        Ok(Node::Object(o)) => Ok(o),
        Ok(Node::Null) => Ok(Object::default()),
        _ => Err(ErrorKind::InvalidJsonDocument.into()),
    }
}

/// One member of an object (`None`: removed).
pub(super) type Member<'a> = (Cow<'a, str>, Option<Node<'a>>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{Document, Object as _};
    use crate::value::deep_eq;
    use serde_json::json;

    fn text(o: &Object<'_>) -> String {
        String::from_utf8(crate::bytes::write::to_json_vec(o).unwrap()).unwrap()
    }

    #[test]
    fn decodes_and_prints_as_the_value_path() {
        let inputs: [&[u8]; 7] = [
            br#"{"b": [1, 1.0, -0, 1e21, 18446744073709551615, 1.5e-7], "a": "x\"\u00e9<&>", "c\n": {}}"#,
            br#"{"z": 1, "a": 2, "z": 3, "m": {"y": null, "x": [true, false, null]}}"#,
            br#"{"k": "v", "k": "w"}"#,
            b"  ",
            b"null",
            br#"{"\u0061": 1, "a": 2}"#,
            br#"{"big": -9223372036854775808, "bigger": 9223372036854775808}"#,
        ];
        for t in inputs {
            let want = crate::bytes::write::to_json_vec(&crate::decode(t).unwrap()).unwrap();
            let got = crate::bytes::write::to_json_vec(&decode(t).unwrap()).unwrap();
            assert_eq!(String::from_utf8(got).unwrap(), String::from_utf8(want).unwrap());
        }
        for bad in [&b"[1]"[..], b"1", b"{", br#"{"a": 1} x"#, b"\"s\"", b"{\"a\": 1}\xff"] {
            assert_eq!(decode(bad).unwrap_err().to_string(), "invalid JSON document");
            assert_eq!(crate::decode(bad).unwrap_err().to_string(), "invalid JSON document");
        }
        // Text that is not UTF-8 is refused here; the bytes entry points
        // first read it as the reference does, as `crate::decode` does.
        for not_utf8 in [&b"{\"a\": \"\xff\"}"[..], b"{\"\xc3\": 1}"] {
            assert_eq!(decode(not_utf8).unwrap_err().to_string(), "invalid JSON document");
            let fixed = crate::text::utf8_as_go_reads(not_utf8);
            let want = crate::bytes::write::to_json_vec(&crate::decode(not_utf8).unwrap()).unwrap();
            assert_eq!(crate::bytes::write::to_json_vec(&decode(fixed.as_bytes()).unwrap()).unwrap(), want);
        }
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let o = decode(br#"{"plain": "text", "esc\"aped": "a\nb"}"#).unwrap();
        let borrowed = |c: &Cow<'_, str>| matches!(c, Cow::Borrowed(_));
        let members: Vec<_> = o.members.iter().map(|(k, v)| (borrowed(k), v.clone())).collect();
        assert!(!members[0].0); // `esc"aped` sorts first
        assert!(members[1].0);
        assert!(matches!(members[1].1, Some(Node::Str(Cow::Borrowed("text")))));
    }

    #[test]
    fn members_added_out_of_order_print_sorted() {
        let mut o = decode(br#"{"b": 1, "d": 2, "f": 3}"#).unwrap();
        for k in ["a", "c", "g", "e", "h"] {
            o.insert(k, Node::Int(0));
        }
        o.insert("d", Node::Int(9));
        assert_eq!(o.remove("f"), Some(Node::Int(3)));
        assert_eq!(o.remove("f"), None);
        o.insert("f", Node::Bool(true));
        assert_eq!(o.remove("b"), Some(Node::Int(1)));
        assert_eq!(text(&o), r#"{"a":0,"c":0,"d":9,"e":0,"f":true,"g":0,"h":0}"#);
        assert_eq!(o.get("e"), Some(&Node::Int(0)));
        assert_eq!(o.get("b"), None);
        assert_eq!(o.len(), 7);
        o.retain_keys(|k| k < "e");
        assert_eq!(text(&o), r#"{"a":0,"c":0,"d":9}"#);
    }

    #[test]
    fn converts_to_and_from_json() {
        let v = json!({"a": [1, 1.5, "s", null, {"b": false}], "c": {"d": -1}});
        let node = Node::from_json(v.clone());
        assert_eq!(node.to_json(), v);
        assert!(deep_eq(&node.to_json(), &v));
        assert_eq!(node.clone().into_json(), v);
        assert_eq!(node.field("c").value().map(|k| k.text().into_owned()), Some("map[d:-1]".to_string()));
    }

    /// Object operations as the engine uses them, against a `BTreeMap`.
    #[derive(Clone, Debug)]
    enum Op {
        Insert(u8, i64),
        Remove(u8),
        Get(u8),
        Retain(u8),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            (0u8..40, any::<i64>()).prop_map(|(k, v)| Op::Insert(k, v)),
            (0u8..40).prop_map(Op::Remove),
            (0u8..40).prop_map(Op::Get),
            (0u8..40).prop_map(Op::Retain),
        ]
    }

    fn json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            "[a-c\\\"\u{e9}\n]{0,3}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec(("[a-d\"]{0,2}", inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// The comparisons of keys without `memcmp` agree with the bytes'.
        #[test]
        fn keys_compare_as_their_bytes(a in "[ab\u{e9}]{0,20}", b in "[ab\u{e9}]{0,20}") {
            proptest::prop_assert_eq!(key_order(&a, &b), a.as_bytes().cmp(b.as_bytes()));
            if a.len() == b.len() {
                proptest::prop_assert_eq!(same_bytes(a.as_bytes(), b.as_bytes()), a == b);
            }
        }

        /// `reflect.DeepEqual` on compact documents is the `Value` path's.
        #[test]
        fn deep_equality_is_the_value_paths(a in json(), b in json(), same in proptest::prelude::any::<bool>()) {
            let b = if same { a.clone() } else { b };
            let (x, y) = (Node::from_json(a.clone()), Node::from_json(b.clone()));
            proptest::prop_assert_eq!(x.deep_eq(&y), deep_eq(&a, &b));
            proptest::prop_assert!(x.deep_eq(&x.clone()));
        }

        #[test]
        fn objects_behave_as_sorted_maps(
            start in proptest::collection::btree_map(0u8..40, proptest::prelude::any::<i64>(), 0..20),
            ops in proptest::collection::vec(op(), 0..60),
        ) {
            let key = |k: u8| format!("k{k:02}");
            let text = serde_json::to_vec(&start.iter().map(|(k, v)| (key(*k), *v)).collect::<std::collections::BTreeMap<_, _>>()).unwrap();
            let mut o = decode(&text).unwrap();
            let mut model: std::collections::BTreeMap<String, i64> =
                start.iter().map(|(k, v)| (key(*k), *v)).collect();
            for op in ops {
                match op {
                    Op::Insert(k, v) => {
                        o.insert(&key(k), Node::Int(v));
                        model.insert(key(k), v);
                    }
                    Op::Remove(k) => {
                        let got = o.remove(&key(k));
                        proptest::prop_assert_eq!(got, model.remove(&key(k)).map(Node::Int));
                    }
                    Op::Get(k) => {
                        let want = model.get(&key(k)).map(|v| Node::Int(*v));
                        proptest::prop_assert_eq!(o.get(&key(k)), want.as_ref());
                    }
                    Op::Retain(k) => {
                        o.retain_keys(|x| x > key(k).as_str());
                        model.retain(|x, _| x.as_str() > key(k).as_str());
                    }
                }
            }
            let want = serde_json::to_string(&model).unwrap();
            proptest::prop_assert_eq!(String::from_utf8(crate::bytes::write::to_json_vec(&o).unwrap()).unwrap(), want);
            proptest::prop_assert_eq!(o.len(), model.len());
        }

        #[test]
        fn text_reads_and_prints_as_the_value_path(v in json(), dup in proptest::prelude::any::<bool>()) {
            let mut text = serde_json::to_vec(&serde_json::json!({"doc": v, "x": 1})).unwrap();
            if dup {
                // A repeated key: the last one wins.
                text.pop();
                text.extend_from_slice(br#","x":[2],"doc":{"again":true}}"#);
            }
            let want = crate::bytes::write::to_json_vec(&crate::decode(&text).unwrap()).unwrap();
            let got = crate::bytes::write::to_json_vec(&decode(&text).unwrap()).unwrap();
            proptest::prop_assert_eq!(got, want);
            let node = Node::Object(decode(&text).unwrap());
            proptest::prop_assert!(deep_eq(&node.to_json(), &crate::decode(&text).unwrap()));
        }
    }
}
