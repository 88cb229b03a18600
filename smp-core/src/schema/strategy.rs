//! The typed patch metadata of one field: its [`Strategy`] and, for lists
//! of objects, its [`MergeKey`]. Both are parsed once: at compile time for
//! derived and Kubernetes types (these constants), at load time for OpenAPI
//! documents.

use crate::error::{ErrorKind, Result, SchemaError};

/// A parsed patch strategy: what the reference's
/// `extractRetainKeysPatchStrategy` makes of the comma list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Strategy {
    /// Lists are merged (by merge key, or as sets of scalars).
    pub merge: bool,
    /// Maps are replaced whole.
    pub replace: bool,
    /// The diff emits `$retainKeys` for this field.
    pub retain_keys: bool,
}

impl Strategy {
    /// No strategy: lists are replaced, objects merged.
    pub const NONE: Strategy = Strategy { merge: false, replace: false, retain_keys: false };
    /// `merge`.
    pub const MERGE: Strategy = Strategy { merge: true, replace: false, retain_keys: false };
    /// `replace`.
    pub const REPLACE: Strategy = Strategy { merge: false, replace: true, retain_keys: false };
    /// `retainKeys`.
    pub const RETAIN_KEYS: Strategy = Strategy { merge: false, replace: false, retain_keys: true };
    /// `merge,retainKeys`.
    pub const MERGE_RETAIN_KEYS: Strategy = Strategy { merge: true, replace: false, retain_keys: true };

    /// The strategy of a struct tag known at compile time, for schema tables
    /// written by hand; [`Strategy::parse`] as a `const fn`. A list the
    /// reference cannot read is a mistake in the table, so it panics (at
    /// compile time in a `const`).
    pub const fn of(tag: &str) -> Strategy {
        match Strategy::read(tag) {
            Some(strategy) => strategy,
            None => panic!("unexpected patch strategy"),
        }
    }

    /// The one reader of a strategy list, for [`Strategy::of`] and
    /// [`Strategy::parse`]: `None` for a list the reference refuses.
    const fn read(tag: &str) -> Option<Strategy> {
        let bytes = tag.as_bytes();
        let mut comma = 0;
        while comma < bytes.len() && bytes[comma] != b',' {
            comma += 1;
        }
        if comma == bytes.len() {
            return Some(Strategy::of_word(tag, false));
        }
        let (first, second) = tag.split_at(comma);
        let second = second.split_at(1).1;
        if const_eq(first, "retainKeys") && !contains_comma(second) {
            Some(Strategy::of_word(second, true))
        } else if const_eq(second, "retainKeys") {
            Some(Strategy::of_word(first, true))
        } else {
            None
        }
    }

    const fn of_word(word: &str, retain_keys: bool) -> Strategy {
        let merge = const_eq(word, "merge");
        let replace = const_eq(word, "replace");
        let retain_keys = retain_keys || const_eq(word, "retainKeys");
        Strategy { merge, replace, retain_keys }
    }

    /// Parses `""`, `"merge"`, `"replace"`, `"retainKeys"`,
    /// `"merge,retainKeys"` (either order); any other single word means no
    /// strategy, as in the reference. More than two words, or two without
    /// `retainKeys`, is the reference's `unexpected patch strategy` error.
    pub fn parse(raw: &str) -> Result<Strategy> {
        Strategy::read(raw).ok_or_else(|| {
            let list = format!("[{}]", raw.replace(',', " "));
            ErrorKind::UnexpectedStrategy(list).into()
        })
    }
}

/// The merge key of a list of objects: the field (or fields) that identify
/// an element. The reference knows one field. Several fields come in two
/// kinds: the recommended keys of a Kubernetes list ([`MergeKey::Several`]),
/// an opt-in extension whose first field is the key the reference (and so
/// the API server) uses; and a type's own composite key
/// ([`MergeKey::Composite`]), which identifies elements in every operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MergeKey<'a> {
    /// One field, as in the reference's `patchMergeKey`.
    One(&'a str),
    /// Several fields (at least two), the first being the default key: the
    /// reference-compatible operations read the first only, `$patchMergeKey`
    /// (opt-in) reads them all.
    Several(&'a [&'a str]),
    /// Several fields (at least two) that together identify an element in
    /// every operation: a type's own key, as `#[patch(merge_key =
    /// "port,protocol")]` declares it. Diff, apply and three-way pair
    /// elements by all of them; a field an element lacks counts as `null`
    /// (an element lacking all of them has no key). Nothing but smp merges
    /// by such a key: the API server merges a strategic merge patch by one
    /// field, so such lists are merged client side and sent as a JSON merge
    /// patch or JSON patch (smp-k8s-types' custom-resource route).
    Composite(&'a [&'a str]),
}

