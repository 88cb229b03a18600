//! One linear pass over input text before any parser sees it.
//!
//! It bounds nesting (a YAML parser spends time quadratic in the depth of
//! flow collections, and both parsers recurse), and finds the `-0` integer
//! literals of JSON text, which the reference decodes as the integer 0 but
//! serde_json as the float -0.0.

use std::borrow::Cow;
use std::fmt;

/// The deepest nesting accepted in input text: the recursion limit of the
/// JSON and YAML parsers, below the engine's own.
pub const MAX_DEPTH: usize = 128;

/// Text nested deeper than [`MAX_DEPTH`], and where.
#[derive(Debug, PartialEq)]
pub struct TooDeep {
    pub line: usize,
    pub column: usize,
    /// The top-level field the nesting is in, when the text is a JSON
    /// object (the document of a batch case, e.g. `patch`).
    pub field: Option<String>,
}

impl fmt::Display for TooDeep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "nested deeper than {MAX_DEPTH} levels at line {}, column {}", self.line, self.column)?;
        match &self.field {
            Some(field) => write!(f, ", in {field:?}"),
            None => Ok(()),
        }
    }
}

/// Whether the text is JSON for the reference: its first character, after
/// whitespace and a byte order mark, is `{` (kubectl reads anything else as
/// YAML).
pub fn is_json(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// Checks the nesting of JSON text and gives it with each `-0` integer
/// literal written as `0` (same length, so positions stay valid).
pub fn json(bytes: &[u8]) -> Result<Cow<'_, [u8]>, TooDeep> {
    let mut depth = 0usize;
    let mut zeros = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep(bytes, i));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' if bytes.get(i + 1) == Some(&b'0')
                && !matches!(bytes.get(i + 2), Some(b'.' | b'e' | b'E' | b'0'..=b'9')) =>
            {
                zeros.push(i);
            }
            _ => {}
        }
        i += 1;
    }
    if zeros.is_empty() {
        return Ok(Cow::Borrowed(bytes));
    }
    let mut fixed = bytes.to_vec();
    for at in zeros {
        fixed[at] = b' ';
    }
    Ok(Cow::Owned(fixed))
}

/// The index of the quote that closes the JSON string opening at `start`
/// (or the end of the text).
pub fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The key of the top-level JSON object whose value holds byte `offset`.
pub fn json_field_at(bytes: &[u8], offset: usize) -> Option<String> {
    let mut depth = 0usize;
    let mut key: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < bytes.len().min(offset) {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i);
                if depth == 1 {
                    let after = bytes.get(end + 1..).unwrap_or_default();
                    if after.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b':') {
                        key = Some((i, end));
                    }
                }
                i = end;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    let (start, end) = key?;
    let quoted = bytes.get(start..=end)?;
    serde_json::from_slice(quoted).ok()
}

