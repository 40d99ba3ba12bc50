//! The Neovim profile: how far every builtin Neovim option and Ex command reaches, and
//! which arguments and values would let a step reach further than its row says.
//!
//! The rows live in `neovim-reach.json` beside this file (one row per option and per
//! command, each with its class from the Neovim reach study, doc/reach.md, and the
//! reason), embedded at build time and parsed once. A file that fails to parse or breaks an invariant (a reach
//! lower than its class, an empty reason) makes every look-up answer "unknown" and every
//! check refuse, so a broken table can only make leash stricter.
//!
//! Commands are classed by what they can do *after* the argument filter in
//! [`check_command_args`] (the recipe of doc/reach.md, section 4.3): `:edit` is `safe` only
//! because `+cmd`, `term://`, backticks, `|` and expansion characters are refused before
//! it runs; a name that an autocommand reads or writes in Neovim's place (`*.gz`, `*.zip`)
//! raises the step instead (see `names`).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::MAX_TEXT_BYTES;
use crate::catalog::{Reach, SettingValue};
use crate::refusal::{Hazard, Refusal};

/// The tables, embedded so the profile cannot be swapped or lost at run time.
const DATA: &str = include_str!("neovim-reach.json");

/// Builtin commands that are never offered as catalog items, with the reason shown.
///
/// Modifiers take another command; through `nvim_cmd` they belong in the `mods` field,
/// which leash fills from the catalog, never from the model. The rest either bypass the
/// settings allowlist, run text as commands, block on input or persist code.
const WITHHELD: &[(&str, &str)] = &[
    ("aboveleft", MODIFIER),
    ("belowright", MODIFIER),
    ("botright", MODIFIER),
    ("browse", MODIFIER),
    ("confirm", MODIFIER),
    ("filter", MODIFIER),
    ("horizontal", MODIFIER),
    ("keepalt", MODIFIER),
    ("keepjumps", MODIFIER),
    ("keepmarks", MODIFIER),
    ("keeppatterns", MODIFIER),
    ("leftabove", MODIFIER),
    ("lockmarks", MODIFIER),
    ("noautocmd", MODIFIER),
    ("noswapfile", MODIFIER),
    ("rightbelow", MODIFIER),
    ("sandbox", MODIFIER),
    ("silent", MODIFIER),
    ("tab", MODIFIER),
    ("topleft", MODIFIER),
    ("unsilent", MODIFIER),
    ("verbose", MODIFIER),
    ("vertical", MODIFIER),
    ("set", "a setting step does this, and :set would bypass the settings allowlist"),
    ("setlocal", "a setting step does this, and :setlocal would bypass the settings allowlist"),
    ("setglobal", "a setting step does this, and :setglobal would bypass the settings allowlist"),
    ("execute", "runs other commands given as text"),
    ("normal", "runs keystrokes, and ':' in them runs any command"),
    ("@", "runs a register's contents as commands"),
    ("*", "runs a register's contents as commands"),
    ("debug", "runs another command in debug mode and waits for input"),
    ("restart", "starts a new Neovim that runs commands given as text"),
    ("connect", "sends your keystrokes to another Neovim server"),
    ("trust", "marks a file trusted so Neovim runs it at every start"),
];

const MODIFIER: &str = "a command modifier takes another command; leash sets modifiers itself";

/// Commands whose only argument is another command in string form. Through `nvim_cmd`
/// `:hide` ignores it (verified), but nothing good can come of passing one.
const NO_ARGS: &[&str] = &["hide"];

/// Commands whose numeric argument sizes work: `:sleep 99999` freezes Neovim, and
/// `:center 99999` (or `:right`, `:left`, `:retab`) pads every line with that many
/// spaces. Every number in their arguments must be at most the cap (`:sleep` counts
/// seconds, or milliseconds with a trailing `m`).
const NUMBER_ARG_CAPS: &[(&str, u64)] =
    &[("sleep", 10), ("center", 1000), ("right", 1000), ("left", 1000), ("retab", 100)];

/// Checks the numbers in the arguments of a command listed in [`NUMBER_ARG_CAPS`].
fn check_number_args(name: &str, args: &[String]) -> Result<(), Refusal> {
    let Some(&(_, cap)) = NUMBER_ARG_CAPS.iter().find(|(n, _)| *n == name) else {
        return Ok(());
    };
    for arg in args {
        let millis = name == "sleep" && arg.trim_end().ends_with('m');
        for run in arg.split(|c: char| !c.is_ascii_digit()).filter(|r| !r.is_empty()) {
            let n: u64 = run.parse().unwrap_or(u64::MAX);
            let n = if millis { n / 1000 } else { n };
            if n > cap {
                let what = format!("argument “{}” for :{name}", shown(arg));
                return Err(Refusal::AboveLimit { what, limit: i64::try_from(cap).unwrap_or(i64::MAX) });
            }
        }
    }
    Ok(())
}

/// Options whose value is a runtime-file name that Neovim sources (`filetype=x` sources
/// `ftplugin/x.vim`…). Neovim validates them too; checking here keeps a traversal out even
/// if it did not.
const NAME_OPTIONS: &[&str] = &["filetype", "syntax", "keymap"];

/// Why `:name` is never offered as an item, or `None` if it may be.
pub fn withheld(name: &str) -> Option<&'static str> {
    WITHHELD.iter().find(|(n, _)| *n == name).map(|(_, why)| *why)
}

/// Every withheld command with its reason (the Lua side's copy comes from here).
pub fn withheld_commands() -> &'static [(&'static str, &'static str)] {
    WITHHELD
}

/// Commands offered without arguments.
pub fn argumentless_commands() -> &'static [&'static str] {
    NO_ARGS
}

/// Commands whose numbers are capped, with the cap (`:sleep` in seconds).
pub fn number_arg_caps() -> &'static [(&'static str, u64)] {
    NUMBER_ARG_CAPS
}

/// Whether `:name` takes file names (its argument is expanded as one, or it opens one):
/// true for a command the tables do not know.
pub fn takes_file_names(name: &str) -> bool {
    match tables().and_then(|t| t.commands.get(name)) {
        Some(row) => row.flags.xfile || row.flags.loads_files,
        None => true,
    }
}

