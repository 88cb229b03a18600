//! `--explain`: a human-readable account of what a patch did, with paths:
//! which fields it set, added and deleted, how each list was merged and
//! what each directive did.
//!
//! It walks the object before, the patch, the object after and the schema
//! together, on their own: the engine is not asked anything but the
//! schema's answers, so the account describes the engine's result rather
//! than re-deriving it.

use serde_json::{Map, Value};
use smp_core::Schema;
use smp_core::directive::{Directive, PATCH, PatchOp};
use std::collections::{HashMap, HashSet};

/// The most lines one account holds; the rest are counted.
const MAX_LINES: usize = 500;

/// The account of `patch` turning `before` into `after`, one line per
/// object or list it touched.
pub fn explain(before: &Value, patch: &Value, after: &Value, schema: Schema<'_>) -> Vec<String> {
    let mut walk = Walk { lines: Vec::new(), more: 0 };
    if let Value::Object(patch) = patch {
        walk.object("", before.as_object(), patch, after.as_object(), schema);
    }
    if walk.lines.is_empty() {
        walk.lines.push("nothing to do: the patch is empty".into());
    }
    if walk.more > 0 {
        walk.lines.push(format!("… and {} more lines", walk.more));
    }
    walk.lines
}

/// How the schema merges a list.
enum ListMerge {
    /// Objects paired by this key.
    Keyed(String),
    /// Scalars, as a set.
    Set,
    /// Replaced whole.
    Replace,
}

/// The schema of the object under `key`.
fn object_schema<'a>(schema: Schema<'a>, key: &str) -> Schema<'a> {
    schema.lookup_struct(key).map_or(Schema::Untyped, |(sub, _)| sub)
}

/// The schema of the elements of the list under `key`, and how it merges.
fn list_schema<'a>(schema: Schema<'a>, key: &str) -> (Schema<'a>, ListMerge) {
    let Ok((elements, meta)) = schema.lookup_slice(key) else { return (Schema::Untyped, ListMerge::Replace) };
    let merge = meta.strategy().is_ok_and(|s| s.merge);
    let how = match (merge, meta.merge_key) {
        (true, Some(key)) => ListMerge::Keyed(key.primary().to_string()),
        (true, None) => ListMerge::Set,
        (false, _) => ListMerge::Replace,
    };
    (elements, how)
}

struct Walk {
    lines: Vec<String>,
    more: usize,
}

/// `path.key`, or `key` at the top.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

fn shown(path: &str) -> &str {
    if path.is_empty() { "(top)" } else { path }
}

/// A short text of a value for a line: scalars whole, up to 60 characters.
fn brief(v: &Value) -> String {
    let text = match v {
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) => format!("[{} items]", items.len()),
        Value::Object(map) => format!("{{{} fields}}", map.len()),
        other => other.to_string(),
    };
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The identity of a list element: its merge key's value, or itself.
fn identity(element: &Value, key: Option<&str>) -> String {
    match (key, element) {
        (Some(key), Value::Object(map)) => map.get(key).map(Value::to_string).unwrap_or_default(),
        _ => element.to_string(),
    }
}

/// The members of a list, looked up by hash (by their JSON text, as
/// [`identity`] tells elements apart): one scan of the list per item would
/// make a set of many items quadratic.
struct Members(HashSet<String>);

impl Members {
    fn of(items: &[Value]) -> Self {
        Members(items.iter().map(|e| identity(e, None)).collect())
    }

    fn has(&self, v: &Value) -> bool {
        self.0.contains(&identity(v, None))
    }
}

impl Walk {
    fn line(&mut self, text: String) {
        if self.lines.len() < MAX_LINES {
            self.lines.push(text);
        } else {
            self.more += 1;
        }
    }

