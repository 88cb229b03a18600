//! What the typed walk knows about a struct type from its schema alone,
//! worked out once per type: how deep its values can nest, and whether two
//! equal values always diff to `{}`.
//!
//! The second is not true of every type: the reference sends a
//! replace-strategy object whole, and fails on a keyed list whose elements
//! lack their key or on arbitrary JSON holding a bad `$patch`. Where it
//! holds, the diff skips a field whose two values are `==` without walking
//! them. The reference also re-sends the order of an unsorted set of
//! scalars even when nothing changed: that depends on the value, so a
//! type holding such sets is quiet only once they are seen to be sorted
//! (`sets`).
//!
//! Both facts are properties of the type, but they cannot be Rust
//! constants: a recursive type would make their evaluation cyclic. They are
//! computed from the schema the first time a type is walked (a type on a
//! cycle gets the cautious answer: unbounded, not quiet) and kept for the
//! life of the process.

use crate::engine::MAX_DEPTH;
use crate::lists::key::{KeyHasher, KeyMap};
use crate::schema::{FieldSchema, Shape, StructSchema};
use std::cell::RefCell;
use std::sync::{OnceLock, RwLock};

/// What is known of one struct type.
#[derive(Debug)]
pub(crate) struct StructFacts {
    /// The deepest nesting of its JSON form, the object itself included
    /// (`None`: unbounded, or deeper than the engine accepts anyway).
    pub(crate) depth: Option<usize>,
    /// Two equal values diff to `{}` (under every diff option), once
    /// their merged sets of scalars are sorted and their maps hold no
    /// `$patch` key.
    pub(crate) quiet: bool,
    /// Its values may hold merged sets of scalars or maps, to be looked at
    /// before two equal values are taken as quiet.
    pub(crate) sets: bool,
    /// The same for each field, in schema order.
    pub(crate) fields: &'static [FieldFacts],
    /// The fields whose depth is unbounded, by their index in `fields`.
    pub(crate) unbounded: &'static [usize],
    /// The deepest nesting of the other fields' values.
    pub(crate) bounded: usize,
}

/// What is known of one field of a struct.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldFacts {
    /// The deepest nesting of the field's value (`None`: unbounded).
    pub(crate) depth: Option<usize>,
    /// Two equal values of the field need no patch, once their merged sets
    /// of scalars are sorted and their maps hold no `$patch` key.
    pub(crate) quiet: bool,
    /// The field's values may hold merged sets of scalars or maps.
    pub(crate) sets: bool,
    /// The field's keys sit in the struct's object (serde's `flatten`).
    pub(crate) flatten: bool,
}

type Known = KeyMap<usize, &'static StructFacts>;

fn known() -> &'static RwLock<Known> {
    static KNOWN: OnceLock<RwLock<Known>> = OnceLock::new();
    KNOWN.get_or_init(|| RwLock::new(Known::with_hasher(KeyHasher::default())))
}

fn addr(s: &'static StructSchema) -> usize {
    s as *const StructSchema as usize
}

thread_local! {
    /// The facts this thread has looked up: read without a lock.
    static SEEN: RefCell<Known> = RefCell::new(Known::with_hasher(KeyHasher::default()));
}

