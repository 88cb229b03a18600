//! `smp apply --server-side` and `smp update --server-side`: what the API
//! server's field manager makes of an apply or an update, offline
//! (`smp_core::ssa`), with the built-in kinds' schemas or an OpenAPI v3
//! document.
//!
//! ```text
//! smp apply  --server-side [SCHEMA] --jsonl [FILE]    {"live", "applied", "manager", "force", "now"} per line
//! smp update --server-side [SCHEMA] --jsonl [FILE]    {"live", "new", "manager", "now"} per line
//! smp apply  --server-side [SCHEMA] --field-manager NAME [--force-conflicts] LIVE APPLIED
//! SCHEMA: --kind KIND | --openapi DOC [--definition NAME]   (default: each object's apiVersion and kind)
//! ```
//!
//! A batch writes one line per input line: `{"result": OBJ}`,
//! `{"error": MSG, "conflicts": [{"manager", "field"}]}` or `{"error": MSG}`;
//! a bad line gets an error line and the batch goes on.

use crate::args::Source;
use crate::{builtin, input, output, yaml};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::{Value, json};
use smp_core::ssa::{self, Resource, Schema, Time};
use std::ffi::OsString;
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

/// What kubectl prints after the server's message when an apply conflicts.
const KUBECTL_CONFLICT_HELP: &str = "Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts";

/// The exit status of an apply that conflicts (as for a three-way conflict).
const CONFLICT_STATUS: u8 = 2;

/// Whether the command line asks for server-side apply (`apply` or
/// `update` with `--server-side`).
pub fn wanted(args: &[OsString]) -> bool {
    matches!(args.get(1).and_then(|a| a.to_str()), Some("apply" | "update"))
        && args.iter().skip(2).any(|a| a == "--server-side")
}

#[derive(Debug, Parser)]
#[command(name = "smp", about = "Server-side apply, offline, as the API server's field manager computes it")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Apply a configuration as a field manager: the merged object with
    /// its managedFields, or the conflicts with other managers.
    #[command(after_help = "Examples:
  smp apply --server-side --field-manager web --force-conflicts live.yaml deploy.yaml
  smp apply --server-side --kind Deployment --jsonl cases.jsonl
  smp apply --server-side --openapi widget.json --definition com.example.v1.Widget --jsonl < cases.jsonl

Exit status: 0 on success, 1 on an error, 2 on a conflict.")]
    Apply {
        #[command(flatten)]
        common: Common,
        /// The applier's name (the manager of the fields it applies).
        #[arg(long, value_name = "NAME", conflicts_with = "jsonl")]
        field_manager: Option<String>,
        /// Take the fields other managers own instead of failing.
        #[arg(long, conflicts_with = "jsonl")]
        force_conflicts: bool,
        /// The live object(s) (`-` for stdin); several documents are
        /// matched to the applied ones by kind, namespace and name; one
        /// without a match is created.
        #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
        live: Option<String>,
        /// The configuration(s) to apply (YAML or JSON, several documents).
        #[arg(required_unless_present = "jsonl", conflicts_with = "jsonl")]
        applied: Option<String>,
    },
    /// Record an update (a PUT or a patch) by a manager: it owns what it changed.
    #[command(after_help = "Example:
  smp update --server-side --kind Deployment --jsonl cases.jsonl")]
    Update {
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Debug, Args)]
struct Common {
    /// Server-side apply (required: the other modes are strategic, merge and JSON patches).
    #[arg(long, required = true)]
    server_side: bool,
    /// A built-in kind: `Deployment`, `apps/v1/Deployment`, `deploy`...
    #[arg(long, conflicts_with = "openapi")]
    kind: Option<String>,
    /// An OpenAPI v3 document (JSON) with the objects' schema
    /// (`x-kubernetes-list-type`, `-list-map-keys`, `-map-type` markers).
    #[arg(long, value_name = "DOC")]
    openapi: Option<String>,
    /// The definition of DOC the objects are (else the one marked with
    /// their apiVersion and kind).
    #[arg(long, value_name = "NAME", requires = "openapi")]
    definition: Option<String>,
    /// One case per line, from FILE or stdin.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    jsonl: Option<String>,
    /// Output format of the single-file form.
    #[arg(short = 'o', long, value_enum, default_value = "json")]
    output: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, ValueEnum)]
enum Format {
    Json,
    Yaml,
}

