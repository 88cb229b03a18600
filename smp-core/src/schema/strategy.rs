use crate::error::{ErrorKind, Result};

/// A parsed patch strategy: what the reference's
/// `extractRetainKeysPatchStrategy` makes of the comma list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Strategy {
    /// Lists are merged (by merge key, or as sets of scalars).
    pub merge: bool,
    /// Maps are replaced whole.
    pub replace: bool,
    /// The diff emits `$retainKeys` for this field.
    pub retain_keys: bool,
}

/// Parses `""`, `"merge"`, `"replace"`, `"retainKeys"`,
/// `"merge,retainKeys"`; any other single word means no strategy, as in the
/// reference.
pub fn parse_strategy(raw: &str) -> Result<Strategy> {
    let parts: Vec<&str> = if raw.is_empty() { Vec::new() } else { raw.split(',').collect() };
    let (retain_keys, other) = match parts.as_slice() {
        [] => (false, ""),
        ["retainKeys"] => (true, ""),
        [one] => (false, *one),
        ["retainKeys", other] | [other, "retainKeys"] => (true, *other),
        _ => {
            let list = format!("[{}]", parts.join(" "));
            return Err(ErrorKind::UnexpectedStrategy(list).into());
        }
    };
    Ok(Strategy { merge: other == "merge", replace: other == "replace", retain_keys })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_like_the_reference() {
        assert_eq!(parse_strategy("").unwrap(), Strategy::default());
        assert!(parse_strategy("merge").unwrap().merge);
        assert!(parse_strategy("replace").unwrap().replace);
        let s = parse_strategy("merge,retainKeys").unwrap();
        assert!(s.merge && s.retain_keys);
        let s = parse_strategy("retainKeys,merge").unwrap();
        assert!(s.merge && s.retain_keys);
        assert_eq!(parse_strategy("bogus").unwrap(), Strategy::default());
        let e = parse_strategy("merge,replace").unwrap_err();
        assert_eq!(e.to_string(), "unexpected patch strategy: [merge replace]");
    }
}
