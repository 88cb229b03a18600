//! `--jsonl`: one case per input line, one answer per output line, in order.

use crate::args::Source;
use crate::input::{describe, type_name};
use crate::op::Op;
use crate::output::{Failure, output_error, write_answer_line, write_error_line};
use crate::schema::Resolver;
use serde_json::Value;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};

/// What the input is called in messages.
const CASES: &str = "cases";

/// Runs every case of `source`. Each line's failure is written as an
/// error line; only I/O failures stop the batch.
pub fn run(op: Op, source: &Source, resolver: &mut Resolver<'_>, overwrite: bool) -> Result<(), Failure> {
    let mut input = open(source)?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = Vec::with_capacity(1 << 12);
    loop {
        line.clear();
        let read = input
            .read_until(b'\n', &mut line)
            .map_err(|e| Failure::Error(format!("cannot read {}: {e}", describe(source, CASES))))?;
        if read == 0 {
            break;
        }
        answer(&mut out, op, trim_newline(&line), resolver, overwrite).map_err(output_error)?;
    }
    out.flush().map_err(output_error)
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

/// The documents of a case line, in the order of [`Op::inputs`], and its
/// `overwrite` switch (`default` when absent).
fn parse_case(op: Op, line: &[u8], default: bool) -> Result<(Vec<Value>, bool), String> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Err("empty line: expected a JSON object".into());
    }
    let case: Value = serde_json::from_slice(line).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(mut fields) = case else {
        return Err(format!("a case must be a JSON object, not {}", type_name(&case)));
    };
    let mut docs = Vec::with_capacity(op.inputs().len());
    for name in op.inputs() {
        let mut doc = fields.remove(*name).ok_or_else(|| format!("missing field {name:?}"))?;
        smp_core::value::normalize_numbers(&mut doc);
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
    fn line_endings_are_trimmed() {
        assert_eq!(trim_newline(b"{}\r\n"), b"{}");
        assert_eq!(trim_newline(b"{}"), b"{}");
    }
}
