//! Errors: where (a path into the document) and why (the reference's words).

use serde_json::Value;
use std::fmt;

/// One step of a path into a document.
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    /// A key of an object.
    Key(String),
    /// An element of a list of objects, named by its merge key.
    Keyed { key: String, value: String },
    /// An element of a list, by position.
    Index(usize),
}

/// Where in the document an error happened, e.g.
/// `spec.template.spec.containers[name=nginx].env`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Path(Vec<Segment>);

impl Path {
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

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
    #[error("invalid JSON document")]
    InvalidJsonDocument,
    #[error("lists of lists are not supported")]
    ListOfLists,
    #[error("invalid patch format of primitive list")]
    BadDeleteFromPrimitiveList,
    #[error("invalid patch format of retainKeys")]
    BadRetainKeys,
    #[error("invalid patch format of setElementOrder list")]
    BadSetElementOrder,
    /// An element of a keyed list (or of `$setElementOrder`) lacks the key.
    #[error("map: {map} does not contain declared merge key: {key}")]
    NoMergeKey { map: String, key: String },
    /// A value of the wrong JSON type where the reference type-asserts.
    #[error("expected a {expected}, but received a {actual}")]
    BadArgType { expected: &'static str, actual: &'static str },
    #[error("unknown patch type: {value} in map: {map}")]
    UnknownPatchType { value: String, map: String },
    #[error("precondition failed for: {patch}")]
    PreconditionFailed { patch: String },
    #[error("The order in patch list:\n{patch}\n doesn't match $setElementOrder list:\n{order}\n")]
    OrderMismatch { patch: String, order: String },
    #[error("{original} and {patch} are not deep equal: this may happen when calculating the 3-way diff patch")]
    RetainKeysMismatch { original: String, patch: String },
    #[error("cannot merge lists without merge key for {0}")]
    NoMergeKeyDeclared(String),
    #[error("merging lists cannot yet be specified in the patch")]
    MergeDirectiveInList,
    #[error("value for key {0} is not a map")]
    NotAMap(usize),
    #[error("list element types are not identical: {0}")]
    MixedElementTypes(String),
    #[error("no elements in any of the given slices")]
    NoElements,
    #[error("unexpected patch strategy: {0}")]
    UnexpectedStrategy(String),
    #[error("invalid value for special key: $patch")]
    BadPatchMarker,
    #[error("invalid element type in merging list:{0}")]
    BadMergingListElement(String),
    #[error("cannot find merge key `{key}` in merging list element:{element}")]
    NoMergeKeyInElement { key: String, element: String },
    /// A field the schema does not know, where metadata is needed.
    #[error("{0}")]
    UnknownField(String),
    /// A schema lookup that found the wrong kind of node.
    #[error("{0}")]
    Schema(String),
    /// Where the reference panics (uncomparable values, a list whose first
    /// element is null); smp reports an error instead.
    #[error("{0}")]
    Unsupported(String),
    /// The three-way patch would overwrite changes made to the live object
    /// since the last apply. Carries both sides.
    #[error(
        "patch:\n{}\nconflicts with changes made from original to current:\n{}\n",
        crate::value::to_go_json(patch),
        crate::value::to_go_json(changed)
    )]
    Conflict { patch: Value, changed: Value },
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
    /// A JSON patch (RFC 6902) that does not apply.
    #[error("{0}")]
    JsonPatch(String),
}

/// An error with the place it happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub kind: ErrorKind,
    pub path: Path,
}

impl Error {
    /// Whether this is a three-way conflict rather than bad input.
    pub fn is_conflict(&self) -> bool {
        matches!(self.kind, ErrorKind::Conflict { .. })
    }

    pub fn new(kind: ErrorKind) -> Self {
        Error { kind, path: Path::default() }
    }

    /// Prepends a path segment; called on the way out of the recursion, so
    /// the happy path never builds paths.
    pub(crate) fn within(mut self, seg: Segment) -> Self {
        self.path.0.insert(0, seg);
        self
    }

    #[doc(hidden)]
    pub fn at_key(self, key: &str) -> Self {
        self.within(Segment::Key(key.to_string()))
    }

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
