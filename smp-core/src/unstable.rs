//! For smp's own command line (`smp`, in smp-k8s-types), its benchmarks,
//! fuzz targets and tests: **not covered by semver**. Anything here may
//! change or go in any release, without notice; do not depend on it.
//!
//! What is here: the compact document of the text entry points and the
//! operations on it (a batch reads its documents itself, and writes them
//! in other forms), the reader of a batch's line, the writer with Go's
//! floats, a Rust value's JSON form with smp's error, and the reference's
//! view of numbers and values (`%v`, Go's JSON text, Go's sort).

#[cfg(feature = "bytes")]
pub use crate::bytes::documents::{
    apply_document, apply_object, diff_document, diff_objects, three_way_document, three_way_objects,
};
#[cfg(feature = "bytes")]
pub use crate::bytes::members::{Guides, Member, read_guided_members, read_members};
#[cfg(feature = "bytes")]
pub use crate::bytes::write::{GoFloats, to_json_vec, write_json};
#[cfg(feature = "bytes")]
pub use crate::doc::compact;
#[cfg(feature = "bytes")]
pub use crate::engine::apply::apply_compact;
pub use crate::lists::order::go_sort_by;
pub use crate::typed::fallback::to_value;
pub use crate::value::{fmt_v, go_float, go_integer, normalize_numbers, to_go_json};
