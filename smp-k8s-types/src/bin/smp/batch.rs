//! `--jsonl`: one case per input line, one answer per output line, in order.

use crate::args::Source;
use crate::args::{PatchType, SchemaArgs};
use crate::input::{self, JsonError, describe, type_name};
use crate::op::{Extensions, Op};
use crate::output::{Failure, output_error, write_answer_line, write_error_line};
use crate::prescan;
use crate::schema::{self, Resolver};
use serde_json::Value;
use smp_core::directive::{PATCH, RETAIN_KEYS};
use smp_core::unstable::Guides;
use smp_core::unstable::compact::{self, Node};
use smp_core::{ErrorKind, ThreeWayOptions};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::ops::Range;
use std::sync::{Mutex, mpsc};

/// What the input is called in messages.
const CASES: &str = "cases";

/// Cases read and answered as one unit of work.
const CHUNK_LINES: usize = 64;

/// A chunk of input lines, numbered: the lines' text in one buffer, and
/// where each line is in it (`None`: a line too long to read).
struct Chunk<'m> {
    index: usize,
    text: Text<'m>,
    lines: Vec<Option<Range<usize>>>,
}

/// The text of a chunk: read into a buffer of its own, or where it lies
/// in a mapped file.
enum Text<'m> {
    Read(Vec<u8>),
    Mapped(&'m [u8]),
}

impl std::ops::Deref for Text<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Text::Read(text) => text,
            Text::Mapped(text) => text,
        }
    }
}

/// The cases of a batch: a regular file mapped into memory, read where it
/// lies (a long line costs neither a copy nor fresh memory, which the
/// kernel would zero first, which makes it faster to read); or a stream (the
/// standard input, a pipe), read line by line, with what is left of it
/// when known (a file redirected to the standard input).
enum Input {
    Mapped(memmap2::Mmap),
    Stream(Box<dyn BufRead + Send>, Option<u64>),
}

