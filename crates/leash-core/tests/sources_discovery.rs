//! The editor-agnostic sources (src/sources/) read files and start no program.
//!
//! This file is its own test process: it points PATH at programs that record being run.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use leash_core::project::{self, Editor, Options};

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("leash-sources-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn discovery_reads_files_and_starts_no_program() {
    let bin = tempdir("bin");
    let marker = bin.join("ran");
    for prog in
        ["make", "cargo", "git", "just", "npm", "pnpm", "python", "python3", "go", "uv", "tox", "nox", "sh", "node"]
    {
        let p = bin.join(prog);
        std::fs::write(&p, format!("#!/bin/sh\necho {prog} >> '{}'\n", marker.display())).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let proj = tempdir("proj");
    write(&proj, "Makefile", "build:\n\tcc x.c\n");
    write(&proj, "package.json", r#"{"scripts": {"test": "vitest", "pretest": "x"}}"#);
    write(&proj, "pnpm-lock.yaml", "");
    write(&proj, "Cargo.toml", "[package]\nname = \"demo\"\n");
    write(&proj, "src/main.rs", "fn main() {}");
    write(&proj, "pyproject.toml", "[project]\nname = \"x\"\n[project.scripts]\ncli = \"x:main\"\n");
    write(&proj, "tests/test_x.py", "");
    write(&proj, "go.mod", "module x\n");
    write(&proj, "justfile", "check:\n  true\n");
    write(&proj, ".vscode/tasks.json", r#"{"tasks": [{"label": "lint", "type": "shell", "command": "eslint ."}]}"#);
    write(&proj, ".git/HEAD", "ref: refs/heads/main\n");
    std::env::set_var("PATH", &bin);

    let found =
        project::discover(&Options { cwd: proj.clone(), file: Some(proj.join("src/main.rs")), editor: Editor::Helix });
    assert!(!marker.exists(), "discovery started {}", std::fs::read_to_string(&marker).unwrap_or_default());
    let ids: Vec<&str> = found.all().map(|i| i.id.as_str()).collect();
    for id in [
        "script:make:build",
        "script:pnpm:test",
        "script:cargo:test",
        "script:cargo:run-demo",
        "script:python:pytest",
        "script:python:cli",
        "script:go:test",
        "script:just:check",
        "script:vscode:lint",
        "git:status",
        "git:diff_file",
        "file:rename",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    assert!(!ids.contains(&"script:pnpm:pretest"), "a hook of another script is not an item");
    assert!(!ids.contains(&"file:copy_path"), "Helix has no copy_path");
    assert!(found.all().all(|i| i.kind != "script" || i.reach == leash_core::reach::Reach::Shell));
    let pnpm = found.scripts.iter().find(|i| i.id == "script:pnpm:test").unwrap();
    assert_eq!(pnpm.cmd.as_deref().unwrap(), ["pnpm", "run", "test"]);
    assert_eq!(pnpm.cwd.as_deref(), proj.to_str());

    let _ = std::fs::remove_dir_all(&bin);
    let _ = std::fs::remove_dir_all(&proj);
}
