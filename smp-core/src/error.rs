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
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A document (or patch) that is not a JSON object where one is needed.
    InvalidJsonDocument,
    /// A list whose elements are lists, which the reference cannot merge.
    ListOfLists,
    /// A `$deleteFromPrimitiveList/<field>` whose value is not a list.
    BadDeleteFromPrimitiveList,
    /// A `$retainKeys` whose value is not a list of strings.
    BadRetainKeys,
    /// A `$setElementOrder/<field>` whose value is not a list.
    BadSetElementOrder,
    /// An element of a keyed list (or of `$setElementOrder`) lacks the key.
    NoMergeKey {
        /// The element, as Go's `%v` prints it.
        map: String,
        /// The merge key's field name.
        key: String,
    },
    /// A value of the wrong JSON type where the reference type-asserts.
    BadArgType {
        /// The Go type the reference expected (`map[string]interface {}`, ...).
        expected: &'static str,
        /// The Go type of the value found.
        actual: &'static str,
    },
    /// A `$patch` directive with a value other than `replace`, `delete` or
    /// `merge`.
    UnknownPatchType {
        /// The `$patch` value.
        value: String,
        /// The object holding it, as Go's `%v` prints it.
        map: String,
    },
    /// A computed patch that a [`Precondition`](crate::Precondition) refuses.
    PreconditionFailed {
        /// The patch, as Go's `%v` prints it.
        patch: String,
    },
    /// A list patch whose items are not in the order its
    /// `$setElementOrder` gives.
    OrderMismatch {
        /// The patch list, as Go's `%v` prints it.
        patch: String,
        /// The `$setElementOrder` list, as Go's `%v` prints it.
        order: String,
    },
    /// Two `$retainKeys` lists merged into one patch that differ.
    RetainKeysMismatch {
        /// The first list, as Go's `%v` prints it.
        original: String,
        /// The second list, as Go's `%v` prints it.
        patch: String,
    },
    /// A list of objects with the `merge` strategy but no merge key (the
    /// schema's name).
    NoMergeKeyDeclared(String),
    /// A `$patch: merge` inside a list, which the reference does not support.
    MergeDirectiveInList,
    /// A list element that should be an object, by its position.
    NotAMap(usize),
    /// A merged list whose elements are of different JSON types.
    MixedElementTypes(String),
    /// A list whose element type cannot be told (every list is empty).
    NoElements,
    /// A patch strategy the reference cannot read (the strategy list).
    UnexpectedStrategy(String),
    /// A `$patch` directive whose value is not a string.
    BadPatchMarker,
    /// An element of a merging list that is not an object (Go's `%v` of it).
    BadMergingListElement(String),
    /// An element of a merging list without its merge key.
    NoMergeKeyInElement {
        /// The merge key's field name.
        key: String,
        /// The element, as Go's `%v` prints it.
        element: String,
    },
    /// A field the schema does not know, where metadata is needed.
    UnknownField {
        /// The field's JSON name.
        field: String,
        /// The reference's message (naming the struct or definition).
        message: String,
    },
    /// A schema lookup that failed: the document does not fit the schema,
    /// or the schema cannot be followed.
    Schema(SchemaError),
    /// Objects or lists compared as merge keys or as members of a set,
    /// where Go's `==` panics; smp reports an error instead.
    Uncomparable,
    /// A merged list whose first element is `null`, where the reference
    /// panics; smp reports an error instead.
    NullFirstElement,
    /// The conflict check of two lists with different numbers of distinct
    /// values, where the reference indexes out of range and panics.
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
    Unsupported(String),
    /// An invariant of smp that did not hold: a bug of smp (or of a
    /// hand-written implementation of the typed layer's hidden traits),
    /// never a fault of the document.
    Internal(&'static str),
    /// The three-way patch would overwrite changes made to the live object
    /// since the last apply. Carries both sides.
    Conflict {
        /// The three-way patch that was computed.
        patch: Value,
        /// What changed on the live object since the last apply.
        changed: Value,
    },
    /// A typed value could not be turned into JSON.
    Serialize(String),
    /// A patched JSON value does not fit the Rust type.
    Deserialize(String),
    /// Input nested deeper than the engine follows.
    TooDeep(usize),
    /// JSON merge patch: a document that is not an object where the
    /// reference needs one (evanphx/json-patch `ErrBadJSONDoc`).
    BadMergeDocument,
    /// JSON merge patch: a `null` or scalar patch (`ErrBadJSONPatch`).
    BadMergePatch,
    /// JSON merge patch: an array diffed with an object.
    MismatchedMergeDocuments,
    /// A JSON patch guarded by `metadata.resourceVersion`, from an object
    /// that has none (it was not read from the API server).
    NoResourceVersion,
    /// A JSON patch (RFC 6902) that is not one, or does not apply.
    JsonPatch(JsonPatchError),
    /// A `$patchMergeKey` directive that cannot be read (with the option
    /// on): not a list of distinct field names, or a listed key set to null.
    BadPatchMergeKey(String),
    /// A list element whose key fields match several elements of the live
    /// list (with `$patchMergeKey` on): the patch is refused rather than
    /// guessed.
    AmbiguousPatchMergeKey {
        /// The key fields and values, e.g. `port=53`.
        key: String,
        /// How many elements they match.
        count: usize,
    },
    /// Strict apply: the patch names a field the schema does not have.
    StrictUnknownField(String),
    /// Checked diff: the patch would not turn the live object into the
    /// desired one (why, and where the result differs).
    UncheckedPatch(String),
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::InvalidJsonDocument => f.write_str("invalid JSON document"),
            ErrorKind::ListOfLists => f.write_str("lists of lists are not supported"),
            ErrorKind::BadDeleteFromPrimitiveList => f.write_str("invalid patch format of primitive list"),
            ErrorKind::BadRetainKeys => f.write_str("invalid patch format of retainKeys"),
            ErrorKind::BadSetElementOrder => f.write_str("invalid patch format of setElementOrder list"),
            ErrorKind::NoMergeKey { map, key } => write!(f, "map: {map} does not contain declared merge key: {key}"),
            ErrorKind::BadArgType { expected, actual } => write!(f, "expected a {expected}, but received a {actual}"),
            ErrorKind::UnknownPatchType { value, map } => write!(f, "unknown patch type: {value} in map: {map}"),
            ErrorKind::PreconditionFailed { patch } => write!(f, "precondition failed for: {patch}"),
            ErrorKind::OrderMismatch { patch, order } => {
                write!(f, "The order in patch list:\n{patch}\n doesn't match $setElementOrder list:\n{order}\n")
            }
            ErrorKind::RetainKeysMismatch { original, patch } => write!(
                f,
                "{original} and {patch} are not deep equal: this may happen when calculating the 3-way diff patch"
            ),
            ErrorKind::NoMergeKeyDeclared(name) => write!(f, "cannot merge lists without merge key for {name}"),
            ErrorKind::MergeDirectiveInList => f.write_str("merging lists cannot yet be specified in the patch"),
            ErrorKind::NotAMap(index) => write!(f, "value for key {index} is not a map"),
            ErrorKind::MixedElementTypes(types) => write!(f, "list element types are not identical: {types}"),
            ErrorKind::NoElements => f.write_str("no elements in any of the given slices"),
            ErrorKind::UnexpectedStrategy(strategy) => write!(f, "unexpected patch strategy: {strategy}"),
            ErrorKind::BadPatchMarker => f.write_str("invalid value for special key: $patch"),
            ErrorKind::BadMergingListElement(element) => write!(f, "invalid element type in merging list:{element}"),
            ErrorKind::NoMergeKeyInElement { key, element } => {
                write!(f, "cannot find merge key `{key}` in merging list element:{element}")
            }
            ErrorKind::UnknownField { message, .. } => write!(f, "{message}"),
            ErrorKind::Schema(e) => write!(f, "{e}"),
            ErrorKind::Uncomparable => f.write_str("objects and lists cannot be compared as merge keys or set members"),
            ErrorKind::NullFirstElement => f.write_str("a merged list may not start with a null element"),
            ErrorKind::UncomparableLists { left, right, left_count, right_count } => write!(
                f,
                "cannot compare the lists {left} and {right}: they have {left_count} and {right_count} distinct values"
            ),
            ErrorKind::Unsupported(message) => write!(f, "{message}"),
            ErrorKind::Internal(what) => write!(f, "internal error: {what} (a bug: please report it)"),
            ErrorKind::Conflict { patch, changed } => write!(
                f,
                "patch:\n{}\nconflicts with changes made from original to current:\n{}\n",
                crate::value::to_go_json(patch),
                crate::value::to_go_json(changed)
            ),
            ErrorKind::Serialize(why) => write!(f, "cannot serialize the value: {why}"),
            ErrorKind::Deserialize(why) => write!(f, "cannot deserialize the patched value: {why}"),
            ErrorKind::TooDeep(levels) => write!(f, "document nested deeper than {levels} levels"),
            ErrorKind::BadMergeDocument => f.write_str("Invalid JSON Document"),
            ErrorKind::BadMergePatch => f.write_str("Invalid JSON Patch"),
            ErrorKind::MismatchedMergeDocuments => f.write_str("Mismatched JSON Documents"),
            ErrorKind::NoResourceVersion => {
                f.write_str("the live object has no metadata.resourceVersion to guard the patch with")
            }
            ErrorKind::JsonPatch(e) => write!(f, "{e}"),
            ErrorKind::BadPatchMergeKey(why) => write!(f, "invalid $patchMergeKey: {why}"),
            ErrorKind::AmbiguousPatchMergeKey { key, count } => write!(
                f,
                "{key} matches {count} elements of the list; name more key fields in $patchMergeKey to tell them apart"
            ),
            ErrorKind::StrictUnknownField(field) => write!(f, "unknown field {field:?}"),
            ErrorKind::UncheckedPatch(why) => write!(f, "the patch would not give the desired object: {why}"),
        }
    }
}

