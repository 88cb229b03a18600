//! Reading documents: files or stdin, JSON or YAML.

use crate::args::Source;
use crate::prescan;
use crate::yaml_read;
use serde_json::{Map, Value};
use std::io::Read;

/// Reads the bytes of `source`; `what` names it in the error message.
pub fn read(source: &Source, what: &str) -> Result<Vec<u8>, String> {
    let bytes = match source {
        Source::Stdin => {
            let mut buf = Vec::new();
            std::io::stdin().lock().read_to_end(&mut buf).map(|_| buf)
        }
        Source::File(path) => std::fs::read(path),
    };
    bytes.map_err(|e| format!("cannot read {}: {e}", describe(source, what)))
}

/// `original file "a.yaml"`, or `original from stdin`.
pub fn describe(source: &Source, what: &str) -> String {
    match source {
        Source::Stdin => format!("{what} from stdin"),
        Source::File(path) => format!("{what} file {:?}", path.display().to_string()),
    }
}

/// Parses a document that must be an object: JSON exactly as the reference
/// decodes it (`null` and empty input are `{}`), else YAML.
pub fn parse_document(bytes: &[u8]) -> Result<Value, String> {
    match parse_any(bytes)? {
        Value::Null => Ok(Value::Object(Map::new())),
        doc @ Value::Object(_) => Ok(doc),
        other => Err(format!("the document must be an object, not {}", type_name(&other))),
    }
}

/// Parses any JSON or YAML value (one YAML document only). Text that
/// starts with `{` is JSON, as for kubectl, and is never re-read as YAML:
/// what JSON refuses (`1e309`, `NaN`) stays refused. Nesting is bounded
/// before a parser sees the text.
pub fn parse_any(bytes: &[u8]) -> Result<Value, String> {
    if prescan::is_json(bytes) {
        return parse_json(bytes).map_err(|e| format!("invalid JSON: {e}"));
    }
    prescan::yaml(bytes).map_err(|e| format!("invalid YAML: {e}"))?;
    parse_yaml(bytes).map_err(|e| format!("invalid YAML: {e}"))
}

/// Why JSON text was refused.
#[derive(Debug)]
pub enum JsonError {
    TooDeep(prescan::TooDeep),
    Syntax(serde_json::Error),
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::TooDeep(e) => e.fmt(f),
            JsonError::Syntax(e) => e.fmt(f),
        }
    }
}

/// Parses JSON text as the reference decodes it: `-0` is the integer 0,
/// integers beyond `int64` are floats, bytes outside UTF-8 and unpaired
/// surrogate escapes in strings are U+FFFD.
pub fn parse_json(bytes: &[u8]) -> Result<Value, JsonError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = prescan::json(bytes).map_err(JsonError::TooDeep)?;
    let text = smp_core::text::as_go_reads(&text);
    let mut value: Value = serde_json::from_slice(&text).map_err(JsonError::Syntax)?;
    smp_core::unstable::normalize_numbers(&mut value);
    Ok(value)
}

/// Parses every document of a JSON stream or a YAML stream (`---`).
/// Empty YAML documents are skipped, as kubectl skips them; text without
/// any document is one empty object, as the reference decodes it.
pub fn parse_stream(bytes: &[u8]) -> Result<Vec<Value>, String> {
    let mut values = if prescan::is_json(bytes) {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let text = prescan::json(bytes).map_err(|e| format!("invalid JSON: {e}"))?;
        let text = smp_core::text::as_go_reads(&text);
        serde_json::Deserializer::from_slice(&text)
            .into_iter::<Value>()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("invalid JSON: {e}"))?
    } else {
        prescan::yaml(bytes).map_err(|e| format!("invalid YAML: {e}"))?;
        let mut values = Vec::new();
        for (line, text) in yaml_documents(bytes)? {
            let within = |e: String| match line {
                1 => format!("invalid YAML: {e}"),
                _ => format!("invalid YAML in the document from line {line}: {e}"),
            };
            // kubectl's reader of files ends every line with a line break,
            // the last one too (a block scalar there keeps it).
            let text: std::borrow::Cow<'_, [u8]> =
                if text.ends_with(b"\n") { text.into() } else { [text, b"\n"].concat().into() };
            values.extend(yaml_read::first_document(&text).map_err(within)?);
        }
        values.retain(|v| !v.is_null());
        values
    };
    values.iter_mut().for_each(smp_core::unstable::normalize_numbers);
    for value in &mut values {
        if value.is_null() {
            *value = Value::Object(Map::new());
        }
    }
    if values.is_empty() {
        values.push(Value::Object(Map::new()));
    }
    Ok(values)
}

