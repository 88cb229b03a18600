//! The API server's field manager around the updater
//! (`managedfields.NewDefaultFieldManager`): manager identifiers, the
//! `before-first-apply` owner of an object's fields when it has no
//! managed fields yet, the stripped metadata fields, the time stamps, the
//! cap of ten `Update` managers (`ancient-changes`), and the migration of
//! `kubectl` from client-side apply (its last-applied annotation).

use super::conflicts::Conflicts;
use super::fieldpath::{PathElement, Set};
use super::managed::{self, Managed, ManagerId, VersionedSet};
use super::time::Time;
use super::typed::{to_field_set, validate};
use super::updater::{Updater, Versions};
use super::{Error, Resource};
use serde_json::{Map, Value};

const MAX_UPDATE_MANAGERS: usize = 10;
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// One operation's context.
pub(crate) struct Op<'a, 's> {
    pub(crate) res: &'a Resource<'s>,
    pub(crate) now: Time,
    /// The wall clock: the reference's field manager stamps entries with it
    /// before the caller's time replaces it, and caps the `Update` managers
    /// in between, so the cap orders this operation's entries by it.
    pub(crate) clock: Time,
}

fn gvk_text(obj: &Value) -> String {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    let (group, version) = match api_version.split('/').collect::<Vec<_>>().as_slice() {
        [v] => ("", *v),
        [g, v] => (*g, *v),
        _ => return "/, Kind=".into(),
    };
    format!("{group}/{version}, Kind={kind}")
}

/// `objectGVKNN`: `namespace/name; group/version, Kind=kind`.
fn gvknn(obj: &Value) -> String {
    let meta = |k: &str| obj.get("metadata").and_then(|m| m.get(k)).and_then(Value::as_str).unwrap_or("");
    format!("{}/{}; {}", meta("namespace"), meta("name"), gvk_text(obj))
}

fn strip_set() -> Set {
    let f = PathElement::field;
    let mut s = Set::new();
    for top in ["apiVersion", "kind", "metadata"] {
        s.insert(&[f(top)]);
    }
    for m in [
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ] {
        s.insert(&[f("metadata"), f(m)]);
    }
    s
}

fn set_managed_fields(obj: &mut Value, entries: Option<Value>) {
    let Value::Object(o) = obj else { return };
    match entries {
        Some(e) => {
            let meta = o.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
            if !meta.is_object() {
                *meta = Value::Object(Map::new());
            }
            meta.as_object_mut().expect("an object").insert("managedFields".into(), e);
        }
        None => {
            if let Some(Value::Object(meta)) = o.get_mut("metadata") {
                meta.remove("managedFields");
            }
        }
    }
}

fn uid_of(obj: &Value) -> &str {
    obj.get("metadata").and_then(|m| m.get("uid")).and_then(Value::as_str).unwrap_or("")
}

