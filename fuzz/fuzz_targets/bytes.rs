#![no_main]
//! The bytes entry points against the `Value` ones on raw text: decoding
//! (escapes, numbers, duplicate keys, depth), the engine on the compact
//! document and the writer must give the same bytes, or the same error.
//! The documents as one line (`{"a": ..., "b": ..., "c": ...}`, as a batch
//! case; an apply's as `{"b": patch, "a": original}`, the original then
//! read with the patch as guide), read at once and run on the documents
//! read, must give the same again.

use libfuzzer_sys::fuzz_target;
use smp_core::unstable::{Guides, read_guided_members, to_json_vec};
use smp_core::unstable::compact::{Node, Object};
use smp_core::{Result, ThreeWayOptions};
use smp_fuzz::RawInput;

fuzz_target!(|data: &[u8]| {
    let Some(input) = RawInput::parse(data, 3) else { return };
    let schema = input.schema();
    let [a, b, c] = [input.docs[0], input.docs[1], input.docs[2]];
    let options = ThreeWayOptions { overwrite: input.flag(), ..Default::default() };
    let value_route = |op: u8| -> Result<Vec<u8>> {
        let (a, b) = (smp_core::decode(a)?, smp_core::decode(b)?);
        let out = match op {
            0 => smp_core::apply(&a, &b, schema)?,
            1 => smp_core::diff(&a, &b, schema)?,
            _ => smp_core::three_way(&a, &b, &smp_core::decode(c)?, schema, options)?,
        };
        to_json_vec(&out)
    };
    let op = (input.selector >> 4) % 3;
    let bytes_route = match op {
        0 => smp_core::apply_slice(a, b, schema),
        1 => smp_core::diff_slice(a, b, schema),
        _ => smp_core::three_way_slice(a, b, c, schema, options),
    };
    let show = |r: Result<Vec<u8>>| r.map_err(|e| e.to_string());
    let docs = if op < 2 { &[a, b][..] } else { &[a, b, c][..] };
    let line_route = line_route(op, docs, schema, options);
    let bytes_route = show(bytes_route);
    assert_eq!(bytes_route, show(value_route(op)), "op {op}");
    // A line is JSON where each document is (blank text, `{}` on its own, is not).
    let blank = docs.iter().any(|d| d.iter().all(u8::is_ascii_whitespace));
    match line_route {
        Some(line) => assert_eq!(show(line), bytes_route, "op {op}, one line"),
        None => assert!(blank || bytes_route.is_err(), "op {op}: the line is refused, the documents are not"),
    }
});

/// The operation on the documents of one line; `None` when the line is not
/// a JSON object of objects (or nulls).
fn line_route(
    op: u8,
    docs: &[&[u8]],
    schema: smp_core::Schema<'_>,
    options: ThreeWayOptions<'_>,
) -> Option<Result<Vec<u8>>> {
    // An apply's line has its patch first: the original is then read with
    // the patch as guide, as the batch reads it; a three-way line has its
    // live object last, read with the desired object as guide.
    let names: &[&str] = if op == 0 { &["b", "a"] } else { &["a", "b", "c"][..docs.len()] };
    let mut line = b"{".to_vec();
    for (i, name) in names.iter().enumerate() {
        let doc = docs[usize::from(name.as_bytes()[0] - b'a')];
        line.extend_from_slice(format!("{}\"{name}\":", if i > 0 { "," } else { "" }).as_bytes());
        line.extend_from_slice(doc);
    }
    line.push(b'}');
    let mut fixed = None;
    let guides = match op {
        0 => Guides::Apply { original: "a", patch: "b" },
        1 => Guides::Diff,
        _ => Guides::ThreeWay { current: "c", modified: "b" },
    };
    let members = read_guided_members(&line, &mut fixed, guides).ok()?;
    let mut objects = vec![Object::default(); docs.len()];
    let mut seen = [false; 3];
    for m in members {
        // A document's text may close its own member and add others: each
        // name must come once.
        let at = ["a", "b", "c"][..docs.len()].iter().position(|n| *n == m.key)?;
        if std::mem::replace(&mut seen[at], true) {
            return None;
        }
        match m.value {
            Node::Object(o) => objects[at] = o,
            Node::Null => {}
            _ => return None,
        }
    }
    if seen.iter().filter(|s| **s).count() != docs.len() {
        return None;
    }
    objects.resize_with(3, Object::default);
    let [a, b, c]: [Object<'_>; 3] = objects.try_into().ok()?;
    let mut out = Vec::new();
    let done = match op {
        0 => smp_core::unstable::apply_object(&mut out, a, b, schema),
        1 => smp_core::unstable::diff_objects(&mut out, &a, &b, schema),
        _ => smp_core::unstable::three_way_objects(&mut out, &a, &b, &c, schema, options),
    };
    Some(done.map(|()| out))
}
