//! Each editor's rules, one folder per editor: [`neovim`] and [`helix`] hold everything
//! that editor adds to the generic rules (reach tables, argument filters, value rules,
//! code folders, name handlers, step wording). This module holds the [`EditorRules`]
//! trait they implement (`neovim::rules`, `helix::Rules`) and the generic profile, which
//! adds nothing.
//!
//! [`Policy`](crate::policy::Policy) asks the profile of its editor at each point of a step's
//! check and never branches on the editor itself. Every answer can only raise a reach or
//! refuse a step: the user's raise rules and the generic rules stay in the policy.

pub mod helix;
pub mod neovim;

use crate::entry::{Item, Setting, SettingValue};
use crate::profile::neovim::code_dirs::CodeDirs;
use crate::profile::neovim::name_handlers::NameHandler;
use crate::reach::Reach;
use crate::refusal::Refusal;

/// Which editor's tables apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// No editor tables: declared reach and generic rules only.
    Generic,
    Neovim,
    Helix,
}

impl Profile {
    /// What this editor adds to the generic rules.
    pub fn rules(self) -> &'static dyn EditorRules {
        match self {
            Profile::Generic => &Generic,
            Profile::Neovim => &neovim::rules::Rules,
            Profile::Helix => &helix::Rules,
        }
    }

    /// The profile for a catalog's `editor` field or a `--profile` flag.
    pub fn for_editor(editor: &str) -> Result<Profile, UnknownProfile> {
        match editor {
            "neovim" | "nvim" => Ok(Profile::Neovim),
            "helix" | "hx" => Ok(Profile::Helix),
            "" | "generic" => Ok(Profile::Generic),
            other => Err(UnknownProfile(other.to_string())),
        }
    }
}

/// A catalog's `editor` field or a `--profile` flag that names no profile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown profile “{0}” (expected neovim, helix or generic)")]
pub struct UnknownProfile(pub String);

/// A step whose write target [`Policy::code_write`](crate::policy::Policy::code_write) checks.
pub enum CodeWrite<'a> {
    Item(&'a Item, &'a [String]),
    Setting(&'a Setting, &'a SettingValue),
}

/// The rules one editor adds. The defaults add nothing.
pub trait EditorRules: Sync {
    /// Why an item is never offered, if it is one of those.
    fn withheld(&self, _id: &str) -> Option<&'static str> {
        None
    }

    /// Whether a step may name a command by one of its aliases (Helix's `w`, `vs`).
    fn resolves_aliases(&self) -> bool {
        false
    }

    /// The reach of running `item` with `args`, `reach` being what was declared and the
    /// generic rules gave, or why it must not run.
    fn item_reach(&self, _item: &Item, _args: &[String], reach: Reach) -> Result<Reach, Refusal> {
        Ok(reach)
    }

    /// Refuses arguments that reach further than `reach`, the item's reach once the
    /// user's raise rules applied (a `safe` entry must not receive `term://sh`).
    fn check_item_args(&self, _item: &Item, _args: &[String], _reach: Reach) -> Result<(), Refusal> {
        Ok(())
    }

    /// The reach of setting `setting` to `value` (already type-checked), `reach` being
    /// what was declared, or why not.
    fn setting_reach(&self, _setting: &Setting, _value: &SettingValue, reach: Reach) -> Result<Reach, Refusal> {
        Ok(reach)
    }

    /// The reach of setting `setting` to any value, `reach` being what was declared: the
    /// option's own row, before a value adds to it.
    fn least_setting_reach(&self, _setting: &Setting, reach: Reach) -> Reach {
        reach
    }

    /// The reach a file argument adds when a handler reads or writes it in the editor's
    /// place, or when the item runs a buffer's name (not the plan's) as a command line,
    /// with the reason to show.
    fn claimed_name(&self, _item: &Item, _args: &[String], _handlers: &[NameHandler]) -> Option<(Reach, String)> {
        None
    }

    /// The reach that text evaluated by a step of `reach` adds (a call into C code the
    /// process guard does not see), with the reason.
    fn foreign_code(&self, _reach: Reach, _texts: &[&str]) -> Option<(Reach, String)> {
        None
    }

    /// The reach of writing where the editor loads code from, with the reason.
    fn code_write(&self, _code_dirs: &CodeDirs, _action: CodeWrite<'_>) -> Option<(Reach, String)> {
        None
    }

    /// The reach a setting's value adds beyond the option's row, with the reason.
    fn setting_value(
        &self,
        _setting: &Setting,
        _value: &SettingValue,
        _handlers: &[NameHandler],
    ) -> Option<(Reach, String)> {
        None
    }

    /// The reach the editor's own table gives `item` and why, in a few words, for the
    /// mark of a step whose reach that row decided.
    fn item_words(&self, _item: &Item) -> Option<(Reach, &'static str)> {
        None
    }

    /// The reach the editor's own table gives `setting` and why, in a few words.
    fn setting_words(&self, _setting: &Setting) -> Option<(Reach, &'static str)> {
        None
    }

    /// How long the editor waits, in milliseconds, when this item step runs.
    fn item_wait_ms(&self, _id: &str, _args: &[String]) -> u64 {
        0
    }

    /// How long one wait that this setting makes the editor do lasts, in milliseconds.
    fn setting_wait_ms(&self, _key: &str, _value: &SettingValue) -> Option<u64> {
        None
    }
}

