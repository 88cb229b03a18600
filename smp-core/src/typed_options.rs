//! The opt-in extensions on typed values: [`WithOptions`] gives every
//! [`StrategicMerge`] type apply, diff and three-way with options
//! (`$patchMergeKey`, strict apply), the duplicate-key [`check`](crate::check)
//! and the checked diff. They run the JSON engine on the serialised
//! values; the reference's behaviour stays on [`StrategicMerge`] itself.

use crate::check::{Finding, check, diff_checked};
use crate::engine::apply::{ApplyOptions, apply_with};
use crate::engine::check_nesting;
use crate::engine::diff::{DiffOptions, diff_with};
use crate::engine::three_way::{ThreeWayOptions, three_way};
use crate::error::{ErrorKind, Result};
use crate::schema::Schema;
use crate::typed::{StrategicMerge, check_depth};
use serde_json::Value;

/// The JSON form of a value, refused first (without recursion) when it
/// nests deeper than the engine accepts: serialising recurses.
fn to_json<T: StrategicMerge>(v: &T) -> Result<Value> {
    check_depth(v)?;
    serde_json::to_value(v).map_err(|e| ErrorKind::Serialize(e.to_string()).into())
}

/// Apply, diff and three-way with options, the duplicate-key check and the
/// checked diff, on any [`StrategicMerge`] type.
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use smp_core::{ApplyOptions, DiffOptions, StrategicMerge, WithOptions};
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Port { port: u16, protocol: String, name: String }
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, StrategicMerge)]
/// struct Spec {
///     #[patch(strategy = "merge", merge_key = "port,protocol")]
///     ports: Vec<Port>,
/// }
///
/// let port = |p: &str, n: &str| Port { port: 53, protocol: p.into(), name: n.into() };
/// let live = Spec { ports: vec![port("TCP", "dns-tcp"), port("UDP", "dns")] };
/// let desired = Spec { ports: vec![port("TCP", "dns-tcp"), port("UDP", "dns-udp")] };
/// // The type's own key names each port by both fields: no repeated key.
/// assert!(live.check().unwrap().is_empty());
/// assert_eq!(live.apply(&live.diff(&desired).unwrap()).unwrap(), desired);
///
/// // `$patchMergeKey` also names the fields in the patch, for a receiver
/// // that reads the directive.
/// let on = DiffOptions { set_element_order: true, patch_merge_key: true, ..Default::default() };
/// let patch = live.diff_with(&desired, on).unwrap();
/// assert_eq!(patch["ports"][0], json!({"$patchMergeKey": ["port", "protocol"], "port": 53, "protocol": "UDP", "name": "dns-udp"}));
/// let applied = live.apply_with(&patch, ApplyOptions { patch_merge_key: true, ..Default::default() }).unwrap();
/// assert_eq!(applied, desired);
/// ```
pub trait WithOptions: StrategicMerge {
    /// The two-way patch from `self` to `desired`, with options.
    fn diff_with(&self, desired: &Self, options: DiffOptions) -> Result<Value> {
        check_depth(desired)?;
        diff_with(&to_json(self)?, &to_json(desired)?, Schema::Static(Self::shape()), options)
    }

    /// [`diff_with`](Self::diff_with), verified by applying the patch:
    /// an error naming the lists at fault when it would not give `desired`.
    fn diff_checked(&self, desired: &Self, options: DiffOptions) -> Result<Value> {
        check_depth(desired)?;
        diff_checked(&to_json(self)?, &to_json(desired)?, Schema::Static(Self::shape()), options)
    }

    /// `self` with `patch` applied, with options.
    fn apply_with(&self, patch: &Value, options: ApplyOptions) -> Result<Self> {
        check_nesting(patch)?;
        let out = apply_with(&to_json(self)?, patch, Schema::Static(Self::shape()), options)?;
        serde_json::from_value(out).map_err(|e| ErrorKind::Deserialize(e.to_string()).into())
    }

    /// The three-way patch of `kubectl apply`, with options.
    fn three_way_with(&self, last_applied: &Self, desired: &Self, options: ThreeWayOptions<'_>) -> Result<Value> {
        check_depth(self)?;
        check_depth(last_applied)?;
        check_depth(desired)?;
        let (o, m, c) = (to_json(last_applied)?, to_json(desired)?, to_json(self)?);
        three_way(&o, &m, &c, Schema::Static(Self::shape()), options)
    }

    /// The lists of `self` whose elements share their merge key (see
    /// [`check`](crate::check())).
    fn check(&self) -> Result<Vec<Finding>> {
        check(&to_json(self)?, Schema::Static(Self::shape()))
    }
}

impl<T: StrategicMerge> WithOptions for T {}
