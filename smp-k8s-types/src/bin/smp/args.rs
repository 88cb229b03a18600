//! The command line, as clap reads it.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Kubernetes strategic merge patch, as `kubectl patch --local` computes it.
#[derive(Debug, Parser)]
#[command(
    name = "smp",
    version,
    after_help = "Examples:
  smp apply deploy.yaml -p '{\"spec\":{\"replicas\":3}}'
  smp diff live.yaml desired.yaml --exit-code
  smp three-way --from-annotation desired.yaml live.yaml
  smp apply --jsonl cases.jsonl --jobs 2
  smp check service.yaml
  smp apply --server-side --field-manager web live.yaml deploy.yaml
  smp update --server-side --kind Deployment --jsonl cases.jsonl

Run `smp help COMMAND` for each command's options and examples, and
`smp apply --server-side --help` for server-side apply (offline).

Exit status: 0 on success, 1 on an error (check: on findings), 2 on a
three-way or server-side apply conflict.
With --exit-code (diff, three-way), as diff(1): 0 when the patch is empty,
1 when it is not, 2 on an error or a conflict."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The three operations.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply PATCH to ORIGINAL and print the result.
    ///
    /// ORIGINAL may hold several documents (YAML `---`, a JSON stream, a
    /// `kind: List`) or be a directory: each object is patched with the
    /// schema of its own kind, and the output keeps the input's shape.
    #[command(after_help = concat!(
        "Examples:
  smp apply deploy.yaml patch.yaml
  smp apply deploy.yaml -p '{\"spec\":{\"replicas\":3}}' -o yaml
  smp apply -R manifests/ -p 'metadata: {labels: {team: web}}' --diff
  smp apply --type json cr.yaml -p '[{\"op\":\"add\",\"path\":\"/spec/ports/-\",\"value\":443}]'
  kubectl get deploy web -o json | smp apply - patch.json --explain

", "Exit status: 0 on success, 1 on an error."
    ))]
    Apply {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        files: FileArgs,
        #[command(flatten)]
        keys: PatchMergeKeyArg,
        /// Refuse a patch that names a field the schema does not have (as
        /// the API server's fieldValidation=Strict), with the field's path;
        /// for merge and JSON patches, a field the patch adds.
        #[arg(long)]
        strict: bool,
        /// The object(s) to patch: a file, a directory, or `-` for stdin.
        #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
        original: Option<Source>,
        /// The patch (of the --type given): a file, or `-` for stdin.
        #[arg(required_unless_present_any = ["jsonl", "inline_patch"], conflicts_with = "inline_patch")]
        patch: Option<Source>,
        /// The patch itself, as JSON or YAML text (like kubectl's -p; YAML
        /// may start with `---`).
        #[arg(short = 'p', long = "patch", value_name = "PATCH", conflicts_with = "jsonl", allow_hyphen_values = true)]
        inline_patch: Option<String>,
    },
    /// Print the patch that turns ORIGINAL into MODIFIED.
    ///
    /// With several objects on each side, they are paired in order.
    #[command(after_help = concat!(
        "Examples:
  smp diff old.yaml new.yaml
  smp diff --exit-code -o yaml live.yaml desired.yaml || echo changed

",
        "Exit status: 0 on success, 1 on an error.
With --exit-code, as diff(1): 0 when the patch is empty, 1 when it is
not, 2 on an error."
    ))]
    Diff {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        files: FileArgs,
        #[command(flatten)]
        exit: ExitCodeArg,
        #[command(flatten)]
        keys: PatchMergeKeyArg,
        /// Verify the patch: applied to ORIGINAL it must give MODIFIED, or
        /// the command fails naming the lists at fault (duplicate merge
        /// keys) instead of printing a patch that corrupts the object.
        #[arg(long)]
        checked: bool,
        /// The object(s) before (`-` for stdin).
        #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
        original: Option<Source>,
        /// The object(s) after (`-` for stdin).
        #[arg(required_unless_present = "jsonl")]
        modified: Option<Source>,
    },
    /// Print the patch `kubectl apply` sends from three versions.
    ///
    /// The patch brings CURRENT (live) to MODIFIED (desired), deleting what
    /// was removed since ORIGINAL (last applied). When the live object
    /// changed what the patch changes, it exits with status 2 and prints
    /// both sides, unless --overwrite is given.
    #[command(name = "three-way", after_help = concat!(
        "Examples:
  smp three-way last-applied.yaml desired.yaml live.yaml
  kubectl get deploy web -o yaml > live.yaml
  smp three-way --from-annotation desired.yaml live.yaml --overwrite

