//! How deep a document may nest: the bound every entry point checks
//! before it recurses, and a drop that does not recurse.

use crate::error::{ErrorKind, Result};
use serde_json::Value;

/// Documents nested deeper than this (objects and lists counted) are refused
/// on every entry point, typed ones included, rather than risking the
/// stack. (serde_json's parser already stops at 128 levels.)
pub const MAX_DEPTH: usize = 256;

pub(crate) fn check_depth(depth: usize) -> Result<()> {
    if depth > MAX_DEPTH { Err(ErrorKind::TooDeep(MAX_DEPTH).into()) } else { Ok(()) }
}

/// Refuses documents nested deeper than [`MAX_DEPTH`], recursing no deeper
/// than that, before any unbounded recursive step (cloning included)
/// touches them: the check every entry point makes, for callers that copy
/// or print a document first.
pub fn check_nesting(v: &Value) -> Result<()> {
    check_nesting_from(v, 0)
}

/// The nesting check below `depth` open levels: a level is refused before
/// it is entered, so the recursion stops at [`MAX_DEPTH`] levels (a few
/// kilobytes of stack), and it needs no heap.
pub(crate) fn check_nesting_from(v: &Value, depth: usize) -> Result<()> {
    // Plain loops: one small frame per level, in debug builds too.
    match v {
        Value::Object(m) => {
            check_depth(depth + 1)?;
            for c in m.values() {
                check_nesting_from(c, depth + 1)?;
            }
        }
        Value::Array(a) => {
            check_depth(depth + 1)?;
            for c in a {
                check_nesting_from(c, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Drops a value without recursion: serde_json's drop recurses, and a
/// value given away to an entry point, or nested deeper by JSON patch
/// moves, may be deeper than the stack allows.
pub(crate) fn discard(value: Value) {
    if !(value.is_object() || value.is_array()) {
        return;
    }
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}
