//! `--jsonl`: one case per input line, one answer per output line, in order.

use crate::args::Source;
use crate::op::Op;
use crate::output::{write_answer_line, write_error_line};
use crate::schema::Resolver;
use serde_json::Value;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};

/// Runs every case of `source`. Each line's failure is written as an
/// error line; only I/O failures stop the batch.
pub fn run(op: Op, source: &Source, resolver: &mut Resolver<'_>, overwrite: bool) -> Result<(), String> {
    let mut input = open(source)?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = Vec::with_capacity(1 << 12);
    loop {
        line.clear();
        let read = input.read_until(b'\n', &mut line).map_err(|e| format!("cannot read {source}: {e}"))?;
        if read == 0 {
            break;
        }
        answer(&mut out, op, trim_newline(&line), resolver, overwrite).map_err(write_error)?;
    }
    out.flush().map_err(write_error)
}

fn open(source: &Source) -> Result<Box<dyn BufRead>, String> {
    match source {
        Source::Stdin => Ok(Box::new(io::stdin().lock())),
        Source::File(path) => {
            let file = File::open(path).map_err(|e| format!("cannot read cases file {source}: {e}"))?;
            Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
        }
    }
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn write_error(e: io::Error) -> String {
    format!("cannot write output: {e}")
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
        return Err(format!("a case must be a JSON object, not {}", crate::input::type_name(&case)));
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
        Some(other) => return Err(format!("overwrite must be a boolean, not {}", crate::input::type_name(other))),
    };
    Ok((docs, overwrite))
}
