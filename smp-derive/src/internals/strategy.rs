//! The patch strategies a field may declare: the one vocabulary of
//! `#[patch(strategy = "...")]` and of the generated Kubernetes
//! descriptions (whose strategies come from the patch metadata table).

/// A declared patch strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Lists merged by merge key, or as sets of scalars.
    Merge,
    /// Maps and lists replaced whole.
    Replace,
    /// The diff emits `$retainKeys`.
    RetainKeys,
    /// A list merged by key whose diff emits `$retainKeys`.
    MergeRetainKeys,
}

impl Strategy {
    /// Every strategy, by the text that declares it.
    const ALL: [(&'static str, Strategy); 4] = [
        ("merge", Strategy::Merge),
        ("replace", Strategy::Replace),
        ("retainKeys", Strategy::RetainKeys),
        ("merge,retainKeys", Strategy::MergeRetainKeys),
    ];

    /// The strategy declared by `text`, or why there is none.
    pub fn parse(text: &str) -> Result<Strategy, String> {
        if let Some((_, strategy)) = Self::ALL.iter().find(|(name, _)| *name == text) {
            return Ok(*strategy);
        }
        let expected = "expected \"merge\", \"replace\", \"retainKeys\" or \"merge,retainKeys\"";
        Err(match text {
            "retainKeys,merge" => "write this strategy \"merge,retainKeys\"".to_string(),
            _ => format!("unknown strategy \"{text}\"; {expected}"),
        })
    }

    /// The text that declares the strategy, as the schema carries it.
    pub fn as_str(self) -> &'static str {
        Self::ALL.iter().find(|(_, s)| *s == self).map(|(name, _)| *name).expect("every strategy has a name")
    }

    /// Lists are merged (by merge key, or as sets).
    pub fn merges(self) -> bool {
        matches!(self, Strategy::Merge | Strategy::MergeRetainKeys)
    }

    /// The diff emits `$retainKeys`.
    pub fn retains_keys(self) -> bool {
        matches!(self, Strategy::RetainKeys | Strategy::MergeRetainKeys)
    }
}

#[cfg(test)]
mod tests {
    use super::Strategy;

    #[test]
    fn names_round_trip() {
        for (name, strategy) in Strategy::ALL {
            assert_eq!(Strategy::parse(name), Ok(strategy));
            assert_eq!(strategy.as_str(), name);
        }
        assert!(Strategy::parse("retainKeys,merge").unwrap_err().contains("\"merge,retainKeys\""));
        assert!(Strategy::parse("").is_err());
        assert!(Strategy::parse("merj").unwrap_err().starts_with("unknown strategy \"merj\""));
    }
}
