//! The options of a diff: the reference's `DiffOptions`, and what the
//! walk adds to them on its way down (read by the list algorithms and the
//! typed layer as well as the engine).

/// Switches of the reference's `DiffOptions`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffOptions {
    /// Emit `$setElementOrder/<list>` for merged lists.
    pub set_element_order: bool,
    /// Emit only deletions.
    pub ignore_changes_and_additions: bool,
    /// Emit no deletions.
    pub ignore_deletions: bool,
    /// Lists with recommended merge keys get elements identified by all of
    /// them, carrying `$patchMergeKey`; keyed lists whose keys cannot tell
    /// elements apart are sent whole (`$patch: replace`). Only for
    /// receivers that know the directive (smp's apply with the option on).
    pub patch_merge_key: bool,
}

/// `DiffOptions` plus `BuildRetainKeysDirective`, which the walk sets from
/// each field's strategy.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Opts {
    pub(crate) diff: DiffOptions,
    pub(crate) retain_keys: bool,
}

impl Opts {
    pub(crate) fn new(diff: DiffOptions) -> Self {
        Opts { diff, retain_keys: false }
    }

    /// Changed and added values are emitted.
    pub fn additions(self) -> bool {
        !self.diff.ignore_changes_and_additions
    }

    /// Removed values are emitted.
    pub fn deletions(self) -> bool {
        !self.diff.ignore_deletions
    }

    /// This map lists its keys in `$retainKeys`.
    pub fn retain_keys(self) -> bool {
        self.retain_keys
    }

    /// The options for the value of a field with this retainKeys flag.
    pub fn with_retain_keys(self, retain_keys: bool) -> Self {
        Opts { retain_keys, ..self }
    }

    pub(crate) fn set_element_order(self) -> bool {
        self.diff.set_element_order
    }
}
