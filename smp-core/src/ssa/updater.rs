//! structured-merge-diff's `merge.Updater`: an apply (merge, prune of what
//! the applier no longer applies, conflicts with other managers) and an
//! update (ownership of what changed), over one schema, on field sets that
//! are kept apart from the object (no `metadata.managedFields`, no time
//! stamps: that bookkeeping is the field manager's, [`super::apply`]).
//! Versions are labels: objects are never converted between them, but a
//! manager at another version than the object's makes the reference re-read
//! the object for that version ([`Updater::convert`]).

use super::Error;
use super::compare::{Comparison, compare};
use super::conflicts::{Conflict, Conflicts};
use super::fieldpath::Set;
pub use super::managed::VersionedSet;
use super::merge::merge;
use super::schema::{Schema, TypeRef};
use super::typed::{
    ValidationErrors, ensure_named_fields_are_members, extract_items, reconcile_with_schema, remove_items,
    to_field_set, validate,
};
use super::value::equals;
use serde_json::Value;
use std::collections::BTreeMap;

/// The managers of an object and their fields (`fieldpath.ManagedFields`).
pub type ManagedFields = BTreeMap<String, VersionedSet>;
pub(crate) type Fields = ManagedFields;

/// An apply or an update of one type of a schema, on the managers' field
/// sets (`merge.Updater`).
#[derive(Clone, Copy, Debug)]
pub struct Updater<'s> {
    pub(crate) schema: &'s Schema,
    pub(crate) root: TypeRef,
    /// Whether a manager at another version re-reads the objects.
    pub(crate) versions: Versions,
}

/// How an updater sees a manager at another version than the objects'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Versions {
    /// As labels, as structured-merge-diff's own tests convert.
    Labels,
    /// As the API server's field manager converts ([`Updater::convert`]).
    Objects,
}

impl<'s> Updater<'s> {
    /// An updater of objects of type `root`, whose versions are labels
    /// (the objects are the same at every version).
    pub fn new(schema: &'s Schema, root: TypeRef) -> Self {
        Updater { schema, root, versions: Versions::Labels }
    }

    /// Whether `obj` is a value of the type (`typed.AsTyped`): appliers may
    /// not repeat a list key or a set value, updaters may
    /// (`allow_duplicates`).
    pub fn validate(&self, obj: &Value, allow_duplicates: bool) -> Result<(), ValidationErrors> {
        let errs = validate(self.schema, self.root, obj, allow_duplicates);
        if errs.is_empty() { Ok(()) } else { Err(errs) }
    }

    /// The fields of `obj` (`TypedValue.ToFieldSet`).
    pub fn field_set(&self, obj: &Value) -> Set {
        to_field_set(self.schema, self.root, obj)
    }

    /// The part of `obj` that `fields` name (`TypedValue.ExtractItems`):
    /// given a manager's [`Set::leaves`], what it set.
    pub fn extract(&self, obj: &Value, fields: &Set) -> Value {
        extract_items(self.schema, self.root, obj, fields)
    }

    /// `rhs` merged into `lhs` as an apply merges (`TypedValue.Merge`).
    pub fn merge(&self, lhs: &Value, rhs: &Value) -> Result<Value, Error> {
        merge(self.schema, self.root, Some(lhs), Some(rhs))
            .map(Option::unwrap_or_default)
            .map_err(|e| Error::Invalid(e.to_string()))
    }

    /// What the reference's version converter makes of `obj` for a
    /// manager at `version` (`versionConverter.Convert`, whose conversion
    /// itself changes nothing here): the object as it is when it is at that
    /// version; otherwise the object read again as a value of its own kind,
    /// where a repeated list key or set value is an error (the reference
    /// reads it without `AllowDuplicates`), and no type at all when the
    /// object names no group, version and kind.
    fn convert(&self, obj: &Value, version: &str) -> Converted {
        if self.versions == Versions::Labels {
            return Converted::Same;
        }
        let Some(target) = group_version(version) else {
            return Converted::Failed(format!("unexpected GroupVersion string: {version}"));
        };
        let own = obj.get("apiVersion").and_then(Value::as_str).and_then(group_version);
        if own == Some(target) {
            return Converted::Same;
        }
        if own.is_none() || !obj.get("kind").is_some_and(Value::is_string) {
            return Converted::NoType;
        }
        match self.validate(obj, false) {
            Ok(()) => Converted::Same,
            Err(errs) => Converted::Failed(errs.to_string()),
        }
    }

