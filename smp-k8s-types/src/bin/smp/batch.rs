//! `--jsonl`: one case per input line, one answer per output line, in order.

use crate::args::Source;
use crate::input::{self, JsonError, describe, type_name};
use crate::op::Op;
use crate::output::{Failure, output_error, write_answer_line, write_error_line};
use crate::prescan;
use crate::schema::Resolver;
use serde_json::Value;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};

/// What the input is called in messages.
const CASES: &str = "cases";

/// Runs every case of `source`. Each line's failure is written as an
/// error line; only I/O failures stop the batch. Lines longer than
/// `max_line` bytes are answered with an error line without being held in
/// memory.
pub fn run(
    op: Op,
    source: &Source,
    resolver: &mut Resolver<'_>,
    overwrite: bool,
    max_line: u64,
) -> Result<(), Failure> {
    let mut input = open(source)?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = Vec::with_capacity(1 << 12);
    let read_error = |e: io::Error| Failure::Error(format!("cannot read {}: {e}", describe(source, CASES)));
    loop {
        line.clear();
        match read_line(&mut input, &mut line, max_line).map_err(read_error)? {
            Line::End => break,
            Line::Whole => answer(&mut out, op, trim_newline(&line), resolver, overwrite),
            Line::TooLong => {
                let message = format!("the line is longer than {max_line} bytes (see --max-line-bytes)");
                write_error_line(&mut out, &message, (op == Op::ThreeWay).then_some(false))
            }
        }
        .map_err(output_error)?;
    }
    out.flush().map_err(output_error)
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq)]
enum Line {
    Whole,
    TooLong,
    End,
}

/// Reads one line into `line`, up to `max` bytes; the rest of a longer
/// line is skipped.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, max: u64) -> io::Result<Line> {
    let read = input.by_ref().take(max.saturating_add(1)).read_until(b'\n', line)?;
    if read == 0 {
        return Ok(Line::End);
    }
    if trim_newline(line).len() as u64 <= max {
        return Ok(Line::Whole);
    }
    if line.last() != Some(&b'\n') {
        skip_line(input)?;
    }
    line.clear();
    Ok(Line::TooLong)
}

/// Skips input up to and including the next line break.
fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|b| *b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                return Ok(());
            }
            None => {
                let len = buf.len();
                input.consume(len);
            }
        }
    }
}

