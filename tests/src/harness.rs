//! Small helpers of the long-running differential tests.

use std::io::Write;

/// Straight to the process's stderr, past the test harness's capture.
pub fn loud(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// A number from the environment; a value that is not one is a mistake
/// worth stopping for.
pub fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    let text = std::env::var(name).ok()?;
    Some(text.trim().parse().unwrap_or_else(|_| panic!("{name}={text:?} is not a number")))
}
