//! Makefile targets, with the comment just above each (or a `## help` suffix).

use super::{argv, item, lines, Extra, Project};
use crate::project::cache::FileCache;
use crate::project::SourceItem;

/// A target and its help text.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub name: String,
    pub help: Option<String>,
}

static MAKEFILES: FileCache<Vec<Target>> = FileCache::new();

pub fn items(p: &Project) -> Vec<SourceItem> {
    for file in ["GNUmakefile", "makefile", "Makefile"] {
        if let Some(targets) = MAKEFILES.read(&p.path(file), |t| Some(parse(t))) {
            let help = |t: &Target| t.help.as_ref().map(|h| format!(": {h}")).unwrap_or_default();
            return targets
                .iter()
                .map(|t| {
                    let description = format!("{file} target{}", help(t));
                    item(
                        "make",
                        &t.name,
                        argv(&["make", &t.name]),
                        p.root_text,
                        Extra { description, ..Extra::default() },
                    )
                })
                .collect();
        }
        // make reads only the first of these it finds.
    }
    Vec::new()
}

/// Targets in rule order. `a: b` is a rule; `a := b` and `a ::= b` are assignments,
/// pattern rules and names with variables are skipped, and so are special targets
/// (`.PHONY`).
pub fn parse(text: &str) -> Vec<Target> {
    let mut targets: Vec<Target> = Vec::new();
    let mut comment: Option<String> = None;
    for line in lines(text) {
        if line.starts_with('#') {
            comment = Some(line.trim_start_matches('#').trim_start().to_string());
        } else if line.starts_with(|c: char| !c.is_whitespace() && c != '#' && c != '=' && c != '.') {
            if let Some((lhs, rest)) = line.split_once(':') {
                let assignment = rest.starts_with('=') || rest.starts_with(":=");
                if !lhs.contains('=') && !assignment && !lhs.contains(['$', '%']) {
                    let help = rest.split_once("##").map(|(_, h)| h.trim().to_string());
                    for name in lhs.split_whitespace() {
                        if valid_name(name) && !targets.iter().any(|t| t.name == name) {
                            targets.push(Target {
                                name: name.to_string(),
                                help: help.clone().or_else(|| comment.clone()),
                            });
                        }
                    }
                }
            }
            comment = None;
        } else if !line.starts_with('\t') {
            comment = None;
        }
    }
    targets
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_not_assignments() {
        let t = parse(
            "CC := gcc\nVERSION = 1\n.PHONY: test build\n# Run the unit tests\ntest: build\n\t./run\nbuild: ## compile everything\n\tcc\n%.o: %.c\n\tcc\ninstall uninstall:\n\ttrue\nX ::= y\n$(BIN): x\n",
        );
        let names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["test", "build", "install", "uninstall"]);
        assert_eq!(t[0].help.as_deref(), Some("Run the unit tests"));
        assert_eq!(t[1].help.as_deref(), Some("compile everything"));
        assert_eq!(t[2].help, None);
    }
}
