//! The JSONPath of a CRD's `additionalPrinterColumns`: fields and list
//! indexes (`.spec.replicas`, `.status.conditions[0].type`, with an
//! optional `{}` around it), as columns use it.

use serde_json::Value;

/// The value at `path` in `object`, if there is one.
pub fn find(object: &Value, path: &str) -> Option<Value> {
    let path = path.trim();
    let path = path.strip_prefix('{').and_then(|p| p.strip_suffix('}')).unwrap_or(path);
    let mut at = object;
    for step in path.split('.').filter(|s| !s.is_empty()) {
        let (field, indexes) = match step.find('[') {
            Some(i) => (&step[..i], &step[i..]),
            None => (step, ""),
        };
        if !field.is_empty() {
            at = at.get(field)?;
        }
        for index in indexes.split('[').filter(|s| !s.is_empty()) {
            let index = index.strip_suffix(']')?;
            let list = at.as_array()?;
            let i: i64 = index.parse().ok()?;
            let i = if i < 0 { list.len().checked_sub(i.unsigned_abs() as usize)? } else { i as usize };
            at = list.get(i)?;
        }
    }
    Some(at.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_find_fields_and_items() {
        let o = json!({"spec": {"replicas": 3}, "status": {"conditions": [{"type": "A"}, {"type": "B"}]}});
        assert_eq!(find(&o, ".spec.replicas"), Some(json!(3)));
        assert_eq!(find(&o, "{.status.conditions[1].type}"), Some(json!("B")));
        assert_eq!(find(&o, ".status.conditions[-1].type"), Some(json!("B")));
        assert_eq!(find(&o, ".status.conditions[5].type"), None);
        assert_eq!(find(&o, ".spec.missing"), None);
    }
}
