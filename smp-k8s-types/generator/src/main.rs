//! `cargo run -p smp-k8s-gen`: regenerates `smp-core/src/k8s/generated.rs`
//! and `smp-k8s-types/src/ssa_schemas.json`.
//! With `--check`, writes nothing and fails when a file is out of date.

use smp_k8s_gen::{Result, emit, generate, locate};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run(std::env::args().skip(1).any(|a| a == "--check")) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("smp-k8s-gen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(check: bool) -> Result<bool> {
    let root = locate::workspace_root();
    let output = generate(&root)?;
    let mut up_to_date = true;
    for (path, text) in &output.files {
        let current = std::fs::read_to_string(path).ok();
        let name = path.strip_prefix(&root).unwrap_or(path).display();
        let size = format!("{} lines, {} bytes", text.lines().count(), text.len());
        if current.as_deref() == Some(text.as_str()) {
            println!("{name}: up to date ({size})");
        } else if check {
            println!("{name}: OUT OF DATE");
            up_to_date = false;
        } else {
            std::fs::write(path, text)?;
            println!("{name}: written ({size})");
        }
    }

    // Generated files that the generator no longer writes.
    let generated: Vec<_> = output.files.iter().map(|(p, _)| p.clone()).collect();
    for entry in std::fs::read_dir(locate::output_dir(&root))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.starts_with(emit::HEADER) && !generated.contains(&path) {
            if check {
                println!("{name}: STALE (no longer generated)");
                up_to_date = false;
            } else {
                std::fs::remove_file(&path)?;
                println!("{name}: removed");
            }
        }
    }

    let versions = &output.versions;
    for (row, mapped) in &output.mapped {
        if mapped.len() != versions.len() {
            let list: Vec<String> = mapped.iter().map(|m| format!("1.{m}")).collect();
            let list = if list.is_empty() { "no version".to_string() } else { list.join(", ") };
            println!("patch metadata {row}: in {list}");
        }
    }
    Ok(ssa_schemas(&root, check)? && up_to_date)
}

/// `smp-k8s-types/src/ssa_schemas.json`, from the shared OpenAPI documents
/// (skipped, and said so, when they are not there).
fn ssa_schemas(root: &std::path::Path, check: bool) -> Result<bool> {
    let Some(dir) = smp_k8s_gen::ssa_schemas::openapi_dir(root) else {
        println!("{}: SKIPPED: no shared/k8s/openapi-v3 (set SMP_SHARED)", smp_k8s_gen::ssa_schemas::OUTPUT);
        return Ok(true);
    };
    let text = smp_k8s_gen::ssa_schemas::generate(&dir)?;
    let path = root.join(smp_k8s_gen::ssa_schemas::OUTPUT);
    let name = smp_k8s_gen::ssa_schemas::OUTPUT;
    if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
        println!("{name}: up to date ({} bytes)", text.len());
    } else if check {
        println!("{name}: OUT OF DATE");
        return Ok(false);
    } else {
        std::fs::write(&path, &text)?;
        println!("{name}: written ({} bytes)", text.len());
    }
    Ok(true)
}