/// The documents of a YAML stream as kubectl splits it, each with the
/// number of its first line: at every line that starts with `---`, where
/// only a comment may follow the dashes; nothing else ends a document
/// (what follows a `...` in one is not read). Parts without text are
/// skipped.
fn yaml_documents(bytes: &[u8]) -> Result<Vec<(usize, &[u8])>, String> {
    let mut documents = Vec::new();
    let (mut start, mut first_line) = (0, 1);
    let mut at = 0;
    for (n, line) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        if let Some(rest) = line.strip_prefix(b"---") {
            let rest = String::from_utf8_lossy(rest);
            let rest = rest.trim();
            if !rest.is_empty() && !rest.starts_with('#') {
                return Err(format!(
                    "invalid YAML: line {}: only a comment may follow a document separator (---), not {rest:?}",
                    n + 1
                ));
            }
            if at > start {
                documents.push((first_line, &bytes[start..at]));
            }
            (start, first_line) = (at + line.len(), n + 2);
        }
        at += line.len();
    }
    if at > start {
        documents.push((first_line, &bytes[start..at]));
    }
    Ok(documents)
}

/// The first document of a YAML stream, as go-yaml's `Unmarshal` (what
/// kubectl reads `-p` with) takes it: the rest is not read.
fn parse_yaml(bytes: &[u8]) -> Result<Value, String> {
    let mut json = yaml_read::first_document(bytes)?.unwrap_or(Value::Null);
    smp_core::unstable::normalize_numbers(&mut json);
    Ok(json)
}