impl Op<'_, '_> {
    fn updater(&self) -> Updater<'_> {
        Updater { schema: self.res.schema, root: self.res.root, versions: Versions::Objects }
    }

    fn identifier(&self, manager: &str, operation: &str) -> String {
        let manager = if manager.is_empty() { "unknown" } else { manager };
        ManagerId {
            manager: manager.to_string(),
            operation: operation.to_string(),
            api_version: self.res.api_version.clone(),
            subresource: String::new(),
        }
        .identifier()
    }

    /// The managers' `Update` chain below the version check: the cap,
    /// the identifier, the rename from `current-operation`, the strip.
    fn update_chain(&self, live: &Value, new: &Value, managed: &mut Managed, manager: &str) -> Result<(), Error> {
        let id = self.identifier(manager, "Update");
        let version = self.res.api_version.as_str();
        let typed = |obj: &Value, which: &str| -> Result<(), Error> {
            let errs = validate(self.res.schema, self.res.root, obj, true);
            if errs.is_empty() {
                Ok(())
            } else {
                Err(Error::Invalid(format!("failed to convert {which} object ({}) to smd typed: {errs}", gvknn(obj))))
            }
        };
        typed(new, "new")?;
        typed(live, "live")?;
        const SELF: &str = "current-operation";
        self.updater().update(live, new, version, &mut managed.fields, SELF).map_err(|f| match f {
            Error::Invalid(m) => Error::Invalid(format!("failed to update ManagedFields ({}): {m}", gvknn(new))),
            other => other,
        })?;
        strip(&mut managed.fields, SELF);
        if let Some(vs) = managed.fields.remove(SELF) {
            let set = match managed.fields.get(&id) {
                Some(prev) => vs.set.union(&prev.set),
                None => vs.set,
            };
            managed.fields.insert(id.clone(), VersionedSet { set, api_version: vs.api_version, applied: vs.applied });
            managed.times.insert(id.clone(), Some(self.now));
            managed.stamped.insert(id);
        }
        cap_update_managers(managed, self.clock);
        Ok(())
    }

    /// The `Apply` chain below the last-applied steps.
    fn apply_chain(
        &self,
        live: &Value,
        applied: &Value,
        managed: &mut Managed,
        manager: &str,
        force: bool,
    ) -> Result<Value, Error> {
        if managed.fields.is_empty() {
            let empty = self.res.empty_object();
            self.update_chain(&empty, live, managed, "before-first-apply")
                .map_err(|e| Error::Invalid(format!("failed to create manager for existing fields: {e}")))?;
        }
        let id = self.identifier(manager, "Apply");
        if managed::entries_of(applied).is_some() {
            return Err(Error::Invalid("metadata.managedFields must be nil".into()));
        }
        let errs = validate(self.res.schema, self.res.root, applied, false);
        if !errs.is_empty() {
            return Err(Error::Invalid(format!("failed to create typed patch object ({}): {errs}", gvknn(applied))));
        }
        let errs = validate(self.res.schema, self.res.root, live, true);
        if !errs.is_empty() {
            return Err(Error::Invalid(format!("failed to create typed live object ({}): {errs}", gvknn(live))));
        }
        let version = self.res.api_version.as_str();
        let merged = self.updater().apply(live, applied, version, &mut managed.fields, &id, force)?;
        strip(&mut managed.fields, &id);
        Ok(match merged {
            Some(obj) => {
                managed.times.insert(id.clone(), Some(self.now));
                managed.stamped.insert(id);
                obj
            }
            None => live.clone(),
        })
    }

    /// The fields `kubectl` may take over from other managers: those of its
    /// last-applied annotation whose values the live object still has.
    fn allowed_from_last_applied(&self, live: &Value) -> Option<Set> {
        let text = live.get("metadata")?.get("annotations")?.get(LAST_APPLIED)?.as_str()?;
        if text.is_empty() {
            return None;
        }
        if !validate(self.res.schema, self.res.root, live, false).is_empty() {
            return None;
        }
        let last: Value = serde_json::from_str(text).ok()?;
        if !last.is_object() || last.get("apiVersion").and_then(Value::as_str) != Some(self.res.api_version.as_str()) {
            return None;
        }
        if !validate(self.res.schema, self.res.root, &last, false).is_empty() {
            return None;
        }
        let set = to_field_set(self.res.schema, self.res.root, &last);
        let cmp = super::compare::compare(self.res.schema, self.res.root, &last, live).ok()?;
        Some(set.difference(&cmp.modified).difference(&cmp.added).difference(&cmp.removed))
    }

    pub(crate) fn apply(&self, live: &Value, applied: &Value, manager: &str, force: bool) -> Result<Value, Error> {
        let entries = managed::entries_of(live).unwrap_or_default();
        let managed =
            managed::decode(&entries).map_err(|e| Error::Invalid(format!("failed to decode managed fields: {e}")))?;
        if gvk_text(applied) != self.res.gvk_text() {
            return Err(Error::Invalid(format!("invalid object type: {}", gvk_text(applied))));
        }
        // `kubectl` may apply again from the managers as they were.
        let before = (manager == "kubectl").then(|| managed.clone());
        let mut m = managed;
        let mut result = self.apply_chain(live, applied, &mut m, manager, force);
        if manager == "kubectl"
            && let Err(Error::Conflicts(c)) = &result
            && let Some(allowed) = self.allowed_from_last_applied(live)
        {
            let rest: Vec<_> = c.0.iter().filter(|c| !allowed.has(&c.path.0)).cloned().collect();
            if rest.is_empty() {
                m = before.expect("kept for kubectl");
                result = self.apply_chain(live, applied, &mut m, manager, true);
            } else {
                result = Err(Error::Conflicts(Conflicts(rest)));
            }
        }
        let mut obj = result?;
        if manager == "kubectl" {
            update_last_applied(&mut obj, applied);
        }
        set_managed_fields(&mut obj, managed::encode(&m));
        Ok(obj)
    }

    pub(crate) fn update(&self, live: &Value, new: &Value, manager: &str) -> Result<Value, Error> {
        let new_entries = managed::entries_of(new);
        let mut managed = if managed::is_reset(&new_entries) {
            Managed::default()
        } else {
            match managed::decode(new_entries.as_deref().unwrap_or(&[])) {
                Ok(m) if !m.fields.is_empty() => m,
                _ => managed::decode(&managed::entries_of(live).unwrap_or_default()).unwrap_or_default(),
            }
        };
        let mut obj = new.clone();
        set_managed_fields(&mut obj, None);
        if managed.fields.is_empty() && !uid_of(live).is_empty() {
            // An object the server did not track: it stays untracked.
            return Ok(obj);
        }
        self.update_chain(live, &obj, &mut managed, manager)?;
        set_managed_fields(&mut obj, managed::encode(&managed));
        Ok(obj)
    }
}

