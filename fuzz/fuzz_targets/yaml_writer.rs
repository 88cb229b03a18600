#![no_main]
//! The `smp` command's YAML writer (its modules, compiled in from the
//! binary's sources): a mapping whose keys come from the input, with
//! numbers, dashes, dots, leading zeros and letters and digits of other
//! scripts, is written and read back unchanged; ordering its keys as
//! go-yaml does (an order that is not total) never panics.

#[path = "../../smp-k8s-types/src/bin/smp/numbers.rs"]
#[allow(dead_code)]
mod numbers;
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

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

/// Pieces keys are made of: each input byte picks one, or is a character
/// of its own.
const PIECES: &[&str] =
    &["0", "1", "01", "00", "9", "0a", "-", ".", "_", "a", "Z", "é", "中", "٣", "１", "Ⅻ", "\u{301}"];

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
    let mut map = Map::new();
    for (n, chunk) in data.split(|b| *b == 0xFF).take(200).enumerate() {
        let key: String = chunk
            .iter()
            .map(|b| match PIECES.get(usize::from(*b)) {
                Some(piece) => piece.to_string(),
                None => char::from(*b).to_string(),
            })
            .collect();
        let value =
            if n % 3 == 0 { Value::Object(Map::from_iter([(key.clone(), Value::from(n))])) } else { Value::from(n) };
        map.insert(key, value);
    }
    let value = Value::Object(map);
    let text = yaml::to_string(&value).expect("any JSON value can be written");
    let read = yaml_read::first_document(text.as_bytes()).expect("the writer's YAML reads back");
    assert_eq!(read, Some(value), "{text}");
});