/// The JSON type of `v`, for messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn yaml(text: &str) -> Value {
        parse_document(text.as_bytes()).unwrap()
    }

    #[test]
    fn json_is_decoded_as_the_reference_does() {
        assert_eq!(parse_document(b"").unwrap(), json!({}));
        assert_eq!(parse_document(b"null").unwrap(), json!({}));
        assert_eq!(parse_document(br#"{"a": 1.0}"#).unwrap()["a"], json!(1.0));
        let big = parse_document(br#"{"a": 18446744073709551615}"#).unwrap();
        assert!(big["a"].is_f64(), "beyond int64 is a float: {big}");
    }

    #[test]
    fn yaml_numbers_follow_the_reference() {
        let doc = yaml("i: 3\nf: 1.5\nwhole: 2.0\nhuge: 1e30\nu: 9223372036854775808\n");
        assert!(doc["i"].is_i64() && doc["whole"].is_i64(), "{doc}");
        assert_eq!(doc["whole"], json!(2));
        assert_eq!(doc["f"], json!(1.5));
        assert!(doc["huge"].is_f64() && doc["u"].is_f64(), "{doc}");
    }

    #[test]
    fn yaml_keys_tags_and_merges() {
        let doc = yaml("1: a\ntrue: b\ns: !!str 5\nbase: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n");
        assert_eq!(doc["1"], json!("a"));
        assert_eq!(doc["true"], json!("b"));
        assert_eq!(doc["s"], json!("5"));
        // `y` is YAML 1.1's `true`, as kubectl reads it.
        assert_eq!(doc["m"], json!({"x": 1, "true": 2}));
    }

    #[test]
    fn documents_must_be_single_objects() {
        assert_eq!(parse_document(b"# nothing\n").unwrap(), json!({}));
        assert!(parse_document(b"- a\n").unwrap_err().contains("not a list"));
        // kubectl reads the first document of a patch.
        assert_eq!(parse_document(b"a: 1\n---\nb: 2\n").unwrap(), json!({"a": 1}));
        assert_eq!(parse_document(b"---\n---\nb: 2\n").unwrap(), json!({}));
        assert_eq!(parse_document(b"a: 1\n---\n[: unreadable\n").unwrap(), json!({"a": 1}));
        assert!(parse_document(b"{\"a\": [1,").unwrap_err().starts_with("invalid JSON"));
        assert!(parse_document(b"a: [").unwrap_err().starts_with("invalid YAML"));
    }

    #[test]
    fn json_that_json_refuses_is_not_read_as_yaml() {
        for text in [&br#"{"a": 1e309}"#[..], br#"{"a": NaN}"#, br#"{"a": Infinity}"#, br#"{a: 1}"#] {
            let err = parse_document(text).unwrap_err();
            assert!(err.starts_with("invalid JSON"), "{}: {err}", String::from_utf8_lossy(text));
        }
        assert!(parse_document(b"a: NaN\n").is_ok(), "YAML reads it as a string, as the reference's YAML does");
    }

    #[test]
    fn negative_zero_is_the_integer_zero() {
        let doc = parse_document(br#"{"a": -0, "b": [-0], "c": -0.0, "d": "-0"}"#).unwrap();
        assert!(doc["a"].is_i64() && doc["b"][0].is_i64(), "{doc}");
        assert_eq!(doc["a"], json!(0));
        assert!(doc["c"].as_f64().is_some_and(|f| f == 0.0 && f.is_sign_negative()), "{doc}");
        assert_eq!(doc["d"], json!("-0"));
        assert_eq!(yaml("a: -0\n")["a"], json!(0));
    }

    #[test]
    fn streams_of_documents() {
        let docs = parse_stream(b"a: 1\n---\n---\nb: -0\n...\n").unwrap();
        assert_eq!(docs, [json!({"a": 1}), json!({"b": 0})]);
        assert_eq!(parse_stream(br#"{"a": 1} {"b": -0}"#).unwrap(), [json!({"a": 1}), json!({"b": 0})]);
        assert_eq!(parse_stream(b"").unwrap(), [json!({})]);
        assert!(parse_stream(br#"{"a": 1} {"b": 1e999}"#).unwrap_err().starts_with("invalid JSON"));
    }

    #[test]
    fn yaml_streams_are_split_as_kubectl_splits_them() {
        let docs = parse_stream(b"a: 1\n...\nb: 2\n--- # two\r\nc: 3\n---\n---\n\n# none\n---\nd: 4").unwrap();
        assert_eq!(docs, [json!({"a": 1}), json!({"c": 3}), json!({"d": 4})]);
        for text in [&b"--- {a: 1}\n"[..], b"a: 1\n----\n", b"a: 1\n---x\n"] {
            let err = parse_stream(text).unwrap_err();
            assert!(err.contains("only a comment may follow a document separator (---)"), "{err}");
        }
        let err = parse_stream(b"a: 1\n---\nb: [\n").unwrap_err();
        assert!(err.starts_with("invalid YAML in the document from line 3:"), "{err}");
    }

    #[test]
    fn a_file_ending_in_a_block_scalar_without_a_line_break_reads_as_kubectl_reads_it() {
        // kubectl ends a file's last line with a line break; `-p` text is
        // read as it is.
        assert_eq!(parse_stream(b"c: |\n  x").unwrap(), [json!({"c": "x\n"})]);
        assert_eq!(parse_stream(b"a: 1\n---\nc: |+\n  x").unwrap(), [json!({"a": 1}), json!({"c": "x\n"})]);
        assert_eq!(parse_any(b"c: |\n  x").unwrap(), json!({"c": "x"}));
    }

    #[test]
    fn deep_text_is_refused_before_parsing() {
        let deep = format!("{{\"a\": {}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
        let err = parse_document(deep.as_bytes()).unwrap_err();
        assert!(err.contains("nested deeper than 128 levels at line 1, column 134"), "{err}");
        let deep_yaml = format!("a: {}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = parse_document(deep_yaml.as_bytes()).unwrap_err();
        assert!(err.starts_with("invalid YAML") && err.contains("nested deeper than 128 levels"), "{err}");
    }
}
