//! YAML documents read as kubectl reads them: go-yaml v2 decodes the text
//! (a YAML 1.1 reader built on libyaml, whose parser this module uses),
//! then `sigs.k8s.io/yaml` turns the value into JSON.
//!
//! Where that differs from a YAML 1.2 reader:
//! - scalars are typed by YAML 1.1's rules (`yaml_scalar`): `yes`, `on`
//!   and `y` are booleans, `017` is octal, `1_000` a number;
//! - a key given twice is not an error: the last one wins;
//! - merge keys (`<<`, written plain) are applied where they stand, so a
//!   key after them overrides what they bring and a key before them is
//!   overridden (of a list of merged maps, the first wins);
//! - mapping keys that are not text become text: `true`, `15`, and floats
//!   as float32 (`1e+06`); a `null` key, a list or a map as a key, and
//!   an integer key beyond `int64` are errors;
//! - an alias is a copy of its anchored node; a document whose values come
//!   mostly from aliases is refused as go-yaml refuses it ("excessive
//!   aliasing"), which also bounds the work an alias bomb causes.

use crate::numbers;
use crate::prescan::MAX_DEPTH;
use crate::yaml_scalar::{self, Scalar};
use libyaml_safer::{EventData, Mark, Parser, ScalarStyle};
use serde_json::{Map, Number, Value};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// Every document of a YAML stream as JSON (`null` for an empty one), as
/// one parser reads the stream.
#[cfg(test)]
pub fn documents(bytes: &[u8]) -> Result<Vec<Value>, String> {
    read(bytes, usize::MAX)
}

/// The first document of a YAML stream, as go-yaml's `Unmarshal` reads
/// it: the text after it is not read (`None`: the stream is empty).
pub fn first_document(bytes: &[u8]) -> Result<Option<Value>, String> {
    Ok(read(bytes, 1)?.pop())
}

/// Up to `most` documents of a YAML stream, as JSON. The parser leaves
/// some input to `panic!` (a tag just before `,` in a flow collection,
/// `[!a, b]`, is its "TODO"): such input is refused, as an error.
fn read(bytes: &[u8], most: usize) -> Result<Vec<Value>, String> {
    match std::panic::catch_unwind(|| read_unguarded(bytes, most)) {
        Ok(read) => read,
        Err(panic) => {
            let why =
                panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned());
            Err(format!("the YAML parser cannot read this text ({})", why.unwrap_or_default()))
        }
    }
}

/// Whether a panic is the YAML parser's (see [`read`]): its message is
/// not printed, as it becomes an error.
pub fn is_parser_panic(info: &std::panic::PanicHookInfo<'_>) -> bool {
    info.location().is_some_and(|at| at.file().contains("libyaml-safer"))
}

fn read_unguarded(bytes: &[u8], most: usize) -> Result<Vec<Value>, String> {
    // The parser panics on text that ends inside a block scalar without a
    // line break, where libyaml ends the scalar. A line break is added, and
    // taken off again from the block scalar that ends past the text.
    let last_line = &bytes[bytes.iter().rposition(|b| *b == b'\n').map_or(0, |at| at + 1)..];
    let text_ends_a_line = last_line.iter().any(|b| !matches!(b, b' ' | b'\t' | b'\r'));
    let with_break;
    let (mut input, cut) = if text_ends_a_line {
        with_break = [bytes, b"\n"].concat();
        (&with_break[..], Some(bytes.len()))
    } else {
        (bytes, None)
    };
    let mut parser = Parser::new();
    // The parser takes any text starting with byte 0xEF for a UTF-8 byte
    // order mark, and refuses it when it is not one (`１: 1`, `Ａ: 1` start
    // with that byte); libyaml and go-yaml read it as UTF-8.
    if bytes.first() == Some(&0xEF) && !bytes.starts_with(b"\xEF\xBB\xBF") {
        parser.set_encoding(libyaml_safer::Encoding::Utf8);
    }
    parser.set_input_string(&mut input);
    let mut values = Vec::new();
    while values.len() < most {
        match parser.parse().map_err(|e| e.to_string())?.data {
            EventData::StreamEnd => break,
            EventData::DocumentStart { .. } => {
                let root = compose(&mut parser, cut)?;
                values.push(Decoder::default().document(&root)?);
            }
            _ => {}
        }
    }
    Ok(values)
}

