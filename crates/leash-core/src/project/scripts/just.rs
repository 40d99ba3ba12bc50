//! justfile recipes: public ones only (no `_name`, no `[private]`), not settings,
//! aliases or assignments.

use super::{argv, item, lines, Extra, Project};
use crate::entry::Args;
use crate::project::cache::FileCache;
use crate::project::SourceItem;

/// A recipe, whether it takes parameters, and the comment above it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    pub name: String,
    pub params: bool,
    pub help: Option<String>,
}

static JUSTFILES: FileCache<Vec<Recipe>> = FileCache::new();

pub fn items(p: &Project) -> Vec<SourceItem> {
    for file in ["justfile", "Justfile", ".justfile"] {
        if let Some(recipes) = JUSTFILES.read(&p.path(file), |t| Some(parse(t))) {
            return recipes
                .iter()
                .map(|r| {
                    let help = r.help.as_ref().map(|h| format!(": {h}")).unwrap_or_default();
                    item(
                        "just",
                        &r.name,
                        argv(&["just", &r.name]),
                        p.root_text,
                        Extra {
                            args: Some(if r.params { Args::Optional } else { Args::None }),
                            description: format!("justfile recipe{help}"),
                            meaning: None,
                        },
                    )
                })
                .collect();
        }
    }
    Vec::new()
}

pub fn parse(text: &str) -> Vec<Recipe> {
    const RESERVED: &[&str] = &["set", "alias", "export", "import", "mod"];
    let mut recipes = Vec::new();
    let mut comment: Option<String> = None;
    let mut private = false;
    for line in lines(text) {
        if line.starts_with('#') {
            comment = Some(line.trim_start_matches('#').trim_start().to_string());
        } else if line.starts_with('[') {
            private |= line.contains("private");
        } else if line.starts_with(|c: char| c == '@' || c == '_' || c.is_ascii_alphabetic()) {
            if let Some((name, params)) = recipe_head(line) {
                if !private && !name.starts_with('_') && !RESERVED.contains(&name) {
                    recipes.push(Recipe {
                        name: name.to_string(),
                        params: !params.trim().is_empty(),
                        help: comment.clone(),
                    });
                }
            }
            comment = None;
            private = false;
        } else if !line.starts_with(char::is_whitespace) {
            comment = None;
            private = false;
        }
    }
    recipes
}

/// `name params: deps` → (name, params), or `None` for an assignment (`x := 1`) or a
/// line that is no recipe.
fn recipe_head(line: &str) -> Option<(&str, &str)> {
    let body = line.strip_prefix('@').unwrap_or(line);
    let end = body.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).unwrap_or(body.len());
    let name = &body[..end];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return None;
    }
    let after = &body[end..];
    let colon = after.find(':')?;
    let (params, rest) = (&after[..colon], &after[colon + 1..]);
    // `x := 1`, and a default value that holds `:=` (`a="b:=c"`), are not recipe heads.
    if rest.starts_with('=') || params.contains(":=") && params.contains('=') {
        return None;
    }
    let assignment = line.split_once(":=").is_some_and(|(lhs, _)| {
        let lhs = lhs.trim_end();
        !lhs.is_empty() && lhs.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    (!assignment).then_some((name, params))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_not_settings_or_private_ones() {
        let r = parse(
            "set shell := [\"bash\", \"-c\"]\nversion := \"1\"\n# run tests\ntest:\n    cargo test\n_hidden:\n    true\n[private]\nsecret:\n    true\nserve port=\"8080\":\n    echo {{port}}\n@quiet:\n  true\nalias t := test\n",
        );
        let names: Vec<&str> = r.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["test", "serve", "quiet"]);
        assert_eq!(r[0].help.as_deref(), Some("run tests"));
        assert!(!r[0].params && r[1].params);
    }
}