",
        "Exit status: 0 on success, 1 on an error, 2 on a conflict.
With --exit-code, as diff(1): 0 when the patch is empty, 1 when it is
not, 2 on an error or a conflict."
    ))]
    ThreeWay {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        files: FileArgs,
        #[command(flatten)]
        exit: ExitCodeArg,
        #[command(flatten)]
        keys: PatchMergeKeyArg,
        /// Send the patch even where the live object changed the same fields.
        #[arg(long)]
        overwrite: bool,
        /// Take ORIGINAL from CURRENT's last-applied-configuration
        /// annotation, and give MODIFIED its own JSON as the new one, as
        /// kubectl apply does (the patch then updates the annotation);
        /// only MODIFIED and CURRENT are given.
        #[arg(long, conflicts_with = "jsonl")]
        from_annotation: bool,
        /// The last applied configuration (`-` for stdin); with
        /// --from-annotation, the desired object.
        #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
        original: Option<Source>,
        /// The desired object (`-` for stdin); with --from-annotation, the
        /// live object.
        #[arg(required_unless_present = "jsonl")]
        modified: Option<Source>,
        /// The live object (`-` for stdin).
        #[arg(required_unless_present_any = ["jsonl", "from_annotation"])]
        current: Option<Source>,
    },
    /// Report the lists of FILE whose elements share their merge key.
    ///
    /// Strategic merge patch identifies the elements of a list by one field
    /// (its merge key). Elements that share it (ports 53/TCP and 53/UDP,
    /// two env vars named A) are merged, diffed and deleted as one. Each
    /// finding is printed as `path: why`; with --jsonl, as
    /// `{"findings": [{"path": .., "message": ..}]}` for each case line
    /// `{"object": ..}`.
    #[command(after_help = concat!(
        "Examples:
  smp check service.yaml
  smp check --openapi crd-openapi.json --definition com.example.v1.Backend backend.yaml

",
        "Exit status: 0 when nothing is found, 1 on findings or an error."
    ))]
    Check {
        #[command(flatten)]
        common: Common,
        /// Read the directories given, and their subdirectories.
        #[arg(short = 'R', long)]
        recursive: bool,
        /// The object(s) to check (`-` for stdin).
        #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
        file: Option<Source>,
    },
    /// Serve an in-memory Kubernetes API server for tests on a loopback
    /// port, until killed. The first line printed is the address and the
    /// path of a kubeconfig for kubectl:
    /// `serving http://127.0.0.1:PORT kubeconfig PATH`.
    #[cfg(feature = "server")]
    #[command(after_help = "Examples:
  smp serve
  smp serve --listen 127.0.0.1:8080 --kubeconfig ./kubeconfig
  KUBECONFIG=./kubeconfig kubectl apply -f deploy.yaml")]
    Serve {
        /// The address to listen on (port 0: any free port).
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: std::net::SocketAddr,
        /// Where to write the kubeconfig (default: a file in the
        /// temporary directory named after the port).
        #[arg(long)]
        kubeconfig: Option<PathBuf>,
        /// Print each request answered to stderr: method, path, status,
        /// and for writes the content type and the body as a JSON string.
        #[arg(long)]
        log: bool,
    },
}

