//! The Rust snippets of the README and of the guide cannot go stale: the
//! plain ones are doctests of this package (`lib.rs` includes every page);
//! the ones marked `ignore` (they need kube's client) must be copies of
//! code in an example, which the build compiles, unless also marked
//! `fragment` (part of a test shown out of its context). These tests check
//! both.

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is in the workspace").to_path_buf()
}

/// The README and the guide's pages.
fn pages() -> Vec<PathBuf> {
    let docs = workspace().join("docs");
    let mut pages = vec![workspace().join("README.md")];
    for entry in std::fs::read_dir(&docs).expect("docs/ is readable") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    pages
}

/// The Rust code blocks of a markdown text, with their info strings.
fn rust_blocks(markdown: &str) -> Vec<(String, Vec<String>)> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in markdown.lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(info)) => current = Some((info.trim().to_string(), Vec::new())),
            (Some(_), Some(_)) => blocks.extend(current.take()),
            (Some((_, lines)), None) => lines.push(line.to_string()),
            (None, None) => {}
        }
    }
    blocks.retain(|(info, _)| info.split(',').next() == Some("rust"));
    blocks
}

/// The example files (`*.rs` under `examples/`, the tests excepted).
fn example_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() && !path.ends_with("tests") && !path.ends_with("target") {
            example_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether the snippet's lines (trimmed, `use` lines and blank lines left
/// out) appear in `code` in order.
fn is_copied_in(snippet: &[String], code: &str) -> bool {
    let mut code_lines = code.lines().map(str::trim);
    snippet
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with("use "))
        .all(|wanted| code_lines.any(|l| l == wanted))
}

#[test]
fn every_page_is_a_doctest() {
    let lib = std::fs::read_to_string(workspace().join("tests/src/guide.rs")).expect("tests/src/guide.rs");
    for page in pages() {
        let included = if page.parent() == Some(&workspace()) {
            "include_str!(\"../../README.md\")".to_string()
        } else {
            format!("include_str!(\"../../docs/{}\")", page.file_name().expect("a file").to_string_lossy())
        };
        assert!(
            lib.contains(&included),
            "{} is not included in tests/src/guide.rs, so its snippets are not compiled",
            page.display()
        );
    }
}

#[test]
fn every_ignored_snippet_is_copied_from_an_example() {
    let mut files = Vec::new();
    example_files(&workspace().join("examples"), &mut files);
    let sources: Vec<(PathBuf, String)> =
        files.into_iter().map(|f| (f.clone(), std::fs::read_to_string(f).expect("example source"))).collect();

    let mut blocks = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("readable page");
        blocks.extend(rust_blocks(&text).into_iter().map(|block| (page.clone(), block)));
    }
    assert!(blocks.len() >= 5, "the pages' Rust snippets were not found: {}", blocks.len());
    // `fragment`: part of a test shown out of its context, not compiled.
    let ignored: Vec<_> = blocks
        .iter()
        .filter(|(_, (info, _))| info.split(',').any(|w| w == "ignore") && !info.split(',').any(|w| w == "fragment"))
        .collect();
    assert!(!ignored.is_empty(), "no page has a snippet that needs kube's client");
    for (page, (_, snippet)) in ignored {
        assert!(
            sources.iter().any(|(_, code)| is_copied_in(snippet, code)),
            "this snippet of {} is in no example, so nothing compiles it:\n{}",
            page.display(),
            snippet.join("\n")
        );
    }
}

#[test]
fn a_snippet_changed_after_the_copy_is_caught() {
    let snippet = vec!["let a = 1;".to_string(), "use x::y;".to_string(), "let b = a + 1;".to_string()];
    assert!(is_copied_in(&snippet, "fn f() {\n    let a = 1;\n    println!();\n    let b = a + 1;\n}"));
    assert!(!is_copied_in(&snippet, "fn f() {\n    let a = 1;\n    let b = a + 2;\n}"));
    assert!(!is_copied_in(&snippet, "fn f() {\n    let b = a + 1;\n    let a = 1;\n}"), "order counts");
}
