//! The objects, one revision counter for all of them (the
//! `resourceVersion`), the recent changes for watches that resume, and the
//! open watches.

use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Where an object lives: one object per group, resource, namespace and
/// name, whichever version it is read at.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    /// API group.
    pub group: String,
    /// Resource (plural).
    pub resource: String,
    /// Namespace, `""` for cluster-scoped objects.
    pub namespace: String,
    /// Name.
    pub name: String,
}

/// What happened to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    /// Created.
    Added,
    /// Changed.
    Modified,
    /// Removed.
    Deleted,
}

impl EventType {
    /// The watch event's `type`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One change, as watches see it.
#[derive(Clone, Debug)]
pub struct Change {
    /// The revision it made.
    pub revision: u64,
    /// Group and resource of the object.
    pub group: String,
    /// Resource (plural).
    pub resource: String,
    /// Namespace of the object.
    pub namespace: String,
    /// What happened.
    pub event: EventType,
    /// The object after the change (before it, for a deletion, with the
    /// deletion's revision).
    pub object: Arc<Value>,
}

/// An open watch: the changes of one resource (in one namespace, or all).
struct Watcher {
    group: String,
    resource: String,
    namespace: Option<String>,
    sender: mpsc::UnboundedSender<Change>,
}

impl Watcher {
    fn wants(&self, change: &Change) -> bool {
        self.group == change.group
            && self.resource == change.resource
            && self.namespace.as_ref().is_none_or(|ns| *ns == change.namespace)
    }
}

/// How many changes are kept for watches that resume from a
/// resourceVersion; older ones answer 410 Gone.
pub const HISTORY: usize = 20_000;

/// The objects and their history.
#[derive(Default)]
pub struct Store {
    objects: BTreeMap<Key, Arc<Value>>,
    revision: u64,
    history: VecDeque<Change>,
    watchers: Vec<Watcher>,
}

/// The revision as a `resourceVersion` string.
pub fn version_string(revision: u64) -> String {
    revision.to_string()
}

impl Store {
    /// The latest revision.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The object at `key`.
    pub fn get(&self, key: &Key) -> Option<&Arc<Value>> {
        self.objects.get(key)
    }

