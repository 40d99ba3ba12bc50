//! Cargo: build, test, run, clippy, fmt, then `test -p` per workspace member and `run
//! --bin` per binary. Read from Cargo.toml files only; `cargo metadata` is never run.

use serde_json::Value;

use super::{argv, glob, item, Extra, Project};
use crate::entry::Args;
use crate::project::cache::FileCache;
use crate::project::SourceItem;

static MANIFESTS: FileCache<Value> = FileCache::new();

fn manifest(path: &std::path::Path) -> Option<std::sync::Arc<Value>> {
    MANIFESTS.read(path, |t| crate::toml_json::parse(t).ok())
}

pub fn items(p: &Project) -> Vec<SourceItem> {
    let Some(doc) = manifest(&p.path("Cargo.toml")) else { return Vec::new() };
    let cargo = |name: &str, args: Args, description: &str| {
        item(
            "cargo",
            name,
            argv(&["cargo", name]),
            p.root_text,
            Extra { args: Some(args), description: description.to_string(), meaning: None },
        )
    };
    let mut out = vec![
        cargo("build", Args::None, "Compiles the crate or workspace"),
        cargo(
            "test",
            Args::Optional,
            "Runs the Rust tests (unit, integration and doc tests); an argument filters test names",
        ),
        cargo("run", Args::Optional, "Builds and runs the default binary"),
        cargo("clippy", Args::None, "Lints the Rust code with clippy"),
        cargo("fmt", Args::None, "Formats the Rust code with rustfmt"),
    ];
    let mut bins = Vec::new();
    let mut packages = Vec::new();
    package(p.root, &doc, &mut bins, &mut packages);
    let members = doc.pointer("/workspace/members").and_then(Value::as_array).cloned().unwrap_or_default();
    for pattern in members.iter().filter_map(Value::as_str) {
        for dir in glob(p.root, pattern) {
            if let Some(member) = manifest(&dir.join("Cargo.toml")) {
                package(&dir, &member, &mut bins, &mut packages);
            }
        }
    }
    if packages.len() > 1 {
        for pkg in &packages {
            out.push(item(
                "cargo",
                &format!("test-{pkg}"),
                argv(&["cargo", "test", "-p", pkg]),
                p.root_text,
                Extra {
                    args: Some(Args::Optional),
                    description: format!("Runs the tests of the workspace member {pkg}"),
                    meaning: Some("test"),
                },
            ));
        }
    }
    for bin in &bins {
        out.push(item(
            "cargo",
            &format!("run-{bin}"),
            argv(&["cargo", "run", "--bin", bin]),
            p.root_text,
            Extra {
                args: Some(Args::Optional),
                description: format!("Builds and runs the binary {bin}"),
                meaning: Some("run"),
            },
        ));
    }
    out
}

/// Collects the package name and binaries of one manifest.
fn package(dir: &std::path::Path, doc: &Value, bins: &mut Vec<String>, packages: &mut Vec<String>) {
    let Some(name) = doc.pointer("/package/name").and_then(Value::as_str) else { return };
    packages.push(name.to_string());
    let mut mine: Vec<String> = Vec::new();
    let mut add = |b: &str| {
        let ok = !b.is_empty() && b.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if ok && !mine.iter().any(|m| m == b) {
            mine.push(b.to_string());
        }
    };
    for bin in doc.get("bin").and_then(Value::as_array).into_iter().flatten() {
        if let Some(n) = bin.get("name").and_then(Value::as_str) {
            add(n);
        }
    }
    if dir.join("src/main.rs").exists() {
        add(name);
    }
    for file in glob(dir, "src/bin/*.rs") {
        if let Some(stem) = file.file_stem().and_then(|s| s.to_str()) {
            add(stem);
        }
    }
    bins.extend(mine);
}
