//! The project's own scripts, id `script:<runner>:<name>`: one module per runner.
//!
//! Runners: package.json scripts ([`node`]), Makefile targets ([`make`]), justfile
//! recipes ([`just`]), Cargo ([`cargo`]), Python: pytest, tox, nox and
//! `[project.scripts]` ([`python`]), Go ([`go`]) and `.vscode/tasks.json` ([`vscode`]).
//!
//! Parsing reads files only and errs on the side of offering fewer items. Every item runs
//! a program, so every item is `shell`; it carries the argv it runs (`cmd`) and the
//! directory it runs in (`cwd`), and its title is that command line, so the plan shows
//! exactly what will run.

pub mod cargo;
pub mod go;
pub mod just;
pub mod make;
pub mod node;
pub mod python;
pub mod vscode;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::SourceItem;
use crate::entry::Args;
use crate::item_id::{ItemId, ItemKind};
use crate::reach::Reach;

/// Files whose folder is a project root.
pub const MARKERS: &[&str] = &[
    "package.json",
    "Cargo.toml",
    "pyproject.toml",
    "go.mod",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "justfile",
    "Justfile",
    ".justfile",
    "tox.ini",
    "noxfile.py",
    ".vscode",
];

/// The project root: the nearest folder at or above `dir` holding a script file.
pub fn root(dir: &Path) -> Option<PathBuf> {
    super::root_with(dir, MARKERS)
}

/// Script items for the project around `dir`.
pub fn entries(dir: &Path) -> Vec<SourceItem> {
    let Some(root) = root(dir) else { return Vec::new() };
    // The argv runs in this folder: a path that is not text cannot be handed on intact.
    let Some(root_text) = root.to_str() else { return Vec::new() };
    let project = Project { root: &root, root_text };
    let runners: [fn(&Project) -> Vec<SourceItem>; 7] =
        [node::items, make::items, just::items, cargo::items, python::items, go::items, vscode::items];
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for runner in runners {
        for mut item in runner(&project) {
            if seen.insert(item.id.clone()) {
                item.root = Some(root_text.to_string());
                out.push(item);
            }
        }
    }
    out
}

/// The files, relative to a project root, that the runners read when a script starts
/// (`npm run x` reads package.json, `make x` the Makefile): the root markers, with the
/// task file for `.vscode`. A frontend pins them when it lists the scripts and refuses
/// to run one whose files changed after the plan was shown.
pub fn definition_files() -> Vec<String> {
    MARKERS.iter().map(|m| if *m == ".vscode" { ".vscode/tasks.json".to_string() } else { m.to_string() }).collect()
}

/// The project a runner looks at.
pub struct Project<'a> {
    pub root: &'a Path,
    pub root_text: &'a str,
}

impl Project<'_> {
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    pub fn is_dir(&self, rel: &str) -> bool {
        self.path(rel).is_dir()
    }
}

/// What goes into an item beyond its runner, name and argv.
#[derive(Default)]
pub struct Extra<'a> {
    pub args: Option<Args>,
    pub description: String,
    /// The conventional name whose meaning applies (`test` for `test-core`).
    pub meaning: Option<&'a str>,
}

/// One script item. `name` is the script's own name, `argv` what runs, in `cwd`.
pub fn item(runner: &str, name: &str, argv: Vec<String>, cwd: &str, extra: Extra<'_>) -> SourceItem {
    let lower = extra.meaning.map(str::to_string).unwrap_or_else(|| name.to_lowercase());
    let meaning = meanings(&lower);
    let mut description = extra.description;
    if !meaning.is_empty() {
        if !description.is_empty() {
            description.push_str(". ");
        }
        description.push_str("Meaning: ");
        description.push_str(&meaning.join(", "));
    }
    SourceItem {
        id: ItemId::new(ItemKind::Script, &format!("{runner}:{}", id_part(name))).to_string(),
        kind: "script",
        title: argv.join(" "),
        aliases: meaning.iter().map(|s| s.to_string()).collect(),
        args: extra.args.unwrap_or(Args::None),
        // Runs a program; see the module header.
        reach: Reach::Shell,
        description: trim(&description),
        cmd: Some(argv),
        cwd: Some(cwd.to_string()),
        root: None,
    }
}

/// An argv from string slices.
pub fn argv(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

/// What a conventional script name means, in the words people use to ask for it: a
/// title such as "pnpm run test" alone would not match "run the tests" well.
fn meanings(name: &str) -> &'static [&'static str] {
    match name {
        "test" => &["run the tests", "test suite", "unit tests"],
        "tests" => &["run the tests", "test suite"],
        "spec" => &["run the tests", "specs"],
        "check" => &["check the code", "type check"],
        "build" => &["build the project", "compile"],
        "compile" => &["compile", "build the project"],
        "run" => &["run the program", "start the app"],
        "start" => &["start the app", "run the program"],
        "dev" => &["start the dev server", "development mode"],
        "serve" => &["start the server", "serve"],
        "lint" | "clippy" => &["lint the code", "linter"],
        "fmt" | "format" => &["format the code", "formatter"],
        "clean" => &["clean build artifacts"],
        "bench" => &["run the benchmarks"],
        "doc" | "docs" => &["build the documentation"],
        "install" => &["install dependencies"],
        "deploy" => &["deploy"],
        "typecheck" => &["type check"],
        "e2e" => &["run the end-to-end tests"],
        _ => &[],
    }
}

/// Ids keep names readable but drop characters that would make them ambiguous to type.
fn id_part(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || "_.:@/+-".contains(c) { c } else { '-' }).collect()
}

/// White space collapsed, at most 300 bytes.
fn trim(s: &str) -> String {
    let mut s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.len() > 300 {
        let mut end = 297;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push_str("...");
    }
    s
}

/// Lines without their line ending (`\n` or `\r\n`).
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l))
}

/// The entries of `pattern` under `base`, where `pattern` is a relative path whose
/// components may hold `*` wildcards (`crates/*`); sorted, hidden entries skipped unless
/// the pattern asks for them.
pub(crate) fn glob(base: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut found = vec![base.to_path_buf()];
    for part in pattern.split('/').filter(|p| !p.is_empty() && *p != ".") {
        let mut next = Vec::new();
        for dir in &found {
            if !part.contains('*') {
                let p = dir.join(part);
                if p.exists() {
                    next.push(p);
                }
                continue;
            }
            let Ok(read) = std::fs::read_dir(dir) else { continue };
            let mut names: Vec<String> = read.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
            names.sort();
            for name in names {
                if (part.starts_with('.') || !name.starts_with('.')) && wildcard(part, &name) {
                    next.push(dir.join(name));
                }
            }
        }
        found = next;
    }
    found
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters.
fn wildcard(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == name;
    }
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_like_a_shell() {
        assert!(wildcard("*", "core"));
        assert!(wildcard("crate-*", "crate-a"));
        assert!(wildcard("*-cli", "demo-cli"));
        assert!(wildcard("a*b*c", "aXbYc"));
        assert!(!wildcard("a*b*c", "aXc"));
        assert!(!wildcard("crate-*", "core"));
        assert!(wildcard("exact", "exact") && !wildcard("exact", "exact2"));
    }

    #[test]
    fn ids_and_descriptions_are_tidy() {
        assert_eq!(id_part("lint all"), "lint-all");
        assert_eq!(id_part("test:unit@v2/x+y"), "test:unit@v2/x+y");
        assert_eq!(trim("  a \n b  "), "a b");
        let long = "é".repeat(200);
        assert!(trim(&long).ends_with("...") && trim(&long).len() <= 300);
    }
}