impl<'a> MergeKey<'a> {
    /// The field the reference merges by.
    pub fn primary(self) -> &'a str {
        match self {
            MergeKey::One(f) => f,
            MergeKey::Several(fs) | MergeKey::Composite(fs) => fs.first().copied().unwrap_or(""),
        }
    }

    /// Every field that names an element: the one field, the recommended
    /// keys, or the composite key's fields.
    pub fn fields(&self) -> &[&'a str] {
        match self {
            MergeKey::One(f) => std::slice::from_ref(f),
            MergeKey::Several(fs) | MergeKey::Composite(fs) => fs,
        }
    }

    /// A merge key from the reference's text; `None` when it is empty.
    pub const fn from_text(text: &'a str) -> Option<MergeKey<'a>> {
        if text.is_empty() { None } else { Some(MergeKey::One(text)) }
    }
}

const fn contains_comma(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b',' {
            return true;
        }
        i += 1;
    }
    false
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The recommended merge keys of a list (the opt-in extension of
/// multi-field merge keys): the fields that together identify an element,
/// the default merge key first when the list has one. Only read when
/// `$patchMergeKey` is turned on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyFields<'a> {
    /// The fields of a static schema (`merge_key = "port,protocol"`).
    Fields(&'a [&'a str]),
    /// The comma-separated text of an OpenAPI document's
    /// `x-smp-recommended-patch-merge-key`, already checked.
    Text(&'a str),
}

impl<'a> KeyFields<'a> {
    /// The field names, in order.
    pub fn to_vec(self) -> Vec<&'a str> {
        match self {
            KeyFields::Fields(fs) => fs.to_vec(),
            KeyFields::Text(t) => t.split(',').collect(),
        }
    }

    /// Reads comma-separated field names: none empty, none repeated, the
    /// default key (when the list has one) first.
    pub fn parse(text: &'a str, default_key: Option<&str>) -> std::result::Result<KeyFields<'a>, String> {
        let fields: Vec<&str> = text.split(',').collect();
        if fields.iter().any(|f| f.is_empty() || f.trim() != *f) {
            return Err("field names are separated by commas, without spaces or empty names".into());
        }
        if let Some((i, f)) = fields.iter().enumerate().find(|(i, f)| fields[..*i].contains(f)) {
            return Err(format!("{f:?} is named twice (field {})", i + 1));
        }
        match default_key {
            Some(d) if fields[0] != d => {
                Err(format!("the first field must be the default merge key {d:?} (x-kubernetes-patch-merge-key)"))
            }
            _ => Ok(KeyFields::Text(text)),
        }
    }
}

/// The patch metadata the engine looks up for a field: its strategy and
/// merge key. A strategy that cannot be read (possible only in OpenAPI
/// documents) is kept as its text and reported where the reference reports
/// it: when a value under the field is merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchMeta<'a> {
    strategy: std::result::Result<Strategy, &'a str>,
    /// The merge key of a list of objects.
    pub merge_key: Option<MergeKey<'a>>,
    /// The recommended merge keys; an unreadable extension is kept as its
    /// text and reported when `$patchMergeKey` reads it.
    recommended: std::result::Result<Option<KeyFields<'a>>, &'a str>,
}

impl Default for PatchMeta<'_> {
    fn default() -> Self {
        PatchMeta::new(Strategy::NONE, None)
    }
}

impl<'a> PatchMeta<'a> {
    /// Metadata with a known strategy.
    pub const fn new(strategy: Strategy, merge_key: Option<MergeKey<'a>>) -> Self {
        let recommended = match merge_key {
            Some(MergeKey::Several(fields) | MergeKey::Composite(fields)) => Some(KeyFields::Fields(fields)),
            _ => None,
        };
        PatchMeta { strategy: Ok(strategy), merge_key, recommended: Ok(recommended) }
    }

    /// Metadata read from the reference's texts (OpenAPI extensions).
    pub fn parse(strategy: &'a str, merge_key: &'a str) -> Self {
        PatchMeta {
            strategy: Strategy::parse(strategy).map_err(|_| strategy),
            merge_key: MergeKey::from_text(merge_key),
            recommended: Ok(None),
        }
    }

    /// The same metadata with recommended merge keys read from their
    /// comma-separated text (`x-smp-recommended-patch-merge-key`).
    pub fn with_recommended(self, text: &'a str) -> Self {
        let default_key = self.merge_key.map(MergeKey::primary);
        let recommended = KeyFields::parse(text, default_key).map(Some).map_err(|_| text);
        PatchMeta { recommended, ..self }
    }