    /// Managers whose fields reach into atomic values own the atomic root
    /// instead (after a schema change), each read at its own version of
    /// `live` (`reconcileManagedFieldsWithSchemaChanges`; a manager at a
    /// version without a type is dropped).
    fn reconcile(&self, live: &Value, managers: &mut Fields) -> Result<(), Error> {
        // Every version read before any set changes: a failure leaves the
        // managers as they were.
        let untyped = managers
            .iter()
            .filter_map(|(m, vs)| match self.convert(live, &vs.api_version) {
                Converted::Same => None,
                Converted::NoType => Some(Ok(m.clone())),
                Converted::Failed(e) => Some(Err(Error::Invalid(e))),
            })
            .collect::<Result<Vec<String>, Error>>()?;
        for m in untyped {
            managers.remove(&m);
        }
        for vs in managers.values_mut() {
            if let Some(s) = reconcile_with_schema(self.schema, self.root, &vs.set) {
                vs.set = s;
            }
        }
        Ok(())
    }

    /// Other managers lose what changed from `old` to `new`; without
    /// `force`, a change to a field another manager owns is a conflict.
    fn update_managers(
        &self,
        old: &Value,
        new: &Value,
        version: &str,
        managers: &mut Fields,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, Error> {
        let cmp = compare(self.schema, self.root, old, new)
            .map_err(|e| Error::Invalid(format!("failed to compare objects: {e}")))?;
        // Managers at another version see both objects at theirs: a manager
        // whose version has no type is dropped.
        let mut seen: Vec<&str> = vec![version];
        let mut dropped = Vec::new();
        for (m, vs) in managers.iter() {
            if m == workflow || seen.contains(&vs.api_version.as_str()) {
                continue;
            }
            let converted = match self.convert(old, &vs.api_version) {
                Converted::Failed(e) => return Err(Error::Invalid(format!("failed to convert old object: {e}"))),
                Converted::NoType => Converted::NoType,
                Converted::Same => self.convert(new, &vs.api_version),
            };
            match converted {
                Converted::Failed(e) => return Err(Error::Invalid(format!("failed to convert new object: {e}"))),
                Converted::NoType => dropped.push(m.clone()),
                Converted::Same => seen.push(&vs.api_version),
            }
        }
        for m in dropped {
            managers.remove(&m);
        }
        let changed = cmp.modified.union(&cmp.added);
        let mut conflicts: Vec<(String, Set)> = Vec::new();
        for (m, vs) in managers.iter() {
            if m == workflow {
                continue;
            }
            let c = vs.set.intersection(&changed);
            if !c.is_empty() {
                conflicts.push((m.clone(), c));
            }
        }
        if !force && !conflicts.is_empty() {
            let list = conflicts
                .iter()
                .flat_map(|(m, s)| s.iter_paths().into_iter().map(move |p| Conflict::new(m, p)))
                .collect();
            return Err(Error::Conflicts(Conflicts(list)));
        }
        for (m, c) in &conflicts {
            if let Some(vs) = managers.get_mut(m) {
                vs.set = vs.set.difference(c);
            }
        }
        if !cmp.removed.is_empty() {
            for (m, vs) in managers.iter_mut() {
                if m != workflow {
                    vs.set = vs.set.difference(&cmp.removed);
                }
            }
        }
        managers.retain(|_, vs| !vs.set.is_empty());
        Ok(cmp)
    }

    /// `Updater.Update`: a write of `new` over `live` at `version`; the
    /// manager owns what it changed, the other managers lose it. Both
    /// objects must be values of the type ([`Updater::validate`]).
    pub fn update(
        &self,
        live: &Value,
        new: &Value,
        version: &str,
        managers: &mut ManagedFields,
        manager: &str,
    ) -> Result<(), Error> {
        self.reconcile(live, managers)?;
        let cmp = self.update_managers(live, new, version, managers, manager, true)?;
        let own = managers.get(manager).map(|vs| vs.set.clone()).unwrap_or_default();
        let set = own.difference(&cmp.removed).union(&cmp.modified).union(&cmp.added);
        if set.is_empty() {
            managers.remove(manager);
        } else {
            managers
                .insert(manager.to_string(), VersionedSet { set, api_version: version.to_string(), applied: false });
        }
        Ok(())
    }

    /// `Updater.Apply`: `config` applied by `manager` at `version` over
    /// `live` (`null`: no object yet). Returns the merged object (`None`
    /// when it equals the live one) and leaves the managers with the
    /// applier's new set; on conflicts (unless `force`) the managers are
    /// left as they were. Both objects must be values of the type
    /// ([`Updater::validate`]).
    pub fn apply(
        &self,
        live: &Value,
        config: &Value,
        version: &str,
        managers: &mut ManagedFields,
        manager: &str,
        force: bool,
    ) -> Result<Option<Value>, Error> {
        self.reconcile(live, managers)?;
        let merged = merge(self.schema, self.root, Some(live), Some(config))
            .map_err(|e| Error::Invalid(format!("failed to merge config: {e}")))?
            .unwrap_or(Value::Null);
        let set = to_field_set(self.schema, self.root, config);
        let last =
            managers.insert(manager.to_string(), VersionedSet { set, api_version: version.to_string(), applied: true });
        // Pruning removes only what the applier owned and applies no more:
        // when it still applies all it owned (every ancestor of an applied
        // field is a member of the applied set or a struct field), nothing
        // is pruned.
        let new = match last {
            Some(last) if !last.set.difference(&managers[manager].set).is_empty() => {
                self.prune(&merged, managers, &last)
            }
            _ => merged,
        };
        self.update_managers(live, &new, version, managers, manager, force)?;
        Ok((!equals(live, &new)).then_some(new))
    }

    fn ensure(&self, s: &Set) -> Set {
        ensure_named_fields_are_members(self.schema, Some(self.root), s)
    }

    /// Removes what the applier owned before and applies no more, unless
    /// another manager owns it.
    fn prune(&self, merged: &Value, managers: &Fields, last: &VersionedSet) -> Value {
        let mut pruned = remove_items(self.schema, self.root, merged, &self.ensure(&last.set));
        // Add back what any manager owns, version by version (the last
        // applied version first).
        let mut by_version: Vec<(&str, Set)> = Vec::new();
        for vs in managers.values() {
            match by_version.iter_mut().find(|(v, _)| *v == vs.api_version) {
                Some((_, s)) => *s = s.union(&vs.set),
                None => by_version.push((&vs.api_version, vs.set.clone())),
            }
        }
        by_version.sort_by_key(|(v, _)| *v != last.api_version);
        let merged_set = self.ensure(&to_field_set(self.schema, self.root, merged));
        for (_, managed) in &by_version {
            let pruned_set = self.ensure(&to_field_set(self.schema, self.root, &pruned));
            let keep = pruned_set.union(&self.ensure(managed));
            pruned = remove_items(self.schema, self.root, merged, &merged_set.difference(&keep));
        }
        // Add back what nobody owned before (dangling items).
        let pruned_set = self.ensure(&to_field_set(self.schema, self.root, &pruned));
        let last_set = self.ensure(&last.set);
        remove_items(self.schema, self.root, merged, &merged_set.difference(&pruned_set).intersection(&last_set))
    }
}

/// What a version conversion gives ([`Updater::convert`]).
enum Converted {
    /// The object, as it is.
    Same,
    /// No type for the object's group, version and kind.
    NoType,
    /// The reference's error.
    Failed(String),
}

/// `schema.ParseGroupVersion`: `group/version`, a bare version (the core
/// group) or nothing; `None` for more than one `/`.
fn group_version(text: &str) -> Option<(&str, &str)> {
    if text.is_empty() || text == "/" {
        return Some(("", ""));
    }
    match text.split_once('/') {
        None => Some(("", text)),
        Some((_, version)) if version.contains('/') => None,
        Some(gv) => Some(gv),
    }
}
