//! Why a schema lookup failed: the document and the schema disagree, or
//! the schema itself cannot be followed. Printed in the reference's words.

use std::fmt;

/// Why a schema lookup failed ([`ErrorKind::Schema`](super::ErrorKind::Schema)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SchemaError {
    /// Where the document has an object or a list, the schema has another
    /// kind of node (a list of lists, a struct where a list is merged, a
    /// primitive or a map where an object is): the document does not fit
    /// the schema. The reference's message (`expected slice, but got map`).
    WrongKind(String),
    /// A `$ref` of an OpenAPI document that names no definition of it.
    UnresolvedReference {
        /// The reference (or the definition name it gives).
        reference: String,
        /// The reference's message (`unknown model in reference: "X"`).
        message: String,
    },
    /// References of an OpenAPI definition that lead back to themselves
    /// without reaching a type.
    ReferenceCycle(String),
    /// A list's `x-smp-recommended-patch-merge-key` that cannot be read.
    BadRecommendedMergeKey {
        /// The extension's text.
        text: String,
        /// Why it cannot be read.
        why: String,
    },
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::WrongKind(message) => write!(f, "{message}"),
            SchemaError::UnresolvedReference { message, .. } => write!(f, "{message}"),
            SchemaError::ReferenceCycle(definition) => write!(f, "reference cycle in OpenAPI definition {definition}"),
            SchemaError::BadRecommendedMergeKey { text, why } => {
                write!(f, "invalid x-smp-recommended-patch-merge-key {text:?}: {why}")
            }
        }
    }
}

impl std::error::Error for SchemaError {}
