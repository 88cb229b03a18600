//! Writing results, and reporting failures on stderr.

use crate::args::Format;
use crate::numbers;
use serde::Serialize;
use serde_json::Value;
use std::io::{self, Write};
use std::process::ExitCode;

/// Writes `value` as a whole document: JSON as `kubectl -o json` prints
/// it, or YAML that YAML 1.1 readers read back unchanged. Keys come out
/// sorted, as `serde_json`'s maps keep them; numbers as the reference
/// writes them.
pub fn write_document(out: &mut impl Write, value: &Value, format: Format) -> io::Result<()> {
    match format {
        Format::Json => {
            let mut text = Vec::new();
            value.serialize(&mut serde_json::Serializer::with_formatter(&mut text, numbers::pretty()))?;
            out.write_all(&escaped_as_go(&text))?;
            out.write_all(b"\n")
        }
        Format::Yaml => out.write_all(crate::yaml::to_string(value)?.as_bytes()),
        Format::Name => writeln!(out, "{}", crate::documents::name_of(value)),
    }
}

/// JSON text with the characters escaped that Go's encoder escapes and
/// serde_json does not (see [`GoEscapes`]).
fn escaped_as_go(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    GoEscapes(&mut out).write_all(text).expect("writing to a vector");
    out
}

/// Writes JSON text through, with the characters escaped that Go's encoder
/// escapes and serde_json does not: `<`, `>`, `&`, U+2028 and U+2029. None
/// of them can stand outside a string, so the text is rewritten byte by
/// byte. It must come in whole characters, as serde_json writes it (each
/// piece ends before a character it escapes, or at the end of a string).
pub struct GoEscapes<W>(pub W);

impl<W: Write> Write for GoEscapes<W> {
    fn write(&mut self, text: &[u8]) -> io::Result<usize> {
        let mut rest = text;
        while let Some(i) = rest.iter().position(|b| matches!(b, b'<' | b'>' | b'&' | 0xE2)) {
            self.0.write_all(&rest[..i])?;
            let escape: Option<&[u8]> = match &rest[i..] {
                [b'<', ..] => Some(b"\\u003c"),
                [b'>', ..] => Some(b"\\u003e"),
                [b'&', ..] => Some(b"\\u0026"),
                [0xE2, 0x80, 0xA8, ..] => Some(b"\\u2028"),
                [0xE2, 0x80, 0xA9, ..] => Some(b"\\u2029"),
                _ => None,
            };
            match escape {
                Some(escape) => {
                    self.0.write_all(escape)?;
                    rest = &rest[i + if rest[i] == 0xE2 { 3 } else { 1 }..];
                }
                None => {
                    self.0.write_all(&rest[i..=i])?;
                    rest = &rest[i + 1..];
                }
            }
        }
        self.0.write_all(rest)?;
        Ok(text.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Writes `value` as compact JSON.
fn write_compact(out: &mut impl Write, value: &Value) -> io::Result<()> {
    smp_core::unstable::write_json(out, value)
}

/// The longest error text printed, in bytes: engine messages quote whole
/// lists, which can be megabytes.
pub const MAX_MESSAGE: usize = 4096;

/// `message`, cut to [`MAX_MESSAGE`] bytes with a note of what was left out.
pub fn bounded(message: &str) -> String {
    if message.len() <= MAX_MESSAGE {
        return message.to_string();
    }
    let mut cut = MAX_MESSAGE;
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} more bytes)", &message[..cut], message.len() - cut)
}

/// Writes text on stderr where the exit status already says what failed:
/// a stderr that cannot be written loses the message, never the status.
pub fn to_stderr(text: std::fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(text);
}

/// Writes a line on stderr that the exit status does not tell (a warning,
/// an explanation); a stderr that cannot be written fails the command.
pub fn stderr_line(line: std::fmt::Arguments<'_>) -> Result<(), String> {
    writeln!(io::stderr().lock(), "{line}").map_err(|e| format!("cannot write to stderr: {e}"))
}

/// Fails when smp was started with stdout closed: the Rust runtime then
/// opens `/dev/null` in its place, and the answer would vanish without an
/// error.
pub fn check_stdout() -> Result<(), Failure> {
    if stdout_was_closed() {
        return Err(Failure::Error("cannot write output: stdout is not open".into()));
    }
    Ok(())
}

/// Whether descriptor 1 was closed when smp started, as seen before the
/// Rust runtime puts `/dev/null` in its place (it does so before `main`, and
/// the `/dev/null` it opens cannot be told from a shell's `1<>/dev/null`).
#[cfg(target_os = "linux")]
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs as the program is loaded, before the runtime's start.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static SEE_STDOUT_AT_START: extern "C" fn() = {
    extern "C" fn see_stdout() {
        // SAFETY: `fcntl(F_GETFD)` only asks about a descriptor number.
        let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
        STDOUT_CLOSED.store(closed, std::sync::atomic::Ordering::Relaxed);
    }
    see_stdout
};

#[cfg(target_os = "linux")]
fn stdout_was_closed() -> bool {
    STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

#[cfg(not(target_os = "linux"))]
fn stdout_was_closed() -> bool {
    false
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
    write_compact(out, value)?;
    out.write_all(b"}\n")
}

/// Writes a batch error line: `{"error":"..."}`, with `"conflict":bool`
/// when the command can conflict.
pub fn write_error_line(out: &mut impl Write, message: &str, conflict: Option<bool>) -> io::Result<()> {
    out.write_all(b"{\"error\":")?;
    serde_json::to_writer(&mut *out, &bounded(message))?;
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
    /// Prints the failure on stderr and gives the exit status: 1 for an
    /// error, 2 for a conflict; 2 for both with `--exit-code`, where 1
    /// means a patch that is not empty.
    pub fn report(&self, format: Format, exit_code: bool) -> ExitCode {
        let error = ExitCode::from(if exit_code { 2 } else { 1 });
        let format = if format == Format::Name { Format::Json } else { format };
        match self {
            Failure::Error(message) => {
                to_stderr(format_args!("error: {}\n", bounded(message)));
                error
            }
            Failure::OutputClosed => error,
            Failure::Conflict { path, patch, changed } => {
                let at = if path.is_empty() { String::new() } else { format!(" at {}", bounded(path)) };
                to_stderr(format_args!(
                    "error: conflict{at}: the patch conflicts with changes made from original to current\n\
                     patch:\n{}changes made from original to current:\n{}",
                    render(patch, format),
                    render(changed, format)
                ));
                ExitCode::from(2)
            }
        }
    }
}
