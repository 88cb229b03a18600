//! The JSON names a field cannot take: the patch format reads them as the
//! Go reference's directives wherever they stand in an object. The derive
//! is built before smp-core, so it keeps its own copy of
//! `smp_core::directive::Directive::is_reserved`; a test of the workspace
//! (`derive_reserves_the_directives`, in the tests package) includes this
//! file and checks the two agree.

/// Keys that are directives as they are.
pub(crate) const RESERVED_KEYS: &[&str] = &["$patch", "$retainKeys"];

/// Prefixes of the keys that are list directives (`<prefix><field>`).
pub(crate) const RESERVED_PREFIXES: &[&str] = &["$setElementOrder/", "$deleteFromPrimitiveList/"];

/// Whether a field serialised as `json` would read as a directive.
pub(crate) fn is_reserved(json: &str) -> bool {
    RESERVED_KEYS.contains(&json) || RESERVED_PREFIXES.iter().any(|p| json.starts_with(p))
}
