//! The layers of the crate's modules, as the crate's front page lists them
//! ("Layers"), checked against the code: no module names a module of a
//! higher layer through a `crate::` path, tests aside.

use std::collections::HashMap;
use std::path::Path;

/// The layer of each top-level module, from the numbered list under
/// "# Layers" in `lib.rs`: `N. `a`, `b`: ...`.
fn layers(lib: &str) -> HashMap<String, usize> {
    let mut layers = HashMap::new();
    let section = lib.split("//! # Layers").nth(1).expect("lib.rs has a Layers section");
    for line in section.lines().skip(1).take_while(|l| l.starts_with("//!") && !l.starts_with("//! #")) {
        let line = line.trim_start_matches("//!").trim();
        let Some((number, rest)) = line.split_once(". ") else { continue };
        let Ok(layer) = number.parse::<usize>() else { continue };
        let names = rest.split(':').next().unwrap_or_default();
        for name in names.split('`').skip(1).step_by(2) {
            layers.insert(name.to_string(), layer);
        }
    }
    layers
}

/// The code of a file without comments and without its test module.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        if trimmed == "#[cfg(test)]" && lines.peek().is_some_and(|next| next.trim_start().starts_with("mod ")) {
            break;
        }
        if !trimmed.starts_with("//") {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The first segment of every `crate::` path in `code` (each name of a
/// `crate::{a, b::c}` group).
fn crate_paths(code: &str) -> Vec<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c == '$' || c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            let mut depth = 0;
            for part in group[..end].split(|c| {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                c == ',' && depth == 0
            }) {
                found.push(ident(part.trim()));
            }
        } else {
            found.push(ident(rest));
        }
    }
    found.retain(|name| !name.is_empty() && name != "self");
    found
}

/// What `lib.rs` re-exports at the root, by the module it comes from.
fn root_names(lib: &str, layers: &HashMap<String, usize>) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for statement in code(lib).split(';') {
        let Some((_, path)) = statement.split_once("pub use ") else { continue };
        let Some((module, items)) = path.split_once("::") else { continue };
        if !layers.contains_key(module) {
            continue;
        }
        for name in items.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|n| !n.is_empty()) {
            names.entry(name.to_string()).or_insert_with(|| module.to_string());
        }
    }
    names
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_import_runs_up() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    let layers = layers(&lib);
    let roots = root_names(&lib, &layers);
    assert!(layers.len() >= 10, "the Layers list of lib.rs: {layers:?}");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let (mut arrows, mut up) = (0, Vec::new());
    for file in files {
        let relative = file.strip_prefix(&src).expect("under src").to_string_lossy().replace('\\', "/");
        let module = relative.split(['/', '.']).next().expect("a name").to_string();
        if module == "lib" || module == "layers" {
            continue;
        }
        let from = *layers.get(&module).unwrap_or_else(|| panic!("module `{module}` is in no layer of lib.rs"));
        let text = std::fs::read_to_string(&file).expect("a source file");
        for name in crate_paths(&code(&text)) {
            let target =
                if layers.contains_key(&name) { name.clone() } else { roots.get(&name).cloned().unwrap_or(name) };
            let Some(&to) = layers.get(&target) else {
                panic!("{relative}: `crate::{target}` is neither a module in a layer nor a re-export of lib.rs")
            };
            if target != module {
                arrows += 1;
            }
            if to > from {
                up.push(format!("{relative} (layer {from}) -> {target} (layer {to})"));
            }
        }
    }
    assert!(arrows > 100, "the check reads the imports: {arrows}");
    assert!(up.is_empty(), "imports from a higher layer:\n{}", up.join("\n"));
}

#[test]
fn the_reader_finds_paths() {
    let code = code(
        "use crate::a::b;\n// crate::c\nfn f() -> crate::Result<()> { $crate::x; }\nuse crate::{d::e, f, g::{h, i}};\n#[cfg(test)]\nmod tests { use crate::z; }",
    );
    assert_eq!(crate_paths(&code), ["a", "Result", "d", "f", "g"]);
    let lib = "//! # Layers\n//!\n//! 1. `value`, `text`: below\n//! 2. `error`: errors\n//!\n//! after\npub use error::{Error, Result};";
    assert_eq!(layers(lib).get("text"), Some(&1));
    assert_eq!(layers(lib).get("error"), Some(&2));
    assert_eq!(root_names(lib, &layers(lib)).get("Result").map(String::as_str), Some("error"));
}
