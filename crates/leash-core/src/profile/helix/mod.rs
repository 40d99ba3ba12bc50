//! Helix's reach tables: every typable command, static command and `[editor]` option of
//! Helix 25.07.1 (and what master added), classified from `helix-reach.json`, and the
//! argument rules of Helix's command line.
//!
//! Helix expands `%{…}`, `%sh{…}` and the other `%` forms in the arguments of *every*
//! typable command, and `%sh{…}` runs a shell command whatever the command is
//! (`:echo %sh{…}` exists for that). So any `%` in an argument makes the step `shell`.
//! `:set-option`/`:toggle-option` take the reach of the option they change (`shell` for
//! `shell`), and the commands that hand a command line to the shell (`:sh`, `:pipe`,
//! `:insert-output`…) are `shell`. Opening a document starts the language servers
//! configured for it, so `:open` and `:vsplit FILE` are `shell`; `:vsplit` alone only
//! splits the view. Writing runs the language's formatter unless `--no-format` is given.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::entry::{Item, Setting, SettingValue};
use crate::item_id::{ItemId, ItemKind};
use crate::profile::EditorRules;
use crate::reach::Reach;
pub use crate::refusal::SHELL_TAIL_PERCENT;
use crate::refusal::{HelixRule, Refusal};

/// The data's Helix release; entries marked `since: master` came after it.
pub const DATA_VERSION: &str = "25.07.1";

/// One typable command (`:name`).
#[derive(Debug, Clone, Deserialize)]
pub struct Typable {
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub title: String,
    /// `none`, `optional` or `required`.
    pub args: String,
    /// Fewest and most positional arguments (`None`: no limit).
    #[serde(default)]
    pub positionals: Option<(usize, Option<usize>)>,
    /// Flags as Helix lists them: `--no-format`, `--reverse|-r`.
    #[serde(default)]
    pub flags: Vec<String>,
    /// Arguments after this many are one raw command line (the shell commands).
    #[serde(default)]
    pub raw_after: Option<usize>,
    pub reach: Reach,
    #[serde(default)]
    pub reason: String,
    /// The reach with `--no-format` (the write family).
    #[serde(default)]
    pub safer_reach: Option<Reach>,
    pub since: String,
}

/// One `[editor]` option, keyed by its `:set-option` path.
#[derive(Debug, Clone, Deserialize)]
pub struct HelixOption {
    pub key: String,
    /// `boolean`, `number`, `string`, `list` or `table`.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub values: Option<Vec<serde_json::Value>>,
    #[serde(default)]
    pub default: serde_json::Value,
    pub title: String,
    pub reach: Reach,
    #[serde(default)]
    pub reason: String,
    /// Inclusive bounds of a number, when Helix has them.
    #[serde(default)]
    pub range: Option<(Option<i64>, Option<i64>)>,
    pub since: String,
}

/// One static command (keymap only).
#[derive(Debug, Clone, Deserialize)]
pub struct StaticCommand {
    pub name: String,
    pub title: String,
    #[serde(default)]
    pub keys: HashMap<String, Vec<String>>,
    pub reach: Reach,
    pub since: String,
}

/// The whole table.
#[derive(Debug, Deserialize)]
pub struct Data {
    pub helix_version: String,
    pub typable_commands: Vec<Typable>,
    pub options: Vec<HelixOption>,
    pub static_commands: Vec<StaticCommand>,
    #[serde(skip)]
    by_name: HashMap<String, usize>,
    #[serde(skip)]
    by_key: HashMap<String, usize>,
}

impl Data {
    /// The typable command with this name or alias.
    pub fn typable(&self, name: &str) -> Option<&Typable> {
        self.by_name.get(name).map(|&i| &self.typable_commands[i])
    }

    pub fn option(&self, key: &str) -> Option<&HelixOption> {
        self.by_key.get(key).map(|&i| &self.options[i])
    }
}

