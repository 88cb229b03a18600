//! Helpers shared by the workspace-level tests.

pub mod conformance;
pub mod custom_resource_gen;
pub mod guide;
// `gen` is a reserved word in edition 2024; the generator is also exported
// at the crate root.
pub mod r#gen;
pub mod harness;
pub mod json_cmp;
pub mod k8s_kinds;
pub mod k8s_schema;
pub mod kubectl;
pub mod long_text;
pub mod merge_item;
pub mod odd_shapes;
pub mod openapi_gen;
pub mod patch_oracle;
pub mod pod_env;
pub mod rng;
pub mod scale;
pub mod schema_tables;
pub mod smpgo;
pub mod ssa_fixture;
pub mod ssa_gen;

pub use r#gen::{Gen, Kind};

/// The derive's reserved names: smp-derive cannot depend on smp-core, so
/// it keeps a table of its own, checked against the registry below.
#[cfg(test)]
#[path = "../../smp-derive/src/internals/directives.rs"]
#[allow(dead_code)]
mod derive_reserved;

#[cfg(test)]
mod derive_directives {
    use super::derive_reserved as derive;
    use smp_core::directive::{Directive, ListDirective, PATCH, PATCH_MERGE_KEY, RETAIN_KEYS};

    #[test]
    fn derive_reserves_the_directives() {
        let mut names = vec![PATCH.to_string(), RETAIN_KEYS.to_string(), PATCH_MERGE_KEY.to_string()];
        for d in ListDirective::ALL {
            for field in ["", "x", "a/b", "$patch"] {
                names.push(d.key(field));
            }
            names.push(d.prefix().to_string());
            names.push(format!("{}X/a", d.prefix()));
        }
        names.extend(["patch", "$", "", "$patches", "retainKeys", "$Patch"].map(String::from));
        for name in &names {
            assert_eq!(derive::is_reserved(name), Directive::is_reserved(name), "{name:?}");
        }
        assert!(names.iter().filter(|n| Directive::is_reserved(n)).count() >= 10);
    }
}

/// The derive's strategy vocabulary (`#[patch(strategy = "...")]`), read
/// by smp-derive's own parser, against smp-core's reader of the same tags.
#[cfg(test)]
#[path = "../../smp-derive/src/internals/strategy.rs"]
#[allow(dead_code)]
mod derive_strategy;

#[cfg(test)]
mod derive_strategies {
    use super::derive_strategy::Strategy as Declared;
    use smp_core::schema::Strategy;

    #[test]
    fn the_derive_declares_what_the_schema_reads() {
        let mut read = 0;
        for text in ["merge", "replace", "retainKeys", "merge,retainKeys", "retainKeys,merge", "", "merj", "a,b"] {
            let Ok(declared) = Declared::parse(text) else { continue };
            let schema = Strategy::parse(declared.as_str()).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(schema.merge, declared.merges(), "{text}");
            assert_eq!(schema.retain_keys, declared.retains_keys(), "{text}");
            assert_eq!(schema.replace, declared == Declared::Replace, "{text}");
            read += 1;
        }
        assert_eq!(read, 4, "the four strategies a field may declare");
    }
}
