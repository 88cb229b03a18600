//! Seeded patches made of the shapes the other generators never write, for
//! a Pod that is odd too:
//!
//! - directive values of every JSON type: `$retainKeys` entries that are
//!   numbers, nulls, objects or duplicates, or no list at all;
//!   `$deleteFromPrimitiveList` and `$setElementOrder` lists of mixed types,
//!   with duplicates, absent items and entries without the merge key, on
//!   merge lists, atomic lists, maps, scalars and fields that do not exist;
//!   `$patch` values other than the three words on maps and list elements;
//! - merge keys that are floats, booleans, nulls, objects, lists or strings
//!   that read like numbers; null and list elements in lists;
//! - number literals in every form (`1e21`, `-0`, `1.0`, `1E+2`, integers
//!   beyond int64 and uint64), string escapes (`\u00e9`, surrogate pairs,
//!   `\u2028`, `\/`, `\u0000`), escaped keys (`\u0024patch`), keys written
//!   twice, and field names that differ from the schema's only in case;
//! - long strings with escapes (an annotation, an env value, a command)
//!   set again as they were, edited, replaced or made short, written with
//!   the escapes serde_json writes or with others.
//!
//! Patches are written as text, member by member, so that a number keeps
//! the literal form chosen and a key may repeat. Objects hold integers only
//! and valid metadata (kubectl decodes an object's metadata before patching).

use crate::long_text::{edited, escaped, long_text};
use crate::rng::Rng;
use serde_json::{Value, json};

