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

/// The seed of a differential run: `SMP_DIFF_SEED`, else the clock's
/// seconds (the caller prints it, so that a failure can be replayed).
pub fn diff_seed() -> u64 {
    env_number("SMP_DIFF_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs())
    })
}