/// Where each object's schema comes from.
enum Schemas {
    /// One built-in kind.
    Kind(Resource<'static>),
    /// An OpenAPI v3 document, and maybe the definition to use.
    Document(Schema, Option<String>),
    /// Each object's own apiVersion and kind, among the built-in kinds.
    BuiltIn,
}

impl Schemas {
    fn load(common: &Common) -> Result<Self, String> {
        if let Some(name) = &common.kind {
            let (api_version, kind) = builtin::type_meta_by_name(name)?;
            let res =
                smp_k8s_types::ssa_schemas::resource(api_version, kind).ok_or_else(|| no_schema(api_version, kind))?;
            return Ok(Schemas::Kind(res));
        }
        if let Some(path) = &common.openapi {
            let source = Source::from(path.as_str());
            let bytes = input::read(&source, "OpenAPI document")?;
            let doc = input::parse_any(&bytes)
                .map_err(|e| format!("{}: {e}", input::describe(&source, "OpenAPI document")))?;
            let schema = Schema::from_openapi_v3(&doc)
                .map_err(|e| format!("{}: {e}", input::describe(&source, "OpenAPI document")))?;
            if let Some(def) = &common.definition
                && schema.root(def).is_none()
            {
                return Err(format!("definition {def:?} is not in the OpenAPI document {path:?}"));
            }
            return Ok(Schemas::Document(schema, common.definition.clone()));
        }
        Ok(Schemas::BuiltIn)
    }

    /// The resource of an operation on `object` (over `live`).
    fn resource(&self, object: &Value, live: Option<&Value>) -> Result<Resource<'_>, String> {
        let type_meta = [Some(object), live]
            .into_iter()
            .flatten()
            .find_map(|o| Some((o.get("apiVersion")?.as_str()?, o.get("kind")?.as_str()?)));
        match self {
            Schemas::Kind(res) => Ok(res.clone()),
            Schemas::Document(schema, Some(def)) => Resource::for_definition(schema, def, type_meta)
                .ok_or_else(|| format!("definition {def:?} has no apiVersion and kind, and the object has none")),
            Schemas::Document(schema, None) => {
                let (api_version, kind) =
                    type_meta.ok_or("the object has no apiVersion and kind (or give --definition)")?;
                Resource::for_kind(schema, api_version, kind).ok_or_else(|| {
                    format!(
                        "no definition of the OpenAPI document is marked with {api_version} {kind} (give --definition)"
                    )
                })
            }
            Schemas::BuiltIn => {
                let (api_version, kind) =
                    type_meta.ok_or("the object has no apiVersion and kind (or give --kind or --openapi)")?;
                smp_k8s_types::ssa_schemas::resource(api_version, kind).ok_or_else(|| no_schema(api_version, kind))
            }
        }
    }
}

fn no_schema(api_version: &str, kind: &str) -> String {
    format!(
        "no built-in server-side apply schema for {api_version} {kind} (the built-in schemas cover {}); \
         give its schema with --openapi DOC",
        smp_k8s_types::ssa_schemas::GROUP_VERSIONS.join(", ")
    )
}

/// Runs `smp apply|update --server-side ...`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(1) } else { ExitCode::SUCCESS };
        }
    };
    let (apply, common) = match &cli.command {
        Command::Apply { common, .. } => (true, common),
        Command::Update { common } => (false, common),
    };
    let schemas = match Schemas::load(common) {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    if let Some(source) = &common.jsonl {
        return match batch(&schemas, apply, &Source::from(source.as_str())) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        };
    }
    let Command::Apply { field_manager, force_conflicts, live, applied, .. } = &cli.command else {
        return fail("smp update --server-side takes its cases with --jsonl");
    };
    let Some(manager) = field_manager.as_deref().filter(|m| !m.is_empty()) else {
        return fail("--field-manager NAME is required (kubectl's default is \"kubectl\")");
    };
    let (Some(live), Some(applied)) = (live, applied) else { return fail("LIVE and APPLIED are required") };
    single(&schemas, manager, *force_conflicts, live, applied, common.output)
}

fn fail(message: &str) -> ExitCode {
    output::to_stderr(format_args!("error: {message}\n"));
    ExitCode::from(1)
}

// ---------------------------------------------------------------- batch

