//! Errors: where (a path into the document) and why (the reference's words).

mod json_patch;
mod schema;

pub use json_patch::{JsonPatchError, OperationFailure};
pub use schema::SchemaError;

use serde_json::Value;
use std::fmt;

/// One step of a path into a document.
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    /// A key of an object.
    Key(String),
    /// An element of a list of objects, named by its merge key.
    Keyed {
        /// The merge key's field name, e.g. `name`.
        key: String,
        /// The element's merge key value, as Go's `%v` prints it.
        value: String,
    },
    /// An element of a list, by position.
    Index(usize),
}

/// Where in the document an error happened, e.g.
/// `spec.template.spec.containers[name=nginx].env`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Path(Vec<Segment>);

impl Path {
    /// The steps from the document root, outermost first.
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// A path from its steps, outermost first.
    pub fn from_segments(segments: Vec<Segment>) -> Self {
        Path(segments)
    }

    /// Whether the path is empty: the error concerns the whole document.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Segment::Key(k) if i == 0 => write!(f, "{k}")?,
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Keyed { key, value } => write!(f, "[{key}={value}]")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Why a patch could not be applied or computed. The messages carry the
/// wording of the Go reference, so that they can be searched for.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A document (or patch) that is not a JSON object where one is needed.
    #[error("invalid JSON document")]
    InvalidJsonDocument,
    /// A list whose elements are lists, which the reference cannot merge.
    #[error("lists of lists are not supported")]
    ListOfLists,
    /// A `$deleteFromPrimitiveList/<field>` whose value is not a list.
    #[error("invalid patch format of primitive list")]
    BadDeleteFromPrimitiveList,
    /// A `$retainKeys` whose value is not a list of strings.
    #[error("invalid patch format of retainKeys")]
    BadRetainKeys,
    /// A `$setElementOrder/<field>` whose value is not a list.
    #[error("invalid patch format of setElementOrder list")]
    BadSetElementOrder,
    /// An element of a keyed list (or of `$setElementOrder`) lacks the key.
    #[error("map: {map} does not contain declared merge key: {key}")]
    NoMergeKey {
        /// The element, as Go's `%v` prints it.
        map: String,
        /// The merge key's field name.
        key: String,
    },
    /// A value of the wrong JSON type where the reference type-asserts.
    #[error("expected a {expected}, but received a {actual}")]
    BadArgType {
        /// The Go type the reference expected (`map[string]interface {}`, ...).
        expected: &'static str,
        /// The Go type of the value found.
        actual: &'static str,
    },
    /// A `$patch` directive with a value other than `replace`, `delete` or
    /// `merge`.
    #[error("unknown patch type: {value} in map: {map}")]
    UnknownPatchType {
        /// The `$patch` value.
        value: String,
        /// The object holding it, as Go's `%v` prints it.
        map: String,
    },
    /// A computed patch that a [`Precondition`](crate::Precondition) refuses.
    #[error("precondition failed for: {patch}")]
    PreconditionFailed {
        /// The patch, as Go's `%v` prints it.
        patch: String,
    },
    /// A list patch whose items are not in the order its
    /// `$setElementOrder` gives.
    #[error("The order in patch list:\n{patch}\n doesn't match $setElementOrder list:\n{order}\n")]
    OrderMismatch {
        /// The patch list, as Go's `%v` prints it.
        patch: String,
        /// The `$setElementOrder` list, as Go's `%v` prints it.
        order: String,
    },
    /// Two `$retainKeys` lists merged into one patch that differ.
    #[error("{original} and {patch} are not deep equal: this may happen when calculating the 3-way diff patch")]
    RetainKeysMismatch {
        /// The first list, as Go's `%v` prints it.
        original: String,
        /// The second list, as Go's `%v` prints it.
        patch: String,
    },
    /// A list of objects with the `merge` strategy but no merge key (the
    /// schema's name).
    #[error("cannot merge lists without merge key for {0}")]
    NoMergeKeyDeclared(String),
    /// A `$patch: merge` inside a list, which the reference does not support.
    #[error("merging lists cannot yet be specified in the patch")]
    MergeDirectiveInList,
    /// A list element that should be an object, by its position.
    #[error("value for key {0} is not a map")]
    NotAMap(usize),
    /// A merged list whose elements are of different JSON types.
    #[error("list element types are not identical: {0}")]
    MixedElementTypes(String),
    /// A list whose element type cannot be told (every list is empty).
    #[error("no elements in any of the given slices")]
    NoElements,
    /// A patch strategy the reference cannot read (the strategy list).
    #[error("unexpected patch strategy: {0}")]
    UnexpectedStrategy(String),
    /// A `$patch` directive whose value is not a string.
    #[error("invalid value for special key: $patch")]
    BadPatchMarker,
    /// An element of a merging list that is not an object (Go's `%v` of it).
    #[error("invalid element type in merging list:{0}")]
    BadMergingListElement(String),
    /// An element of a merging list without its merge key.
    #[error("cannot find merge key `{key}` in merging list element:{element}")]
    NoMergeKeyInElement {
        /// The merge key's field name.
        key: String,
        /// The element, as Go's `%v` prints it.
        element: String,
    },
    /// A field the schema does not know, where metadata is needed.
    #[error("{message}")]
    UnknownField {
        /// The field's JSON name.
        field: String,
        /// The reference's message (naming the struct or definition).
        message: String,
    },
    /// A schema lookup that failed: the document does not fit the schema,
    /// or the schema cannot be followed.
    #[error("{0}")]
    Schema(SchemaError),
    /// Objects or lists compared as merge keys or as members of a set,
    /// where Go's `==` panics; smp reports an error instead.
    #[error("objects and lists cannot be compared as merge keys or set members")]
    Uncomparable,
    /// A merged list whose first element is `null`, where the reference
    /// panics; smp reports an error instead.
    #[error("a merged list may not start with a null element")]
    NullFirstElement,
    /// The conflict check of two lists with different numbers of distinct
    /// values, where the reference indexes out of range and panics.
    #[error("cannot compare the lists {left} and {right}: they have {left_count} and {right_count} distinct values")]
    UncomparableLists {
        /// One list, as Go's `%v` prints it.
        left: String,
        /// The other list.
        right: String,
        /// The distinct values of the one.
        left_count: usize,
        /// The distinct values of the other.
        right_count: usize,
    },
    /// An operation that has no meaning for these inputs (what the message
    /// says), refused by a caller built on smp such as its command line.
    #[error("{0}")]
    Unsupported(String),
    /// An invariant of smp that did not hold: a bug of smp (or of a
    /// hand-written implementation of the typed layer's hidden traits),
    /// never a fault of the document.
    #[error("internal error: {0} (a bug: please report it)")]
    Internal(&'static str),
    /// The three-way patch would overwrite changes made to the live object
    /// since the last apply. Carries both sides.
    #[error(
        "patch:\n{}\nconflicts with changes made from original to current:\n{}\n",
        crate::value::to_go_json(patch),
        crate::value::to_go_json(changed)
    )]
    Conflict {
        /// The three-way patch that was computed.
        patch: Value,
        /// What changed on the live object since the last apply.
        changed: Value,
    },
    /// A typed value could not be turned into JSON.
    #[error("cannot serialize the value: {0}")]
    Serialize(String),
    /// A patched JSON value does not fit the Rust type.
    #[error("cannot deserialize the patched value: {0}")]
    Deserialize(String),
    /// Input nested deeper than the engine follows.
    #[error("document nested deeper than {0} levels")]
    TooDeep(usize),
    /// JSON merge patch: a document that is not an object where the
    /// reference needs one (evanphx/json-patch `ErrBadJSONDoc`).
    #[error("Invalid JSON Document")]
    BadMergeDocument,
    /// JSON merge patch: a `null` or scalar patch (`ErrBadJSONPatch`).
    #[error("Invalid JSON Patch")]
    BadMergePatch,
    /// JSON merge patch: an array diffed with an object.
    #[error("Mismatched JSON Documents")]
    MismatchedMergeDocuments,
    /// A JSON patch guarded by `metadata.resourceVersion`, from an object
    /// that has none (it was not read from the API server).
    #[error("the live object has no metadata.resourceVersion to guard the patch with")]
    NoResourceVersion,
    /// A JSON patch (RFC 6902) that is not one, or does not apply.
    #[error("{0}")]
    JsonPatch(JsonPatchError),
    /// A `$patchMergeKey` directive that cannot be read (with the option
    /// on): not a list of distinct field names, or a listed key set to null.
    #[error("invalid $patchMergeKey: {0}")]
    BadPatchMergeKey(String),
    /// A list element whose key fields match several elements of the live
    /// list (with `$patchMergeKey` on): the patch is refused rather than
    /// guessed.
    #[error("{key} matches {count} elements of the list; name more key fields in $patchMergeKey to tell them apart")]
    AmbiguousPatchMergeKey {
        /// The key fields and values, e.g. `port=53`.
        key: String,
        /// How many elements they match.
        count: usize,
    },
    /// Strict apply: the patch names a field the schema does not have.
    #[error("unknown field {0:?}")]
    StrictUnknownField(String),
    /// Checked diff: the patch would not turn the live object into the
    /// desired one (why, and where the result differs).
    #[error("the patch would not give the desired object: {0}")]
    UncheckedPatch(String),
}