fn open(source: &Source) -> Result<Box<dyn BufRead>, String> {
    match source {
        Source::Stdin => Ok(Box::new(io::stdin().lock())),
        Source::File(path) => {
            let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", describe(source, CASES)))?;
            Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
        }
    }
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Computes one line's answer and writes it.
fn answer(out: &mut impl Write, op: Op, line: &[u8], resolver: &mut Resolver<'_>, overwrite: bool) -> io::Result<()> {
    let can_conflict = (op == Op::ThreeWay).then_some(false);
    let (docs, overwrite) = match parse_case(op, line, overwrite) {
        Ok(case) => case,
        Err(message) => return write_error_line(out, &message, can_conflict),
    };
    let schema = match resolver.schema_for(&docs, op.inputs()) {
        Ok(schema) => schema,
        Err(message) => return write_error_line(out, &message, can_conflict),
    };
    match op.run(&docs, overwrite, schema) {
        Ok(value) => write_answer_line(out, op.output_key(), &value),
        Err(e) => write_error_line(out, &e.to_string(), can_conflict.map(|_| e.is_conflict())),
    }
}

/// A case line as JSON; a syntax error names the document it is in.
fn parse_json(line: &[u8]) -> Result<Value, String> {
    input::parse_json(line).map_err(|e| match &e {
        JsonError::Syntax(syntax) => match prescan::json_field_at(line, syntax.column().saturating_sub(1)) {
            Some(field) => format!("in {field:?}: {e}"),
            None => e.to_string(),
        },
        JsonError::TooDeep(_) => e.to_string(),
    })
}

/// The documents of a case line, in the order of [`Op::inputs`], and its
/// `overwrite` switch (`default` when absent).
fn parse_case(op: Op, line: &[u8], default: bool) -> Result<(Vec<Value>, bool), String> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Err("empty line: expected a JSON object".into());
    }
    let case = parse_json(line).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(mut fields) = case else {
        return Err(format!("a case must be a JSON object, not {}", type_name(&case)));
    };
    let mut docs = Vec::with_capacity(op.inputs().len());
    for name in op.inputs() {
        let doc = fields.remove(*name).ok_or_else(|| format!("missing field {name:?}"))?;
        if !matches!(doc, Value::Object(_) | Value::Null) {
            return Err(format!("{name:?} must be an object, not {}", type_name(&doc)));
        }
        docs.push(doc);
    }
    let overwrite = match fields.get("overwrite") {
        None | Some(Value::Null) => default,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("overwrite must be a boolean, not {}", type_name(other))),
    };
    Ok((docs, overwrite))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_case_line_gives_its_documents_in_order() {
        let line = br#"{"current": {"c": 1}, "original": {"o": 1}, "modified": null, "overwrite": true, "id": 7}"#;
        let (docs, overwrite) = parse_case(Op::ThreeWay, line, false).unwrap();
        assert_eq!(docs, [json!({"o": 1}), Value::Null, json!({"c": 1})]);
        assert!(overwrite);
    }

    #[test]
    fn bad_case_lines_say_why() {
        let err = |line: &[u8]| parse_case(Op::Apply, line, false).unwrap_err();
        assert!(err(b"  ").starts_with("empty line"));
        assert!(err(b"{").starts_with("invalid JSON"));
        assert_eq!(err(b"[]"), "a case must be a JSON object, not a list");
        assert_eq!(err(br#"{"original": {}}"#), "missing field \"patch\"");
        let bad_overwrite = br#"{"original": {}, "modified": {}, "current": {}, "overwrite": "yes"}"#;
        let err = parse_case(Op::ThreeWay, bad_overwrite, false).unwrap_err();
        assert_eq!(err, "overwrite must be a boolean, not a string");
    }

    #[test]
    fn errors_name_the_document() {
        let err = |line: &[u8]| parse_case(Op::Apply, line, false).unwrap_err();
        assert_eq!(err(br#"{"original": {}, "patch": [1]}"#), "\"patch\" must be an object, not a list");
        let message = err(br#"{"original": {"a": 1}, "patch": {"b": 1e309}}"#);
        assert!(message.starts_with("invalid JSON: in \"patch\": number out of range"), "{message}");
        let deep = format!(r#"{{"original": {{}}, "patch": {{"a": {}1{}}}}}"#, "[".repeat(200), "]".repeat(200));
        let message = err(deep.as_bytes());
        assert!(message.starts_with("invalid JSON: nested deeper than 128 levels at line 1, column"), "{message}");
        assert!(message.ends_with(", in \"patch\""), "{message}");
    }

    #[test]
    fn long_lines_are_skipped_without_being_read_whole() {
        let text = format!("{}\nshort\n{}", "x".repeat(100), "y".repeat(50));
        let mut input = io::BufReader::with_capacity(8, text.as_bytes());
        let mut line = Vec::new();
        let mut next = || {
            line.clear();
            let kind = read_line(&mut input, &mut line, 10).unwrap();
            (kind, String::from_utf8(line.clone()).unwrap())
        };
        assert_eq!(next(), (Line::TooLong, String::new()));
        assert_eq!(next(), (Line::Whole, "short\n".to_string()));
        assert_eq!(next(), (Line::TooLong, String::new()));
        assert_eq!(next(), (Line::End, String::new()));
    }

    #[test]
    fn line_endings_are_trimmed() {
        assert_eq!(trim_newline(b"{}\r\n"), b"{}");
        assert_eq!(trim_newline(b"{}"), b"{}");
    }
}
