//! Risk policy: decides each step's reach and refuses arguments and values that could
//! smuggle more reach than the step shows.
//!
//! A step's reach is the maximum of what the frontend declared for the entry, what the
//! editor profile's tables say, the generic rules below, and the user's raise rules.
//! Nothing here can lower a reach; an item the profile does not know keeps its declared
//! reach, and an item whose frontend declared none is `shell` (see `catalog`).

pub mod budget;

use crate::catalog::Catalog;
use crate::entry::{Entry, Item, Setting, SettingValue};
use crate::item_id::TERM_RUN;
use crate::limits::{check_args_text, check_text, hidden_character, MAX_TEXT_BYTES};
use crate::profile::neovim::code_dirs;
use crate::profile::neovim::name_handlers::NameHandler;
use crate::profile::EditorRules;
use crate::profile::{CodeWrite, Profile};
use crate::reach::Reach;
use crate::refusal::Refusal;

/// The editor profile's narrowing of a catalog its frontend built, run by whoever builds
/// one from the frontend's entries (the Lua module, the `leash` program): under the Neovim
/// profile every number option gets the profile's range (a catalog may declare a narrower
/// one, never a wider one), so the catalog and the prompt carry the range the validator
/// checks. Other editors' catalogs are returned as they are.
pub fn narrow_catalog(catalog: Catalog) -> Catalog {
    match Profile::for_editor(catalog.editor()) {
        Ok(Profile::Neovim) => catalog.map_settings(crate::profile::neovim::values::narrow),
        _ => catalog,
    }
}

/// A user rule that raises the reach of every id or key it matches (read by
/// `config::parse_raise_rules`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaiseRule {
    /// An exact id or key, or a prefix ending in `*` (`user:Git*`, `script:*`).
    pub pattern: String,
    pub reach: Reach,
}

impl RaiseRule {
    fn matches(&self, name: &str) -> bool {
        match self.pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == self.pattern,
        }
    }
}

/// The policy a validator applies.
#[derive(Debug, Clone)]
pub struct Policy {
    profile: Profile,
    raise: Vec<RaiseRule>,
}

impl Policy {
    pub fn new(profile: Profile) -> Policy {
        Policy { profile, raise: Vec::new() }
    }

    /// Adds user rules; they can only raise.
    pub fn with_raise_rules(mut self, rules: Vec<RaiseRule>) -> Policy {
        self.raise.extend(rules);
        self
    }

    pub fn profile(&self) -> Profile {
        self.profile
    }

    fn raised(&self, name: &str, reach: Reach) -> Reach {
        self.raise.iter().filter(|r| r.matches(name)).map(|r| r.reach).fold(reach, Reach::max)
    }

