//! Sets of scalars holding a duplicate, where the reference's
//! `deduplicateScalars` compares every pair:
//!
//! - `readd_finalizer`: applying `{"metadata":{"finalizers":[f]}}`, where
//!   `f` is already one of the object's N finalizers (a merge-strategy set);
//! - `three_way_atomic_args`: the three-way patch without overwrite, whose
//!   conflict check de-duplicates and sorts an atomic list of N arguments
//!   that holds a duplicate, on both sides.
//!
//! Run with `cargo bench -p smp-core --bench sets`; `DIVAN_SAMPLE_COUNT`
//! overrides the sample count.

use divan::{Bencher, black_box};
use serde_json::{Value, json};
use smp_core::schema::Strategy;
use smp_core::{FieldSchema, Schema, Shape, StructSchema, ThreeWayOptions, apply, three_way};

fn main() {
    divan::main();
}

const fn field(name: &'static str, strategy: &'static str, shape: fn() -> Shape) -> FieldSchema {
    FieldSchema::new(name, Strategy::of(strategy), None, shape)
}

fn scalars() -> Shape {
    Shape::List(|| Shape::Scalar)
}

static OBJECT: StructSchema = StructSchema {
    name: "Object",
    fields: &[field("metadata", "", || Shape::Struct(&METADATA)), field("spec", "", || Shape::Struct(&SPEC))],
};
static METADATA: StructSchema = StructSchema { name: "ObjectMeta", fields: &[field("finalizers", "merge", scalars)] };
static SPEC: StructSchema = StructSchema { name: "Spec", fields: &[field("args", "", scalars)] };

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

fn names(prefix: &str, n: usize) -> Vec<Value> {
    (0..n).map(|i| Value::String(format!("{prefix}{i:06}"))).collect()
}

#[divan::bench(args = SIZES, sample_count = 5)]
fn readd_finalizer(bencher: Bencher, n: usize) {
    let object = json!({"metadata": {"finalizers": names("example.com/f", n)}});
    let patch = json!({"metadata": {"finalizers": [format!("example.com/f{:06}", n / 2)]}});
    let schema = Schema::of_struct(&OBJECT);
    bencher.bench(|| apply(black_box(&object), black_box(&patch), schema).unwrap());
}

#[divan::bench(args = SIZES, sample_count = 5)]
fn three_way_atomic_args(bencher: Bencher, n: usize) {
    let args = names("--flag-", n);
    let original = json!({"spec": {"args": args}});
    // The live list changed one argument; the desired one repeats one.
    let mut live = args.clone();
    live[n - 1] = json!("--live");
    let mut desired = args.clone();
    desired[n - 1] = args[0].clone();
    let (current, modified) = (json!({"spec": {"args": live}}), json!({"spec": {"args": desired}}));
    let schema = Schema::of_struct(&OBJECT);
    let options = ThreeWayOptions::default();
    bencher.bench(|| {
        let result = three_way(black_box(&original), black_box(&modified), black_box(&current), schema, options);
        black_box(result.is_err())
    });
}