    /// The objects of a resource (in one namespace, or all), in key order,
    /// from the first key after `after`.
    pub fn list<'a>(
        &'a self,
        group: &'a str,
        resource: &'a str,
        namespace: Option<&'a str>,
        after: Option<(&'a str, &'a str)>,
    ) -> impl Iterator<Item = (&'a Key, &'a Arc<Value>)> + 'a {
        let start = Key {
            group: group.to_string(),
            resource: resource.to_string(),
            namespace: after.map_or(namespace.unwrap_or_default(), |a| a.0).to_string(),
            name: after.map_or("", |a| a.1).to_string(),
        };
        self.objects
            .range(start..)
            .skip_while(move |(k, _)| after.is_some_and(|(ns, name)| k.namespace == ns && k.name == name))
            .take_while(move |(k, _)| {
                k.group == group && k.resource == resource && namespace.is_none_or(|ns| k.namespace == ns)
            })
    }

    /// Writes `object` at `key` with a new revision as its
    /// `metadata.resourceVersion`, and tells the watches.
    pub fn put(&mut self, key: Key, mut object: Value, event: EventType) -> Arc<Value> {
        self.revision += 1;
        object["metadata"]["resourceVersion"] = version_string(self.revision).into();
        let object = Arc::new(object);
        self.record(&key, event, object.clone());
        self.objects.insert(key, object.clone());
        object
    }

    /// Removes the object at `key`; the deletion has its own revision.
    pub fn remove(&mut self, key: &Key) -> Option<Arc<Value>> {
        let removed = self.objects.remove(key)?;
        self.revision += 1;
        let mut last = (*removed).clone();
        last["metadata"]["resourceVersion"] = version_string(self.revision).into();
        let last = Arc::new(last);
        self.record(key, EventType::Deleted, last.clone());
        Some(last)
    }

    /// Removes every object of a resource (its CRD was deleted).
    pub fn remove_all(&mut self, group: &str, resource: &str) {
        let keys: Vec<Key> = self.list(group, resource, None, None).map(|(k, _)| k.clone()).collect();
        for key in keys {
            self.remove(&key);
        }
    }

    fn record(&mut self, key: &Key, event: EventType, object: Arc<Value>) {
        let change = Change {
            revision: self.revision,
            group: key.group.clone(),
            resource: key.resource.clone(),
            namespace: key.namespace.clone(),
            event,
            object,
        };
        self.watchers.retain(|w| !w.wants(&change) || w.sender.send(change.clone()).is_ok());
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(change);
    }

    /// Opens a watch of a resource after `from`: the changes since then
    /// (none when `from` is the current revision), then every later one
    /// through the receiver. `None` when `from` is older than the history.
    pub fn watch(
        &mut self,
        group: &str,
        resource: &str,
        namespace: Option<&str>,
        from: u64,
    ) -> Option<(Vec<Change>, mpsc::UnboundedReceiver<Change>)> {
        let oldest_kept = self.history.front().map_or(self.revision, |c| c.revision - 1);
        if from < oldest_kept {
            return None;
        }
        let (sender, receiver) = mpsc::unbounded_channel();
        let watcher = Watcher {
            group: group.to_string(),
            resource: resource.to_string(),
            namespace: namespace.map(str::to_string),
            sender,
        };
        let past = self.history.iter().filter(|c| c.revision > from && watcher.wants(c)).cloned().collect();
        self.watchers.push(watcher);
        Some((past, receiver))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(ns: &str, name: &str) -> Key {
        Key { group: "".into(), resource: "configmaps".into(), namespace: ns.into(), name: name.into() }
    }

    #[test]
    fn lists_a_namespace_after_a_key() {
        let mut store = Store::default();
        for (ns, name) in [("a", "x"), ("a", "y"), ("b", "x"), ("a", "z")] {
            store.put(key(ns, name), json!({"metadata": {"name": name}}), EventType::Added);
        }
        let names = |it: Vec<(&Key, &Arc<Value>)>| {
            it.iter().map(|(k, _)| format!("{}/{}", k.namespace, k.name)).collect::<Vec<_>>()
        };
        assert_eq!(names(store.list("", "configmaps", Some("a"), None).collect()), ["a/x", "a/y", "a/z"]);
        assert_eq!(names(store.list("", "configmaps", Some("a"), Some(("a", "x"))).collect()), ["a/y", "a/z"]);
        assert_eq!(names(store.list("", "configmaps", None, Some(("a", "z"))).collect()), ["b/x"]);
        assert_eq!(store.list("", "secrets", None, None).count(), 0);
        assert_eq!(store.revision(), 4);
    }

    #[test]
    fn watches_resume_from_a_revision_and_see_later_changes() {
        let mut store = Store::default();
        store.put(key("a", "x"), json!({"metadata": {}}), EventType::Added);
        store.put(key("a", "x"), json!({"metadata": {}}), EventType::Modified);
        let (past, mut rx) = store.watch("", "configmaps", Some("a"), 1).unwrap();
        assert_eq!(past.iter().map(|c| c.revision).collect::<Vec<_>>(), [2]);
        store.put(key("b", "x"), json!({"metadata": {}}), EventType::Added);
        store.remove(&key("a", "x"));
        let change = rx.try_recv().unwrap();
        assert_eq!((change.event, change.revision), (EventType::Deleted, 4));
        assert_eq!(change.object["metadata"]["resourceVersion"], "4");
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn a_watch_from_before_the_history_is_refused() {
        let mut store = Store::default();
        for i in 0..HISTORY + 5 {
            store.put(key("a", &i.to_string()), json!({"metadata": {}}), EventType::Added);
        }
        assert!(store.watch("", "configmaps", None, 3).is_none());
        assert!(store.watch("", "configmaps", None, store.revision()).is_some());
    }
}
