#![no_main]
//! The `smp` command's argument and input handling (its modules, compiled
//! in from the binary's sources): a command line from the first line of
//! the input goes through clap and the check of flags that do not apply;
//! the rest is read as the command reads a file (JSON or YAML, one
//! document or a stream) and as `-p` text, and each document read is
//! written as YAML and read back unchanged. Nothing may panic.

#[path = "../../smp-k8s-types/src/bin/smp/added_fields.rs"]
#[allow(dead_code)]
mod added_fields;
#[path = "../../smp-k8s-types/src/bin/smp/args.rs"]
#[allow(dead_code)]
mod args;
#[path = "../../smp-k8s-types/src/bin/smp/flags.rs"]
#[allow(dead_code)]
mod flags;
#[path = "../../smp-k8s-types/src/bin/smp/input.rs"]
#[allow(dead_code)]
mod input;
#[path = "../../smp-k8s-types/src/bin/smp/invocation.rs"]
#[allow(dead_code)]
mod invocation;
#[path = "../../smp-k8s-types/src/bin/smp/key_directives.rs"]
#[allow(dead_code)]
mod key_directives;
#[path = "../../smp-k8s-types/src/bin/smp/numbers.rs"]
#[allow(dead_code)]
mod numbers;
#[path = "../../smp-k8s-types/src/bin/smp/op.rs"]
#[allow(dead_code)]
mod op;
#[path = "../../smp-k8s-types/src/bin/smp/prescan.rs"]
#[allow(dead_code)]
mod prescan;
#[path = "../../smp-k8s-types/src/bin/smp/yaml.rs"]
#[allow(dead_code)]
mod yaml;
#[path = "../../smp-k8s-types/src/bin/smp/yaml_read.rs"]
#[allow(dead_code)]
mod yaml_read;
#[path = "../../smp-k8s-types/src/bin/smp/yaml_scalar.rs"]
#[allow(dead_code)]
mod yaml_scalar;

use clap::Parser;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The YAML parser's own panics are errors of the reader (caught there),
    // not findings: the fuzzer's hook, which aborts, is kept for the rest.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !yaml_read::is_parser_panic(info) {
                abort(info);
            }
        }));
    });
    let (line, document) = match data.iter().position(|b| *b == b'\n') {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    let line = String::from_utf8_lossy(line);
    let words = std::iter::once("smp").chain(line.split(' ').filter(|w| !w.is_empty()).take(16));
    if let Ok(cli) = args::Cli::try_parse_from(words) {
        let invocation = invocation::Invocation::from(cli.command);
        let _ = flags::refuse_what_does_not_apply(&invocation);
    }
    let read = [input::parse_stream(document), input::parse_any(document).map(|v| vec![v])];
    for value in read.into_iter().flatten().flatten() {
        let text = yaml::to_string(&value).expect("a document read can be written");
        let back = yaml_read::first_document(text.as_bytes()).expect("the writer's YAML reads back");
        // Numbers come back as go-yaml reads the reference's JSON of them
        // (a float of integral value beyond int64 as an unsigned integer,
        // as kubectl's own output does): the same number, maybe of
        // another kind.
        assert_eq!(back.map(numbers_as_floats), Some(numbers_as_floats(value)), "{text}");
    }
});

/// `value` with every number as a float.
fn numbers_as_floats(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Number(n) => n.as_f64().map_or(Value::Number(n), Value::from),
        Value::Array(items) => Value::Array(items.into_iter().map(numbers_as_floats).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, numbers_as_floats(v))).collect()),
        other => other,
    }
}