/// An error with the place it happened.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Error {
    /// Why.
    pub kind: ErrorKind,
    /// Where; empty for the whole document.
    pub path: Path,
}

impl Error {
    /// Whether this is a three-way conflict rather than bad input.
    pub fn is_conflict(&self) -> bool {
        matches!(self.kind, ErrorKind::Conflict { .. })
    }

    /// An error at the document root.
    pub fn new(kind: ErrorKind) -> Self {
        Error { kind, path: Path::default() }
    }

    /// Prepends a path segment; called on the way out of the recursion, so
    /// the happy path never builds paths.
    pub(crate) fn within(mut self, seg: Segment) -> Self {
        self.path.0.insert(0, seg);
        self
    }

    /// The error, under the object key `key` (for generated code).
    #[doc(hidden)]
    pub fn at_key(self, key: &str) -> Self {
        self.within(Segment::Key(key.to_string()))
    }

    /// The error, under a list element: named by its merge key when it
    /// has one, else by position (for generated code).
    #[doc(hidden)]
    pub fn at_element(self, merge_key: &str, elem: &Value, index: usize) -> Self {
        let seg = match elem.get(merge_key).filter(|_| !merge_key.is_empty()) {
            Some(v) => Segment::Keyed { key: merge_key.to_string(), value: crate::value::fmt_v(v) },
            None => Segment::Index(index),
        };
        self.within(seg)
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_root() { write!(f, "{}", self.kind) } else { write!(f, "{}: {}", self.path, self.kind) }
    }
}

impl std::error::Error for Error {}

/// The result of every operation of smp-core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `mergepatch.ErrBadArgType` for a value that should have been `expected`.
pub(crate) fn bad_arg(expected: crate::value::GoKind, actual: &Value) -> Error {
    ErrorKind::BadArgType { expected: expected.go_type_name(), actual: crate::value::GoKind::of(actual).go_type_name() }
        .into()
}

/// `mergepatch.ErrNoMergeKey`.
pub(crate) fn no_merge_key(map: &serde_json::Map<String, Value>, key: &str) -> Error {
    ErrorKind::NoMergeKey { map: crate::value::fmt_v_map(map), key: key.to_string() }.into()
}