    fn object(
        &mut self,
        path: &str,
        before: Option<&Map<String, Value>>,
        patch: &Map<String, Value>,
        after: Option<&Map<String, Value>>,
        schema: Schema<'_>,
    ) {
        match patch.get(PATCH).and_then(Value::as_str).and_then(PatchOp::parse) {
            Some(PatchOp::Replace) => return self.line(format!("{}: replaced whole ($patch: replace)", shown(path))),
            Some(PatchOp::Delete) => return self.line(format!("{}: deleted ($patch: delete)", shown(path))),
            _ => {}
        }
        let old = |key: &str| before.and_then(|m| m.get(key));
        let new = |key: &str| after.and_then(|m| m.get(key));
        let (mut set, mut added, mut deleted) = (Vec::new(), Vec::new(), Vec::new());
        for (key, value) in patch {
            let directive = Directive::parse(key);
            if let Some(Directive::SetElementOrder(field)) = directive {
                self.reordered(&join(path, field), old(field), new(field), schema, field);
                continue;
            }
            if let Some(Directive::DeleteFromPrimitiveList(field)) = directive {
                let old_items = Members::of(old(field).and_then(Value::as_array).map_or(&[][..], Vec::as_slice));
                let present: Vec<String> =
                    value.as_array().into_iter().flatten().filter(|v| old_items.has(v)).map(brief).collect();
                self.line(format!(
                    "{}: $deleteFromPrimitiveList removed {}",
                    join(path, field),
                    if present.is_empty() { "nothing".to_string() } else { present.join(", ") }
                ));
                continue;
            }
            if directive == Some(Directive::RetainKeys) {
                let removed: Vec<&str> = before
                    .into_iter()
                    .flat_map(|m| m.keys())
                    .filter(|k| after.is_none_or(|a| !a.contains_key(*k)) && !patch.contains_key(*k))
                    .map(String::as_str)
                    .collect();
                let verb = if removed.is_empty() {
                    "removed nothing".into()
                } else {
                    format!("removed {}", removed.join(", "))
                };
                self.line(format!("{}: $retainKeys {verb}", shown(path)));
                continue;
            }
            if key.starts_with('$') {
                continue;
            }
            match (value, old(key)) {
                (Value::Null, Some(_)) => deleted.push(key.as_str()),
                (Value::Null, None) => {}
                (Value::Object(sub), Some(Value::Object(old_sub))) => {
                    let after_sub = new(key).and_then(Value::as_object);
                    self.object(&join(path, key), Some(old_sub), sub, after_sub, object_schema(schema, key));
                }
                (Value::Array(items), _) => {
                    self.list(&join(path, key), old(key), items, new(key), schema, key);
                }
                (_, None) => added.push(key.as_str()),
                (_, Some(previous)) => {
                    if new(key) != Some(previous) {
                        set.push(format!("{key} ({} → {})", brief(previous), new(key).map_or("-".into(), brief)));
                    }
                }
            }
        }
        let mut parts = Vec::new();
        if !set.is_empty() {
            parts.push(format!("set {}", set.join(", ")));
        }
        if !added.is_empty() {
            parts.push(format!("added {}", added.join(", ")));
        }
        if !deleted.is_empty() {
            parts.push(format!("deleted {}", deleted.join(", ")));
        }
        if !parts.is_empty() {
            self.line(format!("{}: {}", shown(path), parts.join("; ")));
        }
    }

    fn list(
        &mut self,
        path: &str,
        before: Option<&Value>,
        patch: &[Value],
        after: Option<&Value>,
        schema: Schema<'_>,
        key: &str,
    ) {
        let (elements, how) = list_schema(schema, key);
        let old_items = before.and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let new_items = after.and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        if patch.iter().any(|e| e.get(PATCH).and_then(Value::as_str).and_then(PatchOp::parse) == Some(PatchOp::Replace))
        {
            return self.line(format!("{path}: replaced whole ($patch: replace), {} items", new_items.len()));
        }
        match how {
            ListMerge::Keyed(merge_key) if patch.iter().all(Value::is_object) => {
                let index_of = |items: &[Value]| -> HashMap<String, usize> {
                    items.iter().enumerate().map(|(i, e)| (identity(e, Some(&merge_key)), i)).collect()
                };
                let (old_index, new_index) = (index_of(old_items), index_of(new_items));
                let (mut updated, mut added, mut deleted) = (0, 0, 0);
                for element in patch {
                    let id = identity(element, Some(&merge_key));
                    let Some(fields) = element.as_object() else { continue };
                    let was = old_index.get(&id).map(|i| &old_items[*i]);
                    let now = new_index.get(&id).map(|i| &new_items[*i]);
                    if fields.get(PATCH).and_then(Value::as_str).and_then(PatchOp::parse) == Some(PatchOp::Delete) {
                        deleted += usize::from(was.is_some());
                        continue;
                    }
                    match was {
                        None => added += 1,
                        Some(previous) => {
                            if now != Some(previous) {
                                updated += 1;
                            }
                            let shown_id = element.get(&merge_key).map_or(id.clone(), |v| match v {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            });
                            let element_path = format!("{path}[{merge_key}={shown_id}]");
                            let now = now.and_then(Value::as_object);
                            self.object(&element_path, previous.as_object(), fields, now, elements);
                        }
                    }
                }
                let counts = [(updated, "updated"), (added, "added"), (deleted, "deleted")];
                let counts: Vec<String> =
                    counts.iter().filter(|(n, _)| *n > 0).map(|(n, w)| format!("{n} {w}")).collect();
                let summary = if counts.is_empty() { "nothing changed".into() } else { counts.join(", ") };
                self.line(format!("{path}: merged by {merge_key}; {summary}"));
            }
            ListMerge::Set | ListMerge::Keyed(_) => {
                let old_items = Members::of(old_items);
                let added: Vec<String> = patch.iter().filter(|v| !old_items.has(v)).map(brief).collect();
                let what = if added.is_empty() { "nothing new".into() } else { format!("added {}", added.join(", ")) };
                self.line(format!("{path}: merged as a set; {what}"));
            }
            ListMerge::Replace => {
                if before != after {
                    self.line(format!("{path}: replaced ({} items, was {})", new_items.len(), old_items.len()));
                }
            }
        }
    }

