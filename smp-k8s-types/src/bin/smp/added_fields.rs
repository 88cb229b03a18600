//! `--strict` for merge and JSON patches: the fields a patch adds must be
//! fields of the schema, as the API server's `fieldValidation=Strict`
//! refuses a patched object with unknown fields. A field is added where
//! the result has it and the original has not, at the same place (the
//! original's own unknown fields are not the patch's doing). Strategic
//! patches are checked by the engine, field by field of the patch.

use serde_json::Value;
use smp_core::{Error, ErrorKind, Schema};

/// Fails at the first field `result` adds to `original` that `schema`
/// knows to be absent, with its path.
pub fn check(original: &Value, result: &Value, schema: Schema<'_>) -> smp_core::Result<()> {
    walk(Some(original), result, schema)
}

fn walk(original: Option<&Value>, result: &Value, schema: Schema<'_>) -> smp_core::Result<()> {
    match result {
        Value::Object(map) => {
            for (key, value) in map {
                let before = original.and_then(|o| o.get(key));
                if before.is_none() && schema.knows_field(key) == Some(false) {
                    return Err(Error::new(ErrorKind::StrictUnknownField(key.clone())).at_key(key));
                }
                let inner = match value {
                    Value::Object(_) => schema.lookup_struct(key).ok(),
                    Value::Array(_) => schema.lookup_slice(key).ok(),
                    _ => None,
                };
                if let Some((inner, _)) = inner {
                    walk(before, value, inner).map_err(|e| e.at_key(key))?;
                }
            }
        }
        // `schema` is the elements'.
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(original.and_then(|o| o.get(i)), item, schema).map_err(|e| e.at_element("", item, i))?;
            }
        }
        _ => {}
    }
    Ok(())
}