/// Runs every case of `source` on `jobs` threads; answers are written in
/// the order of the cases. Each line's failure is written as an error
/// line; only I/O failures stop the batch. Lines longer than `max_line`
/// bytes are answered with an error line without being held in memory.
pub fn run(batch: &Batch<'_>, source: &Source, jobs: usize) -> Result<(), Failure> {
    let (map, mut stream) = match open(source)? {
        Input::Mapped(map) => (Some(map), None),
        Input::Stream(input, left) => (None, Some((input, left))),
    };
    let mapped: Option<&[u8]> = map.as_deref();
    let read_error = |e: io::Error| Failure::Error(format!("cannot read {}: {e}", describe(source, CASES)));
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    // Chunks read but not yet written are bounded: the reader takes a slot
    // before reading a chunk, the writer gives it back.
    let in_flight = 4 * jobs;
    let (slot_tx, slot_rx) = mpsc::sync_channel::<()>(in_flight);
    let (work_tx, work_rx) = mpsc::sync_channel::<Chunk<'_>>(in_flight);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<(usize, Vec<u8>)>();
    std::thread::scope(|scope| {
        let thread = || std::thread::Builder::new();
        let reader = thread().spawn_scoped(scope, move || -> io::Result<()> {
            let send = |chunk| slot_tx.send(()).is_ok() && work_tx.send(chunk).is_ok();
            let Some((input, left)) = stream.as_mut() else {
                split_mapped(mapped.unwrap_or_default(), batch.max_line, send);
                return Ok(());
            };
            // Chunks are alike: each one's buffer starts at the size of the
            // one before, so that it is seldom grown (and copied) as it fills.
            // Long lines do not count: each gets room of its own as it is
            // read, and a buffer the size of a huge line, made before the
            // next line is known to exist, would double the batch's memory.
            let mut size = 0;
            for index in 0.. {
                let mut lines = Vec::with_capacity(CHUNK_LINES);
                let mut text = Vec::with_capacity(size);
                // The chunk's text but its long lines, with room for the line
                // breaks, read before they are cut off.
                let mut short = 0;
                while lines.len() < CHUNK_LINES {
                    let start = text.len();
                    match read_line(input, left, &mut text, batch.max_line)? {
                        Line::End => break,
                        Line::Whole => {
                            let len = trim_newline(&text[start..]).len();
                            text.truncate(start + len);
                            lines.push(Some(start..start + len));
                            if (len as u64) < LONG_LINE {
                                short += len + 2;
                            }
                        }
                        Line::TooLong => lines.push(None),
                    }
                }
                size = size.max(short);
                if lines.is_empty() || !send(Chunk { index, text: Text::Read(text), lines }) {
                    return Ok(());
                }
            }
            Ok(())
        });
        let reader = reader.map_err(|e| Failure::Error(format!("cannot start a thread: {e}")))?;
        // Threads the system refuses (a memory limit, a limit on
        // processes) are done without: fewer jobs, none only if none starts.
        let mut workers = 0;
        let mut refused = None;
        for _ in 0..jobs {
            let (work_rx, done_tx) = (&work_rx, done_tx.clone());
            let spawned = thread().spawn_scoped(scope, move || {
                let mut resolver = match batch.resolver() {
                    Ok(resolver) => resolver,
                    Err(_) => return,
                };
                loop {
                    let next = work_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok(Chunk { index, text, lines })) = next else { return };
                    // Answers are about as long as the cases (an apply's result
                    // is its original patched).
                    let mut answers = Vec::with_capacity(text.len() + 64 * lines.len());
                    for line in lines {
                        // Writing to memory cannot fail.
                        let _ = match line {
                            Some(line) => answer(&mut answers, batch, &text[line], &mut resolver),
                            None => too_long(&mut answers, batch),
                        };
                    }
                    if done_tx.send((index, answers)).is_err() {
                        return;
                    }
                }
            });
            match spawned {
                Ok(_) => workers += 1,
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        drop(done_tx);
        if let (0, Some(e)) = (workers, refused) {
            // Stops the reader, then fails.
            drop(slot_rx);
            let _ = reader.join();
            return Err(Failure::Error(format!("cannot start a thread for --jobs: {e}")));
        }
        let written = write_in_order(&mut out, done_rx, &slot_rx);
        // Stop the reader and the workers if the writer stopped early.
        drop(slot_rx);
        let read = reader.join().unwrap_or(Ok(()));
        written.map_err(output_error)?;
        read.map_err(read_error)?;
        out.flush().map_err(output_error)
    })
}

/// Writes the answers of each chunk as soon as those before it are
/// written, and frees its slot.
fn write_in_order(
    out: &mut impl Write,
    done: mpsc::Receiver<(usize, Vec<u8>)>,
    slots: &mpsc::Receiver<()>,
) -> io::Result<()> {
    let mut waiting = BTreeMap::new();
    let mut next = 0;
    for (index, answers) in done {
        waiting.insert(index, answers);
        while let Some(answers) = waiting.remove(&next) {
            out.write_all(&answers)?;
            let _ = slots.recv();
            next += 1;
        }
    }
    Ok(())
}

/// What every case of a batch shares.
pub struct Batch<'a> {
    pub op: Op,
    pub overwrite: bool,
    /// `--patch-merge-key`, `--strict`, `--checked`.
    pub ext: Extensions,
    /// check found something in some case (its exit status is then 1).
    pub found: std::sync::atomic::AtomicBool,
    pub max_line: u64,
    pub schema: &'a SchemaArgs,
    pub documents: &'a [schema::Document],
}

impl<'a> Batch<'a> {
    /// A resolver of its own for each thread (it caches kinds).
    fn resolver(&self) -> Result<Resolver<'a>, String> {
        Resolver::new(self.schema, self.documents)
    }
}

fn too_long(out: &mut impl Write, batch: &Batch<'_>) -> io::Result<()> {
    let message = format!("the line is longer than {} bytes (see --max-line-bytes)", batch.max_line);
    write_error_line(out, &message, (batch.op == Op::ThreeWay).then_some(false))
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq)]
enum Line {
    Whole,
    TooLong,
    End,
}