    /// `$setElementOrder`: how many of the items present before and after
    /// changed position.
    fn reordered(&mut self, path: &str, before: Option<&Value>, after: Option<&Value>, schema: Schema<'_>, key: &str) {
        let merge_key = match list_schema(schema, key).1 {
            ListMerge::Keyed(merge_key) => Some(merge_key),
            _ => None,
        };
        let ids = |v: Option<&Value>| -> Vec<String> {
            v.and_then(Value::as_array).into_iter().flatten().map(|e| identity(e, merge_key.as_deref())).collect()
        };
        let (old, new) = (ids(before), ids(after));
        let in_new: HashSet<&String> = new.iter().collect();
        let in_old: HashSet<&String> = old.iter().collect();
        let old_common = old.iter().filter(|id| in_new.contains(id));
        let new_common = new.iter().filter(|id| in_old.contains(id));
        let moved = old_common.zip(new_common).filter(|(a, b)| a != b).count();
        let what = if moved == 0 { "order unchanged".to_string() } else { format!("reordered {moved} items") };
        self.line(format!("{path}: $setElementOrder {what}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment_schema() -> Schema<'static> {
        crate::builtin::by_name("apps/v1/Deployment").unwrap()
    }

    #[test]
    fn lists_directives_and_fields_with_paths() {
        let before = json!({"metadata": {"finalizers": ["a", "b"], "labels": {"x": "1", "y": "2"}}, "spec": {
            "replicas": 2,
            "template": {"spec": {"containers": [
                {"name": "web", "image": "a", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]},
                {"name": "side", "image": "b"},
            ]}},
        }});
        let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "labels": {"y": null, "z": "3"}},
        "spec": {"replicas": 3, "template": {"spec": {
            "$setElementOrder/containers": [{"name": "side"}, {"name": "web"}],
            "containers": [{"name": "web", "env": [{"name": "A", "value": "one"}, {"name": "C", "value": "3"},
                                                    {"name": "B", "$patch": "delete"}]}],
        }}}});
        let after = smp_core::apply(&before, &patch, deployment_schema()).unwrap();
        let lines = explain(&before, &patch, &after, deployment_schema());
        let want = [
            "metadata.finalizers: $deleteFromPrimitiveList removed \"a\"",
            "metadata.labels: added z; deleted y",
            "spec.template.spec.containers: $setElementOrder reordered 2 items",
            "spec.template.spec.containers[name=web].env[name=A]: set value (\"1\" → \"one\")",
            "spec.template.spec.containers[name=web].env: merged by name; 1 updated, 1 added, 1 deleted",
            "spec.template.spec.containers: merged by name; 1 updated",
            "spec: set replicas (2 → 3)",
        ];
        assert_eq!(lines, want);
    }

    #[test]
    fn replaced_lists_sets_and_empty_patches() {
        let schema = deployment_schema();
        let before = json!({"spec": {"template": {"spec": {"tolerations": [{"key": "a"}]}}}});
        let patch = json!({"spec": {"template": {"spec": {"tolerations": [{"key": "b"}, {"key": "c"}]}}}});
        let after = smp_core::apply(&before, &patch, schema).unwrap();
        assert_eq!(
            explain(&before, &patch, &after, schema),
            ["spec.template.spec.tolerations: replaced (2 items, was 1)"]
        );
        assert_eq!(explain(&before, &json!({}), &before, schema), ["nothing to do: the patch is empty"]);
        let patch = json!({"spec": {"$patch": "replace", "replicas": 1}});
        assert_eq!(explain(&before, &patch, &before, schema), ["spec: replaced whole ($patch: replace)"]);
    }

    /// 50,000 finalizers added to 50,000, and 50,000 deleted: a scan of
    /// the old list per item would take 2.5 * 10^9 comparisons (minutes in
    /// a debug build); looked up by hash, a fraction of a second.
    #[test]
    fn sets_of_many_items_are_explained_in_linear_time() {
        let schema = deployment_schema();
        let names = |from: usize| Value::from((from..from + 50_000).map(|i| format!("f{i}")).collect::<Vec<_>>());
        let before = json!({"metadata": {"finalizers": names(0)}});
        let patch = json!({"metadata": {"finalizers": names(50_000), "$deleteFromPrimitiveList/finalizers": names(0)}});
        let after = smp_core::apply(&before, &patch, schema).unwrap();
        let lines = explain(&before, &patch, &after, schema);
        let added = lines.iter().find(|l| l.starts_with("metadata.finalizers: merged as a set; added")).unwrap();
        let removed = lines.iter().find(|l| l.starts_with("metadata.finalizers: $deleteFromPrimitiveList")).unwrap();
        assert_eq!((added.matches(", ").count(), removed.matches(", ").count()), (49_999, 49_999));
        assert!(added.contains("\"f50000\"") && removed.contains("\"f49999\""), "{added:.100} / {removed:.100}");
    }
}
