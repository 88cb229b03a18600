//! Why a JSON patch (RFC 6902) is refused: typed, for a caller that
//! branches on it (a failed `test` of a guarded patch means the object
//! changed; a path that names nothing may call for another operation),
//! and printed with the operation's position, kind and path.

use std::fmt;

/// Why a JSON patch was not read or did not apply
/// ([`ErrorKind::JsonPatch`](super::ErrorKind::JsonPatch)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum JsonPatchError {
    /// The patch is not a list of operations.
    NotAList {
        /// What it is instead: `an object`, `null` or `a scalar`.
        found: &'static str,
    },
    /// An element of the list that is not an object.
    NotAnObject {
        /// The element's position in the list.
        index: usize,
        /// What it is instead: `a list`, `null` or `a scalar`.
        found: &'static str,
    },
    /// An element of the list that does not read as an operation (when a
    /// patch is read into typed operations).
    Unreadable {
        /// The element's position in the list.
        index: usize,
        /// Why, in serde's words (`missing field "path"`).
        message: String,
    },
    /// An operation that does not apply to the document: nothing of the
    /// patch is applied.
    Failed {
        /// The operation's position in the list.
        index: usize,
        /// Its `op` (`unknown` when it has none).
        op: String,
        /// Its `path`, when it has one that is a string.
        path: Option<String>,
        /// Why.
        reason: OperationFailure,
    },
}

/// Why one operation of a JSON patch did not apply.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum OperationFailure {
    /// A field the operation needs is missing or `null`: `path`, `from`,
    /// or the `value` of a `replace` of the whole document.
    MissingField(&'static str),
    /// `path` or `from` is not a string.
    NotAString {
        /// `path` or `from`.
        field: &'static str,
        /// What it is instead.
        found: &'static str,
    },
    /// `path` names nothing the operation can act on: a key the object
    /// lacks, a list position out of range or not a number, or a parent
    /// that is not an object or a list.
    InvalidPath,
    /// `from` (of a `move` or `copy`) names nothing, as for
    /// [`InvalidPath`](Self::InvalidPath).
    InvalidFrom,
    /// A `test` whose value is not the document's (or that has no value).
    TestFailed,
    /// An `op` that is none of `add`, `remove`, `replace`, `move`, `copy`,
    /// `test`.
    UnknownOperation(String),
    /// A `copy` of a value nested deeper than the bound (moves nested it).
    CopiedTooDeep(usize),
    /// `copy` operations that would duplicate more values than the patch
    /// may (`json_patch::COPY_BUDGET`).
    TooManyCopies,
}

impl fmt::Display for JsonPatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonPatchError::NotAList { found } => write!(f, "a JSON patch is a list of operations, not {found}"),
            JsonPatchError::NotAnObject { index, found } => write!(f, "operation {index} is {found}, not an object"),
            JsonPatchError::Unreadable { index, message } => write!(f, "operation {index}: {message}"),
            JsonPatchError::Failed { index, op, path: Some(path), reason } => {
                write!(f, "operation {index} ({op} {path}): {reason}")
            }
            JsonPatchError::Failed { index, op, path: None, reason } => write!(f, "operation {index} ({op}): {reason}"),
        }
    }
}

impl std::error::Error for JsonPatchError {}

impl fmt::Display for OperationFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OperationFailure::MissingField(field) => write!(f, "missing field `{field}`"),
            OperationFailure::NotAString { field, found } => write!(f, "`{field}` is {found}, not a string"),
            OperationFailure::InvalidPath => f.write_str("path is invalid"),
            OperationFailure::InvalidFrom => f.write_str("\"from\" path is invalid"),
            OperationFailure::TestFailed => f.write_str("value did not match"),
            OperationFailure::UnknownOperation(op) => write!(f, "unknown operation {op:?}"),
            OperationFailure::CopiedTooDeep(levels) => {
                write!(f, "the value copied is nested deeper than {levels} levels")
            }
            OperationFailure::TooManyCopies => f.write_str("copies duplicate too many values"),
        }
    }
}

impl std::error::Error for OperationFailure {}