// The wrapped schema and JSON patch errors are printed in full, so they
// are not also a `source` (a reporter would print them twice).
impl std::error::Error for ErrorKind {}

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn messages_are_the_references() {
        let order = ErrorKind::OrderMismatch { patch: "[a b]".into(), order: "[b a]".into() };
        assert_eq!(
            order.to_string(),
            "The order in patch list:\n[a b]\n doesn't match $setElementOrder list:\n[b a]\n"
        );
        let conflict =
            ErrorKind::Conflict { patch: serde_json::json!({"a": 1}), changed: serde_json::json!({"b": null}) };
        assert_eq!(
            conflict.to_string(),
            "patch:\n{\"a\":1}\nconflicts with changes made from original to current:\n{\"b\":null}\n"
        );
        let lists =
            ErrorKind::UncomparableLists { left: "[1]".into(), right: "[2 3]".into(), left_count: 1, right_count: 2 };
        assert_eq!(lists.to_string(), "cannot compare the lists [1] and [2 3]: they have 1 and 2 distinct values");
        assert_eq!(ErrorKind::StrictUnknownField("a\"b".into()).to_string(), "unknown field \"a\\\"b\"");
        let key = SchemaError::BadRecommendedMergeKey { text: "x y".into(), why: "two keys".into() };
        assert_eq!(ErrorKind::Schema(key).to_string(), "invalid x-smp-recommended-patch-merge-key \"x y\": two keys");
        let copy = OperationFailure::UnknownOperation("copy!".into());
        assert_eq!(copy.to_string(), "unknown operation \"copy!\"");
        let path = Path::from_segments(vec![Segment::Key("spec".into()), Segment::Index(2)]);
        let at = Error { kind: ErrorKind::NotAMap(2), path };
        assert_eq!(at.to_string(), "spec[2]: value for key 2 is not a map");
    }

    #[test]
    fn wrapped_errors_are_printed_not_chained() {
        // As before: the inner error is the whole message, so no `source`.
        let schema = ErrorKind::Schema(SchemaError::WrongKind("expected slice, but got map".into()));
        assert_eq!(schema.to_string(), "expected slice, but got map");
        assert!(schema.source().is_none());
        let patch = ErrorKind::JsonPatch(JsonPatchError::NotAList { found: "null" });
        assert_eq!(patch.to_string(), "a JSON patch is a list of operations, not null");
        assert!(patch.source().is_none());
    }
}