/// Checks the nesting of YAML text. Flow collections (`[`, `{`) are
/// counted outside quoted scalars, comments and block scalars: brackets in
/// text are text, as for kubectl. Text that misleads this reading is
/// still bounded: the reader refuses collections nested deeper than
/// [`MAX_DEPTH`] as it meets them (and the parser looks ahead at most 1024
/// characters for a key). Block nesting needs indentation, so its depth is
/// bounded by the length of the text, and the reader's limit stops it.
pub fn yaml(bytes: &[u8]) -> Result<(), TooDeep> {
    let mut flow = 0usize;
    let mut i = 0;
    let mut line_start = 0;
    // The indentation a block scalar's lines are deeper than, while in one.
    let mut block_scalar: Option<usize> = None;
    while i < bytes.len() {
        if i == line_start
            && let Some(parent) = block_scalar
        {
            let end = line_end(bytes, i);
            let line = &bytes[i..end];
            let indent = line.iter().take_while(|b| **b == b' ').count();
            let blank = line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
            if blank || indent > parent {
                i = end + 1;
                line_start = i;
                continue;
            }
            block_scalar = None;
        }
        let b = bytes[i];
        let token_start = i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r' | b'[' | b'{' | b',');
        let after_colon = i > 0 && bytes[i - 1] == b':' && flow > 0;
        match b {
            b'\n' => line_start = i + 1,
            b'#' if token_start => {
                i = line_end(bytes, i);
                continue;
            }
            b'"' | b'\'' if token_start || after_colon => {
                let end = if b == b'"' { string_end(bytes, i) } else { single_quoted_end(bytes, i) };
                let end = end.min(bytes.len() - 1);
                line_start = bytes[i..=end].iter().rposition(|c| *c == b'\n').map_or(line_start, |p| i + p + 1);
                i = end + 1;
                continue;
            }
            b'[' | b'{' => {
                flow += 1;
                if flow > MAX_DEPTH {
                    return Err(too_deep(bytes, i));
                }
            }
            b']' | b'}' => flow = flow.saturating_sub(1),
            b'|' | b'>' if token_start && flow == 0 && is_block_scalar_header(&bytes[i + 1..]) => {
                block_scalar = Some(block_parent_indent(&bytes[line_start..i]));
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |p| from + p)
}

/// The index of the quote that closes the single-quoted scalar opening at
/// `start` (`''` is a quote inside it).
fn single_quoted_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return i;
        }
        i += 1;
    }
    bytes.len()
}

/// Whether what follows `|` or `>` is a block scalar header: chomping and
/// indentation indicators, then the end of the line or a comment. Reads
/// only as far as those characters go.
fn is_block_scalar_header(rest: &[u8]) -> bool {
    let indicators = rest.iter().take_while(|b| matches!(b, b'-' | b'+' | b'1'..=b'9')).count();
    let rest = &rest[indicators..];
    let spaces = rest.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\r')).count();
    match rest.get(spaces) {
        None | Some(b'\n') => true,
        Some(b'#') => spaces > 0,
        Some(_) => false,
    }
}

/// The indentation of the node a block scalar belongs to, from the text of
/// its line before the indicator: the column of the mapping key
/// (`  key: |`, `- key: |`), or of the last `-` (`- |`).
fn block_parent_indent(before: &[u8]) -> usize {
    let mut col = 0;
    let mut last_dash = None;
    loop {
        while before.get(col) == Some(&b' ') {
            col += 1;
        }
        if before.get(col) == Some(&b'-') && matches!(before.get(col + 1), Some(b' ') | None) {
            last_dash = Some(col);
            col += 1;
            continue;
        }
        break;
    }
    match (col >= before.len(), last_dash) {
        (true, Some(dash)) => dash,
        _ => col,
    }
}

fn too_deep(bytes: &[u8], offset: usize) -> TooDeep {
    let before = &bytes[..offset];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    TooDeep { line, column, field: json_field_at(bytes, offset) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(open: &str, close: &str, n: usize) -> String {
        format!("{}1{}", open.repeat(n), close.repeat(n))
    }

    #[test]
    fn json_nesting_is_bounded_outside_strings() {
        let ok = format!("{{\"a\": {}}}", nested("[", "]", MAX_DEPTH - 1));
        assert!(json(ok.as_bytes()).is_ok());
        let deep = format!("{{\"a\": {}}}", nested("[", "]", MAX_DEPTH));
        let err = json(deep.as_bytes()).unwrap_err();
        assert_eq!((err.line, err.column, err.field.as_deref()), (1, 6 + MAX_DEPTH, Some("a")));
        let in_string = format!("{{\"a\": \"{}\\\"{}\"}}", "[".repeat(1000), "{".repeat(1000));
        assert!(json(in_string.as_bytes()).is_ok());
    }

    #[test]
    fn negative_zero_integers_become_zero() {
        let text = br#"{"a": -0, "b": [-0,-0.0,-0e1,-01], "c": "-0", "d": -0}"#;
        let fixed = json(text).unwrap();
        assert_eq!(&*fixed, br#"{"a":  0, "b": [ 0,-0.0,-0e1,-01], "c": "-0", "d":  0}"#);
        assert!(matches!(json(br#"{"a": 1}"#).unwrap(), Cow::Borrowed(_)));
    }

    #[test]
    fn yaml_flow_nesting_is_bounded() {
        let ok = format!("a: {}\n", nested("[", "]", MAX_DEPTH));
        assert!(yaml(ok.as_bytes()).is_ok());
        let deep = format!("a: b\nc: {}\n", nested("{x: ", "}", MAX_DEPTH + 1));
        let err = yaml(deep.as_bytes()).unwrap_err();
        assert_eq!((err.line, err.column), (2, 4 + 4 * MAX_DEPTH));
    }

    #[test]
    fn yaml_brackets_in_scalars_comments_and_block_scalars_are_text() {
        // kubectl reads each of these.
        let many = "[".repeat(MAX_DEPTH + 100);
        for text in [
            format!("a: \"{many}\"\n"),
            format!("a: '{many}'\n"),
            format!("a: 'it''s {many}'\n"),
            format!("a: b # {many}\n"),
            format!("a: |\n  {many}\n  more\nb: 1\n"),
            format!("- key: >-\n    {many}\n- |\n  {many}\n"),
            format!("[{{\"op\": \"add\", \"path\": \"/a\", \"value\": \"{many}\"}}]"),
        ] {
            assert_eq!(yaml(text.as_bytes()), Ok(()), "{text}");
        }
        // Closing brackets in quoted scalars do not hide the depth of flow
        // collections.
        let hiding = format!("a: {}\n", "[\"]\", ".repeat(MAX_DEPTH + 1));
        assert!(yaml(hiding.as_bytes()).is_err());
    }

    #[test]
    fn yaml_deep_flow_after_a_misleading_quote_is_still_refused() {
        // A quote inside a plain scalar opens no string for YAML, nor here.
        let text = format!("a: it\"s\nb: {}\n", nested("[", "]", MAX_DEPTH + 1));
        assert!(yaml(text.as_bytes()).is_err());
        // A block scalar ends at a line as little indented as its key.
        let text = format!("- key: |\n    \"x\n  other: {}\n", nested("[", "]", MAX_DEPTH + 1));
        assert!(yaml(text.as_bytes()).is_err());
    }

    #[test]
    fn json_is_what_starts_with_a_brace() {
        assert!(is_json(b"  \n{\"a\": 1}"));
        assert!(is_json(b"\xEF\xBB\xBF{}"));
        assert!(!is_json(b"[1]") && !is_json(b"a: 1") && !is_json(b""));
    }

    #[test]
    fn the_field_of_a_batch_case_at_an_offset() {
        let line = br#"{"original": {"a": {"b": 1}}, "patch": {"c": [1, 2]}}"#;
        let at = |s: &str| json_field_at(line, line.windows(s.len()).position(|w| w == s.as_bytes()).unwrap());
        assert_eq!(at("\"b\"").as_deref(), Some("original"));
        assert_eq!(at("2]").as_deref(), Some("patch"));
    }
}