fn batch(schemas: &Schemas, apply: bool, source: &Source) -> Result<(), String> {
    let reader: Box<dyn BufRead> = match source {
        Source::Stdin => Box::new(std::io::stdin().lock()),
        Source::File(path) => Box::new(std::io::BufReader::new(
            std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", input::describe(source, "cases")))?,
        )),
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in reader.split(b'\n') {
        let line = line.map_err(|e| format!("cannot read {}: {e}", input::describe(source, "cases")))?;
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        let answer = one_line(schemas, apply, line);
        writeln!(out, "{answer}").map_err(|e| format!("cannot write output: {e}"))?;
    }
    out.flush().map_err(|e| format!("cannot write output: {e}"))
}

/// The answer to one batch line, as text.
fn one_line(schemas: &Schemas, apply: bool, line: &[u8]) -> String {
    let case = match input::parse_json(line) {
        Ok(Value::Object(case)) => case,
        Ok(_) => return error_line("bad input line: not a JSON object"),
        Err(e) => return error_line(&format!("bad input line: invalid JSON: {e}")),
    };
    let object_key = if apply { "applied" } else { "new" };
    let live = case.get("live").filter(|v| !v.is_null());
    let Some(object) = case.get(object_key).filter(|v| v.is_object()) else {
        return error_line(&format!("bad input line: \"{object_key}\" must be a JSON object"));
    };
    if live.is_some_and(|l| !l.is_object()) {
        return error_line("bad input line: \"live\" must be a JSON object or null");
    }
    let Some(manager) = case.get("manager").and_then(Value::as_str).filter(|m| !m.is_empty()) else {
        return error_line("bad input line: \"manager\" must be a non-empty string");
    };
    let force = match case.get("force") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) if apply => *b,
        Some(_) if !apply => return error_line("bad input line: \"force\" is for apply only"),
        Some(_) => return error_line("bad input line: \"force\" must be a boolean"),
    };
    let now = match case.get("now") {
        None | Some(Value::Null) => Time::wall_clock().to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return error_line("bad input line: \"now\" must be an RFC 3339 time"),
    };
    let res = match schemas.resource(object, live) {
        Ok(res) => res,
        Err(e) => return error_line(&format!("schema: {e}")),
    };
    let outcome = if apply {
        ssa::apply(&res, live, object, manager, force, &now)
    } else {
        ssa::update(&res, live, object, manager, &now)
    };
    match outcome {
        Ok(result) => format!("{{\"result\":{result}}}"),
        Err(e) => match e.conflicts() {
            Some(c) => {
                let list: Vec<Value> =
                    c.sorted().iter().map(|c| json!({"manager": c.manager, "field": c.field})).collect();
                format!("{{\"error\":{},\"conflicts\":{}}}", Value::String(e.to_string()), Value::Array(list))
            }
            None => error_line(&e.to_string()),
        },
    }
}

fn error_line(message: &str) -> String {
    format!("{{\"error\":{}}}", Value::String(message.to_string()))
}

// ---------------------------------------------------------------- single

/// Group, kind, namespace and name: what pairs a live object with an applied one.
fn identity(o: &Value) -> (String, String, String, String) {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let api_version = text(o.get("apiVersion"));
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g).to_string();
    let meta = o.get("metadata");
    (group, text(o.get("kind")), text(meta.and_then(|m| m.get("namespace"))), text(meta.and_then(|m| m.get("name"))))
}

fn read_objects(path: &str, what: &str) -> Result<Vec<Value>, String> {
    let source = Source::from(path);
    let bytes = input::read(&source, what)?;
    let mut objects = input::parse_stream(&bytes).map_err(|e| format!("{}: {e}", input::describe(&source, what)))?;
    objects.retain(|o| o.as_object().is_some_and(|m| !m.is_empty()));
    Ok(objects)
}

fn single(schemas: &Schemas, manager: &str, force: bool, live: &str, applied: &str, format: Format) -> ExitCode {
    let (lives, configs) = match (read_objects(live, "live"), read_objects(applied, "applied")) {
        (Ok(l), Ok(a)) => (l, a),
        (Err(e), _) | (_, Err(e)) => return fail(&e),
    };
    if configs.is_empty() {
        return fail("no object to apply");
    }
    let now = Time::wall_clock().to_string();
    let mut results = Vec::new();
    for config in &configs {
        let live = lives.iter().find(|l| identity(l) == identity(config));
        let res = match schemas.resource(config, live) {
            Ok(res) => res,
            Err(e) => return fail(&e),
        };
        match ssa::apply(&res, live, config, manager, force, &now) {
            Ok(result) => results.push(result),
            Err(e) if e.conflicts().is_some() => {
                output::to_stderr(format_args!("error: {e}\n{KUBECTL_CONFLICT_HELP}\n"));
                return ExitCode::from(CONFLICT_STATUS);
            }
            Err(e) => return fail(&e.to_string()),
        }
    }
    let mut text = String::new();
    for (i, result) in results.iter().enumerate() {
        match format {
            Format::Json => {
                text.push_str(&serde_json::to_string_pretty(result).unwrap_or_default());
                text.push('\n');
            }
            Format::Yaml => {
                if i > 0 {
                    text.push_str("---\n");
                }
                match yaml::to_string(result) {
                    Ok(y) => text.push_str(&y),
                    Err(e) => return fail(&format!("cannot write YAML: {e}")),
                }
            }
        }
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        return fail(&format!("cannot write output: {e}"));
    }
    ExitCode::SUCCESS
}