/// The table, parsed once.
pub fn data() -> &'static Data {
    static DATA: OnceLock<Data> = OnceLock::new();
    DATA.get_or_init(|| {
        // The file is part of the crate; a parse failure is a build defect that the
        // tests catch, and an empty table makes every command and option unknown
        // (`shell`), never weaker.
        let mut d: Data = serde_json::from_str(include_str!("helix-reach.json")).unwrap_or(Data {
            helix_version: DATA_VERSION.into(),
            typable_commands: Vec::new(),
            options: Vec::new(),
            static_commands: Vec::new(),
            by_name: HashMap::new(),
            by_key: HashMap::new(),
        });
        for (i, t) in d.typable_commands.iter().enumerate() {
            for n in std::iter::once(&t.name).chain(&t.aliases) {
                d.by_name.entry(n.clone()).or_insert(i);
            }
        }
        for (i, o) in d.options.iter().enumerate() {
            d.by_key.insert(o.key.clone(), i);
        }
        d
    })
}

/// Why a typable command is never offered, if it is one of those.
pub fn withheld(name: &str) -> Option<&'static str> {
    let canonical = data().typable(name).map_or(name, |t| t.name.as_str());
    match canonical {
        "set-option" | "toggle-option" => {
            Some("settings are setting steps (keys such as soft-wrap.enable), which leash writes to config.toml")
        }
        "config-reload" => Some("leash reloads the configuration itself after writing it"),
        _ => None,
    }
}

/// Whether an argument holds a Helix expansion (`%{…}`, `%sh{…}`, `%u{…}`…). Any `%`
/// counts: `%%` is an escape, but nothing a plan needs looks like it.
pub fn has_expansion(arg: &str) -> bool {
    arg.contains('%')
}

/// A file name the model gave for Helix to open or move to: one starting with `%` or
/// holding one reads as an expansion on Helix's command line (`%sh{…}` runs a program).
pub fn check_file_name(name: &str) -> Result<(), HelixRule> {
    if has_expansion(name) {
        return Err(HelixRule::FileNameExpansion { name: name.to_string() });
    }
    check_dash_name(name)
}

/// A file name with a part beginning with `-` ([`crate::paths::dash_part`]): the
/// language servers and tools that get the opened or written name read it as an option.
pub fn check_dash_name(name: &str) -> Result<(), HelixRule> {
    match crate::paths::dash_part(name) {
        Some(_) => Err(HelixRule::DashName { name: name.to_string() }),
        None => Ok(()),
    }
}

/// Typable commands whose positional arguments are file or folder names.
const FILE_COMMANDS: &[&str] = &[
    "open",
    "write",
    "write!",
    "write-buffer-close",
    "write-buffer-close!",
    "write-quit",
    "write-quit!",
    "exit",
    "exit!",
    "vsplit",
    "hsplit",
    "read",
    "move",
    "move!",
    "change-current-directory",
    "push-directory",
];

/// Typable commands that change the working directory: the configuration reload after
/// the plan then loads the new folder's `.helix/config.toml`, whose key bindings can run
/// programs. The directory stack (`push-directory`, `pop-directory`) changes it as
/// `change-current-directory` does.
pub const CHANGES_DIRECTORY: &[&str] = &["change-current-directory", "push-directory", "pop-directory"];

/// The reach of running `:name args` in Helix, or why it must not run.
pub fn command_reach(name: &str, args: &[String]) -> Result<Reach, HelixRule> {
    let Some(t) = data().typable(name) else { return Ok(Reach::Shell) };
    if t.raw_after.is_some() && args.iter().any(|a| has_expansion(a)) {
        return Err(HelixRule::ShellTailPercent { command: t.name.clone() });
    }
    if args.iter().any(|a| has_expansion(a)) {
        // Expanded before the command runs: `%sh{…}` starts a program whatever it is.
        return Ok(Reach::Shell);
    }
    let (flags, positionals) = split_flags(t, args)?;
    if FILE_COMMANDS.contains(&t.name.as_str()) {
        // `:cd -` goes back to the previous folder.
        for p in positionals.iter().filter(|p| !(t.name == "change-current-directory" && **p == "-")) {
            check_dash_name(p)?;
        }
    }
    if let Some((min, max)) = t.positionals {
        if t.raw_after.is_none() && (positionals.len() < min || max.is_some_and(|m| positionals.len() > m)) {
            return Err(HelixRule::ArgumentCount { command: t.name.clone(), min, max, got: positionals.len() });
        }
    }
    let reach = match t.name.as_str() {
        // Only the view is split; with paths, opening them starts language servers.
        "vsplit" | "hsplit" if positionals.is_empty() => Reach::Safe,
        // The configuration reload after the plan then loads the new folder's
        // `.helix/config.toml`, whose key bindings can run programs on the next key.
        name if CHANGES_DIRECTORY.contains(&name) => t.reach.max(Reach::Code),
        "set-option" | "toggle-option" => match positionals.first().and_then(|k| data().option(k)) {
            Some(o) => o.reach,
            None => Reach::Shell,
        },
        "theme" => {
            if let Some(n) = positionals.first() {
                check_theme_name(n)?;
            }
            t.reach
        }
        // Unsaved changes are lost for good (Neovim raises :cquit for the same reason), so
        // the plan is always shown, whatever `confirm_before_run` says.
        "quit!" | "quit-all!" | "cquit!" | "buffer-close!" | "buffer-close-others!" | "buffer-close-all!" => {
            t.reach.max(Reach::Write)
        }
        _ if flags.contains(&"--no-format") => t.safer_reach.unwrap_or(t.reach),
        _ => t.reach,
    };
    Ok(reach)
}