/// A JSON text under construction; literals and strings are kept as written.
#[derive(Clone, Debug)]
pub enum Json {
    /// A number, `true`, `false` or `null`, as written.
    Lit(&'static str),
    /// A string: the text between the quotes, escapes included.
    Str(String),
    Arr(Vec<Json>),
    /// Members in order (a key may repeat); keys as written between quotes.
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn str(s: &str) -> Json {
        Json::Str(s.to_string())
    }

    fn obj(members: &[(&str, Json)]) -> Json {
        Json::Obj(members.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    }

    /// The text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Lit(l) => out.push_str(l),
            Json::Str(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Obj(members) => {
                out.push('{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    out.push_str(k);
                    out.push_str("\":");
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    /// The members of the object under `key` (the first one, created empty
    /// if missing or not an object).
    fn member(&mut self, key: &str) -> &mut Json {
        let Json::Obj(members) = self else { panic!("not an object") };
        let at = match members.iter().position(|(k, v)| k == key && matches!(v, Json::Obj(_))) {
            Some(at) => at,
            None => {
                members.push((key.to_string(), Json::Obj(Vec::new())));
                members.len() - 1
            }
        };
        &mut members[at].1
    }

    /// Removes, in every map, a list that sits beside its own
    /// `$deleteFromPrimitiveList`: the reference takes a map's keys in
    /// random order, and the result of such a pair depends on which comes
    /// first (the delete list runs on the old list or on the new one).
    fn drop_lists_beside_delete_lists(&mut self) {
        match self {
            Json::Obj(members) => {
                let deleted: Vec<String> = members
                    .iter()
                    .filter_map(|(k, _)| unescape(k).strip_prefix("$deleteFromPrimitiveList/").map(String::from))
                    .collect();
                members.retain(|(k, _)| !deleted.contains(&unescape(k)));
                members.iter_mut().for_each(|(_, v)| v.drop_lists_beside_delete_lists());
            }
            Json::Arr(items) => items.iter_mut().for_each(Json::drop_lists_beside_delete_lists),
            _ => {}
        }
    }

    fn push(&mut self, key: &str, value: Json) {
        let Json::Obj(members) = self else { panic!("not an object") };
        members.push((key.to_string(), value));
    }
}

/// A key as decoded, for the escapes the generator writes in keys.
fn unescape(key: &str) -> String {
    key.replace("\\u0024", "$").replace("\\u002f", "/").replace("\\u0061", "a").replace("\\/", "/")
}

/// One case: a Pod, a patch as text, and what the patch does.
pub struct OddCase {
    pub object: Value,
    pub patch: String,
    pub ops: Vec<String>,
}

/// Number literals Go decodes as int64 or float64 (`1.0`, `1E+2`, `-0.0`,
/// and integers beyond int64 are floats).
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "1",
    "1.0",
    "1E+2",
    "1e2",
    "80",
    "80.0",
    "8e1",
    "0.5",
    "1e21",
    "1e20",
    "1e-7",
    "1e-6",
    "123456.5",
    "1e6",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "12345678901234567890",
    "18446744073709551616",
    "100000000000000000000000",
    "1.7976931348623157e308",
    "5e-324",
];

/// String texts (between the quotes) with escapes.
const STRINGS: &[&str] = &[
    "a",
    "",
    "1",
    "c1",
    "c\\u0031",
    "E\\u0031",
    "f\\/a",
    "\\u00e9t\\u00e9",
    "\\ud83d\\ude00",
    "\\u2028\\u2029",
    "<>&",
    "a\\u0000b",
    "tab\\there",
    "\\\"q\\\"",
    "$patch",
    "replace",
];

/// Values of `$patch` other than `replace` and `delete`.
const ODD_PATCH_VALUES: &[&str] = &["\"merge\"", "\"Replace\"", "\"\"", "null", "1", "true"];

/// A list field of the Pod and what its elements are.
#[derive(Clone, Copy)]
enum List {
    /// A merge list of objects with this merge key and key values.
    Keyed(&'static str, Keys),
    /// A merge list of strings (finalizers).
    Set,
    /// A list without patch strategy, of strings or integers.
    Atomic(Keys),
    /// A list of objects without patch strategy (tolerations).
    AtomicObjects,
}

#[derive(Clone, Copy)]
enum Keys {
    Strings(&'static [&'static str]),
    Ints(&'static [&'static str]),
}

impl Keys {
    fn pick(self, rng: &mut Rng) -> Json {
        match self {
            Keys::Strings(s) => Json::str(s[rng.below(s.len())]),
            Keys::Ints(n) => Json::Lit(n[rng.below(n.len())]),
        }
    }
}

/// Where a list sits: the path of the map holding it (`[name=c1]` is an
/// element of the keyed list before it), its field name and kind.
struct ListSite {
    parent: &'static [&'static str],
    field: &'static str,
    list: List,
}

const CONTAINER: &[&str] = &["spec", "containers", "[name=c1]"];

const LISTS: &[ListSite] = &[
    ListSite { parent: &["metadata"], field: "finalizers", list: List::Set },
    ListSite { parent: &["spec"], field: "containers", list: List::Keyed("name", Keys::Strings(&["c1", "c2", "c3"])) },
    ListSite { parent: &["spec"], field: "volumes", list: List::Keyed("name", Keys::Strings(&["v1", "v2", "v3"])) },
    ListSite { parent: CONTAINER, field: "env", list: List::Keyed("name", Keys::Strings(&["E1", "E2", "E3"])) },
    ListSite {
        parent: CONTAINER,
        field: "ports",
        list: List::Keyed("containerPort", Keys::Ints(&["80", "443", "8080"])),
    },
    ListSite { parent: CONTAINER, field: "args", list: List::Atomic(Keys::Strings(&["a", "b", "c"])) },
    ListSite {
        parent: &["spec", "securityContext"],
        field: "supplementalGroups",
        list: List::Atomic(Keys::Ints(&["1", "2", "3"])),
    },
    ListSite { parent: &["spec"], field: "tolerations", list: List::AtomicObjects },
];

/// Maps of the Pod (struct fields or string maps), with some of their keys.
const MAPS: &[(&[&str], &[&str])] = &[
    (&["metadata", "labels"], &["app", "tier", "zz"]),
    (&["metadata", "annotations"], &["note", "x", "zz"]),
    (&["spec", "securityContext"], &["runAsUser", "supplementalGroups", "seLinuxOptions", "zz"]),
    (&["spec", "securityContext", "seLinuxOptions"], &["user", "role"]),
    (&["spec", "containers", "[name=c1]", "resources", "limits"], &["cpu", "memory"]),
    (&["spec", "containers", "[name=c1]"], &["image", "env", "args", "ports"]),
    (&["spec", "zzExtra"], &["k", "l"]),
    (&["spec"], &["containers", "securityContext", "zzExtra", "hostname"]),
];

/// Field names of the Pod in another case than the schema's.
const CASE_VARIANTS: &[(&[&str], &str)] = &[
    (&["spec"], "Containers"),
    (&["spec"], "SecurityContext"),
    (&["spec", "securityContext"], "SUPPLEMENTALGROUPS"),
    (&["spec", "containers", "[name=c1]"], "Env"),
    (&["metadata"], "Labels"),
];

pub struct OddGen {
    rng: Rng,
    ops: Vec<String>,
    /// The long strings of the Pod.
    texts: Vec<String>,
}

impl OddGen {
    pub fn new(seed: u64) -> Self {
        OddGen { rng: Rng::new(seed), ops: Vec::new(), texts: Vec::new() }
    }

    /// A Pod and an odd patch for it.
    pub fn case(&mut self) -> OddCase {
        self.ops.clear();
        self.texts.clear();
        let object = self.pod();
        let mut patch = Json::Obj(Vec::new());
        for _ in 0..1 + self.rng.below(3) {
            self.op(&mut patch);
        }
        patch.drop_lists_beside_delete_lists();
        OddCase { object, patch: patch.text(), ops: std::mem::take(&mut self.ops) }
    }

    /// One of `words`.
    fn word(&mut self, words: &[&'static str]) -> &'static str {
        words[self.rng.below(words.len())]
    }

    /// A `$patch` value: mostly `replace` or `delete`.
    fn patch_value(&mut self) -> &'static str {
        if self.rng.chance(0.6) { self.word(&["\"replace\"", "\"delete\""]) } else { self.word(ODD_PATCH_VALUES) }
    }

    fn pick_of(&mut self, values: &[Value]) -> Value {
        self.rng.pick(values).clone()
    }

    /// A Pod with lists that are sometimes empty, null, duplicated or hold
    /// elements without their merge key, with a null one, or null elements.
    fn pod(&mut self) -> Value {
        let finalizers = self.pick_of(&[json!(["f/a", "f/b"]), json!(["f/b", "f/a", "f/a"]), json!([]), Value::Null]);
        let env = self.pick_of(&[
            json!([{"name": "E1", "value": "1"}, {"name": "E2", "value": "2"}]),
            json!([{"name": "E1", "value": "1"}, {"name": "E2"}, {"name": "E1", "value": "dup"}]),
            json!([{"name": "E2"}, {"value": "no key"}]),
            json!([{"name": null, "value": "null key"}, {"name": "E1"}]),
            json!([null, {"name": "E1"}]),
            json!([]),
        ]);
        let ports = self.pick_of(&[
            json!([{"containerPort": 80}, {"containerPort": 443, "name": "https"}]),
            json!([{"containerPort": 443}, {"containerPort": 80}, {"containerPort": 443, "name": "dup"}]),
            json!([]),
        ]);
        let groups = self.pick_of(&[json!([1, 2, 3]), json!([3, 1, 1, 2]), json!([]), Value::Null]);
        let extra = self.pick_of(&[json!({"k": "v", "l": [1, 2]}), json!(["l1", "l2"]), json!(7), json!({})]);
        let tolerations =
            self.pick_of(&[json!([{"key": "k", "operator": "Exists"}]), json!([{"": "k"}, {"": "j"}]), json!([])]);
        let mut pod = json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "labels": {"app": "a", "tier": "t"}},
            "spec": {
                "containers": [
                    {"name": "c1", "image": "i1", "args": ["a", "b"], "env": env, "ports": ports,
                     "resources": {"limits": {"cpu": "1"}}},
                    {"name": "c2", "image": "i2"}
                ],
                "securityContext": {"runAsUser": 5, "supplementalGroups": groups, "seLinuxOptions": {"user": "u"}},
                "tolerations": tolerations,
                "volumes": [{"name": "v1", "emptyDir": {}}, {"name": "v2", "hostPath": {"path": "/x"}}],
                "zzExtra": extra
            }
        });
        if !finalizers.is_null() || self.rng.chance(0.5) {
            pod["metadata"]["finalizers"] = finalizers;
        }
        // Long strings with escapes, where real objects carry them.
        if self.rng.chance(0.3) {
            let note = self.new_text();
            pod["metadata"]["annotations"] = json!({"note": note, "x": "1"});
        }
        if self.rng.chance(0.3) {
            let script = self.new_text();
            pod["spec"]["containers"][0]["command"] = json!(["sh", "-c", script]);
        }
        if self.rng.chance(0.3)
            && let Some(Value::Object(e)) = pod["spec"]["containers"][0]["env"].get_mut(0)
            && e.contains_key("value")
        {
            let text = self.new_text();
            e.insert("value".into(), json!(text));
        }
        if self.rng.chance(0.2) {
            let odd = self.pick_of(&[
                json!({"name": 1, "image": "n"}),
                json!({"name": null, "image": "n"}),
                json!({"image": "no key"}),
                json!("x"),
                json!({"name": "c1", "image": "d"}),
            ]);
            pod["spec"]["containers"].as_array_mut().expect("a list").push(odd);
        }
        pod
    }