/// A line that has grown this long gets room for the rest of the input at
/// once, when the input's length is known.
const LONG_LINE: u64 = 1 << 20;

/// Reads one line to the end of `text`, up to `max` bytes; the rest of a
/// longer line is skipped, and `text` is left as it was. `left` is what
/// the input holds, when known (a file): once a line is long, `text` is
/// grown once to hold the rest of it, rather than doubled as it fills
/// (which may hold the line twice while it is copied, and keeps up to
/// twice its length).
fn read_line(input: &mut impl BufRead, left: &mut Option<u64>, text: &mut Vec<u8>, max: u64) -> io::Result<Line> {
    let start = text.len();
    // `read_until` on at most `max + 2` bytes (a line of `max` and its
    // `\r\n`), with a vectorised search for the line break (the standard
    // library's looks a word at a time).
    let limit = max.saturating_add(2);
    let mut read = 0;
    let mut ended = false;
    while read < limit {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let buf = &buf[..buf.len().min(usize::try_from(limit - read).unwrap_or(usize::MAX))];
        let (part, line_ends) = match memchr::memchr(b'\n', buf) {
            Some(at) => (&buf[..=at], true),
            None => (buf, false),
        };
        let n = part.len();
        if let Some(rest) = left.as_mut() {
            // (A hint that fell short, of a file that grew, leaves the
            // growing to `extend`.)
            if read >= LONG_LINE && text.capacity() - text.len() < n && *rest > n as u64 {
                text.reserve_exact(usize::try_from((*rest).min(limit - read)).unwrap_or(n));
            }
            *rest = rest.saturating_sub(n as u64);
        }
        text.extend_from_slice(part);
        input.consume(n);
        read += n as u64;
        if line_ends || n == 0 {
            ended = true;
            break;
        }
    }
    if read == 0 {
        return Ok(Line::End);
    }
    if ended && trim_newline(&text[start..]).len() as u64 <= max {
        return Ok(Line::Whole);
    }
    if text.last() != Some(&b'\n') {
        let skipped = skip_line(input)?;
        if let Some(rest) = left.as_mut() {
            *rest = rest.saturating_sub(skipped);
        }
    }
    text.truncate(start);
    Ok(Line::TooLong)
}

/// Cuts a mapped input into chunks of lines, as [`read_line`] reads a
/// stream, and gives them to `send` until it refuses one.
fn split_mapped<'m>(text: &'m [u8], max: u64, mut send: impl FnMut(Chunk<'m>) -> bool) {
    let mut pos = 0;
    for index in 0.. {
        if pos == text.len() {
            return;
        }
        let start = pos;
        let mut lines = Vec::with_capacity(CHUNK_LINES);
        while lines.len() < CHUNK_LINES && pos < text.len() {
            let end = memchr::memchr(b'\n', &text[pos..]).map_or(text.len(), |at| pos + at + 1);
            let len = trim_newline(&text[pos..end]).len();
            lines.push((len as u64 <= max).then_some(pos - start..pos - start + len));
            pos = end;
        }
        if !send(Chunk { index, text: Text::Mapped(&text[start..pos]), lines }) {
            return;
        }
    }
}

/// Skips input up to and including the next line break; gives the bytes
/// skipped.
fn skip_line(input: &mut impl BufRead) -> io::Result<u64> {
    let mut skipped = 0;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(skipped);
        }
        match memchr::memchr(b'\n', buf) {
            Some(at) => {
                input.consume(at + 1);
                return Ok(skipped + at as u64 + 1);
            }
            None => {
                let len = buf.len();
                input.consume(len);
                skipped += len as u64;
            }
        }
    }
}

/// What is left to read of the standard input, when it is a regular file
/// (`smp ... --jsonl < cases.jsonl`).
fn stdin_left() -> Option<u64> {
    use std::io::Seek;
    use std::os::fd::AsFd;
    let mut file = File::from(io::stdin().as_fd().try_clone_to_owned().ok()?);
    let len = file.metadata().ok().filter(|m| m.is_file())?.len();
    Some(len.saturating_sub(file.stream_position().ok()?))
}