    /// The same metadata with recommended merge keys from a table.
    pub fn with_recommended_fields(self, fields: &'a [&'a str]) -> Self {
        PatchMeta { recommended: Ok(Some(KeyFields::Fields(fields))), ..self }
    }

    /// The recommended merge keys, when the list has some; an error for an
    /// extension that cannot be read.
    pub fn recommended(&self) -> Result<Option<KeyFields<'a>>> {
        match self.recommended {
            Ok(r) => Ok(r),
            Err(text) => {
                let default_key = self.merge_key.map(MergeKey::primary);
                let why = KeyFields::parse(text, default_key).err().unwrap_or_default();
                Err(ErrorKind::Schema(SchemaError::BadRecommendedMergeKey { text: text.to_string(), why }).into())
            }
        }
    }

    /// The strategy; the reference's error for a strategy list it cannot read.
    pub fn strategy(&self) -> Result<Strategy> {
        match self.strategy {
            Ok(s) => Ok(s),
            Err(raw) => Strategy::parse(raw),
        }
    }

    /// The field the reference merges by, when the list has a merge key.
    pub fn key_name(&self) -> Option<&'a str> {
        self.merge_key.map(MergeKey::primary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_like_the_reference() {
        assert_eq!(Strategy::parse("").unwrap(), Strategy::NONE);
        assert_eq!(Strategy::parse("merge").unwrap(), Strategy::MERGE);
        assert_eq!(Strategy::parse("replace").unwrap(), Strategy::REPLACE);
        assert_eq!(Strategy::parse("retainKeys").unwrap(), Strategy::RETAIN_KEYS);
        assert_eq!(Strategy::parse("merge,retainKeys").unwrap(), Strategy::MERGE_RETAIN_KEYS);
        assert_eq!(Strategy::parse("retainKeys,merge").unwrap(), Strategy::MERGE_RETAIN_KEYS);
        assert_eq!(Strategy::parse("bogus").unwrap(), Strategy::NONE);
        let e = Strategy::parse("merge,replace").unwrap_err();
        assert_eq!(e.to_string(), "unexpected patch strategy: [merge replace]");
        for tag in
            ["", "merge", "replace", "retainKeys", "merge,retainKeys", "retainKeys,merge", "bogus", "x,retainKeys"]
        {
            assert_eq!(Strategy::of(tag), Strategy::parse(tag).unwrap(), "{tag}");
        }
        let e = Strategy::parse("a,b,retainKeys").unwrap_err();
        assert_eq!(e.to_string(), "unexpected patch strategy: [a b retainKeys]");
    }

    #[test]
    fn unreadable_strategies_fail_where_used() {
        let meta = PatchMeta::parse("merge,replace", "name");
        assert_eq!(meta.strategy().unwrap_err().to_string(), "unexpected patch strategy: [merge replace]");
        assert_eq!(meta.key_name(), Some("name"));
        assert_eq!(PatchMeta::parse("merge", "").merge_key, None);
    }

    #[test]
    fn recommended_keys_start_with_the_default_key() {
        let meta = PatchMeta::parse("merge", "port").with_recommended("port,protocol");
        assert_eq!(meta.recommended().unwrap().unwrap().to_vec(), ["port", "protocol"]);
        assert_eq!(meta.key_name(), Some("port"));
        // A replace list may name recommended keys without a default key.
        let meta = PatchMeta::parse("", "").with_recommended("key,effect");
        assert_eq!(meta.recommended().unwrap().unwrap().to_vec(), ["key", "effect"]);
        for bad in ["protocol,port", "port,,protocol", "port, protocol", "port,port", ""] {
            let meta = PatchMeta::parse("merge", "port").with_recommended(bad);
            let e = meta.recommended().unwrap_err().to_string();
            assert!(e.starts_with("invalid x-smp-recommended-patch-merge-key"), "{bad}: {e}");
            // The reference's reading is untouched.
            assert_eq!(meta.key_name(), Some("port"));
        }
        let several = PatchMeta::new(Strategy::MERGE, Some(MergeKey::Several(&["port", "protocol"])));
        assert_eq!(several.recommended().unwrap(), Some(KeyFields::Fields(&["port", "protocol"])));
        assert_eq!(PatchMeta::parse("merge", "name").recommended().unwrap(), None);
    }

    #[test]
    fn the_first_of_several_fields_is_the_reference_key() {
        assert_eq!(MergeKey::Several(&["port", "protocol"]).primary(), "port");
        assert_eq!(MergeKey::One("name").primary(), "name");
    }
}
