//! `smp`: apply, diff and three-way strategic merge patches from the
//! command line, as `kubectl patch --local` does, for the built-in kinds of
//! Kubernetes and any kind an OpenAPI document describes.

mod args;
mod batch;
mod builtin;
mod input;
mod numbers;
mod op;
mod output;
mod prescan;
mod schema;
mod yaml;

use args::{Cli, Command, Common, Source};
use clap::Parser;
use op::Op;
use output::Failure;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let invocation = Invocation::from(cli.command);
    let format = invocation.common.output;
    match invocation.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(format),
    }
}

/// Prints clap's message; bad usage exits with 1 (2 means a conflict).
fn usage_error(e: clap::Error) -> ExitCode {
    let _ = e.print();
    if e.use_stderr() { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// A command with its inputs, in the order of [`Op::inputs`].
struct Invocation {
    op: Op,
    common: Common,
    inputs: Vec<Option<Source>>,
    overwrite: bool,
}

impl From<Command> for Invocation {
    fn from(command: Command) -> Self {
        let (op, common, inputs, overwrite) = match command {
            Command::Apply { common, original, patch } => (Op::Apply, common, vec![original, patch], false),
            Command::Diff { common, original, modified } => (Op::Diff, common, vec![original, modified], false),
            Command::ThreeWay { common, overwrite, original, modified, current } => {
                (Op::ThreeWay, common, vec![original, modified, current], overwrite)
            }
        };
        Invocation { op, common, inputs, overwrite }
    }
}

impl Invocation {
    fn run(self) -> Result<(), Failure> {
        output::check_stdout()?;
        let docs = schema::load_documents(&self.common.schema.openapi)?;
        let mut resolver = schema::Resolver::new(&self.common.schema, &docs)?;
        match &self.common.jsonl {
            Some(source) => batch::run(self.op, source, &mut resolver, self.overwrite, self.common.max_line_bytes),
            None => self.run_single(&mut resolver),
        }
    }

    /// Reads the documents, runs the operation and prints the answer.
    fn run_single(&self, resolver: &mut schema::Resolver<'_>) -> Result<(), Failure> {
        let sources: Vec<&Source> = self.inputs.iter().flatten().collect();
        if sources.iter().filter(|s| matches!(s, Source::Stdin)).count() > 1 {
            return Err(Failure::Error("only one input can be read from stdin (-)".into()));
        }
        let names = self.op.inputs();
        let docs = sources
            .iter()
            .zip(names)
            .map(|(source, name)| input::load_document(source, name))
            .collect::<Result<Vec<_>, _>>()?;
        let schema = resolver.schema_for(&docs, names)?;
        let answer = self.op.run(&docs, self.overwrite, schema)?;
        let mut out = BufWriter::new(io::stdout().lock());
        output::write_document(&mut out, &answer, self.common.output)
            .and_then(|()| out.flush())
            .map_err(output::output_error)
    }
}
