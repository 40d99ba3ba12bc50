//! package.json scripts, run with the package manager the lockfile names.

use serde_json::Value;

use super::{argv, item, Extra, Project};
use crate::entry::Args;
use crate::project::cache::FileCache;
use crate::project::SourceItem;

static PACKAGE_JSON: FileCache<Value> = FileCache::new();

/// Lockfile → package manager, first match wins.
const LOCKFILES: &[(&str, &str)] = &[
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("package-lock.json", "npm"),
    ("npm-shrinkwrap.json", "npm"),
];

/// npm's own events that `pre`/`post` scripts hook into.
const LIFECYCLE: &[&str] = &["install", "uninstall", "publish", "pack", "version", "shrinkwrap", "prepare"];

pub fn items(p: &Project) -> Vec<SourceItem> {
    let Some(pkg) = PACKAGE_JSON.read(&p.path("package.json"), |t| serde_json::from_str(t).ok()) else {
        return Vec::new();
    };
    let Some(scripts) = pkg.get("scripts").and_then(Value::as_object) else { return Vec::new() };
    let pm = manager(p, &pkg);
    let mut names: Vec<&String> = scripts.keys().collect();
    names.sort();
    let is_hook = |name: &str| {
        ["pre", "post"].iter().any(|prefix| {
            name.strip_prefix(prefix).is_some_and(|rest| scripts.contains_key(rest) || LIFECYCLE.contains(&rest))
        })
    };
    names
        .into_iter()
        .filter(|name| !is_hook(name))
        .filter_map(|name| {
            let body = scripts.get(name)?.as_str()?;
            // `npm run x` works for every manager and never collides with a builtin
            // subcommand (`pnpm test` would, for some names).
            Some(item(
                pm,
                name,
                argv(&[pm, "run", name]),
                p.root_text,
                Extra {
                    args: Some(Args::Optional),
                    description: format!("package.json script {name:?}: {body}"),
                    meaning: None,
                },
            ))
        })
        .collect()
}

fn manager(p: &Project, pkg: &Value) -> &'static str {
    if let Some((_, pm)) = LOCKFILES.iter().find(|(file, _)| p.exists(file)) {
        return pm;
    }
    let declared = pkg.get("packageManager").and_then(Value::as_str).and_then(|s| s.split_once('@')).map(|(n, _)| n);
    match declared {
        Some("pnpm") => "pnpm",
        Some("yarn") => "yarn",
        Some("bun") => "bun",
        _ => "npm",
    }
}