/// `--patch-merge-key`: smp's `$patchMergeKey` extension.
#[derive(Debug, Args)]
pub struct PatchMergeKeyArg {
    /// Use the `$patchMergeKey` directive (off: exactly the reference).
    /// apply honours it: list elements carrying it are matched by the
    /// fields it names. diff and three-way emit it on lists with
    /// recommended merge keys (`x-smp-recommended-patch-merge-key` in an
    /// OpenAPI document, `merge_key = "port,protocol"`, the table of
    /// built-in kinds), and send lists whose keys are not unique whole.
    /// Only for patches that smp applies: API servers do not know it.
    #[arg(long)]
    pub patch_merge_key: bool,
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub struct Common {
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Output format: the documents as JSON or YAML, or `kind.group/name`
    /// of each object (for diff and three-way: of each object the patch
    /// changes). Default: json.
    #[arg(short, long, value_enum)]
    pub output: Option<Format>,
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
    /// G; default 64M); a longer line is answered with an error line.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_line_bytes: Option<u64>,
    /// With --jsonl: how many cases to compute at once (default and most:
    /// one per core). Answers keep the order of the cases. More jobs help
    /// only with idle cores: on a busy machine a second job may even be
    /// slower.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

impl Common {
    /// `-o`, else JSON.
    pub fn format(&self) -> Format {
        self.output.unwrap_or(Format::Json)
    }

    /// `--max-line-bytes`, else 64 MiB.
    pub fn max_line(&self) -> u64 {
        self.max_line_bytes.unwrap_or(64 << 20)
    }
}

/// Options about the files read and the account printed beside them.
#[derive(Debug, Args)]
pub struct FileArgs {
    /// Read the directories given, and their subdirectories, like kubectl
    /// -R (without it, only the files directly in a directory).
    #[arg(short = 'R', long)]
    pub recursive: bool,
    /// Print on stderr what the patch did to each object: fields set,
    /// added and deleted, how each list was merged, what each directive
    /// did, with paths.
    #[arg(long)]
    pub explain: bool,
    /// Print a unified diff of each object before and after the patch, in
    /// YAML, instead of the documents (coloured on a terminal; NO_COLOR
    /// turns colour off).
    #[arg(long, conflicts_with = "jsonl")]
    pub diff: bool,
}

/// `--exit-code`, as for `git diff`.
#[derive(Debug, Args)]
pub struct ExitCodeArg {
    /// Exit with 1 when the patch is not empty, 0 when it is; errors and
    /// conflicts then exit with 2.
    #[arg(long)]
    pub exit_code: bool,
}

/// Where the patch metadata comes from. Without any of these options, the
/// kind is taken from the documents' apiVersion and kind, and must be a
/// built-in kind of Kubernetes.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// A built-in kind, named as kubectl names it: `apps/v1/Deployment`,
    /// `Deployment`, `deployments`, `deploy`, `Deployment.apps`.
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
    /// A CustomResourceDefinition manifest (YAML or JSON, every CRD of the
    /// file; may be repeated) as the schema of its custom resources.
    ///
    /// With --crd, --type defaults to `merge`: the API server takes JSON
    /// merge patches for custom resources and refuses strategic ones. With
    /// --type strategic, lists merge as the CRD's markers say, a
    /// client-side extension: `x-kubernetes-list-type: map` by
    /// `x-kubernetes-list-map-keys` (a list keyed by several fields needs
    /// --patch-merge-key, which pairs elements by all of them: a merge by
    /// the first alone would merge 53/TCP and 53/UDP, and is refused),
    /// `set` as a set of scalars, `atomic` replaced;
    /// `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key`
    /// win where present; objects without properties merge without
    /// metadata; `metadata` is the server's ObjectMeta.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["kind", "untyped"])]
    pub crd: Vec<PathBuf>,
    /// With --crd: the version whose schema serves every document of the
    /// kind. Without it, each document's apiVersion picks its version,
    /// and a document without apiVersion and kind takes the storage
    /// version (with one CRD).
    #[arg(long = "version", value_name = "VERSION", requires = "crd")]
    pub crd_version: Option<String>,
    /// The kind of patch, as `kubectl patch --type`: `strategic`; `merge`
    /// (RFC 7386 JSON merge patch, what custom resources take; three-way is
    /// what `kubectl apply` sends for them); `json` (RFC 6902: apply takes
    /// a list of operations and applies them as the API server does, all
    /// or nothing; diff replaces a changed list whole; no three-way).
    /// `merge` and `json` need no schema. Default: `strategic`, or `merge`
    /// with --crd.
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub requested_type: Option<PatchType>,
    /// The type in effect: --type, else the default.
    #[arg(skip)]
    pub patch_type: PatchType,
}

impl SchemaArgs {
    /// The patch type asked for, else the default: strategic, or merge
    /// for custom resources described by --crd.
    pub fn effective_type(&self) -> PatchType {
        match self.requested_type {
            Some(t) => t,
            None if !self.crd.is_empty() => PatchType::Merge,
            None => PatchType::Strategic,
        }
    }
}

/// `--type`: which patch format the command reads or writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum PatchType {
    /// Strategic merge patch.
    #[default]
    Strategic,
    /// JSON merge patch (RFC 7386), as the Go reference computes it.
    Merge,
    /// JSON patch (RFC 6902).
    Json,
}

/// How results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Indented JSON with sorted keys; several documents one after another.
    Json,
    /// YAML; several documents separated by `---`.
    Yaml,
    /// `kind.group/name` of each object, as `kubectl -o name`.
    Name,
}

/// An input: a file, or stdin when given as `-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Stdin,
    File(PathBuf),
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

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
