//! Paths as a user writes them in a configuration: `~/` stands for the home directory.

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

#[cfg(test)]
mod tests {
    use super::*;

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