/// The facts of a struct type.
pub(crate) fn of(s: &'static StructSchema) -> &'static StructFacts {
    let a = addr(s);
    if let Some(f) = SEEN.with(|seen| seen.borrow().get(&a).copied()) {
        return f;
    }
    let f = of_shared(s);
    SEEN.with(|seen| seen.borrow_mut().insert(a, f));
    f
}

fn of_shared(s: &'static StructSchema) -> &'static StructFacts {
    if let Some(f) = known().read().unwrap_or_else(|e| e.into_inner()).get(&addr(s)) {
        return f;
    }
    let mut work = Work { open: Vec::new(), done: KeyMap::with_hasher(KeyHasher::default()) };
    let facts = work.of_struct(s);
    let mut table = known().write().unwrap_or_else(|e| e.into_inner());
    for (a, f) in work.done {
        table.entry(a).or_insert(f);
    }
    facts
}

/// The deepest nesting of a value of this schema (`None`: unbounded).
pub(crate) fn depth(shape: Shape) -> Option<usize> {
    match shape {
        Shape::Scalar => Some(0),
        Shape::Any => None,
        Shape::List(elem) | Shape::Map(elem) => depth(elem())?.checked_add(1),
        Shape::Struct(s) => of(s).depth,
    }
}

/// The facts being worked out: the structs on the current path, and the
/// ones finished.
struct Work {
    open: Vec<usize>,
    done: KeyMap<usize, &'static StructFacts>,
}

impl Work {
    fn of_struct(&mut self, s: &'static StructSchema) -> &'static StructFacts {
        static ON_A_CYCLE: StructFacts =
            StructFacts { depth: None, quiet: false, sets: true, fields: &[], unbounded: &[], bounded: 0 };
        let a = addr(s);
        if let Some(f) = known().read().unwrap_or_else(|e| e.into_inner()).get(&a) {
            return f;
        }
        if let Some(f) = self.done.get(&a) {
            return f;
        }
        if self.open.contains(&a) || self.open.len() > MAX_DEPTH {
            return &ON_A_CYCLE;
        }
        self.open.push(a);
        let fields: Vec<FieldFacts> = s.fields.iter().map(|f| self.of_field(f)).collect();
        let fields: &'static [FieldFacts] = Box::leak(fields.into_boxed_slice());
        self.open.pop();
        let mut depth = Some(0);
        for f in fields.iter() {
            // A flattened field's keys sit in this object.
            let d = if f.flatten { f.depth.map(|d| d.saturating_sub(1)) } else { f.depth };
            depth = match (depth, d) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
        }
        let depth = depth.map(|d| d + 1).filter(|&d| d <= MAX_DEPTH);
        let quiet = fields.iter().all(|f| f.quiet);
        let sets = fields.iter().any(|f| f.sets);
        let unbounded: Vec<usize> = (0..fields.len()).filter(|&i| fields[i].depth.is_none()).collect();
        let unbounded: &'static [usize] = Box::leak(unbounded.into_boxed_slice());
        let bounded = fields.iter().filter_map(|f| f.depth).max().unwrap_or(0);
        let facts = StructFacts { depth, quiet, sets, fields, unbounded, bounded };
        let facts: &'static StructFacts = Box::leak(Box::new(facts));
        self.done.insert(a, facts);
        facts
    }

    fn of_field(&mut self, f: &FieldSchema) -> FieldFacts {
        let shape = (f.shape)();
        let (quiet, sets) = self.quiet_field(f, shape);
        FieldFacts { depth: self.depth(shape), quiet, sets, flatten: f.flatten }
    }

    fn depth(&mut self, shape: Shape) -> Option<usize> {
        match shape {
            Shape::Scalar => Some(0),
            Shape::Any => None,
            Shape::List(elem) | Shape::Map(elem) => self.depth(elem())?.checked_add(1),
            Shape::Struct(s) => self.of_struct(s).depth,
        }
    }

    /// Whether two equal values of the field diff to nothing, as the typed
    /// walk diffs them, once their merged sets are sorted; and whether they
    /// may hold such sets.
    fn quiet_field(&mut self, f: &FieldSchema, shape: Shape) -> (bool, bool) {
        let strategy = f.strategy;
        match shape {
            Shape::Scalar => (true, false),
            // Any JSON: a `$patch` that is not a string fails even when equal.
            Shape::Any => (false, false),
            // A replace-strategy object is sent whole, changed or not.
            Shape::Struct(s) => {
                let s = self.of_struct(s);
                (!strategy.replace && s.quiet, s.sets)
            }
            // Equal maps need no patch, unless replaced, or holding a
            // `$patch` key, which the reference reads as a directive and
            // refuses unless its value is a string: that is looked at on
            // the value (`Walk::__quiet_if_equal`).
            Shape::Map(_) => (!strategy.replace, true),
            // A replaced list is sent when its JSON changed.
            Shape::List(_) if !strategy.merge => (true, false),
            Shape::List(elem) => match (elem(), f.merge_key) {
                // Equal keyed lists pair in place and diff element by element:
                // keys that are always there make no error, and keys whose
                // `==` is the reference's pair the same elements.
                (Shape::Struct(s), Some(mk)) => {
                    // The typed diff pairs elements by the primary key.
                    let name = mk.primary();
                    let keys_present = s.fields.iter().any(|k| !k.flatten && k.name == name && !k.pointer && k.key_eq);
                    let s = self.of_struct(s);
                    (keys_present && s.quiet, s.sets)
                }
                // A set of scalars: quiet when sorted.
                (Shape::Scalar, _) => (true, true),
                _ => (false, false),
            },
        }
    }
}

/// The facts of a struct's fields (`facts`: the struct's), by their index
/// in its field table of `count` fields: the table lists the fields the
/// schema lists after the constant ones (`apiVersion`, `kind`), and takes
/// their names from there. `None` when the schema has fewer fields.
pub(crate) fn table_fields(
    schema: &'static StructSchema,
    facts: &'static StructFacts,
    count: usize,
) -> Option<&'static [FieldFacts]> {
    let skip = schema.fields.len().checked_sub(count)?;
    facts.fields.get(skip..)
}

/// Two equal values of this struct type diff to `{}` (`Some(sets)`: once
/// the merged sets of scalars they may hold are sorted); `None`: not always.
pub(crate) fn quiet(shape: Shape) -> Option<bool> {
    match shape {
        Shape::Struct(s) if of(s).quiet => Some(of(s).sets),
        _ => None,
    }
}

#[cfg(all(test, feature = "k8s-openapi"))]
mod tests {
    use super::*;
    use crate::StrategicMerge;
    use k8s_openapi::api::core::v1::{PodSpec, PodTemplateSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn facts(shape: Shape) -> &'static StructFacts {
        let Shape::Struct(s) = shape else { panic!("a struct") };
        of(s)
    }

    #[test]
    fn pod_templates_are_quiet_once_their_sets_are_sorted() {
        // Keyed lists with multi-field keys pair by the first field.
        let spec = facts(PodSpec::shape());
        assert!(spec.quiet);
        // `finalizers` is a merged set of scalars.
        let meta = facts(ObjectMeta::shape());
        assert!(meta.quiet && meta.sets);
        let template = facts(PodTemplateSpec::shape());
        assert!(template.quiet && template.sets);
        // `managedFields` holds arbitrary JSON.
        assert_eq!(meta.depth, None);
    }
}
