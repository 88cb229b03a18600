//! Where the generated code finds the engine (`smp_core`). Each derive
//! entry point knows it: smp-core re-exports [`Engine::Core`]'s, and
//! smp-k8s-types, which re-exports smp-core, [`Engine::ViaK8sTypes`]'s, so
//! that a crate depending only on smp-k8s-types can derive too. A crate
//! that renames the dependency names the path itself, with
//! `#[patch(crate = "...")]`.

use syn::Path;

/// Through which crate the derive was reached.
#[derive(Clone, Copy)]
pub enum Engine {
    /// `smp_core::StrategicMerge`.
    Core,
    /// `smp_k8s_types::StrategicMerge`.
    ViaK8sTypes,
}

impl Engine {
    /// The path of `smp_core` in generated code.
    pub fn default_path(self) -> Path {
        match self {
            Engine::Core => syn::parse_quote!(::smp_core),
            Engine::ViaK8sTypes => syn::parse_quote!(::smp_k8s_types::smp_core),
        }
    }
}