    /// What this policy's editor adds to the generic rules.
    pub fn rules(&self) -> &'static dyn EditorRules {
        self.profile.rules()
    }

    /// Why an item is never offered, if it is one of those (the command modifiers,
    /// `:set`, `:execute`, `:normal`…).
    pub fn withheld(&self, id: &str) -> Option<&'static str> {
        self.rules().withheld(id)
    }

    /// The reach of running `item` with `args`, or why it must not run.
    pub fn item(&self, item: &Item, args: &[String]) -> Result<Reach, Refusal> {
        if let Some(why) = self.withheld(&item.id) {
            return Err(Refusal::Withheld { id: item.id.clone(), why });
        }
        check_args_text(args)?;
        // Only term:run's argument is a command line; whatever was declared, it is a shell.
        let declared = if item.id == TERM_RUN { Reach::Shell } else { item.reach };
        let reach = self.raised(&item.id, self.rules().item_reach(item, args, declared)?);
        self.rules().check_item_args(item, args, reach)?;
        Ok(reach)
    }

    /// Why a step running `item` at `reach` is marked, in a few words, when one rule
    /// decided that reach: the editor's table row for it, else one of the user's raise
    /// rules. `None` for an unmarked step, or when another rule raised it (that rule's
    /// note says why).
    pub fn item_mark_words(&self, item: &Item, reach: Reach) -> Option<String> {
        self.mark_words(&item.id, self.rules().item_words(item), reach)
    }

    /// Why a step setting `setting` at `reach` is marked, in a few words (see
    /// [`Policy::item_mark_words`]).
    pub fn setting_mark_words(&self, setting: &Setting, reach: Reach) -> Option<String> {
        self.mark_words(&setting.key, self.rules().setting_words(setting), reach)
    }

    fn mark_words(&self, name: &str, table: Option<(Reach, &'static str)>, reach: Reach) -> Option<String> {
        if !reach.needs_confirmation() {
            return None;
        }
        match table {
            Some((row, words)) if row == reach && !words.is_empty() => Some(words.to_string()),
            _ => self
                .raise
                .iter()
                .find(|r| r.reach == reach && r.matches(name))
                .map(|r| format!("your raise rule “{}” marks it", r.pattern)),
        }
    }

    /// The least reach a step naming `entry` has, before its arguments or value add to
    /// it: what a search result shows beside the entry (the validator decides each step's
    /// own reach, never less than this). An item whose reach cannot be known without its
    /// arguments is `shell`, as anything unknown is.
    pub fn least_reach(&self, entry: &Entry) -> Reach {
        match entry {
            Entry::Item(item) => {
                let declared = if item.id == TERM_RUN { Reach::Shell } else { item.reach };
                let reach = self.rules().item_reach(item, &[], declared).unwrap_or(Reach::Shell);
                self.raised(&item.id, reach)
            }
            Entry::Setting(setting) => {
                let declared = setting.reach.unwrap_or(Reach::Safe);
                self.raised(&setting.key, self.rules().least_setting_reach(setting, declared))
            }
        }
    }

    /// The reach of setting `setting` to `value` (already type-checked), or why not.
    pub fn setting(&self, setting: &Setting, value: &SettingValue) -> Result<Reach, Refusal> {
        if let SettingValue::String(s) = value {
            check_text("the value", s)?;
        }
        let reach = self.rules().setting_reach(setting, value, setting.reach.unwrap_or(Reach::Safe))?;
        Ok(self.raised(&setting.key, reach))
    }

    /// When a file argument of `item` is a name that an autocommand reads or writes in the
    /// editor's place (a `*.gz` that gzip.vim decompresses by running `gzip`), the step
    /// reaches what that handler reaches: `shell`, with the reason to show beside it. A
    /// command that runs a buffer's name as a command line (`:sign jump`) is `code`.
    pub fn claimed_name(&self, item: &Item, args: &[String], handlers: &[NameHandler]) -> Option<(Reach, String)> {
        self.rules().claimed_name(item, args, handlers)
    }

    /// A step that evaluates its text (reach `code` or more) and names a function that
    /// starts a program (`system()`, `jobstart()`…) or runs C code the process guard does
    /// not see (`libcall()`): `shell`, with the reason.
    pub fn foreign_code<'a>(&self, reach: Reach, texts: impl IntoIterator<Item = &'a str>) -> Option<(Reach, String)> {
        let texts: Vec<&str> = texts.into_iter().collect();
        self.rules().foreign_code(reach, &texts)
    }

    /// A step that writes a file inside a folder Neovim loads code from ('runtimepath',
    /// the config folder…) is `code`: the file can run at the next start. Checks the file
    /// a write command or `file:rename` names, and the folder a path option chooses.
    pub fn code_write(&self, code_dirs: &code_dirs::CodeDirs, action: CodeWrite<'_>) -> Option<(Reach, String)> {
        self.rules().code_write(code_dirs, action)
    }

    /// The reach a setting's value adds beyond the option's row, with the reason to show.
    pub fn setting_value(
        &self,
        setting: &Setting,
        value: &SettingValue,
        handlers: &[NameHandler],
    ) -> Option<(Reach, String)> {
        self.rules().setting_value(setting, value, handlers)
    }

    /// A terminal step is always `shell`; its command must be shown exactly as it runs.
    pub fn terminal(&self, command: &str) -> Result<Reach, Refusal> {
        let what = || "the terminal command".to_string();
        if command.trim().is_empty() {
            return Err(Refusal::EmptyCommand);
        }
        if command.len() > MAX_TEXT_BYTES {
            return Err(Refusal::TooLong { what: what(), max: MAX_TEXT_BYTES });
        }
        hidden_character(&what(), command, true)?;
        Ok(Reach::Shell)
    }
}