/// No editor's tables: declared reach and the generic rules only.
pub struct Generic;

impl EditorRules for Generic {}

#[cfg(test)]
mod tests {
    use super::Profile;
    use crate::entry::{Args, Item, Setting, SettingValue, ValueType};
    use crate::reach::Reach;

    const REACHES: [Reach; 6] = [Reach::Safe, Reach::Edit, Reach::Write, Reach::Code, Reach::Plugin, Reach::Shell];

    fn item(id: &str) -> Item {
        Item {
            id: id.into(),
            kind: "command".into(),
            title: id.into(),
            aliases: Vec::new(),
            args: Args::Optional,
            reach: Reach::Safe,
            range: false,
            description: String::new(),
            plugin: String::new(),
            loads: false,
        }
    }

    #[test]
    fn no_profile_lowers_a_reach() {
        let ids =
            ["cmd:vsplit", "cmd:edit", "cmd:help", "cmd:Unknown", "static:move_char_left", "user:Git", "lsp:hover"];
        let settings = [("wrap", SettingValue::Boolean(true)), ("tabstop", SettingValue::Number(4))];
        for profile in [Profile::Generic, Profile::Neovim, Profile::Helix] {
            let rules = profile.rules();
            for id in ids {
                for reach in REACHES {
                    if let Ok(got) = rules.item_reach(&item(id), &[], reach) {
                        assert!(got >= reach, "{profile:?} {id}: {reach:?} became {got:?}");
                    }
                }
            }
            for (key, value) in &settings {
                let value_type = match value {
                    SettingValue::Boolean(_) => ValueType::Boolean,
                    _ => ValueType::Number,
                };
                let setting = Setting {
                    key: key.to_string(),
                    title: key.to_string(),
                    value_type,
                    values: None,
                    list: None,
                    min: None,
                    max: None,
                    scope: None,
                    aliases: Vec::new(),
                    reach: None,
                    description: String::new(),
                };
                for reach in REACHES {
                    if let Ok(got) = rules.setting_reach(&setting, value, reach) {
                        assert!(got >= reach, "{profile:?} {key}: {reach:?} became {got:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_generic_profile_adds_nothing() {
        let rules = Profile::Generic.rules();
        assert_eq!(rules.item_reach(&item("cmd:Unknown"), &[], Reach::Safe), Ok(Reach::Safe));
        assert_eq!(rules.withheld("cmd:normal"), None);
        assert!(!rules.resolves_aliases());
        assert_eq!(rules.item_wait_ms("cmd:sleep", &["9".into()]), 0);
        // Neovim's tables do know these.
        let neovim = Profile::Neovim.rules();
        assert_eq!(neovim.item_reach(&item("cmd:Unknown"), &[], Reach::Safe), Ok(Reach::Shell));
        assert!(neovim.withheld("cmd:normal").is_some());
        assert_eq!(neovim.item_wait_ms("cmd:sleep", &["2".into()]), 2000);
        assert!(Profile::Helix.rules().resolves_aliases());
    }
}
