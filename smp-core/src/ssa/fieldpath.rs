//! Field paths and sets of them, as structured-merge-diff's `fieldpath`
//! package defines them: path elements `f:` (a field), `k:` (a list
//! element by its key fields), `v:` (a set element by its value) and `i:`
//! (a list element by position), their total order, and the trie of paths
//! a manager owns.

use super::value;
use serde_json::Value;
use std::cmp::Ordering;
use std::fmt;

/// One step of a field path.
#[derive(Clone, Debug)]
pub enum PathElement {
    /// A field of a struct or a key of a map: `f:name`.
    Field(String),
    /// An element of a list of type `map`, named by its key fields, sorted by
    /// name: `k:{"name":"web"}`.
    Key(Vec<(String, Value)>),
    /// An element of a list of type `set`, named by its value: `v:"a"`.
    Value(Value),
    /// An element of a list by position: `i:0`.
    Index(i64),
}

impl PathElement {
    fn rank(&self) -> u8 {
        match self {
            PathElement::Field(_) => 0,
            PathElement::Key(_) => 1,
            PathElement::Value(_) => 2,
            PathElement::Index(_) => 3,
        }
    }

    /// The reference's order: fields, then keys, then values, then indexes.
    pub fn compare(&self, other: &PathElement) -> Ordering {
        match (self, other) {
            (PathElement::Field(a), PathElement::Field(b)) => a.as_bytes().cmp(b.as_bytes()),
            (PathElement::Key(a), PathElement::Key(b)) => {
                for ((na, va), (nb, vb)) in a.iter().zip(b) {
                    let c = na.as_bytes().cmp(nb.as_bytes()).then_with(|| value::compare(va, vb));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                a.len().cmp(&b.len())
            }
            (PathElement::Value(a), PathElement::Value(b)) => value::compare(a, b),
            (PathElement::Index(a), PathElement::Index(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// A field element.
    pub fn field(name: &str) -> Self {
        PathElement::Field(name.to_string())
    }
}

impl PartialEq for PathElement {
    fn eq(&self, other: &Self) -> bool {
        self.compare(other) == Ordering::Equal
    }
}
impl Eq for PathElement {}
impl std::hash::Hash for PathElement {
    /// Consistent with [`PathElement::compare`]: numbers hash by their value
    /// as a float, so that `1` and `1.0` (equal) hash alike.
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u8(self.rank());
        match self {
            PathElement::Field(n) => h.write(n.as_bytes()),
            PathElement::Key(fields) => {
                for (n, v) in fields {
                    h.write(n.as_bytes());
                    value::hash(v, h);
                }
            }
            PathElement::Value(v) => value::hash(v, h),
            PathElement::Index(i) => h.write_i64(*i),
        }
    }
}

/// A hash map keyed by path elements (list elements' identities).
pub(crate) type PeMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// A hash set of path elements.
pub(crate) type PeSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

impl PartialOrd for PathElement {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for PathElement {
    fn cmp(&self, other: &Self) -> Ordering {
        self.compare(other)
    }
}

impl fmt::Display for PathElement {
    /// The reference's text: `.name`, `[name="web",port=80]`, `[="a"]`, `[0]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathElement::Field(name) => write!(f, ".{name}"),
            PathElement::Key(fields) => {
                f.write_str("[")?;
                for (i, (n, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{n}={}", value::to_string(v))?;
                }
                f.write_str("]")
            }
            PathElement::Value(v) => write!(f, "[={}]", value::to_string(v)),
            PathElement::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A path from the object's root, e.g. `.spec.containers[name="web"].image`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Path(pub Vec<PathElement>);

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|pe| write!(f, "{pe}"))
    }
}

/// A set of paths, held as a trie: the members (paths that end here) and
/// the children (paths that go on), both sorted by [`PathElement::compare`].
/// A child is never empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Set {
    pub(crate) members: Vec<PathElement>,
    pub(crate) children: Vec<(PathElement, Set)>,
}

fn find_member(v: &[PathElement], pe: &PathElement) -> Result<usize, usize> {
    // Sets are mostly built in order: try the end first.
    match v.last() {
        Some(last) if last.compare(pe) == Ordering::Less => Err(v.len()),
        None => Err(0),
        _ => v.binary_search_by(|m| m.compare(pe)),
    }
}

fn find_child(v: &[(PathElement, Set)], pe: &PathElement) -> Result<usize, usize> {
    match v.last() {
        Some((last, _)) if last.compare(pe) == Ordering::Less => Err(v.len()),
        None => Err(0),
        _ => v.binary_search_by(|(m, _)| m.compare(pe)),
    }
}

impl Set {
    /// The empty set.
    pub fn new() -> Self {
        Set::default()
    }

    /// Whether the set holds no path.
    pub fn is_empty(&self) -> bool {
        // No operation leaves an empty child: a set with children is not empty.
        self.members.is_empty() && self.children.is_empty()
    }

    /// The number of paths in the set.
    pub fn len(&self) -> usize {
        self.members.len() + self.children.iter().map(|(_, c)| c.len()).sum::<usize>()
    }

    /// Adds a path (the empty path is not a member of any set).
    pub fn insert(&mut self, path: &[PathElement]) {
        let Some((last, parents)) = path.split_last() else { return };
        let mut s = self;
        for pe in parents {
            s = s.descend(pe);
        }
        s.insert_member(last.clone());
    }

    /// Removes a path (in place: what `difference` with a set of that one
    /// path gives), dropping children it leaves empty.
    pub(crate) fn remove(&mut self, path: &[PathElement]) {
        let Some((first, rest)) = path.split_first() else { return };
        if rest.is_empty() {
            if let Ok(i) = find_member(&self.members, first) {
                self.members.remove(i);
            }
            return;
        }
        if let Ok(i) = find_child(&self.children, first) {
            self.children[i].1.remove(rest);
            if self.children[i].1.is_empty() {
                self.children.remove(i);
            }
        }
    }

    pub(crate) fn insert_member(&mut self, pe: PathElement) {
        if let Err(i) = find_member(&self.members, &pe) {
            self.members.insert(i, pe);
        }
    }

    pub(crate) fn descend(&mut self, pe: &PathElement) -> &mut Set {
        let i = match find_child(&self.children, pe) {
            Ok(i) => i,
            Err(i) => {
                self.children.insert(i, (pe.clone(), Set::new()));
                i
            }
        };
        &mut self.children[i].1
    }

    /// Whether the set holds the path.
    pub fn has(&self, path: &[PathElement]) -> bool {
        let Some((last, parents)) = path.split_last() else { return false };
        let mut s = self;
        for pe in parents {
            match s.child(pe) {
                Some(c) => s = c,
                None => return false,
            }
        }
        s.has_member(last)
    }

    pub(crate) fn has_member(&self, pe: &PathElement) -> bool {
        find_member(&self.members, pe).is_ok()
    }

    /// The paths below `pe`, without it.
    pub fn child(&self, pe: &PathElement) -> Option<&Set> {
        find_child(&self.children, pe).ok().map(|i| &self.children[i].1)
    }

    /// The paths that begin with `pe`, without it (`WithPrefix`).
    pub(crate) fn with_prefix(&self, pe: &PathElement) -> &Set {
        static EMPTY: Set = Set { members: Vec::new(), children: Vec::new() };
        self.child(pe).unwrap_or(&EMPTY)
    }

    /// The paths that are not a prefix of another path of the set
    /// (`Leaves`).
    pub fn leaves(&self) -> Set {
        let members = self.members.iter().filter(|m| find_child(&self.children, m).is_err()).cloned().collect();
        let children =
            self.children.iter().map(|(pe, c)| (pe.clone(), c.leaves())).filter(|(_, c)| !c.is_empty()).collect();
        Set { members, children }
    }

    /// The paths in either set.
    pub fn union(&self, other: &Set) -> Set {
        let members = merge_sorted(&self.members, &other.members, |a, b| a.compare(b), true, true, true);
        let mut children = Vec::with_capacity(self.children.len().max(other.children.len()));
        let (mut i, mut j) = (0, 0);
        while i < self.children.len() && j < other.children.len() {
            let (a, sa) = &self.children[i];
            let (b, sb) = &other.children[j];
            match a.compare(b) {
                Ordering::Less => {
                    children.push((a.clone(), sa.clone()));
                    i += 1;
                }
                Ordering::Greater => {
                    children.push((b.clone(), sb.clone()));
                    j += 1;
                }
                Ordering::Equal => {
                    children.push((a.clone(), sa.union(sb)));
                    i += 1;
                    j += 1;
                }
            }
        }
        children.extend(self.children[i..].iter().cloned());
        children.extend(other.children[j..].iter().cloned());
        Set { members, children }
    }

    /// The paths in both sets.
    pub fn intersection(&self, other: &Set) -> Set {
        let members = merge_sorted(&self.members, &other.members, |a, b| a.compare(b), false, true, false);
        let mut children = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < self.children.len() && j < other.children.len() {
            let (a, sa) = &self.children[i];
            let (b, sb) = &other.children[j];
            match a.compare(b) {
                Ordering::Less => i += 1,
                Ordering::Greater => j += 1,
                Ordering::Equal => {
                    let r = sa.intersection(sb);
                    if !r.is_empty() {
                        children.push((a.clone(), r));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        Set { members, children }
    }

    /// The paths of `self` not in `other`.
    pub fn difference(&self, other: &Set) -> Set {
        self.diff(other, false)
    }

    /// The paths of `self` that neither are in `other` nor lie below a
    /// member of `other`.
    pub fn recursive_difference(&self, other: &Set) -> Set {
        self.diff(other, true)
    }

    fn diff(&self, other: &Set, recursive: bool) -> Set {
        let members = merge_sorted(&self.members, &other.members, |a, b| a.compare(b), true, false, false);
        let mut children = Vec::new();
        let mut j = 0;
        for (a, sa) in &self.children {
            if recursive && other.has_member(a) {
                continue;
            }
            while j < other.children.len() && other.children[j].0.compare(a) == Ordering::Less {
                j += 1;
            }
            if j < other.children.len() && other.children[j].0.compare(a) == Ordering::Equal {
                let d = sa.diff(&other.children[j].1, recursive);
                if !d.is_empty() {
                    children.push((a.clone(), d));
                }
            } else {
                children.push((a.clone(), sa.clone()));
            }
        }
        Set { members, children }
    }

    /// Every path, in the reference's iteration order: a node's members,
    /// then its children's paths, each in element order.
    pub fn iter_paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        let mut prefix = Vec::new();
        self.collect(&mut prefix, &mut out);
        out
    }

    fn collect(&self, prefix: &mut Vec<PathElement>, out: &mut Vec<Path>) {
        for m in &self.members {
            let mut p = prefix.clone();
            p.push(m.clone());
            out.push(Path(p));
        }
        for (pe, c) in &self.children {
            prefix.push(pe.clone());
            c.collect(prefix, out);
            prefix.pop();
        }
    }

    /// A set from paths.
    pub fn from_paths<'a>(paths: impl IntoIterator<Item = &'a [PathElement]>) -> Set {
        let mut s = Set::new();
        for p in paths {
            s.insert(p);
        }
        s
    }
}

/// A merge of two sorted lists: keeps the elements only in `a`, those in
/// both, and those only in `b`, as asked.
fn merge_sorted<T: Clone>(
    a: &[T],
    b: &[T],
    cmp: impl Fn(&T, &T) -> Ordering,
    only_a: bool,
    both: bool,
    only_b: bool,
) -> Vec<T> {
    let mut out = Vec::with_capacity(if only_a { a.len() } else { 0 } + if only_b { b.len() } else { 0 });
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match cmp(&a[i], &b[j]) {
            Ordering::Less => {
                if only_a {
                    out.push(a[i].clone());
                }
                i += 1;
            }
            Ordering::Greater => {
                if only_b {
                    out.push(b[j].clone());
                }
                j += 1;
            }
            Ordering::Equal => {
                if both {
                    out.push(a[i].clone());
                }
                i += 1;
                j += 1;
            }
        }
    }
    if only_a {
        out.extend_from_slice(&a[i..]);
    }
    if only_b {
        out.extend_from_slice(&b[j..]);
    }
    out
}

impl fmt::Display for Set {
    /// One path a line, in iteration order (the reference's `Set.String`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.iter_paths().iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(s: &str) -> PathElement {
        PathElement::field(s)
    }

    #[test]
    fn paths_print_as_the_reference_prints_them() {
        let p = Path(vec![
            f("spec"),
            PathElement::Key(vec![("name".into(), json!("web")), ("port".into(), json!(80))]),
            PathElement::Value(json!("a")),
            PathElement::Index(2),
        ]);
        assert_eq!(p.to_string(), ".spec[name=\"web\",port=80][=\"a\"][2]");
    }

    #[test]
    fn set_algebra() {
        let a = Set::from_paths([&[f("a")][..], &[f("b"), f("c")][..], &[f("b"), f("d")][..]]);
        let b = Set::from_paths([&[f("b")][..], &[f("b"), f("c")][..]]);
        let u = a.union(&b);
        assert_eq!(u.len(), 4);
        assert!(u.has(&[f("b")]) && u.has(&[f("b"), f("d")]));
        let i = a.intersection(&b);
        assert_eq!(i.iter_paths(), vec![Path(vec![f("b"), f("c")])]);
        let d = a.difference(&b);
        assert_eq!(d.len(), 2);
        let r = a.recursive_difference(&b);
        assert_eq!(r.iter_paths(), vec![Path(vec![f("a")])]);
        assert!(Set::new().is_empty());
    }

    #[test]
    fn elements_order_fields_keys_values_indexes() {
        let mut v = [
            PathElement::Index(0),
            PathElement::Value(json!(1)),
            PathElement::Key(vec![("a".into(), json!(1))]),
            f("z"),
        ];
        v.sort();
        assert!(matches!(v[0], PathElement::Field(_)));
        assert!(matches!(v[3], PathElement::Index(_)));
    }
}
