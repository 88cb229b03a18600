//! The README's Rust snippets cannot go stale: the plain ones are doctests
//! of smp-k8s-types; the ones marked `ignore` (they need kube's client) must
//! be copies of code in an example, which the build compiles. This test
//! checks the copies: every line of such a snippet, apart from its `use`
//! lines, appears in one example file, in the same order.

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("examples/ is in the workspace").to_path_buf()
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
fn every_ignored_readme_snippet_is_copied_from_an_example() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).expect("README.md");
    let mut files = Vec::new();
    example_files(&workspace().join("examples"), &mut files);
    let sources: Vec<(PathBuf, String)> =
        files.into_iter().map(|f| (f.clone(), std::fs::read_to_string(f).expect("example source"))).collect();

    let blocks = rust_blocks(&readme);
    assert!(blocks.len() >= 5, "the README's Rust snippets were not found: {}", blocks.len());
    let ignored: Vec<_> = blocks.iter().filter(|(info, _)| info.split(',').any(|w| w == "ignore")).collect();
    assert!(!ignored.is_empty(), "the README has no snippet that needs kube's client");
    for (_, snippet) in ignored {
        assert!(
            sources.iter().any(|(_, code)| is_copied_in(snippet, code)),
            "this README snippet is in no example, so nothing compiles it:\n{}",
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
