//! Where the generated code finds the engine (`smp_core`), so that a crate
//! depending only on `smp-k8s-types` (which re-exports it) can derive too.

use proc_macro_crate::{FoundCrate, crate_name};
use syn::Path;

/// `::smp_core` when the crate being compiled depends on smp-core (under
/// whatever name it gave it), else `::<smp_k8s_types>::smp_core` when it
/// depends on smp-k8s-types, else `::smp_core` (and the compiler says that
/// it is missing).
pub fn default_path() -> Path {
    let named = |name: &str| syn::Ident::new(name, proc_macro2::Span::call_site());
    match crate_name("smp-core") {
        Ok(FoundCrate::Name(name)) => {
            let name = named(&name);
            return syn::parse_quote!(::#name);
        }
        // smp-core's own doctests and tests.
        Ok(FoundCrate::Itself) => return syn::parse_quote!(::smp_core),
        Err(_) => {}
    }
    match crate_name("smp-k8s-types") {
        Ok(FoundCrate::Name(name)) => {
            let name = named(&name);
            syn::parse_quote!(::#name::smp_core)
        }
        Ok(FoundCrate::Itself) => syn::parse_quote!(::smp_k8s_types::smp_core),
        Err(_) => syn::parse_quote!(::smp_core),
    }
}

#[cfg(test)]
mod tests {
    use super::default_path;
    use quote::ToTokens;

    /// The path chosen for a crate with these `[dependencies]`.
    fn path_for(dir: &std::path::Path, dependencies: &str) -> String {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "").unwrap();
        let manifest = format!(
            "[package]\nname = \"user\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n\n[dependencies]\n{dependencies}\n"
        );
        std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        // SAFETY: the only test of this crate that reads the environment.
        unsafe { std::env::set_var("CARGO_MANIFEST_DIR", dir) };
        default_path().to_token_stream().to_string().replace(' ', "")
    }

    #[test]
    fn engine_found_through_either_crate_and_renames() {
        let root = std::env::temp_dir().join(format!("smp-derive-engine-path-{}", std::process::id()));
        let cases = [
            ("core", "smp-core = \"0.1\"", "::smp_core"),
            ("renamed-core", "engine = { package = \"smp-core\", version = \"0.1\" }", "::engine"),
            ("k8s", "smp-k8s-types = \"0.1\"", "::smp_k8s_types::smp_core"),
            ("renamed-k8s", "k8s = { package = \"smp-k8s-types\", version = \"0.1\" }", "::k8s::smp_core"),
            ("both", "smp-k8s-types = \"0.1\"\nsmp-core = \"0.1\"", "::smp_core"),
            ("neither", "serde = \"1\"", "::smp_core"),
        ];
        for (dir, dependencies, want) in cases {
            assert_eq!(path_for(&root.join(dir), dependencies), want, "{dependencies}");
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
