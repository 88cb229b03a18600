//! `smp apply` against `kubectl patch --local`, byte for byte: chosen
//! cases for what once differed, and generated ones (seeded) over number
//! forms, strings that YAML reads as something else, empty and null
//! values, keys that need quotes, JSON and YAML inputs (anchors, merge
//! keys, comments, streams, lists, duplicate keys), the three patch types
//! and both output formats. Where kubectl fails, smp must fail too.
//!
//! `SMP_KUBECTL_CASES` sets how many cases are generated (150 unless
//! said), `SMP_KUBECTL_SEED` their seed; `SMP_KUBECTL` picks the kubectl.

use crate::{file, kubectl, kubectl_path, smp, stderr, stdout};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One run of both commands.
struct Case {
    /// The object file, for `smp apply FILE` and `kubectl patch -f FILE`.
    object: PathBuf,
    /// `--type`.
    patch_type: &'static str,
    /// `-p`.
    patch: String,
    /// `-o`.
    output: &'static str,
    /// How the file holds its objects.
    layout: Layout,
}

/// How an object file holds its objects, for two of the differences smp
/// makes on purpose: it writes `---` between YAML documents (kubectl
/// prints them back to back, which no reader can split again), and it
/// prints a `kind: List` as a list (kubectl prints its items one by one).
/// The third: smp quotes a `<<` key in YAML ([`merge_keys_quoted`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// One object, or a stream of documents.
    Documents,
    /// A `kind: List`: compared item by item, as values.
    List,
}

impl Case {
    /// Both commands' answers, or what differs between them.
    fn differs(&self) -> Option<String> {
        let object = self.object.display().to_string();
        let common = ["--type", self.patch_type, "-p", &self.patch, "-o", self.output];
        let ours = smp(&[&["apply", &object][..], &common].concat(), "");
        let theirs = kubectl(&[&["patch", "--local", "-f", &object][..], &common].concat())?;
        let said = || {
            format!(
                "{} --type {} -p '{}' -o {}\n--- smp (exit {:?}):\n{}{}\n--- kubectl (exit {:?}):\n{}{}",
                object,
                self.patch_type,
                self.patch,
                self.output,
                ours.status.code(),
                stdout(&ours),
                stderr(&ours),
                theirs.status.code(),
                stdout(&theirs),
                stderr(&theirs)
            )
        };
        let same = || match self.layout {
            Layout::Documents if self.output == "yaml" => {
                without_separators(&stdout(&ours)) == merge_keys_quoted(&stdout(&theirs))
            }
            Layout::Documents => ours.stdout == theirs.stdout,
            Layout::List => {
                let list: serde_json::Value = serde_json::from_slice(&ours.stdout).expect("smp prints JSON");
                let items = serde_json::Deserializer::from_slice(&theirs.stdout).into_iter();
                list["items"].as_array() == Some(&items.collect::<Result<Vec<_>, _>>().expect("kubectl prints JSON"))
            }
        };
        // A strategic patch in JSON answers the same from a file: a file of
        // one JSON object then takes the compact route.
        if self.patch_type == "strategic" && self.patch.trim_start().starts_with('{') {
            let patch = file("patch.json", &self.patch).display().to_string();
            let from_file = smp(&["apply", &object, &patch, "--type", "strategic", "-o", self.output], "");
            if from_file.status.code() != ours.status.code() || from_file.stdout != ours.stdout {
                return Some(format!(
                    "with the patch in {patch} (exit {:?}):\n{}{}\n{}",
                    from_file.status.code(),
                    stdout(&from_file),
                    stderr(&from_file),
                    said()
                ));
            }
        }
        match (ours.status.success(), theirs.status.success()) {
            (true, true) if same() => None,
            // Both refuse: smp prints nothing and says why.
            (false, false) if ours.stdout.is_empty() && stderr(&ours).starts_with("error: ") => None,
            _ => Some(said()),
        }
    }
}

/// smp's YAML stream without the `---` lines between its documents (a
/// line of a string is indented, or inside quotes).
fn without_separators(text: &str) -> String {
    text.split_inclusive('\n').filter(|line| *line != "---\n").collect()
}