/// The arguments split into the command's flags and its positional arguments. An
/// argument that looks like a flag the command does not have is refused: Helix would
/// read it as one.
pub fn split_flags<'a>(t: &Typable, args: &'a [String]) -> Result<(Vec<&'a str>, Vec<&'a str>), HelixRule> {
    let mut flags = Vec::new();
    let mut positionals = Vec::new();
    let known = |a: &str| t.flags.iter().any(|f| f.split('|').any(|form| form == a));
    let mut only_positionals = t.raw_after.is_some();
    for a in args {
        if only_positionals {
            positionals.push(a.as_str());
        } else if a == "--" {
            only_positionals = true;
        } else if known(a) {
            flags.push(a.as_str());
        } else if a.starts_with('-') && !t.flags.is_empty() {
            return Err(HelixRule::UnknownFlag { flag: a.clone(), command: t.name.clone() });
        } else {
            positionals.push(a.as_str());
        }
    }
    Ok((flags, positionals))
}

/// Theme names are file names in Helix's theme folders, nothing more.
pub fn check_theme_name(name: &str) -> Result<(), HelixRule> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.starts_with('-');
    if ok {
        Ok(())
    } else {
        Err(HelixRule::NotAThemeName { name: name.to_string() })
    }
}

/// The reach of an option, by `:set-option` path; `None` when Helix has no such option.
pub fn option_reach(key: &str) -> Option<Reach> {
    data().option(key).map(|o| o.reach)
}

/// The list options a plan may set, each with whether its items are numbers. A plan
/// writes one as a comma list (`80,100`); config.toml gets the TOML array Helix reads
/// (`rulers = [80, 100]`). Other lists and tables (`shell`, `gutters` as a table) are not
/// offered.
const LIST_OPTIONS: &[(&str, bool)] = &[
    ("rulers", true),
    ("gutters.layout", false),
    ("statusline.left", false),
    ("statusline.center", false),
    ("statusline.right", false),
];

/// Whether `key` is a list option a plan may set.
pub fn is_list_option(key: &str) -> bool {
    LIST_OPTIONS.iter().any(|(k, _)| *k == key)
}

/// The array a list option's comma-list value stands for (`80,100` → `[80, 100]`; the
/// empty string is the empty list); `None` for any other option.
pub fn list_array(key: &str, value: &str) -> Option<serde_json::Value> {
    let &(_, numbers) = LIST_OPTIONS.iter().find(|(k, _)| *k == key)?;
    let items = value.split(',').filter(|i| !i.is_empty());
    let array = if numbers {
        // The validator let only numbers through; one that does not parse is dropped
        // rather than written as text Helix would refuse to load.
        items.filter_map(|i| i.parse::<u16>().ok()).map(serde_json::Value::from).collect()
    } else {
        items.map(serde_json::Value::from).collect()
    };
    Some(serde_json::Value::Array(array))
}

