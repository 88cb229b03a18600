#![no_main]
//! The bytes entry points against the `Value` ones on raw text: decoding
//! (escapes, numbers, duplicate keys, depth), the engine on the compact
//! document and the writer must give the same bytes, or the same error.

use libfuzzer_sys::fuzz_target;
use smp_core::bytes::to_json_vec;
use smp_core::{Result, ThreeWayOptions};
use smp_fuzz::RawInput;

fuzz_target!(|data: &[u8]| {
    let Some(input) = RawInput::parse(data, 3) else { return };
    let schema = input.schema();
    let [a, b, c] = [input.docs[0], input.docs[1], input.docs[2]];
    let options = ThreeWayOptions { overwrite: input.flag(), ..Default::default() };
    let value_route = |op: u8| -> Result<Vec<u8>> {
        let (a, b) = (smp_core::decode(a)?, smp_core::decode(b)?);
        let out = match op {
            0 => smp_core::apply(&a, &b, schema)?,
            1 => smp_core::diff(&a, &b, schema)?,
            _ => smp_core::three_way(&a, &b, &smp_core::decode(c)?, schema, options)?,
        };
        to_json_vec(&out)
    };
    let op = (input.selector >> 4) % 3;
    let bytes_route = match op {
        0 => smp_core::apply_slice(a, b, schema),
        1 => smp_core::diff_slice(a, b, schema),
        _ => smp_core::three_way_slice(a, b, c, schema, options),
    };
    let show = |r: Result<Vec<u8>>| r.map_err(|e| e.to_string());
    assert_eq!(show(bytes_route), show(value_route(op)), "op {op}");
});
