//! Paths as a user writes them in a configuration (`~/` stands for the home directory),
//! and the parts of a file name a program would read as something else.

use std::path::PathBuf;

/// `~/x` → `$HOME/x`.
pub(crate) fn expand_home(path: &str) -> PathBuf {
    if let Some(rest) = path.strip_prefix("~/") {
        if let Some(home) = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")) {
            return PathBuf::from(home).join(rest);
        }
    }
    PathBuf::from(path)
}

/// The first part of a file name (split at `/` and `\`) that begins with `-`, if any.
///
/// A tool the user's setup hands a file name to (`git log <name>` without a `--` before it,
/// a formatter, a linter) reads such a part as an option: `./--output=notes.md` passes
/// for a name until a hook uses its last part. `./` in front does not help, so every
/// part counts, not just the first.
pub fn dash_part(name: &str) -> Option<&str> {
    name.split(['/', '\\']).find(|part| part.starts_with('-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_part_beginning_with_a_dash_is_found() {
        assert_eq!(dash_part("--output=x.md"), Some("--output=x.md"));
        assert_eq!(dash_part("./--output=x.md"), Some("--output=x.md"));
        assert_eq!(dash_part("docs/-rf/x"), Some("-rf"));
        assert_eq!(dash_part("a\\-x"), Some("-x"));
        assert_eq!(dash_part("-"), Some("-"));
        assert_eq!(dash_part("notes-2024/x-y.md"), None);
        assert_eq!(dash_part("src/main.rs"), None);
        assert_eq!(dash_part(""), None);
    }

    #[test]
    fn only_a_leading_tilde_slash_is_the_home_directory() {
        assert_eq!(expand_home("/etc/ca.pem"), PathBuf::from("/etc/ca.pem"));
        assert_eq!(expand_home("keys/x"), PathBuf::from("keys/x"));
        assert_eq!(expand_home("~user/x"), PathBuf::from("~user/x"));
        if let Some(home) = std::env::var_os("HOME") {
            assert_eq!(expand_home("~/k"), PathBuf::from(home).join("k"));
        }
    }
}
