//! The project's stack, in words for the model's context (`rust`, `node (pnpm)`,
//! `make`), found from marker files upward. Reads nothing but file names.

use std::path::{Path, PathBuf};

/// Marker file → stack name, in the order they are reported.
const MARKERS: &[(&str, &str)] = &[
    ("Cargo.toml", "rust"),
    ("package.json", "node"),
    ("pyproject.toml", "python"),
    ("setup.py", "python"),
    ("requirements.txt", "python"),
    ("go.mod", "go"),
    ("pom.xml", "java (maven)"),
    ("build.gradle", "java (gradle)"),
    ("build.gradle.kts", "java (gradle)"),
    ("Gemfile", "ruby"),
    ("mix.exs", "elixir"),
    ("composer.json", "php"),
    ("CMakeLists.txt", "cmake"),
    ("meson.build", "meson"),
    ("flake.nix", "nix"),
    ("Makefile", "make"),
    ("justfile", "just"),
    ("Justfile", "just"),
    ("Taskfile.yml", "task"),
];

const NODE_LOCKFILES: &[(&str, &str)] = &[
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("package-lock.json", "npm"),
];

/// The detected stack and the folder holding the nearest marker.
pub fn stack(dir: &Path) -> (Vec<String>, Option<PathBuf>) {
    let names: Vec<&str> = MARKERS.iter().map(|(m, _)| *m).collect();
    let Some(root) = super::root_with(dir, &names) else { return (Vec::new(), None) };
    let mut out: Vec<String> = Vec::new();
    for (marker, what) in MARKERS {
        let name = if *what == "node" {
            let pm = NODE_LOCKFILES.iter().find(|(f, _)| root.join(f).exists()).map_or("npm", |(_, pm)| pm);
            format!("node ({pm})")
        } else {
            what.to_string()
        };
        if root.join(marker).exists() && !out.contains(&name) {
            out.push(name);
        }
    }
    (out, Some(root))
}
