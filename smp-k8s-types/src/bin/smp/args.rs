//! The command line, as clap reads it.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Kubernetes strategic merge patch, as `kubectl patch --local` computes it.
#[derive(Debug, Parser)]
#[command(name = "smp", version, after_help = "Exit status: 0 on success, 1 on an error, 2 on a three-way conflict.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The three operations.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply PATCH to ORIGINAL and print the result.
    Apply {
        #[command(flatten)]
        common: Common,
        /// The object to patch (`-` for stdin).
        #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
        original: Option<Source>,
        /// The strategic merge patch (`-` for stdin).
        #[arg(required_unless_present = "jsonl")]
        patch: Option<Source>,
    },
    /// Print the patch that turns ORIGINAL into MODIFIED.
    Diff {
        #[command(flatten)]
        common: Common,
        /// The object before (`-` for stdin).
        #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
        original: Option<Source>,
        /// The object after (`-` for stdin).
        #[arg(required_unless_present = "jsonl")]
        modified: Option<Source>,
    },
    /// Print the patch `kubectl apply` sends from three versions.
    ///
    /// The patch brings CURRENT (live) to MODIFIED (desired), deleting what
    /// was removed since ORIGINAL (last applied). When the live object
    /// changed what the patch changes, it exits with status 2 and prints
    /// both sides, unless --overwrite is given.
    #[command(name = "three-way")]
    ThreeWay {
        #[command(flatten)]
        common: Common,
        /// Send the patch even where the live object changed the same fields.
        #[arg(long)]
        overwrite: bool,
        /// The last applied configuration (`-` for stdin).
        #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
        original: Option<Source>,
        /// The desired object (`-` for stdin).
        #[arg(required_unless_present = "jsonl")]
        modified: Option<Source>,
        /// The live object (`-` for stdin).
        #[arg(required_unless_present = "jsonl")]
        current: Option<Source>,
    },
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub struct Common {
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = Format::Json)]
    pub output: Format,
    /// Batch mode: read one JSON case per line from FILE (default: stdin)
    /// and write one compact JSON answer per line, in order.
    ///
    /// A case names its documents as the command does: `{"original": ..,
    /// "patch": ..}` for apply, `{"original": .., "modified": ..}` for diff,
    /// `{"original": .., "modified": .., "current": .., "overwrite": bool}`
    /// for three-way (overwrite is optional). The answer is `{"result": ..}`
    /// (apply) or `{"patch": ..}`, or `{"error": ".."}` (three-way adds
    /// `"conflict": bool`).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub jsonl: Option<Source>,
    /// With --jsonl: the longest case line read, in bytes (suffixes K, M,
    /// G); a longer line is answered with an error line.
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_size)]
    pub max_line_bytes: u64,
}

/// A size in bytes: `1000`, `64K`, `64M`, `1G` (powers of 1024).
fn parse_size(text: &str) -> Result<u64, String> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, ""),
    };
    let shift = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return Err(format!("unknown unit {unit:?}: use K, M or G")),
    };
    let n: u64 = digits.parse().map_err(|_| format!("{text:?} is not a size"))?;
    n.checked_mul(1 << shift).filter(|n| *n > 0).ok_or_else(|| format!("{text:?} is out of range"))
}

/// Where the patch metadata comes from. Without any of these options, the
/// kind is taken from the documents' apiVersion and kind, and must be a
/// built-in kind of Kubernetes.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// A built-in kind: `apps/v1/Deployment`, `v1/Pod`, or `Deployment`
    /// when only one API group has it.
    #[arg(long, value_name = "KIND", conflicts_with_all = ["openapi", "definition"])]
    pub kind: Option<String>,
    /// An OpenAPI v2 or v3 document (JSON or YAML), e.g. for a custom
    /// resource; may be repeated. Kinds it does not define are looked up in
    /// the built-in kinds.
    #[arg(long, value_name = "DOC")]
    pub openapi: Vec<PathBuf>,
    /// The definition to use, e.g. `io.k8s.api.core.v1.Pod`. Without it the
    /// kind is taken from the original's apiVersion and kind.
    #[arg(long, value_name = "NAME", requires = "openapi")]
    pub definition: Option<String>,
    /// Merge without a schema: maps merge, lists are replaced.
    #[arg(long, conflicts_with_all = ["kind", "openapi", "definition"])]
    pub untyped: bool,
}

/// How results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Indented JSON with sorted keys.
    Json,
    /// YAML.
    Yaml,
}

/// An input: a file, or stdin when given as `-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Stdin,
    File(PathBuf),
}

impl From<&str> for Source {
    fn from(arg: &str) -> Self {
        if arg == "-" { Source::Stdin } else { Source::File(PathBuf::from(arg)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_units() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("64m"), Ok(64 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert!(parse_size("0").is_err() && parse_size("5T").is_err() && parse_size("M").is_err());
    }
}
