//! The route the typed layer is measured against: serialise, run the JSON
//! engine with the type's static schema, deserialise.

use serde::de::DeserializeOwned;
use serde_json::Value;
use smp_core::{Schema, StrategicMerge};

fn schema_of<T: StrategicMerge>() -> Schema<'static> {
    Schema::Static(T::shape())
}

pub fn json_diff<T: StrategicMerge>(old: &T, new: &T) -> Value {
    let (o, n) = (serde_json::to_value(old).unwrap(), serde_json::to_value(new).unwrap());
    smp_core::diff(&o, &n, schema_of::<T>()).unwrap()
}

pub fn json_apply<T: StrategicMerge + DeserializeOwned>(old: &T, patch: &Value) -> T {
    let o = serde_json::to_value(old).unwrap();
    serde_json::from_value(smp_core::apply(&o, patch, schema_of::<T>()).unwrap()).unwrap()
}

/// Checks once, before measuring, that both routes agree.
pub fn same_diff<T: StrategicMerge>(old: &T, new: &T) {
    assert_eq!(old.diff(new).unwrap(), json_diff(old, new), "typed and JSON diffs differ");
}

/// Checks once, before measuring, that both routes reach `want`.
pub fn same_apply<T: StrategicMerge + std::fmt::Debug>(old: &T, patch: &Value, want: &T) {
    assert_eq!(&old.apply(patch).unwrap(), want, "typed apply");
    assert_eq!(&json_apply(old, patch), want, "JSON apply");
}