/// How long `:sleep args` sleeps, in milliseconds (`:sleep` alone is one second).
pub fn sleep_millis(args: &[String]) -> u64 {
    let text = args.join(" ");
    let text = text.trim();
    if text.is_empty() {
        return 1000;
    }
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    let n: u64 = if digits.is_empty() { 1 } else { digits.parse().unwrap_or(u64::MAX) };
    if text.ends_with('m') {
        n
    } else {
        n.saturating_mul(1000)
    }
}

/// One command row as the Lua side's filter needs it: raw reach, reach and flag words.
pub struct CommandFacts {
    pub raw: Reach,
    pub reach: Reach,
    pub flags: Vec<&'static str>,
}

/// Every command row, for the Lua side's filter (`None` if the tables are broken).
pub fn command_facts() -> Option<Vec<(&'static str, CommandFacts)>> {
    let tables = tables()?;
    let mut out: Vec<_> = tables
        .commands
        .iter()
        .map(|(name, row)| {
            let f = row.flags;
            let flags = [
                (f.xfile, "xfile"),
                (f.cmdarg, "cmdarg"),
                (f.argopt, "argopt"),
                (f.backticks, "backticks"),
                (f.loads_files, "loads_files"),
                (f.name_arg, "name_arg"),
            ]
            .into_iter()
            .filter_map(|(on, word)| on.then_some(word))
            .collect();
            (name.as_str(), CommandFacts { raw: row.raw.reach(), reach: row.reach, flags })
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(b.0));
    Some(out)
}

/// The reach of the builtin Ex command `name` (full name) once its arguments have passed
/// [`check_command_args`]; `None` if the tables do not know it.
pub fn command_reach(name: &str) -> Option<Reach> {
    tables()?.commands.get(name).map(|row| row.reach)
}

/// The reach of setting the option `key` (full name); `None` if the tables do not know it.
pub fn option_reach(key: &str) -> Option<Reach> {
    tables()?.options.get(key).map(|row| row.class.reach())
}

/// Why `:name` has its reach, for a view of the tables.
pub fn command_reason(name: &str) -> Option<&'static str> {
    tables()?.commands.get(name).map(|row| row.reason.as_str())
}

/// Why setting `key` has its reach, for a view of the tables.
pub fn option_reason(key: &str) -> Option<&'static str> {
    tables()?.options.get(key).map(|row| row.reason.as_str())
}

/// The numbers option `key` may be set to: the profile's minimum (0 unless the table
/// says otherwise) and cap; `None` if the tables failed to load.
pub fn number_range(key: &str) -> Option<(i64, i64)> {
    let t = tables()?;
    Some((t.mins.get(key).copied().unwrap_or(0), t.caps.get(key).copied().unwrap_or(t.default_cap)))
}

/// Refuses arguments that would make `:name` reach further than `reach` (the step's reach
/// so far) or than its row says.
///
/// The full filter runs when the step would otherwise run unconfirmed or only as a file
/// write (reach `safe`, `edit`, `write`), and also whenever the command's row is lower than
/// what it can do with free arguments (`:edit` raised to `code` by a catalog is still
/// filtered, or `term://` would run a shell under a `code` label). Whatever the reach,
/// name arguments must be plain names and the commands that expand backticks on their own
/// get none.
pub fn check_command_args(name: &str, reach: Reach, args: &[String]) -> Result<(), Refusal> {
    let Some(tables) = tables() else {
        return Err(TABLES_BROKEN);
    };
    // A command the tables do not know gets the strictest filter unless it already counts
    // as a shell (which is what mod.rs makes of it).
    let (flags, raw) = match tables.commands.get(name) {
        Some(row) => (row.flags, row.raw.reach()),
        None => (Flags::STRICTEST, Reach::Shell),
    };
    let full_filter = reach <= Reach::Write || raw > reach;
    if NO_ARGS.contains(&name) && !args.is_empty() {
        let note = Some("its argument would be another command");
        return Err(Refusal::TakesNoArgs { id: format!("cmd:{name}"), note });
    }
    for arg in args {
        if arg.len() > MAX_TEXT_BYTES {
            return Err(Refusal::TooLong { what: "an argument".into(), max: MAX_TEXT_BYTES });
        }
        // These commands expand backticks themselves, even with expansion off.
        if flags.backticks && arg.contains('`') {
            return Err(unsafe_arg(format!("argument “{}” for :{name}", shown(arg)), Hazard::Backtick));
        }
        if flags.name_arg {
            check_name(arg).map_err(|hazard| unsafe_arg(format!("argument “{}” for :{name}", shown(arg)), hazard))?;
        }
        if full_filter {
            check_arg(arg, flags)?;
        }
    }
    check_number_args(name, args)
}

/// Refuses option values that the option's type, caps or text rules do not allow.
pub fn check_option_value(key: &str, value: &SettingValue) -> Result<(), Refusal> {
    let Some(tables) = tables() else {
        return Err(TABLES_BROKEN);
    };
    if let Some(row) = tables.options.get(key) {
        if !row.kind.accepts(value) {
            return Err(Refusal::BadType {
                key: key.to_string(),
                expected: row.kind.described(),
                got: value.to_string(),
            });
        }
    }
    match value {
        SettingValue::Boolean(_) => Ok(()),
        SettingValue::Number(n) => {
            let cap = tables.caps.get(key).copied().unwrap_or(tables.default_cap);
            let min = tables.mins.get(key).copied().unwrap_or(0);
            if *n > cap {
                Err(Refusal::AboveLimit { what: format!("'{key}' = {n}"), limit: cap })
            } else if *n < min {
                Err(Refusal::BelowLimit { what: format!("'{key}' = {n}"), limit: min })
            } else {
                Ok(())
            }
        }
        SettingValue::String(s) => {
            let what = format!("the value of '{key}'");
            check_plain_text(&what, s)?;
            let unsafe_value = |what: String, hazard| Refusal::UnsafeValue { what, hazard };
            if s.contains('`') {
                return Err(unsafe_value(what, Hazard::Backtick));
            }
            if NAME_OPTIONS.contains(&key) && !s.is_empty() {
                check_name(s).map_err(|hazard| unsafe_value(what.clone(), hazard))?;
            }
            if key == "spelllang" {
                // A comma list of language names; never a path.
                for part in s.split(',').filter(|p| !p.is_empty()) {
                    let name = || format!("the name “{}” in {what}", shown(part));
                    check_name(part).map_err(|hazard| unsafe_value(name(), hazard))?;
                }
            }
            Ok(())
        }
    }
}