/// A node of a document, as go-yaml's parser builds it.
enum Node {
    Scalar {
        value: String,
        tag: Option<String>,
        /// Written plain: the tag may be implied by the value.
        plain: bool,
    },
    Seq(Vec<Rc<Node>>),
    Map(Vec<(Rc<Node>, Rc<Node>)>),
    /// An alias: a copy of the node anchored under its name.
    Alias(Rc<Node>),
}

impl Node {
    /// A `<<` key, plain or tagged `!!merge`: what brings another map's
    /// entries into this one.
    fn is_merge_key(&self) -> bool {
        matches!(self, Node::Scalar { value, tag, plain }
            if value == "<<" && (*plain || tag.as_deref() == Some("tag:yaml.org,2002:merge")))
    }
}

/// An anchor's node, or the mark of a collection still being read (an
/// alias to it would make the node contain itself).
enum Anchored {
    Open(usize),
    Done(Rc<Node>),
}

/// A collection being read, and its anchor.
struct Open {
    anchor: Option<(String, usize)>,
    kind: OpenKind,
}

enum OpenKind {
    Seq(Vec<Rc<Node>>),
    Map(Vec<(Rc<Node>, Rc<Node>)>, Option<Rc<Node>>),
}

/// Reads the events of one document into its root node. Collections are
/// kept on a stack of their own, so deep text cannot exhaust the thread's.
/// A block scalar that ends past byte `cut` loses the line break added
/// there (see [`read`]).
fn compose(parser: &mut Parser<&mut &[u8]>, cut: Option<usize>) -> Result<Rc<Node>, String> {
    let mut anchors: HashMap<String, Anchored> = HashMap::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    let mut opened = 0usize;
    loop {
        let event = parser.parse().map_err(|e| e.to_string())?;
        let is_map = matches!(event.data, EventData::MappingStart { .. });
        let node = match event.data {
            EventData::DocumentEnd { .. } => return Ok(root.unwrap_or_else(empty_scalar)),
            EventData::Scalar { anchor, tag, mut value, plain_implicit, style, .. } => {
                let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
                if block && cut.is_some_and(|cut| event.end_mark.index > cut as u64) && value.ends_with('\n') {
                    value.pop();
                }
                let node = Rc::new(Node::Scalar { value, tag, plain: plain_implicit });
                if let Some(name) = anchor {
                    anchors.insert(name, Anchored::Done(node.clone()));
                }
                node
            }
            EventData::Alias { anchor } => match anchors.get(&anchor) {
                Some(Anchored::Done(node)) => Rc::new(Node::Alias(node.clone())),
                Some(Anchored::Open(_)) => return Err(format!("anchor '{anchor}' value contains itself")),
                None => return Err(format!("unknown anchor '{anchor}' referenced")),
            },
            EventData::SequenceStart { anchor, .. } | EventData::MappingStart { anchor, .. } => {
                if stack.len() >= MAX_DEPTH {
                    return Err(too_deep(event.start_mark));
                }
                opened += 1;
                let anchor = anchor.map(|name| {
                    anchors.insert(name.clone(), Anchored::Open(opened));
                    (name, opened)
                });
                let kind = if is_map { OpenKind::Map(Vec::new(), None) } else { OpenKind::Seq(Vec::new()) };
                stack.push(Open { anchor, kind });
                continue;
            }
            EventData::SequenceEnd | EventData::MappingEnd => {
                let open = stack.pop().expect("the parser balances collections");
                let node = Rc::new(match open.kind {
                    OpenKind::Seq(items) => Node::Seq(items),
                    OpenKind::Map(entries, _) => Node::Map(entries),
                });
                if let Some((name, id)) = open.anchor {
                    // An anchor of the same name inside the collection
                    // replaced this one, as go-yaml's table does.
                    if matches!(anchors.get(&name), Some(Anchored::Open(open)) if *open == id) {
                        anchors.insert(name, Anchored::Done(node.clone()));
                    }
                }
                node
            }
            _ => continue,
        };
        match stack.last_mut() {
            None => root = Some(node),
            Some(Open { kind: OpenKind::Seq(items), .. }) => items.push(node),
            Some(Open { kind: OpenKind::Map(entries, key), .. }) => match key.take() {
                Some(k) => entries.push((k, node)),
                None => *key = Some(node),
            },
        }
    }
}

