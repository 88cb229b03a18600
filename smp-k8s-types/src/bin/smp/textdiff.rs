//! `--diff`: a unified diff of an object before and after, coloured on a
//! terminal.

use similar::TextDiff;

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// The unified diff of `before` and `after` (three lines of context),
/// headed `a/NAME` and `b/NAME`; empty when they are equal.
pub fn unified(before: &str, after: &str, name: &str, colour: bool) -> String {
    if before == after {
        return String::new();
    }
    let diff = TextDiff::from_lines(before, after);
    let text = diff.unified_diff().context_radius(3).header(&format!("a/{name}"), &format!("b/{name}")).to_string();
    if !colour {
        return text;
    }
    let mut out = String::with_capacity(text.len() * 11 / 10);
    for line in text.split_inclusive('\n') {
        let style = if line.starts_with("+++") || line.starts_with("---") {
            BOLD
        } else if line.starts_with('+') {
            GREEN
        } else if line.starts_with('-') {
            RED
        } else if line.starts_with("@@") {
            CYAN
        } else {
            out.push_str(line);
            continue;
        };
        let body = line.strip_suffix('\n').unwrap_or(line);
        out.push_str(style);
        out.push_str(body);
        out.push_str(RESET);
        if body.len() < line.len() {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unified_diff_with_headers_and_hunks() {
        let text = unified("a: 1\nb: 2\n", "a: 1\nb: 3\n", "configmap/x", false);
        assert_eq!(text, "--- a/configmap/x\n+++ b/configmap/x\n@@ -1,2 +1,2 @@\n a: 1\n-b: 2\n+b: 3\n");
        assert_eq!(unified("a\n", "a\n", "x", false), "");
    }

    #[test]
    fn colours_on_a_terminal() {
        let text = unified("b: 2\n", "b: 3\n", "x", true);
        assert!(text.contains("\x1b[31m-b: 2\x1b[0m\n") && text.contains("\x1b[32m+b: 3\x1b[0m\n"), "{text:?}");
    }
}
