//! The directives of a strategic merge patch: the `$`-keys that tell the
//! receiver how to merge, rather than name a field. Every directive name is
//! spelled here and nowhere else; adding one means adding it to
//! [`Directive`] (and to the derive's reserved names, if a field must not
//! take it).
//!
//! | key | what it asks |
//! | --- | --- |
//! | `$patch: replace \| delete \| merge` | replace or delete the object or list element it stands in ([`PatchOp`]) |
//! | `$retainKeys: [names]` | keep only these keys of the map (the `retainKeys` strategy) |
//! | `$setElementOrder/<field>: [items]` | the order of the merged list `<field>` |
//! | `$deleteFromPrimitiveList/<field>: [items]` | remove these scalars from the list `<field>` |
//! | `$patchMergeKey: [names]` | the fields that identify this list element (smp's opt-in extension) |
//!
//! ```
//! use smp_core::directive::{Directive, ListDirective, PatchOp};
//!
//! assert_eq!(Directive::parse("$setElementOrder/containers"), Some(Directive::SetElementOrder("containers")));
//! assert_eq!(ListDirective::DeleteFromPrimitiveList.key("finalizers"), "$deleteFromPrimitiveList/finalizers");
//! assert_eq!(PatchOp::parse("replace"), Some(PatchOp::Replace));
//! assert!(Directive::is_reserved("$retainKeys") && !Directive::is_reserved("retainKeys"));
//! ```

use std::fmt;

/// `$patch`: replace or delete the object (or list element) it stands in.
pub const PATCH: &str = "$patch";
/// `$retainKeys`: the keys of the map that are kept.
pub const RETAIN_KEYS: &str = "$retainKeys";
/// `$patchMergeKey`: the fields that identify a list element (an opt-in
/// extension of smp; the Go reference does not know it).
pub const PATCH_MERGE_KEY: &str = "$patchMergeKey";

/// A directive key, parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Directive<'k> {
    /// `$patch`.
    Patch,
    /// `$retainKeys`.
    RetainKeys,
    /// `$patchMergeKey`.
    PatchMergeKey,
    /// `$setElementOrder/<field>`.
    SetElementOrder(&'k str),
    /// `$deleteFromPrimitiveList/<field>`.
    DeleteFromPrimitiveList(&'k str),
}

impl<'k> Directive<'k> {
    /// The directive a key is, if it is one: an exact directive name, or a
    /// list directive's prefix, `/` and the field it names.
    pub fn parse(key: &'k str) -> Option<Self> {
        if !key.starts_with('$') {
            return None;
        }
        match key {
            PATCH => Some(Directive::Patch),
            RETAIN_KEYS => Some(Directive::RetainKeys),
            PATCH_MERGE_KEY => Some(Directive::PatchMergeKey),
            _ => ListDirective::ALL.iter().find_map(|d| d.field(key).map(|field| d.with_field(field))),
        }
    }

    /// The field a list directive names.
    pub fn field(self) -> Option<&'k str> {
        match self {
            Directive::SetElementOrder(f) | Directive::DeleteFromPrimitiveList(f) => Some(f),
            Directive::Patch | Directive::RetainKeys | Directive::PatchMergeKey => None,
        }
    }

    /// Whether a struct field cannot be named `key` (the derive refuses it):
    /// it reads as one of the reference's directives. `$patchMergeKey` is
    /// not reserved: it is a directive only where the option asks for it.
    pub fn is_reserved(key: &str) -> bool {
        Directive::parse(key).is_some_and(|d| d != Directive::PatchMergeKey)
    }
}

impl fmt::Display for Directive<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Directive::Patch => f.write_str(PATCH),
            Directive::RetainKeys => f.write_str(RETAIN_KEYS),
            Directive::PatchMergeKey => f.write_str(PATCH_MERGE_KEY),
            Directive::SetElementOrder(field) => write!(f, "{}/{field}", ListDirective::SetElementOrder.prefix()),
            Directive::DeleteFromPrimitiveList(field) => {
                write!(f, "{}/{field}", ListDirective::DeleteFromPrimitiveList.prefix())
            }
        }
    }
}

