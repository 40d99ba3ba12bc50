//! Python: pytest when the project is set up for it, `[project.scripts]` entry points,
//! tox environments and nox sessions, each run inside the project's environment (uv,
//! poetry or pdm, by lockfile). No interpreter is started to find them.

use serde_json::Value;

use super::{item, lines, Extra, Project};
use crate::entry::Args;
use crate::project::cache::FileCache;
use crate::project::SourceItem;

static PYPROJECT: FileCache<Value> = FileCache::new();
static TOX_ENVS: FileCache<Vec<String>> = FileCache::new();
static NOX_SESSIONS: FileCache<Vec<String>> = FileCache::new();
static TEXT: FileCache<String> = FileCache::new();

pub fn items(p: &Project) -> Vec<SourceItem> {
    let doc = PYPROJECT.read(&p.path("pyproject.toml"), |t| crate::toml_json::parse(t).ok());
    let prefix: &[&str] = if p.exists("uv.lock") {
        &["uv", "run"]
    } else if p.exists("poetry.lock") {
        &["poetry", "run"]
    } else if p.exists("pdm.lock") {
        &["pdm", "run"]
    } else {
        &[]
    };
    let argv = |tail: &[&str]| prefix.iter().chain(tail).map(|s| s.to_string()).collect::<Vec<_>>();
    let add = |runner: &str, name: &str, argv: Vec<String>, args: Args, description: String, meaning: Option<&str>| {
        item(runner, name, argv, p.root_text, Extra { args: Some(args), description, meaning })
    };
    let mut out = Vec::new();
    if pytest_configured(p, doc.as_deref()) {
        out.push(add(
            "python",
            "pytest",
            argv(&["pytest"]),
            Args::Optional,
            "Runs the Python tests with pytest".into(),
            Some("test"),
        ));
    }
    if let Some(scripts) = doc.as_deref().and_then(|d| d.pointer("/project/scripts")).and_then(Value::as_object) {
        let mut names: Vec<&String> = scripts.keys().collect();
        names.sort();
        for name in names {
            let ok = name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)) && !name.is_empty();
            if let (true, Some(target)) = (ok, scripts[name].as_str()) {
                let description = format!("[project.scripts] entry point {name} = {target}");
                out.push(add("python", name, argv(&[name]), Args::Optional, description, None));
            }
        }
    }
    if let Some(envs) = TOX_ENVS.read(&p.path("tox.ini"), |t| Some(parse_tox(t))) {
        out.push(add("tox", "all", argv(&["tox"]), Args::None, "Runs every tox environment".into(), Some("test")));
        for env in envs.iter() {
            out.push(add("tox", env, argv(&["tox", "-e", env]), Args::None, format!("tox environment {env}"), None));
        }
    }
    if let Some(sessions) = NOX_SESSIONS.read(&p.path("noxfile.py"), |t| Some(parse_nox(t))) {
        for s in sessions.iter() {
            out.push(add("nox", s, argv(&["nox", "-s", s]), Args::None, format!("nox session {s}"), None));
        }
    }
    out
}

fn pytest_configured(p: &Project, doc: Option<&Value>) -> bool {
    let tool = doc.and_then(|d| d.pointer("/tool/pytest"));
    if tool.is_some() || p.exists("pytest.ini") || p.exists("conftest.py") {
        return true;
    }
    if (p.is_dir("tests") || p.is_dir("test")) && (doc.is_some() || p.exists("setup.py")) {
        return true;
    }
    let text = |rel: &str| TEXT.read(&p.path(rel), |t| Some(t.to_string()));
    text("setup.cfg").is_some_and(|t| t.contains("[tool:pytest]"))
        || text("tox.ini").is_some_and(|t| t.contains("[pytest]"))
}

fn env_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// The `envlist` (a one-line, comma-separated list; factor expressions are skipped) and
/// every `[testenv:name]` section.
pub fn parse_tox(text: &str) -> Vec<String> {
    let mut envs: Vec<String> = Vec::new();
    let mut add = |e: &str| {
        let e = e.trim();
        if env_name(e) && !envs.iter().any(|x| x == e) {
            envs.push(e.to_string());
        }
    };
    let list = lines(text).find_map(|l| {
        let (key, value) = l.split_once('=')?;
        (key.trim() == "envlist").then_some(value)
    });
    if let Some(list) = list.filter(|l| !l.contains('{')) {
        for e in list.split(|c: char| c == ',' || c.is_whitespace()) {
            add(e);
        }
    }
    let mut rest = text;
    while let Some(i) = rest.find("[testenv:") {
        rest = &rest[i + "[testenv:".len()..];
        if let Some(end) = rest.find(']') {
            add(&rest[..end]);
        }
    }
    envs
}

/// Functions decorated with `@nox.session`.
pub fn parse_nox(text: &str) -> Vec<String> {
    let all: Vec<&str> = lines(text).collect();
    let mut sessions = Vec::new();
    for (i, line) in all.iter().enumerate() {
        if !line.trim_start().starts_with("@nox.session") {
            continue;
        }
        let Some(next) = all.get(i + 1) else { continue };
        let Some(def) = next.trim_start().strip_prefix("def") else { continue };
        if !def.starts_with(char::is_whitespace) {
            continue;
        }
        let name: String = def.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            sessions.push(name);
        }
    }
    sessions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tox_and_nox() {
        assert_eq!(
            parse_tox("[tox]\nenvlist = py311, lint\n\n[testenv:docs]\ncommands = x\n"),
            ["py311", "lint", "docs"]
        );
        assert_eq!(parse_tox("[tox]\nenvlist = py{310,311}\n[testenv:a]\n"), ["a"]);
        assert_eq!(
            parse_nox("import nox\n\n@nox.session(python=[\"3.11\"])\ndef tests(session):\n    pass\n\n@nox.session\ndef lint(s):\n  pass\n"),
            ["tests", "lint"]
        );
    }
}
