//! The Neovim reach tables: `neovim-reach.json` (beside the profile), embedded at build
//! time, parsed once and checked for its invariants; a file that fails either makes every
//! look-up answer "unknown".

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::entry::SettingValue;
use crate::reach::Reach;

/// The tables, embedded so the profile cannot be swapped or lost at run time.
pub(super) const DATA: &str = include_str!("neovim-reach.json");

/// The parsed tables, or `None` if the embedded file is broken (then everything fails closed).
pub(super) fn tables() -> Option<&'static Tables> {
    static TABLES: OnceLock<Option<Tables>> = OnceLock::new();
    TABLES.get_or_init(|| load(DATA).ok()).as_ref()
}

pub(super) struct Tables {
    pub(super) options: HashMap<String, OptionRow>,
    pub(super) commands: HashMap<String, CommandRow>,
    pub(super) caps: HashMap<String, i64>,
    pub(super) default_cap: i64,
    pub(super) mins: HashMap<String, i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    #[allow(dead_code)] // documentation for people reading the file
    pub(super) about: String,
    pub(super) number_caps: HashMap<String, i64>,
    pub(super) number_min: HashMap<String, i64>,
    pub(super) options: HashMap<String, OptionRow>,
    pub(super) commands: HashMap<String, CommandRow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OptionRow {
    pub(super) class: OptionClass,
    #[serde(rename = "type")]
    pub(super) kind: OptionType,
    /// The reason in a few words, where its first clause does not read well beside a mark.
    #[serde(default)]
    pub(super) says: Option<String>,
    pub(super) reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CommandRow {
    /// The study's class once the arguments pass the filter.
    pub(super) class: CommandClass,
    /// The study's class when the model controls the arguments freely.
    pub(super) raw: CommandClass,
    /// What leash uses: the class, or higher (buffer-changing commands are `edit`).
    pub(super) reach: Reach,
    #[serde(deserialize_with = "parse_flags")]
    pub(super) flags: Flags,
    /// The reason in a few words, where its first clause does not read well beside a mark.
    #[serde(default)]
    pub(super) says: Option<String>,
    pub(super) reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum OptionClass {
    Code,
    Fs,
    Safe,
}

impl OptionClass {
    pub(super) fn reach(self) -> Reach {
        match self {
            OptionClass::Code => Reach::Code,
            OptionClass::Fs => Reach::Write,
            OptionClass::Safe => Reach::Safe,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum OptionType {
    Boolean,
    Number,
    String,
}

impl OptionType {
    pub(super) fn accepts(self, value: &SettingValue) -> bool {
        matches!(
            (self, value),
            (OptionType::Boolean, SettingValue::Boolean(_))
                | (OptionType::Number, SettingValue::Number(_))
                | (OptionType::String, SettingValue::String(_))
        )
    }

    pub(super) fn described(self) -> &'static str {
        match self {
            OptionType::Boolean => "true or false",
            OptionType::Number => "a number",
            OptionType::String => "text",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum CommandClass {
    Shell,
    Code,
    /// Runs other commands: as far-reaching as code.
    Meta,
    Write,
    Safe,
}

impl CommandClass {
    pub(super) fn reach(self) -> Reach {
        match self {
            CommandClass::Shell => Reach::Shell,
            CommandClass::Code | CommandClass::Meta => Reach::Code,
            CommandClass::Write => Reach::Write,
            CommandClass::Safe => Reach::Safe,
        }
    }
}

/// A row's reason in a few words, as the plan window shows it beside a marked step: the
/// row's `says`, else the reason's first clause (the study's notes after it, `(verified)`
/// and the like, are for people reading the tables).
pub(super) fn few_words<'a>(says: Option<&'a str>, reason: &'a str) -> &'a str {
    if let Some(says) = says {
        return says.trim();
    }
    let end = ["; ", " - ", " (", ": ", ", i.e."].iter().filter_map(|sep| reason.find(sep)).min();
    reason[..end.unwrap_or(reason.len())].trim()
}

/// The Ex parser facts that decide which argument rules apply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Flags {
    /// Arguments are file names that Neovim expands (`%`, `#`, wildcards, `$VAR`, `~`).
    pub(super) xfile: bool,
    /// `+cmd` is honoured.
    pub(super) cmdarg: bool,
    /// `++opt` is honoured.
    pub(super) argopt: bool,
    /// Backticks are shell-expanded even with `magic.file = false`.
    pub(super) backticks: bool,
    /// Opens a file into a buffer (so archive handlers can run).
    pub(super) loads_files: bool,
    /// The argument is a runtime-file name (`:colorscheme desert`).
    pub(super) name_arg: bool,
}

impl Flags {
    pub(super) const STRICTEST: Flags =
        Flags { xfile: true, cmdarg: true, argopt: true, backticks: true, loads_files: true, name_arg: false };
    /// The argument of a user command or a user entry: it may be a file name, which a
    /// plugin may hand to `:edit` (or split at white space, as `:args` does).
    pub(super) const FILE_NAMES: Flags =
        Flags { xfile: true, cmdarg: false, argopt: false, backticks: false, loads_files: true, name_arg: false };
}

pub(super) fn parse_flags<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Flags, D::Error> {
    let words = Vec::<String>::deserialize(d)?;
    let mut f = Flags::default();
    for w in &words {
        let slot = match w.as_str() {
            "xfile" => &mut f.xfile,
            "cmdarg" => &mut f.cmdarg,
            "argopt" => &mut f.argopt,
            "backticks" => &mut f.backticks,
            "loads_files" => &mut f.loads_files,
            "name_arg" => &mut f.name_arg,
            other => return Err(serde::de::Error::custom(format!("unknown command flag “{other}”"))),
        };
        *slot = true;
    }
    Ok(f)
}

/// Why the embedded Neovim tables were rejected (a build defect the tests catch).
#[derive(Debug, thiserror::Error)]
pub(super) enum TablesError {
    /// The file is not the tables' JSON.
    #[error("neovim tables: {0}")]
    Json(#[from] serde_json::Error),
    /// An option row without a reason.
    #[error("option {0} has no reason")]
    OptionReason(String),
    /// A command row without a reason.
    #[error("command {0} has no reason")]
    CommandReason(String),
    /// A command whose reach is below its class's.
    #[error("command {name} has reach {reach} below its class {class:?}")]
    BelowClass { name: String, reach: Reach, class: CommandClass },
    /// A command classed higher after the argument filter than before.
    #[error("command {0} is classed higher after the filter than before")]
    RaisedByFilter(String),
    /// An `edit` command whose class is not `safe`.
    #[error("command {name} is edit but its class is {class:?}")]
    EditNotSafe { name: String, class: CommandClass },
    /// `number_caps` without its `_default`.
    #[error("number_caps has no _default")]
    NoDefaultCap,
    /// A negative number cap.
    #[error("a number cap is negative")]
    NegativeCap,
    /// An option whose minimum is above its cap.
    #[error("option {key} has a minimum {min} above its cap {cap}")]
    MinAboveCap { key: String, min: i64, cap: i64 },
}

/// Parses and checks the tables; any broken row rejects the whole file.
pub(super) fn load(text: &str) -> Result<Tables, TablesError> {
    let file: File = serde_json::from_str(text)?;
    for (name, row) in &file.options {
        if row.reason.trim().is_empty() {
            return Err(TablesError::OptionReason(name.clone()));
        }
    }
    for (name, row) in &file.commands {
        if row.reason.trim().is_empty() {
            return Err(TablesError::CommandReason(name.clone()));
        }
        // The one rule: nothing may lower a reach below the study's class.
        if row.reach < row.class.reach() {
            return Err(TablesError::BelowClass { name: name.clone(), reach: row.reach, class: row.class });
        }
        if row.raw.reach() < row.class.reach() {
            return Err(TablesError::RaisedByFilter(name.clone()));
        }
        // `edit` is reserved for commands that change text and run nothing else.
        if row.reach == Reach::Edit && row.class != CommandClass::Safe {
            return Err(TablesError::EditNotSafe { name: name.clone(), class: row.class });
        }
    }
    let default_cap = *file.number_caps.get("_default").ok_or(TablesError::NoDefaultCap)?;
    if file.number_caps.values().any(|&cap| cap < 0) {
        return Err(TablesError::NegativeCap);
    }
    for (key, &min) in &file.number_min {
        let cap = file.number_caps.get(key).copied().unwrap_or(default_cap);
        if min > cap {
            return Err(TablesError::MinAboveCap { key: key.clone(), min, cap });
        }
    }
    Ok(Tables {
        options: file.options,
        commands: file.commands,
        caps: file.number_caps,
        default_cap,
        mins: file.number_min,
    })
}