/// `stripMetaManager`: the applier or updater does not own the object's
/// identity and bookkeeping fields; an empty set is no entry.
fn strip(fields: &mut super::updater::Fields, manager: &str) {
    if let Some(vs) = fields.get_mut(manager) {
        for path in strip_set().iter_paths() {
            vs.set.remove(&path.0);
        }
        if vs.set.is_empty() {
            fields.remove(manager);
        }
    }
}

/// `capManagersManager`: beyond ten `Update` managers, the oldest are
/// merged into one `ancient-changes` manager per apiVersion.
fn cap_update_managers(managed: &mut Managed, clock: Time) {
    let mut updaters: Vec<String> =
        managed.fields.iter().filter(|(_, vs)| !vs.applied).map(|(k, _)| k.clone()).collect();
    if updaters.len() <= MAX_UPDATE_MANAGERS {
        return;
    }
    let secs = |m: &Managed, k: &str| {
        if m.stamped.contains(k) {
            return clock.unix();
        }
        m.times.get(k).copied().flatten().map(|t| t.unix()).unwrap_or(0)
    };
    updaters.sort_by(|a, b| secs(managed, a).cmp(&secs(managed, b)).then_with(|| a.cmp(b)));
    let mut first_of_version: Vec<(String, String)> = Vec::new();
    let mut length = updaters.len();
    for manager in &updaters {
        if length <= MAX_UPDATE_MANAGERS {
            break;
        }
        let Some(vs) = managed.fields.get(manager).cloned() else { continue };
        let time = managed.times.get(manager).copied().flatten();
        let stamped = managed.stamped.contains(manager);
        let bucket = ManagerId {
            manager: "ancient-changes".into(),
            operation: "Update".into(),
            api_version: vs.api_version.clone(),
            subresource: String::new(),
        }
        .identifier();
        match first_of_version.iter().find(|(v, _)| *v == vs.api_version) {
            Some((_, first)) => {
                if !managed.fields.contains_key(&bucket)
                    && let Some(s) = managed.fields.remove(first)
                {
                    managed.fields.insert(bucket.clone(), s);
                }
                let prev = managed.fields.get(&bucket).map(|b| b.set.clone()).unwrap_or_default();
                managed.fields.insert(
                    bucket.clone(),
                    VersionedSet { set: vs.set.union(&prev), api_version: vs.api_version.clone(), applied: vs.applied },
                );
                managed.fields.remove(manager);
                length -= 1;
                managed.times.insert(bucket.clone(), time);
                if stamped {
                    managed.stamped.insert(bucket);
                } else {
                    managed.stamped.remove(&bucket);
                }
            }
            None => first_of_version.push((vs.api_version.clone(), manager.clone())),
        }
    }
}

/// `lastAppliedUpdater`: `kubectl`'s apply keeps its last-applied
/// annotation (when the object has one) up to date.
fn update_last_applied(obj: &mut Value, applied: &Value) {
    let has = obj
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(LAST_APPLIED))
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty());
    if !has {
        return;
    }
    let mut copy = applied.clone();
    if let Some(Value::Object(a)) = copy.get_mut("metadata").and_then(|m| m.get_mut("annotations")) {
        a.remove(LAST_APPLIED);
    }
    // `encoding/json`, as the unstructured encoder writes objects (short
    // `\b` and `\f`, unlike the field sets' json-iterator), and its newline.
    let mut text = crate::value::to_go_json(&copy);
    text.push('\n');
    let Some(Value::Object(ann)) = obj.get_mut("metadata").and_then(|m| m.get_mut("annotations")) else { return };
    ann.insert(LAST_APPLIED.into(), Value::String(text));
    let size: usize = ann.iter().map(|(k, v)| k.len() + v.as_str().map_or(0, str::len)).sum();
    if size > TOTAL_ANNOTATION_SIZE_LIMIT {
        ann.remove(LAST_APPLIED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gvk_text_is_gos() {
        assert_eq!(gvk_text(&serde_json::json!({"apiVersion": "v1", "kind": "Pod"})), "/v1, Kind=Pod");
        assert_eq!(
            gvk_text(&serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment"})),
            "apps/v1, Kind=Deployment"
        );
    }
}