/// kubectl's YAML with its `<<` keys quoted, as smp writes them (a plain
/// `<<` key reads back as a merge key). Keys of its block style follow
/// indentation and `- `.
fn merge_keys_quoted(text: &str) -> String {
    let quoted = |line: &str| {
        let start = line.len() - line.trim_start_matches([' ', '-']).len();
        match line[start..].strip_prefix("<<:") {
            Some(rest) => format!("{}\"<<\":{rest}", &line[..start]),
            None => line.to_string(),
        }
    };
    text.split_inclusive('\n').map(quoted).collect()
}

/// Runs every case through both, a few at a time, and fails with the
/// first differences found.
fn compare_all(cases: &[Case]) {
    let next = AtomicUsize::new(0);
    let found = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                while let Some(case) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Some(difference) = case.differs() {
                        found.lock().unwrap().push(difference);
                    }
                }
            });
        }
    });
    let found = found.into_inner().unwrap();
    assert!(
        found.is_empty(),
        "{} of {} cases differ from kubectl; the first:\n\n{}",
        found.len(),
        cases.len(),
        found.iter().take(5).cloned().collect::<Vec<_>>().join("\n\n")
    );
}

/// A ConfigMap file with `extra` after its name (JSON members).
fn config_map(name: &str, extra: &str) -> PathBuf {
    let comma = if extra.is_empty() { "" } else { "," };
    let text = format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"a"}}{comma}{extra}}}"#);
    file(name, &text)
}

/// Every patch type and output format for each (object, patch type, patch).
fn both_formats(cases: &[(&Path, &'static str, &str)]) -> Vec<Case> {
    let mut all = Vec::new();
    for &(object, patch_type, patch) in cases {
        for output in ["json", "yaml"] {
            let (object, patch) = (object.to_path_buf(), patch.to_string());
            all.push(Case { object, patch_type, patch, output, layout: Layout::Documents });
        }
    }
    all
}

#[test]
fn negative_zero_prints_as_kubectl_prints_it() {
    if kubectl_path().is_none() {
        return;
    }
    // kubectl hands the library the object it read from the file as Go
    // writes it (`-0`), and reads the strategic library's output back the
    // same way: the float -0 is the integer 0 there. The merge patch
    // library keeps the text of the patch's values (`-0.0` stays -0).
    let json = config_map("zero.json", r#""spec":{"a":-0.0,"l":[-0.0,{"b":-0.0}]},"data":{"k":"v"}"#);
    let yaml = file("zero.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nspec: {a: -0.0, l: [-0.0]}\n");
    let strategic = r#"{"data":{"y":-0.0,"z":[-0.0,{"q":-0.0}]},"metadata":{"labels":{"l":-0.0}}}"#;
    let merge = r#"{"spec":{"f":-0.0,"g":[-0.0],"h":{"i":-0.0}},"data":{"y":-0}}"#;
    let json_patch = r#"[{"op":"add","path":"/spec/b","value":-0.0},{"op":"add","path":"/data/c","value":[-0.0]}]"#;
    let mut cases = Vec::new();
    for object in [json.as_path(), yaml.as_path()] {
        cases.extend([
            (object, "strategic", strategic),
            (object, "strategic", "{}"),
            (object, "merge", merge),
            (object, "merge", "{}"),
            (object, "json", json_patch),
            (object, "json", "[]"),
        ]);
    }
    compare_all(&both_formats(&cases));
}

#[test]
fn integral_floats_of_the_original_are_integers_for_the_library() {
    if kubectl_path().is_none() {
        return;
    }
    // kubectl writes the original's 80.0 as 80 before the library reads
    // it: a merge key 80 in the patch finds that element.
    let pod = file(
        "pod.json",
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c",
            "ports":[{"containerPort":80.0,"name":"h"},{"containerPort":1e3}]}]}}"#,
    );
    let patch = r#"{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80,"protocol":"TCP"},
        {"containerPort":1000,"name":"k"},{"$patch":"delete","containerPort":81.0}]}]}}"#;
    let delete = r#"{"spec":{"containers":[{"name":"c","ports":[{"$patch":"delete","containerPort":80}]}]}}"#;
    // Go writes a large float with its shortest digits: 2^60 as
    // 1152921504606847000, read back as that integer, and the float of
    // -9223372036854775809 as -9223372036854776000, beyond int64.
    let big = config_map("big.json", r#""x":{"a":1152921504606846976.0,"b":-9223372036854775809,"c":1e20}"#);
    let big_yaml = file(
        "big.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nx: {a: 1152921504606846976.0, b: -9223372036854775809}\n",
    );
    let strategic = r#"{"data":{"c":-9223372036854775809,"d":1152921504606846976.0,"e":9223372036854774784.0}}"#;
    compare_all(&both_formats(&[
        (&pod, "strategic", patch),
        (&pod, "strategic", delete),
        (&big, "strategic", strategic),
        (&big, "merge", strategic),
        (&big, "json", "[]"),
        (&big_yaml, "merge", "{}"),
        (&big_yaml, "strategic", "x: {c: -9223372036854775809, d: 1152921504606846976.0}"),
    ]));
}