/// Checks a typed value against what Helix accepts for the option.
pub fn check_option_value(key: &str, value: &SettingValue) -> Result<(), HelixRule> {
    let Some(o) = data().option(key) else { return Ok(()) };
    match value {
        SettingValue::Number(n) => {
            if let Some((lo, hi)) = o.range {
                if lo.is_some_and(|lo| *n < lo) || hi.is_some_and(|hi| *n > hi) {
                    return Err(HelixRule::NumberOutOfRange { key: key.to_string(), lo, hi, got: *n });
                }
            }
        }
        SettingValue::String(s) if key == "rulers" => {
            // Helix reads each ruler as a u16: a larger one fails the whole config.toml.
            if let Some(bad) = s.split(',').find(|i| !i.is_empty() && !i.parse::<u16>().is_ok_and(|n| n > 0)) {
                return Err(HelixRule::Rulers { got: bad.to_string() });
            }
        }
        SettingValue::String(s) if key == "theme" => check_theme_name(s)?,
        SettingValue::String(s) if one_char(key) && s.chars().count() != 1 => {
            return Err(HelixRule::OneCharacter { key: key.to_string(), got: s.clone() });
        }
        SettingValue::String(s) if key == "jump-label-alphabet" => {
            let mut seen = std::collections::HashSet::new();
            if s.chars().count() < 2 {
                return Err(HelixRule::AlphabetTooShort { key: key.to_string(), got: s.clone() });
            }
            if let Some(c) = s.chars().find(|c| c.is_whitespace() || c.is_control()) {
                return Err(HelixRule::AlphabetUntypable { key: key.to_string(), c });
            }
            if let Some(c) = s.chars().find(|c| !seen.insert(*c)) {
                return Err(HelixRule::AlphabetRepeats { key: key.to_string(), c });
            }
        }
        _ => {}
    }
    Ok(())
}

/// Options Helix reads as one `char`: a longer string makes the whole config.toml fail
/// to load (and the next start loses leash's own key bindings with it).
fn one_char(key: &str) -> bool {
    key.starts_with("whitespace.characters.")
        || matches!(key, "indent-guides.character" | "default-yank-register" | "mouse-yank-register")
}

/// The reach of a static command; `None` when Helix has none of that name.
pub fn static_reach(name: &str) -> Option<Reach> {
    static_command(name).map(|s| s.reach)
}

/// The static command of this name.
pub fn static_command(name: &str) -> Option<&'static StaticCommand> {
    data().static_commands.iter().find(|s| s.name == name)
}

/// Helix's rules as [`EditorRules`]: the tables above; an option or command they do not
/// list could be anything (`shell`). Helix's table gives each option one reach, whatever
/// its value.
pub struct Rules;