/// The input: a regular file mapped, anything else as a stream.
fn open(source: &Source) -> Result<Input, String> {
    match source {
        Source::Stdin => Ok(Input::Stream(Box::new(BufReader::with_capacity(1 << 16, io::stdin())), stdin_left())),
        Source::File(path) => {
            let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", describe(source, CASES)))?;
            // Only a regular file's length is what reading it gives.
            let len = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            if len.is_some_and(|len| len > 0) {
                // SAFETY: the map is only read. A file changed by another
                // process while it is mapped reads as its new bytes, or,
                // cut shorter, kills the process (SIGBUS), as it would any
                // program that maps its input; the cases of a batch are
                // not expected to change while it runs.
                if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                    return Ok(Input::Mapped(map));
                }
            }
            Ok(Input::Stream(Box::new(BufReader::with_capacity(1 << 16, file)), len))
        }
    }
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Computes one line's answer and writes it.
fn answer(out: &mut Vec<u8>, batch: &Batch<'_>, line: &[u8], resolver: &mut Resolver<'_>) -> io::Result<()> {
    let start = out.len();
    match answer_bytes(out, batch, line, resolver) {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => {
            out.truncate(start);
            write_error_line(out, &e.to_string(), (batch.op == Op::ThreeWay).then(|| e.is_conflict()))
        }
        None => {
            out.truncate(start);
            answer_parsed(out, batch, line, resolver)
        }
    }
}

/// The answer line of a strategic apply, diff or three-way by the bytes
/// entry points of smp-core, the line read once into compact documents,
/// written to `out` (which holds a partial line after an error). `None`
/// when the line or the options need the general path: other patch types
/// and extensions, and every line whose answer is not a result or an error
/// of the operation itself (bad JSON, a missing or mistyped field, an
/// unknown kind), so that messages stay the general path's.
fn answer_bytes(
    out: &mut Vec<u8>,
    batch: &Batch<'_>,
    line: &[u8],
    resolver: &mut Resolver<'_>,
) -> Option<smp_core::Result<()>> {
    if batch.schema.patch_type != PatchType::Strategic || batch.ext != Extensions::default() || batch.op == Op::Check {
        return None;
    }
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let mut fixed = None;
    let guides = match batch.op {
        Op::Apply => Guides::Apply { original: "original", patch: "patch" },
        Op::ThreeWay => Guides::ThreeWay { current: "current", modified: "modified" },
        Op::Diff => Guides::Diff,
        _ => Guides::None,
    };
    let mut fields = smp_core::unstable::read_guided_members(line, &mut fixed, guides).ok()?;
    // The last of duplicate fields counts, as in JSON.
    let last = |name: &str| fields.iter().rposition(|f| f.key == name);
    let names = batch.op.inputs();
    let mut at = Vec::with_capacity(names.len());
    for name in names {
        let i = last(name)?;
        if !matches!(fields[i].value, Node::Object(_) | Node::Null) {
            return None;
        }
        at.push(i);
    }
    let overwrite = match last("overwrite").map(|i| &fields[i].value) {
        None | Some(Node::Null) => batch.overwrite,
        Some(Node::Bool(b)) => *b,
        Some(_) => return None,
    };
    let patch_text = fields[at[1]].text;
    let mut docs: Vec<compact::Object<'_>> = at
        .iter()
        .map(|&i| match std::mem::take(&mut fields[i].value) {
            Node::Object(o) => o,
            _ => compact::Object::default(),
        })
        .collect();
    let string = |doc: &compact::Object<'_>, key: &str| {
        doc.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.as_str()).map(str::to_string)
    };
    let metas: Vec<_> = docs.iter().map(|doc| (string(doc, "apiVersion"), string(doc, "kind"))).collect();
    let has_kind = |i: usize| metas.get(i).and_then(|(_, kind)| kind.as_deref()).is_some_and(|kind| !kind.is_empty());
    // A patch that sets a kind itself keeps one, unless it deletes the whole object.
    let (had_kind, patch_sets_kind) = (has_kind(0), has_kind(1));
    let schema = resolver.schema_by(metas, names).ok()?;
    let key = batch.op.output_key();
    out.reserve(line.len() + key.len() + 8);
    write!(out, "{{\"{key}\":").ok()?;
    let start = out.len();
    let result = match batch.op {
        Op::Apply => {
            let patch = docs.pop().unwrap_or_default();
            let original = docs.pop().unwrap_or_default();
            smp_core::unstable::apply_object(out, original, patch, schema).and_then(|()| {
                // Only a patch with a `kind` or directive key can remove the
                // original's kind (as kubectl refuses): then read the result.
                let touches =
                    |key: &str| memchr::memmem::find(patch_text.as_bytes(), format!("\"{key}\"").as_bytes()).is_some();
                let may_remove = if patch_sets_kind {
                    touches(PATCH)
                } else {
                    touches("kind") || touches(PATCH) || touches(RETAIN_KEYS)
                };
                if had_kind && may_remove {
                    let value: Value =
                        serde_json::from_slice(&out[start..]).map_err(|e| ErrorKind::Deserialize(e.to_string()))?;
                    crate::op::kind_kept(true, &value)?;
                }
                Ok(())
            })
        }
        Op::Diff => smp_core::unstable::diff_objects(out, &docs[0], &docs[1], schema),
        Op::ThreeWay => {
            let options = ThreeWayOptions { overwrite, preconditions: &[], patch_merge_key: false };
            smp_core::unstable::three_way_objects(out, &docs[0], &docs[1], &docs[2], schema, options)
        }
        Op::Check => return None,
    };
    match result {
        Ok(()) => {
            out.extend_from_slice(b"}\n");
            Some(Ok(()))
        }
        // A document the general path reads otherwise, or refuses with a
        // message of its own.
        Err(e) if e.kind == ErrorKind::InvalidJsonDocument => None,
        Err(e) => Some(Err(e)),
    }
}