#[test]
fn long_lists_merge_as_kubectl_merges_them() {
    if kubectl_path().is_none() {
        return;
    }
    // 10,000 env vars: the merge numbers their keys by sorted hashes (from
    // 8,192 keys on), and a patch that names elements in their order, then
    // adds new ones, merges where they are, the new ones right after the
    // last one named (here before E09994).
    let n = 10_000;
    let env = |i: usize, value: &str| format!(r#"{{"name":"E{i:05}","value":"{value}"}}"#);
    let list = (0..n).map(|i| env(i, "v")).collect::<Vec<_>>().join(",");
    let pod = format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p"}},"spec":{{"containers":[{{"name":"c","image":"i","env":[{list}]}}]}}}}"#
    );
    let object = file("long-pod.json", &pod);
    let patch = |elements: String| format!(r#"{{"spec":{{"containers":[{{"name":"c","env":[{elements}]}}]}}}}"#);
    let changed = |from: usize| (from..n).step_by(10).map(|i| env(i, "w")).collect::<Vec<_>>().join(",");
    let new = format!("{},{}", env(n, "new"), env(n + 1, "new"));
    let patches = [
        patch(format!("{},{new}", changed(3))),
        patch(new.clone()),
        patch(format!("{new},{}", changed(5))),
        patch(format!("{},{},{}", env(9000, "x"), env(1, "y"), env(9000, "z"))),
    ];
    let case = |p: &String| Case {
        object: object.clone(),
        patch_type: "strategic",
        patch: p.clone(),
        output: "json",
        layout: Layout::Documents,
    };
    compare_all(&patches.iter().map(case).collect::<Vec<_>>());
    // A batch line whose long original comes before its patch: the
    // original is skipped by its brackets first, then read with the patch
    // as guide. The same results.
    let object = object.display().to_string();
    for p in &patches {
        let want = kubectl(&["patch", "--local", "-f", &object, "--type", "strategic", "-p", p, "-o", "json"]);
        let want: serde_json::Value = serde_json::from_slice(&want.expect("kubectl is there").stdout).unwrap();
        let got = smp(&["apply", "--kind", "Pod", "--jsonl"], &format!(r#"{{"original":{pod},"patch":{p}}}"#));
        let got: serde_json::Value = serde_json::from_slice(&got.stdout).expect("one JSON line");
        assert_eq!(got["result"], want, "patch {}", &p[..p.len().min(200)]);
    }
}

#[test]
fn yaml_streams_are_split_as_kubectl_splits_them() {
    if kubectl_path().is_none() {
        return;
    }
    // kubectl cuts a stream at lines that start with `---` and reads the
    // first document of each part: what follows `...` is not read, text
    // after the dashes is refused, and a directive has no document.
    let cm = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\n");
    let texts = [
        format!("{}...\n{}", cm("a"), cm("b")),
        format!("--- # first\n{}---\t\n\n# nothing\n--- #\n{}...\n", cm("a"), cm("b")),
        format!("--- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: a}}}}\n{}", cm("b")),
        format!("{}----\n{}", cm("a"), cm("b")),
        format!("%YAML 1.1\n---\n{}", cm("a")),
        format!("{}data: {{k: \"x\n---\n  y\"}}\n", cm("a")),
    ];
    let files: Vec<PathBuf> = texts.iter().enumerate().map(|(i, t)| file(&format!("stream{i}.yaml"), t)).collect();
    let cases: Vec<(&Path, &str, &str)> = files.iter().map(|f| (f.as_path(), "merge", "{}")).collect();
    compare_all(&both_formats(&cases));
}

#[test]
fn a_yaml_key_go_cannot_use_is_no_error_where_a_later_entry_replaces_it() {
    if kubectl_path().is_none() {
        return;
    }
    // go-yaml decodes the whole document before its keys become text: a
    // `~` key in a map that a later entry of the same key replaces is gone
    // by then. Where it stays, both refuse it.
    let object = file(
        "replaced.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: {~: 1, 18446744073709551615: 2}, k: x}\n",
    );
    let kept = file("kept.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: {~: 1}}\n");
    let patch = "data:\n  b: {~: 1, c: [{~: 2}]}\n  b: y\n";
    compare_all(&both_formats(&[
        (&object, "merge", "{}"),
        (&object, "strategic", patch),
        (&kept, "merge", "{}"),
        (&kept, "merge", patch),
    ]));
}

/// splitmix64: a small seeded generator, so that a failing run can be
/// repeated with its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
}

/// Numbers, as their text is written in either format.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "1.0",
    "1e2",
    "1E+2",
    "1e21",
    "1e-7",
    "5e-324",
    "0.1",
    "-1.5",
    "12345678.9",
    "100000000000000000000",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1.7976931348623157e308",
];

/// Strings, many of which YAML reads as something else when not quoted.
const STRINGS: &[&str] = &[
    "yes",
    "on",
    "No",
    "OFF",
    "y",
    "n",
    "true",
    "True",
    "null",
    "~",
    "0x1F",
    "0o17",
    "017",
    "1e3",
    "1_000",
    ".inf",
    "-.5",
    "+1",
    "2001-12-14",
    "1:30",
    "0.10",
    "=",
    "<<",
    " lead",
    "trail ",
    " ",
    "",
    "multi\nline",
    "end\n",
    "tab\there",
    "ünï©ødé ✓",
    "日本語",
    "<&>",
    "a: b",
    "a #b",
    "#c",
    "- x",
    "? y",
    "| z",
    "> w",
    "*x",
    "&a",
    "!t",
    "%p",
    "@a",
    "`b`",
    "{}",
    "[]",
    "'q'",
    "\"d\"",
    "back\\slash",
    "a\u{2028}b",
    "\u{1}",
    "-",
    ",",
    "v",
];

/// Label values that YAML reads as text, quoted or not.
const LABELS: &[&str] = &["web", "", "a b", "v1.2", "x-1"];

/// Keys, some needing quotes in YAML. No two of them name the same key
/// once YAML 1.1 has read them (`yes` and `on` are both `true`): kubectl
/// then keeps one of the two at random, Go's map order deciding.
const KEYS: &[&str] = &[
    "a", "b", "c", "yes", "null", "~", "1", "0x1F", "1e3", "a b", "a:b", "<<", "-", "", "ü", "#k", "k\"q", "a.b",
    "a/b", "$x",
];

/// A value written as text in JSON or YAML.
#[derive(Clone)]
enum Node {
    /// A number, `true`, `false` or `null`, written as is.
    Raw(&'static str),
    Str(String),
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
}

fn string(s: &str) -> Node {
    Node::Str(s.to_string())
}

fn map(members: Vec<(&str, Node)>) -> Node {
    Node::Map(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// A random value, at most `depth` levels deep.
fn value(rng: &mut Rng, depth: usize) -> Node {
    match rng.below(if depth == 0 { 6 } else { 9 }) {
        0 | 1 => Node::Raw(rng.pick(NUMBERS)),
        2 | 3 => string(rng.pick(STRINGS)),
        4 => Node::Raw(rng.pick(&["true", "false", "null"])),
        5 => rng.pick(&[Node::Map(vec![]), Node::List(vec![])]),
        6 | 7 => members(rng, depth - 1),
        _ => Node::List((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
    }
}

/// A random map of up to three members.
fn members(rng: &mut Rng, depth: usize) -> Node {
    let mut members: Vec<(String, Node)> = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let key = rng.pick(KEYS);
        if members.iter().all(|(k, _)| k != key) {
            members.push((key.to_string(), value(rng, depth)));
        }
    }
    Node::Map(members)
}

/// A ConfigMap with random `data` and maybe a random unknown field.
fn object(rng: &mut Rng, name: &str) -> Node {
    let mut object = vec![
        ("apiVersion", string("v1")),
        ("kind", string("ConfigMap")),
        // kubectl refuses metadata that is not ObjectMeta's (a label `yes`
        // read as a boolean): the labels are text in either format.
        ("metadata", map(vec![("name", string(name)), ("labels", map(vec![("app", string(rng.pick(LABELS)))]))])),
        ("data", members(rng, 2)),
    ];
    if rng.percent(60) {
        object.push(("x", value(rng, 3)));
    }
    map(object)
}

/// A patch of the type: strategic patches stay within the ConfigMap's
/// fields (kubectl refuses others); a JSON patch is 1 to 3 operations.
fn patch(rng: &mut Rng, patch_type: &str) -> Node {
    match patch_type {
        "strategic" => {
            let mut patch = vec![("data", members(rng, 2))];
            if rng.percent(40) {
                patch.push(("metadata", map(vec![("annotations", members(rng, 1))])));
            }
            if rng.percent(15) {
                patch.push(("binaryData", value(rng, 1)));
            }
            map(patch)
        }
        "merge" => {
            let mut patch = vec![("data", members(rng, 2))];
            if rng.percent(60) {
                patch.push(("x", value(rng, 3)));
            }
            map(patch)
        }
        _ => {
            let operations = (0..1 + rng.below(3)).map(|_| operation(rng)).collect();
            Node::List(operations)
        }
    }
}

fn operation(rng: &mut Rng) -> Node {
    let key = rng.pick(KEYS).replace('~', "~0").replace('/', "~1");
    let paths =
        [format!("/data/{key}"), "/x".into(), "/x/0".into(), "/x/-".into(), format!("/x/{key}"), "/data".into()];
    let path = Node::Str(rng.pick(&paths));
    match rng.pick(&["add", "add", "replace", "remove", "test", "copy", "move"]) {
        "remove" => map(vec![("op", string("remove")), ("path", path)]),
        op @ ("copy" | "move") => map(vec![("op", string(op)), ("from", string("/data")), ("path", path)]),
        op => map(vec![("op", string(op)), ("path", path), ("value", value(rng, 2))]),
    }
}

/// `node` as JSON text.
fn to_json(node: &Node, out: &mut String) {
    match node {
        Node::Raw(text) => out.push_str(text),
        Node::Str(s) => out.push_str(&serde_json::to_string(s).unwrap()),
        Node::Map(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key).unwrap());
                out.push(':');
                to_json(value, out);
            }
            out.push('}');
        }
        Node::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                to_json(item, out);
            }
            out.push(']');
        }
    }
}

