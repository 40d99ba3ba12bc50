//! The Neovim reach tables: `neovim-reach.json` (beside the profile), embedded at build
//! time, parsed once and checked for its invariants; a file that fails either makes every
//! look-up answer "unknown".

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::catalog::SettingValue;
use crate::reach::Reach;

/// The tables, embedded so the profile cannot be swapped or lost at run time.
pub(super) const DATA: &str = include_str!("../neovim-reach.json");

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

/// Parses and checks the tables; any broken row rejects the whole file.
pub(super) fn load(text: &str) -> Result<Tables, String> {
    let file: File = serde_json::from_str(text).map_err(|e| format!("neovim tables: {e}"))?;
    for (name, row) in &file.options {
        if row.reason.trim().is_empty() {
            return Err(format!("option {name} has no reason"));
        }
    }
    for (name, row) in &file.commands {
        if row.reason.trim().is_empty() {
            return Err(format!("command {name} has no reason"));
        }
        // The one rule: nothing may lower a reach below the study's class.
        if row.reach < row.class.reach() {
            return Err(format!("command {name} has reach {} below its class {:?}", row.reach, row.class));
        }
        if row.raw.reach() < row.class.reach() {
            return Err(format!("command {name} is classed higher after the filter than before"));
        }
        // `edit` is reserved for commands that change text and run nothing else.
        if row.reach == Reach::Edit && row.class != CommandClass::Safe {
            return Err(format!("command {name} is edit but its class is {:?}", row.class));
        }
    }
    let default_cap = *file.number_caps.get("_default").ok_or("number_caps has no _default")?;
    if file.number_caps.values().any(|&cap| cap < 0) {
        return Err("a number cap is negative".into());
    }
    for (key, &min) in &file.number_min {
        let cap = file.number_caps.get(key).copied().unwrap_or(default_cap);
        if min > cap {
            return Err(format!("option {key} has a minimum {min} above its cap {cap}"));
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