    /// The patch map at `path`, created on the way; `[name=c1]` is the
    /// element of the list before it whose `name` is `c1`.
    fn at<'p>(patch: &'p mut Json, path: &[&str]) -> &'p mut Json {
        let mut here = patch;
        let mut i = 0;
        while i < path.len() {
            if let Some(elem) = path.get(i + 1).and_then(|s| s.strip_prefix("[name=")) {
                let name = elem.trim_end_matches(']');
                let Json::Obj(members) = here else { panic!("not an object") };
                let at = match members.iter().position(|(k, v)| k == path[i] && matches!(v, Json::Arr(_))) {
                    Some(at) => at,
                    None => {
                        members.push((path[i].to_string(), Json::Arr(Vec::new())));
                        members.len() - 1
                    }
                };
                let Json::Arr(items) = &mut members[at].1 else { unreachable!() };
                let found = items.iter().position(|e| match e {
                    Json::Obj(m) => m.iter().any(|(k, v)| k == "name" && matches!(v, Json::Str(s) if s == name)),
                    _ => false,
                });
                let at = found.unwrap_or_else(|| {
                    items.push(Json::obj(&[("name", Json::str(name))]));
                    items.len() - 1
                });
                here = &mut items[at];
                i += 2;
            } else {
                here = here.member(path[i]);
                i += 1;
            }
        }
        here
    }

    /// A new long string, remembered as one of the Pod's.
    fn new_text(&mut self) -> String {
        let text = long_text(&mut self.rng);
        self.texts.push(text.clone());
        text
    }

    /// A string for a place of the Pod that may hold a long one: one of
    /// the Pod's long strings, an edit of one, a new one or a short one;
    /// written with serde_json's escapes or with others.
    fn text_value(&mut self) -> Json {
        let (what, s) = match self.rng.below(6) {
            0 | 1 if !self.texts.is_empty() => ("the same", self.rng.pick(&self.texts).clone()),
            0..=2 if !self.texts.is_empty() => {
                let old = self.rng.pick(&self.texts).clone();
                ("edited", edited(&mut self.rng, &old))
            }
            5 => ("a short one", "s".to_string()),
            _ => ("new", long_text(&mut self.rng)),
        };
        let (escapes, text) = if self.rng.chance(0.5) {
            let quoted = serde_json::to_string(&s).expect("a string");
            ("serde_json's", quoted[1..quoted.len() - 1].to_string())
        } else {
            ("other", escaped(&s, &mut self.rng))
        };
        self.ops.push(format!("long string: {what} ({escapes} escapes)"));
        Json::Str(text)
    }

    /// A long string (or a short one) where the Pod may hold one.
    fn long_string(&mut self, patch: &mut Json) {
        let text = self.text_value();
        match self.rng.below(4) {
            0 => {
                self.ops.push("annotation".into());
                Self::at(patch, &["metadata", "annotations"]).push("note", text);
            }
            1 => {
                self.ops.push("command".into());
                Self::at(patch, CONTAINER).push("command", Json::Arr(vec![Json::str("sh"), Json::str("-c"), text]));
            }
            2 => {
                self.ops.push("env value".into());
                let env = Json::obj(&[("name", Json::str("E1")), ("value", text)]);
                Self::at(patch, CONTAINER).push("env", Json::Arr(vec![env]));
            }
            _ => {
                self.ops.push("args".into());
                Self::at(patch, CONTAINER).push("args", Json::Arr(vec![text, Json::str("b")]));
            }
        }
    }

    fn op(&mut self, patch: &mut Json) {
        match self.rng.below(13) {
            0 => self.retain_keys(patch),
            1 | 2 => self.delete_from_list(patch),
            3 | 4 => self.set_element_order(patch),
            5 => self.map_patch(patch),
            6 | 7 => self.list_elements(patch),
            8 | 9 => self.odd_value(patch),
            10 => self.case_variant(patch),
            11 => self.long_string(patch),
            _ => self.repeated_key(patch),
        }
    }

    /// A value of any JSON type: scalars in odd forms, containers with
    /// nulls, lists of lists.
    fn any_value(&mut self, depth: usize) -> Json {
        match self.rng.below(if depth > 1 { 5 } else { 9 }) {
            0 | 1 => Json::Lit(self.word(NUMBERS)),
            2 => Json::Str(self.rng.pick(STRINGS).to_string()),
            3 => Json::Lit(self.word(&["true", "false"])),
            4 => Json::Lit("null"),
            5 => Json::Arr(Vec::new()),
            6 => Json::Obj(Vec::new()),
            7 => {
                let n = self.rng.below(3) + 1;
                Json::Arr((0..n).map(|_| self.any_value(depth + 1)).collect())
            }
            _ => {
                let n = self.rng.below(3) + 1;
                let keys = ["a", "b", "$patch", "zz"];
                Json::Obj((0..n).map(|_| (self.rng.pick(&keys).to_string(), self.any_value(depth + 1))).collect())
            }
        }
    }

    /// An item of a list of this kind: mostly of the right type.
    fn item(&mut self, list: List) -> Json {
        if self.rng.chance(0.12) {
            return self.any_value(1);
        }
        match list {
            List::Keyed(key, keys) => Json::obj(&[(key, keys.pick(&mut self.rng))]),
            List::Set => Json::str(self.word(&["f/a", "f/b", "f/c"])),
            List::Atomic(keys) => keys.pick(&mut self.rng),
            List::AtomicObjects => Json::obj(&[("key", Json::str(self.word(&["k", "j"])))]),
        }
    }

    /// A list of 0 to 4 items, sometimes with a duplicate.
    fn items(&mut self, list: List) -> Vec<Json> {
        let mut items: Vec<Json> = (0..self.rng.below(5)).map(|_| self.item(list)).collect();
        if !items.is_empty() && self.rng.chance(0.25) {
            let dup = self.rng.pick(&items).clone();
            items.insert(self.rng.below(items.len() + 1), dup);
        }
        items
    }

    /// A directive value: mostly a list of items, else anything.
    fn directive_value(&mut self, list: List) -> Json {
        if self.rng.chance(0.9) { Json::Arr(self.items(list)) } else { self.any_value(1) }
    }

    /// Sometimes a list for the field itself beside its directive.
    fn maybe_list(&mut self, map: &mut Json, site: &ListSite) {
        if self.rng.chance(0.35) {
            self.ops.push(format!("with the list {}", site.field));
            let items = self.items(site.list);
            map.push(site.field, Json::Arr(items));
        }
    }

    fn retain_keys(&mut self, patch: &mut Json) {
        let (path, keys) = *self.rng.pick(MAPS);
        self.ops.push(format!("$retainKeys in {}", path.join(".")));
        let map = Self::at(patch, path);
        let value = if self.rng.chance(0.8) {
            let odd = [Json::Lit("null"), Json::Lit("1"), Json::Lit("true"), Json::Obj(Vec::new()), Json::str("$foo")];
            let mut entries = Vec::new();
            for _ in 0..self.rng.below(5) {
                entries.push(if self.rng.chance(0.7) {
                    Json::str(self.word(keys))
                } else {
                    self.rng.pick(&odd).clone()
                });
            }
            Json::Arr(entries)
        } else {
            self.any_value(1)
        };
        if self.rng.chance(0.5) {
            let k = *self.rng.pick(keys);
            let v = self.any_value(1);
            map.push(k, v);
        }
        map.push("$retainKeys", value);
    }

    fn delete_from_list(&mut self, patch: &mut Json) {
        let site = self.rng.pick(LISTS);
        // Sometimes aimed at a field that is no list, or is not there.
        let field = match self.rng.below(8) {
            0 => *self.rng.pick(&["runAsUser", "labels", "image", "zzNone", "seLinuxOptions", "zzExtra"]),
            _ => site.field,
        };
        self.ops.push(format!("$deleteFromPrimitiveList/{field} in {}", site.parent.join(".")));
        let value = self.directive_value(site.list);
        Self::at(patch, site.parent).push(&format!("$deleteFromPrimitiveList/{field}"), value);
    }

    fn set_element_order(&mut self, patch: &mut Json) {
        let site = self.rng.pick(LISTS);
        let field = match self.rng.below(10) {
            0 => *self.rng.pick(&["runAsUser", "labels", "zzNone", "zzExtra"]),
            _ => site.field,
        };
        self.ops.push(format!("$setElementOrder/{field} in {}", site.parent.join(".")));
        let value = self.directive_value(site.list);
        let map = Self::at(patch, site.parent);
        if field == site.field {
            self.maybe_list(map, site);
        }
        map.push(&format!("$setElementOrder/{field}"), value);
    }

    /// `$patch` on a map, with other members beside it.
    fn map_patch(&mut self, patch: &mut Json) {
        let (path, keys) = *self.rng.pick(MAPS);
        let value = self.patch_value();
        self.ops.push(format!("$patch: {value} in {}", path.join(".")));
        let map = Self::at(patch, path);
        for _ in 0..self.rng.below(3) {
            let k = *self.rng.pick(keys);
            let v = self.any_value(1);
            map.push(k, v);
        }
        map.push("$patch", Json::Lit(value));
    }

    /// A patch list with odd elements: `$patch` elements, merge keys of
    /// other types, nulls, lists.
    fn list_elements(&mut self, patch: &mut Json) {
        let site = self.rng.pick(LISTS);
        self.ops.push(format!("odd elements in {}", site.field));
        let mut items = self.items(site.list);
        let keyed = match site.list {
            List::Keyed(key, keys) => Some((key, keys)),
            List::AtomicObjects => Some(("key", Keys::Strings(&["k", "j"]))),
            List::Set | List::Atomic(_) => None,
        };
        if let Some((key, keys)) = keyed {
            for _ in 0..1 + self.rng.below(2) {
                let elem = match self.rng.below(4) {
                    0 => Json::obj(&[(key, keys.pick(&mut self.rng)), ("$patch", Json::Lit(self.patch_value()))]),
                    1 => Json::obj(&[("$patch", Json::Lit(self.patch_value()))]),
                    2 => {
                        // A merge key of another type, or written with escapes.
                        let odd = [
                            Json::Lit("1"),
                            Json::Lit("80.0"),
                            Json::Lit("8e1"),
                            Json::Lit("true"),
                            Json::Lit("null"),
                            Json::Obj(Vec::new()),
                            Json::Arr(vec![Json::str("c1")]),
                            Json::str("80"),
                            Json::str("c\\u0031"),
                            Json::str("E\\u0031"),
                        ];
                        let k = self.rng.pick(&odd).clone();
                        let v = self.any_value(2);
                        Json::obj(&[(key, k), ("image", v)])
                    }
                    _ => Json::obj(&[(key, keys.pick(&mut self.rng)), ("zz", Json::Lit("null"))]),
                };
                items.insert(self.rng.below(items.len() + 1), elem);
            }
        }
        let map = Self::at(patch, site.parent);
        map.push(site.field, Json::Arr(items));
    }

    /// An odd value for a field (known or not).
    fn odd_value(&mut self, patch: &mut Json) {
        let (path, keys) = *self.rng.pick(MAPS);
        let k = *self.rng.pick(keys);
        let v = self.any_value(0);
        self.ops.push(format!("odd value for {}.{k}", path.join(".")));
        Self::at(patch, path).push(k, v);
    }

    fn case_variant(&mut self, patch: &mut Json) {
        let (path, name) = *self.rng.pick(CASE_VARIANTS);
        self.ops.push(format!("field {name} in {}", path.join(".")));
        let v = match name {
            "Containers" => Json::Arr(vec![Json::obj(&[("name", Json::str("c1")), ("image", Json::str("w"))])]),
            "SUPPLEMENTALGROUPS" => Json::Arr(vec![Json::Lit("9")]),
            "Env" => Json::Arr(vec![Json::obj(&[("name", Json::str("E9"))])]),
            "Labels" => Json::obj(&[("app", Json::str("w"))]),
            _ => Json::obj(&[("runAsUser", Json::Lit("3"))]),
        };
        Self::at(patch, path).push(name, v);
    }

    /// A key written twice in one map, or written with escapes.
    fn repeated_key(&mut self, patch: &mut Json) {
        let (path, keys) = *self.rng.pick(MAPS);
        let map = Self::at(patch, path);
        match self.rng.below(3) {
            0 => {
                self.ops.push(format!("a key twice in {}", path.join(".")));
                let k = *self.rng.pick(keys);
                let (a, b) = (self.any_value(1), self.any_value(1));
                map.push(k, a);
                map.push(k, b);
            }
            1 => {
                self.ops.push(format!("$patch twice in {}", path.join(".")));
                let (a, b) = (self.patch_value(), self.patch_value());
                map.push("$patch", Json::Lit(a));
                map.push("$patch", Json::Lit(b));
            }
            _ => {
                let key = *self.rng.pick(&[
                    "\\u0024patch",
                    "\\u0024retainKeys",
                    "$setElementOrder\\u002fargs",
                    "$deleteFromPrimitiveList\\/finalizers",
                    "\\u0061pp",
                ]);
                self.ops.push(format!("escaped key {key} in {}", path.join(".")));
                let v = match key {
                    "\\u0024patch" => Json::Lit(self.patch_value()),
                    "\\u0061pp" => self.any_value(1),
                    _ => Json::Arr(self.items(List::Set)),
                };
                map.push(key, v);
            }
        }
    }
}