/// Writes YAML text by hand, so that its forms vary: plain scalars where
/// they are possible (YAML 1.1 then reads `yes` as a boolean), single and
/// double quotes, block and flow collections, comments, anchors and
/// aliases, merge keys and repeated keys.
struct YamlWriter<'r> {
    rng: &'r mut Rng,
    out: String,
    /// The anchors written so far, and whether each is of a map.
    anchors: Vec<(String, bool)>,
    /// How each key was written: always the same way in one file, since a
    /// plain `1` and a quoted `"1"` are two keys to YAML but one to kubectl.
    keys: HashMap<String, String>,
}

impl YamlWriter<'_> {
    /// A scalar string; plain only outside flow collections, where the
    /// characters it may hold are fewer.
    fn scalar(&mut self, s: &str, flow: bool) -> String {
        let plain_is_possible = !flow
            && !s.is_empty()
            && !s.contains(['\n', '\t', '\u{1}', '\u{2028}', '"', '\''])
            && !s.contains(": ")
            && !s.contains(" #")
            && !s.ends_with([' ', ':'])
            && !s.starts_with([' ', '#', '-', '?', '|', '>', '*', '&', '!', '%', '@', '`', '{', '[', ',', '\'', '"']);
        match self.rng.below(4) {
            0 | 1 if plain_is_possible => s.to_string(),
            0 if !s.contains(['\n', '\u{1}', '\u{2028}']) => format!("'{}'", s.replace('\'', "''")),
            _ => serde_json::to_string(s).unwrap(),
        }
    }

    /// A key, plain only where it can be plain in flow collections too.
    fn key(&mut self, key: &str) -> String {
        if let Some(written) = self.keys.get(key) {
            return written.clone();
        }
        let flow_safe = !key.contains([',', '[', ']', '{', '}', ':', '#']);
        // A plain `<<` is a merge key.
        let written = if key == "<<" { "\"<<\"".into() } else { self.scalar(key, !flow_safe) };
        self.keys.insert(key.to_string(), written.clone());
        written
    }

    /// A value in a flow collection, or after `key: ` on one line.
    fn flow(&mut self, node: &Node) -> String {
        match node {
            Node::Raw(text) => text.to_string(),
            Node::Str(s) => self.scalar(s, true),
            Node::Map(members) => {
                let members: Vec<String> =
                    members.iter().map(|(k, v)| format!("{}: {}", self.key(k), self.flow(v))).collect();
                format!("{{{}}}", members.join(", "))
            }
            Node::List(items) => {
                let items: Vec<String> = items.iter().map(|item| self.flow(item)).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }

    /// A map's members in block style at `indent`.
    fn block_map(&mut self, members: &[(String, Node)], indent: usize) {
        let pad = " ".repeat(indent);
        if self.rng.percent(10) {
            self.out.push_str(&format!("{pad}# a comment\n"));
        }
        let maps: Vec<String> = self.anchors.iter().filter(|(_, m)| *m).map(|(a, _)| a.clone()).collect();
        if !maps.is_empty() && self.rng.percent(15) {
            let anchor = self.rng.pick(&maps);
            self.out.push_str(&format!("{pad}<<: *{anchor}\n"));
        }
        for (key, value) in members {
            let key = self.key(key);
            self.out.push_str(&format!("{pad}{key}:"));
            self.block_value(value, indent);
        }
        if let Some((key, _)) = members.first().filter(|_| self.rng.percent(5)) {
            // The same key twice.
            let key = self.key(key);
            self.out.push_str(&format!("{pad}{key}: again\n"));
        }
    }

    /// What follows `key:` (or `-`) in block style.
    fn block_value(&mut self, node: &Node, indent: usize) {
        if !self.anchors.is_empty() && self.rng.percent(5) {
            let (anchor, _) = self.rng.pick(&self.anchors);
            self.out.push_str(&format!(" *{anchor}\n"));
            return;
        }
        let collection =
            matches!(node, Node::Map(m) if !m.is_empty()) || matches!(node, Node::List(l) if !l.is_empty());
        if collection && self.rng.percent(15) {
            let anchor = format!("a{}", self.anchors.len());
            self.out.push_str(&format!(" &{anchor}"));
            self.anchors.push((anchor, matches!(node, Node::Map(_))));
        }
        match node {
            Node::Map(members) if !members.is_empty() && self.rng.percent(70) => {
                self.out.push('\n');
                self.block_map(members, indent + 2);
            }
            Node::List(items) if !items.is_empty() && self.rng.percent(70) => {
                self.out.push('\n');
                let pad = " ".repeat(indent + 2);
                for item in items {
                    self.out.push_str(&format!("{pad}-"));
                    self.block_value(item, indent + 2);
                }
            }
            Node::Str(s) if s.contains('\n') && !s.starts_with(' ') && self.rng.percent(50) => {
                // A literal block, its text indented.
                let chomp = if s.ends_with('\n') { "" } else { "-" };
                self.out.push_str(&format!(" |{chomp}\n"));
                for line in s.trim_end_matches('\n').split('\n') {
                    self.out.push_str(&format!("{}{line}\n", " ".repeat(indent + 2)));
                }
            }
            other => {
                let text = match other {
                    Node::Str(s) => self.scalar(s, false),
                    _ => self.flow(other),
                };
                let comment = if self.rng.percent(10) { " # note" } else { "" };
                self.out.push_str(&format!(" {text}{comment}\n"));
            }
        }
    }
}

/// The object file of a case: one to three objects, as JSON or YAML, as
/// one document, a stream of documents, or a `kind: List`.
fn object_file(rng: &mut Rng, n: usize) -> (PathBuf, Layout) {
    let objects: Vec<Node> = (0..1 + rng.below(3)).map(|i| object(rng, &format!("o{i}"))).collect();
    let (documents, layout) = if rng.percent(20) {
        let list = map(vec![("apiVersion", string("v1")), ("kind", string("List")), ("items", Node::List(objects))]);
        (vec![list], Layout::List)
    } else {
        (objects, Layout::Documents)
    };
    if rng.percent(40) {
        let mut text = String::new();
        for document in &documents {
            to_json(document, &mut text);
            text.push('\n');
        }
        return (file(&format!("case{n}.json"), &text), layout);
    }
    let mut writer = YamlWriter { rng, out: String::new(), anchors: Vec::new(), keys: HashMap::new() };
    for (i, document) in documents.iter().enumerate() {
        if i > 0 || writer.rng.percent(20) {
            if i > 0 && writer.rng.percent(20) {
                writer.out.push_str("...\n");
            }
            writer.out.push_str(writer.rng.pick(&["---\n", "--- # next\n", "---  \n"]));
        }
        // Anchors do not reach across documents.
        writer.anchors.clear();
        let Node::Map(members) = document else { unreachable!("objects are maps") };
        writer.block_map(members, 0);
    }
    (file(&format!("case{n}.yaml"), &writer.out), layout)
}

/// The generated cases of `seed`.
fn generated(seed: u64, count: usize) -> Vec<Case> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|n| {
            let (object, layout) = object_file(&mut rng, n);
            let patch_type = rng.pick(&["strategic", "merge", "json"]);
            let node = patch(&mut rng, patch_type);
            let patch = if patch_type != "json" && rng.percent(20) {
                // YAML text: kubectl reads `-p` as YAML unless it starts with `{`.
                let mut writer =
                    YamlWriter { rng: &mut rng, out: String::new(), anchors: Vec::new(), keys: HashMap::new() };
                let Node::Map(members) = &node else { unreachable!("patches of these types are maps") };
                writer.block_map(members, 0);
                writer.out
            } else {
                let mut text = String::new();
                to_json(&node, &mut text);
                text
            };
            // kubectl's YAML of several objects cannot be split again.
            let output = if layout == Layout::List { "json" } else { rng.pick(&["json", "yaml"]) };
            Case { object, patch_type, patch, output, layout }
        })
        .collect()
}

