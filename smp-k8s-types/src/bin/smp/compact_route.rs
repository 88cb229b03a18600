//! `smp apply|diff|three-way` on the usual inputs, one JSON object per
//! file and a strategic patch, through the compact documents of the bytes
//! entry points (strings borrowed from the text; what an apply's patch
//! does not reach kept as text) instead of `serde_json::Value`s: a few
//! times the input in memory rather than some fifty times, and the result
//! written out straight from the document.
//!
//! Everything else takes the general route ([`crate::single`]), and so
//! does every case whose answer is not a plain result: an error of any
//! kind (the general route gives the message), and numbers other than
//! integers, which kubectl reads back through Go's encoder before the
//! patch library sees them (`1.0` is the integer 1 there).

use crate::args::{Format, PatchType, Source};
use crate::documents::{self, Objects};
use crate::numbers;
use crate::op::{Extensions, Op};
use crate::output::{GoEscapes, output_error};
use crate::prescan;
use crate::request::Request;
use crate::schema::Resolver;
use serde::Serialize;
use smp_core::ThreeWayOptions;
use smp_core::unstable::compact::{self, Node, Object, Reading};
use smp_core::unstable::{apply_document, diff_document, three_way_document};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

/// The answer by the compact route, or `None` when the request or its
/// inputs take the general route.
pub fn run(request: &Request<'_>, resolver: &mut Resolver<'_>) -> Option<Result<ExitCode, crate::output::Failure>> {
    let plain = matches!(request.op, Op::Apply | Op::Diff | Op::ThreeWay)
        && request.patch_type == PatchType::Strategic
        && request.ext == Extensions::default()
        && request.format == Format::Json
        && request.inline_patch.is_none()
        && !(request.explain || request.diff || request.from_annotation);
    if !plain {
        return None;
    }
    // Files only: standard input can be read once, and the general route
    // may need it.
    let texts = request
        .inputs
        .iter()
        .map(|source| match source {
            Source::File(path) if !path.is_dir() => std::fs::read(path).ok().filter(|text| plain_json(text)),
            _ => None,
        })
        .collect::<Option<Vec<Vec<u8>>>>()?;
    let names = request.op.inputs();
    let answer = match (request.op, texts.as_slice()) {
        (Op::Apply, [original, patch]) => {
            let patch = compact::decode_as(patch, Reading::Patch).ok()?;
            let original = compact::decode_as(original, Reading::OriginalOf(&patch))
                .ok()
                .filter(|object| read_alike(object, request.objects))?;
            let schema = schema(resolver, &[&original, &patch], names)?;
            let had_kind = has_kind(&original);
            let result = apply_document(original, &patch, schema).ok()?;
            drop(patch);
            // kubectl refuses a result without the kind the original had.
            if had_kind && !has_kind(&result) {
                return None;
            }
            result
        }
        (Op::Diff, [original, modified]) => {
            let (original, modified) = (compared(original, request.objects)?, compared(modified, request.objects)?);
            let schema = schema(resolver, &[&original, &modified], names)?;
            diff_document(&original, &modified, schema).ok()?
        }
        (Op::ThreeWay, [original, modified, current]) => {
            let objects = request.objects;
            let (original, modified, current) =
                (compared(original, objects)?, compared(modified, objects)?, compared(current, objects)?);
            let schema = schema(resolver, &[&original, &modified, &current], names)?;
            let options = ThreeWayOptions { overwrite: request.overwrite, ..Default::default() };
            three_way_document(&original, &modified, &current, schema, options).ok()?
        }
        _ => return None,
    };
    let changed = request.op != Op::Apply && answer.iter().next().is_some();
    Some(
        print(&answer)
            .map(|()| if request.exit_code && changed { ExitCode::from(1) } else { ExitCode::SUCCESS })
            .map_err(output_error),
    )
}

/// Whether the text is read alike by both routes: a JSON object in UTF-8,
/// without a byte-order mark or escapes of surrogates (which kubectl reads
/// as the general route does, replacing what is unpaired).
fn plain_json(text: &[u8]) -> bool {
    !text.starts_with(b"\xEF\xBB\xBF")
        && prescan::is_json(text)
        && std::str::from_utf8(text).is_ok()
        && memchr::memmem::find(text, br"\ud").is_none()
        && memchr::memmem::find(text, br"\uD").is_none()
}

/// An object of a file read as a diff reads it (`Reading::Compared`), if
/// the general route reads it alike.
fn compared(text: &[u8], objects: Objects) -> Option<Object<'_>> {
    compact::decode_as(text, Reading::Compared).ok().filter(|object| read_alike(object, objects))
}

/// Whether the general route reads the object of a file without refusing
/// it (`documents::check_read`: its type and object metadata as kubectl
/// reads them).
fn read_alike(object: &Object<'_>, objects: Objects) -> bool {
    if objects == Objects::Any {
        return true;
    }
    let head = object
        .iter()
        .filter(|(k, _)| ["apiVersion", "kind", "metadata"].contains(k))
        .map(|(k, v)| Some((k.to_string(), serde_json::to_value(v).ok()?)))
        .collect::<Option<serde_json::Map<_, _>>>();
    head.is_some_and(|head| documents::check_read(&head).is_ok())
}

/// The schema of the documents' kind, if they are single objects and
/// every number in them is an integer (see the module's comment).
fn schema<'s>(resolver: &mut Resolver<'s>, docs: &[&Object<'_>], names: &[&str]) -> Option<smp_core::Schema<'s>> {
    // A list of objects (`kind: List` with `items`) is patched item by item.
    let is_list = |doc: &Object<'_>| {
        doc.iter().any(|(k, v)| k == "kind" && v.as_str().is_some_and(|kind| kind.ends_with("List")))
            && doc.iter().any(|(k, _)| k == "items")
    };
    if docs.iter().any(|doc| is_list(doc)) || !docs.iter().all(|doc| doc.iter().all(|(_, v)| integers_only(v))) {
        return None;
    }
    let field = |doc: &Object<'_>, name: &str| {
        doc.iter().find(|(k, _)| *k == name).and_then(|(_, v)| v.as_str()).map(str::to_owned)
    };
    resolver.schema_by(docs.iter().map(|doc| (field(doc, "apiVersion"), field(doc, "kind"))), names).ok()
}

/// Whether every number of the value is an integer. A value kept as text
/// is a string, or canonical text, whose numbers are integers.
fn integers_only(node: &Node<'_>) -> bool {
    match node {
        Node::Float(_) => false,
        Node::Array(items) => items.iter().all(integers_only),
        Node::Object(object) => object.iter().all(|(_, v)| integers_only(v)),
        _ => true,
    }
}

fn has_kind(object: &Object<'_>) -> bool {
    object.iter().any(|(k, v)| k == "kind" && v.as_str().is_some_and(|kind| !kind.is_empty()))
}

/// Writes the answer as the general route does: indented JSON with Go's
/// numbers and escapes, then a line break.
fn print(answer: &Object<'_>) -> io::Result<()> {
    let mut out = GoEscapes(BufWriter::new(io::stdout().lock()));
    answer.serialize(&mut serde_json::Serializer::with_formatter(&mut out, numbers::pretty()))?;
    out.write_all(b"\n")?;
    out.flush()
}