const TABLES_BROKEN: Refusal = Refusal::TablesBroken { profile: "Neovim" };

fn unsafe_arg(what: String, hazard: Hazard) -> Refusal {
    Refusal::UnsafeArgument { what, hazard }
}

/// The recipe of doc/reach.md (section 4.3) for one argument.
fn check_arg(arg: &str, flags: Flags) -> Result<(), Refusal> {
    let what = format!("argument “{}”", shown(arg));
    check_plain_text(&what, arg)?;
    check_hazards(arg, flags).map_err(|hazard| unsafe_arg(what, hazard))?;
    if flags.xfile || flags.loads_files {
        // One argument can hold several names: `:args`, `:argadd`, `:next`, `:drop`,
        // `:vimgrep`… split their argument at white space (a backslash-escaped space
        // too), so `a.txt term://sh` adds a `term://` name that a later `:next` or
        // `:last` opens. Every word gets the rules the first one gets.
        for word in arg.split(char::is_whitespace).filter(|w| !w.is_empty()) {
            check_word(word).map_err(|hazard| {
                unsafe_arg(format!("the name “{}” in argument “{}”", shown(word), shown(arg)), hazard)
            })?;
        }
    }
    Ok(())
}

/// The rules for an argument as a whole.
fn check_hazards(arg: &str, flags: Flags) -> Result<(), Hazard> {
    if arg.contains('`') {
        return Err(Hazard::Backtick);
    }
    let start = arg.trim_start();
    if start.starts_with('+') {
        // Every command gets this rule; the flags only make the message precise.
        let reading = match (flags.cmdarg, flags.argopt) {
            (true, _) => "a command to run (+cmd)",
            (false, true) => "an option (++opt)",
            (false, false) => "a command (+cmd) or option (++opt)",
        };
        return Err(Hazard::Plus { reading });
    }
    if start.starts_with('!') {
        return Err(Hazard::Bang);
    }
    if arg.contains('|') {
        return Err(Hazard::Bar);
    }
    if let Some(scheme) = url_scheme(start) {
        return Err(Hazard::UrlScheme { scheme: scheme.to_string() });
    }
    if flags.xfile {
        if let Some(c) = arg.chars().find(|c| "%#*?[{$".contains(*c)) {
            return Err(Hazard::Expansion { c });
        }
        if start.starts_with('~') {
            return Err(Hazard::Home);
        }
        if let Some(word) = angle_word(arg) {
            return Err(Hazard::EditorText { word: word.to_string() });
        }
    }
    Ok(())
}

/// The start-of-name rules for one white-space separated word of a file argument.
fn check_word(word: &str) -> Result<(), Hazard> {
    if word.starts_with('+') {
        return Err(Hazard::Plus { reading: "+cmd or ++opt" });
    }
    if word.starts_with('!') {
        return Err(Hazard::Bang);
    }
    if let Some(scheme) = url_scheme(word) {
        return Err(Hazard::UrlScheme { scheme: scheme.to_string() });
    }
    if word.starts_with('~') {
        return Err(Hazard::Home);
    }
    Ok(())
}

/// Shared by arguments and option strings: bounded, and nothing that hides part of the text.
fn check_plain_text(what: &str, s: &str) -> Result<(), Refusal> {
    if s.len() > MAX_TEXT_BYTES {
        return Err(Refusal::TooLong { what: what.to_string(), max: MAX_TEXT_BYTES });
    }
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return Err(Refusal::ControlCharacter { what: what.to_string(), c });
    }
    if let Some(c) = s.chars().find(|c| is_invisible(*c)) {
        return Err(Refusal::InvisibleCharacter { what: what.to_string(), c });
    }
    Ok(())
}

/// Zero-width and bidirectional formatting characters (inclusive code point ranges): they
/// make the text shown in the confirmation differ from what runs. The Lua side reads this
/// table through the native module (`policy_lists`).
pub const INVISIBLE_RANGES: &[(u32, u32)] =
    &[(0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x2069), (0xFEFF, 0xFEFF)];

fn is_invisible(c: char) -> bool {
    let c = u32::from(c);
    INVISIBLE_RANGES.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// A runtime-file name (`desert`, `gcc`, `c.doxygen`): a path could source any file.
fn check_name(s: &str) -> Result<(), Hazard> {
    let plain = s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if s.is_empty() || !plain {
        return Err(Hazard::NotPlainName);
    }
    if s.contains("..") {
        return Err(Hazard::ParentDir);
    }
    Ok(())
}

/// `term:`, `https:`, `C:`… at the start: `[A-Za-z][A-Za-z0-9+.-]*:`.
fn url_scheme(s: &str) -> Option<&str> {
    let mut chars = s.char_indices();
    let (_, first) = chars.next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    for (i, c) in chars {
        if c == ':' {
            return Some(&s[..=i]);
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')) {
            return None;
        }
    }
    None
}

/// The first `<word>` (`<cword>`, `<cfile>`, `<sfile>`…) in `s`.
fn angle_word(s: &str) -> Option<&str> {
    let mut rest = s;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let len = after.bytes().take_while(u8::is_ascii_alphabetic).count();
        if len > 0 && after[len..].starts_with('>') {
            return Some(&rest[open..open + len + 2]);
        }
        rest = after;
    }
    None
}