#[test]
fn generated_cases_print_as_kubectl_prints_them() {
    if kubectl_path().is_none() {
        return;
    }
    let number = |name: &str, default: u64| {
        std::env::var(name).map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name} is not a number: {v}")))
    };
    let seed = number("SMP_KUBECTL_SEED", 20_261_125);
    let count = number("SMP_KUBECTL_CASES", 150) as usize;
    eprintln!("comparing {count} generated cases with kubectl (SMP_KUBECTL_SEED={seed})");
    compare_all(&generated(seed, count));
}

/// Pieces of the keys of [`key_order_is_kubectls`]: digits with and
/// without leading zeros, dashes and dots, letters and digits of other
/// scripts (Go's `unicode.IsLetter` and `IsDigit`), a combining mark and a
/// letter-like number that Rust calls alphabetic and Go not a letter.
const KEY_PIECES: &[&str] = &[
    "0",
    "1",
    "01",
    "00",
    "10",
    "9",
    "007",
    "0a",
    "a",
    "b",
    "Z",
    "-",
    ".",
    "_",
    "é",
    "中",
    "ª",
    "Ａ",
    "٣",
    "１",
    "Ⅻ",
    "\u{301}",
    "99999999999999999999",
];

/// kubectl's YAML key order (go-yaml v2's `keyList.Less`, which is not a
/// total order, run through Go's `sort.Sort`) on random key sets. Each set
/// is written twice: as one map of all its keys, and as one map per pair
/// of keys. The pairs show kubectl's order of any two keys (a sort of two
/// keys does not depend on where it starts), and must all print as
/// kubectl prints them. The whole set must print as kubectl prints it
/// where that order is total; where it is not, kubectl's own output varies
/// from run to run (the order of a Go map), and only its keys are compared.
/// `SMP_KUBECTL_KEY_SETS` sets how many sets (8 unless said: 4 of 8 keys,
/// 4 of 30).
#[test]
fn key_order_is_kubectls() {
    if kubectl_path().is_none() {
        return;
    }
    let sets = std::env::var("SMP_KUBECTL_KEY_SETS").map_or(8, |v| v.parse().expect("a number"));
    let mut rng = Rng(20_261_128);
    let mut total = 0;
    for n in 0..sets {
        let mut keys = std::collections::BTreeSet::new();
        // Small sets are often totally ordered, large ones seldom.
        let size = if n % 2 == 0 { 8 } else { 30 };
        while keys.len() < size {
            let pieces = 1 + rng.below(4);
            keys.insert((0..pieces).map(|_| rng.pick(KEY_PIECES)).collect::<String>());
        }
        let keys: Vec<String> = keys.into_iter().collect();
        let mut pairs = serde_json::Map::new();
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                pairs.insert(pairs.len().to_string(), serde_json::json!({a: 1, b: 1}));
            }
        }
        let set: serde_json::Map<_, _> = keys.iter().map(|k| (k.clone(), serde_json::json!(1))).collect();
        let object = serde_json::json!({"apiVersion": "v1", "kind": "X", "pairs": pairs, "set": set});
        let path = file(&format!("keys{n}.json"), &object.to_string());
        let path = path.display().to_string();
        let args = ["--type", "merge", "-p", "{}", "-o", "yaml"];
        let ours = smp(&[&["apply", &path][..], &args].concat(), "");
        let theirs = kubectl(&[&["patch", "--local", "-f", &path][..], &args].concat()).expect("kubectl runs");
        assert!(ours.status.success() && theirs.status.success(), "{}{}", stderr(&ours), stderr(&theirs));
        let (ours, theirs) = (stdout(&ours), stdout(&theirs));
        let (our_pairs, our_set) = ours.split_once("\nset:\n").expect("smp prints the set");
        let (their_pairs, their_set) = theirs.split_once("\nset:\n").expect("kubectl prints the set");
        assert_eq!(our_pairs, their_pairs, "pairs of keys ordered unlike kubectl (set {n}: {keys:?})");
        // The order is total where each key goes before a different number
        // of others.
        let mut before = vec![0usize; keys.len()];
        let parsed: serde_json::Value = serde_yaml_ng::from_str(&theirs).expect("kubectl prints YAML");
        let first_keys = their_pairs.lines().filter(|l| l.starts_with("  ") && !l.starts_with("   ")).count();
        assert_eq!(first_keys, pairs.len(), "one map per pair");
        let mut lines = their_pairs.lines().skip_while(|l| *l != "pairs:").skip(1);
        while let (Some(_), Some(first), Some(_)) = (lines.next(), lines.next(), lines.next()) {
            let first: serde_json::Value = serde_yaml_ng::from_str(first.trim()).expect("a key line");
            let first = first.as_object().and_then(|m| m.keys().next().cloned()).expect("one key");
            before[keys.iter().position(|k| *k == first).expect("a key of the set")] += 1;
        }
        let total_order = {
            let mut counts = before.clone();
            counts.sort_unstable();
            counts.iter().enumerate().all(|(i, c)| *c == i)
        };
        if total_order {
            total += 1;
            assert_eq!(our_set, their_set, "the set's keys ordered unlike kubectl (set {n})");
        } else {
            let ours: serde_json::Value = serde_yaml_ng::from_str(&ours).expect("smp prints YAML");
            assert_eq!(ours["set"], parsed["set"], "the same keys (set {n})");
        }
    }
    eprintln!("{sets} key sets compared with kubectl; {total} of them totally ordered");
    assert!(sets < 4 || total > 0, "no set was totally ordered: the whole-set comparison never ran");
}
