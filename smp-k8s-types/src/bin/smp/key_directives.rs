//! `--patch-merge-key` on a patch written by hand: the elements of a list
//! keyed by several fields (`merge_key = "port,protocol"`,
//! `x-kubernetes-list-map-keys`) are matched by all of them, as in the
//! patches smp computes, where a strategic merge would pair them by the
//! first field only (merging 53/UDP into 53/TCP).

use serde_json::{Map, Value};
use smp_core::Schema;
use smp_core::directive::PATCH_MERGE_KEY;

/// `patch` with `$patchMergeKey` naming every key field on each element
/// that has them all and names no fields itself, in the lists `schema`
/// keys by several fields.
pub fn add(patch: &Value, schema: Schema<'_>) -> Value {
    let mut patch = patch.clone();
    if let Value::Object(map) = &mut patch {
        object(map, schema);
    }
    patch
}

fn object(map: &mut Map<String, Value>, schema: Schema<'_>) {
    for (key, value) in map.iter_mut() {
        if key.starts_with('$') {
            continue;
        }
        match value {
            Value::Object(inner) => {
                if let Ok((inner_schema, _)) = schema.lookup_struct(key) {
                    object(inner, inner_schema);
                }
            }
            Value::Array(items) => {
                let Ok((elements, meta)) = schema.lookup_slice(key) else { continue };
                let fields = match meta.recommended() {
                    Ok(Some(fields)) => fields.to_vec(),
                    _ => Vec::new(),
                };
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    let has_all = fields.iter().all(|f| item.contains_key(*f));
                    if fields.len() > 1 && has_all && !item.contains_key(PATCH_MERGE_KEY) {
                        let names = fields.iter().map(|f| Value::String(f.to_string())).collect();
                        item.insert(PATCH_MERGE_KEY.into(), Value::Array(names));
                    }
                    object(item, elements);
                }
            }
            _ => {}
        }
    }
}