fn empty_scalar() -> Rc<Node> {
    Rc::new(Node::Scalar { value: String::new(), tag: None, plain: true })
}

fn too_deep(mark: Mark) -> String {
    format!("nested deeper than {MAX_DEPTH} levels at line {}, column {}", mark.line + 1, mark.column + 1)
}

/// Turns nodes into JSON as go-yaml's decoder and `sigs.k8s.io/yaml` do,
/// counting what it decodes as go-yaml counts it.
#[derive(Default)]
struct Decoder {
    /// Nodes decoded.
    decoded: usize,
    /// Of those, nodes decoded inside an alias.
    aliased: usize,
    /// How many aliases are being decoded.
    alias_depth: usize,
}

impl Decoder {
    fn document(&mut self, root: &Node) -> Result<Value, String> {
        // go-yaml counts the document, then its root.
        self.count()?;
        self.count()?;
        self.value(root, 0)?.into_json()
    }

    /// Counts one node decoded, and refuses a document that aliases
    /// expand beyond what go-yaml allows.
    fn count(&mut self) -> Result<(), String> {
        self.decoded += 1;
        if self.alias_depth > 0 {
            self.aliased += 1;
        }
        if self.aliased > 100
            && self.decoded > 1000
            && self.aliased as f64 / self.decoded as f64 > alias_ratio(self.decoded)
        {
            return Err("document contains excessive aliasing".into());
        }
        Ok(())
    }

    /// A node as a JSON value (counted by the caller); `depth` is how
    /// deep it stands, aliases expanded.
    fn value(&mut self, node: &Node, depth: usize) -> Result<Decoded, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels once aliases are expanded"));
        }
        match node {
            Node::Scalar { value, tag, plain } => {
                Ok(Decoded::Scalar(yaml_scalar::scalar(value, tag.as_deref(), *plain)?))
            }
            Node::Seq(items) => {
                let mut values = Vec::with_capacity(items.len());
                for item in items {
                    self.count()?;
                    values.push(self.value(item, depth + 1)?);
                }
                Ok(Decoded::Seq(values))
            }
            Node::Map(entries) => {
                let mut map = GoMap::default();
                self.entries(entries, &mut map, depth)?;
                Ok(Decoded::Map(map))
            }
            Node::Alias(target) => self.alias(|d| d.value(target, depth)),
        }
    }

    /// Decodes an alias's node, counted as go-yaml counts it.
    fn alias<T>(&mut self, decode: impl FnOnce(&mut Self) -> Result<T, String>) -> Result<T, String> {
        self.alias_depth += 1;
        let decoded = self.count().and_then(|()| decode(self));
        self.alias_depth -= 1;
        decoded
    }

    /// The entries of a mapping into `map`, in order: later keys win, and a
    /// merge key brings its maps' entries where it stands.
    fn entries(&mut self, entries: &[(Rc<Node>, Rc<Node>)], map: &mut GoMap, depth: usize) -> Result<(), String> {
        for (key, value) in entries {
            if key.is_merge_key() {
                self.merge(value, map, depth)?;
                continue;
            }
            self.count()?;
            let key = self.key(key)?;
            self.count()?;
            let value = self.value(value, depth + 1)?;
            map.insert(key, value);
        }
        Ok(())
    }

    /// The value of a merge key: a map, an alias of one, or a list of
    /// those (merged last to first, so that the first wins).
    fn merge(&mut self, node: &Node, map: &mut GoMap, depth: usize) -> Result<(), String> {
        let maps: Vec<&Node> = match node {
            Node::Seq(items) => items.iter().rev().map(|item| &**item).collect(),
            other => vec![other],
        };
        for merged in maps {
            self.count()?;
            match merged {
                Node::Map(entries) => self.entries(entries, map, depth)?,
                Node::Alias(target) if matches!(**target, Node::Map(_)) => {
                    let Node::Map(entries) = &**target else { unreachable!() };
                    self.alias(|d| d.entries(entries, map, depth))?;
                }
                _ => return Err("map merge requires map or sequence of maps as the value".into()),
            }
        }
        Ok(())
    }

    /// A mapping key (counted by the caller): a scalar, or an alias of one.
    fn key(&mut self, node: &Node) -> Result<Scalar, String> {
        match node {
            Node::Scalar { value, tag, plain } => yaml_scalar::scalar(value, tag.as_deref(), *plain),
            Node::Alias(target) => self.alias(|d| d.key(target)),
            Node::Seq(_) | Node::Map(_) => Err("invalid map key: a list or a map".into()),
        }
    }
}