/// A directive about a list, written `<prefix>/<field>` beside the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListDirective {
    /// `$setElementOrder/<field>`.
    SetElementOrder,
    /// `$deleteFromPrimitiveList/<field>`.
    DeleteFromPrimitiveList,
}

impl ListDirective {
    /// Both list directives.
    pub const ALL: [ListDirective; 2] = [ListDirective::SetElementOrder, ListDirective::DeleteFromPrimitiveList];

    /// The key's prefix, before the `/`.
    pub const fn prefix(self) -> &'static str {
        match self {
            ListDirective::SetElementOrder => "$setElementOrder",
            ListDirective::DeleteFromPrimitiveList => "$deleteFromPrimitiveList",
        }
    }

    /// The key naming `field`.
    pub fn key(self, field: &str) -> String {
        let prefix = self.prefix();
        let mut key = String::with_capacity(prefix.len() + 1 + field.len());
        key.push_str(prefix);
        key.push('/');
        key.push_str(field);
        key
    }

    /// Whether `key` starts with the prefix (what the reference tests
    /// before it extracts the field, so that `$setElementOrderX` is an
    /// error rather than data).
    pub fn starts(self, key: &str) -> bool {
        key.starts_with(self.prefix())
    }

    /// The field after `<prefix>/` (the reference's `extractKey`); `None`
    /// when `key` is not of that form.
    pub fn field(self, key: &str) -> Option<&str> {
        key.strip_prefix(self.prefix())?.strip_prefix('/')
    }

    /// The list directive and the field a key names, if it names one.
    pub fn parse(key: &str) -> Option<(ListDirective, &str)> {
        ListDirective::ALL.iter().find_map(|&d| d.field(key).map(|field| (d, field)))
    }

    fn with_field(self, field: &str) -> Directive<'_> {
        match self {
            ListDirective::SetElementOrder => Directive::SetElementOrder(field),
            ListDirective::DeleteFromPrimitiveList => Directive::DeleteFromPrimitiveList(field),
        }
    }
}

/// The value of `$patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PatchOp {
    /// `replace`: the patch's value replaces the original's whole.
    Replace,
    /// `delete`: the object or element is removed.
    Delete,
    /// `merge`: merged as usual (refused in lists).
    Merge,
}

impl PatchOp {
    /// The operation a `$patch` value names.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "replace" => Some(PatchOp::Replace),
            "delete" => Some(PatchOp::Delete),
            "merge" => Some(PatchOp::Merge),
            _ => None,
        }
    }

    /// The value as written.
    pub const fn as_str(self) -> &'static str {
        match self {
            PatchOp::Replace => "replace",
            PatchOp::Delete => "delete",
            PatchOp::Merge => "merge",
        }
    }
}

impl fmt::Display for PatchOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_and_print_back() {
        for key in ["$patch", "$retainKeys", "$patchMergeKey", "$setElementOrder/a", "$deleteFromPrimitiveList/a/b"] {
            let d = Directive::parse(key).unwrap_or_else(|| panic!("{key}"));
            assert_eq!(d.to_string(), key);
        }
        for key in ["patch", "$patches", "$setElementOrder", "$setElementOrderX/a", "$", "", "$deleteFromPrimitiveList"]
        {
            assert_eq!(Directive::parse(key), None, "{key}");
        }
        assert_eq!(ListDirective::parse("$setElementOrder/"), Some((ListDirective::SetElementOrder, "")));
        assert!(ListDirective::SetElementOrder.starts("$setElementOrderX/a"));
        for op in [PatchOp::Replace, PatchOp::Delete, PatchOp::Merge] {
            assert_eq!(PatchOp::parse(op.as_str()), Some(op));
        }
        assert_eq!(PatchOp::parse("Replace"), None);
    }
}