/// An argument as quoted in a message: control characters made visible, long ones cut.
fn shown(s: &str) -> String {
    const MAX_CHARS: usize = 60;
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == MAX_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() || is_invisible(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The tables.

/// The parsed tables, or `None` if the embedded file is broken (then everything fails closed).
fn tables() -> Option<&'static Tables> {
    static TABLES: OnceLock<Option<Tables>> = OnceLock::new();
    TABLES.get_or_init(|| load(DATA).ok()).as_ref()
}

struct Tables {
    options: HashMap<String, OptionRow>,
    commands: HashMap<String, CommandRow>,
    caps: HashMap<String, i64>,
    default_cap: i64,
    mins: HashMap<String, i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)] // documentation for people reading the file
    about: String,
    number_caps: HashMap<String, i64>,
    number_min: HashMap<String, i64>,
    options: HashMap<String, OptionRow>,
    commands: HashMap<String, CommandRow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OptionRow {
    class: OptionClass,
    #[serde(rename = "type")]
    kind: OptionType,
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandRow {
    /// The study's class once the arguments pass the filter.
    class: CommandClass,
    /// The study's class when the model controls the arguments freely.
    raw: CommandClass,
    /// What leash uses: the class, or higher (buffer-changing commands are `edit`).
    reach: Reach,
    #[serde(deserialize_with = "parse_flags")]
    flags: Flags,
    reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum OptionClass {
    Code,
    Fs,
    Safe,
}

impl OptionClass {
    fn reach(self) -> Reach {
        match self {
            OptionClass::Code => Reach::Code,
            OptionClass::Fs => Reach::Write,
            OptionClass::Safe => Reach::Safe,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum OptionType {
    Boolean,
    Number,
    String,
}

impl OptionType {
    fn accepts(self, value: &SettingValue) -> bool {
        matches!(
            (self, value),
            (OptionType::Boolean, SettingValue::Boolean(_))
                | (OptionType::Number, SettingValue::Number(_))
                | (OptionType::String, SettingValue::String(_))
        )
    }

    fn described(self) -> &'static str {
        match self {
            OptionType::Boolean => "true or false",
            OptionType::Number => "a number",
            OptionType::String => "text",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum CommandClass {
    Shell,
    Code,
    /// Runs other commands: as far-reaching as code.
    Meta,
    Write,
    Safe,
}

impl CommandClass {
    fn reach(self) -> Reach {
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
struct Flags {
    /// Arguments are file names that Neovim expands (`%`, `#`, wildcards, `$VAR`, `~`).
    xfile: bool,
    /// `+cmd` is honoured.
    cmdarg: bool,
    /// `++opt` is honoured.
    argopt: bool,
    /// Backticks are shell-expanded even with `magic.file = false`.
    backticks: bool,
    /// Opens a file into a buffer (so archive handlers can run).
    loads_files: bool,
    /// The argument is a runtime-file name (`:colorscheme desert`).
    name_arg: bool,
}

impl Flags {
    const STRICTEST: Flags =
        Flags { xfile: true, cmdarg: true, argopt: true, backticks: true, loads_files: true, name_arg: false };
}

fn parse_flags<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Flags, D::Error> {
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
fn load(text: &str) -> Result<Tables, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// `:name args` as a step whose reach is the table's.
    fn check(name: &str, list: &[&str]) -> Result<(), Refusal> {
        let reach = command_reach(name).unwrap_or(Reach::Shell);
        check_command_args(name, reach, &args(list))
    }

    fn refused(name: &str, arg: &str) -> Refusal {
        match check(name, &[arg]) {
            Err(why) => why,
            Ok(()) => panic!(":{name} {arg:?} was accepted"),
        }
    }

    /// The rule of the argument filter that refused `:name arg`.
    fn hazard(name: &str, arg: &str) -> Hazard {
        match refused(name, arg) {
            Refusal::UnsafeArgument { hazard, .. } => hazard,
            other => panic!(":{name} {arg:?} was refused as {}, not unsafe_argument: {other}", other.code()),
        }
    }

    /// The code of the refusal of `'key' = value`, or `None` if it is accepted.
    fn value_code(key: &str, value: &SettingValue) -> Option<&'static str> {
        check_option_value(key, value).err().map(|r| r.code())
    }

    fn accepted(name: &str, arg: &str) {
        if let Err(why) = check(name, &[arg]) {
            panic!(":{name} {arg:?} was refused: {why}");
        }
    }

    fn table() -> &'static Tables {
        tables().expect("the embedded tables parse")
    }

    fn count<T: PartialEq>(items: impl Iterator<Item = T>, want: T) -> usize {
        items.filter(|x| *x == want).count()
    }

    // --- the data file ------------------------------------------------------------------

    #[test]
    fn embedded_tables_parse() {
        if let Err(e) = load(DATA) {
            panic!("{e}");
        }
        assert!(tables().is_some());
    }

    #[test]
    fn broken_tables_fail_closed() {
        assert!(load("{").is_err());
        assert!(load("").is_err());
        // Unknown fields and flags are errors, not ignored.
        let lowered = DATA.replacen(r#""reach": "shell""#, r#""reach": "safe""#, 1);
        assert!(load(&lowered).is_err(), "a row below its class must reject the file");
        let bad_flag = DATA.replacen(r#""xfile""#, r#""xfiles""#, 1);
        assert!(load(&bad_flag).is_err());
        let no_reason =
            DATA.replacen(r#""reason": "removed or hidden in Nvim: setting it does nothing""#, r#""reason": " ""#, 1);
        assert_ne!(no_reason, DATA);
        assert!(load(&no_reason).is_err());
    }

    #[test]
    fn option_class_counts_match_the_study() {
        let t = table();
        assert_eq!(t.options.len(), 375);
        let classes = || t.options.values().map(|r| r.class);
        assert_eq!(count(classes(), OptionClass::Code), 61);
        assert_eq!(count(classes(), OptionClass::Fs), 27);
        assert_eq!(count(classes(), OptionClass::Safe), 287);
    }

    #[test]
    fn command_class_counts_match_the_study() {
        let t = table();
        assert_eq!(t.commands.len(), 559);
        let classes = || t.commands.values().map(|r| r.class);
        assert_eq!(count(classes(), CommandClass::Shell), 11);
        assert_eq!(count(classes(), CommandClass::Code), 178);
        assert_eq!(count(classes(), CommandClass::Meta), 41);
        assert_eq!(count(classes(), CommandClass::Write), 29);
        assert_eq!(count(classes(), CommandClass::Safe), 300);
        let reaches = || t.commands.values().map(|r| r.reach);
        assert_eq!(count(reaches(), Reach::Shell), 14); // the study's 11, plus :suspend, :stop and :detach
        assert_eq!(count(reaches(), Reach::Code), 221); // 178 code + 41 meta, plus :& and :~ (repeat a '\=' substitute)
        assert_eq!(count(reaches(), Reach::Write), 30); // the study's 29, plus :cquit raised from safe
        assert_eq!(count(reaches(), Reach::Edit), 25);
        assert_eq!(count(reaches(), Reach::Safe), 269);
    }

    #[test]
    fn every_row_has_a_reach_and_a_reason() {
        let t = table();
        for (key, row) in &t.options {
            assert_eq!(option_reach(key), Some(row.class.reach()), "{key}");
            assert!(option_reason(key).is_some_and(|r| !r.trim().is_empty()), "{key}");
        }
        for (name, row) in &t.commands {
            let reach = command_reach(name).unwrap_or_else(|| panic!("{name}"));
            assert!(reach >= row.class.reach(), "{name} is below its class");
            assert!(command_reason(name).is_some_and(|r| !r.trim().is_empty()), "{name}");
        }
    }

    #[test]
    fn unknown_names_are_unknown() {
        assert_eq!(option_reach("no-such-option"), None);
        assert_eq!(option_reach("ts"), None, "short names are not keys");
        assert_eq!(command_reach("vs"), None, "abbreviations are not names");
        assert_eq!(command_reach("Git"), None);
        assert_eq!(command_reason("Git"), None);
        assert_eq!(option_reason("sw"), None);
    }

    // --- classes by example ---------------------------------------------------------------

    #[test]
    fn code_options() {
        for key in [
            "shell",
            "shellcmdflag",
            "shellxquote",
            "makeprg",
            "grepprg",
            "makeef",
            "statusline",
            "tabline",
            "winbar",
            "statuscolumn",
            "foldexpr",
            "indentexpr",
            "formatexpr",
            "complete",
            "completefunc",
            "runtimepath",
            "packpath",
            "path",
            "filetype",
            "syntax",
            "modeline",
            "modelineexpr",
            "exrc",
            "eventignore",
            "spellsuggest",
            "keywordprg",
            "viewdir",
        ] {
            assert_eq!(option_reach(key), Some(Reach::Code), "{key}");
        }
    }

    #[test]
    fn fs_options_are_write() {
        for key in [
            "backup",
            "backupdir",
            "backupext",
            "backupskip",
            "directory",
            "undodir",
            "undofile",
            "shada",
            "shadafile",
            "spellfile",
            "verbosefile",
            "write",
            "writeany",
            "autowrite",
            "swapfile",
            "tags",
            "dictionary",
        ] {
            assert_eq!(option_reach(key), Some(Reach::Write), "{key}");
        }
    }

    #[test]
    fn safe_options() {
        for key in [
            "tabstop",
            "shiftwidth",
            "expandtab",
            "number",
            "relativenumber",
            "wrap",
            "list",
            "clipboard",
            "guifont",
            "fileformat",
            "mouse",
            "ignorecase",
            "hlsearch",
            "colorcolumn",
            "cursorline",
            "spell",
            "textwidth",
            "scrolloff",
            "writedelay",
            "compatible",
        ] {
            assert_eq!(option_reach(key), Some(Reach::Safe), "{key}");
        }
    }

    #[test]
    fn shell_commands() {
        for name in ["!", "make", "lmake", "grep", "lgrepadd", "terminal", "checkhealth", "diffpatch", "restart"] {
            assert_eq!(command_reach(name), Some(Reach::Shell), "{name}");
        }
    }

    #[test]
    fn code_commands() {
        for name in [
            "lua",
            "=",
            "luafile",
            "python3",
            "call",
            "echo",
            "let",
            "source",
            "runtime",
            "packadd",
            "substitute",
            "put",
            "iput",
            "cexpr",
            "colorscheme",
            "compiler",
            "setfiletype",
            "syntax",
            "autocmd",
            "command",
            "nnoremap",
            "iabbrev",
            "menu",
            "doautocmd",
            "breakadd",
            "rshada",
            "loadview", // meta commands count as code
            "global",
            "vglobal",
            "windo",
            "bufdo",
            "argdo",
            "cdo",
            "emenu",
            "folddoopen",
        ] {
            assert_eq!(command_reach(name), Some(Reach::Code), "{name}");
        }
    }

    #[test]
    fn write_commands() {
        for name in [
            "write",
            "saveas",
            "update",
            "wall",
            "wq",
            "xit",
            "file",
            "mksession",
            "mkview",
            "wshada",
            "wundo",
            "redir",
            "profile",
            "helptags",
            "spellgood",
            "preserve",
            "cquit",
        ] {
            assert_eq!(command_reach(name), Some(Reach::Write), "{name}");
        }
    }

    #[test]
    fn edit_commands() {
        for name in [
            "delete",
            "move",
            "copy",
            "t",
            "join",
            ">",
            "<",
            "sort",
            "uniq",
            "retab",
            "left",
            "right",
            "center",
            "append",
            "insert",
            "change",
            "undo",
            "redo",
            "earlier",
            "later",
            "read",
            "diffget",
            "diffput",
            "recover",
            "spellrepall",
        ] {
            assert_eq!(command_reach(name), Some(Reach::Edit), "{name}");
        }
    }

    #[test]
    fn safe_commands() {
        for name in [
            "vsplit",
            "edit",
            "split",
            "tabedit",
            "buffer",
            "bnext",
            "yank",
            "mark",
            "help",
            "nohlsearch",
            "cd",
            "cnext",
            "copen",
            "tag",
            "only",
            "quit",
            "redraw",
            "args",
            "argadd",
            "vimgrep",
            "hide",
            "undojoin",
            "ls",
        ] {
            assert_eq!(command_reach(name), Some(Reach::Safe), "{name}");
        }
    }

    #[test]
    fn withheld_commands() {
        for name in [
            "silent",
            "vertical",
            "horizontal",
            "tab",
            "keepjumps",
            "keepmarks",
            "keepalt",
            "keeppatterns",
            "lockmarks",
            "noautocmd",
            "noswapfile",
            "sandbox",
            "unsilent",
            "verbose",
            "topleft",
            "botright",
            "aboveleft",
            "belowright",
            "leftabove",
            "rightbelow",
            "browse",
            "confirm",
            "filter",
            "set",
            "setlocal",
            "setglobal",
            "execute",
            "normal",
            "@",
            "*",
            "debug",
            "restart",
            "connect",
            "trust",
        ] {
            assert!(withheld(name).is_some_and(|r| !r.is_empty()), "{name}");
        }
        for name in ["windo", "bufdo", "global", "hide", "vsplit", "lua", "write"] {
            assert_eq!(withheld(name), None, "{name}");
        }
        assert_eq!(withheld("set").map(|r| r.starts_with("a setting step does this")), Some(true));
        assert_eq!(withheld("execute"), Some("runs other commands given as text"));
        // Every withheld name is a real command (a typo would withhold nothing).
        for (name, _) in WITHHELD {
            assert!(table().commands.contains_key(*name), "{name}");
        }
    }

    // --- argument filter ----------------------------------------------------------------

    #[test]
    fn bar_is_refused() {
        assert_eq!(hazard("vsplit", "notes.md | !touch /tmp/x"), Hazard::Bar);
        accepted("vsplit", "notes.md");
        accepted("vsplit", "src/policy/neovim.rs");
    }

    #[test]
    fn plus_cmd_and_opt_are_refused() {
        assert_eq!(hazard("edit", "+!touch x"), Hazard::Plus { reading: "a command to run (+cmd)" });
        assert!(matches!(hazard("edit", "  +call writefile([], 'x')"), Hazard::Plus { .. }));
        assert!(matches!(hazard("write", "++p /tmp/deep/dir/f"), Hazard::Plus { .. }));
        assert!(matches!(hazard("buffer", "+call\\ writefile([],'x')"), Hazard::Plus { .. }));
        accepted("edit", "notes+draft.md");
    }

    #[test]
    fn bang_form_is_refused() {
        assert_eq!(hazard("read", "!touch x"), Hazard::Bang);
        assert_eq!(hazard("write", " !sh"), Hazard::Bang);
        accepted("read", "header.txt");
        accepted("write", "out.txt");
    }

    #[test]
    fn url_schemes_are_refused() {
        for (arg, scheme) in [
            ("term://sh", "term:"),
            ("scp://host/file", "scp:"),
            ("https://example.com/x", "https:"),
            ("zipfile:a.zip::b", "zipfile:"),
            ("C:notes.txt", "C:"),
        ] {
            assert_eq!(hazard("edit", arg), Hazard::UrlScheme { scheme: scheme.into() }, "{arg}");
        }
        assert!(matches!(hazard("vsplit", "scp://host/file"), Hazard::UrlScheme { .. }));
        accepted("edit", "dir/term-notes.md");
        accepted("help", "options");
    }

    #[test]
    fn backticks_are_refused() {
        assert_eq!(hazard("args", "`touch x`"), Hazard::Backtick);
        assert_eq!(hazard("edit", "`touch x`"), Hazard::Backtick);
        assert_eq!(hazard("vimgrep", "`touch x`"), Hazard::Backtick);
        accepted("args", "a.txt");
        // The 13 self-expanding commands refuse backticks whatever the step's reach.
        let shell = Reach::Shell;
        for name in [
            "argadd",
            "argedit",
            "argglobal",
            "arglocal",
            "args",
            "drop",
            "next",
            "snext",
            "vimgrep",
            "vimgrepadd",
            "lvimgrep",
            "lvimgrepadd",
            "helptags",
        ] {
            assert!(table().commands[name].flags.backticks, "{name}");
            let refusal = check_command_args(name, shell, &args(&["`touch x`"])).unwrap_err();
            assert_eq!(refusal.hazard(), Some(&Hazard::Backtick), "{name}");
            assert!(check_command_args(name, shell, &args(&["x.txt"])).is_ok(), "{name}");
        }
        assert_eq!(table().commands.values().filter(|r| r.flags.backticks).count(), 13);
    }

    #[test]
    fn control_and_invisible_characters_are_refused() {
        for arg in ["notes.md\ncall writefile([], 'x')", "notes\r.md", "notes\u{1b}[2J.md"] {
            assert_eq!(refused("vsplit", arg).code(), "control_character", "{arg:?}");
        }
        let why = refused("vsplit", "evil\u{202E}dm.txt");
        assert_eq!(why.code(), "invisible_character");
        assert!(why.to_string().contains("U+202E"), "{why}");
        accepted("vsplit", "notes with spaces.md");
    }

    #[test]
    fn expansion_characters_are_refused_for_file_arguments() {
        for (attack, c) in [
            ("%.bak", '%'),
            ("#", '#'),
            ("*.rs", '*'),
            ("a?.md", '?'),
            ("[ab].md", '['),
            ("{a,b}.md", '{'),
            ("$HOME/.bashrc", '$'),
        ] {
            assert_eq!(hazard("edit", attack), Hazard::Expansion { c }, "{attack}");
        }
        assert_eq!(hazard("edit", "~/.bashrc"), Hazard::Home);
        assert_eq!(hazard("edit", "<cfile>"), Hazard::EditorText { word: "<cfile>".into() });
        assert_eq!(hazard("edit", "x<cword>y"), Hazard::EditorText { word: "<cword>".into() });
        accepted("edit", "a~b.md");
        accepted("edit", "a<b.md");
        // Not a file command: a help tag may contain these.
        accepted("help", "'tabstop'");
        accepted("help", "*pattern*");
    }

    #[test]
    fn every_name_in_a_multi_name_argument_is_checked() {
        // :argadd/:next/:drop/:argedit/:args split one argument at white space: the
        // second name must pass the same rules as the first (it ran a shell before).
        let url = || Hazard::UrlScheme { scheme: "term:".into() };
        let plus = || Hazard::Plus { reading: "+cmd or ++opt" };
        for name in ["args", "argadd", "argedit", "next", "drop", "vimgrep", "edit", "vsplit", "badd", "first"] {
            for (attack, want) in [
                ("a.txt term://touch\\ x", url()),
                ("a.txt term://sh", url()),
                ("a.txt\\ term://sh", url()),
                ("a.txt scp://host/f", Hazard::UrlScheme { scheme: "scp:".into() }),
                ("a.txt ~/.bashrc", Hazard::Home),
                ("a.txt +call\\ x()", plus()),
                ("a.txt ++p", plus()),
                ("a.txt !sh", Hazard::Bang),
            ] {
                assert_eq!(hazard(name, attack), want, ":{name} {attack}");
            }
            assert!(check(name, &["a.txt b.txt"]).is_ok(), ":{name}");
            assert!(check(name, &["notes with spaces.md"]).is_ok(), ":{name}");
        }
        assert!(check("vimgrep", &["/hello/", "a.txt b.txt"]).is_ok());
        assert!(check("vimgrep", &["/hello/", "a.txt term://sh"]).is_err());
        assert!(check("vimgrep", &["/hello/ a.txt term://sh"]).is_err());
        assert_eq!(
            refused("args", "a.txt term://sh").to_string(),
            "the name “term://sh” in argument “a.txt term://sh” starts with “term:”, a URL-like name that a handler \
             opens (term:// runs a shell, scp:// and https:// run curl or scp)"
        );
    }

    #[test]
    fn handled_names_are_left_to_the_name_handlers() {
        // Which names a handler reads (gzip, tar, zip…) is reported with the catalog
        // (policy::names); the argument filter alone has no list of them.
        accepted("edit", "x.gz");
        accepted("write", "backup.lz4");
        assert!(takes_file_names("edit") && takes_file_names("write") && takes_file_names("args"));
        assert!(takes_file_names("NoSuchCommand"));
        assert!(!takes_file_names("help") && !takes_file_names("sleep"));
    }

    #[test]
    fn sleep_durations() {
        assert_eq!(sleep_millis(&[]), 1000);
        assert_eq!(sleep_millis(&args(&["2"])), 2000);
        assert_eq!(sleep_millis(&args(&["500m"])), 500);
        assert_eq!(sleep_millis(&args(&["99999999999999999999"])), u64::MAX);
    }

    #[test]
    fn lists_for_the_lua_side() {
        assert!(super::withheld_commands().iter().any(|(n, _)| *n == "normal"));
        assert_eq!(argumentless_commands(), &["hide"]);
        assert!(number_arg_caps().contains(&("sleep", 10)));
        let facts = command_facts().expect("tables");
        assert_eq!(facts.len(), table().commands.len());
        let (_, edit) = facts.iter().find(|(n, _)| *n == "edit").expect("edit");
        assert_eq!((edit.raw, edit.reach), (Reach::Shell, Reach::Safe));
        assert_eq!(edit.flags, vec!["xfile", "cmdarg", "argopt", "loads_files"]);
        assert!(is_invisible('\u{202E}') && is_invisible('\u{FEFF}') && !is_invisible('a'));
    }

    #[test]
    fn names_must_be_plain() {
        assert_eq!(hazard("colorscheme", "../../x"), Hazard::NotPlainName);
        assert_eq!(hazard("colorscheme", "/tmp/x"), Hazard::NotPlainName);
        assert_eq!(hazard("compiler", ".."), Hazard::ParentDir);
        assert_eq!(hazard("packadd", "a/b"), Hazard::NotPlainName);
        assert_eq!(hazard("setfiletype", "x y"), Hazard::NotPlainName);
        accepted("colorscheme", "desert");
        accepted("compiler", "gcc");
        accepted("packadd", "nvim.undotree");
        accepted("setfiletype", "c.doxygen");
        // The name rule holds even when the step is already confirmed as code.
        let refusal = check_command_args("colorscheme", Reach::Shell, &args(&["../../x"])).unwrap_err();
        assert_eq!(refusal.hazard(), Some(&Hazard::NotPlainName));
    }

    #[test]
    fn long_arguments_are_refused() {
        let long = "a".repeat(MAX_TEXT_BYTES + 1);
        assert_eq!(check("vsplit", &[&long]).unwrap_err().code(), "too_long");
        assert_eq!(check("lua", &[&long]).unwrap_err().code(), "too_long");
        accepted("vsplit", &"a".repeat(200));
    }

    #[test]
    fn code_commands_keep_their_text() {
        // Confirmed as code anyway: the filter would only break them.
        assert!(check("lua", &["print(vim.fn.line('.')) -- a | b"]).is_ok());
        assert!(check("global", &["/x/d"]).is_ok());
        assert!(check("substitute", &["/a/b/g"]).is_ok());
    }

    #[test]
    fn filter_follows_the_command_not_the_label() {
        // :edit raised to code by a catalog still cannot open term:// under a code label.
        let refusal = check_command_args("edit", Reach::Code, &args(&["term://sh"])).unwrap_err();
        assert_eq!(refusal.hazard(), Some(&Hazard::UrlScheme { scheme: "term:".into() }));
        // An unknown command gets the strictest filter unless it already counts as shell.
        let refusal = check_command_args("Frobnicate", Reach::Safe, &args(&["%"])).unwrap_err();
        assert_eq!(refusal.hazard(), Some(&Hazard::Expansion { c: '%' }));
        assert!(check_command_args("Frobnicate", Reach::Shell, &args(&["%"])).is_ok());
    }

    #[test]
    fn hide_takes_no_command() {
        assert_eq!(check("hide", &["edit term://sh"]).unwrap_err().code(), "takes_no_args");
        assert!(check("hide", &[]).is_ok());
    }

    #[test]
    fn messages_show_the_argument() {
        let why = refused("vsplit", "notes.md | !touch x").to_string();
        assert_eq!(why, "argument “notes.md | !touch x” contains “|”, which could start a second command");
        let why = refused("vsplit", &format!("{}|", "a".repeat(100))).to_string();
        assert!(why.contains('…') && why.len() < 200, "{why}");
        assert!(refused("vsplit", "a\nb").to_string().contains("a\\u{a}b"));
    }

    #[test]
    fn url_scheme_and_angle_word_helpers() {
        assert_eq!(url_scheme("term://sh"), Some("term:"));
        assert_eq!(url_scheme("svn+ssh://x"), Some("svn+ssh:"));
        assert_eq!(url_scheme("notes.md"), None);
        assert_eq!(url_scheme("1x:"), None);
        assert_eq!(url_scheme("a b:c"), None);
        assert_eq!(angle_word("a<cfile>"), Some("<cfile>"));
        assert_eq!(angle_word("a<b <sfile>"), Some("<sfile>"));
        assert_eq!(angle_word("<>"), None);
    }

    // --- option values ------------------------------------------------------------------

    fn num(n: i64) -> SettingValue {
        SettingValue::Number(n)
    }

    fn text(s: &str) -> SettingValue {
        SettingValue::String(s.to_string())
    }

    #[test]
    fn numbers_are_capped() {
        let above = Some("above_limit");
        assert_eq!(value_code("tabstop", &num(99_999_999)), above);
        assert_eq!(value_code("shiftwidth", &num(200_000_000)), above);
        assert_eq!(value_code("tabstop", &num(4)), None);
        assert_eq!(value_code("tabstop", &num(9_999)), None);
        assert_eq!(value_code("tabstop", &num(10_000)), above, "Neovim's own limit is 9999");
        assert_eq!(value_code("tabstop", &num(0)), Some("below_limit"), "E487");
        assert_eq!(number_range("tabstop"), Some((1, 9999)));
        assert_eq!(number_range("textwidth"), Some((0, 10_000)));
        assert_eq!(value_code("undolevels", &num(100_000)), None);
        assert_eq!(value_code("undolevels", &num(2_147_483_647)), above);
        assert_eq!(value_code("verbose", &num(16)), above);
        assert_eq!(value_code("writedelay", &num(5)), above);
        assert_eq!(value_code("writedelay", &num(0)), None);
        let why = check_option_value("tabstop", &num(99_999_999)).unwrap_err();
        assert_eq!(why, Refusal::AboveLimit { what: "'tabstop' = 99999999".into(), limit: 9_999 });
        assert_eq!(why.to_string(), "'tabstop' = 99999999 is above the limit 9999 leash allows");
    }

    #[test]
    fn negative_numbers_only_where_neovim_takes_them() {
        let below = Some("below_limit");
        assert_eq!(value_code("tabstop", &num(-1)), below);
        assert_eq!(value_code("shiftwidth", &num(-1)), below);
        assert_eq!(value_code("scrolloff", &num(-1)), None);
        assert_eq!(value_code("scrolloff", &num(-2)), below);
        assert_eq!(value_code("sidescrolloff", &num(-1)), None);
        assert_eq!(value_code("softtabstop", &num(-1)), None);
        assert_eq!(value_code("undolevels", &num(-1)), None);
        assert_eq!(value_code("scrolljump", &num(-50)), None);
        assert_eq!(value_code("scrolljump", &num(-101)), below);
        // Every minimum belongs to a number option.
        for key in table().mins.keys() {
            assert_eq!(table().options[key].kind, OptionType::Number, "{key}");
        }
        for key in table().caps.keys().filter(|k| *k != "_default") {
            assert_eq!(table().options[key].kind, OptionType::Number, "{key}");
        }
    }

    #[test]
    fn strings_are_checked() {
        assert_eq!(value_code("statusline", &text("%f %m")), None);
        assert_eq!(value_code("runtimepath", &text("~/x,`touch M`")), Some("unsafe_value"));
        assert_eq!(value_code("titlestring", &text("a\u{1b}]52;c;x\u{7}")), Some("control_character"));
        assert_eq!(value_code("titlestring", &text("a\u{200B}b")), Some("invisible_character"));
        assert_eq!(value_code("statusline", &text(&"x".repeat(MAX_TEXT_BYTES + 1))), Some("too_long"));
        let hazard = |key: &str, s: &str| check_option_value(key, &text(s)).unwrap_err().hazard().cloned();
        assert_eq!(hazard("filetype", "../../x"), Some(Hazard::NotPlainName));
        assert_eq!(value_code("filetype", &text("c.doxygen")), None);
        assert_eq!(value_code("filetype", &text("")), None);
        assert_eq!(hazard("syntax", "/tmp/x"), Some(Hazard::NotPlainName));
        assert_eq!(value_code("spelllang", &text("en_us,de")), None);
        assert_eq!(hazard("spelllang", "en,../x"), Some(Hazard::NotPlainName));
        assert_eq!(hazard("spelllang", "en,.."), Some(Hazard::ParentDir));
    }

    #[test]
    fn values_must_have_the_option_type() {
        let bad_type = Some("bad_type");
        assert_eq!(value_code("wrap", &text("false")), bad_type);
        assert_eq!(value_code("tabstop", &text("4")), bad_type);
        assert_eq!(value_code("statusline", &num(1)), bad_type);
        assert_eq!(value_code("wrap", &SettingValue::Boolean(false)), None);
    }

    #[test]
    fn unknown_options_get_the_default_rules() {
        assert_eq!(value_code("notanoption", &num(20_000)), Some("above_limit"));
        assert_eq!(value_code("notanoption", &num(3)), None);
        assert_eq!(value_code("notanoption", &text("`x`")), Some("unsafe_value"));
    }

    #[test]
    fn numbers_that_size_work_are_capped() {
        let code =
            |name: &str, arg: &str| check_command_args(name, Reach::Safe, &[arg.to_string()]).err().map(|r| r.code());
        let above = Some("above_limit");
        assert_eq!(code("sleep", "99999"), above);
        assert_eq!(code("sleep", "20000m"), above);
        assert_eq!(code("sleep", "2"), None);
        assert_eq!(code("sleep", "500m"), None);
        assert_eq!(code("center", "99999"), above);
        assert_eq!(code("center", "80"), None);
        assert_eq!(code("right", "5000"), above);
        assert_eq!(code("retab", "4,99999"), above);
        assert_eq!(code("retab", "4"), None);
    }

    #[test]
    fn repeating_the_last_substitute_is_code() {
        assert_eq!(command_reach("&"), Some(Reach::Code));
        assert_eq!(command_reach("~"), Some(Reach::Code));
    }
}