/// The share of decoded nodes go-yaml lets come from aliases: 99% up to
/// 400,000 nodes, 10% from 4,000,000 on, linear in between.
fn alias_ratio(decoded: usize) -> f64 {
    const LOW: f64 = 400_000.0;
    const HIGH: f64 = 4_000_000.0;
    let decoded = decoded as f64;
    if decoded <= LOW {
        0.99
    } else if decoded >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decoded - LOW) / (HIGH - LOW))
    }
}

/// A scalar as JSON, as Go's encoder writes it and kubectl reads it back.
fn json(scalar: Scalar) -> Result<Value, String> {
    Ok(match scalar {
        Scalar::Null => Value::Null,
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(i) => Value::Number(i.into()),
        Scalar::Uint(u) => Value::Number(u.into()),
        Scalar::Float(f) => Value::Number(float(f)?),
        Scalar::Str(s) => Value::String(s),
    })
}

/// A node as go-yaml decodes it, before `sigs.k8s.io/yaml` turns it into
/// JSON (a value JSON cannot hold, `.inf`, is an error only if written).
enum Decoded {
    Scalar(Scalar),
    Seq(Vec<Decoded>),
    Map(GoMap),
}

impl Decoded {
    /// The value for a message about its key: what JSON cannot hold as
    /// `null`.
    fn into_json_for_message(self) -> Value {
        self.into_json().unwrap_or_default()
    }

    fn into_json(self) -> Result<Value, String> {
        match self {
            Decoded::Scalar(scalar) => json(scalar),
            Decoded::Seq(items) => {
                Ok(Value::Array(items.into_iter().map(Decoded::into_json).collect::<Result<_, _>>()?))
            }
            Decoded::Map(map) => map.into_json(),
        }
    }
}

/// A mapping as go-yaml decodes it: a Go map whose keys are typed (`1`,
/// `1.0`, `"1"` and `~` are four keys), a later entry replacing an equal
/// one. Only then does `sigs.k8s.io/yaml` turn its keys into text, so a
/// key it refuses (`~`) in an entry replaced later is no error.
#[derive(Default)]
struct GoMap {
    /// Where each key's entry stands in `entries`.
    index: HashMap<KeyId, usize>,
    entries: Vec<(Scalar, Decoded)>,
}

/// A key's identity for Go's map: its type and value (`-0.0` equals
/// `0.0`; each NaN is a key of its own).
#[derive(PartialEq, Eq, Hash)]
enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(u64),
    NaN(usize),
    Str(String),
}

impl GoMap {
    fn insert(&mut self, key: Scalar, value: Decoded) {
        let id = match &key {
            Scalar::Null => KeyId::Null,
            Scalar::Bool(b) => KeyId::Bool(*b),
            Scalar::Int(i) => KeyId::Int(*i),
            Scalar::Uint(u) => KeyId::Uint(*u),
            Scalar::Float(f) if f.is_nan() => KeyId::NaN(self.entries.len()),
            Scalar::Float(f) => KeyId::Float(if *f == 0.0 { 0 } else { f.to_bits() }),
            Scalar::Str(s) => KeyId::Str(s.clone()),
        };
        match self.index.get(&id) {
            // Go's map keeps the later key too (`-0.0` after `0.0`).
            Some(&at) => self.entries[at] = (key, value),
            None => {
                self.index.insert(id, self.entries.len());
                self.entries.push((key, value));
            }
        }
    }

    /// The map as JSON: every key turned into text first, then the values
    /// written in the order of their keys, as Go's encoder writes a map
    /// (the first value it cannot write, in that order, is the error). Two
    /// keys of one text (`1` and `"1"`) leave one entry: the later here;
    /// kubectl keeps either, as Go's map order has it.
    fn into_json(self) -> Result<Value, String> {
        let mut texts = BTreeMap::new();
        for (key, value) in self.entries {
            let text = match key_text(key) {
                Ok(text) => text,
                Err(key) => return Err(unsupported_key(&key, &value.into_json_for_message())),
            };
            texts.insert(text, value);
        }
        let mut map = Map::new();
        for (text, value) in texts {
            map.insert(text, value.into_json()?);
        }
        Ok(Value::Object(map))
    }
}