impl EditorRules for Rules {
    fn withheld(&self, id: &str) -> Option<&'static str> {
        ItemKind::Command.name_in(id).and_then(withheld)
    }

    fn resolves_aliases(&self) -> bool {
        true
    }

    fn item_reach(&self, item: &Item, args: &[String], reach: Reach) -> Result<Reach, Refusal> {
        match ItemId::parse(&item.id) {
            Some(ItemId { kind: ItemKind::Command, name }) => Ok(reach.max(command_reach(name, args)?)),
            Some(ItemId { kind: ItemKind::Static, name }) => Ok(reach.max(static_reach(name).unwrap_or(Reach::Shell))),
            _ => Ok(reach),
        }
    }

    fn setting_reach(&self, setting: &Setting, value: &SettingValue, reach: Reach) -> Result<Reach, Refusal> {
        let reach = reach.max(option_reach(&setting.key).unwrap_or(Reach::Shell));
        check_option_value(&setting.key, value)?;
        Ok(reach)
    }

    fn least_setting_reach(&self, setting: &Setting, reach: Reach) -> Reach {
        reach.max(option_reach(&setting.key).unwrap_or(Reach::Shell))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_table_loads_and_covers_the_release() {
        let d = data();
        assert_eq!(d.helix_version, DATA_VERSION);
        let release = d.typable_commands.iter().filter(|t| t.since == DATA_VERSION).count();
        assert_eq!(release, 89, "typable commands of 25.07.1");
        assert_eq!(d.options.iter().filter(|o| o.since == DATA_VERSION).count(), 102);
        assert_eq!(d.static_commands.iter().filter(|s| s.since == DATA_VERSION).count(), 305);
        assert_eq!(d.typable("vs").unwrap().name, "vsplit");
        assert_eq!(d.typable("sh").unwrap().name, "run-shell-command");
    }

    #[test]
    fn expansions_anywhere_are_shell() {
        for a in ["%sh{rm -rf ~}", "x%sh{id}", "%{buffer_name}", "a%u{41}", "%(x)"] {
            assert_eq!(command_reach("echo", &args(&[a])), Ok(Reach::Shell), "{a}");
            assert_eq!(command_reach("vsplit", &args(&[a])), Ok(Reach::Shell), "{a}");
        }
        assert_eq!(command_reach("echo", &args(&["hello"])), Ok(Reach::Safe));
    }

    #[test]
    fn shell_commands_and_shell_options_are_shell() {
        for c in ["pipe", "run-shell-command", "sh", "insert-output", "append-output", "pipe-to", "!", "|"] {
            assert_eq!(command_reach(c, &args(&["ls"])), Ok(Reach::Shell), "{c}");
        }
        assert_eq!(command_reach("set-option", &args(&["shell", "[\"bash\",\"-c\"]"])), Ok(Reach::Shell));
        assert_eq!(command_reach("set", &args(&["clipboard-provider", "tmux"])), Ok(Reach::Shell));
        assert_eq!(command_reach("set-option", &args(&["soft-wrap.enable", "true"])), Ok(Reach::Safe));
        assert_eq!(command_reach("set-option", &args(&["no-such.key", "1"])), Ok(Reach::Shell));
        assert_eq!(command_reach("no-such-command", &[]), Ok(Reach::Shell));
        assert_eq!(option_reach("shell"), Some(Reach::Shell));
        assert_eq!(option_reach("line-number"), Some(Reach::Safe));
        assert_eq!(option_reach("auto-save.focus-lost"), Some(Reach::Write));
    }

    #[test]
    fn arguments_decide_between_reaches() {
        assert_eq!(command_reach("vsplit", &[]), Ok(Reach::Safe));
        assert_eq!(command_reach("vsplit", &args(&["notes.md"])), Ok(Reach::Shell), "opening a file starts LSP");
        assert_eq!(command_reach("write", &[]), Ok(Reach::Shell), "formatters run on write");
        assert_eq!(command_reach("write", &args(&["--no-format"])), Ok(Reach::Write));
        assert!(command_reach("write", &args(&["--force"])).unwrap_err().to_string().contains("not a flag"));
        // Helix reads `-odd.txt` after `--` as a name, but the formatter and language
        // servers it is handed to may not.
        assert!(matches!(command_reach("write", &args(&["--", "-odd.txt"])), Err(HelixRule::DashName { .. })));
        assert_eq!(command_reach("write", &args(&["--", "odd.txt"])), Ok(Reach::Shell));
        assert!(command_reach("theme", &args(&["../../etc/x"])).is_err());
        assert_eq!(command_reach("theme", &args(&["gruvbox"])), Ok(Reach::Safe));
        assert!(command_reach("goto", &[]).unwrap_err().to_string().contains("takes 1"));
        assert!(command_reach("new", &args(&["x"])).is_err());
    }

    #[test]
    fn discarding_unsaved_changes_is_always_shown() {
        for c in ["quit!", "q!", "quit-all!", "qa!", "cquit!", "buffer-close!", "bc!", "buffer-close-all!"] {
            assert!(command_reach(c, &[]).unwrap().needs_confirmation(), "{c}");
        }
        assert_eq!(command_reach("quit", &[]), Ok(Reach::Safe), "refuses when changes are unsaved");
    }

    #[test]
    fn static_commands_take_the_tables_reach() {
        use crate::entry::{Args, Item};
        use crate::policy::Policy;
        use crate::profile::Profile;
        let item = |id: &str| Item {
            id: id.into(),
            kind: "static".into(),
            title: String::new(),
            aliases: Vec::new(),
            args: Args::None,
            reach: Reach::Safe,
            range: false,
            description: String::new(),
            plugin: String::new(),
            loads: false,
        };
        let p = Policy::new(Profile::Helix);
        assert_eq!(p.item(&item("static:yank_to_clipboard"), &[]), Ok(Reach::Shell), "runs the clipboard program");
        assert_eq!(p.item(&item("static:toggle_comments"), &[]), Ok(Reach::Edit));
        assert_eq!(p.item(&item("static:no_such_command"), &[]), Ok(Reach::Shell));
        // A jump to where a language server points opens a document as `goto_file` does,
        // and opening one starts the servers of its language and root (a nested project's).
        for name in [
            "goto_file",
            "goto_definition",
            "goto_declaration",
            "goto_type_definition",
            "goto_implementation",
            "goto_reference",
        ] {
            assert_eq!(p.item(&item(&format!("static:{name}")), &[]), Ok(Reach::Shell), "{name}");
        }
    }

    #[test]
    fn settings_and_reloads_are_not_commands() {
        assert!(withheld("set-option").is_some());
        assert!(withheld("set").is_some());
        assert!(withheld("toggle").is_some());
        assert!(withheld("config-reload").is_some());
        assert!(withheld("vsplit").is_none());
    }

    #[test]
    fn option_values_within_helix_bounds() {
        assert!(check_option_value("scrolloff", &SettingValue::Number(-1)).is_err());
        assert!(check_option_value("scrolloff", &SettingValue::Number(8)).is_ok());
        assert!(check_option_value("theme", &SettingValue::String("a/../b".into())).is_err());
        assert!(check_option_value("default-yank-register", &SettingValue::String("ab".into())).is_err());
    }

    #[test]
    fn values_helix_would_reject_are_refused() {
        let text = |s: &str| SettingValue::String(s.into());
        for key in ["whitespace.characters.space", "whitespace.characters.tab", "indent-guides.character"] {
            let e = check_option_value(key, &text("..")).unwrap_err().to_string();
            assert!(e.contains("exactly one character"), "{e}");
            assert!(check_option_value(key, &text("")).is_err());
            assert!(check_option_value(key, &text("·")).is_ok(), "{key}: one char, two bytes");
        }
        assert!(check_option_value("jump-label-alphabet", &text("hjklh")).unwrap_err().to_string().contains("twice"));
        assert!(check_option_value("jump-label-alphabet", &text("a")).is_err());
        assert!(check_option_value("jump-label-alphabet", &text("ab c")).is_err());
        assert!(check_option_value("jump-label-alphabet", &text("hjklasdf")).is_ok());
        assert!(check_option_value("statusline.separator", &text("||")).is_ok(), "a string, not a char");
    }

    #[test]
    fn percent_in_a_shell_tail_or_a_file_name_is_refused() {
        let e = command_reach("sh", &args(&["echo 100%"])).unwrap_err().to_string();
        assert!(e.contains("expands %"), "{e}");
        assert!(command_reach("insert-output", &args(&["echo", "%sh{id}"])).is_err());
        assert!(check_file_name("%sh{touch x}").is_err());
        assert!(check_file_name("notes/a%b.md").is_err());
        assert!(check_file_name("notes/ab.md").is_ok());
    }

    #[test]
    fn a_file_name_with_a_part_beginning_with_a_dash_is_refused() {
        for name in ["./--output=x.md", "docs/--output=x.md", "-x"] {
            assert!(check_file_name(name).is_err(), "{name}");
            for c in ["open", "write", "vsplit", "move", "change-current-directory"] {
                let got = command_reach(c, &args(&[name]));
                // A leading `-` is also a flag the command does not have (`:write`).
                let dash = matches!(got, Err(HelixRule::DashName { .. }));
                assert!(dash || (name == "-x" && got.is_err()), "{c} {name}: {got:?}");
            }
        }
        assert!(command_reach("open", &args(&["notes-2024/a-b.md"])).is_ok());
        assert!(command_reach("change-current-directory", &args(&["-"])).is_ok(), "the previous folder");
        assert!(command_reach("echo", &args(&["./--not-a-file"])).is_ok(), "not a file argument");
    }

    #[test]
    fn a_directory_change_is_code() {
        assert_eq!(command_reach("change-current-directory", &args(&["sub"])), Ok(Reach::Code));
        assert_eq!(command_reach("cd", &args(&["sub"])), Ok(Reach::Code));
        // The directory stack changes folder too (Helix master): the same reload follows.
        assert_eq!(command_reach("push-directory", &args(&["sub"])), Ok(Reach::Code));
        assert_eq!(command_reach("pushd", &args(&["sub"])), Ok(Reach::Code));
        assert_eq!(command_reach("pop-directory", &args(&[])), Ok(Reach::Code));
        assert_eq!(command_reach("popd", &args(&[])), Ok(Reach::Code));
        // Every command that changes folder says so in the data, not only in code.
        for name in CHANGES_DIRECTORY {
            let t = data().typable(name).unwrap_or_else(|| panic!("{name} is in the data"));
            assert!(t.reach >= Reach::Code, "{name}: {:?}", t.reach);
        }
    }
}
