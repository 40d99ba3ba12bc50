//! Reach: how far a step can reach, from harmless (`safe`) to running a program
//! (`shell`), ordered so that the reach of a step is the maximum of every opinion about
//! it (the catalog's, the policy's, a note's). The word each reach has in JSON and in
//! messages is written here once.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a step can reach, from harmless to a shell. Ordered: the reach of a step is the
/// maximum of every opinion about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reach {
    /// View, navigation, reversible editor state.
    Safe,
    /// Changes buffer text; undoable.
    Edit,
    /// Writes, moves or deletes files.
    Write,
    /// Evaluates Vimscript/Lua, defines mappings, loads code, or sets an option that names
    /// a program, an expression or a function.
    Code,
    /// Runs code of the user's config or a plugin whose effect leash cannot see (a
    /// mapping's callback, a plugin's user command): shown as `[plugin]` with the
    /// plugin's name, confirmed and run like `shell`.
    Plugin,
    /// Runs a program.
    Shell,
}

impl Reach {
    /// All reaches, weakest first.
    pub const ALL: [Reach; 6] = [Reach::Safe, Reach::Edit, Reach::Write, Reach::Code, Reach::Plugin, Reach::Shell];

    /// The word used in JSON and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Reach::Safe => "safe",
            Reach::Edit => "edit",
            Reach::Write => "write",
            Reach::Code => "code",
            Reach::Plugin => "plugin",
            Reach::Shell => "shell",
        }
    }

    /// Parses the JSON word; `None` for anything else.
    pub fn parse(s: &str) -> Option<Reach> {
        Reach::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether a plan holding a step of this reach must always be confirmed.
    pub fn needs_confirmation(self) -> bool {
        self >= Reach::Write
    }
}

impl fmt::Display for Reach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_is_ordered_and_confirmation_starts_at_write() {
        assert!(Reach::Safe < Reach::Edit && Reach::Edit < Reach::Write);
        assert!(Reach::Write < Reach::Code && Reach::Code < Reach::Shell);
        assert!(!Reach::Edit.needs_confirmation());
        assert!(Reach::Write.needs_confirmation());
    }

    #[test]
    fn plugin_reach_sits_between_code_and_shell() {
        assert!(Reach::Code < Reach::Plugin && Reach::Plugin < Reach::Shell);
        assert_eq!(Reach::Plugin.max(Reach::Shell), Reach::Shell);
        assert_eq!(Reach::Plugin.max(Reach::Code), Reach::Plugin);
        assert!(Reach::Plugin.needs_confirmation());
        assert_eq!(Reach::parse("plugin"), Some(Reach::Plugin));
        assert_eq!(serde_json::to_value(Reach::Plugin).unwrap(), serde_json::json!("plugin"));
    }

    #[test]
    fn every_reach_reads_back_its_own_word() {
        for r in Reach::ALL {
            assert_eq!(Reach::parse(r.as_str()), Some(r));
            assert_eq!(r.to_string(), r.as_str());
        }
        assert_eq!(Reach::parse("harmless"), None);
    }
}
