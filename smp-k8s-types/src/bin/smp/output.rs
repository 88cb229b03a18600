//! Writing results, and reporting failures on stderr.

use crate::args::Format;
use serde_json::Value;
use std::io::{self, Write};
use std::process::ExitCode;

/// Writes `value` as a whole document: indented JSON, or YAML. Keys come
/// out sorted, as `serde_json`'s maps keep them.
pub fn write_document(out: &mut impl Write, value: &Value, format: Format) -> io::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, value)?;
            out.write_all(b"\n")
        }
        Format::Yaml => {
            let text = serde_yaml_ng::to_string(value).map_err(io::Error::other)?;
            out.write_all(text.as_bytes())
        }
    }
}

/// `value` as [`write_document`] writes it.
pub fn render(value: &Value, format: Format) -> String {
    let mut buf = Vec::new();
    // Writing to memory only fails on values JSON and YAML cannot hold.
    if let Err(e) = write_document(&mut buf, value, format) {
        return format!("<{e}>\n");
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Writes a batch answer line: `{"<key>":<value>}`.
pub fn write_answer_line(out: &mut impl Write, key: &str, value: &Value) -> io::Result<()> {
    write!(out, "{{\"{key}\":")?;
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"}\n")
}

/// Writes a batch error line: `{"error":"..."}`, with `"conflict":bool`
/// when the command can conflict.
pub fn write_error_line(out: &mut impl Write, message: &str, conflict: Option<bool>) -> io::Result<()> {
    out.write_all(b"{\"error\":")?;
    serde_json::to_writer(&mut *out, message)?;
    if let Some(conflict) = conflict {
        write!(out, ",\"conflict\":{conflict}")?;
    }
    out.write_all(b"}\n")
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// Bad input, options or I/O: exit status 1.
    Error(String),
    /// The reader of the output went away (`| head`): exit status 1, quietly.
    OutputClosed,
    /// A three-way conflict: exit status 2, both sides shown.
    Conflict {
        /// Where in the document, if not at the top.
        path: String,
        patch: Value,
        changed: Value,
    },
}

/// A failure to write the output.
pub fn output_error(e: io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure::OutputClosed
    } else {
        Failure::Error(format!("cannot write output: {e}"))
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Error(message)
    }
}

impl From<smp_core::Error> for Failure {
    fn from(err: smp_core::Error) -> Self {
        match err.kind {
            smp_core::ErrorKind::Conflict { patch, changed } => {
                Failure::Conflict { path: err.path.to_string(), patch, changed }
            }
            _ => Failure::Error(err.to_string()),
        }
    }
}

impl Failure {
    /// Prints the failure on stderr and gives the exit status.
    pub fn report(&self, format: Format) -> ExitCode {
        match self {
            Failure::Error(message) => {
                eprintln!("error: {message}");
                ExitCode::from(1)
            }
            Failure::OutputClosed => ExitCode::from(1),
            Failure::Conflict { path, patch, changed } => {
                let at = if path.is_empty() { String::new() } else { format!(" at {path}") };
                eprint!(
                    "error: conflict{at}: the patch conflicts with changes made from original to current\n\
                     patch:\n{}changes made from original to current:\n{}",
                    render(patch, format),
                    render(changed, format)
                );
                ExitCode::from(2)
            }
        }
    }
}