/// A mapping key as JSON text, as `sigs.k8s.io/yaml` writes it; the key
/// back if it refuses it.
fn key_text(key: Scalar) -> Result<String, Scalar> {
    Ok(match key {
        Scalar::Str(s) => s,
        Scalar::Bool(b) => b.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => yaml_scalar::float_key(f),
        key @ (Scalar::Uint(_) | Scalar::Null) => return Err(key),
    })
}

/// Why `sigs.k8s.io/yaml` refuses a key (see [`key_text`]).
fn unsupported_key(key: &Scalar, value: &Value) -> String {
    match key {
        Scalar::Uint(u) => format!("unsupported map key of type: uint64, key: {u:#x}, value: {value}"),
        _ => format!("unsupported map key of type: %!s(<nil>), key: <nil>, value: {value}"),
    }
}

/// A YAML float as JSON. One Go writes without a fraction or exponent is
/// an integer where it fits an `int64`: the reference's YAML-to-JSON step
/// writes `1.0` as `1`, which then decodes as an integer.
fn float(f: f64) -> Result<Number, String> {
    if let Some(i) = numbers::integer_of(f) {
        return Ok(i.into());
    }
    Number::from_f64(f).ok_or_else(|| {
        let text = if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "+Inf"
        } else {
            "-Inf"
        };
        format!("json: unsupported value: {text}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Result<Value, String> {
        let mut docs = documents(text.as_bytes())?;
        assert_eq!(docs.len(), 1, "one document in {text:?}");
        Ok(docs.remove(0))
    }

    #[test]
    fn keys_and_merges_as_go_yaml_reads_them() {
        // What kubectl patch --local -f prints for these documents.
        assert_eq!(read("a: 1\na: 2\n").unwrap(), json!({"a": 2}));
        assert_eq!(read("<<: {a: 1, b: 2}\na: 3\na: 4\n").unwrap(), json!({"a": 4, "b": 2}));
        assert_eq!(read("a: 3\n<<: {a: 1, b: 2}\n").unwrap(), json!({"a": 1, "b": 2}));
        assert_eq!(read("a: 3\n<<: [{a: 1, b: 2}, {a: 5, c: 6}]\n").unwrap(), json!({"a": 1, "b": 2, "c": 6}));
        assert_eq!(read("d: &d {a: x}\ne:\n  <<: *d\n").unwrap(), json!({"d": {"a": "x"}, "e": {"a": "x"}}));
        assert_eq!(read("1.5: x\ntrue: y\n3: z\n").unwrap(), json!({"1.5": "x", "true": true, "3": "z"}));
        assert_eq!(read("\"<<\": {a: 1}\n").unwrap(), json!({"<<": {"a": 1}}));
        assert_eq!(read("yes: 1\n\"yes\": 2\non: 3\n").unwrap(), json!({"true": 3, "yes": 2}));
        assert_eq!(
            read("{0.1234567891: a, 1e6: b, 123456.5: c, 1234567.0: d, 1e-5: e, 1e21: f, 017: g}").unwrap(),
            json!({"0.12345679": "a", "1e+06": "b", "123456.5": "c", "1.234567e+06": "d", "1e-05": "e", "1e+21": "f", "15": "g"})
        );
        assert!(read("~: z\n").unwrap_err().starts_with("unsupported map key of type: %!s(<nil>)"));
        assert!(read("9223372036854775808: x\n").unwrap_err().starts_with("unsupported map key of type: uint64"));
        assert!(read("[1]: a\n").unwrap_err().starts_with("invalid map key"));
        assert!(read("<<: 1\n").unwrap_err().contains("map merge requires map or sequence of maps"));
        assert!(read("<<: [{a: 1}, 2]\n").unwrap_err().contains("map merge requires map or sequence of maps"));
    }

    #[test]
    fn scalars_are_typed_as_yaml_1_1_types_them() {
        let doc = read("a: yes\nb: 'yes'\nc: 017\nd: 1_000\ne: !custom 3\nf: !!str 4\ng: !!int \"5\"\nh: !custom [1]\ni: ! 12\nj: |\n  on\n").unwrap();
        assert_eq!(
            doc,
            json!({"a": true, "b": "yes", "c": 15, "d": 1000, "e": "3", "f": "4", "g": 5, "h": [1], "i": "12", "j": "on\n"})
        );
        assert_eq!(read("a: 2.0\nb: 1.5\nc: 1e400\nd:\n").unwrap(), json!({"a": 2, "b": 1.5, "c": "1e400", "d": null}));
        assert_eq!(read("a: !!binary aGVsbG8=\n").unwrap(), json!({"a": "hello"}));
        assert_eq!(read("a: -.inf\n").unwrap_err(), "json: unsupported value: -Inf");
        // Only what is written out: a value replaced later is no error, and
        // the first value in key order is the one refused.
        assert_eq!(read("b: .inf\nb: again\n").unwrap(), json!({"b": "again"}));
        assert_eq!(read("b: .inf\na: -.inf\n").unwrap_err(), "json: unsupported value: -Inf");
        assert_eq!(read("b: [.nan]\na: {c: .inf}\n").unwrap_err(), "json: unsupported value: +Inf");
        assert_eq!(read("a: !!int 1.5\n").unwrap_err(), "cannot decode !!float `1.5` as a !!int");
    }

    #[test]
    fn aliases_are_copies_and_cannot_contain_themselves() {
        assert_eq!(read("a: &x [1, &x 2, *x]\nb: *x\n").unwrap(), json!({"a": [1, 2, 2], "b": 2}));
        assert_eq!(
            read("a: &x {k: v}\nb: [*x, *x]\n").unwrap(),
            json!({"a": {"k": "v"}, "b": [{"k": "v"}, {"k": "v"}]})
        );
        assert_eq!(read("a: &a [*a]\n").unwrap_err(), "anchor 'a' value contains itself");
        assert_eq!(read("a: *b\n").unwrap_err(), "unknown anchor 'b' referenced");
    }

    #[test]
    fn an_alias_bomb_is_refused_in_linear_time() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        assert_eq!(read(&text).unwrap_err(), "document contains excessive aliasing");
        // A document using a few aliases is read.
        assert!(read("a: &a [1, 2]\nb: *a\nc: *a\n").is_ok());
    }

    #[test]
    fn text_that_starts_with_a_character_of_byte_0xef_is_utf8_not_a_byte_order_mark() {
        // Found by the yaml_writer fuzz target: the writer wrote the key,
        // the reader refused it (kubectl reads it).
        for text in ["１: 1\n", "Ａ«÷: 1\n", "\u{FEFF}a: 1\n"] {
            let read = first_document(text.as_bytes()).unwrap().unwrap();
            assert_eq!(read.as_object().map(|m| m.len()), Some(1), "{text}");
        }
        assert_eq!(first_document("１: 1".as_bytes()).unwrap(), Some(serde_json::json!({"１": 1})));
    }

    #[test]
    fn a_block_scalar_at_the_end_of_the_text_without_a_line_break() {
        // Found by the cli_input fuzz target: the parser panicked. kubectl
        // reads `-p` text so (go-yaml on libyaml), as these values.
        let read = |text: &str| first_document(text.as_bytes()).unwrap().unwrap()["c"].clone();
        for (text, want) in [
            ("c: |\n  x", "x"),
            ("c: |-\n  x", "x"),
            ("c: |+\n  x", "x"),
            ("c: >\n  x\n\n  y", "x\ny"),
            ("c: |\n  x\n", "x\n"),
            ("c: |\n  ]", "]"),
            ("c: |\n  x\nd: |\n  y", "x\n"),
        ] {
            assert_eq!(read(text), want, "{text:?}");
        }
        let both = first_document(b"c: |\n  x\nd: |\n  y").unwrap().unwrap();
        assert_eq!(both["d"], "y");
    }

    #[test]
    fn text_the_parser_would_panic_on_is_an_error() {
        // Found by the cli_input fuzz target: a tag before `,` in a flow
        // collection is a `panic!` in the parser.
        let err = first_document(b"a: [!x, 1]\n").unwrap_err();
        assert!(err.starts_with("the YAML parser cannot read this text"), "{err}");
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let deep = format!("{}x\n", "- ".repeat(200));
        assert!(read(&deep).unwrap_err().contains("nested deeper than 128 levels"));
        let mut chain = String::from("a0: &a0 [x]\n");
        for i in 1..200 {
            chain.push_str(&format!("a{i}: &a{i} [*a{}]\n", i - 1));
        }
        assert!(read(&chain).unwrap_err().contains("once aliases are expanded"));
    }
}
