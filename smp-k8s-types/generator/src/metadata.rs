//! The patch metadata table (`patch_metadata.txt`): for each OpenAPI
//! definition, the fields that carry a patch strategy and/or merge key.

use crate::Result;
use std::collections::BTreeMap;

/// The patch metadata of one field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// OpenAPI definition name, e.g. `io.k8s.api.core.v1.PodSpec`.
    pub definition: String,
    /// JSON field name.
    pub field: String,
    /// The patch strategy, as `#[patch(strategy = "...")]` writes it: the
    /// derive's front end refuses an unknown one, at its token in the
    /// generated file.
    pub strategy: String,
    /// Merge key of a list of objects (empty when none).
    pub merge_key: String,
    /// 1-based line in the table, for error messages.
    pub line: usize,
}

/// Parses the table. Blank lines and `#` comments are ignored; a line
/// that starts without indentation names a definition, and the indented
/// lines below it are its fields: `<field> <strategy> [<merge key>]`.
pub fn parse(text: &str) -> Result<Vec<Row>> {
    let mut rows: Vec<Row> = Vec::new();
    let mut definition: Option<&str> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or_default();
        if content.trim().is_empty() {
            continue;
        }
        if !content.starts_with(char::is_whitespace) {
            let name = content.trim();
            if name.contains(char::is_whitespace) {
                return Err(format!("patch_metadata.txt:{line}: a definition name has no spaces: {raw:?}").into());
            }
            definition = Some(name);
            continue;
        }
        let Some(definition) = definition else {
            return Err(format!("patch_metadata.txt:{line}: a field line before any definition").into());
        };
        let words: Vec<&str> = content.split_whitespace().collect();
        let (field, strategy, merge_key) = match words[..] {
            [field, strategy] => (field, strategy, ""),
            [field, strategy, merge_key] => (field, strategy, merge_key),
            _ => return Err(format!("patch_metadata.txt:{line}: expected `<field> <strategy> [<merge key>]`").into()),
        };
        if let Some(previous) = rows.iter().find(|r| r.definition == definition && r.field == field) {
            return Err(format!(
                "patch_metadata.txt:{line}: {definition}.{field} is already on line {}",
                previous.line
            )
            .into());
        }
        rows.push(Row {
            definition: definition.to_string(),
            field: field.to_string(),
            strategy: strategy.to_string(),
            merge_key: merge_key.to_string(),
            line,
        });
    }
    Ok(rows)
}

/// The rows by definition, then by JSON field name.
pub fn index(rows: &[Row]) -> BTreeMap<&str, BTreeMap<&str, &Row>> {
    let mut out: BTreeMap<&str, BTreeMap<&str, &Row>> = BTreeMap::new();
    for row in rows {
        out.entry(row.definition.as_str()).or_default().insert(row.field.as_str(), row);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_definitions_and_fields() {
        let rows =
            parse("# comment\nio.k8s.A\n    list  merge  name\n    set   merge\n\nio.k8s.B\n  s retainKeys\n").unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].definition.as_str(), rows[0].merge_key.as_str()), ("io.k8s.A", "name"));
        assert_eq!((rows[1].field.as_str(), rows[1].merge_key.as_str()), ("set", ""));
        assert_eq!((rows[2].definition.as_str(), rows[2].strategy.as_str()), ("io.k8s.B", "retainKeys"));
    }

    #[test]
    fn rejects_mistakes() {
        assert!(parse("    orphan merge\n").is_err());
        assert!(parse("io.k8s.A\n    f merge k extra\n").is_err());
        assert!(parse("io.k8s.A\n    f merge\n    f merge\n").is_err());
    }
}