/// Parses the line whole, then runs the operation on the documents.
fn answer_parsed(out: &mut impl Write, batch: &Batch<'_>, line: &[u8], resolver: &mut Resolver<'_>) -> io::Result<()> {
    let (op, overwrite, patch_type) = (batch.op, batch.overwrite, batch.schema.patch_type);
    let can_conflict = (op == Op::ThreeWay).then_some(false);
    let (docs, overwrite) = match parse_case(op, line, overwrite, patch_type) {
        Ok(case) => case,
        Err(message) => return write_error_line(out, &message, can_conflict),
    };
    let schema = match resolver.schema_for(&docs, op.inputs()) {
        Ok(schema) => schema,
        Err(message) => return write_error_line(out, &message, can_conflict),
    };
    match op.run_owned(docs, overwrite, schema, patch_type, batch.ext) {
        Ok(value) => {
            if value.as_array().is_some_and(|findings| !findings.is_empty()) {
                batch.found.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            write_answer_line(out, op.output_key(), &value)
        }
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
fn parse_case(op: Op, line: &[u8], default: bool, patch_type: PatchType) -> Result<(Vec<Value>, bool), String> {
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
        // A JSON patch to apply is a list of operations; `null` is none,
        // as the reference's library reads it (and as for `-p null`).
        let json_patch = *name == "patch" && patch_type == PatchType::Json;
        let doc = if json_patch && doc.is_null() { Value::Array(Vec::new()) } else { doc };
        let fits = match doc {
            Value::Object(_) | Value::Null => true,
            Value::Array(_) => json_patch,
            _ => false,
        };
        if !fits {
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
        let (docs, overwrite) = parse_case(Op::ThreeWay, line, false, PatchType::Strategic).unwrap();
        assert_eq!(docs, [json!({"o": 1}), Value::Null, json!({"c": 1})]);
        assert!(overwrite);
    }

    #[test]
    fn a_null_json_patch_is_no_operations_as_with_p() {
        let line = br#"{"original": {"a": 1}, "patch": null}"#;
        let (docs, _) = parse_case(Op::Apply, line, false, PatchType::Json).unwrap();
        assert_eq!(docs, [json!({"a": 1}), json!([])]);
        let (docs, _) = parse_case(Op::Apply, line, false, PatchType::Merge).unwrap();
        assert_eq!(docs[1], Value::Null, "refused later, as by the reference");
    }

    #[test]
    fn bad_case_lines_say_why() {
        let err = |line: &[u8]| parse_case(Op::Apply, line, false, PatchType::Strategic).unwrap_err();
        assert!(err(b"  ").starts_with("empty line"));
        assert!(err(b"{").starts_with("invalid JSON"));
        assert_eq!(err(b"[]"), "a case must be a JSON object, not a list");
        assert_eq!(err(br#"{"original": {}}"#), "missing field \"patch\"");
        let bad_overwrite = br#"{"original": {}, "modified": {}, "current": {}, "overwrite": "yes"}"#;
        let err = parse_case(Op::ThreeWay, bad_overwrite, false, PatchType::Strategic).unwrap_err();
        assert_eq!(err, "overwrite must be a boolean, not a string");
    }

    #[test]
    fn errors_name_the_document() {
        let err = |line: &[u8]| parse_case(Op::Apply, line, false, PatchType::Strategic).unwrap_err();
        assert_eq!(err(br#"{"original": {}, "patch": [1]}"#), "\"patch\" must be an object, not a list");
        let message = err(br#"{"original": {"a": 1}, "patch": {"b": 1e309}}"#);
        assert!(message.starts_with("invalid JSON: in \"patch\": number out of range"), "{message}");
        let deep = format!(r#"{{"original": {{}}, "patch": {{"a": {}1{}}}}}"#, "[".repeat(200), "]".repeat(200));
        let message = err(deep.as_bytes());
        assert!(message.starts_with("invalid JSON: nested deeper than 128 levels at line 1, column"), "{message}");
        assert!(message.ends_with(", in \"patch\""), "{message}");
    }

    #[test]
    fn plain_strategic_lines_go_to_the_bytes_entry_points() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            schema: SchemaArgs,
        }
        let cli = <Cli as clap::Parser>::parse_from(["smp", "--untyped"]);
        let mut batch = Batch {
            op: Op::Apply,
            overwrite: false,
            ext: Extensions::default(),
            found: Default::default(),
            max_line: 1 << 20,
            schema: &cli.schema,
            documents: &[],
        };
        let mut resolver = batch.resolver().unwrap();
        let answer = |batch: &Batch<'_>, resolver: &mut Resolver<'_>, line: &str| {
            let mut out = Vec::new();
            answer_bytes(&mut out, batch, line.as_bytes(), resolver).map(|r| r.map(|()| out).map_err(|e| e.to_string()))
        };
        let plain = r#"{"original": {"a": -0, "l": [1]}, "patch": {"b": 1, "l": [2]}}"#;
        let want = b"{\"result\":{\"a\":0,\"b\":1,\"l\":[2]}}\n".to_vec();
        assert_eq!(answer(&batch, &mut resolver, plain), Some(Ok(want)));
        let error = r#"{"original": {}, "patch": {"$patch": "nonsense"}}"#;
        assert!(matches!(answer(&batch, &mut resolver, error), Some(Err(_))));
        // What the general path reads otherwise or refuses with its own words.
        for line in [r#"{"original": [], "patch": {}}"#, r#"{"original": {"a": x}, "patch": {}}"#, r#"{"patch": {}}"#] {
            assert_eq!(answer(&batch, &mut resolver, line), None, "{line}");
        }
        batch.ext.patch_merge_key = true;
        assert_eq!(answer(&batch, &mut resolver, plain), None);
    }

    #[test]
    fn a_long_line_of_a_file_is_read_into_one_buffer_of_its_size() {
        let line = format!("{}\n", "x".repeat(3 << 20));
        let text = format!("{line}short\n");
        let total = text.len() as u64;
        let read = |left: Option<u64>| {
            let mut input = io::BufReader::with_capacity(1 << 16, text.as_bytes());
            let (mut left, mut buf) = (left, Vec::new());
            assert_eq!(read_line(&mut input, &mut left, &mut buf, 1 << 30).unwrap(), Line::Whole);
            assert_eq!(buf, line.as_bytes());
            let capacity = buf.capacity();
            assert_eq!(read_line(&mut input, &mut left, &mut buf, 1 << 30).unwrap(), Line::Whole);
            assert_eq!(&buf[line.len()..], b"short\n");
            capacity
        };
        // Known length: room for the rest of the input, once.
        assert_eq!(read(Some(total)) as u64, total);
        // Unknown, or a length that fell short: grown by doubling.
        assert!(read(None) as u64 > total);
        assert!(read(Some(1 << 20)) as u64 > total);
    }

    #[test]
    fn long_lines_are_skipped_without_being_read_whole() {
        let text = format!("{}\nshort\n{}", "x".repeat(100), "y".repeat(50));
        let mut input = io::BufReader::with_capacity(8, text.as_bytes());
        // Lines are read to the end of one buffer; a skipped one leaves it as it was.
        let mut text = b"before\n".to_vec();
        let mut next = || {
            let kind = read_line(&mut input, &mut None, &mut text, 10).unwrap();
            (kind, String::from_utf8(text.clone()).unwrap())
        };
        assert_eq!(next(), (Line::TooLong, "before\n".to_string()));
        assert_eq!(next(), (Line::Whole, "before\nshort\n".to_string()));
        assert_eq!(next(), (Line::TooLong, "before\nshort\n".to_string()));
        assert_eq!(next(), (Line::End, "before\nshort\n".to_string()));
    }

    /// The lines of `text` as the batch reads a stream of it (`None`: too long).
    fn streamed(text: &[u8], max: u64) -> Vec<Option<Vec<u8>>> {
        let mut input = io::BufReader::with_capacity(7, text);
        let mut lines = Vec::new();
        loop {
            let mut buf = Vec::new();
            match read_line(&mut input, &mut None, &mut buf, max).unwrap() {
                Line::End => return lines,
                Line::Whole => lines.push(Some(trim_newline(&buf).to_vec())),
                Line::TooLong => lines.push(None),
            }
        }
    }

    /// The lines of `text` as the batch reads a mapped file of it.
    fn mapped(text: &[u8], max: u64) -> Vec<Option<Vec<u8>>> {
        let mut lines = Vec::new();
        let mut next = 0;
        split_mapped(text, max, |chunk| {
            assert_eq!(chunk.index, next);
            next += 1;
            assert!(chunk.lines.len() <= CHUNK_LINES);
            lines.extend(chunk.lines.iter().map(|l| l.clone().map(|l| chunk.text[l].to_vec())));
            true
        });
        lines
    }

    proptest::proptest! {
        /// A mapped file is cut into the lines a stream of it reads, long
        /// ones refused alike (a line of the limit and its `\r\n` is whole).
        #[test]
        fn mapped_files_read_as_streams(
            parts in proptest::collection::vec(proptest::sample::select(vec!["a", "bb", "\n", "\r\n", "\r", "{}"]), 0..200),
            max in 0u64..8,
        ) {
            let text = parts.concat();
            proptest::prop_assert_eq!(mapped(text.as_bytes(), max), streamed(text.as_bytes(), max));
        }
    }

    #[test]
    fn a_line_of_the_limit_ending_in_crlf_is_whole() {
        let text = b"aaaa\r\nbbbbb\r\ncc";
        let want = vec![Some(b"aaaa".to_vec()), None, Some(b"cc".to_vec())];
        assert_eq!(streamed(text, 4), want);
        assert_eq!(mapped(text, 4), want);
    }

    #[test]
    fn line_endings_are_trimmed() {
        assert_eq!(trim_newline(b"{}\r\n"), b"{}");
        assert_eq!(trim_newline(b"{}"), b"{}");
    }
}
